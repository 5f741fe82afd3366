/*
 * inode.c - block mapping and the buffered write path.  Mirrors
 * fs/ext4/inode.c (ext4_map_blocks, ext4_da_get_block_prep,
 * ext4_block_write_begin, ext4_da_write_begin/end, ext4_da_do_write_end,
 * ext4_write_begin/end, ext4_journalled_write_end, ext4_block_zero_page_range,
 * ext4_zero_partial_blocks, ext4_page_mkwrite), fs/buffer.c (block_write_end,
 * __block_commit_write, folio_zero_new_buffers, block_page_mkwrite),
 * mm/filemap.c (generic_perform_write) and mm/truncate.c
 * (pagecache_isize_extended, which also write-protects the EOF folio so
 * that the next mmap store calls ext4_page_mkwrite again), as of 6.18.
 * Decisions that differ between kernels read fs->sem.
 *
 * Lock order, as in the kernel: delalloc locks the folio with no handle;
 * the non-delalloc path starts the handle first, then locks the folio.
 * Not modelled: inline data, encryption, verity, DAX, large folios, the
 * ENOSPC retry after a forced commit.
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "crc32c.h"
#include "ext4.h"

/*
 * ext4_ext_find_goal(): continue after the extent to the left; a file with
 * none starts where the last allocation ended (mballoc's locality-group
 * stream, which does not hand just-freed blocks straight back).
 */
static uint32_t ext4_ext_find_goal(const struct ext4_fs *fs, uint32_t lblk)
{
	const struct ext4_es_tree *t = &fs->inode->i_es;

	for (uint32_t i = t->es_nr; i-- > 0;) {
		const struct extent_status *e = &t->es[i];

		if (e->es_lblk > lblk || e->es_state == ES_DELAYED)
			continue;
		return e->es_pblk + (lblk - e->es_lblk);
	}
	return fs->s_mb_last_block;
}

/* Room for one more on-disk extent split (extents.c: at most four leaves). */
static bool extent_room(const struct ext4_fs *fs)
{
	return ext4_ext_has_room(fs, 2);
}

/* Allocate blocks for a hole or delayed range: ext4_ext_map_blocks(CREATE). */
static int ext4_alloc_blocks(struct ext4_fs *fs, handle_t *h, struct ext4_map_blocks *map,
			     uint32_t flags, bool delayed)
{
	enum es_state st = (flags & GET_BLOCKS_UNWRIT_EXT) ? ES_UNWRITTEN : ES_WRITTEN;
	uint32_t pblk, got;
	int err;

	if (!extent_room(fs))
		return -ENOSPC;
	err = ext4_mb_new_blocks(fs, h, ext4_ext_find_goal(fs, map->m_lblk), map->m_len,
				 delayed, &pblk, &got);
	if (err < 0)
		return err;
	es_insert(&fs->inode->i_es, map->m_lblk, got, pblk, st);
	if (fs->bdev->bd_events)
		ev_record(fs->bdev->bd_events, EV_ALLOC, "ext4_ext_map_blocks", map->m_lblk, pblk,
			  got, st == ES_UNWRITTEN);
	ext4_ext_dirty(fs, h);
	if (delayed)
		ext4_da_release_space(fs, got);        /* ext4_da_update_reserve_space */
	map->m_pblk = pblk;
	map->m_len = got;
	map->m_flags = MAP_NEW | (st == ES_UNWRITTEN ? MAP_UNWRITTEN : MAP_MAPPED);
	ext4_update_inode_fsync_trans(fs, h, st != ES_UNWRITTEN);
	return (int)got;
}

/*
 * ext4_map_blocks() tail: new written blocks go on the ordered list.  Before
 * 06bd3c36a733 (the ordered_delalloc_alloc toggle off) ext4_map_blocks
 * ordered nothing: only ext4_write_end put the inode on the list, so blocks
 * allocated by delalloc writeback or a nodelalloc page fault were not.
 */
static void ext4_map_order(struct ext4_fs *fs, handle_t *h, const struct ext4_map_blocks *map,
			   uint32_t flags)
{
	int64_t start = (int64_t)map->m_lblk << ext4_blkbits(fs);
	int64_t len = (int64_t)map->m_len << ext4_blkbits(fs);

	if (!(map->m_flags & MAP_NEW) || (map->m_flags & MAP_UNWRITTEN) ||
	    !ext4_should_order_data(fs) || !ext4_sem(fs, ordered_delalloc_alloc))
		return;
	if (flags & GET_BLOCKS_IO_SUBMIT)
		ext4_jbd2_inode_add_wait(fs, h, start, len);
	else
		ext4_jbd2_inode_add_write(fs, h, start, len);
}

/* Unwritten -> written: at I/O end (ext4_convert_unwritten_extents_endio). */
static int ext4_convert_to_initialized(struct ext4_fs *fs, handle_t *h,
				       struct ext4_map_blocks *map)
{
	es_insert(&fs->inode->i_es, map->m_lblk, map->m_len, map->m_pblk, ES_WRITTEN);
	EV_RECORD(fs->bdev->bd_events, EV_CONVERT, "ext4_convert_to_initialized", map->m_lblk,
		  map->m_len, map->m_pblk, 0);
	ext4_ext_dirty(fs, h);
	ext4_update_inode_fsync_trans(fs, h, true);
	return (int)map->m_len;
}

#define EXT4_MAX_ZEROOUT_KB 32u         /* s_extent_max_zeroout_kb's default */

/* The on-disk extent holding @lblk (the model merges extents as ext4 does). */
static uint32_t es_index_of(const struct ext4_es_tree *t, uint32_t lblk)
{
	for (uint32_t i = 0; i < t->es_nr; i++)
		if (lblk >= t->es[i].es_lblk && lblk - t->es[i].es_lblk < t->es[i].es_len)
			return i;
	SIM_ASSERT(!"no extent holds the block");
	return 0;
}

/*
 * ext4_ext_zeroout(): write zeros over @len blocks from @pblk and wait (no
 * flush).  In data=journal an unwritten block's older journalled copy must
 * not be written home over the zeros later: the kernel took it off the
 * checkpoint list when zero range wrote the range back and dropped its
 * page cache (jbd2_journal_invalidate_folio); the model drops it here.
 */
static void ext4_ext_zeroout(struct ext4_fs *fs, uint32_t pblk, uint32_t len)
{
	uint8_t *zero = sim_zalloc(fs->opts.block_size);

	for (uint32_t i = 0; i < len; i++) {
		struct bio_info bi = { .bi_func = "ext4_ext_zeroout", .bi_what = BW_ZEROOUT,
				       .bi_lblk = -1 };

		blkdev_complete(fs->bdev, blkdev_submit_bio(fs->bdev, pblk + i, zero, BIO_DATA,
							    false, &bi));
		jbd2_journal_forget_checkpoint(&fs->journal, pblk + i);
	}
	free(zero);
}

/*
 * ext4_ext_convert_to_initialized(): a buffered write (or a writeback or
 * page fault without dioread_nolock) maps part of an unwritten extent.
 * When the written neighbour on the side the range touches can take the
 * blocks (logically and physically abutting), they move to it.  Otherwise,
 * for an extent that lies inside i_disksize (or the range's end), the parts
 * of the extent after and before the range are zeroed on disk when that
 * keeps the zeroed span within s_extent_max_zeroout_kb, and converted with
 * it, instead of splitting the extent: a later write into those blocks
 * then converts nothing, and survives a crash without a commit.  Before
 * 801674f34ecf (zeroout_disksize off) the bound was i_size, so with delayed
 * writes pending past i_disksize the zeroed blocks could make a written
 * extent past the on-disk size.
 */
