/*
 * mke2fs.c - mke2fs's steps (e2fsprogs 1.47.0, misc/mke2fs.c: PRS() and
 * main()) through libext2fs over the model's device, with the options of
 * mke2fs.h, then the model's file as debugfs's `write` makes it
 * (misc/create_inode.c: do_write_internal()).  What mke2fs reads from
 * /etc/mke2fs.conf is written here with its source; nothing is read at run
 * time, no clock is read (E2FS_MKFS_TIME), no random UUID is drawn.
 *
 * Left out of mke2fs, as the options above leave them out: bad-block
 * lists, discard, the undo file, huge files, quota, orphan_file, an
 * external journal, device topology (the model's device has none, as a
 * regular file has none).
 */
#include <sys/types.h>

#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mke2fs.h"
#include "e2fs_io.h"
#include "blkdev.h"
#include "sim.h"

/* -U 0b7d3c2e-1f2a-4b5c-8d9e-0a1b2c3d4e5f */
const uint8_t e2fs_uuid[16] = {
	0x0b, 0x7d, 0x3c, 0x2e, 0x1f, 0x2a, 0x4b, 0x5c,
	0x8d, 0x9e, 0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f,
};
/* -E hash_seed=6a1c2b3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d */
const uint8_t e2fs_hash_seed[16] = {
	0x6a, 0x1c, 0x2b, 0x3d, 0x4e, 0x5f, 0x4a, 0x6b,
	0x9c, 0x7d, 0x8e, 0x9f, 0x0a, 0x1b, 0x2c, 0x3d,
};

/*
 * Debian 12's /etc/mke2fs.conf: [defaults] base_features =
 * sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr; [fs_types]
 * ext4 = { features = has_journal,extent,huge_file,flex_bg,metadata_csum,
 * 64bit,dir_nlink,extra_isize }.
 */
#define CONF_COMPAT (EXT2_FEATURE_COMPAT_RESIZE_INODE | EXT2_FEATURE_COMPAT_DIR_INDEX | \
		     EXT2_FEATURE_COMPAT_EXT_ATTR | EXT3_FEATURE_COMPAT_HAS_JOURNAL)
#define CONF_INCOMPAT (EXT2_FEATURE_INCOMPAT_FILETYPE | EXT3_FEATURE_INCOMPAT_EXTENTS | \
		       EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_64BIT)
#define CONF_RO_COMPAT (EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | \
			EXT2_FEATURE_RO_COMPAT_LARGE_FILE | EXT4_FEATURE_RO_COMPAT_HUGE_FILE | \
			EXT4_FEATURE_RO_COMPAT_METADATA_CSUM | EXT4_FEATURE_RO_COMPAT_DIR_NLINK | \
			EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE)
/* [defaults] default_mntopts = acl,user_xattr */
#define CONF_MNTOPTS (EXT2_DEFM_ACL | EXT2_DEFM_XATTR_USER)
/* [defaults] inode_size = 256 */
#define CONF_INODE_SIZE 256u
/* mke2fs.c: flex_bg_size from the profile, default 16 (Debian's sets none) */
#define CONF_FLEX_BG_SIZE_LOG 4u
/* mke2fs.c: reserved_ratio from the profile, default 5.0 (Debian's sets none) */
#define CONF_RESERVED_RATIO 5.0

static char mke2fs_why[200];

/* Record the failing step @what and libext2fs's error @rc for the caller. */
static errcode_t failed(errcode_t rc, const char *what, const char **why)
{
	snprintf(mke2fs_why, sizeof(mke2fs_why), "mke2fs: %s: %s", what, error_message(rc));
	*why = mke2fs_why;
	return rc;
}

const char *mke2fs_refuses(uint32_t nr_blocks, uint32_t block_size)
{
	if (block_size != 1024 && block_size != 2048 && block_size != 4096)
		return "mke2fs: the model's block sizes are 1024, 2048 and 4096";
	if (nr_blocks < E2FS_MIN_BLOCKS)
		return "mke2fs makes no journal below 2048 blocks, and the model needs one";
	return NULL;
}

