/*
 * test_nsnap.c - lib/nsnap.c: a namespace snapshot built, sorted and found;
 * its key and equality (inode numbers only as sharing; every other field
 * counts); its text; the content hash (pieces, holes, runs).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nsnap.h"

static struct nsnap_entry ent(const char *path, uint8_t type, uint32_t ino, uint32_t nlink,
			      int64_t size)
{
	struct nsnap_entry e = { .ne_type = type, .ne_ino = ino, .ne_nlink = nlink,
				 .ne_size = size };

	snprintf(e.ne_path, sizeof(e.ne_path), "%s", path);
	if (type == NSNAP_REG)
		e.ne_hash[0] = (uint64_t)size * 7 + 1;
	return e;
}

/* "/", "/a", "/b" (a hard link of /a), "/d"; inode numbers from @base. */
static void build(struct nsnap *s, uint32_t base)
{
	struct nsnap_entry es[] = {
		ent("/d", NSNAP_DIR, base + 3, 2, 0), ent("/b", NSNAP_REG, base + 1, 2, 10),
		ent("/", NSNAP_DIR, 2, 3, 0), ent("/a", NSNAP_REG, base + 1, 2, 10),
	};

	nsnap_init(s);
	for (size_t i = 0; i < sizeof(es) / sizeof(es[0]); i++)
		assert_int_equal(nsnap_add(s, &es[i]), 0);
	nsnap_sort(s);
}

static void test_nsnap__sort_find_names_of(void **state)
{
	struct nsnap s;

	(void)state;
	build(&s, 12);
	assert_string_equal(s.ns_e[0].ne_path, "/");
	assert_string_equal(s.ns_e[1].ne_path, "/a");
	assert_string_equal(s.ns_e[3].ne_path, "/d");
	assert_non_null(nsnap_find(&s, "/b"));
	assert_int_equal(nsnap_find(&s, "/b")->ne_ino, 13);
	assert_null(nsnap_find(&s, "/c"));
	assert_null(nsnap_find(&s, "/a/x"));
	assert_int_equal(nsnap_names_of(&s, 13), 2);
	assert_int_equal(nsnap_names_of(&s, 15), 1);
	assert_int_equal(nsnap_names_of(&s, 99), 0);
	nsnap_free(&s);
}

static void test_nsnap__add_refuses_past_the_limit(void **state)
{
	struct nsnap s;
	struct nsnap_entry e;

	(void)state;
	nsnap_init(&s);
	for (uint32_t i = 0; i < NSNAP_MAX_ENTRIES; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/n%u", i);
		e = ent(p, NSNAP_REG, 100 + i, 1, 0);
		assert_int_equal(nsnap_add(&s, &e), 0);
	}
	e = ent("/over", NSNAP_REG, 7, 1, 0);
	assert_int_equal(nsnap_add(&s, &e), -ENOSPC);
	assert_int_equal(s.ns_nr, NSNAP_MAX_ENTRIES);
	nsnap_sort(&s);
	assert_non_null(nsnap_find(&s, "/n4095"));
	nsnap_free(&s);
}

static void test_nsnap__unreachable_listed_then_counted(void **state)
{
	struct nsnap s;

	(void)state;
	nsnap_init(&s);
	for (uint32_t i = 0; i < NSNAP_MAX_UNREACHABLE + 3; i++)
		nsnap_add_unreachable(&s, 20 + i);
	assert_int_equal(s.ns_nr_unreachable, NSNAP_MAX_UNREACHABLE + 3);
	assert_int_equal(s.ns_unreachable[0], 20);
	assert_int_equal(s.ns_unreachable[NSNAP_MAX_UNREACHABLE - 1], 20 + NSNAP_MAX_UNREACHABLE - 1);
	nsnap_free(&s);
}