static int ext4_convert_buffered(struct ext4_fs *fs, handle_t *h, struct ext4_map_blocks *map)
{
	const struct ext4_es_tree *t = &fs->inode->i_es;
	uint32_t i = es_index_of(t, map->m_lblk), bits = ext4_blkbits(fs);
	const struct extent_status *ex = &t->es[i];
	uint32_t ee_block = ex->es_lblk, ee_len = ex->es_len, ee_pblk = ex->es_pblk;
	uint32_t map_len = map->m_len, allocated, max_zeroout;
	uint32_t split_lblk = map->m_lblk, split_len = map_len;
	uint64_t eof_block = ((uint64_t)(ext4_sem(fs, zeroout_disksize) ? fs->inode->i_disksize :
					 fs->inode->i_size) + fs->opts.block_size - 1) >> bits;

	SIM_ASSERT(ex->es_state == ES_UNWRITTEN && map->m_lblk + map_len <= ee_block + ee_len);
	if (map->m_lblk == ee_block && map_len < ee_len && i > 0) {
		const struct extent_status *l = &t->es[i - 1];

		if (l->es_state == ES_WRITTEN && l->es_lblk + l->es_len == ee_block &&
		    l->es_pblk + l->es_len == ee_pblk && l->es_len < EXT_INIT_MAX_LEN - map_len)
			return ext4_convert_to_initialized(fs, h, map);
	} else if (map->m_lblk + map_len == ee_block + ee_len && map_len < ee_len &&
		   i + 1 < t->es_nr) {
		const struct extent_status *r = &t->es[i + 1];

		if (r->es_state == ES_WRITTEN && ee_block + ee_len == r->es_lblk &&
		    ee_pblk + ee_len == r->es_pblk && r->es_len < EXT_INIT_MAX_LEN - map_len)
			return ext4_convert_to_initialized(fs, h, map);
	}
	if (eof_block < (uint64_t)map->m_lblk + map_len)
		eof_block = (uint64_t)map->m_lblk + map_len;
	max_zeroout = (uint64_t)ee_block + ee_len <= eof_block ?
		      EXT4_MAX_ZEROOUT_KB >> (bits - 10) : 0;
	allocated = ee_len - (map->m_lblk - ee_block);
	if (max_zeroout && allocated > split_len) {
		if (allocated <= max_zeroout) {         /* the tail of the extent */
			ext4_ext_zeroout(fs, ee_pblk + (split_lblk + split_len - ee_block),
					 allocated - split_len);
			split_len = allocated;
		}
		if (split_lblk - ee_block + split_len < max_zeroout) {     /* and its head */
			if (split_lblk != ee_block)
				ext4_ext_zeroout(fs, ee_pblk, split_lblk - ee_block);
			split_len += split_lblk - ee_block;
			split_lblk = ee_block;
		}
	}
	es_insert(&fs->inode->i_es, split_lblk, split_len, ee_pblk + (split_lblk - ee_block),
		  ES_WRITTEN);
	ext4_ext_dirty(fs, h);
	ext4_update_inode_fsync_trans(fs, h, true);
	return (int)map_len;
}

/*
 * Written -> unwritten (ext4_convert_initialized_extents, zero range): the
 * blocks stay allocated and read as zeros from now on.
 */
static int ext4_convert_to_unwritten(struct ext4_fs *fs, handle_t *h, struct ext4_map_blocks *map)
{
	SIM_ASSERT(h != NULL);
	if (!extent_room(fs))
		return -ENOSPC;
	es_insert(&fs->inode->i_es, map->m_lblk, map->m_len, map->m_pblk, ES_UNWRITTEN);
	ext4_ext_dirty(fs, h);
	ext4_update_inode_fsync_trans(fs, h, true);
	map->m_flags = MAP_UNWRITTEN;
	return (int)map->m_len;
}

/*
 * ext4_map_blocks(): look up (and with GET_BLOCKS_CREATE allocate or
 * convert) the blocks from map->m_lblk.  Returns the number of mapped blocks
 * (0 for a hole or delayed range without CREATE) or a negative errno;
 * map->m_len is trimmed to the run found.
 */
int ext4_map_blocks(struct ext4_fs *fs, handle_t *h, struct ext4_map_blocks *map,
		    uint32_t flags)
{
	uint32_t pblk, len;
	enum es_state st = es_lookup(&fs->inode->i_es, map->m_lblk, &pblk, &len);
	int ret;

	SIM_ASSERT(map->m_len > 0);
	map->m_len = SIM_MIN(map->m_len, len);
	map->m_pblk = pblk;
	map->m_flags = 0;
	if (st == ES_WRITTEN && (flags & GET_BLOCKS_CONVERT_UNWRITTEN))
		return ext4_convert_to_unwritten(fs, h, map);
	if (st == ES_WRITTEN) {
		map->m_flags = MAP_MAPPED;
		return (int)map->m_len;
	}
	if (st == ES_UNWRITTEN) {
		map->m_flags = MAP_UNWRITTEN;
		if (!(flags & GET_BLOCKS_CREATE) || (flags & GET_BLOCKS_UNWRIT_EXT))
			return (int)map->m_len;
		SIM_ASSERT(h != NULL);
		if (!extent_room(fs))
			return -ENOSPC;
		ret = (flags & GET_BLOCKS_CONVERT) ? ext4_convert_to_initialized(fs, h, map) :
						     ext4_convert_buffered(fs, h, map);
		map->m_flags = MAP_MAPPED | ((flags & GET_BLOCKS_CONVERT) ? 0 : MAP_NEW);
		ext4_map_order(fs, h, map, flags);
		return ret;
	}
	if (st == ES_DELAYED)
		map->m_flags = MAP_DELAYED;
	if (!(flags & GET_BLOCKS_CREATE))
		return 0;
	SIM_ASSERT(h != NULL);
	ret = ext4_alloc_blocks(fs, h, map, flags, st == ES_DELAYED);
	if (ret > 0)
		ext4_map_order(fs, h, map, flags);
	return ret;
}

/* map_bh() plus ext4_update_bh_state() */
static void map_bh(struct buffer_head *bh, const struct ext4_map_blocks *map)
{
	bh->b_state |= BH_Mapped;
	bh->b_blocknr = map->m_pblk;
	if (map->m_flags & MAP_NEW)
		bh->b_state |= BH_New;
	if (map->m_flags & MAP_UNWRITTEN)
		bh->b_state |= BH_Unwritten;
}

/*
 * ext4_da_get_block_prep() via ext4_da_map_blocks(): an existing block maps
 * the buffer; a hole becomes a delayed extent with a reservation; a delayed
 * buffer is mapped to no block and marked new.
 */
static int ext4_da_get_block_prep(struct ext4_fs *fs, struct buffer_head *bh, uint32_t lblk)
{
	struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = 1 };
	int ret = ext4_map_blocks(fs, NULL, &map, 0);

	if (ret > 0) {
		map_bh(bh, &map);
		if (bh->b_state & BH_Unwritten)
			bh->b_state |= BH_New | BH_Mapped;
		return 0;
	}
	if (!(map.m_flags & MAP_DELAYED)) {             /* hole */
		if ((ret = ext4_da_reserve_space(fs)) < 0)
			return ret;
		es_insert(&fs->inode->i_es, lblk, 1, 0, ES_DELAYED);
	}
	bh->b_state |= BH_Mapped | BH_New | BH_Delay;
	bh->b_blocknr = 0;
	return 0;
}

/* ext4_get_block(create=1): allocate inside the write handle. */
static int ext4_get_block_create(struct ext4_fs *fs, handle_t *h, struct buffer_head *bh,
				 uint32_t lblk)
{
	struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = 1 };
	int ret = ext4_map_blocks(fs, h, &map, GET_BLOCKS_CREATE);

	if (ret < 0)
		return ret;
	SIM_ASSERT(ret == 1);
	map_bh(bh, &map);
	return 0;
}

/*
 * ext4_get_block_unwritten(): the nodelalloc get_block with dioread_nolock
 * (EXT4_GET_BLOCKS_CREATE_UNWRIT_EXT): a hole becomes an unwritten extent,
 * converted when its I/O completes; an unwritten block maps as it is.
 * Since 2cd8bdb5efc1 (6.7) an unwritten buffer is also marked new, so
 * that write_begin zeroes the parts of it the write does not cover.
 */
static int ext4_get_block_unwritten(struct ext4_fs *fs, handle_t *h, struct buffer_head *bh,
				    uint32_t lblk)
{
	struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = 1 };
	int ret = ext4_map_blocks(fs, h, &map, GET_BLOCKS_CREATE | GET_BLOCKS_UNWRIT_EXT);

	if (ret < 0)
		return ret;
	SIM_ASSERT(ret == 1);
	map_bh(bh, &map);
	if (ext4_sem(fs, get_block_unwritten_new) && (bh->b_state & BH_Unwritten))
		bh->b_state |= BH_New;
	return 0;
}

/*
 * The get_block of a write or page fault: delalloc's without a handle;
 * with one, ext4_get_block_unwritten under dioread_nolock (the nodelalloc
 * fallback of a delalloc mount), else ext4_get_block.
 */
static int write_get_block(struct ext4_fs *fs, handle_t *h, struct buffer_head *bh,
			   uint32_t lblk)
{
	if (!h)
		return ext4_da_get_block_prep(fs, bh, lblk);
	if (ext4_should_dioread_nolock(fs))
		return ext4_get_block_unwritten(fs, h, bh, lblk);
	return ext4_get_block_create(fs, h, bh, lblk);
}

/* The absolute byte range of buffer i of folio f. */
static int64_t bh_pos(const struct ext4_fs *fs, const struct folio *f, unsigned i)
{
	return ((int64_t)f->index << PAGE_SHIFT) + ((int64_t)i << ext4_blkbits(fs));
}

static uint32_t bh_lblk(const struct ext4_fs *fs, const struct folio *f, unsigned i)
{
	return (uint32_t)(bh_pos(fs, f, i) >> ext4_blkbits(fs));
}

/*
 * Dirty a buffer the write path zeroed or filled: in data=journal it joins
 * the running transaction (ext4_journalled_zero_new_buffers), otherwise
 * mark_buffer_dirty().
 */
