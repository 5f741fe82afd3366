/*
 * test_namespace.c - checker/namespace.h: the reference namespace built
 * from notes (paths resolved with ".", ".." and links; renames moving
 * subtrees, exchanges; refusals and limits changing nothing; rebase and
 * copy), and chk_ns_judge: for each namespace invariant a recovered
 * snapshot, built by hand from the reference's own, that breaks it (the
 * invariant alone is reported) and one that keeps it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "namespace.h"
#include "prng.h"

#define VMAX 16

/* The invariants @rec breaks against @ns, as a bit mask; the first message in @msg. */
static uint32_t judged(const struct chk_ns *ns, const struct nsnap *rec, char *msg)
{
	struct chk_violation v[VMAX];
	uint32_t n = chk_ns_judge(ns, rec, 9, v, VMAX), mask = 0;

	assert_true(n <= VMAX);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(v[i].step, 9);
		assert_int_equal(mask & (1u << v[i].inv), 0);   /* one per invariant */
		mask |= 1u << v[i].inv;
	}
	if (msg)
		snprintf(msg, CHK_MSG_MAX, "%s", n ? v[0].msg : "");
	return mask;
}

#define BIT(inv) (1u << (inv))

/* The reference's current namespace as a recovered state. */
static void current(const struct chk_ns *ns, struct nsnap *s)
{
	chk_ns_current(ns, s);
}

static struct nsnap_entry *entry(struct nsnap *s, const char *path)
{
	struct nsnap_entry *e = (struct nsnap_entry *)nsnap_find(s, path);

	assert_non_null(e);
	return e;
}

/* @s without @path's entry. */
static void drop(struct nsnap *s, const char *path)
{
	struct nsnap_entry *e = entry(s, path);
	uint32_t i = (uint32_t)(e - s->ns_e);

	memmove(e, e + 1, (s->ns_nr - i - 1) * sizeof(*e));
	s->ns_nr--;
}

static void add(struct nsnap *s, const struct nsnap_entry *e)
{
	assert_int_equal(nsnap_add(s, e), 0);
	nsnap_sort(s);
}

static void test_namespace__init_is_the_image(void **state)
{
	struct chk_ns ns;
	struct nsnap s;

	(void)state;
	chk_ns_init(&ns);
	current(&ns, &s);
	assert_int_equal(s.ns_nr, 3);
	assert_int_equal(entry(&s, "/")->ne_ino, 2);
	assert_int_equal(entry(&s, "/")->ne_nlink, 3);
	assert_int_equal(entry(&s, "/lost+found")->ne_ino, 11);
	assert_int_equal(entry(&s, "/lost+found")->ne_nlink, 2);
	assert_int_equal(entry(&s, "/f")->ne_ino, 12);
	assert_int_equal(entry(&s, "/f")->ne_type, NSNAP_REG);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

static void test_namespace__paths_resolve_dots_and_links(void **state)
{
	struct chk_ns ns;
	struct nsnap s;

	(void)state;
	chk_ns_init(&ns);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "a", 13), 0);
	assert_int_equal(chk_ns_note_create(&ns, 2, "./a/../b", 14), 0);
	assert_int_equal(chk_ns_note_symlink(&ns, 3, "a", "/l", 15), 0);
	assert_int_equal(chk_ns_note_create(&ns, 4, "l/x", 16), 0);       /* through the link */
	assert_int_equal(chk_ns_note_create(&ns, 5, "../../a/y", 17), 0); /* ".." of / is / */
	assert_int_equal(chk_ns_note_symlink(&ns, 6, "a/z", "m", 18), 0);
	assert_int_equal(chk_ns_note_create(&ns, 7, "m", 19), 0);         /* creat follows it */
	current(&ns, &s);
	assert_int_equal(entry(&s, "/b")->ne_ino, 14);
	assert_int_equal(entry(&s, "/a/x")->ne_ino, 16);
	assert_int_equal(entry(&s, "/a/y")->ne_ino, 17);
	assert_int_equal(entry(&s, "/a/z")->ne_ino, 19);
	assert_int_equal(entry(&s, "/l")->ne_size, 1);
	assert_string_equal(entry(&s, "/l")->ne_target, "a");
	assert_int_equal(chk_ns_note_unlink(&ns, 8, "l/x"), 0);
	assert_int_equal(chk_ns_note_unlink(&ns, 9, "l/x"), -ENOENT);
	nsnap_free(&s);
	/* a target longer than a snapshot keeps: walked whole, shown cut */
	{
		char target[128] = "";

		for (int i = 0; i < 40; i++)
			strcat(target, "./");
		strcat(target, "a");
		assert_int_equal(chk_ns_note_symlink(&ns, 10, target, "lt", 20), 0);
		assert_int_equal(chk_ns_note_create(&ns, 11, "lt/w", 21), 0);
		current(&ns, &s);
		assert_int_equal(entry(&s, "/a/w")->ne_ino, 21);
		assert_int_equal(entry(&s, "/lt")->ne_size, 81);
		assert_int_equal(strlen(entry(&s, "/lt")->ne_target), NSNAP_TARGET_MAX - 1);
		nsnap_free(&s);
	}
	assert_int_equal(chk_ns_note_symlink(&ns, 12, "loop", "loop", 22), 0);
	assert_int_equal(chk_ns_note_create(&ns, 13, "loop/x", 23), -ELOOP);
	chk_ns_destroy(&ns);
}

