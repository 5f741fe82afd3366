/*
 * test_xattr.c - extended attributes (model/ext4/namei/xattr.h) in ext4's
 * on-disk format, at 1, 2 and 4 KiB blocks, held to e2fsprogs' libext2fs
 * (tests/unit/ext4/e2ref.h): what the model writes, ext2fs_xattrs_read
 * reads back (the block's checksum and every entry's hash verified), name
 * by name and byte by byte; what libext2fs writes, the model reads back.
 *
 * The kernel's placement (ext4_xattr_set_handle): a small value in the
 * inode's extra space, one that does not fit there in the xattr block
 * (i_file_acl, one block in i_blocks), a value grown out of the inode moved
 * to the block and out of the inode; the last attribute of the block
 * removed frees the block, as does the inode's eviction; the block is
 * metadata (journaled, named "xattr block").  The errors the
 * kernel returns: ENODATA, EOPNOTSUPP, EINVAL, ERANGE, ENOSPC, ENOENT,
 * each leaving the attributes as they were.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fixture.h"
#include "e2ref.h"
#include "namei.h"
#include "xattr.h"

static const uint32_t bss[] = { 1024, 2048, 4096 };
#define NBSS (sizeof(bss) / sizeof(bss[0]))
#define CAP 64u

static struct fx_world *world(uint32_t bs)
{
	struct ext4_mount_opts o = fx_opts(bs, DATA_ORDERED, true, FX_DISK_BLOCKS);

	return fx_world_new(&o);
}

/* @n bytes of a value that names its attribute: "k:" then letters. */
static size_t value_of(unsigned k, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = i < 2 ? (i ? ':' : (char)('a' + k % 26)) : (char)('A' + (i + k) % 26);
	return n;
}

/* The model's attributes of @path's inode. */
static uint32_t model_list(struct fx_world *w, const char *path, struct ext4_xattr_pair *xp)
{
	struct ext4_inode_info *ei;
	uint32_t n = 0;

	assert_int_equal(ext4_path_lookup(&w->fs, path, true, &ei), 0);
	assert_int_equal(ext4_xattr_list(&w->fs, ei, xp, CAP, &n), 0);
	return n;
}

/* libext2fs's attributes of @ino equal (as a set) the model's @xp. */
static void same_as_model(struct e2ref *r, uint32_t ino, const struct ext4_xattr_pair *xp,
			  uint32_t n, const uint8_t (*vals)[256])
{
	struct e2ref_xattr *x = calloc(CAP, sizeof(*x));
	uint32_t m = 0;

	assert_non_null(x);
	assert_int_equal(e2ref_xattrs(r, ino, x, CAP, &m), 0);
	assert_int_equal(m, n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;

		while (k < m && strcmp(x[k].name, xp[i].xp_name))
			k++;
		assert_true(k < m);
		assert_int_equal(x[k].len, xp[i].xp_len);
		assert_memory_equal(x[k].value, vals[i], xp[i].xp_len);
	}
	free(x);
}

/* Copy the model's values out (its pointers die with the unmount). */
static void copy_values(const struct ext4_xattr_pair *xp, uint32_t n, uint8_t (*vals)[256])
{
	for (uint32_t i = 0; i < n; i++) {
		assert_true(xp[i].xp_len <= 256);
		memcpy(vals[i], xp[i].xp_value, xp[i].xp_len);
	}
}

static uint32_t ino_of(struct fx_world *w, const char *path)
{
	struct ext4_inode_info *ei;

	assert_int_equal(ext4_path_lookup(&w->fs, path, true, &ei), 0);
	return ei->i_ino;
}

