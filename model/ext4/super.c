/*
 * super.c - mount, unmount and syncfs over ext4's real on-disk format: the
 * superblock, its features, the geometry, the metadata buffers the file
 * system holds, and the name of every block's role.  Mirrors
 * fs/ext4/super.c (ext4_fill_super, ext4_feature_set_ok, ext4_setup_super,
 * ext4_commit_super, ext4_put_super, ext4_sync_fs, ext4_get_journal_inode,
 * ext4_orphan_cleanup's call site).
 *
 * Mount rebuilds all in-memory state from device bytes only, after jbd2
 * recovery, so a crash test sees exactly what the device kept.  The device
 * starts as mke2fs made it (e2fs/); mount reads the superblock, checks the
 * features the model handles (any other is refused with its name), the
 * group descriptors, the journal inode's extents (the log's place), then
 * recovers the log, writes the superblock with needs_recovery set (as
 * ext4_setup_super does), reads the block bitmaps into the allocator's free
 * map and the file's inode and extent tree.
 *
 * Simplified, and said in docs/architecture.md: the superblock's free counts
 * are the sum of the group descriptors' at every superblock write (the
 * kernel's percpu counters agree at unmount; e2fsck recomputes them), the
 * superblock writes of mount and unmount are durable at once (a FUA write
 * with nothing else in flight), s_kbytes_written and the timestamps do not
 * move (no clock), and ext4_sample_last_mounted's s_last_mounted is not
 * written.
 */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "blkdev.h"
#include "crc32c.h"
#include "ext4.h"
#include "jbd2_disk.h"
#include "namei.h"

#define EXT4_SB_CSUM_OFF offsetof(struct ext4_super_block, s_checksum)

int64_t ext4_max_size(const struct ext4_fs *fs)
{
	/* ext4_max_size() for extent files: 2^32 - 1 blocks */
	return ((int64_t)1 << 32) * fs->opts.block_size - fs->opts.block_size;
}

/* --- the metadata buffers --- */

