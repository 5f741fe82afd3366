/*
 * test_namei.c - the namespace operations (model/ext4/namei/namei.c,
 * ialloc.c, readdir.c): each one's kernel errno, the link counts it leaves,
 * the orphan list of an open unlinked file, a full directory's refusal, and
 * the image after a clean unmount as libext2fs reads it (names, inodes,
 * directory block checksums, the inode bitmap).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "e2ref.h"
#include "../fixture.h"
#include "namei.h"
#include "nsnap.h"

static struct fx_world *world(uint32_t bs)
{
	struct ext4_mount_opts o = fx_opts(bs, DATA_ORDERED, true, FX_DISK_BLOCKS);

	return fx_world_new(&o);
}

static uint32_t ino_of(struct fx_world *w, const char *path)
{
	struct ext4_inode_info *ei;

	return ext4_path_lookup(&w->fs, path, false, &ei) == 0 ? ei->i_ino : 0;
}

static uint32_t links_of(struct fx_world *w, const char *path)
{
	struct ext4_inode_info *ei;

	assert_int_equal(ext4_path_lookup(&w->fs, path, false, &ei), 0);
	return ei->i_links_count;
}

/* Every failing call the VFS and ext4 refuse, with the kernel's errno. */
static void test_namei__errnos_are_the_kernels(void **state)
{
	struct fx_world *w = world(4096);
	struct ext4_fs *fs = &w->fs;

	(void)state;
	assert_int_equal(ext4_mkdir(fs, "/A"), 0);
	assert_int_equal(ext4_mkdir(fs, "/A/B"), 0);
	assert_int_equal(ext4_creat(fs, "/A/x"), 0);
	assert_int_equal(ext4_mkdir(fs, "/A"), -EEXIST);
	assert_int_equal(ext4_mkdir(fs, "/nodir/C"), -ENOENT);
	assert_int_equal(ext4_mkdir(fs, "/A/x/C"), -ENOTDIR);
	assert_int_equal(ext4_mkdir(fs, "/A/."), -EEXIST);
	assert_int_equal(ext4_rmdir(fs, "/A"), -ENOTEMPTY);
	assert_int_equal(ext4_rmdir(fs, "/A/x"), -ENOTDIR);
	assert_int_equal(ext4_rmdir(fs, "/A/B/."), -EINVAL);
	assert_int_equal(ext4_rmdir(fs, "/A/B/.."), -ENOTEMPTY);
	assert_int_equal(ext4_rmdir(fs, "/"), -EBUSY);
	assert_int_equal(ext4_unlink(fs, "/A/B"), -EISDIR);
	assert_int_equal(ext4_unlink(fs, "/A/nothing"), -ENOENT);
	assert_int_equal(ext4_link(fs, "/A/B", "/A/C"), -EPERM);
	assert_int_equal(ext4_link(fs, "/A/x", "/f"), -EEXIST);
	assert_int_equal(ext4_rename(fs, "/A", "/A/B/A2", 0), -EINVAL);
	assert_int_equal(ext4_rename(fs, "/A/x", "/A/B", 0), -EISDIR);
	assert_int_equal(ext4_rename(fs, "/A/B", "/A/x", 0), -ENOTDIR);
	assert_int_equal(ext4_rename(fs, "/A/x", "/f", RENAME_NOREPLACE), -EEXIST);
	assert_int_equal(ext4_rename(fs, "/A/x", "/none", RENAME_EXCHANGE), -ENOENT);
	assert_int_equal(ext4_rename(fs, "/A/x", "/f", RENAME_NOREPLACE | RENAME_EXCHANGE),
			 -EINVAL);
	assert_int_equal(ext4_open_path(fs, "/A", false, false), -EISDIR);
	assert_int_equal(ext4_symlink(fs, "loop2", "/loop1"), 0);
	assert_int_equal(ext4_symlink(fs, "loop1", "/loop2"), 0);
	assert_int_equal(ext4_open_path(fs, "/loop1", false, false), -ELOOP);
	assert_int_equal(ext4_rename(fs, "/A/x", "/A/x", 0), 0);      /* the same inode */
	fx_world_free(w);
}

