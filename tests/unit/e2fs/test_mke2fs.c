/*
 * test_mke2fs.c - e2fs/: the image mke2fs_device() gives, read back through
 * libext2fs over the model's device (superblock fields, features, the
 * reserved inodes, lost+found, the journal inode, the model's file f in the
 * root directory, every checksum libext2fs verifies on open), the cache
 * (one mkfs per geometry, devices that copy nothing), determinism (two
 * runs, the same bytes) and the geometries refused.
 *
 * With arguments, `test_mke2fs --image FILE NR_BLOCKS BLOCK_SIZE` writes
 * the model's image of that geometry to FILE instead (a block nothing wrote
 * as the sentinel bytes), for the comparison with the real mke2fs and
 * debugfs in tests/topics/e2fs.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/types.h>
#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "e2fs_io.h"
#include "mke2fs.h"
#include "scenario.h"

/* the loader's and the CLI's smallest device is mke2fs's smallest with a journal */
_Static_assert(SCN_DISK_BLOCKS_MIN == E2FS_MIN_BLOCKS, "disk_blocks' minimum is mke2fs's");

/* Write the model's image of @nr blocks of @bs bytes to @path: 0, or 1 with a message. */
static int write_image(const char *path, uint32_t nr, uint32_t bs)
{
	const char *why = NULL;
	struct blkdev *bd = mke2fs_device(nr, bs, &why);
	uint8_t *buf = malloc(bs);
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!bd || !f || !buf) {
		fprintf(stderr, "test_mke2fs: %s\n", bd ? path : why);
		rc = 1;
	}
	for (uint32_t b = 0; rc == 0 && b < nr; b++) {
		blkdev_read(bd, b, buf);
		if (fwrite(buf, 1, bs, f) != bs)
			rc = 1;
	}
	if (f && fclose(f) != 0)
		rc = 1;
	free(buf);
	blkdev_destroy(bd);
	mke2fs_cache_drop();
	return rc;
}

/* libext2fs opening @bd read-only through e2fs_io (checksums verified): rc, *fs. */
static errcode_t open_dev(struct blkdev *bd, ext2_filsys *fs)
{
	e2fs_io_attach(bd);
	return ext2fs_open("blkdev", EXT2_FLAG_64BITS, 0, 0, e2fs_io_manager, fs);
}

static struct blkdev *device(uint32_t nr, uint32_t bs)
{
	const char *why = NULL;
	struct blkdev *bd = mke2fs_device(nr, bs, &why);

	assert_non_null(bd);
	assert_null(why);
	return bd;
}

/* Every superblock field split.md and mke2fs's defaults give, for one geometry. */
static void check_super(uint32_t nr, uint32_t bs, uint32_t inode_ratio)
{
	struct blkdev *bd = device(nr, bs);
	struct ext2_super_block *sb;
	ext2_filsys fs;

	assert_int_equal(open_dev(bd, &fs), 0);
	sb = fs->super;
	assert_int_equal(ext2fs_blocks_count(sb), nr);
	assert_int_equal(EXT2_BLOCK_SIZE(sb), bs);
	assert_int_equal(sb->s_feature_compat, EXT3_FEATURE_COMPAT_HAS_JOURNAL |
			 EXT2_FEATURE_COMPAT_EXT_ATTR | EXT2_FEATURE_COMPAT_RESIZE_INODE |
			 EXT2_FEATURE_COMPAT_DIR_INDEX);
	assert_int_equal(sb->s_feature_incompat, EXT2_FEATURE_INCOMPAT_FILETYPE |
			 EXT3_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_64BIT |
			 EXT4_FEATURE_INCOMPAT_FLEX_BG);
	assert_int_equal(sb->s_feature_ro_compat, EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |
			 EXT2_FEATURE_RO_COMPAT_LARGE_FILE | EXT4_FEATURE_RO_COMPAT_HUGE_FILE |
			 EXT4_FEATURE_RO_COMPAT_DIR_NLINK | EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |
			 EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	assert_int_equal(sb->s_inode_size, 256);
	assert_int_equal(sb->s_min_extra_isize, 32);
	assert_int_equal(sb->s_want_extra_isize, 32);
	/* ext2fs_initialize() rounds each group's count up to whole inode-table blocks */
	assert_true(sb->s_inodes_count >= (uint64_t)nr * bs / inode_ratio);
	assert_true(sb->s_inodes_count < (uint64_t)nr * bs / inode_ratio +
		    fs->group_desc_count * 16);
	assert_memory_equal(sb->s_uuid, e2fs_uuid, 16);
	assert_memory_equal(sb->s_hash_seed, e2fs_hash_seed, 16);
	assert_int_equal(sb->s_def_hash_version, EXT2_HASH_HALF_MD4);
	assert_true(sb->s_flags & EXT2_FLAGS_SIGNED_HASH);      /* x86: char is signed */
	assert_int_equal(sb->s_mkfs_time, E2FS_MKFS_TIME);
	assert_int_equal(sb->s_wtime, E2FS_MKFS_TIME);
	assert_int_equal(sb->s_lastcheck, E2FS_MKFS_TIME);
	assert_int_equal(sb->s_max_mnt_count, (__s16)-1);
	assert_int_equal(sb->s_default_mount_opts, EXT2_DEFM_ACL | EXT2_DEFM_XATTR_USER);
	assert_int_equal(sb->s_log_groups_per_flex, 4);
	assert_int_equal(sb->s_desc_size, 64);
	assert_int_equal(sb->s_checksum_type, EXT2_CRC32C_CHKSUM);
	assert_int_equal(sb->s_kbytes_written, 1);
	assert_int_equal(sb->s_journal_inum, EXT2_JOURNAL_INO);
	assert_true(sb->s_reserved_gdt_blocks > 0);
	assert_int_equal(ext2fs_r_blocks_count(sb), (blk64_t)(5.0 * nr / 100.0));
	for (dgrp_t g = 0; g < fs->group_desc_count; g++)
		assert_true(ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_ZEROED));
	ext2fs_close_free(&fs);
	blkdev_destroy(bd);
}

