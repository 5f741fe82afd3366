/*
 * ext4_disk.h - ext4's on-disk format, in one place: the structures of
 * fs/ext4/ext4.h and fs/ext4/ext4_extents.h with the kernel's names and
 * layout (little-endian fields, read and written by memcpy on this
 * little-endian host), the feature bits, and the checksums metadata_csum
 * defines (computed where a block is written: balloc.c, super.c, inode.c,
 * extents.c).
 *
 * Block 0 of group 0 holds the superblock at byte 1024 (1 KiB blocks: the
 * superblock is block 1, s_first_data_block = 1); the group descriptor table
 * follows it, then the reserved GDT blocks; with flex_bg the block bitmaps,
 * inode bitmaps and inode tables of 16 groups sit together in the flex
 * group's first group.  The journal is inode 8's blocks; the root directory
 * is inode 2, lost+found inode 11 and the model's file inode 12.
 */
#ifndef EXT4SIM_EXT4_DISK_H
#define EXT4SIM_EXT4_DISK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define EXT4_SUPER_MAGIC 0xef53u
#define EXT4_SB_OFFSET 1024u            /* byte offset of the superblock on the device */
#define EXT4_ROOT_INO 2u
#define EXT4_LOST_FOUND_INO 11u

/* i_mode's type bits (include/uapi/linux/stat.h), where <sys/stat.h> hides them */
#ifndef S_IFMT
#define S_IFMT 00170000
#define S_IFLNK 0120000
#define S_IFREG 0100000
#define S_IFDIR 0040000
#endif
#define EXT4_RESIZE_INO 7u
#define EXT4_JOURNAL_INO 8u
#define EXT4_LOST_FOUND_INO 11u
#define EXT4_DIND_BLOCK 13              /* i_block's doubly-indirect slot (the resize inode) */
#define EXT4_FILE_INO 12u               /* the model's one file, `f` in the root */
#define EXT4_N_BLOCKS 15
#define EXT4_GOOD_OLD_INODE_SIZE 128u
#define EXT4_MIN_DESC_SIZE_64BIT 64u

/* s_feature_compat */
#define EXT4_FEATURE_COMPAT_DIR_PREALLOC 0x0001u
#define EXT4_FEATURE_COMPAT_IMAGIC_INODES 0x0002u
#define EXT4_FEATURE_COMPAT_HAS_JOURNAL 0x0004u
#define EXT4_FEATURE_COMPAT_EXT_ATTR 0x0008u
#define EXT4_FEATURE_COMPAT_RESIZE_INODE 0x0010u
#define EXT4_FEATURE_COMPAT_DIR_INDEX 0x0020u
#define EXT4_FEATURE_COMPAT_SPARSE_SUPER2 0x0200u
#define EXT4_FEATURE_COMPAT_FAST_COMMIT 0x0400u
#define EXT4_FEATURE_COMPAT_STABLE_INODES 0x0800u
#define EXT4_FEATURE_COMPAT_ORPHAN_FILE 0x1000u
/* s_feature_ro_compat */
#define EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER 0x0001u
#define EXT4_FEATURE_RO_COMPAT_LARGE_FILE 0x0002u
#define EXT4_FEATURE_RO_COMPAT_HUGE_FILE 0x0008u
#define EXT4_FEATURE_RO_COMPAT_GDT_CSUM 0x0010u
#define EXT4_FEATURE_RO_COMPAT_DIR_NLINK 0x0020u
#define EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE 0x0040u
#define EXT4_FEATURE_RO_COMPAT_QUOTA 0x0100u
#define EXT4_FEATURE_RO_COMPAT_BIGALLOC 0x0200u
#define EXT4_FEATURE_RO_COMPAT_METADATA_CSUM 0x0400u
#define EXT4_FEATURE_RO_COMPAT_READONLY 0x1000u
#define EXT4_FEATURE_RO_COMPAT_PROJECT 0x2000u
#define EXT4_FEATURE_RO_COMPAT_VERITY 0x8000u
#define EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT 0x10000u
/* s_feature_incompat */
#define EXT4_FEATURE_INCOMPAT_COMPRESSION 0x0001u
#define EXT4_FEATURE_INCOMPAT_FILETYPE 0x0002u
#define EXT4_FEATURE_INCOMPAT_RECOVER 0x0004u          /* needs_recovery */
#define EXT4_FEATURE_INCOMPAT_JOURNAL_DEV 0x0008u
#define EXT4_FEATURE_INCOMPAT_META_BG 0x0010u
#define EXT4_FEATURE_INCOMPAT_EXTENTS 0x0040u
#define EXT4_FEATURE_INCOMPAT_64BIT 0x0080u
#define EXT4_FEATURE_INCOMPAT_MMP 0x0100u
#define EXT4_FEATURE_INCOMPAT_FLEX_BG 0x0200u
#define EXT4_FEATURE_INCOMPAT_EA_INODE 0x0400u
#define EXT4_FEATURE_INCOMPAT_DIRDATA 0x1000u
#define EXT4_FEATURE_INCOMPAT_CSUM_SEED 0x2000u
#define EXT4_FEATURE_INCOMPAT_LARGEDIR 0x4000u
#define EXT4_FEATURE_INCOMPAT_INLINE_DATA 0x8000u
#define EXT4_FEATURE_INCOMPAT_ENCRYPT 0x10000u
#define EXT4_FEATURE_INCOMPAT_CASEFOLD 0x20000u

