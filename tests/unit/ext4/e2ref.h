/*
 * e2ref.h - the reference the on-disk tests hold the model to: what
 * e2fsprogs' libext2fs (the library of dumpe2fs, debugfs and e2fsck) reads
 * from the model's device, and the checksums it computes.
 *
 * e2ref.c alone includes libext2fs's headers: they and the model's
 * ext4_disk.h define the same names, so this interface passes plain
 * integers and byte buffers.  A handle opens the device's durable contents
 * (e2fs/e2fs_io.h) and verifies what libext2fs verifies at open (the
 * superblock's and every group descriptor's checksum) unless asked not to.
 * Every call asserts (cmocka) rather than return a libext2fs error, but for
 * the ones whose error is what a test looks at (the return value, 0 when
 * libext2fs found nothing wrong).
 */
#ifndef EXT4SIM_TEST_E2REF_H
#define EXT4SIM_TEST_E2REF_H

#include <stdbool.h>
#include <stdint.h>

struct blkdev;
struct e2ref;

/* The geometry the superblock gives, as dumpe2fs -h prints it. */
struct e2ref_geom {
	uint64_t blocks_count;
	uint32_t first_data_block, blocks_per_group, inodes_per_group;
	uint32_t inode_size, desc_size, groups;
	uint32_t gdt_blocks, reserved_gdt_blocks;       /* fs->desc_blocks, s_reserved_gdt_blocks */
	uint32_t inode_table_blocks;                    /* fs->inode_blocks_per_group */
	uint32_t feature_incompat, last_orphan;         /* s_feature_incompat, s_last_orphan */
};

/* One group's tables, as dumpe2fs's group lines print them. */
struct e2ref_group {
	uint64_t block_bitmap, inode_bitmap, inode_table;
	uint16_t flags, checksum;
};

/* A leaf extent of an inode's tree, and the tree's shape. */
struct e2ref_extent {
	uint64_t lblk, pblk;
	uint32_t len;
	bool unwritten;
};

#define E2REF_MAX_LEAVES 8u
struct e2ref_tree {
	uint32_t depth;                         /* eh_depth of the root */
	uint32_t nr_leaves;                     /* leaf blocks (depth 1) */
	uint64_t leaf_blk[E2REF_MAX_LEAVES];
	uint32_t leaf_entries[E2REF_MAX_LEAVES];
	uint32_t nr_extents;
};

/* Open @bd; *@err gets ext2fs_open's error (then NULL is returned). */
struct e2ref *e2ref_open(struct blkdev *bd, bool ignore_csum, long *err);
/* The same, checksums verified: the test fails with libext2fs's error. */
struct e2ref *e2ref_open_ok(struct blkdev *bd);
/* Close without writing anything. */
void e2ref_free(struct e2ref *r);
/* Write what libext2fs changed (bitmaps, descriptors, superblock) and close. */
void e2ref_close_write(struct e2ref *r);

void e2ref_geom(const struct e2ref *r, struct e2ref_geom *g);
void e2ref_group(const struct e2ref *r, uint32_t group, struct e2ref_group *out);
/*
 * ext2fs_super_and_bgd_loc2(): does group @group hold a superblock copy
 * (then its block and its descriptor table's first block)?
 */
bool e2ref_group_super(struct e2ref *r, uint32_t group, uint64_t *sb, uint64_t *gdt);
/* The block of the resize inode's doubly-indirect block (i_block[EXT2_DIND_BLOCK]), or 0. */
uint64_t e2ref_resize_dind(struct e2ref *r);
/* ext2fs_bmap2(): inode @ino's block @lblk; 0 for a hole. */
uint64_t e2ref_bmap(struct e2ref *r, uint32_t ino, uint64_t lblk);
/* i_size of inode @ino (ext2fs_read_inode_full, which verifies its checksum): the error. */
long e2ref_read_inode(struct e2ref *r, uint32_t ino, uint64_t *size, uint64_t *i_blocks);

/* The block bitmaps (ext2fs_read_block_bitmap, which verifies their checksums): the error. */
long e2ref_read_bitmaps(struct e2ref *r);
bool e2ref_block_in_use(const struct e2ref *r, uint64_t blk);
/* Mark or clear @blk; its group loses BLOCK_UNINIT, so that the bitmap is written. */
void e2ref_set_block(struct e2ref *r, uint64_t blk, bool used);

/* ext2fs_group_desc_csum_verify(): group @group's descriptor as the device holds it. */
bool e2ref_group_desc_csum_ok(const struct e2ref *r, uint32_t group);
/* The checksums libext2fs computes, over the model's bytes. */
uint16_t e2ref_group_desc_csum(struct e2ref *r, uint32_t group, const void *desc);
bool e2ref_block_bitmap_csum_ok(struct e2ref *r, uint32_t group, const void *desc,
				const void *bitmap);
