/*
 * super.c - mkfs, mount, unmount, syncfs and the raw metadata formats.
 * Mirrors fs/ext4/super.c (ext4_fill_super, ext4_put_super, ext4_sync_fs,
 * ext4_orphan_cleanup's call site) and __ext4_iget()'s reading of the raw
 * inode.  Mount rebuilds all in-memory state from device bytes only, after
 * jbd2 recovery, so a crash test sees exactly what the device kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "blkdev.h"
#include "ext4.h"

#define EXT4SIM_SB_MAGIC 0x4d533445u    /* "E4SM" */
#define EXT4SIM_INODE_MAGIC 0x444f4e49u /* "INOD" */
#define EXT4_EXT_MAGIC 0xf30au

/* mke2fs's ext2fs_default_journal_size(), capped for tiny devices. */
static uint32_t default_journal_blocks(uint32_t nr_blocks)
{
	uint32_t j;

	if (nr_blocks < 32768)
		j = 1024;
	else if (nr_blocks < 256 * 1024)
		j = 4096;
	else if (nr_blocks < 512 * 1024)
		j = 8192;
	else if (nr_blocks < 4096 * 1024)
		j = 16384;
	else
		j = 32768;
	return SIM_MAX(SIM_MIN(j, nr_blocks / 4), 64u);
}

void ext4_layout_compute(struct ext4_layout *lay, uint32_t nr_blocks, uint32_t bs)
{
	memset(lay, 0, sizeof(*lay));
	lay->nr_blocks = nr_blocks;
	lay->bitmap_start = 1;
	lay->bitmap_blocks = (nr_blocks + bs * 8 - 1) / (bs * 8);
	lay->inode_blk = lay->bitmap_start + lay->bitmap_blocks;
	lay->ext_start = lay->inode_blk + 1;
	lay->ext_blocks = EXT4_EXTENT_BLOCKS;
	lay->journal_start = lay->ext_start + lay->ext_blocks;
	lay->journal_blocks = default_journal_blocks(nr_blocks);
	lay->data_start = lay->journal_start + lay->journal_blocks;
	lay->extents_per_block = (bs - EXT4_EXT_HEADER) / EXT4_EXTENT_SIZE;
	SIM_ASSERT(lay->data_start < nr_blocks);
}

int64_t ext4_max_size(const struct ext4_fs *fs)
{
	/* ext4_max_size() for extent files: 2^32 - 1 blocks */
	return ((int64_t)1 << 32) * fs->opts.block_size - fs->opts.block_size;
}

static void write_sb(struct blkdev *bd, const struct ext4_layout *lay, uint32_t bs)
{
	uint8_t *b = sim_zalloc(bs);

	put_le32(b, EXT4SIM_SB_MAGIC);
	put_le32(b + 4, bs);
	put_le32(b + 8, lay->nr_blocks);
	put_le32(b + 12, lay->journal_start);
	put_le32(b + 16, lay->journal_blocks);
	blkdev_write_durable(bd, 0, b);
	free(b);
}

/*
 * One bitmap block, for blocks [@first, @first + 8 * @bs): metadata and
 * blocks past the device's end used, data blocks free.  A byte wholly on
 * one side of both bounds is set at once.
 */
static void mkfs_bitmap_block(uint8_t *b, uint64_t first, uint32_t bs,
			      const struct ext4_layout *lay)
{
	memset(b, 0, bs);
	for (uint32_t k = 0; k < bs * 8; k += 8) {
		uint64_t blk = first + k;

		if (blk + 8 <= lay->data_start) {
			b[k / 8] = 0xff;
			continue;
		}
		if (blk >= lay->data_start && blk + 8 <= lay->nr_blocks)
			continue;
		for (uint32_t j = 0; j < 8; j++)
			if (blk + j < lay->data_start || blk + j >= lay->nr_blocks)
				b[k / 8] = (uint8_t)(b[k / 8] | (1u << j));
	}
}