static void ext4_dirty_buffer(struct ext4_fs *fs, struct folio *f, unsigned i)
{
	handle_t *h = ext4_journal_current_handle(fs);

	if (!ext4_should_journal_data(fs) || !h) {
		mark_buffer_dirty(f, i);
		return;
	}
	f->bh[i].b_state |= BH_JBDDirty;
	jbd2_journal_dirty_data(h, f->bh[i].b_blocknr, fs->inode->i_ino, bh_lblk(fs, f, i));
	folio_mark_dirty(f);
}

/* One buffer of ext4_block_write_begin(); *need_read asks for a read. */
static int write_begin_buffer(struct ext4_fs *fs, handle_t *h, struct folio *f, unsigned i,
			      uint32_t from, uint32_t to, bool *need_read)
{
	uint32_t bs = fs->opts.block_size, start = i * bs, end = start + bs;
	struct buffer_head *bh = &f->bh[i];
	int err;

	bh->b_state &= (uint16_t)~BH_New;
	if (!(bh->b_state & BH_Mapped)) {
		err = write_get_block(fs, h, bh, bh_lblk(fs, f, i));
		if (err < 0)
			return err;
		if (bh->b_state & BH_New) {
			if (f->flags & PG_uptodate) {
				bh->b_state &= (uint16_t)~BH_New;
				bh->b_state |= BH_Uptodate;
				ext4_dirty_buffer(fs, f, i);
				return 0;
			}
			if (end > to)
				folio_zero_segment(f, SIM_MAX(to, start), end);
			if (start < from)
				folio_zero_segment(f, start, SIM_MIN(from, end));
			return 0;
		}
	}
	if (f->flags & PG_uptodate) {
		bh->b_state |= BH_Uptodate;
		return 0;
	}
	if (!(bh->b_state & (BH_Uptodate | BH_Delay | BH_Unwritten)) &&
	    (start < from || end > to))
		*need_read = true;
	return 0;
}

/* folio_zero_new_buffers(): a failed or short write zeroes its new buffers. */
static void folio_zero_new_buffers(struct ext4_fs *fs, struct folio *f, uint32_t from,
				   uint32_t to)
{
	uint32_t bs = fs->opts.block_size;

	for (unsigned i = 0; i < folio_nr_buffers(&fs->inode->i_mapping); i++) {
		uint32_t start = i * bs, end = start + bs;
		struct buffer_head *bh = &f->bh[i];

		if (!(bh->b_state & BH_New) || end <= from || start >= to)
			continue;
		if (!(f->flags & PG_uptodate)) {
			folio_zero_segment(f, SIM_MAX(from, start), SIM_MIN(to, end));
			bh->b_state |= BH_Uptodate;
		}
		bh->b_state &= (uint16_t)~BH_New;
		ext4_dirty_buffer(fs, f, i);
	}
}

/*
 * ext4_block_write_begin(): map every buffer the write touches (delalloc:
 * reserve; otherwise allocate under @h), zero the unwritten parts of new
 * blocks, and read partly-overwritten blocks that are on disk.
 */
static int ext4_block_write_begin(struct ext4_fs *fs, handle_t *h, struct folio *f,
				  uint32_t from, uint32_t to)
{
	uint32_t bs = fs->opts.block_size;
	bool need_read[SIM_BLOCKS_PER_PAGE_MAX] = { false };
	int err = 0;

	SIM_ASSERT(from < to);
	SIM_ASSERT(to <= PAGE_SIZE);
	create_empty_buffers(&fs->inode->i_mapping, f);
	for (unsigned i = 0; i < folio_nr_buffers(&fs->inode->i_mapping); i++) {
		uint32_t start = i * bs, end = start + bs;

		if (end <= from || start >= to) {
			if (f->flags & PG_uptodate)
				f->bh[i].b_state |= BH_Uptodate;
			continue;
		}
		if ((err = write_begin_buffer(fs, h, f, i, from, to, &need_read[i])) < 0)
			break;
	}
	for (unsigned i = 0; err == 0 && i < folio_nr_buffers(&fs->inode->i_mapping); i++)
		if (need_read[i])
			err = ext4_read_bh(fs, f, i);
	if (err < 0)
		folio_zero_new_buffers(fs, f, from, to);
	return err;
}

/* __block_commit_write(): written buffers uptodate and dirty, new cleared. */
static void block_commit_write(struct ext4_fs *fs, struct folio *f, uint32_t from, uint32_t to)
{
	uint32_t bs = fs->opts.block_size;
	bool partial = false;

	for (unsigned i = 0; i < folio_nr_buffers(&fs->inode->i_mapping); i++) {
		uint32_t start = i * bs, end = start + bs;
		struct buffer_head *bh = &f->bh[i];

		if (end <= from || start >= to) {
			if (!(bh->b_state & BH_Uptodate))
				partial = true;
		} else {
			bh->b_state |= BH_Uptodate;
			if (!ext4_should_journal_data(fs))
				mark_buffer_dirty(f, i);
		}
		bh->b_state &= (uint16_t)~BH_New;
	}
	if (!partial)
		f->flags |= PG_uptodate;
}

/* block_write_end(): a short copy into a non-uptodate folio counts as 0. */
static uint32_t block_write_end(struct ext4_fs *fs, int64_t pos, uint32_t len,
				uint32_t copied, struct folio *f)
{
	uint32_t start = (uint32_t)(pos & (PAGE_SIZE - 1));

	if (copied < len) {
		if (!(f->flags & PG_uptodate))
			copied = 0;
		folio_zero_new_buffers(fs, f, start + copied, start + len);
	}
	block_commit_write(fs, f, start, start + copied);
	return copied;
}

bool ext4_update_inode_size(struct ext4_fs *fs, int64_t newsize,
			    const struct ext4_size_rule *isize,
			    const struct ext4_size_rule *disksize)
{
	bool changed = false;

	if (newsize > fs->inode->i_size) {
		i_size_write(fs, newsize, isize);
		changed = true;
	}
	if (newsize > fs->inode->i_disksize) {
		ext4_update_i_disksize(fs, newsize, disksize);
		changed = true;
	}
	return changed;
}

void ext4_update_i_disksize(struct ext4_fs *fs, int64_t newsize,
			    const struct ext4_size_rule *rule)
{
	fs->counters->update_i_disksize_calls++;
	if (newsize > fs->inode->i_disksize)
		ext4_set_i_disksize(fs, newsize, rule);
}

void i_size_write(struct ext4_fs *fs, int64_t newsize, const struct ext4_size_rule *rule)
{
	SIM_ASSERT(newsize >= 0);
	SIM_ASSERT(rule && rule->sr_func && rule->sr_rule);
	if (fs->bdev->bd_events && newsize != fs->inode->i_size)
		ev_record_size(fs->bdev->bd_events, EV_I_SIZE, rule->sr_func, rule,
			       fs->inode->i_size, newsize);
	fs->inode->i_size = newsize;
}

void ext4_set_i_disksize(struct ext4_fs *fs, int64_t newsize, const struct ext4_size_rule *rule)
{
	SIM_ASSERT(newsize >= 0);
	SIM_ASSERT(rule && rule->sr_func && rule->sr_rule);
	if (fs->bdev->bd_events && newsize != fs->inode->i_disksize)
		ev_record_size(fs->bdev->bd_events, EV_I_DISKSIZE, rule->sr_func, rule,
			       fs->inode->i_disksize, newsize);
	fs->inode->i_disksize = newsize;
}

/*
 * pagecache_isize_extended(): when blocks are smaller than pages and the
 * size grows past the block holding @from, write-protect the EOF folio
 * (so mmap stores fault and allocate) and, since 52aecaee1c26, zero its
 * newly exposed range if it is dirty.
 */
void pagecache_isize_extended(struct ext4_fs *fs, int64_t from, int64_t to)
{
	uint32_t bs = fs->opts.block_size;
	int64_t rounded_from, fpos;
	struct folio *f;

	if (from >= to || bs >= PAGE_SIZE)
		return;
	rounded_from = (from + bs - 1) & ~(int64_t)(bs - 1);
	if (to <= rounded_from || !(rounded_from & (PAGE_SIZE - 1)))
		return;
	f = filemap_get_folio(&fs->inode->i_mapping, (uint64_t)from >> PAGE_SHIFT);
	if (!f)
		return;
	sim_folio_lock(fs, f, SITE_ISIZE_EXT);
	f->flags &= (uint8_t)~PG_mkwrite;               /* folio_mkclean */
	fpos = (int64_t)f->index << PAGE_SHIFT;
	if (ext4_sem(fs, eof_zero_dirty_folio_mm) && (f->flags & PG_dirty))
		folio_zero_segment(f, (uint32_t)(from - fpos),
				   (uint32_t)SIM_MIN(to - fpos, (int64_t)PAGE_SIZE));
}