/* s_state */
#define EXT4_VALID_FS 0x0001u
#define EXT4_ERROR_FS 0x0002u
#define EXT4_ORPHAN_FS 0x0004u

/* bg_flags */
#define EXT4_BG_INODE_UNINIT 0x0001u
#define EXT4_BG_BLOCK_UNINIT 0x0002u
#define EXT4_BG_INODE_ZEROED 0x0004u

/* i_flags (the model's EXT4_SYNC_FL is ext4.h's) */
#define EXT4_HUGE_FILE_FL 0x00040000u
#define EXT4_EXTENTS_FL 0x00080000u

#define EXT4_EXT_MAGIC 0xf30au

struct ext4_super_block {
/*00*/	uint32_t	s_inodes_count;		/* Inodes count */
	uint32_t	s_blocks_count_lo;	/* Blocks count */
	uint32_t	s_r_blocks_count_lo;	/* Reserved blocks count */
	uint32_t	s_free_blocks_count_lo;	/* Free blocks count */
/*10*/	uint32_t	s_free_inodes_count;	/* Free inodes count */
	uint32_t	s_first_data_block;	/* First Data Block */
	uint32_t	s_log_block_size;	/* Block size */
	uint32_t	s_log_cluster_size;	/* Allocation cluster size */
/*20*/	uint32_t	s_blocks_per_group;	/* # Blocks per group */
	uint32_t	s_clusters_per_group;	/* # Clusters per group */
	uint32_t	s_inodes_per_group;	/* # Inodes per group */
	uint32_t	s_mtime;		/* Mount time */
/*30*/	uint32_t	s_wtime;		/* Write time */
	uint16_t	s_mnt_count;		/* Mount count */
	uint16_t	s_max_mnt_count;	/* Maximal mount count */
	uint16_t	s_magic;		/* Magic signature */
	uint16_t	s_state;		/* File system state */
	uint16_t	s_errors;		/* Behaviour when detecting errors */
	uint16_t	s_minor_rev_level;	/* minor revision level */
/*40*/	uint32_t	s_lastcheck;		/* time of last check */
	uint32_t	s_checkinterval;	/* max. time between checks */
	uint32_t	s_creator_os;		/* OS */
	uint32_t	s_rev_level;		/* Revision level */
/*50*/	uint16_t	s_def_resuid;		/* Default uid for reserved blocks */
	uint16_t	s_def_resgid;		/* Default gid for reserved blocks */
	/*
	 * These fields are for EXT4_DYNAMIC_REV superblocks only.
	 *
	 * Note: the difference between the compatible feature set and
	 * the incompatible feature set is that if there is a bit set
	 * in the incompatible feature set that the kernel doesn't
	 * know about, it should refuse to mount the filesystem.
	 *
	 * e2fsck's requirements are more strict; if it doesn't know
	 * about a feature in either the compatible or incompatible
	 * feature set, it must abort and not try to meddle with
	 * things it doesn't understand...
	 */
	uint32_t	s_first_ino;		/* First non-reserved inode */
	uint16_t  s_inode_size;		/* size of inode structure */
	uint16_t	s_block_group_nr;	/* block group # of this superblock */
	uint32_t	s_feature_compat;	/* compatible feature set */
/*60*/	uint32_t	s_feature_incompat;	/* incompatible feature set */
	uint32_t	s_feature_ro_compat;	/* readonly-compatible feature set */
/*68*/	uint8_t	s_uuid[16];		/* 128-bit uuid for volume */
/*78*/	char	s_volume_name[16];	/* volume name */
/*88*/	char	s_last_mounted[64];	/* directory where last mounted */
/*C8*/	uint32_t	s_algorithm_usage_bitmap; /* For compression */
	/*
	 * Performance hints.  Directory preallocation should only
	 * happen if the EXT4_FEATURE_COMPAT_DIR_PREALLOC flag is on.
	 */
	uint8_t	s_prealloc_blocks;	/* Nr of blocks to try to preallocate*/
	uint8_t	s_prealloc_dir_blocks;	/* Nr to preallocate for dirs */
	uint16_t	s_reserved_gdt_blocks;	/* Per group desc for online growth */
	/*
	 * Journaling support valid if EXT4_FEATURE_COMPAT_HAS_JOURNAL set.
	 */
/*D0*/	uint8_t	s_journal_uuid[16];	/* uuid of journal superblock */
/*E0*/	uint32_t	s_journal_inum;		/* inode number of journal file */
	uint32_t	s_journal_dev;		/* device number of journal file */
	uint32_t	s_last_orphan;		/* start of list of inodes to delete */
	uint32_t	s_hash_seed[4];		/* HTREE hash seed */
	uint8_t	s_def_hash_version;	/* Default hash version to use */
	uint8_t	s_jnl_backup_type;
	uint16_t  s_desc_size;		/* size of group descriptor */
/*100*/	uint32_t	s_default_mount_opts;
	uint32_t	s_first_meta_bg;	/* First metablock block group */
	uint32_t	s_mkfs_time;		/* When the filesystem was created */
	uint32_t	s_jnl_blocks[17];	/* Backup of the journal inode */
	/* 64bit support valid if EXT4_FEATURE_COMPAT_64BIT */
/*150*/	uint32_t	s_blocks_count_hi;	/* Blocks count */
	uint32_t	s_r_blocks_count_hi;	/* Reserved blocks count */
	uint32_t	s_free_blocks_count_hi;	/* Free blocks count */
	uint16_t	s_min_extra_isize;	/* All inodes have at least # bytes */
	uint16_t	s_want_extra_isize; 	/* New inodes should reserve # bytes */
	uint32_t	s_flags;		/* Miscellaneous flags */
	uint16_t  s_raid_stride;		/* RAID stride */
	uint16_t  s_mmp_update_interval;  /* # seconds to wait in MMP checking */
	uint64_t  s_mmp_block;            /* Block for multi-mount protection */
	uint32_t  s_raid_stripe_width;    /* blocks on all data disks (N*stride)*/
	uint8_t	s_log_groups_per_flex;  /* FLEX_BG group size */
	uint8_t	s_checksum_type;	/* metadata checksum algorithm used */
	uint8_t	s_encryption_level;	/* versioning level for encryption */
	uint8_t	s_reserved_pad;		/* Padding to next 32bits */
	uint64_t	s_kbytes_written;	/* nr of lifetime kilobytes written */
	uint32_t	s_snapshot_inum;	/* Inode number of active snapshot */
	uint32_t	s_snapshot_id;		/* sequential ID of active snapshot */
	uint64_t	s_snapshot_r_blocks_count; /* reserved blocks for active
					      snapshot's future use */
	uint32_t	s_snapshot_list;	/* inode number of the head of the
					   on-disk snapshot list */
	uint32_t	s_error_count;		/* number of fs errors */
	uint32_t	s_first_error_time;	/* first time an error happened */
	uint32_t	s_first_error_ino;	/* inode involved in first error */
	uint64_t	s_first_error_block;	/* block involved of first error */
	uint8_t	s_first_error_func[32];	/* function where the error happened */
	uint32_t	s_first_error_line;	/* line number where error happened */
	uint32_t	s_last_error_time;	/* most recent time of an error */
	uint32_t	s_last_error_ino;	/* inode involved in last error */
	uint32_t	s_last_error_line;	/* line number where error happened */
	uint64_t	s_last_error_block;	/* block involved of last error */
	uint8_t	s_last_error_func[32];	/* function where the error happened */
	uint8_t	s_mount_opts[64];
	uint32_t	s_usr_quota_inum;	/* inode for tracking user quota */
	uint32_t	s_grp_quota_inum;	/* inode for tracking group quota */
	uint32_t	s_overhead_clusters;	/* overhead blocks/clusters in fs */
	uint32_t	s_backup_bgs[2];	/* groups with sparse_super2 SBs */
	uint8_t	s_encrypt_algos[4];	/* Encryption algorithms in use  */
	uint8_t	s_encrypt_pw_salt[16];	/* Salt used for string2key algorithm */
	uint32_t	s_lpf_ino;		/* Location of the lost+found inode */
	uint32_t	s_prj_quota_inum;	/* inode for tracking project quota */
	uint32_t	s_checksum_seed;	/* crc32c(uuid) if csum_seed set */
	uint8_t	s_wtime_hi;
	uint8_t	s_mtime_hi;
	uint8_t	s_mkfs_time_hi;
	uint8_t	s_lastcheck_hi;
	uint8_t	s_first_error_time_hi;
	uint8_t	s_last_error_time_hi;
	uint8_t	s_first_error_errcode;
	uint8_t    s_last_error_errcode;
	uint16_t  s_encoding;		/* Filename charset encoding */
	uint16_t  s_encoding_flags;	/* Filename charset encoding flags */
	uint32_t  s_orphan_file_inum;	/* Inode for tracking orphan inodes */
	uint32_t	s_reserved[94];		/* Padding to the end of the block */
	uint32_t	s_checksum;		/* crc32c(superblock) */
};