/* mkfs: superblock, bitmap with the metadata in use, empty inode, journal. */
void ext4_mkfs(struct blkdev *bd, const struct ext4_mount_opts *opts)
{
	uint32_t bs = opts->block_size;
	struct ext4_layout lay;
	uint8_t *b = sim_zalloc(bs);
	journal_t j;
	struct sim_counters c = { 0 };

	ext4_layout_compute(&lay, bd->bd_nr_blocks, bs);
	write_sb(bd, &lay, bs);
	for (uint32_t i = 0; i < lay.bitmap_blocks; i++) {
		mkfs_bitmap_block(b, (uint64_t)i * bs * 8, bs, &lay);
		blkdev_write_durable(bd, lay.bitmap_start + i, b);
	}
	memset(b, 0, bs);
	put_le32(b, EXT4SIM_INODE_MAGIC);
	blkdev_write_durable(bd, lay.inode_blk, b);
	memset(b, 0, bs);
	for (uint32_t i = 0; i < lay.ext_blocks; i++)
		blkdev_write_durable(bd, lay.ext_start + i, b);
	jbd2_journal_init(&j, bd, lay.journal_start, lay.journal_blocks, NULL, NULL, &c);
	jbd2_journal_create(&j);
	free(b);
}

void ext4_serialize_inode(struct ext4_fs *fs, uint8_t *raw)
{
	put_le32(raw, EXT4SIM_INODE_MAGIC);
	put_le64(raw + 4, (uint64_t)fs->inode.i_disksize);
	put_le32(raw + 12, fs->inode.i_flags);
	put_le32(raw + 16, fs->inode.i_orphan ? 1 : 0);
}

static int load_inode(struct ext4_fs *fs)
{
	const uint8_t *raw = fs->meta[fs->lay.inode_blk];

	if (get_le32(raw) != EXT4SIM_INODE_MAGIC) {
		snprintf(fs->s_mount_msg, sizeof(fs->s_mount_msg), "bad inode magic in block %u",
			 fs->lay.inode_blk);
		return -EUCLEAN;
	}
	fs->inode.i_disksize = (int64_t)get_le64(raw + 4);
	fs->inode.i_size = fs->inode.i_disksize;
	fs->inode.i_flags = get_le32(raw + 12);
	fs->inode.i_orphan = get_le32(raw + 16) != 0;
	return 0;
}

static int load_extents(struct ext4_fs *fs)
{
	for (uint32_t i = 0; i < fs->lay.ext_blocks; i++) {
		const uint8_t *b = fs->meta[fs->lay.ext_start + i];
		uint32_t n = get_le32(b + 4);

		if (n == 0)
			break;
		if (get_le32(b) != EXT4_EXT_MAGIC || n > fs->lay.extents_per_block) {
			snprintf(fs->s_mount_msg, sizeof(fs->s_mount_msg), "bad extent block %u",
				 fs->lay.ext_start + i);
			return -EUCLEAN;
		}
		for (uint32_t k = 0; k < n; k++) {
			const uint8_t *x = b + EXT4_EXT_HEADER + k * EXT4_EXTENT_SIZE;
			uint32_t len = get_le32(x + 4);
			bool unwritten = len > EXT_INIT_MAX_LEN;

			es_insert(&fs->inode.i_es, get_le32(x),
				  unwritten ? len - EXT_INIT_MAX_LEN : len, get_le32(x + 8),
				  unwritten ? ES_UNWRITTEN : ES_WRITTEN);
		}
	}
	return 0;
}

/*
 * How many bits from block @b on all equal @fill, counted in whole aligned
 * words (else one whole aligned byte, else 0) up to block @end: a run that
 * these bits only continue can skip them.
 */
static uint32_t bitmap_skip(const uint8_t *p, uint32_t b, uint32_t end, uint8_t fill)
{
	uint64_t w, want = fill ? UINT64_MAX : 0;
	uint32_t n = 0;

	if (b % 64 == 0)
		for (; b + n + 64 <= end; n += 64) {
			memcpy(&w, p + n / 8, sizeof(w));
			if (w != want)
				break;
		}
	if (n == 0 && b % 8 == 0 && b + 8 <= end && *p == fill)
		return 8;
	return n;
}