/* Small values in the inode; one too big for it in the block; i_blocks counts the block. */
static void test_xattr__inode_then_block(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct fx_world *w = world(bss[s]);
		struct ext4_xattr_pair xp[CAP];
		uint8_t (*vals)[256] = calloc(CAP, 256);
		char v[256];
		uint64_t size, blocks, acl;
		uint32_t n, ino;
		struct e2ref *r;

		assert_int_equal(ext4_creat(&w->fs, "/a"), 0);
		ino = ino_of(w, "/a");
		assert_int_equal(ext4_setxattr(&w->fs, "/a", "user.s", v, value_of(0, 20, v), 0), 0);
		assert_int_equal(ext4_setxattr(&w->fs, "/a", "user.e", v, 0, 0), 0);
		n = model_list(w, "/a", xp);
		assert_int_equal(n, 2);
		assert_false(xp[0].xp_in_block || xp[1].xp_in_block);
		assert_int_equal(ext4_ilookup(&w->fs, ino)->i_file_acl, 0);
		assert_int_equal(ext4_setxattr(&w->fs, "/a", "user.big", v, value_of(1, 200, v), 0), 0);
		assert_int_equal(ext4_setxattr(&w->fs, "/a", "trusted.t", v, value_of(2, 100, v), 0),
				 0);
		n = model_list(w, "/a", xp);
		assert_int_equal(n, 4);
		assert_true(xp[2].xp_in_block && xp[3].xp_in_block);
		acl = ext4_ilookup(&w->fs, ino)->i_file_acl;
		assert_true(acl != 0);
		assert_true(ext4_is_meta_block(&w->fs, (uint32_t)acl));        /* journaled */
		assert_false(ext4_is_data_block(&w->fs, (uint32_t)acl));
		assert_string_equal(ext4_block_role_fs(&w->fs, (uint32_t)acl), "xattr block");
		copy_values(xp, n, vals);
		fx_world_unmount(w);
		r = e2ref_open_ok(w->bd);
		assert_int_equal(e2ref_file_acl(r, ino), acl);
		assert_int_equal(e2ref_read_inode(r, ino, &size, &blocks), 0);
		assert_int_equal(blocks, bss[s] / 512);
		same_as_model(r, ino, xp, n, vals);
		assert_int_equal(e2ref_read_bitmaps(r), 0);
		assert_true(e2ref_block_in_use(r, acl));
		e2ref_free(r);
		free(vals);
		fx_world_free(w);
	}
}

/* A value grown out of the inode moves to the block; the block's last removal frees it. */
static void test_xattr__grow_move_and_free(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct fx_world *w = world(bss[s]);
		struct ext4_xattr_pair xp[CAP];
		uint8_t (*vals)[256] = calloc(CAP, 256);
		char v[256];
		uint64_t acl, size, blocks;
		uint32_t n, ino;
		struct e2ref *r;

		assert_int_equal(ext4_mkdir(&w->fs, "/d"), 0);
		ino = ino_of(w, "/d");
		assert_int_equal(ext4_setxattr(&w->fs, "/d", "user.g", v, value_of(3, 8, v), 0), 0);
		assert_int_equal(ext4_setxattr(&w->fs, "/d", "user.g", v, value_of(4, 150, v), 0), 0);
		n = model_list(w, "/d", xp);
		assert_int_equal(n, 1);
		assert_true(xp[0].xp_in_block);
		assert_int_equal(xp[0].xp_len, 150);
		assert_memory_equal(xp[0].xp_value, v, 150);
		acl = ext4_ilookup(&w->fs, ino)->i_file_acl;
		assert_int_equal(ext4_setxattr(&w->fs, "/d", "user.h", v, value_of(5, 40, v), 0), 0);
		copy_values(xp, n = model_list(w, "/d", xp), vals);
		fx_world_unmount(w);
		r = e2ref_open_ok(w->bd);
		same_as_model(r, ino, xp, n, vals);
		e2ref_free(r);
		fx_world_mount(w);
		assert_int_equal(ext4_removexattr(&w->fs, "/d", "user.g"), 0);
		assert_int_equal(ext4_ilookup(&w->fs, ino)->i_file_acl, 0);
		assert_int_equal(model_list(w, "/d", xp), 1);
		fx_world_unmount(w);
		r = e2ref_open_ok(w->bd);
		assert_int_equal(e2ref_file_acl(r, ino), 0);
		assert_int_equal(e2ref_read_inode(r, ino, &size, &blocks), 0);
		assert_int_equal(blocks, bss[s] / 512);         /* the directory's one block */
		assert_int_equal(e2ref_read_bitmaps(r), 0);
		assert_false(e2ref_block_in_use(r, acl));
		e2ref_free(r);
		free(vals);
		fx_world_free(w);
	}
}