bool e2ref_superblock_csum_ok(const struct e2ref *r, const void *sb);
/* ext2fs_superblock_csum_set() on a superblock's 1024 bytes. */
void e2ref_superblock_csum_set(const struct e2ref *r, void *sb);
bool e2ref_inode_csum_ok(const struct e2ref *r, uint32_t ino, const void *raw);
bool e2ref_extent_block_csum_ok(const struct e2ref *r, uint32_t ino, const void *block);

/*
 * Inode @ino's extent tree walked by ext2fs_extent_get(), which verifies
 * every extent block's checksum: the error; its leaf extents into @out (at
 * most @cap) and its shape into @t.
 */
long e2ref_extents(struct e2ref *r, uint32_t ino, struct e2ref_extent *out, uint32_t cap,
		   struct e2ref_tree *t);

/* ---- directories (test_dir.c) ---- */

/* A live entry as ext2fs_dir_iterate2() hands it to its callback. */
struct e2ref_dirent {
	uint32_t off, ino;
	uint8_t type, name_len;
	char name[256];                 /* NUL-terminated copy */
};

uint32_t e2ref_block_size(const struct e2ref *r);
uint32_t e2ref_inodes_count(const struct e2ref *r);
/* fs->csum_seed: crc32c(~0, s_uuid) (ext2fs_init_csum_seed). */
uint32_t e2ref_csum_seed(const struct e2ref *r);
/* i_generation of inode @ino (ext2fs_read_inode). */
uint32_t e2ref_generation(struct e2ref *r, uint32_t ino);
/* Inode @ino's logical block @lblk read as it is (no checksum check) into @buf: its block. */
uint64_t e2ref_dir_block_read(struct e2ref *r, uint32_t ino, uint64_t lblk, void *buf);
/* @buf written to block @pblk as it is (io_channel_write_blk64: no checksum set). */
void e2ref_block_write(struct e2ref *r, uint64_t pblk, const void *buf);
/* ext2fs_dir_block_csum_verify() / ext2fs_dir_block_csum_set() for directory @ino. */
bool e2ref_dir_block_csum_ok(struct e2ref *r, uint32_t ino, const void *block);
void e2ref_dir_block_csum_set(struct e2ref *r, uint32_t ino, void *block);
/*
 * ext2fs_dir_iterate2() over directory @ino (each block read and its
 * checksum verified by ext2fs_process_dir_block): the error; the live
 * entries in order into @out (at most @cap), their number into *@n.
 */
long e2ref_dir_iterate(struct e2ref *r, uint32_t ino, struct e2ref_dirent *out, uint32_t cap,
		       uint32_t *n);
/* ext2fs_lookup(): the error (EXT2_ET_FILE_NOT_FOUND: 1 is returned); *@ino. */
long e2ref_lookup(struct e2ref *r, uint32_t dir, const char *name, uint32_t *ino);
/* ext2fs_link() of @name (file type @type) to @ino in @dir: the error. */
long e2ref_link(struct e2ref *r, uint32_t dir, const char *name, uint32_t ino, uint8_t type);
/* ext2fs_unlink() of @name in @dir: the error. */
long e2ref_unlink(struct e2ref *r, uint32_t dir, const char *name);
/* ext2fs_new_dir_block(@dir_ino, @parent_ino) into @buf (no checksum set yet). */
void e2ref_new_dir_block(struct e2ref *r, uint32_t dir_ino, uint32_t parent_ino, void *buf);

/* ---- extended attributes (test_xattr.c) ---- */

/* One attribute as ext2fs_xattrs_iterate() hands it over: its whole name, its value. */
struct e2ref_xattr {
	char name[256];
	uint8_t value[4096];
	uint32_t len;
};

/*
 * ext2fs_xattrs_read() of inode @ino (the inode's area and its block, the
 * block's checksum and the entries' hashes verified): the error; the
 * attributes in libext2fs's order into @out (at most @cap), their number into *@n.
 */
long e2ref_xattrs(struct e2ref *r, uint32_t ino, struct e2ref_xattr *out, uint32_t cap,
		  uint32_t *n);
/* ext2fs_xattr_get() of @name: the error (EXT2_ET_EA_KEY_NOT_FOUND for none); its value. */
long e2ref_xattr_get(struct e2ref *r, uint32_t ino, const char *name, void *buf, size_t cap,
		     size_t *len);
/* ext2fs_xattr_set() (@value NULL: ext2fs_xattr_remove()), written back at close: the error. */
long e2ref_xattr_set(struct e2ref *r, uint32_t ino, const char *name, const void *value,
		     size_t len);
/* ext2fs_file_acl_block() of inode @ino: its xattr block, or 0. */
uint64_t e2ref_file_acl(struct e2ref *r, uint32_t ino);
/* ext2fs_read_ext_attr3() of block @blk (its checksum verified) into @buf: the error. */
long e2ref_xattr_block_read(struct e2ref *r, uint64_t blk, void *buf);
#endif