/*
 * mke2fs.c's PRS(): the usage type by size (the inode ratio of [fs_types]
 * floppy = 8192, small = 4096, [defaults] 16384, big = 32768, huge =
 * 65536, never below the block size).
 */
static uint32_t prs_inode_ratio(uint64_t nr_blocks, uint32_t block_size)
{
	uint64_t meg = (1024 * 1024) / block_size;
	uint32_t ratio;

	if (nr_blocks < 3 * meg)
		ratio = 8192;           /* floppy */
	else if (nr_blocks < 512 * meg)
		ratio = 4096;           /* small */
	else if (nr_blocks < 4ull * 1024 * 1024 * meg)
		ratio = 16384;          /* default */
	else if (nr_blocks < 16ull * 1024 * 1024 * meg)
		ratio = 32768;          /* big */
	else
		ratio = 65536;          /* huge */
	return ratio < block_size ? block_size : ratio;
}

/* PRS(): the parameters mke2fs hands ext2fs_initialize(). */
static errcode_t prs_params(struct ext2_super_block *p, uint32_t nr_blocks, uint32_t bs,
			    const char **why)
{
	uint64_t inodes;

	memset(p, 0, sizeof(*p));
	p->s_rev_level = EXT2_DYNAMIC_REV;
	p->s_log_block_size = (uint32_t)(bs == 1024 ? 0 : bs == 2048 ? 1 : 2);
	p->s_log_cluster_size = p->s_log_block_size;
	ext2fs_blocks_count_set(p, nr_blocks);
	p->s_feature_compat = CONF_COMPAT;
	p->s_feature_incompat = CONF_INCOMPAT;
	p->s_feature_ro_compat = CONF_RO_COMPAT;
	p->s_default_mount_opts = CONF_MNTOPTS;
	p->s_desc_size = EXT2_MIN_DESC_SIZE_64BIT;
	p->s_log_groups_per_flex = CONF_FLEX_BG_SIZE_LOG;
	p->s_inode_size = CONF_INODE_SIZE;
	memcpy(p->s_hash_seed, e2fs_hash_seed, sizeof(p->s_hash_seed));
	inodes = (uint64_t)nr_blocks * bs / prs_inode_ratio(nr_blocks, bs);
	if (inodes > UINT32_MAX)
		inodes = UINT32_MAX;    /* 64bit: MAX_32_NUM */
	if (inodes * CONF_INODE_SIZE >= (uint64_t)nr_blocks * bs)
		return failed(EXT2_ET_TOO_MANY_INODES, "inode_size * inodes_count too big", why);
	p->s_inodes_count = (uint32_t)inodes;
	ext2fs_r_blocks_count_set(p, (blk64_t)(CONF_RESERVED_RATIO * nr_blocks / 100.0));
	return 0;
}

#define BSD_DISKMAGIC 0x82564557u /* zap_sector(): a BSD disklabel's magic */
#define BSD_MAGICDISK 0x57455682u /* the same, byte-swapped */
#define BSD_LABEL_OFFSET 64

/*
 * zap_sector(): zero @nsect 512-byte sectors from @sect (the old
 * superblock; sector 0 and 1, the boot block, unless sector 0 holds a BSD
 * disklabel).
 */
static void zap_sector(ext2_filsys fs, int sect, int nsect)
{
	char *buf = sim_zalloc(512 * (size_t)nsect);
	uint32_t magic;

	if (sect == 0 && io_channel_read_blk64(fs->io, 0, -512, buf) == 0) {
		memcpy(&magic, buf + BSD_LABEL_OFFSET, sizeof(magic));
		if (magic == BSD_DISKMAGIC || magic == BSD_MAGICDISK) {
			free(buf);
			return;
		}
	}
	memset(buf, 0, 512 * (size_t)nsect);
	io_channel_set_blksize(fs->io, 512);
	SIM_ASSERT(io_channel_write_blk64(fs->io, (unsigned long long)sect, -512 * nsect, buf) == 0);
	io_channel_set_blksize(fs->io, (int)fs->blocksize);
	free(buf);
}