/* Directories' links: 2 and a subdirectory's "..", moved with a rename. */
static void test_namei__directory_links_follow_dir_nlink(void **state)
{
	struct fx_world *w = world(1024);
	struct ext4_fs *fs = &w->fs;
	uint32_t root = links_of(w, "/");

	(void)state;
	assert_int_equal(ext4_mkdir(fs, "/A"), 0);
	assert_int_equal(ext4_mkdir(fs, "/B"), 0);
	assert_int_equal(ext4_mkdir(fs, "/A/sub"), 0);
	assert_int_equal(links_of(w, "/"), root + 2);
	assert_int_equal(links_of(w, "/A"), 3);
	assert_int_equal(ext4_rename(fs, "/A/sub", "/B/sub", 0), 0);
	assert_int_equal(links_of(w, "/A"), 2);
	assert_int_equal(links_of(w, "/B"), 3);
	assert_int_equal(ino_of(w, "/B/sub/.."), ino_of(w, "/B"));
	assert_int_equal(ext4_rename(fs, "/B", "/A", RENAME_EXCHANGE), 0);
	assert_int_equal(ino_of(w, "/A/sub/.."), ino_of(w, "/A"));
	assert_int_equal(ext4_rmdir(fs, "/A/sub"), 0);
	assert_int_equal(links_of(w, "/A"), 2);
	assert_int_equal(ext4_link(fs, "/f", "/A/g"), 0);
	assert_int_equal(links_of(w, "/f"), 2);
	assert_int_equal(ext4_rename(fs, "/A/g", "/f", 0), 0);         /* two links of one inode */
	assert_int_equal(links_of(w, "/f"), 2);
	fx_world_free(w);
}

/* An open file unlinked stays on the orphan list until its close frees it. */
static void test_namei__unlinked_open_file_is_an_orphan_until_close(void **state)
{
	struct fx_world *w = world(4096);
	struct ext4_fs *fs = &w->fs;
	uint32_t ino;

	(void)state;
	assert_int_equal(ext4_open_path(fs, "/g", true, false), 0);
	ino = fs->inode->i_ino;
	assert_true(ext4_inode_in_use(fs, ino));
	assert_int_equal(ext4_unlink(fs, "/g"), 0);
	assert_true(fs->inode->i_ino == ino && fs->inode->i_orphan);
	assert_true(ext4_orphan_listed(fs, ino) || ext4_ilookup(fs, ino)->i_orphan);
	assert_int_equal(ext4_close_current(fs), 0);
	assert_null(ext4_ilookup(fs, ino));
	assert_false(ext4_inode_in_use(fs, ino));
	assert_int_equal(fs->inode->i_ino, EXT4_ROOT_INO);
	fx_world_free(w);
}

/* A full one-block directory: ENOSPC, and the reason names the htree. */
static void test_namei__full_directory_is_refused_with_the_reason(void **state)
{
	struct fx_world *w = world(1024);
	struct ext4_fs *fs = &w->fs;
	char name[64];
	int err = 0, n = 0;

	(void)state;
	assert_int_equal(ext4_mkdir(fs, "/D"), 0);
	while (err == 0 && n < 1000) {
		snprintf(name, sizeof(name), "/D/name-%04d-padding-to-32-bytes", n++);
		err = ext4_creat(fs, name);
	}
	assert_int_equal(err, -ENOSPC);
	assert_true(n > 20 && n < 40);          /* 1024 bytes of 44-byte entries */
	assert_non_null(fs->s_ns_error);
	assert_non_null(strstr(fs->s_ns_error, "htree"));
	assert_int_equal(ino_of(w, name), 0);
	fx_world_free(w);
}