static void test_namespace__rename_moves_subtrees_and_exchanges(void **state)
{
	struct chk_ns ns;
	struct nsnap s;

	(void)state;
	chk_ns_init(&ns);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "a", 13), 0);
	assert_int_equal(chk_ns_note_mkdir(&ns, 2, "a/s", 14), 0);
	assert_int_equal(chk_ns_note_create(&ns, 3, "a/s/x", 15), 0);
	assert_int_equal(chk_ns_note_mkdir(&ns, 4, "c", 16), 0);
	assert_int_equal(chk_ns_note_rename(&ns, 5, "a/s", "c/t", 0), 0);
	assert_int_equal(chk_ns_note_link(&ns, 6, "c/t/x", "f2"), 0);
	current(&ns, &s);
	assert_null(nsnap_find(&s, "/a/s"));
	assert_int_equal(entry(&s, "/c/t/x")->ne_ino, 15);
	assert_int_equal(entry(&s, "/c/t/x")->ne_nlink, 2);
	assert_int_equal(entry(&s, "/c")->ne_nlink, 3);
	assert_int_equal(entry(&s, "/a")->ne_nlink, 2);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	/* an exchange swaps the subtrees; a rename over a file frees it */
	assert_int_equal(chk_ns_note_rename(&ns, 7, "a", "c/t", 2), 0);
	assert_int_equal(chk_ns_note_rename(&ns, 8, "f", "f2", 0), 0);
	current(&ns, &s);
	assert_int_equal(entry(&s, "/a/x")->ne_ino, 15);
	assert_int_equal(entry(&s, "/a/x")->ne_nlink, 1);
	assert_int_equal(entry(&s, "/c/t")->ne_ino, 13);
	assert_int_equal(entry(&s, "/f2")->ne_ino, 12);
	assert_null(nsnap_find(&s, "/f"));
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* An operation the reference finds impossible, or one past a limit, changes nothing. */
static void test_namespace__refusals_and_limits_change_nothing(void **state)
{
	struct chk_ns ns;
	struct nsnap before, after;
	uint32_t nver;

	(void)state;
	chk_ns_init(&ns);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "d", 13), 0);
	assert_int_equal(chk_ns_note_create(&ns, 2, "d/x", 14), 0);
	current(&ns, &before);
	nver = ns.ns_nr_ver;
	assert_int_equal(chk_ns_note_unlink(&ns, 3, "d"), -EISDIR);
	assert_int_equal(chk_ns_note_rmdir(&ns, 3, "d/x"), -ENOTDIR);
	assert_int_equal(chk_ns_note_rmdir(&ns, 3, "d"), -ENOTEMPTY);
	assert_int_equal(chk_ns_note_create(&ns, 3, "d/x", 15), -EEXIST);
	assert_int_equal(chk_ns_note_create(&ns, 3, "nope/x", 15), -ENOENT);
	assert_int_equal(chk_ns_note_create(&ns, 3, "f/x", 15), -ENOTDIR);
	assert_int_equal(chk_ns_note_link(&ns, 3, "d", "e"), -EISDIR);
	assert_int_equal(chk_ns_note_rename(&ns, 3, "d", "d/sub", 0), -EINVAL);
	assert_int_equal(chk_ns_note_rename(&ns, 3, "f", "d/x", 1), -EEXIST);
	assert_int_equal(chk_ns_note_rename(&ns, 3, "f", "d/y", 2), -ENOENT);
	assert_int_equal(chk_ns_note_rename(&ns, 3, "f", "d", 0), -EISDIR);
	assert_int_equal(chk_ns_note_rename(&ns, 3, "d", "f", 0), -ENOTDIR);
	assert_int_equal(chk_ns_note_rename(&ns, 3, "lost+found", "d", 0), -ENOTEMPTY);
	assert_int_equal(chk_ns_note_symlink(&ns, 3, "x", "l", 15), 0);
	assert_int_equal(chk_ns_note_symlink(&ns, 4, "l", "l2", 16), 0);
	assert_int_equal(chk_ns_note_unlink(&ns, 5, "l2"), 0);
	assert_int_equal(chk_ns_note_unlink(&ns, 6, "l"), 0);
	/* versions: N_0 and one per operation, CHK_NS_MAX_VERSIONS at most */
	while (ns.ns_nr_ver < CHK_NS_MAX_VERSIONS)
		assert_int_equal(ns.ns_nr_ver % 2 ? chk_ns_note_link(&ns, 7, "f", "g") :
				 chk_ns_note_unlink(&ns, 7, "g"), 0);
	nver = ns.ns_nr_ver;
	assert_int_equal(chk_ns_note_create(&ns, 8, "h", 17), -E2BIG);
	assert_int_equal(ns.ns_nr_ver, nver);
	current(&ns, &after);
	assert_null(nsnap_find(&after, "/h"));
	assert_int_equal(chk_ns_note_sync(&ns, 9), 0);
	assert_int_equal(ns.ns_nr_ver, 1);
	assert_int_equal(chk_ns_note_create(&ns, 10, "h", 17), 0);
	nsnap_free(&before);
	nsnap_free(&after);
	chk_ns_destroy(&ns);
}