/* main(), from ext2fs_initialize() to show_stats(): the superblock's fields. */
static void main_super(ext2_filsys fs)
{
	fs->now = E2FS_MKFS_TIME;       /* E2FSPROGS_FAKE_TIME */
	fs->super->s_mkfs_time = fs->super->s_lastcheck = E2FS_MKFS_TIME;
	fs->super->s_kbytes_written = 1;        /* flex_bg, huge_file, ... */
	zap_sector(fs, 2, 6);
	memcpy(fs->super->s_uuid, e2fs_uuid, sizeof(fs->super->s_uuid));
	ext2fs_init_csum_seed(fs);
	fs->super->s_def_hash_version = EXT2_HASH_HALF_MD4;     /* hash_alg */
	memcpy(fs->super->s_hash_seed, e2fs_hash_seed, sizeof(fs->super->s_hash_seed));
	fs->super->s_max_mnt_count = (__s16)-1;         /* enable_periodic_fsck = 0 */
	fs->super->s_checksum_type = EXT2_CRC32C_CHKSUM;
}

/* write_reserved_inodes(): zeroed reserved inodes, with their checksums. */
static errcode_t write_reserved_inodes(ext2_filsys fs)
{
	struct ext2_inode *inode = sim_zalloc(EXT2_INODE_SIZE(fs->super));
	errcode_t rc = 0;

	for (ext2_ino_t ino = 1; rc == 0 && ino < EXT2_FIRST_INO(fs->super); ino++)
		rc = ext2fs_write_inode_full(fs, ino, inode, EXT2_INODE_SIZE(fs->super));
	free(inode);
	return rc;
}

/*
 * write_inode_tables(fs, lazy_itable_init = 0, itable_zeroed = 0), then
 * (metadata_csum) the reserved inodes with correct checksums.
 */
static errcode_t write_inode_tables(ext2_filsys fs)
{
	for (dgrp_t i = 0; i < fs->group_desc_count; i++) {
		blk64_t blk = ext2fs_inode_table_loc(fs, i);
		int num = (int)fs->inode_blocks_per_group;
		errcode_t rc;

		ext2fs_bg_flags_set(fs, i, EXT2_BG_INODE_ZEROED);
		ext2fs_group_desc_csum_set(fs, i);
		rc = ext2fs_zero_blocks2(fs, blk, num, &blk, &num);
		if (rc)
			return rc;
	}
	return write_reserved_inodes(fs);
}

/*
 * main(): the group tables, the overhead count, the end of the device
 * zeroed (old MD RAID metadata), the inode tables zeroed.
 */
static errcode_t main_tables(ext2_filsys fs, blk64_t *overhead, const char **why)
{
	blk64_t rsv = 65536 / fs->blocksize, blocks = ext2fs_blocks_count(fs->super);
	blk64_t start = blocks & ~(rsv - 1), ret_blk;
	errcode_t rc;

	fs->stride = fs->super->s_raid_stride;
	if ((rc = ext2fs_allocate_tables(fs)))
		return failed(rc, "while trying to allocate filesystem tables", why);
	if ((rc = ext2fs_convert_subcluster_bitmap(fs, &fs->block_map)))
		return failed(rc, "while converting subcluster bitmap", why);
	rc = ext2fs_count_used_clusters(fs, fs->super->s_first_data_block, blocks - 1, overhead);
	if (rc)
		return failed(rc, "while calculating overhead", why);
	zap_sector(fs, 0, 2);          /* ZAP_BOOTBLOCK: not on sparc */
	if (start > rsv)
		start -= rsv;
	if (start > 0 && (rc = ext2fs_zero_blocks2(fs, start, (int)(blocks - start), &ret_blk, NULL)))
		return failed(rc, "while zeroing block at end of filesystem", why);
	if ((rc = write_inode_tables(fs)))
		return failed(rc, "while writing inode tables", why);
	return 0;
}