struct ext4_group_desc {
	uint32_t bg_block_bitmap_lo;    /* Blocks bitmap block */
	uint32_t bg_inode_bitmap_lo;    /* Inodes bitmap block */
	uint32_t bg_inode_table_lo;     /* Inodes table block */
	uint16_t bg_free_blocks_count_lo;
	uint16_t bg_free_inodes_count_lo;
	uint16_t bg_used_dirs_count_lo;
	uint16_t bg_flags;              /* EXT4_BG_flags (INODE_UNINIT, etc) */
	uint32_t bg_exclude_bitmap_lo;
	uint16_t bg_block_bitmap_csum_lo;
	uint16_t bg_inode_bitmap_csum_lo;
	uint16_t bg_itable_unused_lo;
	uint16_t bg_checksum;           /* crc16(sb_uuid+group+desc), or crc32c's low half */
	uint32_t bg_block_bitmap_hi;
	uint32_t bg_inode_bitmap_hi;
	uint32_t bg_inode_table_hi;
	uint16_t bg_free_blocks_count_hi;
	uint16_t bg_free_inodes_count_hi;
	uint16_t bg_used_dirs_count_hi;
	uint16_t bg_itable_unused_hi;
	uint32_t bg_exclude_bitmap_hi;
	uint16_t bg_block_bitmap_csum_hi;
	uint16_t bg_inode_bitmap_csum_hi;
	uint32_t bg_reserved;
};