/* The errors, each leaving the attributes as they were. */
static void test_xattr__errors(void **state)
{
	struct fx_world *w = world(1024);
	struct ext4_xattr_pair xp[CAP];
	char v[256], name[300], big[257];
	int err = 0;
	unsigned k;

	(void)state;
	assert_int_equal(ext4_creat(&w->fs, "/a"), 0);
	assert_int_equal(ext4_removexattr(&w->fs, "/a", "user.none"), -ENODATA);
	assert_int_equal(ext4_setxattr(&w->fs, "/nope", "user.x", v, 1, 0), -ENOENT);
	assert_int_equal(ext4_setxattr(&w->fs, "/a", "other.x", v, 1, 0), -EOPNOTSUPP);
	assert_int_equal(ext4_setxattr(&w->fs, "/a", "user.", v, 1, 0), -EINVAL);
	memset(big, 'n', 256);
	big[256] = '\0';
	memcpy(big, "user.", 5);
	assert_int_equal(ext4_setxattr(&w->fs, "/a", big, v, 1, 0), -ERANGE);
	assert_int_equal(model_list(w, "/a", xp), 0);
	for (k = 0; k < 16 && err == 0; k++) {
		snprintf(name, sizeof(name), "user.n%u", k);
		err = ext4_setxattr(&w->fs, "/a", name, v, value_of(k, 250, v), 0);
	}
	assert_int_equal(err, -ENOSPC);                 /* a 1 KiB block holds three */
	assert_int_equal(k, 4);
	assert_int_equal(model_list(w, "/a", xp), 3);
	assert_int_equal(ext4_setxattr(&w->fs, "/a", "user.n0", v, value_of(9, 250, v), XATTR_CREATE),
			 -EEXIST);
	assert_int_equal(ext4_setxattr(&w->fs, "/a", "user.zz", v, 1, XATTR_REPLACE), -ENODATA);
	assert_int_equal(model_list(w, "/a", xp), 3);
	fx_world_free(w);
}

/* What libext2fs writes (in the inode and a block), the model reads; and back. */
static void test_xattr__libext2fs_written_read_back(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct fx_world *w = world(bss[s]);
		struct ext4_xattr_pair xp[CAP];
		uint8_t (*vals)[256] = calloc(CAP, 256);
		char v[256];
		size_t len;
		uint32_t n;
		struct e2ref *r;

		fx_world_unmount(w);
		r = e2ref_open_ok(w->bd);
		assert_int_equal(e2ref_xattr_set(r, 12, "user.one", v, value_of(6, 10, v)), 0);
		assert_int_equal(e2ref_xattr_set(r, 12, "user.two", v, value_of(7, 180, v)), 0);
		e2ref_close_write(r);
		fx_world_mount(w);
		n = model_list(w, "/f", xp);
		assert_int_equal(n, 2);
		for (uint32_t i = 0; i < n; i++) {
			unsigned k = !strcmp(xp[i].xp_name, "user.one") ? 6 : 7;

			assert_int_equal(xp[i].xp_len, value_of(k, k == 6 ? 10 : 180, v));
			assert_memory_equal(xp[i].xp_value, v, xp[i].xp_len);
		}
		assert_int_equal(ext4_setxattr(&w->fs, "/f", "user.three", v, value_of(8, 90, v), 0),
				 0);
		assert_int_equal(ext4_removexattr(&w->fs, "/f", "user.one"), 0);
		copy_values(xp, n = model_list(w, "/f", xp), vals);
		fx_world_unmount(w);
		r = e2ref_open_ok(w->bd);
		same_as_model(r, 12, xp, n, vals);
		assert_int_equal(e2ref_xattr_get(r, 12, "user.three", v, sizeof(v), &len), 0);
		assert_int_equal(len, 90);
		e2ref_free(r);
		free(vals);
		fx_world_free(w);
	}
}