static void test_mke2fs__superblock_as_mke2fs_sets_it(void **state)
{
	(void)state;
	check_super(2048, 1024, 8192);          /* floppy: below 3 MiB */
	check_super(16384, 4096, 4096);         /* small: below 512 MiB */
	check_super(131071, 4096, 4096);
	check_super(131072, 4096, 16384);       /* default: 512 MiB and up */
	mke2fs_cache_drop();
}

/* The model's file: inode 12, named f in the root directory (split.md). */
static void test_mke2fs__file_f_in_root(void **state)
{
	struct blkdev *bd = device(16384, 1024);
	struct ext2_inode_large inode;
	ext2_filsys fs;
	ext2_ino_t ino = 0;

	(void)state;
	assert_int_equal(open_dev(bd, &fs), 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "f", &ino), 0);
	assert_int_equal(ino, E2FS_FILE_INO);
	assert_int_equal(ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)&inode,
						sizeof(inode)), 0);        /* its checksum holds */
	assert_int_equal(inode.i_mode, 0100644);
	assert_int_equal(inode.i_uid, 0);
	assert_int_equal(inode.i_gid, 0);
	assert_int_equal(inode.i_links_count, 1);
	assert_int_equal(EXT2_I_SIZE(&inode), 0);
	assert_int_equal(inode.i_flags, EXT4_EXTENTS_FL);
	assert_int_equal(inode.i_extra_isize, 32);
	assert_int_equal(inode.i_mtime, E2FS_MKFS_TIME);
	assert_int_equal(inode.i_crtime, E2FS_MKFS_TIME);
	assert_int_equal(inode.i_block[0] & 0xffff, 0xf30a);    /* an empty extent header */
	assert_int_equal(inode.i_block[0] >> 16, 0);
	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "lost+found", &ino), 0);
	assert_int_equal(ino, 11);
	assert_int_equal(ext2fs_read_bitmaps(fs), 0);           /* bitmap checksums hold */
	assert_true(ext2fs_test_inode_bitmap2(fs->inode_map, E2FS_FILE_INO));
	assert_false(ext2fs_test_inode_bitmap2(fs->inode_map, E2FS_FILE_INO + 1));
	ext2fs_close_free(&fs);
	blkdev_destroy(bd);
	mke2fs_cache_drop();
}

/* lost+found expanded as mke2fs does: to 16 KiB and 2 blocks, at most 12 blocks. */
static void test_mke2fs__lost_and_found_expanded(void **state)
{
	static const uint32_t bs[] = { 1024, 2048, 4096 }, size[] = { 12288, 16384, 16384 };

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		struct blkdev *bd = device(16384, bs[i]);
		struct ext2_inode inode;
		ext2_filsys fs;

		assert_int_equal(open_dev(bd, &fs), 0);
		assert_int_equal(ext2fs_read_inode(fs, 11, &inode), 0);
		assert_int_equal(EXT2_I_SIZE(&inode), size[i]);
		assert_int_equal(inode.i_mode, 040700);         /* umask 077 */
		ext2fs_close_free(&fs);
		blkdev_destroy(bd);
	}
	mke2fs_cache_drop();
}