static void test_namespace__link_count(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	chk_ns_init(&ns);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "d", 13), 0);
	assert_int_equal(chk_ns_note_mkdir(&ns, 2, "d/e", 14), 0);
	assert_int_equal(chk_ns_note_link(&ns, 3, "f", "d/g"), 0);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	entry(&s, "/d/g")->ne_nlink = 1;
	entry(&s, "/f")->ne_nlink = 1;
	/* (the link counts are part of what ns_op_order compares too) */
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_LINK_COUNT) | BIT(INV_NS_OP_ORDER));
	assert_string_equal(msg, "/d/g (inode 12) has link count 1, the names pointing at it are 2");
	nsnap_free(&s);
	current(&ns, &s);
	entry(&s, "/d")->ne_nlink = 2;  /* a directory: 2 + its subdirectories */
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_LINK_COUNT) | BIT(INV_NS_OP_ORDER));
	assert_string_equal(msg, "/d (inode 13) has link count 2, 2 + its subdirectories are 3");
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

static void test_namespace__no_orphan(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	chk_ns_init(&ns);
	current(&ns, &s);
	nsnap_add_unreachable(&s, 13);
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_NO_ORPHAN));
	assert_string_equal(msg, "1 inode(s) in use that no name reaches after recovery, the "
			    "first inode 13");
	nsnap_free(&s);
	current(&ns, &s);
	s.ns_nr_orphans = 1;
	assert_int_equal(judged(&ns, &s, NULL), BIT(INV_NS_NO_ORPHAN));
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

static void test_namespace__file_fsync(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	chk_ns_init(&ns);
	chk_ns_note_commit(&ns, 1);
	chk_ns_note_write(&ns, 12, 0, 100, 0xaa);
	assert_int_equal(chk_ns_note_link(&ns, 1, "f", "g"), 0);
	assert_int_equal(chk_ns_note_fsync(&ns, 2, 12, false), 0);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	entry(&s, "/g")->ne_hash[0] ^= 1;       /* other bytes under one of its names */
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_FILE_FSYNC));
	assert_string_equal(msg, "/g holds other bytes after the crash than at the fsync at step 2");
	entry(&s, "/g")->ne_hash[0] ^= 1;
	entry(&s, "/f")->ne_size = 4096;
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_FILE_FSYNC));
	assert_string_equal(msg, "/f has size 4096 after the crash, 100 at the fsync at step 2");
	/* changed since: not judged */
	chk_ns_note_write(&ns, 12, 100, 10, 0xbb);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* fsync promises a file's extended attributes; fdatasync does not; a later note ends it. */