/*
 * __ext4_block_zero_page_range() without its ordered-data step: zero
 * [from, from+length) inside one block in the page cache, reading the
 * block first if it is on disk, and dirty it; in data=journal journal it
 * (in a 1-credit handle of its own when none is open, as
 * ext4_journalled_block_zero_range does since the 2026 series).  A hole,
 * or a delayed or unwritten block not in the cache, needs nothing.
 * *zr says whether anything was zeroed and whether the block is written.
 */
static int block_zero_range(struct ext4_fs *fs, handle_t *h, int64_t from, int64_t length,
			    struct zero_result *zr)
{
	uint32_t bs = fs->opts.block_size, offset = (uint32_t)(from & (PAGE_SIZE - 1));
	uint32_t max = bs - (offset & (bs - 1));
	unsigned i = offset >> ext4_blkbits(fs);
	struct buffer_head *bh;
	struct folio *f;
	int err;

	*zr = (struct zero_result){ 0 };
	if (length > max || length < 0)
		length = max;
	f = filemap_grab_folio(&fs->inode->i_mapping, (uint64_t)from >> PAGE_SHIFT);
	sim_folio_lock(fs, f, SITE_ZERO_PARTIAL);
	create_empty_buffers(&fs->inode->i_mapping, f);
	bh = &f->bh[i];
	if (!(bh->b_state & BH_Mapped)) {
		struct ext4_map_blocks map = { .m_lblk = bh_lblk(fs, f, i), .m_len = 1 };

		if (ext4_map_blocks(fs, NULL, &map, 0) <= 0 || !(map.m_flags & MAP_MAPPED))
			return 0;
		map_bh(bh, &map);
	}
	if (f->flags & PG_uptodate)
		bh->b_state |= BH_Uptodate;
	if (!(bh->b_state & BH_Uptodate) && (err = ext4_read_bh(fs, f, i)) < 0)
		return err;
	folio_zero_segment(f, offset, offset + (uint32_t)length);
	zr->zeroed = true;
	zr->written = !(bh->b_state & (BH_Delay | BH_Unwritten));
	if (!ext4_should_journal_data(fs)) {
		mark_buffer_dirty(f, i);
		return 0;
	}
	handle_t *own = h ? NULL :
			ext4_journal_start(fs, "__ext4_block_zero_page_range", HT_MISC, 1);

	bh->b_state |= BH_JBDDirty;
	jbd2_journal_dirty_data(h ? h : own, bh->b_blocknr, fs->inode->i_ino,
				bh_lblk(fs, f, i));
	folio_mark_dirty(f);
	if (own)
		ext4_journal_stop(fs, "__ext4_block_zero_page_range", own);
	return 0;
}

/*
 * The ordered-data step of a zeroing (data=ordered, with a handle): the
 * zeroed range must reach the disk before the transaction commits.  Since
 * 154922b34da9 only for written blocks; since the 2026 series (patch 05)
 * only for EOF zeroing.
 */
void ext4_order_zeroed(struct ext4_fs *fs, handle_t *h, int64_t from, int64_t length,
		       const struct zero_result *zr, bool eof)
{
	if (!zr->zeroed || !h || !ext4_should_order_data(fs))
		return;
	if (ext4_sem(fs, zero_ordered_written_only) && !zr->written)
		return;
	if (ext4_sem(fs, zero_order_eof_only) && !eof)
		return;
	ext4_jbd2_inode_add_write(fs, h, from, length);
}

/*
 * __ext4_block_zero_page_range(): zero inside one block, then order it;
 * *@did_zero (when not NULL) is set if bytes were zeroed.
 */
int ext4_block_zero_page_range(struct ext4_fs *fs, handle_t *h, int64_t from, int64_t length,
			       bool eof, bool *did_zero)
{
	struct zero_result zr;
	int err = block_zero_range(fs, h, from, length, &zr);

	if (!err)
		ext4_order_zeroed(fs, h, from, length, &zr, eof);
	if (!err && zr.zeroed && did_zero)
		*did_zero = true;
	return err;
}

/*
 * ext4_zero_partial_blocks(): zero the partial blocks at both ends of
 * [lstart, lstart+length); @eof when it is EOF zeroing (an extension).
 * *@did_zero (when not NULL) is set if any byte was zeroed.
 */
int ext4_zero_partial_blocks(struct ext4_fs *fs, handle_t *h, int64_t lstart, int64_t length,
			     bool eof, bool *did_zero)
{
	uint32_t bs = fs->opts.block_size;
	int64_t byte_end = lstart + length - 1;
	uint32_t partial_start = (uint32_t)(lstart & (bs - 1));
	uint32_t partial_end = (uint32_t)(byte_end & (bs - 1));
	int64_t start = lstart >> ext4_blkbits(fs), end = byte_end >> ext4_blkbits(fs);
	int err = 0;

	SIM_ASSERT(length > 0);
	if (start == end && (partial_start || partial_end != bs - 1))
		return ext4_block_zero_page_range(fs, h, lstart, length, eof, did_zero);
	if (partial_start &&
	    (err = ext4_block_zero_page_range(fs, h, lstart, bs, eof, did_zero)) < 0)
		return err;
	if (partial_end != bs - 1)
		err = ext4_block_zero_page_range(fs, h, byte_end - partial_end, partial_end + 1,
						 eof, did_zero);
	return err;
}

/*
 * The zeroing half of ext4_block_zero_eof(): zero [from, min(end, the end
 * of from's block)) with no handle; *zr for the caller's ordered-data step
 * (ext4_truncate and ext4_setattr order it in their own handle).
 */
int ext4_zero_eof_block(struct ext4_fs *fs, int64_t from, int64_t end, struct zero_result *zr)
{
	uint32_t bs = fs->opts.block_size;
	int64_t block_end = (from | (bs - 1)) + 1;

	*zr = (struct zero_result){ 0 };
	if (!(from & (bs - 1)) || end <= from)
		return 0;
	return block_zero_range(fs, NULL, from, SIM_MIN(end, block_end) - from, zr);
}

/*
 * ext4_block_zero_eof() (2026 series): zero the rest of the EOF block with
 * no handle open, then order a zeroed written block (data=ordered) so the
 * zeroes reach the disk before a size exposing them commits.  The model
 * orders it in a 1-credit handle of its own; how 7.1 does it is unverified.
 */
int ext4_block_zero_eof(struct ext4_fs *fs, int64_t from, int64_t end)
{
	uint32_t bs = fs->opts.block_size;
	struct zero_result zr;
	int err = ext4_zero_eof_block(fs, from, end, &zr);
	handle_t *h;

	if (err < 0 || !zr.zeroed || !zr.written || !ext4_should_order_data(fs))
		return err;
	h = ext4_journal_start(fs, "ext4_block_zero_eof", HT_MISC, 1);
	ext4_order_zeroed(fs, h, from, SIM_MIN(end, (from | (bs - 1)) + 1) - from, &zr, true);
	return ext4_journal_stop(fs, "ext4_block_zero_eof", h);
}

/* ext4_da_should_update_i_disksize(): the last written byte's block is on disk. */
static bool ext4_da_should_update_i_disksize(const struct ext4_fs *fs, const struct folio *f,
					     uint32_t offset)
{
	uint16_t s = f->bh[offset >> ext4_blkbits(fs)].b_state;

	return (s & BH_Mapped) && !(s & (BH_Delay | BH_Unwritten));
}

/* ext4_write_begin(): handle first, then the folio; allocate under the handle. */
static int ext4_write_begin(struct ext4_fs *fs, int64_t pos, uint32_t len, struct folio **fp)
{
	uint32_t from = (uint32_t)(pos & (PAGE_SIZE - 1));
	struct folio *f = filemap_grab_folio(&fs->inode->i_mapping, (uint64_t)pos >> PAGE_SHIFT);
	handle_t *h;
	int err;

	sim_folio_lock(fs, f, SITE_WRITE_BEGIN);
	create_empty_buffers(&fs->inode->i_mapping, f);
	/* folio unlocked; the handle needs one more credit for the orphan list */
	h = ext4_journal_start(fs, "ext4_write_begin", HT_WRITE_PAGE, 8 + 1);
	sim_folio_lock(fs, f, SITE_WRITE_BEGIN);
	err = ext4_block_write_begin(fs, h, f, from, from + len);
	if (err < 0) {
		bool extended = pos + len > fs->inode->i_size;

		if (extended)
			ext4_orphan_add(fs, h);
		ext4_journal_stop(fs, "ext4_write_begin", h);
		if (extended) {
			ext4_truncate_failed_write(fs);
			if (fs->inode->i_links_count)
				ext4_orphan_del(fs, NULL);
		}
		return err;
	}
	*fp = f;
	return 0;
}

/*
 * ext4_da_write_begin(): reserve delayed blocks for the folio; fall back to
 * ext4_write_begin when short of space.  Before cc883236b792 (5.15) it also
 * started a 1-credit handle (folio unlocked meanwhile, then relocked under
 * it) that stays open over the copy until ext4_da_write_end.
 */
static int ext4_da_write_begin(struct ext4_fs *fs, int64_t pos, uint32_t len,
			       struct folio **fp, bool *fallback)
{
	uint32_t from = (uint32_t)(pos & (PAGE_SIZE - 1));
	handle_t *h = NULL;
	struct folio *f;
	int err;