/* create_lost_and_found(): made with umask 077, expanded to 16 KiB (at least 2 blocks). */
static errcode_t create_lost_and_found(ext2_filsys fs)
{
	const char *name = "lost+found";
	unsigned int lpf_size = 0;
	ext2_ino_t ino;
	errcode_t rc;

	fs->umask = 077;
	if ((rc = ext2fs_mkdir(fs, EXT2_ROOT_INO, 0, name)))
		return rc;
	if ((rc = ext2fs_lookup(fs, EXT2_ROOT_INO, name, (int)strlen(name), 0, &ino)))
		return rc;
	for (int i = 1; i < EXT2_NDIR_BLOCKS; i++) {
		if ((lpf_size += fs->blocksize) >= 16 * 1024 && lpf_size >= 2 * fs->blocksize)
			break;
		if ((rc = ext2fs_expand_dir(fs, ino)))
			return rc;
	}
	return 0;
}

/*
 * main(): create_root_dir(), create_lost_and_found(), reserve_inodes(),
 * create_bad_block_inode() with no bad blocks, ext2fs_create_resize_inode().
 */
static errcode_t main_inodes(ext2_filsys fs, const char **why)
{
	errcode_t rc;

	if ((rc = ext2fs_mkdir(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, 0)))
		return failed(rc, "while creating root dir", why);
	if ((rc = create_lost_and_found(fs)))
		return failed(rc, "while creating /lost+found", why);
	for (ext2_ino_t i = EXT2_ROOT_INO + 1; i < EXT2_FIRST_INODE(fs->super); i++)
		ext2fs_inode_alloc_stats2(fs, i, +1, 0);
	ext2fs_mark_ib_dirty(fs);
	ext2fs_mark_inode_bitmap2(fs->inode_map, EXT2_BAD_INO);
	ext2fs_inode_alloc_stats2(fs, EXT2_BAD_INO, +1, 0);
	if ((rc = ext2fs_update_bb_inode(fs, NULL)))
		return failed(rc, "while setting bad block inode", why);
	if ((rc = ext2fs_create_resize_inode(fs)))
		return failed(rc, "while reserving blocks for online resize", why);
	return 0;
}

/*
 * main(): the journal inode, figure_journal_size()'s default size (no -J),
 * journal_location ~0 (ext2fs_add_journal_inode3() picks the goal),
 * lazy_journal_init = 0; then s_overhead_clusters.
 */
static errcode_t main_journal(ext2_filsys fs, blk64_t overhead, const char **why)
{
	struct ext2fs_journal_params jparams = { 0 };
	errcode_t rc;

	if ((rc = ext2fs_get_journal_params(&jparams, fs)))
		return failed(rc, "Filesystem too small for a journal", why);
	overhead += EXT2FS_NUM_B2C(fs, jparams.num_journal_blocks + jparams.num_fc_blocks);
	rc = ext2fs_add_journal_inode3(fs, &jparams, ~0ULL, EXT2_MKJOURNAL_NO_MNT_CHECK);
	if (rc)
		return failed(rc, "while trying to create journal", why);
	overhead += fs->super->s_first_data_block;
	fs->super->s_overhead_clusters = (__u32)overhead;
	return 0;
}

/*
 * debugfs's `write EMPTY f` (do_write_internal() and copy_file() of an
 * empty source of mode 0644): a new inode (goal as debugfs asks: mode
 * 010755), its link in the root directory, its stats, an empty extent
 * tree, the inode written new, the file opened and closed.
 */
static errcode_t create_file(ext2_filsys fs, const char **why)
{
	struct ext2_inode inode;
	ext2_extent_handle_t handle;
	ext2_file_t file;
	ext2_ino_t ino;
	errcode_t rc;

	if ((rc = ext2fs_new_inode(fs, EXT2_ROOT_INO, 010755, 0, &ino)))
		return failed(rc, "debugfs write: ext2fs_new_inode", why);
	SIM_ASSERT(ino == E2FS_FILE_INO);
	if ((rc = ext2fs_link(fs, EXT2_ROOT_INO, E2FS_FILE_NAME, ino, EXT2_FT_REG_FILE)))
		return failed(rc, "debugfs write: ext2fs_link", why);
	ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | 0644;
	inode.i_atime = inode.i_ctime = inode.i_mtime = (__u32)fs->now;
	inode.i_links_count = 1;
	if ((rc = ext2fs_inode_size_set(fs, &inode, 0)))
		return failed(rc, "debugfs write: ext2fs_inode_size_set", why);
	if ((rc = ext2fs_extent_open2(fs, ino, &inode, &handle)))
		return failed(rc, "debugfs write: ext2fs_extent_open2", why);
	ext2fs_extent_free(handle);
	if ((rc = ext2fs_write_new_inode(fs, ino, &inode)))
		return failed(rc, "debugfs write: ext2fs_write_new_inode", why);
	if ((rc = ext2fs_file_open(fs, ino, EXT2_FILE_WRITE, &file)))
		return failed(rc, "debugfs write: ext2fs_file_open", why);
	if ((rc = ext2fs_file_close(file)))
		return failed(rc, "debugfs write: ext2fs_file_close", why);
	return 0;
}