struct ext4_inode {
	uint16_t i_mode;
	uint16_t i_uid;
	uint32_t i_size_lo;
	uint32_t i_atime;
	uint32_t i_ctime;
	uint32_t i_mtime;
	uint32_t i_dtime;               /* the next orphan's number while on the orphan list */
	uint16_t i_gid;
	uint16_t i_links_count;
	uint32_t i_blocks_lo;           /* 512-byte units (EXT4_HUGE_FILE_FL: blocks) */
	uint32_t i_flags;
	uint32_t l_i_version;           /* osd1 */
	uint32_t i_block[EXT4_N_BLOCKS];/* the extent tree's root */
	uint32_t i_generation;
	uint32_t i_file_acl_lo;
	uint32_t i_size_high;
	uint32_t i_obso_faddr;
	uint16_t l_i_blocks_high;       /* osd2 (linux2) */
	uint16_t l_i_file_acl_high;
	uint16_t l_i_uid_high;
	uint16_t l_i_gid_high;
	uint16_t l_i_checksum_lo;
	uint16_t l_i_reserved;
	uint16_t i_extra_isize;
	uint16_t i_checksum_hi;
	uint32_t i_ctime_extra;
	uint32_t i_mtime_extra;
	uint32_t i_atime_extra;
	uint32_t i_crtime;
	uint32_t i_crtime_extra;
	uint32_t i_version_hi;
	uint32_t i_projid;
};