static void test_namespace__xattr_fsync(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];
	uint64_t h[2];

	(void)state;
	chk_ns_init(&ns);
	assert_int_equal(chk_ns_note_setxattr(&ns, 1, 12, "user.b", "22", 2), 0);
	assert_int_equal(chk_ns_note_setxattr(&ns, 2, 12, "user.a", "1", 1), 0);
	assert_int_equal(chk_ns_note_setxattr(&ns, 3, 12, "user.b", "33", 2), 0);
	assert_int_equal(chk_ns_note_removexattr(&ns, 4, 12, "user.zz"), -ENOENT);
	assert_int_equal(chk_ns_note_setxattr(&ns, 4, 99, "user.a", "1", 1), -ENOENT);
	assert_int_equal(chk_ns_note_fsync(&ns, 5, 12, false), 0);
	current(&ns, &s);
	assert_int_equal(entry(&s, "/f")->ne_nr_xattrs, 2);
	{       /* the reference's hash is nsnap_xattr_hash of the pairs, in any order */
		struct nsnap_xattr x[2] = { { "user.b", (const uint8_t *)"33", 2 },
					    { "user.a", (const uint8_t *)"1", 1 } };

		nsnap_xattr_hash(x, 2, h);
		assert_memory_equal(h, entry(&s, "/f")->ne_xattr_hash, sizeof(h));
	}
	assert_int_equal(judged(&ns, &s, NULL), 0);
	entry(&s, "/f")->ne_xattr_hash[1] ^= 1;         /* a value lost */
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_FILE_FSYNC));
	assert_string_equal(msg, "/f has 2 extended attribute(s) after the crash, not the 2 of "
			    "other names or values at the fsync at step 5");
	entry(&s, "/f")->ne_nr_xattrs = 0;
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_FILE_FSYNC));
	assert_string_equal(msg, "/f has 0 extended attribute(s) after the crash, not the 2 it "
			    "held at the fsync at step 5");
	/* removed since: not judged */
	assert_int_equal(chk_ns_note_removexattr(&ns, 6, 12, "user.a"), 0);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	/* fdatasync promises no attributes */
	assert_int_equal(chk_ns_note_fsync(&ns, 7, 12, true), 0);
	current(&ns, &s);
	assert_int_equal(entry(&s, "/f")->ne_nr_xattrs, 1);
	entry(&s, "/f")->ne_nr_xattrs = 0;
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	/* a copy keeps them; a rebase keeps their hash, and a later set makes them unknown */
	{
		struct chk_ns cp;
		struct nsnap r;

		chk_ns_copy(&cp, &ns);
		assert_int_equal(chk_ns_note_sync(&cp, 8), 0);
		current(&cp, &r);
		assert_int_equal(judged(&cp, &r, NULL), 0);
		entry(&r, "/f")->ne_nr_xattrs = 0;
		assert_int_equal(judged(&cp, &r, NULL), BIT(INV_NS_FILE_FSYNC));
		entry(&r, "/f")->ne_nr_xattrs = 1;
		assert_int_equal(chk_ns_rebase(&cp, &r), 0);
		assert_int_equal(chk_ns_note_sync(&cp, 9), 0);
		entry(&r, "/f")->ne_xattr_hash[0] ^= 4;
		assert_int_equal(judged(&cp, &r, NULL), BIT(INV_NS_FILE_FSYNC));
		assert_int_equal(chk_ns_note_setxattr(&cp, 10, 12, "user.q", "", 0), 0);
		assert_int_equal(chk_ns_note_sync(&cp, 11), 0);
		assert_int_equal(judged(&cp, &r, NULL), 0);     /* unknown: not judged */
		nsnap_free(&r);
		chk_ns_destroy(&cp);
	}
	chk_ns_destroy(&ns);
}

/* A sync promises every file's size and bytes, as fsync does. */
static void test_namespace__sync_promises_every_file(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	chk_ns_init(&ns);
	chk_ns_note_truncate(&ns, 12, 8192);
	assert_int_equal(chk_ns_note_sync(&ns, 3), 0);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	entry(&s, "/f")->ne_size = 0;
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_FILE_FSYNC));
	assert_string_equal(msg, "/f has size 0 after the crash, 8192 at the sync at step 3");
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

static void test_namespace__dir_fsync(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];
	struct nsnap_entry extra = { .ne_path = "/d/z", .ne_type = NSNAP_REG, .ne_ino = 30,
				     .ne_nlink = 1 };

	(void)state;
	chk_ns_init(&ns);
	chk_ns_note_commit(&ns, 1);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "d", 13), 0);
	assert_int_equal(chk_ns_note_create(&ns, 2, "d/x", 14), 0);
	assert_int_equal(chk_ns_note_create(&ns, 3, "d/y", 15), 0);
	assert_int_equal(chk_ns_note_fsync(&ns, 4, 13, false), 0);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	drop(&s, "/d/y");       /* N_2: ordered, but the directory's fsync lost an entry */
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_DIR_FSYNC));
	assert_string_equal(msg, "/d/y is gone after the crash, though it named inode 15 at the "
			    "fsync of its directory at step 4");
	nsnap_free(&s);
	current(&ns, &s);
	add(&s, &extra);
	assert_true(judged(&ns, &s, msg) & BIT(INV_NS_DIR_FSYNC));
	nsnap_free(&s);
	/* a later operation changed d/y: its absence is no longer the fsync's business */
	assert_int_equal(chk_ns_note_unlink(&ns, 5, "d/y"), 0);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* create a, b; sync; rename a b: b is a's or b's, a is a's only when b is b's. */
static void rename_setup(struct chk_ns *ns)
{
	chk_ns_init(ns);
	assert_int_equal(chk_ns_note_create(ns, 1, "a", 13), 0);
	assert_int_equal(chk_ns_note_create(ns, 2, "b", 14), 0);
	assert_int_equal(chk_ns_note_sync(ns, 3), 0);
	assert_int_equal(chk_ns_note_rename(ns, 4, "a", "b", 0), 0);
}