static void keys_equal(const struct nsnap *a, const struct nsnap *b, bool want)
{
	uint64_t ka[2], kb[2];

	nsnap_key(a, ka);
	nsnap_key(b, kb);
	assert_int_equal(ka[0] == kb[0] && ka[1] == kb[1], want);
	assert_int_equal(nsnap_equal(a, b), want);
}

/* Inode numbers enter only as sharing: renumbered, the same key; copies are deep. */
static void test_nsnap__key_ignores_numbers_not_sharing(void **state)
{
	struct nsnap a, b, c;

	(void)state;
	build(&a, 12);
	build(&b, 40);
	keys_equal(&a, &b, true);
	nsnap_copy(&c, &a);
	keys_equal(&a, &c, true);
	c.ns_e[2].ne_ino = 77;          /* /b no longer a link of /a */
	keys_equal(&a, &c, false);
	assert_int_equal(a.ns_e[2].ne_ino, 13);
	nsnap_free(&a);
	nsnap_free(&b);
	nsnap_free(&c);
}

/* Every other field changes the key: nlink, size, hash, type, target, path, the counts. */
static void test_nsnap__key_counts_every_field(void **state)
{
	struct nsnap a, b;

	(void)state;
	build(&a, 12);
	for (int f = 0; f < 8; f++) {
		build(&b, 12);
		switch (f) {
		case 0: b.ns_e[3].ne_nlink = 3; break;
		case 1: b.ns_e[1].ne_size = 11; break;
		case 2: b.ns_e[1].ne_hash[1] ^= 1; break;
		case 3: b.ns_e[3].ne_type = NSNAP_LNK; break;
		case 4: snprintf(b.ns_e[3].ne_target, NSNAP_TARGET_MAX, "x"); break;
		case 5: snprintf(b.ns_e[3].ne_path, NSNAP_PATH_MAX, "/e"); break;
		case 6: nsnap_add_unreachable(&b, 30); break;
		default: b.ns_nr_orphans = 1; break;
		}
		keys_equal(&a, &b, false);
		nsnap_free(&b);
	}
	nsnap_free(&a);
}

static void test_nsnap__text_lines_and_cut(void **state)
{
	struct nsnap s;
	struct nsnap_entry l = ent("/l", NSNAP_LNK, 20, 1, 3);
	char buf[4096], small[120];
	size_t n;

	(void)state;
	build(&s, 12);
	snprintf(l.ne_target, NSNAP_TARGET_MAX, "a/b");
	assert_int_equal(nsnap_add(&s, &l), 0);
	nsnap_sort(&s);
	nsnap_add_unreachable(&s, 30);
	s.ns_nr_orphans = 1;
	n = nsnap_text(&s, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf,
		"/ dir ino 2 nlink 3 size 0 00000000000000000000000000000000\n"
		"/a reg ino 13 nlink 2 size 10 00000000000000470000000000000000\n"
		"/b reg ino 13 nlink 2 size 10 00000000000000470000000000000000\n"
		"/d dir ino 15 nlink 2 size 0 00000000000000000000000000000000\n"
		"/l lnk ino 20 nlink 1 size 3 00000000000000000000000000000000 -> a/b\n"
		"unreachable 30 (1)\norphans 1\n");
	n = nsnap_text(&s, small, sizeof(small));
	assert_int_equal(n, strlen(small));
	assert_string_equal(small,
		"/ dir ino 2 nlink 3 size 0 00000000000000000000000000000000\n...\n");
	nsnap_free(&s);
}