/*
 * The free-space map from the bitmap blocks: one range per run of free
 * blocks, in block order.  Whole words and bytes that only continue the
 * current run (or the current used stretch) are skipped.
 */
static void load_bitmap(struct ext4_fs *fs)
{
	uint32_t bpb = fs->opts.block_size * 8;
	uint64_t run = UINT64_MAX;      /* start of the current run of free blocks */

	SIM_ASSERT(bpb % 64 == 0);
	fs->free_map = bitmap_create();
	for (uint32_t b = fs->lay.data_start; b < fs->lay.nr_blocks;) {
		const uint8_t *byte = fs->meta[fs->lay.bitmap_start + b / bpb] + (b % bpb) / 8;
		uint32_t end = (uint32_t)SIM_MIN((uint64_t)fs->lay.nr_blocks,
						 ((uint64_t)b / bpb + 1) * bpb);     /* this bitmap block */
		uint32_t skip = bitmap_skip(byte, b, end, run == UINT64_MAX ? 0xff : 0x00);
		bool used = *byte & (1u << (b % 8));

		if (skip) {
			b += skip;
			continue;
		}
		if (!used && run == UINT64_MAX)
			run = b;
		if (used && run != UINT64_MAX) {
			bitmap_add_range(fs->free_map, run, b);
			run = UINT64_MAX;
		}
		b++;
	}
	if (run != UINT64_MAX)
		bitmap_add_range(fs->free_map, run, fs->lay.nr_blocks);
	fs->s_freeclusters = bitmap_cardinality(fs->free_map);
	fs->s_mb_last_block = fs->lay.data_start;
}

static int read_sb(struct ext4_fs *fs)
{
	uint8_t *b = sim_zalloc(fs->bdev->bd_block_size);
	int err = 0;

	blkdev_read(fs->bdev, 0, b);
	if (get_le32(b) != EXT4SIM_SB_MAGIC)
		snprintf(fs->s_mount_msg, sizeof(fs->s_mount_msg), "no superblock of the model's in "
			 "block 0 (magic 0x%08x)", get_le32(b));
	else if (get_le32(b + 4) != fs->opts.block_size)
		snprintf(fs->s_mount_msg, sizeof(fs->s_mount_msg), "the superblock's block size is "
			 "%u, the mount's %u", get_le32(b + 4), fs->opts.block_size);
	else if (get_le32(b + 8) != fs->bdev->bd_nr_blocks)
		snprintf(fs->s_mount_msg, sizeof(fs->s_mount_msg), "the superblock's block count "
			 "is %u, the device's %u", get_le32(b + 8), fs->bdev->bd_nr_blocks);
	if (fs->s_mount_msg[0])
		err = -EINVAL;
	free(b);
	return err;
}

/*
 * The metadata blocks below the journal, read into one allocation:
 * fs->meta[i] points at block i inside fs->meta[0]'s (every byte is read,
 * so none needs zeroing).
 */
static void load_meta(struct ext4_fs *fs)
{
	uint32_t n = fs->lay.journal_start, bs = fs->opts.block_size;
	uint8_t *all = sim_realloc_array(NULL, n, bs);

	SIM_ASSERT(n > 0);
	fs->meta = sim_zalloc(n * sizeof(*fs->meta));
	for (uint32_t i = 0; i < n; i++) {
		fs->meta[i] = all + (size_t)i * bs;
		blkdev_read(fs->bdev, i, fs->meta[i]);
	}
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
	fs->bdev = bd;
	fs->counters = c;
	ext4_layout_compute(&fs->lay, bd->bd_nr_blocks, opts->block_size);
	if ((err = read_sb(fs)) < 0)
		return err;
	jbd2_journal_init(&fs->journal, bd, fs->lay.journal_start, fs->lay.journal_blocks,
			  fs, &ext4_jbd2_ops, c);
	if ((err = jbd2_journal_load_base(&fs->journal, rinfo, base)) < 0)
		return err;
	load_meta(fs);
	load_bitmap(fs);
	es_init(&fs->inode.i_es);
	mapping_init(&fs->inode.i_mapping, opts->block_size);
	fs->inode.i_mapping.a_events = bd->bd_events;
	if ((err = load_inode(fs)) < 0 || (err = load_extents(fs)) < 0)
		return err;
	fs->inode.i_sync_tid = fs->inode.i_datasync_tid = fs->journal.j_commit_sequence;
	if (fs->inode.i_orphan)
		return ext4_orphan_cleanup(fs);
	return 0;
}

