/*
 * ialloc.c - inode allocation (fs/ext4/ialloc.c): the inode bitmaps, the
 * group descriptors' inode counts, a new inode's raw inode, and the end of
 * an inode no name holds (ext4_evict_inode, ext4_free_inode).
 *
 * ext4_new_inode takes the first free bit of the parent's group, then of
 * the next groups in order (find_group_other's linear pass); the kernel
 * spreads top-level directories by a hash of their name (find_group_orlov),
 * which places them differently only on an image of several groups.  A new
 * inode's generation is 0 (the kernel draws it at random) and its times are
 * the superblock's s_mkfs_time (the model has no clock).
 */
#include <string.h>

#include "crc32c.h"
#include "ext4.h"
#include "namei.h"
#include "xattr.h"

/* The inode bitmap block of @group (ext4_inode_bitmap()). */
static uint32_t ext4_inode_bitmap(const struct ext4_fs *fs, uint32_t group)
{
	struct ext4_group_desc gd;

	ext4_get_group_desc(fs, group, &gd);
	return gd.bg_inode_bitmap_lo;
}

/* ext4_inode_bitmap_csum_set(): crc32c of the group's inode bitmap bytes into @gd. */
static void ext4_inode_bitmap_csum_set(const struct ext4_layout *lay, struct ext4_group_desc *gd,
				       const uint8_t *bitmap)
{
	uint32_t c;

	if (!(lay->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return;
	c = crc32c(lay->csum_seed, bitmap, lay->inodes_per_group / 8);
	gd->bg_inode_bitmap_csum_lo = (uint16_t)(c & 0xffff);
	if (lay->desc_size >= EXT4_MIN_DESC_SIZE_64BIT)
		gd->bg_inode_bitmap_csum_hi = (uint16_t)(c >> 16);
}

/*
 * ext4_read_inode_bitmap(): group @g's inode bitmap, held.  A group mke2fs
 * left INODE_UNINIT reads as all free (the kernel zeroes the buffer).
 */
uint8_t *ext4_read_inode_bitmap(struct ext4_fs *fs, uint32_t g)
{
	struct ext4_group_desc gd;
	uint32_t blk = ext4_inode_bitmap(fs, g);
	uint8_t *b = (uint8_t *)ext4_meta_peek(fs, blk);

	if (b)
		return b;
	ext4_get_group_desc(fs, g, &gd);
	if (gd.bg_flags & EXT4_BG_INODE_UNINIT) {
		b = ext4_meta_new(fs, blk);
		memset(b + fs->lay.inodes_per_group / 8, 0xff,
		       fs->lay.block_size - fs->lay.inodes_per_group / 8);
		return b;
	}
	return ext4_meta_get(fs, blk);
}

bool ext4_inode_in_use(struct ext4_fs *fs, uint32_t ino)
{
	uint32_t g = (ino - 1) / fs->lay.inodes_per_group, i = (ino - 1) % fs->lay.inodes_per_group;
	const uint8_t *b;

	SIM_ASSERT(ino >= 1 && g < fs->lay.groups_count);
	b = ext4_read_inode_bitmap(fs, g);
	return (b[i / 8] >> (i % 8)) & 1;
}

/*
 * Inode @ino's bit set (@used) or cleared under @h, with the descriptor's
 * free-inode and directory counts, itable_unused, flags and checksums.
 */
static void ext4_inode_bitmap_dirty(struct ext4_fs *fs, handle_t *h, uint32_t ino, bool dir,
				    bool used)
{
	const struct ext4_layout *lay = &fs->lay;
	uint32_t g = (ino - 1) / lay->inodes_per_group, i = (ino - 1) % lay->inodes_per_group;
	uint8_t *b = ext4_read_inode_bitmap(fs, g), bit = (uint8_t)(1u << (i % 8));
	struct ext4_group_desc gd;
	uint32_t free, dirs, unused;

	SIM_ASSERT(((b[i / 8] & bit) != 0) == !used);
	b[i / 8] = used ? (uint8_t)(b[i / 8] | bit) : (uint8_t)(b[i / 8] & ~bit);
	ext4_get_group_desc(fs, g, &gd);
	free = gd.bg_free_inodes_count_lo | (uint32_t)gd.bg_free_inodes_count_hi << 16;
	dirs = gd.bg_used_dirs_count_lo | (uint32_t)gd.bg_used_dirs_count_hi << 16;
	unused = gd.bg_itable_unused_lo | (uint32_t)gd.bg_itable_unused_hi << 16;
	free = used ? free - 1 : free + 1;
	dirs = !dir ? dirs : used ? dirs + 1 : dirs - 1;
	if (used && i + 1 > lay->inodes_per_group - unused)
		unused = lay->inodes_per_group - (i + 1);
	gd.bg_free_inodes_count_lo = (uint16_t)free;
	gd.bg_free_inodes_count_hi = (uint16_t)(free >> 16);
	gd.bg_used_dirs_count_lo = (uint16_t)dirs;
	gd.bg_used_dirs_count_hi = (uint16_t)(dirs >> 16);
	gd.bg_itable_unused_lo = (uint16_t)unused;
	gd.bg_itable_unused_hi = (uint16_t)(unused >> 16);
	gd.bg_flags = (uint16_t)(gd.bg_flags & ~EXT4_BG_INODE_UNINIT);
	ext4_inode_bitmap_csum_set(lay, &gd, b);
	ext4_put_group_desc(fs, g, &gd);
	jbd2_journal_dirty_metadata(h, ext4_inode_bitmap(fs, g));
	jbd2_journal_dirty_metadata(h, ext4_group_desc_block(lay, g));
}

/* find_group_other() then find_inode_bit(): the first free inode from @parent's group on. */
static uint32_t find_free_inode(struct ext4_fs *fs, uint32_t parent_group)
{
	const struct ext4_layout *lay = &fs->lay;
	struct ext4_super_block es;

	ext4_get_super(fs, &es);
	for (uint32_t k = 0; k < lay->groups_count; k++) {
		uint32_t g = (parent_group + k) % lay->groups_count;
		const uint8_t *b = ext4_read_inode_bitmap(fs, g);

		for (uint32_t i = 0; i < lay->inodes_per_group; i++) {
			uint32_t ino = g * lay->inodes_per_group + i + 1;

			if (!((b[i / 8] >> (i % 8)) & 1) && ino >= es.s_first_ino &&
			    ino <= es.s_inodes_count)
				return ino;
		}
	}
	return 0;
}

/* The raw inode of a new inode (ext4_do_update_inode of an EXT4_STATE_NEW inode). */
static void new_raw_inode(struct ext4_fs *fs, struct ext4_inode_info *ei, uint16_t mode)
{
	uint8_t *raw = ext4_meta_get(fs, ei->i_loc_blk) + ei->i_loc_off;
	struct ext4_super_block es;
	struct ext4_inode in;

	ext4_get_super(fs, &es);
	memset(raw, 0, fs->lay.inode_size);
	memset(&in, 0, sizeof(in));
	in.i_mode = mode;
	in.i_atime = in.i_ctime = in.i_mtime = in.i_crtime = es.s_mkfs_time;
	in.i_extra_isize = es.s_want_extra_isize;
	in.i_flags = S_ISLNK(mode) ? 0 : EXT4_EXTENTS_FL;
	memcpy(raw, &in, SIM_MIN(sizeof(in), (size_t)fs->lay.inode_size));
}

int ext4_new_inode(struct ext4_fs *fs, handle_t *h, const struct ext4_inode_info *dir,
		   uint16_t mode, struct ext4_inode_info **out)
{
	uint32_t ino = find_free_inode(fs, (dir->i_ino - 1) / fs->lay.inodes_per_group);
	struct ext4_inode_info *ei;

	SIM_ASSERT(h != NULL);
	if (ino == 0)
		return -ENOSPC;
	ext4_inode_bitmap_dirty(fs, h, ino, S_ISDIR(mode), true);
	ei = ext4_alloc_inode(fs, ino);
	ei->i_mode = mode;
	ei->i_links_count = 1;
	ei->i_sync_tid = ei->i_datasync_tid = h->h_transaction->t_tid;     /* __ext4_new_inode */
	ei->i_csum_seed = crc32c(crc32c(fs->lay.csum_seed, &ino, 4), &ei->i_generation,
				 sizeof(ei->i_generation));
	new_raw_inode(fs, ei, mode);
	/* __ext4_new_inode(): fsync and fdatasync both wait for the creating transaction */
	ei->i_sync_tid = ei->i_datasync_tid = h->h_transaction->t_tid;
	*out = ei;
	return 0;
}

/*
 * ext4_free_inode(): @ei's bit cleared under @h; the in-core inode goes
 * (it must not be the current one).
 */
void ext4_free_inode(struct ext4_fs *fs, handle_t *h, struct ext4_inode_info *ei)
{
	ext4_inode_bitmap_dirty(fs, h, ei->i_ino, S_ISDIR(ei->i_mode), false);
	ext4_evict_in_core_inode(fs, ei);
}

/*
 * ext4_evict_inode() of an inode no name holds, at its last close or in
 * orphan cleanup: its page cache dropped, its blocks freed (ext4_truncate
 * to size 0), its xattr block released (ext4_xattr_delete_inode), off the
 * orphan list, i_dtime set, its bit cleared, in one handle.
 */
int ext4_evict_inode(struct ext4_fs *fs, struct ext4_inode_info *ei)
{
	static const struct ext4_size_rule isize = EXT4_SIZE_RULE("ext4_evict_inode",
		"an inode no name holds is emptied before it is freed: size 0");
	struct ext4_inode_info *was = fs->inode;
	struct ext4_super_block es;
	handle_t *h;
	int err = 0;

	SIM_ASSERT(ei->i_links_count == 0 && ei->i_open == 0);
	fs->inode = ei;
	truncate_pagecache(fs, 0);
	h = ext4_journal_start(fs, "ext4_evict_inode", HT_TRUNCATE, 16);
	if (!S_ISLNK(ei->i_mode) || !ei->i_fast_symlink) {
		i_size_write(fs, 0, &isize);
		ext4_set_i_disksize(fs, 0, &isize);
		err = ext4_truncate(fs);
	}
	ext4_xattr_delete_inode(fs, h, ei);
	ext4_orphan_del(fs, h);
	ext4_get_super(fs, &es);
	ext4_set_raw_dtime(fs, ei, es.s_mkfs_time);
	ext4_mark_inode_dirty(fs, h);
	jbd2_journal_release_jbd_inode(&fs->journal, ei->i_ino);        /* ext4_clear_inode */
	if (was == ei)
		err = err ? err : __ext4_iget(fs, EXT4_ROOT_INO, false, &was);
	fs->inode = was;
	ext4_free_inode(fs, h, ei);
	ext4_journal_stop(fs, "ext4_evict_inode", h);
	return err;
}