static uint32_t mbuf_find(const struct ext4_fs *fs, uint32_t blk)
{
	uint32_t lo = 0, hi = fs->s_nr_bufs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (fs->s_bufs[mid].mb_blocknr < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const uint8_t *ext4_meta_peek(const struct ext4_fs *fs, uint32_t blk)
{
	uint32_t i = mbuf_find(fs, blk);

	return i < fs->s_nr_bufs && fs->s_bufs[i].mb_blocknr == blk ? fs->s_bufs[i].mb_data : NULL;
}

uint8_t *ext4_meta_bh(struct ext4_fs *fs, uint32_t blk)
{
	uint32_t i = mbuf_find(fs, blk);

	SIM_ASSERT(i < fs->s_nr_bufs && fs->s_bufs[i].mb_blocknr == blk);
	return fs->s_bufs[i].mb_data;
}

/* Hold block @blk (uninitialised bytes); returns its buffer. */
static uint8_t *mbuf_add(struct ext4_fs *fs, uint32_t blk)
{
	uint32_t i = mbuf_find(fs, blk);

	SIM_ASSERT(blk < fs->bdev->bd_nr_blocks);
	SIM_ASSERT(i == fs->s_nr_bufs || fs->s_bufs[i].mb_blocknr != blk);
	if (fs->s_nr_bufs == fs->s_cap_bufs) {
		fs->s_cap_bufs = fs->s_cap_bufs ? 2 * fs->s_cap_bufs : 16;
		fs->s_bufs = sim_realloc_array(fs->s_bufs, fs->s_cap_bufs, sizeof(*fs->s_bufs));
	}
	memmove(fs->s_bufs + i + 1, fs->s_bufs + i, (fs->s_nr_bufs - i) * sizeof(*fs->s_bufs));
	fs->s_nr_bufs++;
	fs->s_bufs[i].mb_blocknr = blk;
	fs->s_bufs[i].mb_data = sim_realloc_array(NULL, 1, fs->bdev->bd_block_size);
	return fs->s_bufs[i].mb_data;
}

uint8_t *ext4_meta_get(struct ext4_fs *fs, uint32_t blk)
{
	const uint8_t *held = ext4_meta_peek(fs, blk);
	uint8_t *b;

	if (held)
		return (uint8_t *)held;
	b = mbuf_add(fs, blk);
	blkdev_read(fs->bdev, blk, b);
	return b;
}

uint8_t *ext4_meta_new(struct ext4_fs *fs, uint32_t blk)
{
	uint8_t *b = ext4_meta_peek(fs, blk) ? ext4_meta_bh(fs, blk) : mbuf_add(fs, blk);

	memset(b, 0, fs->bdev->bd_block_size);
	return b;
}

void ext4_meta_forget(struct ext4_fs *fs, uint32_t blk)
{
	uint32_t i = mbuf_find(fs, blk);

	SIM_ASSERT(i < fs->s_nr_bufs && fs->s_bufs[i].mb_blocknr == blk);
	free(fs->s_bufs[i].mb_data);
	memmove(fs->s_bufs + i, fs->s_bufs + i + 1, (fs->s_nr_bufs - i - 1) * sizeof(*fs->s_bufs));
	fs->s_nr_bufs--;
}

/* --- the superblock --- */

void ext4_get_super(const struct ext4_fs *fs, struct ext4_super_block *es)
{
	const uint8_t *b = ext4_meta_peek(fs, fs->lay.sb_blk);

	SIM_ASSERT(b != NULL);
	memcpy(es, b + fs->lay.sb_off, sizeof(*es));
}

/* ext4_superblock_csum(): crc32c of the bytes before s_checksum. */
static uint32_t ext4_superblock_csum(const struct ext4_super_block *es)
{
	return crc32c(~0u, es, EXT4_SB_CSUM_OFF);
}

/* Store @es in its buffer with its checksum (ext4_superblock_csum_set). */
void ext4_put_super_fields(struct ext4_fs *fs, const struct ext4_super_block *es)
{
	struct ext4_super_block c = *es;

	if (c.s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		c.s_checksum = ext4_superblock_csum(&c);
	memcpy(ext4_meta_bh(fs, fs->lay.sb_blk) + fs->lay.sb_off, &c, sizeof(c));
}

void ext4_handle_dirty_super(struct ext4_fs *fs, handle_t *h)
{
	struct ext4_super_block es;

	ext4_get_super(fs, &es);
	ext4_put_super_fields(fs, &es);
	jbd2_journal_dirty_metadata(h, fs->lay.sb_blk);
}

/*
 * ext4_commit_super(): the free counts from the group descriptors
 * (ext4_update_super), the checksum, and the block written in place; the
 * model makes it durable at once (REQ_FUA with nothing in flight).
 */
static void ext4_commit_super(struct ext4_fs *fs)
{
	struct ext4_super_block es;
	uint32_t free = ext4_free_blocks_count(fs);

	ext4_get_super(fs, &es);
	es.s_free_blocks_count_lo = free;
	es.s_free_blocks_count_hi = 0;
	es.s_free_inodes_count = 0;
	for (uint32_t g = 0; g < fs->lay.groups_count; g++) {
		struct ext4_group_desc gd;

		ext4_get_group_desc(fs, g, &gd);
		es.s_free_inodes_count += gd.bg_free_inodes_count_lo |
					  (uint32_t)gd.bg_free_inodes_count_hi << 16;
	}
	ext4_put_super_fields(fs, &es);
	blkdev_write_durable(fs->bdev, fs->lay.sb_blk, ext4_meta_bh(fs, fs->lay.sb_blk));
}

const char *ext4_mount_error(const struct ext4_fs *fs)
{
	return fs->s_mount_error;
}

#define COMPAT_OK (EXT4_FEATURE_COMPAT_DIR_PREALLOC | EXT4_FEATURE_COMPAT_HAS_JOURNAL | \
		   EXT4_FEATURE_COMPAT_EXT_ATTR | EXT4_FEATURE_COMPAT_RESIZE_INODE | \
		   EXT4_FEATURE_COMPAT_DIR_INDEX)
#define INCOMPAT_OK (EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_RECOVER | \
		     EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_64BIT | \
		     EXT4_FEATURE_INCOMPAT_FLEX_BG)
#define RO_COMPAT_OK (EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT4_FEATURE_RO_COMPAT_LARGE_FILE | \
		      EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_DIR_NLINK | \
		      EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)

static const struct feature_name {
	int fn_word;            /* 0 compat, 1 incompat, 2 ro_compat */
	uint32_t fn_mask;
	const char *fn_refusal;
} feature_names[] = {
	{ 0, EXT4_FEATURE_COMPAT_SPARSE_SUPER2, "feature sparse_super2 is not modelled" },
	{ 0, EXT4_FEATURE_COMPAT_FAST_COMMIT, "feature fast_commit is not modelled" },
	{ 0, EXT4_FEATURE_COMPAT_STABLE_INODES, "feature stable_inodes is not modelled" },
	{ 0, EXT4_FEATURE_COMPAT_ORPHAN_FILE, "feature orphan_file is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_COMPRESSION, "feature compression is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_JOURNAL_DEV, "feature journal_dev is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_META_BG, "feature meta_bg is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_MMP, "feature mmp is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_EA_INODE, "feature ea_inode is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_DIRDATA, "feature dirdata is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_CSUM_SEED, "feature metadata_csum_seed is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_LARGEDIR, "feature large_dir is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_INLINE_DATA, "feature inline_data is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_ENCRYPT, "feature encrypt is not modelled" },
	{ 1, EXT4_FEATURE_INCOMPAT_CASEFOLD, "feature casefold is not modelled" },
	{ 2, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, "feature uninit_bg (gdt_csum) is not modelled" },
	{ 2, EXT4_FEATURE_RO_COMPAT_QUOTA, "feature quota is not modelled" },
	{ 2, EXT4_FEATURE_RO_COMPAT_BIGALLOC, "feature bigalloc is not modelled" },
	{ 2, EXT4_FEATURE_RO_COMPAT_READONLY, "feature read-only is not modelled" },
	{ 2, EXT4_FEATURE_RO_COMPAT_PROJECT, "feature project is not modelled" },
	{ 2, EXT4_FEATURE_RO_COMPAT_VERITY, "feature verity is not modelled" },
	{ 2, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT, "feature orphan_present is not modelled" },
};