/* The journal inode: mke2fs's default size, zeroed blocks after its superblock. */
static void test_mke2fs__journal_inode(void **state)
{
	struct blkdev *bd = device(16384, 4096);
	struct ext2_inode inode;
	blk64_t first = 0, last = 0;
	ext2_filsys fs;
	uint8_t jsb[4];

	(void)state;
	assert_int_equal(open_dev(bd, &fs), 0);
	assert_int_equal(ext2fs_read_inode(fs, EXT2_JOURNAL_INO, &inode), 0);
	assert_int_equal(EXT2_I_SIZE(&inode), (uint64_t)ext2fs_default_journal_size(16384) * 4096);
	assert_true(inode.i_flags & EXT4_EXTENTS_FL);
	assert_int_equal(ext2fs_bmap2(fs, EXT2_JOURNAL_INO, &inode, NULL, 0, 0, NULL, &first), 0);
	assert_int_equal(ext2fs_bmap2(fs, EXT2_JOURNAL_INO, &inode, NULL, 0, 1023, NULL, &last), 0);
	memcpy(jsb, blkdev_peek(bd, (uint32_t)first), 4);
	assert_memory_equal(jsb, "\xc0\x3b\x39\x98", 4);       /* JBD2_MAGIC_NUMBER, big-endian */
	assert_true(blkdev_is_zero_block(blkdev_peek(bd, (uint32_t)last)));
	ext2fs_close_free(&fs);
	blkdev_destroy(bd);
	mke2fs_cache_drop();
}

/* One mkfs per geometry; a device copies nothing; the image is the same each time. */
static void test_mke2fs__once_per_geometry_and_deterministic(void **state)
{
	const char *why = NULL;
	struct blkdev_base *a = mke2fs_base(65536, 2048, &why), *b;
	struct blkdev *bd = mke2fs_device(65536, 2048, &why);
	uint32_t data = 0, zero = 0;

	(void)state;
	assert_non_null(a);
	assert_ptr_equal(mke2fs_base(65536, 2048, &why), a);
	assert_ptr_equal(bd->bd_base, a);
	assert_int_equal(bd->bd_nr_slots, 0);
	blkdev_base_get(a);
	mke2fs_cache_drop();
	b = mke2fs_base(65536, 2048, &why);
	assert_non_null(b);
	for (uint32_t blk = 0; blk < 65536; blk++) {
		const uint8_t *p = blkdev_base_peek(a, blk), *q = blkdev_base_peek(b, blk);

		assert_int_equal(p == NULL, q == NULL);
		assert_int_equal(blkdev_is_zero_block(p), blkdev_is_zero_block(q));
		zero += blkdev_is_zero_block(p);
		if (p && !blkdev_is_zero_block(p)) {
			assert_memory_equal(p, q, 2048);
			data++;
		}
	}
	/* the superblocks, descriptors, reserved GDT and bitmap blocks, the directories... */
	assert_true(data < 200);
	assert_true(zero > 20 * data);  /* ... but zeroed inode tables and journal cost nothing */
	blkdev_destroy(bd);
	blkdev_base_put(a);
	mke2fs_cache_drop();
}

/* A checksum the features require is checked: a damaged copy is refused. */
static void test_mke2fs__damaged_superblock_refused(void **state)
{
	struct blkdev *bd = device(2048, 4096), *other = device(2048, 4096);
	uint8_t blk[4096];
	ext2_filsys fs = NULL;

	(void)state;
	blkdev_read(bd, 0, blk);
	blk[1024 + 0x78] ^= 0x01;               /* a bit of s_volume_name */
	blkdev_write_durable(bd, 0, blk);
	assert_int_equal(open_dev(bd, &fs), EXT2_ET_SB_CSUM_INVALID);
	assert_int_equal(open_dev(other, &fs), 0);      /* the base is untouched */
	ext2fs_close_free(&fs);
	blkdev_destroy(bd);
	blkdev_destroy(other);
	mke2fs_cache_drop();
}

/* The geometries refused, with the reason. */
static void test_mke2fs__refused_geometries(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_null(mke2fs_device(E2FS_MIN_BLOCKS - 1, 4096, &why));
	assert_non_null(strstr(why, "no journal below 2048 blocks"));
	why = NULL;
	assert_null(mke2fs_base(16384, 512, &why));
	assert_non_null(why);
	assert_null(mke2fs_refuses(E2FS_MIN_BLOCKS, 1024));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mke2fs__superblock_as_mke2fs_sets_it),
		cmocka_unit_test(test_mke2fs__file_f_in_root),
		cmocka_unit_test(test_mke2fs__lost_and_found_expanded),
		cmocka_unit_test(test_mke2fs__journal_inode),
		cmocka_unit_test(test_mke2fs__once_per_geometry_and_deterministic),
		cmocka_unit_test(test_mke2fs__damaged_superblock_refused),
		cmocka_unit_test(test_mke2fs__refused_geometries),
	};

	if (argc == 5 && strcmp(argv[1], "--image") == 0)
		return write_image(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
				   (uint32_t)strtoul(argv[4], NULL, 0));
	return cmocka_run_group_tests_name("mke2fs", tests, NULL, NULL);
}