/* libext2fs reads the names, inodes and checksummed blocks the model wrote. */
static void test_namei__libext2fs_reads_the_namespace(void **state)
{
	struct fx_world *w = world(4096);
	struct ext4_fs *fs = &w->fs;
	uint32_t a, x, got = 0;
	struct e2ref *r;
	uint8_t blk[4096];

	(void)state;
	assert_int_equal(ext4_mkdir(fs, "/A"), 0);
	assert_int_equal(ext4_creat(fs, "/A/x"), 0);
	assert_int_equal(ext4_link(fs, "/A/x", "/y"), 0);
	assert_int_equal(ext4_symlink(fs, "/A/x", "/s"), 0);
	a = ino_of(w, "/A");
	x = ino_of(w, "/A/x");
	fx_world_unmount(w);
	r = e2ref_open_ok(w->bd);
	assert_int_equal(e2ref_lookup(r, EXT4_ROOT_INO, "A", &got), 0);
	assert_int_equal(got, a);
	assert_int_equal(e2ref_lookup(r, a, "x", &got), 0);
	assert_int_equal(got, x);
	assert_int_equal(e2ref_lookup(r, EXT4_ROOT_INO, "y", &got), 0);
	assert_int_equal(got, x);
	assert_int_not_equal(e2ref_dir_block_read(r, a, 0, blk), 0);
	assert_true(e2ref_dir_block_csum_ok(r, a, blk));
	assert_int_equal(e2ref_read_bitmaps(r), 0);
	e2ref_free(r);
	fx_world_free(w);
}

/* ext4_ns_read: every name, hard links sharing an inode, the targets. */
static void test_namei__ns_read_lists_every_name(void **state)
{
	struct fx_world *w = world(4096);
	struct ext4_fs *fs = &w->fs;
	const struct nsnap_entry *e;
	struct nsnap s;

	(void)state;
	assert_int_equal(ext4_mkdir(fs, "/A"), 0);
	assert_int_equal(ext4_link(fs, "/f", "/A/g"), 0);
	assert_int_equal(ext4_symlink(fs, "../f", "/A/l"), 0);
	assert_int_equal(ext4_ns_read(fs, &s), 0);
	assert_non_null(nsnap_find(&s, "/lost+found"));
	assert_non_null(e = nsnap_find(&s, "/A/g"));
	assert_int_equal(e->ne_ino, EXT4_FILE_INO);
	assert_int_equal(e->ne_nlink, 2);
	assert_int_equal(nsnap_names_of(&s, EXT4_FILE_INO), 2);
	assert_non_null(e = nsnap_find(&s, "/A/l"));
	assert_string_equal(e->ne_target, "../f");
	assert_int_equal(s.ns_nr_unreachable, 0);
	nsnap_free(&s);
	fx_world_free(w);
}

/* fsync of one file waits for its own writeback, not another file's (filemap_fdatawait_range). */
static void test_namei__fsync_waits_for_its_file_only(void **state)
{
	struct fx_world *w = world(4096);
	struct ext4_fs *fs = &w->fs;
	struct ext4_inode_info *a;
	int64_t done;

	(void)state;
	assert_int_equal(ext4_open_path(fs, "/a", true, false), 0);
	a = fs->inode;
	assert_int_equal(ext4_buffered_write(fs, 0, 4096, 0x11, 4096, &done), 0);
	assert_int_equal(ext4_sync_file_range(fs, 0, 0, 'w'), 0);
	assert_true(ext4_io_range_busy(fs, 0, 4095));
	assert_int_equal(ext4_open_path(fs, "/b", true, false), 0);
	assert_int_equal(ext4_buffered_write(fs, 0, 4096, 0x22, 4096, &done), 0);
	assert_int_equal(ext4_sync_file(fs, 0, INT64_MAX, false), 0);
	assert_false(ext4_io_range_busy(fs, 0, 4095));
	fs->inode = a;
	assert_true(ext4_io_range_busy(fs, 0, 4095));   /* a's write is still in flight */
	ext4_wait_io_range(fs, 0, INT64_MAX);
	fx_world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_namei__errnos_are_the_kernels, fx_world_leftover),
		cmocka_unit_test_teardown(test_namei__directory_links_follow_dir_nlink, fx_world_leftover),
		cmocka_unit_test_teardown(test_namei__unlinked_open_file_is_an_orphan_until_close, fx_world_leftover),
		cmocka_unit_test_teardown(test_namei__full_directory_is_refused_with_the_reason, fx_world_leftover),
		cmocka_unit_test_teardown(test_namei__libext2fs_reads_the_namespace, fx_world_leftover),
		cmocka_unit_test_teardown(test_namei__ns_read_lists_every_name, fx_world_leftover),
		cmocka_unit_test_teardown(test_namei__fsync_waits_for_its_file_only,
					  fx_world_leftover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