/*
 * ext4_feature_set_ok(), narrowed to what the model handles: every feature
 * outside the sets above is refused with its name (or "an unknown ...").
 */
static int ext4_feature_set_ok(struct ext4_fs *fs, const struct ext4_super_block *es)
{
	uint32_t words[3] = { es->s_feature_compat & ~COMPAT_OK,
			      es->s_feature_incompat & ~INCOMPAT_OK,
			      es->s_feature_ro_compat & ~RO_COMPAT_OK };

	for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
		if (words[feature_names[i].fn_word] & feature_names[i].fn_mask) {
			fs->s_mount_error = feature_names[i].fn_refusal;
			return -EINVAL;
		}
	if (words[0] || words[1] || words[2]) {
		fs->s_mount_error = "an unknown feature is set";
		return -EINVAL;
	}
	if (!(es->s_feature_compat & EXT4_FEATURE_COMPAT_HAS_JOURNAL) ||
	    !(es->s_feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		fs->s_mount_error = "the model needs features has_journal and extent";
		return -EINVAL;
	}
	return 0;
}

/* The geometry the superblock gives (ext4_fill_super's sbi fields). */
static int layout_from_super(struct ext4_fs *fs, const struct ext4_super_block *es)
{
	struct ext4_layout *lay = &fs->lay;
	bool bit64 = es->s_feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT;

	lay->block_size = 1024u << es->s_log_block_size;
	lay->nr_blocks = es->s_blocks_count_lo;
	lay->first_data_block = es->s_first_data_block;
	lay->blocks_per_group = es->s_blocks_per_group;
	lay->inodes_per_group = es->s_inodes_per_group;
	lay->inode_size = es->s_rev_level ? es->s_inode_size : EXT4_GOOD_OLD_INODE_SIZE;
	lay->desc_size = bit64 ? es->s_desc_size : 32;
	lay->feature_compat = es->s_feature_compat;
	lay->feature_incompat = es->s_feature_incompat;
	lay->feature_ro_compat = es->s_feature_ro_compat;
	if ((bit64 && es->s_blocks_count_hi) || lay->nr_blocks > fs->bdev->bd_nr_blocks ||
	    lay->blocks_per_group != lay->block_size * 8 || lay->inodes_per_group == 0 ||
	    lay->inode_size < 256 || lay->inode_size > EXT4_INODE_MAX_SIZE ||
	    lay->desc_size < 32 || lay->desc_size > 64 || EXT4_FILE_INO > es->s_inodes_count ||
	    lay->first_data_block != (lay->block_size == 1024)) {
		fs->s_mount_error = "the superblock's geometry is not one the model handles "
				    "(block count, blocks per group, inode or descriptor size)";
		return -EINVAL;
	}
	lay->groups_count = (lay->nr_blocks - lay->first_data_block + lay->blocks_per_group - 1) /
			    lay->blocks_per_group;
	lay->gdt_blocks = (lay->groups_count * lay->desc_size + lay->block_size - 1) /
			  lay->block_size;
	lay->data_start = lay->first_data_block;
	lay->extents_per_block = (lay->block_size - sizeof(struct ext4_extent_header)) /
				 sizeof(struct ext4_extent);
	lay->csum_seed = crc32c(~0u, es->s_uuid, sizeof(es->s_uuid));
	return 0;
}

/*
 * Read and check the superblock: its magic, block size, checksum and
 * features; then the geometry and the group descriptor table.
 */
static int read_super(struct ext4_fs *fs)
{
	struct ext4_super_block es;
	uint32_t bs = fs->opts.block_size;
	int err;

	fs->lay.sb_blk = EXT4_SB_OFFSET / bs;
	fs->lay.sb_off = EXT4_SB_OFFSET % bs;
	ext4_meta_get(fs, fs->lay.sb_blk);
	ext4_get_super(fs, &es);
	if (es.s_magic != EXT4_SUPER_MAGIC || es.s_log_block_size > 2 ||
	    (1024u << es.s_log_block_size) != bs) {
		fs->s_mount_error = "no ext4 superblock with the config's block size";
		return -EINVAL;
	}
	if ((es.s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    ext4_superblock_csum(&es) != es.s_checksum) {
		fs->s_mount_error = "the superblock's checksum fails";
		return -EBADMSG;
	}
	if ((err = ext4_feature_set_ok(fs, &es)) < 0 || (err = layout_from_super(fs, &es)) < 0)
		return err;
	for (uint32_t i = 0; i < fs->lay.gdt_blocks; i++)
		ext4_meta_get(fs, fs->lay.first_data_block + 1 + i);
	if ((err = ext4_check_descriptors(fs)) < 0)
		return err;
	ext4_inode_loc(&fs->lay, fs, EXT4_FILE_INO, &fs->lay.inode_blk, &fs->lay.inode_off);
	return 0;
}

/*
 * ext4_get_journal_inode(): inode 8's extents, the journal's blocks (a
 * depth-0 or depth-1 tree), into the layout's journal map.
 */
static int load_journal_map(struct ext4_fs *fs)
{
	struct ext4_layout *lay = &fs->lay;
	struct ext4_inode raw;
	uint32_t total = 0;

	ext4_read_raw_inode(fs, EXT4_JOURNAL_INO, &raw);
	lay->nr_jmap = 0;
	if (!(raw.i_flags & EXT4_EXTENTS_FL) ||
	    ext4_ext_parse_leaf(fs, (const uint8_t *)raw.i_block, EXT4_EXT_ROOT_MAX, false,
				lay->jmap, &lay->nr_jmap, EXT4_JOURNAL_MAX_EXTENTS) < 0) {
		fs->s_mount_error = "the journal inode's extents are not ones the model reads";
		return -EINVAL;
	}
	for (uint32_t i = 0; i < lay->nr_jmap; i++) {
		if (lay->jmap[i].je_lblk != total) {
			fs->s_mount_error = "the journal inode has a hole";
			return -EINVAL;
		}
		total += lay->jmap[i].je_len;
	}
	if (total < 1024 || (uint64_t)total * lay->block_size != raw.i_size_lo) {
		fs->s_mount_error = "the journal inode is shorter than jbd2's 1024 blocks";
		return -EINVAL;
	}
	lay->journal_blocks = total;
	return 0;
}

/*
 * Bits @b to @b + 63 of a group's bitmap @map, bit i of the word standing for
 * block @b + i; the bits from @end on (past the group's blocks) read as used.
 */
static uint64_t bitmap_word(const uint8_t *map, uint32_t b, uint32_t end)
{
	uint64_t w = 0;

	if (b + 64 <= end)
		return get_le64(map + b / 8);
	for (uint32_t i = 0; i < (end - b + 7) / 8; i++)
		w |= (uint64_t)map[b / 8 + i] << (8 * i);
	return w | ~0ull << (end - b);
}

#define SAME_SPAN 256u  /* bytes a memcmp finds all used or all free at once */

/*
 * From bit @b (a multiple of 64) on, the first whole word of @map that is
 * not all used (@used) or all free, or the last word (which may be partial):
 * the words a run only continues, skipped a span or a word at a time.
 */
static uint32_t bitmap_same(const uint8_t *map, uint32_t b, uint32_t end, bool used)
{
	static const uint8_t zeros[SAME_SPAN];
	static uint8_t ones[SAME_SPAN];
	uint64_t want = used ? ~0ull : 0;

	if (!ones[0])
		memset(ones, 0xff, sizeof(ones));
	while (b % (8 * SAME_SPAN) == 0 && b + 8 * SAME_SPAN <= end &&
	       !memcmp(map + b / 8, used ? ones : zeros, SAME_SPAN))
		b += 8 * SAME_SPAN;
	while (b + 64 <= end && get_le64(map + b / 8) == want)
		b += 64;
	return b;
}

/*
 * Group @g's free runs into the free map (a corrupt bitmap: none, as the
 * kernel skips it), a word of the bitmap at a time: an open run ends at the
 * word's next used bit, the next run starts at its next free one.
 */
static void load_group_bitmap(struct ext4_fs *fs, uint32_t g)
{
	const uint8_t *map = ext4_read_block_bitmap(fs, g);
	uint32_t first = ext4_group_first_block_no(&fs->lay, g);
	uint32_t end = ext4_group_nr_blocks(&fs->lay, g), run = UINT32_MAX;

	for (uint32_t b = 0; map && (b = bitmap_same(map, b, end, run == UINT32_MAX)) < end;
	     b += 64) {
		uint64_t used = bitmap_word(map, b, end), from = ~0ull, next;

		for (;;) {      /* from: the bits not yet looked at */
			next = (run == UINT32_MAX ? ~used : used) & from;
			if (!next)
				break;
			uint32_t i = (uint32_t)__builtin_ctzll(next);

			if (run == UINT32_MAX) {
				run = b + i;
			} else {
				bitmap_add_range(fs->free_map, first + run, first + b + i);
				run = UINT32_MAX;
			}
			from = ~0ull << i;
		}
	}
	if (run != UINT32_MAX)
		bitmap_add_range(fs->free_map, first + run, first + end);
}

/* The free-space map from every group's block bitmap, in block order. */
static void load_bitmap(struct ext4_fs *fs)
{
	fs->free_map = bitmap_create();
	for (uint32_t g = 0; g < fs->lay.groups_count; g++)
		load_group_bitmap(fs, g);
	fs->s_freeclusters = bitmap_cardinality(fs->free_map);
	fs->s_mb_last_block = fs->lay.data_start;
}

/*
 * ext4_setup_super(): the mount count, needs_recovery set while the journal
 * is in use, and the superblock written (ext4_commit_super).
 */
static void ext4_setup_super(struct ext4_fs *fs)
{
	struct ext4_super_block es;

	ext4_get_super(fs, &es);
	if ((int16_t)es.s_max_mnt_count == 0)
		es.s_max_mnt_count = 0xffff;    /* EXT4_DFL_MAX_MNT_COUNT only when 0: mke2fs's -1 stays */
	es.s_mnt_count++;
	es.s_feature_incompat |= EXT4_FEATURE_INCOMPAT_RECOVER;
	ext4_put_super_fields(fs, &es);
	ext4_commit_super(fs);
}

/* The journal: its map, recovery, and the features ext4 sets (set_journal_csum_feature_set). */
static int load_journal(struct ext4_fs *fs, struct jbd2_recovery_info *rinfo,
			const struct jbd2_recovery_base *base)
{
	uint32_t incompat = 0;
	int err;

	if ((err = load_journal_map(fs)) < 0)
		return err;
	if (jbd2_journal_init(&fs->journal, fs->bdev, fs->lay.jmap, fs->lay.nr_jmap, fs,
			      &ext4_jbd2_ops, fs->counters) < 0) {
		fs->s_mount_error = "the journal inode's blocks are not a journal jbd2 takes";
		return -EINVAL;
	}
	if ((err = jbd2_journal_load_base(&fs->journal, rinfo, base)) < 0) {
		fs->s_mount_error = "the journal does not load (jbd2_journal_load)";
		return err;
	}
	if (fs->lay.feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		incompat |= JBD2_FEATURE_INCOMPAT_64BIT;
	if (fs->lay.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V3;
	jbd2_journal_set_features(&fs->journal, 0, 0, incompat);
	return 0;
}

/*
 * ext4_fill_super(): check the superblock, recover and reset the journal,
 * read bitmap, inode and extents, then run orphan cleanup (which truncates
 * an inode left on the orphan list to its on-disk size).
 */
int ext4_fill_super(struct ext4_fs *fs, struct blkdev *bd,
		    const struct ext4_mount_opts *opts,
		    const struct ext4_semantics *sem, struct sim_counters *c,
		    struct jbd2_recovery_info *rinfo)
{
	return ext4_fill_super_base(fs, bd, opts, sem, c, rinfo, NULL);
}

int ext4_fill_super_base(struct ext4_fs *fs, struct blkdev *bd,
			 const struct ext4_mount_opts *opts,
			 const struct ext4_semantics *sem, struct sim_counters *c,
			 struct jbd2_recovery_info *rinfo,
			 const struct jbd2_recovery_base *base)
{
	int err;

	memset(fs, 0, sizeof(*fs));
	fs->opts = ext4_set_def_opts(opts, sem);
	fs->sem = *sem;
	fs->s_sem_read = EXT4_SEM_BIT(dioread_nolock_default) | EXT4_SEM_BIT(dioread_nolock_subpage);
	fs->bdev = bd;
	fs->counters = c;
	memset(rinfo, 0, sizeof(*rinfo));
	if ((err = read_super(fs)) < 0 || (err = load_journal(fs, rinfo, base)) < 0)
		return err;
	if (rinfo->nr_replayed > 0) {   /* recovery rewrote blocks: read them again */
		ext4_free_bufs_from(fs, 0);
		if ((err = read_super(fs)) < 0)
			return err;
	}
	if ((err = ext4_layout_ranges(fs)) < 0)
		return err;
	if (!opts->ro)
		ext4_setup_super(fs);
	load_bitmap(fs);
	if ((err = ext4_iget(fs)) < 0)
		return err;
	return ext4_orphan_cleanup(fs);
}

/* Drop every metadata buffer from index @from on. */
void ext4_free_bufs_from(struct ext4_fs *fs, uint32_t from)
{
	for (uint32_t i = from; i < fs->s_nr_bufs; i++)
		free(fs->s_bufs[i].mb_data);
	fs->s_nr_bufs = SIM_MIN(fs->s_nr_bufs, from);
}

/* Drop all in-memory state (the half a crash loses). */
void ext4_free_fs(struct ext4_fs *fs)
{
	jbd2_journal_destroy(&fs->journal);
	ext4_free_bufs_from(fs, 0);
	free(fs->s_bufs);
	bitmap_free(fs->free_map);
	for (uint32_t i = 0; i < fs->s_nr_inodes; i++)
		ext4_free_in_core_inode(fs->s_inodes[i]);
	free(fs->s_inodes);
	free(fs->s_ea_cache);
	free(fs->ios);
	for (uint32_t i = 0; i < fs->nr_io_ends; i++)
		free(fs->io_ends[i].ie_vecs);
	free(fs->io_ends);
	iomap_dio_drop_all(fs);
	memset(fs, 0, sizeof(*fs));
}

/*
 * ext4_alloc_inode(): a new in-core inode @ino (none held yet), its extent
 * status tree and page cache empty, its page cache recording into the
 * device's event log; kept in s_inodes, ascending by number.
 */
struct ext4_inode_info *ext4_alloc_inode(struct ext4_fs *fs, uint32_t ino)
{
	struct ext4_inode_info *ei = calloc(1, sizeof(*ei));
	uint32_t at = 0;

	SIM_ASSERT(ei && ino >= 1 && !ext4_ilookup(fs, ino));
	ei->i_ino = ino;
	ext4_inode_loc(&fs->lay, fs, ino, &ei->i_loc_blk, &ei->i_loc_off);
	es_init(&ei->i_es);
	mapping_init(&ei->i_mapping, fs->opts.block_size);
	ei->i_mapping.a_events = fs->bdev ? fs->bdev->bd_events : NULL;
	ei->i_sync_tid = ei->i_datasync_tid = fs->journal.j_commit_sequence;
	if (fs->s_nr_inodes == fs->s_cap_inodes) {
		fs->s_cap_inodes = fs->s_cap_inodes ? 2 * fs->s_cap_inodes : 8;
		fs->s_inodes = realloc(fs->s_inodes, fs->s_cap_inodes * sizeof(*fs->s_inodes));
		SIM_ASSERT(fs->s_inodes);
	}
	while (at < fs->s_nr_inodes && fs->s_inodes[at]->i_ino < ino)
		at++;
	memmove(fs->s_inodes + at + 1, fs->s_inodes + at,
		(fs->s_nr_inodes - at) * sizeof(*fs->s_inodes));
	fs->s_inodes[at] = ei;
	fs->s_nr_inodes++;
	return ei;
}

/* ilookup(): the in-core inode @ino, or NULL. */
struct ext4_inode_info *ext4_ilookup(const struct ext4_fs *fs, uint32_t ino)
{
	uint32_t lo = 0, hi = fs->s_nr_inodes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (fs->s_inodes[mid]->i_ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fs->s_nr_inodes && fs->s_inodes[lo]->i_ino == ino ? fs->s_inodes[lo] : NULL;
}

struct ext4_inode_info *ext4_set_current_inode(struct ext4_fs *fs, uint32_t ino)
{
	struct ext4_inode_info *was = fs->inode, *ei = ext4_ilookup(fs, ino);

	SIM_ASSERT(ei != NULL);
	fs->inode = ei;
	return was;
}

/* ext4_free_in_core_inode(): drop an in-core inode's memory. */
void ext4_free_in_core_inode(struct ext4_inode_info *ei)
{
	es_destroy(&ei->i_es);
	mapping_destroy(&ei->i_mapping);
	free(ei);
}

/* Remove @ei from s_inodes (evict: the inode is gone) and free it. */
void ext4_evict_in_core_inode(struct ext4_fs *fs, struct ext4_inode_info *ei)
{
	uint32_t at = 0;

	while (at < fs->s_nr_inodes && fs->s_inodes[at] != ei)
		at++;
	SIM_ASSERT(at < fs->s_nr_inodes && fs->inode != ei);
	memmove(fs->s_inodes + at, fs->s_inodes + at + 1,
		(fs->s_nr_inodes - at - 1) * sizeof(*fs->s_inodes));
	fs->s_nr_inodes--;
	ext4_free_in_core_inode(ei);
}

/* Deep copies of @src's in-core inodes into @dst, the current one mapped. */
static void clone_inodes(struct ext4_fs *dst, const struct ext4_fs *src)
{
	dst->s_inodes = malloc(SIM_MAX(src->s_cap_inodes, 1u) * sizeof(*dst->s_inodes));
	SIM_ASSERT(dst->s_inodes);
	dst->inode = NULL;
	for (uint32_t i = 0; i < src->s_nr_inodes; i++) {
		const struct ext4_inode_info *s = src->s_inodes[i];
		struct ext4_inode_info *d = malloc(sizeof(*d));

		SIM_ASSERT(d);
		*d = *s;
		es_copy(&d->i_es, &s->i_es);
		mapping_clone(&d->i_mapping, &s->i_mapping);
		dst->s_inodes[i] = d;
		if (src->inode == s)
			dst->inode = d;
	}
}

void ext4_fs_clone(struct ext4_fs *dst, const struct ext4_fs *src, struct blkdev *bd,
		   struct sim_counters *c)
{
	uint32_t bs = src->opts.block_size;

	*dst = *src;
	dst->bdev = bd;
	dst->counters = c;
	jbd2_journal_clone(&dst->journal, &src->journal, bd, dst, c);
	dst->s_bufs = sim_dup_array(src->s_bufs, src->s_nr_bufs, src->s_cap_bufs,
				    sizeof(*src->s_bufs));
	for (uint32_t i = 0; i < dst->s_nr_bufs; i++)
		dst->s_bufs[i].mb_data = sim_dup_array(src->s_bufs[i].mb_data, bs, bs, 1);
	dst->free_map = bitmap_copy(src->free_map);
	clone_inodes(dst, src);
	dst->s_ea_cache = sim_dup_array(src->s_ea_cache, src->s_nr_ea_cache, src->s_cap_ea_cache,
					sizeof(*src->s_ea_cache));
	dst->ios = sim_dup_array(src->ios, src->nr_io_slots, src->cap_ios, sizeof(*src->ios));
	dst->io_ends = sim_dup_array(src->io_ends, src->nr_io_ends, src->cap_io_ends,
				     sizeof(*src->io_ends));
	for (uint32_t i = 0; i < dst->nr_io_ends; i++)
		dst->io_ends[i].ie_vecs = sim_dup_array(src->io_ends[i].ie_vecs,
							src->io_ends[i].ie_nr_vecs,
							src->io_ends[i].ie_nr_vecs,
							sizeof(struct ext4_io_end_vec));
	SIM_ASSERT(src->s_nr_dio_done == 0);   /* reaped by the end of every step */
	dst->s_dio_done = NULL;
	dst->s_dios = src->s_nr_dios ? sim_dup_array(src->s_dios, src->s_nr_dios, src->s_nr_dios,
						     sizeof(*src->s_dios)) : NULL;
	for (uint32_t i = 0; i < dst->s_nr_dios; i++)
		dst->s_dios[i].d_seqs = sim_dup_array(src->s_dios[i].d_seqs,
						      src->s_dios[i].d_nr_seqs,
						      src->s_dios[i].d_nr_seqs, sizeof(uint64_t));
}

/*
 * ext4_sync_fs(wait=1): commit the running transaction, or flush the
 * device when the commit will not (jbd2_trans_will_send_data_barrier).
 */
int ext4_sync_fs(struct ext4_fs *fs)
{
	journal_t *j = &fs->journal;
	uint32_t target = j->j_running_transaction ? j->j_running_transaction->t_tid
						   : j->j_commit_sequence;
	bool needs_barrier = !jbd2_trans_will_send_data_barrier(j, target);

	jbd2_journal_force_commit(j);
	if (needs_barrier) {
		blkdev_flush(fs->bdev, "ext4_sync_fs");
		fs->counters->flushes++;
	}
	return 0;
}

/*
 * Clean unmount: sync_filesystem(), jbd2_journal_destroy(), then
 * needs_recovery cleared and the superblock written (ext4_put_super).
 */
/*
 * The files the process holds are closed before the unmount (the kernel
 * refuses to unmount a busy file system): an inode no name holds goes.
 */
static void ext4_close_all(struct ext4_fs *fs)
{
	for (uint32_t i = 0; i < fs->s_nr_inodes; i++) {
		struct ext4_inode_info *ei = fs->s_inodes[i];

		if (ei->i_links_count != 0 || fs->s_shutdown)
			continue;
		ei->i_open = 0;
		ext4_evict_inode(fs, ei);       /* s_inodes changes: start again */
		i = (uint32_t)-1;
	}
}

void ext4_put_super(struct ext4_fs *fs)
{
	struct ext4_super_block es;

	ext4_close_all(fs);
	ext4_writeback_inodes(fs, WB_SYNC_ALL);
	ext4_sync_fs(fs);
	jbd2_journal_release(&fs->journal);
	ext4_get_super(fs, &es);
	es.s_feature_incompat &= ~EXT4_FEATURE_INCOMPAT_RECOVER;
	ext4_put_super_fields(fs, &es);
	ext4_commit_super(fs);
	ext4_free_fs(fs);
}

/* Are the bitmap-buffer bits of [pblk, pblk+len) all @set? */
static bool bitmap_buffer_all(const struct ext4_fs *fs, uint32_t pblk, uint32_t len, bool set)
{
	for (uint32_t b = pblk; b < pblk + len; b++)
		if (ext4_bitmap_bit(fs, b) != set)
			return false;
	return true;
}

static int cmp_extent_pblk(const void *a, const void *b)
{
	uint32_t x = ((const struct extent_status *)a)->es_pblk;
	uint32_t y = ((const struct extent_status *)b)->es_pblk;

	return (x > y) - (x < y);
}

/*
 * (2) every written/unwritten extent's blocks are data blocks (no group
 * metadata, no journal, no extent block), allocated in the in-memory bitmap
 * and in the bitmap buffer, and in no other extent.
 */
/*
 * (2) for in-core inode @ei: its written and unwritten extents allocated
 * (a regular file's in data blocks, a directory's in its own), appended to
 * @disk from @n; returns the new count.
 */
static uint32_t check_inode_extents(const struct ext4_fs *fs, const struct ext4_inode_info *ei,
				    struct extent_status *disk, uint32_t n, bool *sorted)
{
	const struct ext4_es_tree *t = &ei->i_es;

	for (uint32_t i = 0; i < t->es_nr; i++) {
		const struct extent_status *e = &t->es[i];

		if (e->es_state == ES_DELAYED)
			continue;
		SIM_ASSERT((uint64_t)e->es_pblk + e->es_len <= fs->lay.nr_blocks); /* (2) */
		SIM_ASSERT(!S_ISREG(ei->i_mode) || ext4_is_data_block(fs, e->es_pblk)); /* (2) */
		SIM_ASSERT(!ext4_ext_is_leaf(fs, e->es_pblk));                      /* (2) */
		SIM_ASSERT(bitmap_range_cardinality(fs->free_map, e->es_pblk,
						    (uint64_t)e->es_pblk + e->es_len) == 0); /* (2) */
		SIM_ASSERT(bitmap_buffer_all(fs, e->es_pblk, e->es_len, true));     /* (2) */
		*sorted = *sorted && (n == 0 || disk[n - 1].es_pblk < e->es_pblk);
		disk[n++] = *e;
	}
	return n;
}

static void check_extents_allocated(const struct ext4_fs *fs)
{
	uint32_t cap = 1, n = 0;
	struct extent_status *disk;
	bool sorted = true;

	for (uint32_t k = 0; k < fs->s_nr_inodes; k++)
		cap += fs->s_inodes[k]->i_es.es_nr;
	disk = sim_realloc_array(NULL, cap, sizeof(*disk));
	for (uint32_t k = 0; k < fs->s_nr_inodes; k++)
		n = check_inode_extents(fs, fs->s_inodes[k], disk, n, &sorted);
	if (!sorted)
		qsort(disk, n, sizeof(*disk), cmp_extent_pblk);
	for (uint32_t i = 1; i < n; i++)        /* (2) owned once */
		SIM_ASSERT(disk[i - 1].es_pblk + disk[i - 1].es_len <= disk[i].es_pblk);
	free(disk);
}

/*
 * (3) every delayed buffer in the page cache lies over a delayed extent or
 * one a fallocate allocated under it: never over a hole.
 */
static void check_delayed_buffers(const struct ext4_fs *fs)
{
	const struct address_space *m = &fs->inode->i_mapping;
	uint32_t per = PAGE_SIZE >> m->a_blkbits, pblk, len;

	for (uint32_t i = 0; i < m->a_nr; i++) {
		const struct folio *f = m->a_folios[i];

		folio_check(m, f);
		if (!(f->flags & PG_buffers))
			continue;
		for (uint32_t b = 0; b < per; b++) {
			uint32_t lblk = (uint32_t)(f->index * per + b);

			if (f->bh[b].b_state & BH_Delay)
				SIM_ASSERT(es_lookup(&fs->inode->i_es, lblk, &pblk, &len) !=
					   ES_HOLE);                            /* (3) */
		}
	}
}

/*
 * jbd2.h (4): the blocks the running transaction freed stay unallocatable,
 * and unallocated, until it commits.
 */
static void check_freed_not_reused(const struct ext4_fs *fs)
{
	const transaction_t *t = fs->journal.j_running_transaction;

	for (uint32_t i = 0; t && i < t->t_nr_freed; i++) {
		uint32_t start = t->t_freed[i].start, len = t->t_freed[i].len;

		SIM_ASSERT(bitmap_range_cardinality(fs->free_map, start,
						    (uint64_t)start + len) == 0); /* jbd2 (4) */
		SIM_ASSERT(bitmap_buffer_all(fs, start, len, false));           /* jbd2 (4) */
	}
}

/*
 * (5) the buffers agree with the allocator: the superblock and descriptor
 * blocks are held, every extent block is allocated in the bitmap buffer.
 */
static void check_buffers(const struct ext4_fs *fs)
{
	SIM_ASSERT(ext4_meta_peek(fs, fs->lay.sb_blk) != NULL);               /* (5) */
	for (uint32_t i = 0; i < fs->lay.gdt_blocks; i++)
		SIM_ASSERT(ext4_meta_peek(fs, fs->lay.first_data_block + 1 + i)); /* (5) */
	for (uint32_t i = 0; i < fs->inode->i_ext_nr_leaves; i++) {
		uint32_t b = fs->inode->i_ext_leaves[i].el_pblk;

		SIM_ASSERT(ext4_meta_peek(fs, b) != NULL);                      /* (5) */
		SIM_ASSERT(bitmap_buffer_all(fs, b, 1, true));                  /* (5) */
		SIM_ASSERT(!bitmap_contains(fs->free_map, b));                  /* (5) */
	}
}

/*
 * The invariants of ext4.h, then those of the journal and the device:
 * everything the model documents that a step's end state shows.
 */
void ext4_check_state(const struct ext4_fs *fs)
{
	const struct ext4_inode_info *ei = fs->inode;

	es_check(&ei->i_es);
	SIM_ASSERT(es_count(&ei->i_es, ES_DELAYED) == ei->i_reserved_data_blocks); /* (1) */
	check_extents_allocated(fs);
	check_delayed_buffers(fs);
	SIM_ASSERT(fs->journal.j_current_handle == NULL);                      /* (4) */
	SIM_ASSERT(ei->i_rwsem_readers == 0 && !ei->i_rwsem_writer);           /* (6) */
	check_buffers(fs);
	jbd2_check(&fs->journal);
	check_freed_not_reused(fs);
	blkdev_check(fs->bdev);
}

/*
 * @blk (the superblock's block) with the fields mount and unmount write in
 * place zeroed (ext4_setup_super, ext4_commit_super: the mount count and
 * times, the free counts, needs_recovery, the state, the checksum): what a
 * journal replay must leave there, compared without what the next mount
 * rewrites anyway.
 */
void ext4_sb_journaled_bytes(const struct ext4_layout *lay, const uint8_t *blk, uint8_t *out)
{
	struct ext4_super_block es;

	memcpy(out, blk, lay->block_size);
	memcpy(&es, out + lay->sb_off, sizeof(es));
	es.s_mnt_count = 0;
	es.s_mtime = es.s_wtime = 0;
	es.s_mtime_hi = es.s_wtime_hi = 0;
	es.s_free_blocks_count_lo = es.s_free_blocks_count_hi = es.s_free_inodes_count = 0;
	es.s_kbytes_written = 0;
	es.s_state = 0;
	es.s_feature_incompat &= ~EXT4_FEATURE_INCOMPAT_RECOVER;
	es.s_checksum = 0;
	memcpy(out + lay->sb_off, &es, sizeof(es));
}
