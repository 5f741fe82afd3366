/*
 * balloc.c - block groups: their descriptors, block bitmaps and the
 * checksums metadata_csum puts on both.  Mirrors fs/ext4/balloc.c
 * (ext4_get_group_desc, ext4_init_block_bitmap, ext4_read_block_bitmap,
 * ext4_bg_has_super, ext4_bg_num_gdb), fs/ext4/bitmap.c
 * (ext4_block_bitmap_csum_set), ext4_group_desc_csum() and
 * ext4_check_descriptors() of fs/ext4/super.c, and the bitmap half of
 * ext4_mb_mark_diskspace_used() / ext4_mb_clear_bb() in fs/ext4/mballoc.c.
 *
 * Not modelled: meta_bg, sparse_super2, bigalloc (a cluster is a block),
 * the inode bitmaps (the model never allocates an inode) and the buddy
 * cache (the allocator's free map is mballoc.c's).
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "crc32c.h"
#include "ext4.h"

uint32_t ext4_group_of(const struct ext4_layout *lay, uint32_t blk)
{
	SIM_ASSERT(blk >= lay->first_data_block && blk < lay->nr_blocks);
	return (blk - lay->first_data_block) / lay->blocks_per_group;
}

uint32_t ext4_group_first_block_no(const struct ext4_layout *lay, uint32_t group)
{
	SIM_ASSERT(group < lay->groups_count);
	return lay->first_data_block + group * lay->blocks_per_group;
}

/* Blocks in @group: the last group ends with the device. */
uint32_t ext4_group_nr_blocks(const struct ext4_layout *lay, uint32_t group)
{
	uint32_t first = ext4_group_first_block_no(lay, group);

	return SIM_MIN(lay->blocks_per_group, lay->nr_blocks - first);
}

static bool power_of(uint32_t n, uint32_t base)
{
	while (n > 1 && n % base == 0)
		n /= base;
	return n == 1;
}