	*fallback = ext4_nonda_switch(fs);
	if (*fallback)
		return ext4_write_begin(fs, pos, len, fp);
	f = filemap_grab_folio(&fs->inode->i_mapping, (uint64_t)pos >> PAGE_SHIFT);
	sim_folio_lock(fs, f, SITE_WRITE_BEGIN);
	if (!ext4_sem(fs, da_write_no_handle)) {
		h = ext4_journal_start(fs, "ext4_da_write_begin", HT_WRITE_PAGE, 1);
		sim_folio_lock(fs, f, SITE_WRITE_BEGIN);
	}
	err = ext4_block_write_begin(fs, NULL, f, from, from + len);
	if (err < 0) {
		if (h)
			ext4_journal_stop(fs, "ext4_da_write_begin", h);
		if (pos + len > fs->inode->i_size)
			ext4_truncate_failed_write(fs);
		return err;
	}
	*fp = f;
	return 0;
}

/*
 * The tail both handle-holding write_end paths share: expose the gap past
 * the old size (write-protect the EOF folio; zero the old EOF block, 6.13
 * to 7.0), journal the new size, and trim blocks a failed or short
 * extending write left past i_size (orphan-protected).  Stops the handle.
 */
static void ext4_write_end_finish(struct ext4_fs *fs, handle_t *h, int64_t old_size,
				  int64_t pos, uint32_t len, bool size_changed)
{
	bool trim;

	if (old_size < pos) {
		pagecache_isize_extended(fs, old_size, pos);
		if (ext4_sem(fs, eof_zero_fs) && !ext4_sem(fs, zero_eof_in_write_checks))
			ext4_zero_partial_blocks(fs, h, old_size, pos - old_size, true, NULL);
	}
	if (size_changed)
		ext4_mark_inode_dirty(fs, h);
	trim = pos + len > fs->inode->i_size;

	if (trim)
		ext4_orphan_add(fs, h);
	__ext4_journal_stop("ext4_write_end", fs, h);
	if (trim) {
		ext4_truncate_failed_write(fs);
		if (fs->inode->i_links_count)
			ext4_orphan_del(fs, NULL);
	}
}

static const struct ext4_size_rule write_end_isize = EXT4_SIZE_RULE("ext4_write_end",
	"without delalloc the blocks were allocated at write_begin, so write_end raises i_size "
	"to the write's end");
static const struct ext4_size_rule write_end_disksize = EXT4_SIZE_RULE("ext4_write_end",
	"without delalloc the blocks are already allocated: i_disksize follows i_size at "
	"write_end");

/*
 * ext4_write_end(): raise i_size and i_disksize together, inside the handle.
 * Before 06bd3c36a733 (ordered_delalloc_alloc off) it first put the whole
 * inode on the transaction's ordered list in data=ordered, allocation or not.
 */
static int ext4_write_end(struct ext4_fs *fs, int64_t pos, uint32_t len, uint32_t copied,
			  struct folio *f)
{
	handle_t *h = ext4_journal_current_handle(fs);
	int64_t old_size = fs->inode->i_size;
	bool changed;

	SIM_ASSERT(h != NULL);
	if (!ext4_sem(fs, ordered_delalloc_alloc) && ext4_should_order_data(fs))
		ext4_jbd2_file_inode(fs, h);
	copied = block_write_end(fs, pos, len, copied, f);
	changed = ext4_update_inode_size(fs, pos + copied, &write_end_isize, &write_end_disksize);
	ext4_write_end_finish(fs, h, old_size, pos, len, changed);
	return (int)copied;
}

/* write_end_fn() + ext4_dirty_journalled_data() for [from, to). */
static void ext4_journal_folio_buffers(struct ext4_fs *fs, handle_t *h, struct folio *f,
				       uint32_t from, uint32_t to)
{
	uint32_t bs = fs->opts.block_size;

	for (unsigned i = 0; i < folio_nr_buffers(&fs->inode->i_mapping); i++) {
		struct buffer_head *bh = &f->bh[i];

		if (i * bs + bs <= from || i * bs >= to || !(bh->b_state & BH_Mapped))
			continue;
		bh->b_state |= BH_Uptodate | BH_JBDDirty;
		bh->b_state &= (uint16_t)~(BH_New | BH_Dirty);
		jbd2_journal_dirty_data(h, bh->b_blocknr, fs->inode->i_ino, bh_lblk(fs, f, i));
	}
	folio_mark_dirty(f);
}

static const struct ext4_size_rule journalled_isize = EXT4_SIZE_RULE(
	"ext4_journalled_write_end", "data=journal: write_end raises i_size to the write's end");
static const struct ext4_size_rule journalled_disksize = EXT4_SIZE_RULE(
	"ext4_journalled_write_end", "data=journal: i_disksize follows i_size at write_end");

/*
 * ext4_journalled_write_end(): the data buffers join the transaction.  A
 * short copy into a folio that is not uptodate counts as 0 bytes; before
 * 3b136499e906 (jdata_write_end_copied off) every mapped buffer of the
 * write's range [from, to) was journalled and marked uptodate whatever the
 * copy reached, so a buffer the write covered whole (hence not read) and
 * the copy missed went to the log with the folio's stale bytes, and the
 * page cache kept them as uptodate.
 */
static int ext4_journalled_write_end(struct ext4_fs *fs, int64_t pos, uint32_t len,
				     uint32_t copied, struct folio *f)
{
	handle_t *h = ext4_journal_current_handle(fs);
	uint32_t from = (uint32_t)(pos & (PAGE_SIZE - 1));
	int64_t old_size = fs->inode->i_size;
	bool changed;

	SIM_ASSERT(h != NULL);
	if (copied < len && !ext4_sem(fs, jdata_write_end_copied)) {
		if (!(f->flags & PG_uptodate))
			copied = 0;
		folio_zero_new_buffers(fs, f, from + copied, from + len);
		block_commit_write(fs, f, from, from + len);
		ext4_journal_folio_buffers(fs, h, f, from, from + len);
	} else if (copied < len && !(f->flags & PG_uptodate)) {
		copied = 0;
		folio_zero_new_buffers(fs, f, from, from + len);
	} else {
		if (copied < len)
			folio_zero_new_buffers(fs, f, from + copied, from + len);
		block_commit_write(fs, f, from, from + copied);
		if (copied)
			ext4_journal_folio_buffers(fs, h, f, from, from + copied);
	}
	changed = ext4_update_inode_size(fs, pos + copied, &journalled_isize, &journalled_disksize);
	fs->inode->i_datasync_tid = h->h_transaction->t_tid;
	ext4_write_end_finish(fs, h, old_size, pos, len, changed);
	return (int)copied;
}

static const struct ext4_size_rule da_do_write_end_isize = EXT4_SIZE_RULE(
	"ext4_da_do_write_end", "a buffered write that ends past EOF raises i_size to its end, "
	"under the folio lock");
static const struct ext4_size_rule da_do_write_end_disksize = EXT4_SIZE_RULE_TOGGLE(
	"ext4_da_do_write_end", "the write ends inside a block already allocated on disk, so no "
	"writeback would raise i_disksize: write_end raises it to the new i_size",
	da_end_skip_dirty);

/*
 * ext4_da_do_write_end() (6.6+): raise i_size under the folio lock; raise
 * i_disksize too when the write ends inside a block already on disk (no
 * writeback would do it).  A handle only if i_disksize changed or, 6.13 to
 * 7.0, the gap past the old size needs zeroing; since the 2026 series
 * (patch 13) the gap was zeroed before the copy and the handle has 1 credit.
 */
static int ext4_da_do_write_end(struct ext4_fs *fs, int64_t pos, uint32_t len,
				uint32_t copied, struct folio *f)
{
	int64_t old_size = fs->inode->i_size, new_i_size, zero_len = 0;
	bool disksize_changed = false;
	handle_t *h;

	copied = block_write_end(fs, pos, len, copied, f);
	new_i_size = pos + copied;
	if (new_i_size > fs->inode->i_size) {
		i_size_write(fs, new_i_size, &da_do_write_end_isize);
		if (copied && ext4_da_should_update_i_disksize(
				fs, f, (uint32_t)((new_i_size - 1) & (PAGE_SIZE - 1)))) {
			ext4_update_i_disksize(fs, new_i_size, &da_do_write_end_disksize);
			disksize_changed = true;
		}
	}
	ext4_note_size_point(fs);       /* folio_unlock */
	if (pos > old_size) {
		pagecache_isize_extended(fs, old_size, pos);
		if (ext4_sem(fs, eof_zero_fs) && !ext4_sem(fs, zero_eof_in_write_checks))
			zero_len = pos - old_size;
	}
	if (!disksize_changed && !zero_len)
		return (int)copied;
	h = ext4_journal_start(fs, "ext4_da_do_write_end", HT_INODE,
			       ext4_sem(fs, zero_eof_in_write_checks) ? 1 : 2);
	if (zero_len)
		ext4_zero_partial_blocks(fs, h, old_size, zero_len, true, NULL);
	ext4_mark_inode_dirty(fs, h);
	ext4_journal_stop(fs, "ext4_da_do_write_end", h);
	return (int)copied;
}