static void test_nsnap__hash_pieces_holes_runs(void **state)
{
	uint8_t buf[300];
	uint64_t whole[2], part[2], other[2], empty[2];
	struct nsnap_hasher h;

	(void)state;
	memset(buf, 0, 100);
	memset(buf + 100, 0xaa, 150);
	memset(buf + 250, 0, 50);
	nsnap_hash_bytes(buf, sizeof(buf), whole);
	nsnap_hash_init(&h);
	nsnap_hash_fill(&h, 0, 60);
	nsnap_hash_update(&h, buf + 60, 100);
	nsnap_hash_fill(&h, 0xaa, 90);
	nsnap_hash_fill(&h, 0, 0);
	nsnap_hash_fill(&h, 0, 50);
	nsnap_hash_final(&h, part);
	assert_memory_equal(whole, part, sizeof(whole));
	buf[299] = 1;
	nsnap_hash_bytes(buf, sizeof(buf), other);
	assert_memory_not_equal(whole, other, sizeof(whole));
	nsnap_hash_bytes(buf, 299, other);     /* one zero byte shorter */
	assert_memory_not_equal(whole, other, sizeof(whole));
	nsnap_hash_bytes(NULL, 0, empty);
	assert_true(empty[0] != 0 || empty[1] != 0);
	/* MD5("") is d41d8cd98f00b204e9800998ecf8427e: bytes 0-7 little-endian */
	assert_true(empty[0] == 0x04b2008fd98c1dd4ull);
	assert_true(empty[1] == 0x7e42f8ec980980e9ull);
}

/* Extended attributes: the hash of the sorted pairs; in the key and the text only when there. */
static void test_nsnap__xattrs_key_and_text(void **state)
{
	struct nsnap a, b;
	struct nsnap_xattr x1[2] = { { "user.a", (const uint8_t *)"1", 1 },
				     { "user.b", (const uint8_t *)"", 0 } };
	struct nsnap_xattr x2[2] = { { "user.b", (const uint8_t *)"", 0 },
				     { "user.a", (const uint8_t *)"1", 1 } };
	struct nsnap_xattr x3[2] = { { "user.a", (const uint8_t *)"1", 1 },
				     { "user.b", (const uint8_t *)"0", 1 } };
	uint64_t h1[2], h2[2], h3[2], ka[2], kb[2], k0[2];
	char text[1024];

	(void)state;
	nsnap_xattr_hash(x1, 2, h1);
	nsnap_xattr_hash(x2, 2, h2);
	nsnap_xattr_hash(x3, 2, h3);
	assert_memory_equal(h1, h2, sizeof(h1));
	assert_memory_not_equal(h1, h3, sizeof(h1));
	nsnap_xattr_hash(x1, 0, h3);
	assert_true(h3[0] == 0 && h3[1] == 0);
	build(&a, 12);
	build(&b, 12);
	nsnap_key(&a, k0);
	nsnap_text(&a, text, sizeof(text));
	assert_null(strstr(text, "xattrs"));
	((struct nsnap_entry *)nsnap_find(&a, "/a"))->ne_nr_xattrs = 2;
	memcpy(((struct nsnap_entry *)nsnap_find(&a, "/a"))->ne_xattr_hash, h1, sizeof(h1));
	assert_false(nsnap_equal(&a, &b));
	nsnap_key(&a, ka);
	assert_memory_not_equal(ka, k0, sizeof(ka));
	nsnap_key(&b, kb);
	assert_memory_equal(kb, k0, sizeof(kb));       /* none: the key as before */
	nsnap_text(&a, text, sizeof(text));
	assert_non_null(strstr(text, "/a reg ino 13 nlink 2 size 10 "));
	assert_non_null(strstr(text, " xattrs 2 "));
	nsnap_free(&a);
	nsnap_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nsnap__sort_find_names_of),
		cmocka_unit_test(test_nsnap__add_refuses_past_the_limit),
		cmocka_unit_test(test_nsnap__unreachable_listed_then_counted),
		cmocka_unit_test(test_nsnap__key_ignores_numbers_not_sharing),
		cmocka_unit_test(test_nsnap__key_counts_every_field),
		cmocka_unit_test(test_nsnap__text_lines_and_cut),
		cmocka_unit_test(test_nsnap__hash_pieces_holes_runs),
		cmocka_unit_test(test_nsnap__xattrs_key_and_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