/* The steps between ext2fs_initialize() and ext2fs_close_free(). */
static errcode_t mke2fs_steps(ext2_filsys fs, const char **why)
{
	blk64_t overhead = 0;
	errcode_t rc;

	main_super(fs);
	if ((rc = main_tables(fs, &overhead, why)))
		return rc;
	if ((rc = main_inodes(fs, why)))
		return rc;
	return main_journal(fs, overhead, why);
}

/*
 * `debugfs -w -R "write EMPTY f"` on what mke2fs closed: open_filesystem()
 * (ext2fs_open() sets EXT2_FLAG_MASTER_SB_ONLY, so the close writes back
 * only the primary superblock and group descriptors and the backups keep
 * mke2fs's counts; the bitmaps read), the file, close_filesystem().
 */
static errcode_t debugfs_write_file(struct blkdev *bd, const char **why)
{
	ext2_filsys fs = NULL;
	errcode_t rc;

	e2fs_io_attach(bd);
	rc = ext2fs_open("blkdev", EXT2_FLAG_SOFTSUPP_FEATURES | EXT2_FLAG_64BITS | EXT2_FLAG_RW,
			 0, 0, e2fs_io_manager, &fs);
	if (rc)
		return failed(rc, "debugfs: while trying to open the device", why);
	fs->now = E2FS_MKFS_TIME;       /* E2FSPROGS_FAKE_TIME */
	fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	if ((rc = ext2fs_read_bitmaps(fs)) == 0)
		rc = create_file(fs, why);
	else
		failed(rc, "debugfs: while reading allocation bitmaps", why);
	if (rc == 0 && (fs->flags & EXT2_FLAG_IB_DIRTY) && (rc = ext2fs_write_inode_bitmap(fs)))
		failed(rc, "debugfs: ext2fs_write_inode_bitmap", why);
	if (rc == 0 && (fs->flags & EXT2_FLAG_BB_DIRTY) && (rc = ext2fs_write_block_bitmap(fs)))
		failed(rc, "debugfs: ext2fs_write_block_bitmap", why);
	if (rc) {
		ext2fs_free(fs);
		return rc;
	}
	if ((rc = ext2fs_close_free(&fs)))
		return failed(rc, "debugfs: ext2fs_close", why);
	return 0;
}

long mke2fs_make(struct blkdev *bd, const char **why)
{
	struct ext2_super_block param;
	const char *no = mke2fs_refuses(bd->bd_nr_blocks, bd->bd_block_size);
	ext2_filsys fs = NULL;
	errcode_t rc;

	SIM_ASSERT(bd->bd_nr_bios == 0 && bd->bd_parent == NULL);
	if (no) {
		*why = no;
		return EXT2_ET_INVALID_ARGUMENT;
	}
	initialize_ext2_error_table();
	if ((rc = prs_params(&param, bd->bd_nr_blocks, bd->bd_block_size, why)))
		return rc;
	e2fs_io_attach(bd);
	rc = ext2fs_initialize("blkdev", EXT2_FLAG_EXCLUSIVE | EXT2_FLAG_64BITS, &param,
			       e2fs_io_manager, &fs);
	if (rc)
		return failed(rc, "while setting up superblock", why);
	if ((rc = mke2fs_steps(fs, why))) {
		ext2fs_free(fs);
		return rc;
	}
	if ((rc = ext2fs_close_free(&fs)))
		return failed(rc, "while writing out and closing file system", why);
	return debugfs_write_file(bd, why);
}