static void test_namespace__rename_atomic(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	rename_setup(&ns);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	/* b still the old file and a gone: the moved inode lost (also no N_k) */
	entry(&s, "/b")->ne_ino = 14;
	assert_true(judged(&ns, &s, msg) & BIT(INV_NS_RENAME_ATOMIC));
	assert_string_equal(msg, "rename /a /b at step 4 is not atomic after the crash: neither "
			    "name names the moved inode (/a: inode 0, /b: inode 14)");
	nsnap_free(&s);
	/* both names the moved inode */
	current(&ns, &s);
	{
		struct nsnap_entry a = *entry(&s, "/b");

		snprintf(a.ne_path, sizeof(a.ne_path), "/a");
		add(&s, &a);
		entry(&s, "/a")->ne_nlink = entry(&s, "/b")->ne_nlink = 2;
	}
	assert_true(judged(&ns, &s, msg) & BIT(INV_NS_RENAME_ATOMIC));
	assert_string_equal(msg, "rename /a /b at step 4 is not atomic after the crash: both "
			    "names name the moved inode (/a: inode 13, /b: inode 13)");
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* The state before the rename passes it; a rename whose names were not durable promises nothing. */
static void test_namespace__rename_atomic_keeps(void **state)
{
	struct chk_ns ns, fresh;
	struct nsnap s;

	(void)state;
	rename_setup(&ns);
	chk_ns_init(&fresh);
	assert_int_equal(chk_ns_note_create(&fresh, 1, "a", 13), 0);
	assert_int_equal(chk_ns_note_create(&fresh, 2, "b", 14), 0);
	current(&fresh, &s);    /* /a 13, /b 14: before the rename */
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	assert_int_equal(chk_ns_note_rename(&fresh, 3, "a", "b", 0), 0);
	chk_ns_current(&fresh, &s);
	drop(&s, "/b");         /* neither: but a and b were never durable */
	assert_int_equal(judged(&fresh, &s, NULL) & BIT(INV_NS_RENAME_ATOMIC), 0);
	nsnap_free(&s);
	chk_ns_destroy(&ns);
	chk_ns_destroy(&fresh);
}

static void test_namespace__new_file_fsync(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	chk_ns_init(&ns);
	chk_ns_note_commit(&ns, 5);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "d", 13), 0);
	assert_int_equal(chk_ns_note_create(&ns, 2, "d/g", 14), 0);
	assert_int_equal(chk_ns_note_fsync(&ns, 3, 14, true), 0);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	drop(&s, "/d/g");       /* N_1: in order, but the new file's name is lost */
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_NEW_FILE_FSYNC));
	assert_string_equal(msg, "/d/g does not name inode 14 after the crash (no such name), "
			    "though the fdatasync at step 3 of that file, created since the last "
			    "commit, made it durable");
	nsnap_free(&s);
	chk_ns_destroy(&ns);
	/* a commit between the create and the fsync: no such promise */
	chk_ns_init(&ns);
	chk_ns_note_commit(&ns, 5);
	assert_int_equal(chk_ns_note_create(&ns, 1, "g", 14), 0);
	chk_ns_note_commit(&ns, 6);
	assert_int_equal(chk_ns_note_fsync(&ns, 2, 14, false), 0);
	current(&ns, &s);
	drop(&s, "/g");
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