/*
 * mark_inode_dirty() -> ext4_dirty_inode(): a 2-credit handle, nested in
 * the caller's if one is open.
 */
void ext4_dirty_inode(struct ext4_fs *fs)
{
	handle_t *cur = ext4_journal_current_handle(fs);
	handle_t *h = cur ? cur : ext4_journal_start(fs, "ext4_dirty_inode", HT_INODE, 2);

	ext4_mark_inode_dirty(fs, h);
	if (!cur)
		ext4_journal_stop(fs, "ext4_dirty_inode", h);
}

static const struct ext4_size_rule generic_write_end_isize = EXT4_SIZE_RULE(
	"generic_write_end", "a buffered write that ends past EOF raises i_size to its end, "
	"under the folio lock");

/*
 * generic_write_end(): block_write_end, i_size, the gap past the old size,
 * and mark_inode_dirty() if i_size changed (ext4_da_write_end before 6.6).
 */
static uint32_t generic_write_end(struct ext4_fs *fs, int64_t pos, uint32_t len,
				  uint32_t copied, struct folio *f)
{
	int64_t old_size = fs->inode->i_size;
	bool size_changed = false;

	copied = block_write_end(fs, pos, len, copied, f);
	if (pos + copied > fs->inode->i_size) {
		i_size_write(fs, pos + copied, &generic_write_end_isize);
		size_changed = true;
	}
	ext4_note_size_point(fs);       /* folio_unlock */
	if (old_size < pos)
		pagecache_isize_extended(fs, old_size, pos);
	if (size_changed)
		ext4_dirty_inode(fs);
	return copied;
}

static const struct ext4_size_rule da_write_end_disksize = EXT4_SIZE_RULE_TOGGLE(
	"ext4_da_write_end", "(before 6.6) the write ends inside a block already allocated on "
	"disk, so write_end raises i_disksize (compared with i_size from 5.15 on)",
	da_disksize_vs_isize);

/*
 * ext4_da_write_end() before 6.6 (da_end_skip_dirty off): raise i_disksize
 * when the write ends in a block on disk, compared with i_size since
 * 4df031ff5876 (5.15; before, with i_disksize, and marking the inode dirty
 * under the write's handle), then generic_write_end(); stop the write's
 * handle if write_begin started one.
 */
static uint32_t ext4_da_write_end_legacy(struct ext4_fs *fs, int64_t pos, uint32_t len,
					 uint32_t copied, struct folio *f)
{
	handle_t *h = ext4_sem(fs, da_write_no_handle) ? NULL : ext4_journal_current_handle(fs);
	int64_t new_i_size = pos + copied;
	uint32_t end = (uint32_t)((pos + copied - 1) & (PAGE_SIZE - 1));
	bool update = copied && ext4_da_should_update_i_disksize(fs, f, end);

	if (ext4_sem(fs, da_disksize_vs_isize)) {
		if (update && new_i_size > fs->inode->i_size)
			ext4_update_i_disksize(fs, new_i_size, &da_write_end_disksize);
	} else if (update && new_i_size > fs->inode->i_disksize) {
		ext4_update_i_disksize(fs, new_i_size, &da_write_end_disksize);
		if (h)
			ext4_mark_inode_dirty(fs, h);
		else            /* no write handle (da_write_no_handle on): one of its own */
			ext4_dirty_inode(fs);
	}
	return generic_write_end(fs, pos, len, copied, f);
}

/*
 * ext4_da_write_end(): a short copy into a folio not uptodate counts as 0
 * (6.4); the pre-6.6 or the 6.6 tail; then the handle write_begin started
 * before 5.15 is stopped (with da_end_skip_dirty on as well, a combination
 * no kernel had, the 6.6 tail's handle nests in it).
 */
static int ext4_da_write_end(struct ext4_fs *fs, int64_t pos, uint32_t len, uint32_t copied,
			     struct folio *f, bool fallback)
{
	handle_t *h = ext4_sem(fs, da_write_no_handle) ? NULL : ext4_journal_current_handle(fs);
	int ret;

	if (fallback)
		return ext4_write_end(fs, pos, len, copied, f);
	if (ext4_sem(fs, short_copy_zero) && copied < len && !(f->flags & PG_uptodate))
		copied = 0;
	if (!ext4_sem(fs, da_end_skip_dirty))
		ret = (int)ext4_da_write_end_legacy(fs, pos, len, copied, f);
	else
		ret = ext4_da_do_write_end(fs, pos, len, copied, f);
	if (h)
		ext4_journal_stop(fs, "ext4_da_write_end", h);
	return ret;
}

/* One write_begin / copy / write_end round on one folio; returns copied. */
static int write_one_folio(struct ext4_fs *fs, int64_t pos, uint32_t bytes, uint8_t fill,
			   const uint8_t *src, uint32_t copyable)
{
	struct folio *f = NULL;
	bool fallback = false;
	uint32_t copied = SIM_MIN(bytes, copyable);
	int err;

	if (fs->opts.delalloc)
		err = ext4_da_write_begin(fs, pos, bytes, &f, &fallback);
	else
		err = ext4_write_begin(fs, pos, bytes, &f);
	if (err < 0)
		return err;
	if (src)
		memcpy(f->data + (pos & (PAGE_SIZE - 1)), src, copied);
	else
		memset(f->data + (pos & (PAGE_SIZE - 1)), fill, copied);
	if (ext4_journal_current_handle(fs))
		fs->counters->copy_under_handle++;
	if (ext4_should_journal_data(fs))
		return ext4_journalled_write_end(fs, pos, bytes, copied, f);
	if (fs->opts.delalloc)
		return ext4_da_write_end(fs, pos, bytes, copied, f, fallback);
	return ext4_write_end(fs, pos, bytes, copied, f);
}

/*
 * generic_perform_write(): copy @len bytes of @fill (or, with @src, the bytes
 * of @src: a splice write's pipe pages) at @pos, a folio at a time.  The user
 * buffer is readable for its first @readable bytes only (a short copy); a
 * round that copied nothing is retried with the bytes that did copy, as the
 * kernel does after faulting them in.  *written gets the bytes written; the
 * result is 0, or an error if nothing was written.
 */
int generic_perform_write(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			  const uint8_t *src, int64_t readable, int64_t *written)
{
	int status = 0;

	*written = 0;
	while (len > 0) {
		uint32_t offset = (uint32_t)(pos & (PAGE_SIZE - 1));
		uint32_t bytes = (uint32_t)SIM_MIN((int64_t)(PAGE_SIZE - offset), len);
		int64_t avail = readable - *written;

		if (avail <= 0) {
			status = -EFAULT;
			break;
		}
		status = write_one_folio(fs, pos, bytes, fill, src ? src + *written : NULL,
					 (uint32_t)SIM_MIN(avail, (int64_t)bytes));
		if (status < 0)
			break;
		if (status == 0) {
			SIM_ASSERT(avail < bytes);
			len = SIM_MIN(len, avail);      /* retry with what copies */
			continue;
		}
		pos += status;
		*written += status;
		len -= status;
	}
	return *written > 0 ? 0 : status;
}

int ext4_buffered_write(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			int64_t readable, int64_t *written)
{
	return generic_perform_write(fs, pos, len, fill, NULL, readable, written);
}

/* --- mmap stores: ->page_mkwrite --- */

/* The bytes of folio @f below i_size (0 when it starts at or past EOF). */
static uint32_t folio_len_in_size(const struct ext4_fs *fs, const struct folio *f)
{
	int64_t pos = (int64_t)f->index << PAGE_SHIFT;

	if (pos >= fs->inode->i_size)
		return 0;
	return (uint32_t)SIM_MIN((int64_t)PAGE_SIZE, fs->inode->i_size - pos);
}

/*
 * block_page_mkwrite(): map every block of the folio below i_size (delalloc
 * with no handle: reserve holes; otherwise allocate under @h), make them
 * uptodate and dirty.  -EFAULT when the folio lies past EOF (truncated
 * under the fault).  The caller dirties the whole folio afterwards.
 */
static int block_page_mkwrite(struct ext4_fs *fs, handle_t *h, struct folio *f)
{
	uint32_t end;
	int err;

	sim_folio_lock(fs, f, SITE_PAGE_MKWRITE);
	if ((end = folio_len_in_size(fs, f)) == 0)
		return -EFAULT;
	if ((err = ext4_block_write_begin(fs, h, f, 0, end)) < 0)
		return err;
	block_commit_write(fs, f, 0, end);
	return 0;
}