/* ext4_bg_has_super(): sparse_super keeps copies in groups 0, 1 and powers of 3, 5, 7. */
bool ext4_bg_has_super(const struct ext4_layout *lay, uint32_t group)
{
	if (group == 0)
		return true;
	if (!(lay->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return true;
	return group == 1 || power_of(group, 3) || power_of(group, 5) || power_of(group, 7);
}

/* ext4_bg_num_gdb() without meta_bg: the whole table where a superblock copy is. */
uint32_t ext4_bg_num_gdb(const struct ext4_layout *lay, uint32_t group)
{
	return ext4_bg_has_super(lay, group) ? lay->gdt_blocks : 0;
}

/* Where group @group's descriptor lies: its GDT block and byte offset. */
static void desc_loc(const struct ext4_layout *lay, uint32_t group, uint32_t *blk, uint32_t *off)
{
	uint32_t per = lay->block_size / lay->desc_size;

	SIM_ASSERT(group < lay->groups_count);
	*blk = lay->first_data_block + 1 + group / per;
	*off = (group % per) * lay->desc_size;
}

uint32_t ext4_group_desc_block(const struct ext4_layout *lay, uint32_t group)
{
	uint32_t blk, off;

	desc_loc(lay, group, &blk, &off);
	return blk;
}

void ext4_get_group_desc(const struct ext4_fs *fs, uint32_t group, struct ext4_group_desc *gd)
{
	uint32_t blk, off;
	const uint8_t *b;

	desc_loc(&fs->lay, group, &blk, &off);
	b = ext4_meta_peek(fs, blk);
	SIM_ASSERT(b != NULL);
	memset(gd, 0, sizeof(*gd));
	memcpy(gd, b + off, SIM_MIN(fs->lay.desc_size, (uint32_t)sizeof(*gd)));
}

/* Store @gd with its checksum (ext4_group_desc_csum_set) into the GDT buffer. */
void ext4_put_group_desc(struct ext4_fs *fs, uint32_t group, struct ext4_group_desc *gd)
{
	uint32_t blk, off;

	desc_loc(&fs->lay, group, &blk, &off);
	gd->bg_checksum = ext4_group_desc_csum(&fs->lay, group, gd);
	memcpy(ext4_meta_bh(fs, blk) + off, gd, SIM_MIN(fs->lay.desc_size, (uint32_t)sizeof(*gd)));
}

uint32_t ext4_block_bitmap(const struct ext4_fs *fs, uint32_t group)
{
	struct ext4_group_desc gd;

	ext4_get_group_desc(fs, group, &gd);
	SIM_ASSERT(fs->lay.desc_size < EXT4_MIN_DESC_SIZE_64BIT || gd.bg_block_bitmap_hi == 0);
	return gd.bg_block_bitmap_lo;
}

/*
 * ext4_group_desc_csum(): with metadata_csum the low half of crc32c over the
 * group number and the descriptor (its checksum field as zero); else 0
 * (gdt_csum, whose crc16 this would be, is refused at mount).
 */
uint16_t ext4_group_desc_csum(const struct ext4_layout *lay, uint32_t group,
			      const struct ext4_group_desc *gd)
{
	uint32_t offset = offsetof(struct ext4_group_desc, bg_checksum), le_group = group;
	uint8_t raw[sizeof(*gd)];
	uint16_t dummy = 0;

	memcpy(raw, gd, sizeof(raw));
	if (lay->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) {
		uint32_t c = crc32c(lay->csum_seed, &le_group, sizeof(le_group));

		c = crc32c(c, raw, offset);
		c = crc32c(c, &dummy, sizeof(dummy));
		if (offset + 2 < lay->desc_size)
			c = crc32c(c, raw + offset + 2, lay->desc_size - offset - 2);
		return (uint16_t)(c & 0xffff);
	}
	SIM_ASSERT(!(lay->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_GDT_CSUM));   /* refused */
	return 0;
}

/* ext4_block_bitmap_csum_set(): crc32c of the group's bitmap bytes into @gd. */
static void block_bitmap_csum_set(const struct ext4_layout *lay, struct ext4_group_desc *gd,
				  const uint8_t *bitmap)
{
	uint32_t c;

	if (!(lay->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return;
	c = crc32c(lay->csum_seed, bitmap, lay->blocks_per_group / 8);
	gd->bg_block_bitmap_csum_lo = (uint16_t)(c & 0xffff);
	if (lay->desc_size >= EXT4_MIN_DESC_SIZE_64BIT)
		gd->bg_block_bitmap_csum_hi = (uint16_t)(c >> 16);
}

static bool block_bitmap_csum_ok(const struct ext4_layout *lay, const struct ext4_group_desc *gd,
				 const uint8_t *bitmap)
{
	struct ext4_group_desc want = *gd;

	block_bitmap_csum_set(lay, &want, bitmap);
	return want.bg_block_bitmap_csum_lo == gd->bg_block_bitmap_csum_lo &&
	       want.bg_block_bitmap_csum_hi == gd->bg_block_bitmap_csum_hi;
}

static bool in_fs(const struct ext4_layout *lay, uint64_t blk, uint64_t len)
{
	return blk >= lay->first_data_block && blk + len <= lay->nr_blocks;
}

/*
 * ext4_check_descriptors(): every group's bitmaps and inode table inside the
 * device, every descriptor's checksum right; else the mount fails with
 * EUCLEAN (EFSCORRUPTED) and the reason.
 */
int ext4_check_descriptors(struct ext4_fs *fs)
{
	const struct ext4_layout *lay = &fs->lay;
	uint32_t itb = lay->inodes_per_group * lay->inode_size / lay->block_size;

	for (uint32_t g = 0; g < lay->groups_count; g++) {
		struct ext4_group_desc gd;

		ext4_get_group_desc(fs, g, &gd);
		if (gd.bg_block_bitmap_hi || gd.bg_inode_bitmap_hi || gd.bg_inode_table_hi ||
		    !in_fs(lay, gd.bg_block_bitmap_lo, 1) || !in_fs(lay, gd.bg_inode_bitmap_lo, 1) ||
		    !in_fs(lay, gd.bg_inode_table_lo, itb)) {
			fs->s_mount_error = "ext4_check_descriptors: a group's bitmap or inode table "
					    "lies outside the device";
			return -EUCLEAN;
		}
		if (ext4_group_desc_csum(lay, g, &gd) != gd.bg_checksum) {
			fs->s_mount_error = "ext4_check_descriptors: a group descriptor's checksum "
					    "fails";
			return -EUCLEAN;
		}
	}
	return 0;
}

static void set_bits(uint8_t *b, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		b[i / 8] = (uint8_t)(b[i / 8] | (1u << (i % 8)));
}

/* Mark @blk's @len blocks in @b if they lie in @group (flex_bg puts them elsewhere). */
static void mark_if_in_group(const struct ext4_layout *lay, uint8_t *b, uint32_t group,
			     uint32_t blk, uint32_t len)
{
	uint32_t first = ext4_group_first_block_no(lay, group);

	for (uint32_t i = 0; i < len; i++)
		if (blk + i >= first && blk + i - first < ext4_group_nr_blocks(lay, group))
			set_bits(b, blk + i - first, blk + i - first + 1);
}

/*
 * ext4_init_block_bitmap(): the bitmap of a BLOCK_UNINIT group, computed:
 * its superblock copy and descriptor blocks (with the reserved GDT blocks),
 * its own bitmaps and inode table where they lie in it, and the bits past
 * the group's last block (ext4_mark_bitmap_end).
 */
static void ext4_init_block_bitmap(const struct ext4_fs *fs, uint32_t group, uint8_t *b)
{
	const struct ext4_layout *lay = &fs->lay;
	uint32_t itb = lay->inodes_per_group * lay->inode_size / lay->block_size;
	struct ext4_group_desc gd;
	struct ext4_super_block es;

	memset(b, 0, lay->block_size);
	ext4_get_super(fs, &es);
	if (ext4_bg_has_super(lay, group))
		set_bits(b, 0, 1 + ext4_bg_num_gdb(lay, group) + es.s_reserved_gdt_blocks);
	ext4_get_group_desc(fs, group, &gd);
	mark_if_in_group(lay, b, group, gd.bg_block_bitmap_lo, 1);
	mark_if_in_group(lay, b, group, gd.bg_inode_bitmap_lo, 1);
	mark_if_in_group(lay, b, group, gd.bg_inode_table_lo, itb);
	set_bits(b, ext4_group_nr_blocks(lay, group), lay->block_size * 8);
}

/*
 * ext4_read_block_bitmap(): group @group's bitmap buffer, read from the
 * device or, for a BLOCK_UNINIT group, computed; NULL when its checksum
 * fails (the kernel marks the group EXT4_GROUP_INFO_BBITMAP_CORRUPT and
 * allocates elsewhere).
 */
const uint8_t *ext4_read_block_bitmap(struct ext4_fs *fs, uint32_t group)
{
	struct ext4_group_desc gd;
	uint32_t blk = ext4_block_bitmap(fs, group);
	const uint8_t *held = ext4_meta_peek(fs, blk);
	uint8_t *b;

	if (held)
		return held;
	ext4_get_group_desc(fs, group, &gd);
	if (gd.bg_flags & EXT4_BG_BLOCK_UNINIT) {
		b = ext4_meta_new(fs, blk);
		ext4_init_block_bitmap(fs, group, b);
		return b;
	}
	b = ext4_meta_get(fs, blk);
	if (!block_bitmap_csum_ok(&fs->lay, &gd, b)) {
		ext4_meta_forget(fs, blk);
		return NULL;
	}
	return b;
}

bool ext4_bitmap_bit(const struct ext4_fs *fs, uint32_t blk)
{
	uint32_t g = ext4_group_of(&fs->lay, blk), bit = blk - ext4_group_first_block_no(&fs->lay, g);
	const uint8_t *b = ext4_meta_peek(fs, ext4_block_bitmap(fs, g));

	SIM_ASSERT(b != NULL);
	return (b[bit / 8] >> (bit % 8)) & 1;
}

/* Sum of the groups' free-block counts (what ext4_commit_super stores). */
uint32_t ext4_free_blocks_count(const struct ext4_fs *fs)
{
	uint64_t n = 0;

	for (uint32_t g = 0; g < fs->lay.groups_count; g++) {
		struct ext4_group_desc gd;

		ext4_get_group_desc(fs, g, &gd);
		n += gd.bg_free_blocks_count_lo | (uint32_t)gd.bg_free_blocks_count_hi << 16;
	}
	return (uint32_t)n;
}

/*
 * Set (@used) or clear the bits of [@pblk, @pblk + @len) under @h, group by
 * group: the bitmap buffer, then the descriptor's free count, BLOCK_UNINIT
 * cleared, both checksums, and both blocks journaled, as
 * ext4_mb_mark_diskspace_used() and ext4_mb_clear_bb() do.
 */
void ext4_bitmap_dirty(struct ext4_fs *fs, handle_t *h, uint32_t pblk, uint32_t len, bool used)
{
	const struct ext4_layout *lay = &fs->lay;

	while (len > 0) {
		uint32_t g = ext4_group_of(lay, pblk), first = ext4_group_first_block_no(lay, g);
		uint32_t n = SIM_MIN(len, first + ext4_group_nr_blocks(lay, g) - pblk);
		uint32_t bblk = ext4_block_bitmap(fs, g), gblk, goff, free;
		struct ext4_group_desc gd;
		uint8_t *b;

		SIM_ASSERT(ext4_read_block_bitmap(fs, g) != NULL);
		b = ext4_meta_bh(fs, bblk);
		for (uint32_t i = pblk - first; i < pblk - first + n; i++) {
			uint8_t bit = (uint8_t)(1u << (i % 8));

			SIM_ASSERT(((b[i / 8] & bit) != 0) == !used);
			b[i / 8] = used ? (uint8_t)(b[i / 8] | bit) : (uint8_t)(b[i / 8] & ~bit);
		}
		ext4_get_group_desc(fs, g, &gd);
		free = gd.bg_free_blocks_count_lo | (uint32_t)gd.bg_free_blocks_count_hi << 16;
		free = used ? free - n : free + n;
		gd.bg_free_blocks_count_lo = (uint16_t)free;
		gd.bg_free_blocks_count_hi = (uint16_t)(free >> 16);
		gd.bg_flags = (uint16_t)(gd.bg_flags & ~EXT4_BG_BLOCK_UNINIT);
		block_bitmap_csum_set(lay, &gd, b);
		ext4_put_group_desc(fs, g, &gd);
		jbd2_journal_dirty_metadata(h, bblk);
		desc_loc(lay, g, &gblk, &goff);
		jbd2_journal_dirty_metadata(h, gblk);
		pblk += n;
		len -= n;
	}
}

/* --- what each block is: the layout's ranges --- */

static const char *const role_names[ROLE_COUNT] = {
	[ROLE_DATA] = "data", [ROLE_SUPER] = "superblock",
	[ROLE_SUPER_BACKUP] = "superblock backup", [ROLE_GDT] = "group descriptors",
	[ROLE_GDT_BACKUP] = "group descriptor backup", [ROLE_RESERVED_GDT] = "reserved GDT block",
	[ROLE_BLOCK_BITMAP] = "block bitmap", [ROLE_INODE_BITMAP] = "inode bitmap",
	[ROLE_INODE_TABLE] = "inode table", [ROLE_JOURNAL] = "journal",
	[ROLE_ROOT_DIR] = "root directory", [ROLE_LOST_FOUND] = "lost+found",
	[ROLE_RESIZE] = "resize inode", [ROLE_EXTENT_BLOCK] = "extent block",
};

/* The ranges of a layout while ext4_layout_ranges() gathers them. */
struct range_list {
	struct ext4_meta_range *rl_r;
	uint32_t rl_nr;
	uint32_t rl_cap;
};

/* Append [start, start + len) as @role, merged with the last range when they touch. */
static int add_range(struct ext4_fs *fs, struct range_list *l, uint32_t start, uint32_t len,
		     uint32_t role)
{
	struct ext4_meta_range *last = l->rl_nr ? &l->rl_r[l->rl_nr - 1] : NULL;

	if (len == 0)
		return 0;
	if (last && last->mr_role == role && last->mr_start + last->mr_len == start) {
		last->mr_len += len;
		return 0;
	}
	if (l->rl_nr == EXT4_LAYOUT_MAX_RANGES) {
		fs->s_mount_error = "the layout has more metadata ranges than the model's limit";
		return -EINVAL;
	}
	if (l->rl_nr == l->rl_cap) {
		l->rl_cap = l->rl_cap ? 2 * l->rl_cap : 32;
		l->rl_r = sim_realloc_array(l->rl_r, l->rl_cap, sizeof(*l->rl_r));
	}
	l->rl_r[l->rl_nr++] = (struct ext4_meta_range){ start, len, role };
	return 0;
}

/*
 * The process's one copy of the @nr ranges at @r: every layout with the same
 * list shares it (a few per process: one per geometry and image).  Never
 * freed; reachable from here until exit.
 */
static const struct ext4_meta_range *intern_ranges(const struct ext4_meta_range *r, uint32_t nr)
{
	static struct { const struct ext4_meta_range *r; uint32_t nr; } *set;
	static uint32_t nr_set, cap_set;
	struct ext4_meta_range *copy;

	for (uint32_t i = 0; i < nr_set; i++)
		if (set[i].nr == nr && memcmp(set[i].r, r, nr * sizeof(*r)) == 0)
			return set[i].r;
	if (nr_set == cap_set) {
		cap_set = cap_set ? 2 * cap_set : 8;
		set = sim_realloc_array(set, cap_set, sizeof(*set));
	}
	copy = sim_dup_array(r, nr, nr + 1, sizeof(*r));
	set[nr_set].r = copy;
	set[nr_set++].nr = nr;
	return copy;
}

/* Insertion sort by mr_start (the starts are distinct; the list comes nearly in order). */
static void sort_ranges(struct ext4_meta_range *r, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct ext4_meta_range v = r[i];
		uint32_t j = i;

		for (; j > 0 && r[j - 1].mr_start > v.mr_start; j--)
			r[j] = r[j - 1];
		r[j] = v;
	}
}

/* Group @g's superblock copy, descriptor table and reserved GDT blocks. */
static int group_super_ranges(struct ext4_fs *fs, struct range_list *l, uint32_t g,
			      uint32_t reserved)
{
	uint32_t first = ext4_group_first_block_no(&fs->lay, g), gdb = ext4_bg_num_gdb(&fs->lay, g);
	int err;

	if (!ext4_bg_has_super(&fs->lay, g))
		return 0;
	if ((err = add_range(fs, l, first, 1, g ? ROLE_SUPER_BACKUP : ROLE_SUPER)) < 0 ||
	    (err = add_range(fs, l, first + 1, gdb, g ? ROLE_GDT_BACKUP : ROLE_GDT)) < 0)
		return err;
	return add_range(fs, l, first + 1 + gdb, reserved, ROLE_RESERVED_GDT);
}

/* Inode @ino as the device holds it (all 0xee where the device never wrote its block). */
void ext4_read_raw_inode(const struct ext4_fs *fs, uint32_t ino, struct ext4_inode *raw)
{
	uint32_t blk, off;
	const uint8_t *b;

	ext4_inode_loc(&fs->lay, fs, ino, &blk, &off);
	b = blkdev_peek(fs->bdev, blk);
	if (b)
		memcpy(raw, b + off, sizeof(*raw));
	else
		memset(raw, BLKDEV_SENTINEL, sizeof(*raw));
}

/* A directory inode's blocks (a depth-0 tree), named as @role; the resize inode's. */
static int inode_ranges(struct ext4_fs *fs, struct range_list *l, uint32_t ino, uint32_t role)
{
	struct jbd2_extent map[EXT4_EXT_ROOT_MAX];
	struct ext4_inode raw;
	uint32_t n = 0;
	int err = 0;

	ext4_read_raw_inode(fs, ino, &raw);
	if (role == ROLE_RESIZE)
		return raw.i_block[EXT4_DIND_BLOCK] && raw.i_block[EXT4_DIND_BLOCK] < fs->lay.nr_blocks ?
		       add_range(fs, l, raw.i_block[EXT4_DIND_BLOCK], 1, role) : 0;
	if ((raw.i_flags & EXT4_EXTENTS_FL) &&
	    ext4_ext_parse_leaf(fs, (const uint8_t *)raw.i_block, EXT4_EXT_ROOT_MAX, false,
				map, &n, EXT4_EXT_ROOT_MAX) == 0)
		for (uint32_t i = 0; i < n && err == 0; i++)
			err = add_range(fs, l, map[i].je_pblk, map[i].je_len, role);
	return err;
}

/*
 * The layout's ranges, sorted: every group's superblock copy and tables,
 * bitmaps and inode table, the journal, the root directory and lost+found.
 */
int ext4_layout_ranges(struct ext4_fs *fs)
{
	struct ext4_layout *lay = &fs->lay;
	uint32_t itb = lay->inodes_per_group * lay->inode_size / lay->block_size;
	struct range_list l = { 0 };
	struct ext4_super_block es;
	int err = 0;

	ext4_get_super(fs, &es);
	for (uint32_t g = 0; g < lay->groups_count && err == 0; g++) {
		struct ext4_group_desc gd;

		ext4_get_group_desc(fs, g, &gd);
		if ((err = group_super_ranges(fs, &l, g, es.s_reserved_gdt_blocks)) == 0 &&
		    (err = add_range(fs, &l, gd.bg_block_bitmap_lo, 1, ROLE_BLOCK_BITMAP)) == 0 &&
		    (err = add_range(fs, &l, gd.bg_inode_bitmap_lo, 1, ROLE_INODE_BITMAP)) == 0)
			err = add_range(fs, &l, gd.bg_inode_table_lo, itb, ROLE_INODE_TABLE);
	}
	for (uint32_t i = 0; i < lay->nr_jmap && err == 0; i++)
		err = add_range(fs, &l, lay->jmap[i].je_pblk, lay->jmap[i].je_len, ROLE_JOURNAL);
	if (err == 0)
		err = inode_ranges(fs, &l, EXT4_ROOT_INO, ROLE_ROOT_DIR);
	if (err == 0)
		err = inode_ranges(fs, &l, EXT4_LOST_FOUND_INO, ROLE_LOST_FOUND);
	if (err == 0 && (lay->feature_compat & EXT4_FEATURE_COMPAT_RESIZE_INODE))
		err = inode_ranges(fs, &l, EXT4_RESIZE_INO, ROLE_RESIZE);
	if (err == 0) {
		sort_ranges(l.rl_r, l.rl_nr);
		lay->ranges = intern_ranges(l.rl_r, l.rl_nr);
		lay->nr_ranges = l.rl_nr;
		lay->meta_blocks = 0;
		for (uint32_t i = 0; i < l.rl_nr; i++)
			lay->meta_blocks += l.rl_r[i].mr_len;
	}
	free(l.rl_r);
	return err;
}

static const struct ext4_meta_range *find_range(const struct ext4_layout *lay, uint32_t blk)
{
	uint32_t lo = 0, hi = lay->nr_ranges;

	while (lo < hi) {       /* the last range starting at or before @blk */
		uint32_t mid = lo + (hi - lo) / 2;

		if (lay->ranges[mid].mr_start <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || blk - lay->ranges[lo - 1].mr_start >= lay->ranges[lo - 1].mr_len)
		return NULL;
	return &lay->ranges[lo - 1];
}

const char *ext4_block_role(const struct ext4_layout *lay, uint32_t blk)
{
	const struct ext4_meta_range *r;

	SIM_ASSERT(blk < lay->nr_blocks || lay->nr_blocks == 0);
	if (blk < lay->first_data_block)
		return "boot block";
	if ((r = find_range(lay, blk)))
		return role_names[r->mr_role];
	for (uint32_t i = 0; i < lay->nr_leaves_seen; i++)
		if (lay->leaves_seen[i] == blk)
			return role_names[ROLE_EXTENT_BLOCK];
	return role_names[ROLE_DATA];
}

const char *ext4_block_role_fs(const struct ext4_fs *fs, uint32_t blk)
{
	if (ext4_ext_is_leaf(fs, blk))
		return role_names[ROLE_EXTENT_BLOCK];
	if (!find_range(&fs->lay, blk) && ext4_is_dir_block(fs, blk))
		return "directory block";
	if (!find_range(&fs->lay, blk) && ext4_is_xattr_block(fs, blk))
		return "xattr block";
	return ext4_block_role(&fs->lay, blk);
}

/*
 * The blocks the model journals as metadata: the superblock's block, the
 * group descriptor blocks, the block and inode bitmaps, the inode tables,
 * the directories mke2fs made, and the in-core inodes' extent blocks,
 * directory (or slow symbolic link) blocks and xattr blocks.  Every other metadata block
 * never changes.
 */
bool ext4_is_meta_block(const struct ext4_fs *fs, uint32_t blk)
{
	const struct ext4_meta_range *r;

	if (blk == fs->lay.sb_blk || blk == fs->lay.inode_blk || ext4_ext_is_leaf(fs, blk))
		return true;
	r = find_range(&fs->lay, blk);
	if (!r)
		return ext4_is_dir_block(fs, blk) || ext4_is_xattr_block(fs, blk);
	return r->mr_role == ROLE_GDT || r->mr_role == ROLE_BLOCK_BITMAP ||
	       r->mr_role == ROLE_INODE_BITMAP || r->mr_role == ROLE_INODE_TABLE ||
	       r->mr_role == ROLE_ROOT_DIR || r->mr_role == ROLE_LOST_FOUND;
}

/* Used bits among the 64 x @n bits at @b: a word at a time. */
static uint64_t words_used(const uint8_t *b, uint32_t n)
{
	uint64_t used = 0, w;

	for (uint32_t k = 0; k < n; k++) {
		memcpy(&w, b + 8 * k, sizeof(w));
		if (w)
			used += w == UINT64_MAX ? 64 : (uint64_t)__builtin_popcountll(w);
	}
	return used;
}

#define USED_SPAN 256u  /* bytes a memcmp judges all used or all free at once */

/*
 * Used bits of group @g's bitmap buffer over the group's blocks.  Most spans
 * of a bitmap are all used or all free: each is compared whole first.
 */
static uint64_t group_used(const struct ext4_fs *fs, uint32_t g)
{
	static const uint8_t zeros[USED_SPAN];
	static uint8_t ones[USED_SPAN];
	const uint8_t *b = ext4_meta_peek(fs, ext4_block_bitmap(fs, g));
	uint32_t end = ext4_group_nr_blocks(&fs->lay, g), i = 0;
	uint64_t used = 0;

	if (!b)
		return 0;       /* a corrupt bitmap: the group is not used */
	if (!ones[0])
		memset(ones, 0xff, sizeof(ones));
	for (; i + 8 * USED_SPAN <= end; i += 8 * USED_SPAN) {
		if (!memcmp(b + i / 8, ones, USED_SPAN))
			used += 8 * USED_SPAN;
		else if (memcmp(b + i / 8, zeros, USED_SPAN))
			used += words_used(b + i / 8, USED_SPAN / 8);
	}
	used += words_used(b + i / 8, (end - i) / 64);
	for (i += (end - i) / 64 * 64; i + 8 <= end; i += 8)
		used += (uint64_t)__builtin_popcount(b[i / 8]);
	if (i < end)
		used += (uint64_t)__builtin_popcount(b[i / 8] & ((1u << (end - i)) - 1));
	return used;
}

uint64_t ext4_used_data_blocks(const struct ext4_fs *fs)
{
	uint64_t used = 0;

	for (uint32_t g = 0; g < fs->lay.groups_count; g++)
		used += group_used(fs, g);
	SIM_ASSERT(used >= fs->lay.meta_blocks);
	return used - fs->lay.meta_blocks;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The namespace's part of the journaled set: every in-core inode's
 * inode-table block and xattr block, the inode bitmaps the file system
 * holds, and the in-core directories' blocks.  Appended to @set from *@k, grown as needed.
 */
static uint32_t *journaled_ns_blocks(const struct ext4_fs *fs, uint32_t *set, uint32_t *k,
				     uint32_t *cap)
{
	for (uint32_t i = 0; i < fs->s_nr_inodes; i++) {
		const struct ext4_inode_info *ei = fs->s_inodes[i];
		const struct ext4_es_tree *t = &ei->i_es;
		uint32_t need = *k + 3 + fs->lay.groups_count;

		for (uint32_t e = 0; !S_ISREG(ei->i_mode) && e < t->es_nr; e++)
			need += t->es[e].es_state == ES_WRITTEN ? t->es[e].es_len : 0;
		if (need > *cap) {
			*cap = 2 * need;
			set = sim_realloc_array(set, *cap, sizeof(*set));
		}
		set[(*k)++] = ei->i_loc_blk;
		if (ei->i_file_acl)
			set[(*k)++] = (uint32_t)ei->i_file_acl;  /* its xattr block */
		for (uint32_t e = 0; !S_ISREG(ei->i_mode) && e < t->es_nr; e++)
			for (uint32_t b = 0; t->es[e].es_state == ES_WRITTEN && b < t->es[e].es_len;
			     b++)
				set[(*k)++] = t->es[e].es_pblk + b;
	}
	for (uint32_t g = 0; g < fs->lay.groups_count; g++) {
		struct ext4_group_desc gd;

		ext4_get_group_desc(fs, g, &gd);
		if (ext4_meta_peek(fs, gd.bg_inode_bitmap_lo))
			set[(*k)++] = gd.bg_inode_bitmap_lo;
	}
	return set;
}

uint32_t *ext4_journaled_set(const struct ext4_fs *fs, uint32_t *n)
{
	const struct ext4_layout *lay = &fs->lay;
	uint32_t cap = 2 + lay->gdt_blocks + 2 * lay->groups_count;
	uint32_t *set = sim_realloc_array(NULL, cap, sizeof(*set));
	uint32_t k = 0, u = 0;

	set[k++] = lay->sb_blk;
	set[k++] = lay->inode_blk;
	for (uint32_t i = 0; i < lay->gdt_blocks; i++)
		set[k++] = lay->first_data_block + 1 + i;
	for (uint32_t g = 0; g < lay->groups_count; g++)
		set[k++] = ext4_block_bitmap(fs, g);
	set = journaled_ns_blocks(fs, set, &k, &cap);
	qsort(set, k, sizeof(*set), cmp_u32);
	for (uint32_t i = 0; i < k; i++)
		if (u == 0 || set[u - 1] != set[i])
			set[u++] = set[i];
	*n = u;
	return set;
}

bool ext4_is_data_block(const struct ext4_fs *fs, uint32_t blk)
{
	return blk >= fs->lay.first_data_block && !find_range(&fs->lay, blk) &&
	       !ext4_ext_is_leaf(fs, blk) && !ext4_is_dir_block(fs, blk) &&
	       !ext4_is_xattr_block(fs, blk);
}