static void test_namespace__op_order(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	chk_ns_init(&ns);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "a", 13), 0);
	assert_int_equal(chk_ns_note_mkdir(&ns, 2, "b", 14), 0);
	current(&ns, &s);
	drop(&s, "/b");
	entry(&s, "/")->ne_nlink = 4;
	assert_int_equal(judged(&ns, &s, NULL), 0);     /* N_1 */
	nsnap_free(&s);
	current(&ns, &s);
	drop(&s, "/a");
	entry(&s, "/")->ne_nlink = 4;                   /* b without a: no N_k */
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_OP_ORDER));
	assert_string_equal(msg, "the recovered namespace is none of N_0..N_2 (N_0: mount at step "
			    "0): the nearest, N_2 after mkdir /b at step 2, differs first at /");
	nsnap_free(&s);
	/* after a sync, k is at least the sync's: N_1 is no longer allowed */
	current(&ns, &s);
	drop(&s, "/b");
	entry(&s, "/")->ne_nlink = 4;
	assert_int_equal(chk_ns_note_sync(&ns, 3), 0);
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_NS_OP_ORDER));
	assert_string_equal(msg, "the recovered namespace is none of N_0..N_0 (N_0: sync at step "
			    "3): the nearest, N_0 after sync at step 3, differs first at /");
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* t written and renamed over f: once a commit follows, f holds t's bytes. */
static void test_namespace__replace_via_rename(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	chk_ns_init(&ns);
	chk_ns_note_commit(&ns, 1);
	chk_ns_note_write(&ns, 12, 0, 4096, 0xaa);
	assert_int_equal(chk_ns_note_sync(&ns, 1), 0);
	assert_int_equal(chk_ns_note_create(&ns, 2, "t", 20), 0);
	chk_ns_note_write(&ns, 20, 0, 8192, 0xbb);
	assert_int_equal(chk_ns_note_rename(&ns, 3, "t", "f", 0), 0);
	chk_ns_note_commit(&ns, 1);
	current(&ns, &s);
	entry(&s, "/f")->ne_size = 0;   /* the new file empty: no commit yet, allowed */
	assert_int_equal(judged(&ns, &s, NULL), 0);
	chk_ns_note_commit(&ns, 2);
	assert_int_equal(judged(&ns, &s, msg), BIT(INV_REPLACE_VIA_RENAME));
	assert_string_equal(msg, "/f has size 0 after the crash, the file renamed over it at "
			    "step 3 had size 8192 and a commit followed");
	nsnap_free(&s);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	/* a write after the rename ends the watch */
	chk_ns_note_write(&ns, 20, 0, 1, 0xcc);
	current(&ns, &s);
	entry(&s, "/f")->ne_size = 0;
	assert_int_equal(judged(&ns, &s, NULL), 0);
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* A rebase makes a snapshot the reference (it judges itself clean); a copy is deep. */
static void test_namespace__rebase_and_copy(void **state)
{
	struct chk_ns ns, cp;
	struct nsnap s, t;

	(void)state;
	chk_ns_init(&ns);
	chk_ns_note_write(&ns, 12, 0, 10, 0x11);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "d", 13), 0);
	assert_int_equal(chk_ns_note_link(&ns, 2, "f", "d/h"), 0);
	current(&ns, &s);
	assert_int_equal(chk_ns_rebase(&ns, &s), 0);
	assert_int_equal(ns.ns_nr_ver, 1);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	current(&ns, &t);
	assert_true(nsnap_equal(&s, &t));
	nsnap_free(&t);
	chk_ns_copy(&cp, &ns);
	assert_int_equal(chk_ns_note_unlink(&cp, 3, "d/h"), 0);
	current(&ns, &t);
	assert_true(nsnap_equal(&s, &t));
	nsnap_free(&t);
	current(&cp, &t);
	assert_false(nsnap_equal(&s, &t));
	nsnap_free(&t);
	nsnap_free(&s);
	chk_ns_destroy(&cp);
	chk_ns_destroy(&ns);
}