/* The nodelalloc shortcut: every buffer below i_size is mapped already. */
static bool page_buffers_mapped(const struct ext4_fs *fs, const struct folio *f)
{
	uint32_t bs = fs->opts.block_size, len = folio_len_in_size(fs, f);

	if (!(f->flags & PG_buffers))
		return false;
	for (unsigned i = 0; i * bs < len; i++)
		if (!(f->bh[i].b_state & BH_Mapped))
			return false;
	return true;
}

/* data=journal: the buffers below i_size join the transaction (no delalloc). */
static int ext4_journalled_page_mkwrite(struct ext4_fs *fs, handle_t *h, struct folio *f)
{
	uint32_t len;
	int err;

	sim_folio_lock(fs, f, SITE_PAGE_MKWRITE);
	if ((len = folio_len_in_size(fs, f)) == 0)
		return -EFAULT;
	if ((err = ext4_block_write_begin(fs, h, f, 0, len)) < 0)
		return err;
	ext4_journal_folio_buffers(fs, h, f, 0, len);
	fs->inode->i_datasync_tid = h->h_transaction->t_tid;
	return 0;
}

/*
 * ext4_page_mkwrite(): a store fault on an uptodate folio.  Delalloc
 * reserves the holes below i_size with no handle; nodelalloc returns at
 * once when every buffer below i_size is mapped, else allocates in a
 * handle (written blocks, ordered); data=journal journals the buffers.
 * Then the fault dirties the folio (block_dirty_folio: every buffer, those
 * past EOF included; ext4_journalled_dirty_folio: none).  Returns 0 or a
 * negative errno (the store gets SIGBUS).
 */
int ext4_page_mkwrite(struct ext4_fs *fs, struct folio *f)
{
	bool journal = ext4_should_journal_data(fs);
	handle_t *h;
	int err;

	SIM_ASSERT(f->flags & PG_uptodate);
	if (fs->s_shutdown)
		return -EIO;
	file_update_time(fs);
	if (!journal && fs->opts.delalloc && !ext4_nonda_switch(fs)) {
		err = block_page_mkwrite(fs, NULL, f);
	} else if (!journal && page_buffers_mapped(fs, f)) {
		err = 0;
	} else {
		h = ext4_journal_start(fs, "ext4_page_mkwrite", HT_WRITE_PAGE, 8);
		err = journal ? ext4_journalled_page_mkwrite(fs, h, f) :
				block_page_mkwrite(fs, h, f);
		ext4_journal_stop(fs, "ext4_page_mkwrite", h);
	}
	if (err == 0 && !journal)
		block_dirty_folio(&fs->inode->i_mapping, f);
	else if (err == 0)
		folio_mark_dirty(f);
	return err;
}

void file_update_time(struct ext4_fs *fs)
{
	if (fs->s_time_ticks)
		ext4_dirty_inode(fs);
}

/* --- the raw inode: __ext4_iget() and ext4_do_update_inode() --- */

/* __ext4_get_inode_loc(): inode @ino's inode-table block and byte offset. */
void ext4_inode_loc(const struct ext4_layout *lay, const struct ext4_fs *fs, uint32_t ino,
		    uint32_t *blk, uint32_t *off)
{
	uint32_t group = (ino - 1) / lay->inodes_per_group, index = (ino - 1) % lay->inodes_per_group;
	uint32_t per = lay->block_size / lay->inode_size;
	struct ext4_group_desc gd;

	SIM_ASSERT(ino >= 1 && group < lay->groups_count);
	ext4_get_group_desc(fs, group, &gd);
	*blk = gd.bg_inode_table_lo + index / per;
	*off = (index % per) * lay->inode_size;
}

/*
 * ext4_inode_csum(): crc32c seeded by the inode's seed (the file system's,
 * then the inode number and generation) over the inode with both checksum
 * halves as zero.
 */
uint32_t ext4_inode_csum(const struct ext4_layout *lay, uint32_t ino, const uint8_t *raw)
{
	uint32_t lo = offsetof(struct ext4_inode, l_i_checksum_lo);
	uint32_t hi = offsetof(struct ext4_inode, i_checksum_hi), gen, c;
	uint16_t dummy = 0, extra;

	memcpy(&gen, raw + offsetof(struct ext4_inode, i_generation), sizeof(gen));
	memcpy(&extra, raw + offsetof(struct ext4_inode, i_extra_isize), sizeof(extra));
	c = crc32c(crc32c(lay->csum_seed, &ino, sizeof(ino)), &gen, sizeof(gen));
	c = crc32c(c, raw, lo);
	c = crc32c(c, &dummy, sizeof(dummy));
	c = crc32c(c, raw + lo + 2, EXT4_GOOD_OLD_INODE_SIZE - lo - 2);
	if (lay->inode_size > EXT4_GOOD_OLD_INODE_SIZE) {
		c = crc32c(c, raw + EXT4_GOOD_OLD_INODE_SIZE, hi - EXT4_GOOD_OLD_INODE_SIZE);
		if (EXT4_GOOD_OLD_INODE_SIZE + extra >= hi + 2) {
			c = crc32c(c, &dummy, sizeof(dummy));
			hi += 2;
		}
		c = crc32c(c, raw + hi, lay->inode_size - hi);
	}
	return c;
}