/* Drop all in-memory state (the half a crash loses). */
void ext4_free_fs(struct ext4_fs *fs)
{
	jbd2_journal_destroy(&fs->journal);
	if (fs->meta)
		free(fs->meta[0]);      /* all the blocks (load_meta) */
	free(fs->meta);
	bitmap_free(fs->free_map);
	es_destroy(&fs->inode.i_es);
	mapping_destroy(&fs->inode.i_mapping);
	free(fs->ios);
	for (uint32_t i = 0; i < fs->nr_io_ends; i++)
		free(fs->io_ends[i].ie_vecs);
	free(fs->io_ends);
	memset(fs, 0, sizeof(*fs));
}

void ext4_fs_clone(struct ext4_fs *dst, const struct ext4_fs *src, struct blkdev *bd,
		   struct sim_counters *c)
{
	uint32_t n = src->lay.journal_start, bs = src->opts.block_size;

	*dst = *src;
	dst->bdev = bd;
	dst->counters = c;
	jbd2_journal_clone(&dst->journal, &src->journal, bd, dst, c);
	dst->meta = sim_zalloc(n * sizeof(*dst->meta));
	dst->meta[0] = sim_dup_array(src->meta[0], (size_t)n * bs, (size_t)n * bs, 1);
	for (uint32_t i = 1; i < n; i++)
		dst->meta[i] = dst->meta[0] + (size_t)i * bs;
	dst->free_map = bitmap_copy(src->free_map);
	es_copy(&dst->inode.i_es, &src->inode.i_es);
	mapping_clone(&dst->inode.i_mapping, &src->inode.i_mapping);
	dst->ios = sim_dup_array(src->ios, src->nr_io_slots, src->cap_ios, sizeof(*src->ios));
	dst->io_ends = sim_dup_array(src->io_ends, src->nr_io_ends, src->cap_io_ends,
				     sizeof(*src->io_ends));
	for (uint32_t i = 0; i < dst->nr_io_ends; i++)
		dst->io_ends[i].ie_vecs = sim_dup_array(src->io_ends[i].ie_vecs,
							src->io_ends[i].ie_nr_vecs,
							src->io_ends[i].ie_nr_vecs,
							sizeof(struct ext4_io_end_vec));
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

/* Clean unmount: sync_filesystem(), then jbd2_journal_destroy(). */
void ext4_put_super(struct ext4_fs *fs)
{
	ext4_writepages(fs, 0, INT64_MAX, WB_SYNC_ALL, true);
	ext4_wait_io_range(fs, 0, INT64_MAX);
	ext4_sync_fs(fs);
	jbd2_journal_release(&fs->journal);
	ext4_free_fs(fs);
}

/* Are the bitmap-buffer bits of [pblk, pblk+len) all set? */
static bool bitmap_buffer_set(const struct ext4_fs *fs, uint32_t pblk, uint32_t len)
{
	const uint8_t *bits = fs->meta[fs->lay.bitmap_start];  /* the bitmap blocks are contiguous */
	uint32_t b = pblk, end = pblk + len;

	for (; b < end && b % 8; b++)
		if (!(bits[b / 8] & (1u << (b % 8))))
			return false;
	for (; b + 8 <= end; b += 8)
		if (bits[b / 8] != 0xff)
			return false;
	for (; b < end; b++)
		if (!(bits[b / 8] & (1u << (b % 8))))
			return false;
	return true;
}

/* Are the bitmap-buffer bits of [pblk, pblk+len) all clear? */
static bool bitmap_buffer_clear(const struct ext4_fs *fs, uint32_t pblk, uint32_t len)
{
	const uint8_t *bits = fs->meta[fs->lay.bitmap_start];

	for (uint32_t b = pblk; b < pblk + len; b++)
		if (bits[b / 8] & (1u << (b % 8)))
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
 * (2) every written/unwritten extent's blocks are data blocks, allocated in
 * the in-memory bitmap and in the bitmap buffer, and in no other extent.
 */
static void check_extents_allocated(const struct ext4_fs *fs)
{
	const struct ext4_es_tree *t = &fs->inode.i_es;
	struct extent_status *disk = sim_realloc_array(NULL, t->es_nr + 1, sizeof(*disk));
	uint32_t n = 0;
	bool sorted = true;

	for (uint32_t i = 0; i < t->es_nr; i++) {
		const struct extent_status *e = &t->es[i];

		if (e->es_state == ES_DELAYED)
			continue;
		SIM_ASSERT(e->es_pblk >= fs->lay.data_start);                   /* (2) */
		SIM_ASSERT((uint64_t)e->es_pblk + e->es_len <= fs->lay.nr_blocks); /* (2) */
		SIM_ASSERT(bitmap_range_cardinality(fs->free_map, e->es_pblk,
						    (uint64_t)e->es_pblk + e->es_len) == 0); /* (2) */
		SIM_ASSERT(bitmap_buffer_set(fs, e->es_pblk, e->es_len));       /* (2) */
		sorted = sorted && (n == 0 || disk[n - 1].es_pblk < e->es_pblk);
		disk[n++] = *e;
	}
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
	const struct address_space *m = &fs->inode.i_mapping;
	uint32_t per = PAGE_SIZE >> m->a_blkbits, pblk, len;

	for (uint32_t i = 0; i < m->a_nr; i++) {
		const struct folio *f = m->a_folios[i];

		folio_check(m, f);
		if (!(f->flags & PG_buffers))
			continue;
		for (uint32_t b = 0; b < per; b++) {
			uint32_t lblk = (uint32_t)(f->index * per + b);

			if (f->bh[b].b_state & BH_Delay)
				SIM_ASSERT(es_lookup(&fs->inode.i_es, lblk, &pblk, &len) !=
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
		SIM_ASSERT(bitmap_buffer_clear(fs, start, len));                /* jbd2 (4) */
	}
}

/*
 * The invariants of ext4.h, then those of the journal and the device:
 * everything the model documents that a step's end state shows.
 */
void ext4_check_state(const struct ext4_fs *fs)
{
	const struct ext4_inode_info *ei = &fs->inode;

	es_check(&ei->i_es);
	SIM_ASSERT(es_count(&ei->i_es, ES_DELAYED) == ei->i_reserved_data_blocks); /* (1) */
	check_extents_allocated(fs);
	check_delayed_buffers(fs);
	SIM_ASSERT(fs->journal.j_current_handle == NULL);                      /* (4) */
	jbd2_check(&fs->journal);
	check_freed_not_reused(fs);
	blkdev_check(fs->bdev);
}

const char *ext4_block_role(const struct ext4_layout *lay, uint32_t blk)
{
	SIM_ASSERT(blk < lay->nr_blocks);
	if (blk == 0)
		return "superblock";
	if (blk >= lay->bitmap_start && blk - lay->bitmap_start < lay->bitmap_blocks)
		return "block bitmap";
	if (blk == lay->inode_blk)
		return "inode table";
	if (blk >= lay->ext_start && blk - lay->ext_start < lay->ext_blocks)
		return "extent block";
	if (blk >= lay->journal_start && blk - lay->journal_start < lay->journal_blocks)
		return "journal";
	return blk >= lay->data_start ? "data" : "unused";
}