/* One violation per broken invariant, at most @cap written; the count of all returned. */
static void test_namespace__judge_cap(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	struct chk_violation v[1];

	(void)state;
	chk_ns_init(&ns);
	current(&ns, &s);
	entry(&s, "/f")->ne_nlink = 5;
	nsnap_add_unreachable(&s, 40);
	assert_int_equal(chk_ns_judge(&ns, &s, 3, v, 1), 3);   /* link count, orphan, order */
	assert_int_equal(v[0].inv, INV_NS_LINK_COUNT);
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* Which paths share an inode is part of the order: two files are not one file's two links. */
static void test_namespace__op_order_counts_sharing(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];

	(void)state;
	chk_ns_init(&ns);
	assert_int_equal(chk_ns_note_create(&ns, 1, "a", 13), 0);
	assert_int_equal(chk_ns_note_create(&ns, 2, "b", 14), 0);
	assert_int_equal(chk_ns_note_unlink(&ns, 3, "b"), 0);
	assert_int_equal(chk_ns_note_link(&ns, 4, "a", "b"), 0);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	entry(&s, "/a")->ne_nlink = entry(&s, "/b")->ne_nlink = 1;
	entry(&s, "/b")->ne_ino = 14;   /* N_2's names, but its link counts are N_4's */
	assert_int_equal(judged(&ns, &s, NULL), 0);
	entry(&s, "/b")->ne_ino = 13;   /* one inode with two names, link count 1 each */
	assert_true(judged(&ns, &s, msg) & BIT(INV_NS_OP_ORDER));
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* An exchange leaves both names swapped or neither; rename of two links of one inode is a no-op. */
static void test_namespace__exchange_atomic(void **state)
{
	struct chk_ns ns;
	struct nsnap s;
	char msg[CHK_MSG_MAX];
	uint32_t nver;

	(void)state;
	rename_setup(&ns);
	assert_int_equal(chk_ns_note_create(&ns, 5, "c", 15), 0);
	assert_int_equal(chk_ns_note_sync(&ns, 6), 0);
	assert_int_equal(chk_ns_note_rename(&ns, 7, "b", "c", 2), 0);
	assert_int_equal(chk_ns_note_link(&ns, 8, "b", "e"), 0);
	nver = ns.ns_nr_ver;
	assert_int_equal(chk_ns_note_rename(&ns, 9, "b", "e", 0), 0);
	assert_int_equal(ns.ns_nr_ver, nver);
	current(&ns, &s);
	assert_int_equal(entry(&s, "/b")->ne_ino, 15);
	assert_int_equal(entry(&s, "/c")->ne_ino, 13);
	drop(&s, "/e");
	entry(&s, "/b")->ne_nlink = 1;
	assert_int_equal(judged(&ns, &s, NULL), 0);     /* N_1: swapped */
	entry(&s, "/b")->ne_ino = 13;
	entry(&s, "/b")->ne_nlink = entry(&s, "/c")->ne_nlink = 2;
	assert_true(judged(&ns, &s, msg) & BIT(INV_NS_RENAME_ATOMIC));
	assert_string_equal(msg, "rename -x /b /c at step 7 is half done after the crash: /b "
			    "names inode 13, /c inode 13");
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* A directory fsynced and then renamed is found again by its inode. */
static void test_namespace__dir_fsync_follows_the_directory(void **state)
{
	struct chk_ns ns;
	struct nsnap s;

	(void)state;
	chk_ns_init(&ns);
	assert_int_equal(chk_ns_note_mkdir(&ns, 1, "d", 13), 0);
	assert_int_equal(chk_ns_note_create(&ns, 2, "d/x", 14), 0);
	assert_int_equal(chk_ns_note_fsync(&ns, 3, 13, false), 0);
	assert_int_equal(chk_ns_note_rename(&ns, 4, "d", "e", 0), 0);
	current(&ns, &s);
	assert_int_equal(judged(&ns, &s, NULL), 0);
	drop(&s, "/e/x");
	assert_true(judged(&ns, &s, NULL) & BIT(INV_NS_DIR_FSYNC));
	nsnap_free(&s);
	chk_ns_destroy(&ns);
}

/* A random path over few names: "a".."c", "d/a".., "e/a"..; ".." and "." sometimes. */
static void random_path(struct prng *r, char *out, size_t cap)
{
	static const char *const dirs[] = { "", "d/", "e/", "d/../e/", "./d/" };
	static const char *const names[] = { "a", "b", "c", "d", "e" };

	snprintf(out, cap, "%s%s%s", prng_below(r, 2) ? "/" : "",
		 dirs[prng_below(r, 5)], names[prng_below(r, 5)]);
}

/* A random inode of the reference not of type @not (its newest record), or /f's. */
static uint32_t random_ino(const struct chk_ns *ns, struct prng *r, uint8_t not)
{
	uint32_t id = (uint32_t)prng_below(r, ns->ns_nr_inodes);

	for (uint32_t k = 0; k < ns->ns_nr_inodes; k++, id = (id + 1) % ns->ns_nr_inodes)
		if (ns->ns_inodes[id].ni_type != not && ns->ns_inodes[id].ni_type != NSNAP_LNK)
			return ns->ns_inodes[id].ni_ino;
	return CHK_NS_ROOT_INO;
}

/* One random note; its result need not be 0 (a refused one changes nothing). */
static void random_note(struct chk_ns *ns, struct prng *r, uint32_t step, uint32_t *ino)
{
	char a[64], b[64];

	random_path(r, a, sizeof(a));
	random_path(r, b, sizeof(b));
	switch (prng_below(r, 12)) {
	case 0: if (chk_ns_note_create(ns, step, a, *ino) == 0) ++*ino; break;
	case 1: if (chk_ns_note_mkdir(ns, step, a, *ino) == 0) ++*ino; break;
	case 2: if (chk_ns_note_symlink(ns, step, b, a, *ino) == 0) ++*ino; break;
	case 3: chk_ns_note_link(ns, step, a, b); break;
	case 4: chk_ns_note_unlink(ns, step, a); break;
	case 5: chk_ns_note_rmdir(ns, step, a); break;
	case 6: chk_ns_note_rename(ns, step, a, b, (unsigned)prng_below(r, 3)); break;
	case 7: chk_ns_note_write(ns, random_ino(ns, r, NSNAP_DIR),
				  (int64_t)prng_below(r, 8192), 1 + (int64_t)prng_below(r, 4096),
				  (uint8_t)prng_below(r, 256)); break;
	case 8: chk_ns_note_commit(ns, (uint32_t)prng_below(r, 3)); break;
	case 9: chk_ns_note_fsync(ns, step, random_ino(ns, r, 0),
				  prng_below(r, 2)); break;
	case 10: if (prng_below(r, 8) == 0) chk_ns_note_sync(ns, step); break;
	default: chk_ns_note_truncate(ns, random_ino(ns, r, NSNAP_DIR),
				      (int64_t)prng_below(r, 8192)); break;
	}
}

/*
 * Without a crash nothing is broken: after every random note the current
 * namespace keeps every promise, and so does a copy's and a rebased one's.
 */
static void test_namespace__random_current_keeps_every_promise(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct chk_ns ns, cp;
		struct nsnap s;
		struct prng r;
		uint32_t ino = 13;
		char msg[CHK_MSG_MAX];

		prng_seed(&r, seed);
		chk_ns_init(&ns);
		for (uint32_t step = 1; step <= 300; step++) {
			random_note(&ns, &r, step, &ino);
			current(&ns, &s);
			if (judged(&ns, &s, msg))
				fail_msg("seed %llu step %u: %s", (unsigned long long)seed, step, msg);
			nsnap_free(&s);
		}
		chk_ns_copy(&cp, &ns);
		current(&cp, &s);
		assert_int_equal(judged(&cp, &s, NULL), 0);
		assert_int_equal(chk_ns_rebase(&cp, &s), 0);
		assert_int_equal(judged(&cp, &s, NULL), 0);
		nsnap_free(&s);
		chk_ns_destroy(&cp);
		chk_ns_destroy(&ns);
	}
}

/* Version @k of @ns as a recovered state: names, types, inode numbers, link counts. */
static void version_snapshot(const struct chk_ns *ns, uint32_t k, struct nsnap *s)
{
	const struct chk_ns_version *v = &ns->ns_ver[k];

	nsnap_init(s);
	for (uint32_t i = 0; i < v->nv_nr; i++) {
		const struct chk_ns_inode *ni = &ns->ns_inodes[v->nv_names[i].nn_id];
		struct nsnap_entry e = { .ne_type = ni->ni_type, .ne_ino = ni->ni_ino,
					 .ne_nlink = v->nv_nlink[i] };

		memcpy(e.ne_path, v->nv_names[i].nn_path, NSNAP_PATH_MAX);
		assert_int_equal(nsnap_add(s, &e), 0);
	}
	nsnap_sort(s);
}

/* Every version kept is a state ns_op_order allows, with link counts that hold. */
static void test_namespace__random_versions_are_in_order(void **state)
{
	const uint32_t kept = BIT(INV_NS_OP_ORDER) | BIT(INV_NS_LINK_COUNT) | BIT(INV_NS_NO_ORPHAN);

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct chk_ns ns;
		struct nsnap s;
		struct prng r;
		uint32_t ino = 13;
		char msg[CHK_MSG_MAX];

		prng_seed(&r, seed);
		chk_ns_init(&ns);
		for (uint32_t step = 1; step <= 200; step++) {
			random_note(&ns, &r, step, &ino);
			for (uint32_t k = 0; k < ns.ns_nr_ver; k++) {
				version_snapshot(&ns, k, &s);
				if (judged(&ns, &s, msg) & kept)
					fail_msg("seed %llu step %u N_%u: %s", (unsigned long long)seed,
						 step, k, msg);
				nsnap_free(&s);
			}
		}
		chk_ns_destroy(&ns);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_namespace__init_is_the_image),
		cmocka_unit_test(test_namespace__paths_resolve_dots_and_links),
		cmocka_unit_test(test_namespace__rename_moves_subtrees_and_exchanges),
		cmocka_unit_test(test_namespace__refusals_and_limits_change_nothing),
		cmocka_unit_test(test_namespace__link_count),
		cmocka_unit_test(test_namespace__no_orphan),
		cmocka_unit_test(test_namespace__file_fsync),
		cmocka_unit_test(test_namespace__xattr_fsync),
		cmocka_unit_test(test_namespace__sync_promises_every_file),
		cmocka_unit_test(test_namespace__dir_fsync),
		cmocka_unit_test(test_namespace__rename_atomic),
		cmocka_unit_test(test_namespace__rename_atomic_keeps),
		cmocka_unit_test(test_namespace__new_file_fsync),
		cmocka_unit_test(test_namespace__op_order),
		cmocka_unit_test(test_namespace__replace_via_rename),
		cmocka_unit_test(test_namespace__rebase_and_copy),
		cmocka_unit_test(test_namespace__judge_cap),
		cmocka_unit_test(test_namespace__op_order_counts_sharing),
		cmocka_unit_test(test_namespace__exchange_atomic),
		cmocka_unit_test(test_namespace__dir_fsync_follows_the_directory),
		cmocka_unit_test(test_namespace__random_current_keeps_every_promise),
		cmocka_unit_test(test_namespace__random_versions_are_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