static void inode_csum_set(const struct ext4_layout *lay, uint32_t ino, uint8_t *raw)
{
	struct ext4_inode in;
	uint32_t c;

	if (!(lay->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return;
	c = ext4_inode_csum(lay, ino, raw);
	memcpy(&in, raw, sizeof(in));
	in.l_i_checksum_lo = (uint16_t)(c & 0xffff);
	if (EXT4_GOOD_OLD_INODE_SIZE + in.i_extra_isize >= offsetof(struct ext4_inode, i_checksum_hi) + 2)
		in.i_checksum_hi = (uint16_t)(c >> 16);
	memcpy(raw, &in, sizeof(in));
}

/* i_blocks in 512-byte sectors: the written and unwritten blocks and the extent blocks. */
static uint64_t inode_sectors(const struct ext4_fs *fs)
{
	uint64_t blocks = es_count(&fs->inode->i_es, ES_WRITTEN) +
			  es_count(&fs->inode->i_es, ES_UNWRITTEN) + ext4_ext_meta_blocks(fs);

	return blocks * (fs->opts.block_size / 512);
}

/*
 * ext4_fill_raw_inode() for what the model changes in the current inode:
 * the size (i_disksize), i_blocks, the link count, the flags chattr sets,
 * the orphan link (i_dtime: the next orphan's number), the extent root (a
 * fast symlink's target instead), then the checksum.  Mode, owner, times
 * and generation stay as the raw inode holds them (ext4_new_inode wrote
 * them; no clock).
 */
void ext4_fill_raw_inode(const struct ext4_fs *fs, uint8_t *raw)
{
	const struct ext4_inode_info *ei = fs->inode;
	struct ext4_inode in;
	uint64_t sectors = (ei->i_fast_symlink ? 0 : inode_sectors(fs)) +
			   (ei->i_file_acl ? fs->opts.block_size / 512 : 0);

	memcpy(&in, raw, sizeof(in));
	in.i_size_lo = (uint32_t)ei->i_disksize;
	in.i_size_high = (uint32_t)((uint64_t)ei->i_disksize >> 32);
	in.i_blocks_lo = (uint32_t)sectors;
	in.l_i_blocks_high = (uint16_t)(sectors >> 32);
	in.i_links_count = ei->i_links_count;
	in.i_flags = (in.i_flags & ~(EXT4_SYNC_FL | EXT4_HUGE_FILE_FL)) | ei->i_flags;
	in.i_dtime = ei->i_orphan ? ei->i_next_orphan : ei->i_links_count ? 0 : in.i_dtime;
	in.i_file_acl_lo = (uint32_t)ei->i_file_acl;
	in.l_i_file_acl_high = (uint16_t)(ei->i_file_acl >> 32);
	if (ei->i_fast_symlink)
		memcpy(in.i_block, ei->i_data, sizeof(in.i_block));
	else
		ext4_ext_root(fs, (uint8_t *)in.i_block);
	memcpy(raw, &in, sizeof(in));
	inode_csum_set(&fs->lay, ei->i_ino, raw);
}

/* i_dtime of @ei's raw inode := @t (an inode being freed: ext4_evict_inode). */
void ext4_set_raw_dtime(struct ext4_fs *fs, struct ext4_inode_info *ei, uint32_t t)
{
	uint8_t *raw = ext4_meta_bh(fs, ei->i_loc_blk) + ei->i_loc_off;

	memcpy(raw + offsetof(struct ext4_inode, i_dtime), &t, sizeof(t));
}

void ext4_set_raw_flags(struct ext4_fs *fs, struct ext4_inode_info *ei, uint32_t flags)
{
	uint8_t *raw = ext4_meta_bh(fs, ei->i_loc_blk) + ei->i_loc_off;
	uint32_t f;

	memcpy(&f, raw + offsetof(struct ext4_inode, i_flags), sizeof(f));
	f |= flags;
	memcpy(raw + offsetof(struct ext4_inode, i_flags), &f, sizeof(f));
}

/* Is the raw inode's type one the model reads, with the layout it reads? */
static const char *iget_refusal(const struct ext4_inode *in)
{
	uint16_t type = in->i_mode & S_IFMT;
	bool extents = in->i_flags & EXT4_EXTENTS_FL;

	if (type == S_IFREG || type == S_IFDIR)
		return extents ? NULL : "an inode without extents (block-mapped) is not modelled";
	if (type == S_IFLNK)
		return NULL;
	return "an inode that is not a regular file, a directory or a symbolic link";
}

/* The fields of struct ext4_inode_info __ext4_iget() takes from @in. */
static void iget_fields(const struct ext4_fs *fs, struct ext4_inode_info *ei,
			const struct ext4_inode *in)
{
	uint32_t ino = ei->i_ino;

	ei->i_mode = in->i_mode;
	ei->i_links_count = in->i_links_count;
	ei->i_generation = in->i_generation;
	ei->i_disksize = (int64_t)(in->i_size_lo | (uint64_t)in->i_size_high << 32);
	ei->i_size = ei->i_disksize;
	ei->i_flags = in->i_flags & EXT4_SYNC_FL;
	ei->i_file_acl = in->i_file_acl_lo | (uint64_t)in->l_i_file_acl_high << 32;
	ei->i_csum_seed = crc32c(crc32c(fs->lay.csum_seed, &ino, 4), &in->i_generation,
				 sizeof(in->i_generation));
	ei->i_fast_symlink = S_ISLNK(in->i_mode) && !(in->i_flags & EXT4_EXTENTS_FL);
	if (ei->i_fast_symlink)
		memcpy(ei->i_data, in->i_block, sizeof(ei->i_data));
}

/*
 * __ext4_iget(): in-core inode @ino, read from its raw inode when not yet in
 * core (its checksum checked, its fields and extent tree read) into *@out.
 * An inode no name holds (i_links_count 0) is refused (-ESTALE) unless
 * @orphan: orphan cleanup reads the inodes its list names.  On an error
 * nothing stays in core and s_mount_error says why.
 */
int __ext4_iget(struct ext4_fs *fs, uint32_t ino, bool orphan, struct ext4_inode_info **out)
{
	struct ext4_inode_info *ei = ext4_ilookup(fs, ino), *was;
	const uint8_t *raw;
	struct ext4_inode in;
	uint32_t c;
	int err = 0;

	if ((*out = ei) != NULL)
		return 0;
	ei = ext4_alloc_inode(fs, ino);
	raw = ext4_meta_get(fs, ei->i_loc_blk) + ei->i_loc_off;
	c = ext4_inode_csum(&fs->lay, ino, raw);
	memcpy(&in, raw, sizeof(in));
	if ((fs->lay.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    (in.l_i_checksum_lo != (c & 0xffff) || in.i_checksum_hi != (c >> 16))) {
		fs->s_mount_error = "an inode's checksum fails (ext4_iget)";
		err = -EFSBADCRC;
	} else if (in.i_links_count == 0 && !orphan) {
		fs->s_mount_error = "a name leads to an inode of no links (ext4_iget: -ESTALE)";
		err = -ESTALE;
	} else if ((fs->s_mount_error = iget_refusal(&in)) != NULL) {
		err = -EUCLEAN;
	}
	if (!err) {
		iget_fields(fs, ei, &in);
		was = fs->inode;
		fs->inode = ei;
		if (!ei->i_fast_symlink)
			err = ext4_ext_load(fs);
		fs->inode = was;
	}
	if (err) {
		ext4_evict_in_core_inode(fs, ei);
		return err;
	}
	*out = ei;
	return 0;
}

/*
 * The scenario's file at mount: inode 12 made current when a name still
 * holds it, as a regular file with extents (else the mount is refused, its
 * reason said); when no name holds it (a namespace scenario unlinked it and
 * its last close freed it), the root directory is current instead and the
 * data steps find no open file.
 */
int ext4_iget(struct ext4_fs *fs)
{
	struct ext4_inode in;
	int err;

	ext4_read_raw_inode(fs, EXT4_FILE_INO, &in);
	if (in.i_links_count == 0 && !ext4_orphan_listed(fs, EXT4_FILE_INO))
		return __ext4_iget(fs, EXT4_ROOT_INO, false, &fs->inode);
	err = __ext4_iget(fs, EXT4_FILE_INO, true, &fs->inode);
	if (err == -EFSBADCRC)
		fs->s_mount_error = "the file's inode checksum fails (ext4_iget)";
	else if (!err && !S_ISREG(fs->inode->i_mode))
		err = -EUCLEAN;
	if (err == -EUCLEAN)
		fs->s_mount_error = "inode 12 is not a linked regular file with extents";
	if (!err && fs->inode->i_links_count != 0)
		fs->inode->i_open = 1;          /* xfs_io's file, open from the start */
	return err;
}

/*
 * ext4_set_iomap() for a write: the mapping's type (unwritten, mapped or a
 * hole), IOMAP_F_NEW for blocks this call allocated, IOMAP_F_DIRTY when a
 * datasync would have metadata to commit (ext4_inode_datasync_dirty) or the
 * write passes i_size.
 */
static void ext4_set_iomap(struct ext4_fs *fs, struct iomap *iomap,
			   const struct ext4_map_blocks *map, int64_t offset, int64_t length)
{
	uint32_t bits = ext4_blkbits(fs);

	*iomap = (struct iomap){ .offset = (int64_t)map->m_lblk << bits,
				 .length = (int64_t)map->m_len << bits, .pblk = map->m_pblk };
	if (ext4_inode_datasync_dirty(fs) || offset + length > fs->inode->i_size)
		iomap->flags |= IOMAP_F_DIRTY;
	if (map->m_flags & MAP_NEW)
		iomap->flags |= IOMAP_F_NEW;
	if (map->m_flags & MAP_UNWRITTEN)
		iomap->type = IOMAP_UNWRITTEN;
	else if (map->m_flags & MAP_MAPPED)
		iomap->type = IOMAP_MAPPED;
	else
		iomap->type = IOMAP_HOLE;
}

/*
 * ext4_iomap_alloc(): allocate under a handle of its own (EXT4_HT_MAP_BLOCKS):
 * blocks at or past i_size as written extents (EXT4_GET_BLOCKS_CREATE: the
 * orphan and i_disksize keep them unseen until the write completes), blocks
 * inside i_size as unwritten ones (EXT4_GET_BLOCKS_IO_CREATE_EXT), converted
 * at I/O completion.  Returns the blocks mapped or a negative errno.
 */
static int ext4_iomap_alloc(struct ext4_fs *fs, struct ext4_map_blocks *map)
{
	handle_t *h = ext4_journal_start(fs, "ext4_iomap_alloc", HT_MAP_BLOCKS, 8);
	uint32_t flags = GET_BLOCKS_CREATE;
	int ret;

	if (((int64_t)map->m_lblk << ext4_blkbits(fs)) < fs->inode->i_size)
		flags |= GET_BLOCKS_UNWRIT_EXT;
	ret = ext4_map_blocks(fs, h, map, flags);
	ext4_journal_stop(fs, "ext4_iomap_alloc", h);
	return ret;
}

/*
 * ext4_iomap_begin() with IOMAP_WRITE (direct I/O): a range inside i_size
 * whose blocks are written needs no handle; anything else goes through
 * ext4_iomap_alloc().  Without IOMAP_WRITE (ext4_iomap_overwrite_begin, the
 * shared-lock overwrite) only the lookup.  The mapping covers at most the
 * first extent of [offset, offset + length).
 */
int ext4_iomap_begin(struct ext4_fs *fs, int64_t offset, int64_t length, unsigned flags,
		     struct iomap *iomap)
{
	uint32_t bits = ext4_blkbits(fs);
	struct ext4_map_blocks map = { .m_lblk = (uint32_t)(offset >> bits),
		.m_len = (uint32_t)(((offset + length - 1) >> bits) - (offset >> bits) + 1) };
	int ret = 0;

	if ((offset >> bits) > EXT4_MAX_LOGICAL_BLOCK)
		return -EINVAL;
	if (!(flags & IOMAP_WRITE)) {
		ret = ext4_map_blocks(fs, NULL, &map, 0);
	} else {
		if (offset + length <= fs->inode->i_size) {
			ret = ext4_map_blocks(fs, NULL, &map, 0);
			if (ret > 0 && (map.m_flags & MAP_MAPPED))
				goto out;
			map = (struct ext4_map_blocks){ .m_lblk = (uint32_t)(offset >> bits),
				.m_len = (uint32_t)(((offset + length - 1) >> bits) -
						    (offset >> bits) + 1) };
		}
		ret = ext4_iomap_alloc(fs, &map);
	}
	if (ret < 0)
		return ret;
	if (ret == 0)
		map.m_len = SIM_MAX(map.m_len, 1u);
out:
	ext4_set_iomap(fs, iomap, &map, offset, length);
	return 0;
}