/* An inode's eviction (its last name unlinked) frees its xattr block. */
static void test_xattr__evict_frees_block(void **state)
{
	struct fx_world *w = world(4096);
	char v[256];
	uint64_t acl;
	struct e2ref *r;

	(void)state;
	assert_int_equal(ext4_creat(&w->fs, "/a"), 0);
	assert_int_equal(ext4_setxattr(&w->fs, "/a", "user.big", v, value_of(1, 200, v), 0), 0);
	acl = ext4_ilookup(&w->fs, ino_of(w, "/a"))->i_file_acl;
	assert_true(acl != 0);
	assert_int_equal(ext4_unlink(&w->fs, "/a"), 0);
	fx_world_unmount(w);
	r = e2ref_open_ok(w->bd);
	assert_int_equal(e2ref_read_bitmaps(r), 0);
	assert_false(e2ref_block_in_use(r, acl));
	e2ref_free(r);
	fx_world_free(w);
}

/* The refcount in xattr block @blk's header, as libext2fs reads the block. */
static uint32_t refcount_of(struct e2ref *r, uint64_t blk)
{
	uint8_t buf[4096];
	uint32_t ref;

	assert_int_equal(e2ref_xattr_block_read(r, blk, buf), 0);
	memcpy(&ref, buf + 4, sizeof(ref));
	return ref;
}

/*
 * Equal blocks are shared through the mb_cache (ext4_xattr_block_cache_find):
 * the second file's block is the first's, refcount 2; a change copies it;
 * an unlink drops a reference; after a remount the cache is empty and an
 * equal block is a new one.
 */
static void test_xattr__equal_blocks_shared(void **state)
{
	struct fx_world *w = world(1024);
	char v[256];
	uint64_t a, b, c;
	struct e2ref *r;

	(void)state;
	assert_int_equal(ext4_creat(&w->fs, "/a"), 0);
	assert_int_equal(ext4_creat(&w->fs, "/b"), 0);
	assert_int_equal(ext4_creat(&w->fs, "/c"), 0);
	value_of(1, 200, v);
	assert_int_equal(ext4_setxattr(&w->fs, "/a", "user.big", v, 200, 0), 0);
	assert_int_equal(ext4_setxattr(&w->fs, "/b", "user.big", v, 200, 0), 0);
	a = ext4_ilookup(&w->fs, ino_of(w, "/a"))->i_file_acl;
	b = ext4_ilookup(&w->fs, ino_of(w, "/b"))->i_file_acl;
	assert_true(a != 0);
	assert_int_equal(a, b);
	fx_world_unmount(w);
	r = e2ref_open_ok(w->bd);
	assert_int_equal(refcount_of(r, a), 2);
	e2ref_free(r);
	fx_world_mount(w);
	/* after the mount nothing is cached: /c's equal block is its own */
	assert_int_equal(ext4_setxattr(&w->fs, "/c", "user.big", v, 200, 0), 0);
	c = ext4_ilookup(&w->fs, ino_of(w, "/c"))->i_file_acl;
	assert_true(c != 0 && c != a);
	/* /b changed: a copy of its own (copy on write); then /a, the block's last name, unlinked */
	assert_int_equal(ext4_setxattr(&w->fs, "/b", "user.more", v, 100, 0), 0);
	b = ext4_ilookup(&w->fs, ino_of(w, "/b"))->i_file_acl;
	assert_true(b != a && b != c);
	assert_int_equal(ext4_unlink(&w->fs, "/a"), 0);
	fx_world_unmount(w);
	r = e2ref_open_ok(w->bd);
	assert_int_equal(e2ref_read_bitmaps(r), 0);
	assert_false(e2ref_block_in_use(r, a));         /* its last reference went with /a */
	assert_int_equal(refcount_of(r, b), 1);
	assert_int_equal(refcount_of(r, c), 1);
	e2ref_free(r);
	fx_world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_xattr__inode_then_block, fx_world_leftover),
		cmocka_unit_test_teardown(test_xattr__grow_move_and_free, fx_world_leftover),
		cmocka_unit_test_teardown(test_xattr__errors, fx_world_leftover),
		cmocka_unit_test_teardown(test_xattr__libext2fs_written_read_back,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_xattr__evict_frees_block, fx_world_leftover),
		cmocka_unit_test_teardown(test_xattr__equal_blocks_shared, fx_world_leftover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