struct ext4_extent {
	uint32_t ee_block;              /* first logical block extent covers */
	uint16_t ee_len;                /* > EXT_INIT_MAX_LEN: unwritten, ee_len - that */
	uint16_t ee_start_hi;
	uint32_t ee_start_lo;
};

struct ext4_extent_idx {
	uint32_t ei_block;              /* index covers logical blocks from 'block' */
	uint32_t ei_leaf_lo;
	uint16_t ei_leaf_hi;
	uint16_t ei_unused;
};

struct ext4_extent_header {
	uint16_t eh_magic;
	uint16_t eh_entries;
	uint16_t eh_max;
	uint16_t eh_depth;
	uint32_t eh_generation;
};

struct ext4_extent_tail {
	uint32_t et_checksum;           /* crc32c(uuid+inum+igeneration+extent_block) */
};

_Static_assert(sizeof(struct ext4_super_block) == 1024, "ext4_super_block");
_Static_assert(offsetof(struct ext4_super_block, s_checksum) == 0x3fc, "s_checksum");
_Static_assert(offsetof(struct ext4_super_block, s_kbytes_written) == 0x178, "s_kbytes_written");
_Static_assert(sizeof(struct ext4_group_desc) == 64, "ext4_group_desc");
_Static_assert(offsetof(struct ext4_group_desc, bg_checksum) == 0x1e, "bg_checksum");
_Static_assert(offsetof(struct ext4_inode, i_block) == 0x28, "i_block");
_Static_assert(offsetof(struct ext4_inode, l_i_checksum_lo) == 0x7c, "l_i_checksum_lo");
_Static_assert(offsetof(struct ext4_inode, i_checksum_hi) == 0x82, "i_checksum_hi");
_Static_assert(sizeof(struct ext4_inode) == 160, "ext4_inode");
_Static_assert(sizeof(struct ext4_extent) == 12 && sizeof(struct ext4_extent_idx) == 12 &&
	       sizeof(struct ext4_extent_header) == 12, "extent tree entries");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "fields are read in host order");

#endif
