/*
 * fallocate.c - fallocate(2).  Mirrors the fallocate half of
 * fs/ext4/extents.c (ext4_fallocate, ext4_do_fallocate,
 * ext4_alloc_file_blocks, ext4_zero_range, ext4_collapse_range,
 * ext4_insert_range) and ext4_punch_hole,
 * ext4_update_disksize_before_punch and
 * ext4_truncate_page_cache_block_range of fs/ext4/inode.c, with the checks
 * of vfs_fallocate() (fs/open.c), as of 6.18; the 2026 zero-out series
 * (7.1) is in by its toggles, as merged (read in 7.2.13's source): partial
 * blocks zeroed before the handles, the old EOF block once before the first
 * allocation chunk (zero_outside_handle), punch and zero-range edges not
 * ordered (zero_order_eof_only) but written back before the handle in SYNC
 * mode (sync_persist_zero), one SYNC test for every mode
 * (unified_sync_check), the size raised once after the last chunk and the
 * EOF folio write-protected after that (isize_ext_outside_handle); and
 * 7.2's punch ending at the block holding i_size (punch_end_eof_block); and,
 * by its toggle, insert range's right shift as it was before 4.10, which
 * forgot a one-block extent at the offset that ends a leaf
 * (insert_shift_start_block).
 *
 * Journalled metadata: every allocation chunk, conversion and size change
 * is one handle (the extent blocks, the bitmap, the raw inode); punch,
 * collapse and insert do their extent work and size change in one
 * EXT4_HT_TRUNCATE handle.  Data: nothing is written except the zeroed
 * partial blocks (dirty in the page cache, ordered in data=ordered,
 * journalled in data=journal) and what collapse and insert write back
 * before they drop the page cache.
 *
 * SYNC: before unified_sync_check punch, collapse and insert test
 * IS_SYNC(inode) (chattr +S) and zero range and allocation test the file's
 * O_SYNC (an open -s descriptor: ext4_fallocate_file's @o_sync; ext4_do_fallocate
 * then commits i_sync_tid, ext4_zero_range makes its handle synchronous);
 * after it every mode tests IS_SYNC or O_SYNC (7.2's extents.c:
 * ext4_collapse_range and ext4_insert_range too).
 *
 * fdatasync: every handle that changes the file's blocks records its
 * transaction in i_datasync_tid (ext4_update_inode_fsync_trans); before
 * 67a7d5f561f4 (4.12, fdatasync_extent_ops) punch, zero range, collapse and
 * insert did not, before c894aa97577e (4.15, fdatasync_fallocate) the
 * allocation chunks did not.
 *
 * Not modelled: the ENOSPC retry after a forced commit, FALLOC_FL_WRITE_ZEROES
 * and NO_HIDE_STALE, fast commit, clusters
 * (bigalloc), indirect-block files.
 */
#include "ext4.h"
#include "blkdev.h"

#define FALLOC_FL_MODE_MASK (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | \
			     FALLOC_FL_ZERO_RANGE | FALLOC_FL_INSERT_RANGE)

/* EXT4_MAX_BLOCKS(): the blocks [offset, offset + len) touches. */
static uint64_t ext4_max_blocks(const struct ext4_fs *fs, int64_t offset, int64_t len)
{
	uint32_t bits = ext4_blkbits(fs);
	uint64_t bs = fs->opts.block_size;

	return (((uint64_t)(offset + len) + bs - 1) >> bits) - ((uint64_t)offset >> bits);
}

static bool block_aligned(const struct ext4_fs *fs, int64_t v)
{
	return (v & (int64_t)(fs->opts.block_size - 1)) == 0;
}

/* filemap_write_and_wait_range(): write back [start, end] (bytes) and wait. */
static int filemap_write_and_wait_range(struct ext4_fs *fs, int64_t start, int64_t end)
{
	int err = ext4_writepages(fs, start, end, WB_SYNC_ALL, true);

	ext4_wait_io_range(fs, start, end);
	return err;
}

/*
 * Before the 6.5 data=journal rework (jdata_dirty_folio off), zero range,
 * collapse and insert start with ext4_force_commit() in data=journal:
 * writeback does not commit journalled data then, so this is what puts the
 * file's data in the journal before the page cache goes.
 */
static void ext4_force_commit_jdata(struct ext4_fs *fs)
{
	if (ext4_should_journal_data(fs) && !ext4_sem(fs, jdata_dirty_folio))
		jbd2_journal_force_commit(&fs->journal);
}

/*
 * Is this fallocate synchronous (see the header on unified_sync_check)?
 * @is_sync_test: the mode tests IS_SYNC(inode) before the series (punch,
 * collapse, insert), else the file's O_SYNC (@o_sync: allocation, zero
 * range); after it both.
 */
static bool falloc_sync(const struct ext4_fs *fs, bool is_sync_test, bool o_sync)
{
	bool is_sync = (fs->inode->i_flags & EXT4_SYNC_FL) != 0;

	if (ext4_sem(fs, unified_sync_check))
		return is_sync || o_sync;
	return is_sync_test ? is_sync : o_sync;
}

static const struct ext4_size_rule alloc_isize = EXT4_SIZE_RULE("ext4_alloc_file_blocks",
	"fallocate without KEEP_SIZE raises i_size to the end of each allocated chunk");
static const struct ext4_size_rule alloc_disksize = EXT4_SIZE_RULE("ext4_alloc_file_blocks",
	"fallocate allocated the blocks: i_disksize follows i_size");

/*
 * The size part of one ext4_alloc_file_blocks() chunk that ends at byte
 * @epos, under @h, as before the 2026 series: raise i_size and i_disksize
 * to min(epos, new_size); where that passes the size the call started
 * from, write-protect the EOF folio and zero [old size, min(epos, its
 * block end)) (c7fc0366c656).  With patch 08 the zeroing moved before the
 * loop, with patch 12 the size update after it (ext4_alloc_size_after).
 * Returns the size reached.
 */
static int64_t ext4_alloc_update_size(struct ext4_fs *fs, handle_t *h, int64_t old_size,
				      int64_t epos, int64_t new_size)
{
	epos = SIM_MIN(epos, new_size);
	ext4_update_inode_size(fs, epos, &alloc_isize, &alloc_disksize);
	if (epos <= old_size)
		return epos;
	pagecache_isize_extended(fs, old_size, epos);
	if (ext4_sem(fs, eof_zero_fs) && !ext4_sem(fs, zero_outside_handle))
		ext4_zero_partial_blocks(fs, h, old_size, epos - old_size, true, NULL);
	return epos;
}

/*
 * The size update as 7.2's ext4_alloc_file_blocks() makes it
 * (isize_ext_outside_handle): once, after the last chunk, in a 1-credit
 * handle of its own, to min(@epos, @new_size); the EOF folio is
 * write-protected after that handle.
 */
static int ext4_alloc_size_after(struct ext4_fs *fs, int64_t old_size, int64_t epos,
				 int64_t new_size)
{
	handle_t *h;
	int err;

	epos = SIM_MIN(epos, new_size);
	h = ext4_journal_start(fs, "ext4_alloc_file_blocks", HT_MISC, 1);
	ext4_update_inode_size(fs, epos, &alloc_isize, &alloc_disksize);
	ext4_mark_inode_dirty(fs, h);
	ext4_update_inode_fsync_trans(fs, h, true);
	err = ext4_journal_stop(fs, "ext4_alloc_file_blocks", h);
	if (epos > old_size)
		pagecache_isize_extended(fs, old_size, epos);
	return err;
}

/* One chunk of ext4_alloc_file_blocks(): returns the blocks mapped, or <= 0. */
static int ext4_alloc_chunk(struct ext4_fs *fs, uint32_t lblk, uint64_t len, int64_t old_size,
			    int64_t new_size, uint32_t flags)
{
	struct ext4_map_blocks map = {
		.m_lblk = lblk, .m_len = (uint32_t)SIM_MIN(len, (uint64_t)EXT_MAX_LBLK),
	};
	handle_t *h = ext4_journal_start(fs, "ext4_alloc_file_blocks", HT_MAP_BLOCKS, 8);
	int mapped = ext4_map_blocks(fs, h, &map, flags);

	if (mapped > 0 && new_size && !ext4_sem(fs, isize_ext_outside_handle))
		ext4_alloc_update_size(fs, h, old_size,
				       ((int64_t)lblk + mapped) << ext4_blkbits(fs), new_size);
	ext4_mark_inode_dirty(fs, h);
	if (mapped > 0 && ext4_sem(fs, fdatasync_fallocate))
		ext4_update_inode_fsync_trans(fs, h, true);
	ext4_journal_stop(fs, "ext4_alloc_file_blocks", h);
	return mapped;
}

/*
 * ext4_alloc_file_blocks(): map @len blocks from @lblk with @flags (create
 * unwritten; with GET_BLOCKS_CONVERT_UNWRITTEN also turn written blocks
 * unwritten), one EXT4_HT_MAP_BLOCKS handle per extent mapped.  With
 * @new_size beyond the size: before the 2026 series each chunk raises the
 * size to its end (capped at @new_size) in its handle and zeroes the old
 * EOF block up to it; in 7.2 the rest of the old EOF block is zeroed first
 * (ext4_block_zero_eof, before any handle: a hole there stays one) and the
 * size is raised once after the last chunk.  An error part-way keeps the
 * chunks before it, size included.  Returns 0 or the first error (ENOSPC).
 */
static int ext4_alloc_file_blocks(struct ext4_fs *fs, uint32_t lblk, uint64_t len,
				  int64_t new_size, uint32_t flags)
{
	int64_t old_size = fs->inode->i_size, epos = 0;
	int ret = 0;

	if (new_size > old_size && ext4_sem(fs, eof_zero_fs) && ext4_sem(fs, zero_outside_handle) &&
	    (ret = ext4_block_zero_eof(fs, old_size, INT64_MAX)) < 0)
		return ret;
	while (len > 0) {
		int mapped = ext4_alloc_chunk(fs, lblk, len, old_size, new_size, flags);

		if (mapped <= 0) {
			ret = mapped;
			break;
		}
		lblk += (uint32_t)mapped;
		len -= (uint64_t)mapped;
		epos = (int64_t)lblk << ext4_blkbits(fs);
	}
	if (epos && new_size && ext4_sem(fs, isize_ext_outside_handle)) {
		int err = ext4_alloc_size_after(fs, old_size, epos, new_size);

		ret = ret < 0 ? ret : err;
	}
	return ret < 0 ? ret : 0;
}

/*
 * The size mode 0 and ZERO_RANGE aim for (inode_newsize_ok): none with
 * KEEP_SIZE, nor for a range ending at or below both sizes.  Before
 * 51e3ae81ec58 (falloc_disksize off) only i_size counted: a range ending
 * between i_disksize and i_size, with delayed writes pending there, left
 * i_disksize as it was.
 */
static int falloc_new_size(const struct ext4_fs *fs, int mode, int64_t end, int64_t *new_size)
{
	*new_size = 0;
	if ((mode & FALLOC_FL_KEEP_SIZE) ||
	    (end <= fs->inode->i_size &&
	     (end <= fs->inode->i_disksize || !ext4_sem(fs, falloc_disksize))))
		return 0;
	if (end > ext4_max_size(fs))
		return -EFBIG;
	*new_size = end;
	return 0;
}

/* ext4_do_fallocate(): mode 0 and KEEP_SIZE, unwritten extents over the holes. */
static int ext4_do_fallocate(struct ext4_fs *fs, int mode, int64_t offset, int64_t len,
			     bool o_sync)
{
	int64_t new_size;
	int err = falloc_new_size(fs, mode, offset + len, &new_size);

	if (err < 0)
		return err;
	err = ext4_alloc_file_blocks(fs, (uint32_t)(offset >> ext4_blkbits(fs)),
				     ext4_max_blocks(fs, offset, len), new_size,
				     GET_BLOCKS_CREATE | GET_BLOCKS_UNWRIT_EXT);
	if (err == 0 && falloc_sync(fs, false, o_sync))
		jbd2_complete_transaction(&fs->journal, fs->inode->i_sync_tid);
	return err;
}

/*
 * The 2026 series' patch 09: in SYNC mode the zeroed partial blocks of a
 * punch or zero range are made durable (they are not ordered since patch
 * 05, so the synchronous commit alone would not).  7.2 does it as the
 * zeroing is done, before the operation's handle: when anything was zeroed,
 * filemap_write_and_wait_range() of [offset, end); the synchronous commit
 * that follows flushes the device before its commit block.
 * (sync_persist_zero_late() is the order when patch 08 is off.)
 */
static int zero_edges_early(struct ext4_fs *fs, int64_t offset, int64_t len, bool sync)
{
	bool zeroed = false;
	int err;

	if (!ext4_sem(fs, zero_outside_handle))
		return 0;
	if ((err = ext4_zero_partial_blocks(fs, NULL, offset, len, false, &zeroed)) < 0)
		return err;
	if (zeroed && sync && ext4_sem(fs, sync_persist_zero))
		return filemap_write_and_wait_range(fs, offset, offset + len - 1);
	return 0;
}

/*
 * Patch 09 with the zeroing still inside the handle (only by --patch, patch
 * 08 off): write back, wait for and flush the two edge blocks after the
 * handle, so the promise holds: zero after any crash once the call returns.
 */
static int sync_persist_zero_late(struct ext4_fs *fs, int64_t offset, int64_t len, bool sync,
				  const char *where)
{
	int64_t bs = fs->opts.block_size, end = offset + len;
	int err;

	if (!sync || !ext4_sem(fs, sync_persist_zero) || ext4_sem(fs, zero_outside_handle))
		return 0;
	if ((err = filemap_write_and_wait_range(fs, offset & ~(bs - 1), offset | (bs - 1))) < 0 ||
	    (err = filemap_write_and_wait_range(fs, (end - 1) & ~(bs - 1),
						 (end - 1) | (bs - 1))) < 0)
		return err;
	blkdev_flush(fs->bdev, where);         /* blkdev_issue_flush: durable on return */
	fs->counters->flushes++;
	return 0;
}

static const struct ext4_size_rule disksize_before_punch = EXT4_SIZE_RULE_TOGGLE(
	"ext4_update_disksize_before_punch", "the page cache of the range is about to be "
	"dropped, and with it the writeback that would raise i_disksize: it is raised first, to "
	"min(i_size, end of the range)", disksize_before_punch_partial);

/*
 * ext4_update_disksize_before_punch(): the page cache of the range is about
 * to go, and with it the delalloc writeback that would raise i_disksize;
 * raise it now, in a handle of its own, to min(i_size, offset + len) (before
 * 9d80eaa1a1d3: to i_size, and only when the range reached it).  Before
 * 011278485ecc (disksize_before_punch off) the function did not exist: punch
 * and zero range dropped the page cache with i_disksize as it was (and the
 * later change to it, disksize_before_punch_partial, has nothing to change).
 */
static int ext4_update_disksize_before_punch(struct ext4_fs *fs, int64_t offset, int64_t len)
{
	int64_t size = fs->inode->i_size;
	handle_t *h;

	if (!ext4_sem(fs, disksize_before_punch) || offset > size)
		return 0;
	if (offset + len < size) {
		if (!ext4_sem(fs, disksize_before_punch_partial))
			return 0;
		size = offset + len;
	}
	if (fs->inode->i_disksize >= size)
		return 0;
	h = ext4_journal_start(fs, "ext4_update_disksize_before_punch", HT_MISC, 1);
	ext4_update_i_disksize(fs, size, &disksize_before_punch);
	ext4_mark_inode_dirty(fs, h);
	return ext4_journal_stop(fs, "ext4_update_disksize_before_punch", h);
}

/*
 * ext4_truncate_folio(): write-protect the folio holding @start when
 * [start, end) covers a whole block of it, so that a store to what stays
 * of the folio faults and maps its blocks again.
 */
static void ext4_truncate_folio(struct ext4_fs *fs, int64_t start, int64_t end)
{
	int64_t bs = fs->opts.block_size;
	struct folio *f;

	if ((start + bs - 1) / bs * bs >= end / bs * bs)
		return;
	f = filemap_get_folio(&fs->inode->i_mapping, (uint64_t)start >> PAGE_SHIFT);
	if (f)
		f->flags &= (uint8_t)~PG_mkwrite;       /* folio_mkclean */
}

/*
 * ext4_truncate_page_cache_block_range(): drop [start, end) from the page
 * cache, zeroing the partial folios' share of it.  data=journal writes the
 * range back first (committing it); with blocks smaller than pages the
 * partial folios are write-protected.
 */
static int ext4_truncate_page_cache_block_range(struct ext4_fs *fs, int64_t start,
						int64_t end)
{
	int64_t bs = fs->opts.block_size;
	int err;

	if (ext4_should_journal_data(fs)) {
		if ((err = filemap_write_and_wait_range(fs, start, end - 1)) < 0)
			return err;
	} else if (((start | end) & (PAGE_SIZE - 1)) && bs < PAGE_SIZE &&
		   start < fs->inode->i_size) {
		int64_t boundary = (start + PAGE_SIZE - 1) & ~(int64_t)(PAGE_SIZE - 1);

		ext4_truncate_folio(fs, start, SIM_MIN(boundary, end));
		if (end > boundary)
			ext4_truncate_folio(fs, end & ~(int64_t)(PAGE_SIZE - 1), end);
	}
	truncate_pagecache_range(fs, start, end - 1);
	return 0;
}

static const struct ext4_size_rule zero_range_isize = EXT4_SIZE_RULE("ext4_zero_range",
	"zero range without KEEP_SIZE raises i_size to the range's end");
static const struct ext4_size_rule zero_range_disksize = EXT4_SIZE_RULE("ext4_zero_range",
	"zero range allocated the blocks: i_disksize follows i_size");

/*
 * ext4_zero_range(): FALLOC_FL_ZERO_RANGE.  An unaligned range first gets
 * its blocks preallocated (unwritten, sizes per chunk); then i_disksize is
 * brought up to the range, the page cache of the range dropped, the whole
 * blocks inside converted to unwritten (read as zeros, no data I/O), and
 * the partial blocks at the edges zeroed in one EXT4_HT_MISC handle that
 * also sets the new size.
 */
static int ext4_zero_range(struct ext4_fs *fs, int mode, int64_t offset, int64_t len,
			   bool o_sync)
{
	uint32_t bits = ext4_blkbits(fs), flags = GET_BLOCKS_CREATE | GET_BLOCKS_UNWRIT_EXT;
	int64_t end = offset + len, new_size, bs = fs->opts.block_size;
	int64_t start_lblk = (offset + bs - 1) >> bits, end_lblk = end >> bits;
	bool aligned = block_aligned(fs, offset) && block_aligned(fs, end);
	handle_t *h;
	int err;

	ext4_force_commit_jdata(fs);
	if ((err = falloc_new_size(fs, mode, end, &new_size)) < 0)
		return err;
	if (!aligned && (err = ext4_alloc_file_blocks(fs, (uint32_t)(offset >> bits),
						       ext4_max_blocks(fs, offset, len),
						       new_size, flags)) < 0)
		return err;
	if (ext4_sem(fs, punch_zero_refactor)) {
		if ((err = ext4_update_disksize_before_punch(fs, offset, len)) < 0 ||
		    (err = ext4_truncate_page_cache_block_range(fs, offset, end)) < 0)
			return err;
	} else if (end_lblk > start_lblk) {
		if ((err = ext4_update_disksize_before_punch(fs, offset, len)) < 0)
			return err;
		truncate_pagecache_range(fs, start_lblk << bits, (end_lblk << bits) - 1);
	}
	if (end_lblk > start_lblk &&
	    (err = ext4_alloc_file_blocks(fs, (uint32_t)start_lblk,
					  (uint64_t)(end_lblk - start_lblk), new_size,
					  flags | GET_BLOCKS_CONVERT_UNWRITTEN)) < 0)
		return err;
	if (aligned)
		return 0;
	if ((err = zero_edges_early(fs, offset, len, falloc_sync(fs, false, o_sync))) < 0)
		return err;
	h = ext4_journal_start(fs, "ext4_zero_range", HT_MISC, ext4_sem(fs, zero_outside_handle) ? 1 :
				ext4_should_journal_data(fs) ? 5 : 3);
	if (!ext4_sem(fs, zero_outside_handle))
		err = ext4_zero_partial_blocks(fs, h, offset, len, false, NULL);
	if (err == 0) {
		if (new_size)
			ext4_update_inode_size(fs, new_size, &zero_range_isize,
					       &zero_range_disksize);
		ext4_mark_inode_dirty(fs, h);
		if (ext4_sem(fs, fdatasync_extent_ops))
			ext4_update_inode_fsync_trans(fs, h, true);
		if (falloc_sync(fs, false, o_sync))
			ext4_handle_sync(h);
	}
	ext4_journal_stop(fs, "ext4_zero_range", h);
	if (err == 0)
		err = sync_persist_zero_late(fs, offset, len, falloc_sync(fs, false, o_sync),
					     "ext4_zero_range");
	return err;
}

/*
 * The page cache step of ext4_punch_hole(): i_disksize raised, then the
 * range dropped (ext4_truncate_page_cache_block_range).  Before the 6.14
 * refactor (punch_zero_refactor off) both happen only when the range holds
 * a whole block, and only the whole blocks are dropped.
 */
static int ext4_punch_drop_page_cache(struct ext4_fs *fs, int64_t offset, int64_t end)
{
	int64_t bs = fs->opts.block_size;
	int64_t first = (offset + bs - 1) & ~(bs - 1), last = (end & ~(bs - 1)) - 1;
	int err;

	if (ext4_sem(fs, punch_zero_refactor)) {
		if ((err = ext4_update_disksize_before_punch(fs, offset, end - offset)) < 0)
			return err;
		return ext4_truncate_page_cache_block_range(fs, offset, end);
	}
	if (last <= first)
		return 0;
	if ((err = ext4_update_disksize_before_punch(fs, offset, end - offset)) < 0)
		return err;
	truncate_pagecache_range(fs, first, last);
	return 0;
}

/*
 * ext4_punch_hole(): FALLOC_FL_PUNCH_HOLE (with KEEP_SIZE).  Nothing past
 * i_size; a range past it ends at the end of the page holding i_size (7.2,
 * punch_end_eof_block: a range reaching it, at the end of its block).
 * i_disksize first, then the page cache of the range, then one
 * EXT4_HT_TRUNCATE handle zeroes the partial blocks and frees the whole
 * ones (delayed ones lose their reservation).
 */
static int ext4_punch_hole(struct ext4_fs *fs, int64_t offset, int64_t length, bool o_sync)
{
	int64_t end = offset + length, bs = fs->opts.block_size, start_lblk, end_lblk;
	uint32_t bits = ext4_blkbits(fs);
	handle_t *h;
	int err;

	if (!ext4_sem(fs, punch_zero_refactor) && mapping_tagged_dirty(&fs->inode->i_mapping) &&
	    (err = filemap_write_and_wait_range(fs, offset, end - 1)) < 0)
		return err;
	if (offset >= fs->inode->i_size)
		return 0;
	if (ext4_sem(fs, punch_end_eof_block) && end >= fs->inode->i_size)
		end = (fs->inode->i_size + bs - 1) & ~(bs - 1);
	else if (!ext4_sem(fs, punch_end_eof_block) && end > fs->inode->i_size)
		end = (fs->inode->i_size + PAGE_SIZE - 1) & ~(int64_t)(PAGE_SIZE - 1);
	length = end - offset;
	if ((err = ext4_punch_drop_page_cache(fs, offset, end)) < 0)
		return err;
	if ((err = zero_edges_early(fs, offset, length, falloc_sync(fs, true, o_sync))) < 0)
		return err;
	h = ext4_journal_start(fs, "ext4_punch_hole", HT_TRUNCATE, 16);
	if (!ext4_sem(fs, zero_outside_handle) &&
	    (err = ext4_zero_partial_blocks(fs, h, offset, length, false, NULL)) < 0)
		goto out;
	start_lblk = (offset + bs - 1) >> bits;
	end_lblk = end >> bits;
	if (end_lblk > start_lblk)
		ext4_ext_remove_space(fs, h, (uint32_t)start_lblk, (uint32_t)(end_lblk - 1));
	ext4_mark_inode_dirty(fs, h);
	if (ext4_sem(fs, fdatasync_extent_ops))
		ext4_update_inode_fsync_trans(fs, h, true);
	if (falloc_sync(fs, true, o_sync))
		ext4_handle_sync(h);
out:
	ext4_journal_stop(fs, "ext4_punch_hole", h);
	if (err == 0)
		err = sync_persist_zero_late(fs, offset, length, falloc_sync(fs, true, o_sync),
					     "ext4_punch_hole");
	return err;
}

/* ext4_es_remove_extent() of everything from @lblk on: drop delayed extents. */
static void ext4_es_remove_delayed(struct ext4_fs *fs, uint32_t lblk)
{
	struct ext4_es_tree *t = &fs->inode->i_es;

	for (uint32_t i = t->es_nr; i-- > 0;) {
		struct extent_status e = t->es[i];

		if (e.es_state != ES_DELAYED || (uint64_t)e.es_lblk + e.es_len <= lblk)
			continue;
		e.es_len -= e.es_lblk < lblk ? lblk - e.es_lblk : 0;
		e.es_lblk = SIM_MAX(e.es_lblk, lblk);
		ext4_da_release_space(fs, es_remove(t, e.es_lblk, e.es_len, NULL, 0, NULL));
	}
}

/*
 * The common start of collapse and insert: what will move (and the rest
 * of the page holding @offset) written back and waited for, then the page
 * cache from that page on dropped.  Collapse writes [page, offset] and
 * [@skip_end, EOF); insert (@skip_end 0) everything from the page on.
 */
static int shift_prepare(struct ext4_fs *fs, int64_t offset, int64_t skip_end)
{
	int64_t start = offset & ~(int64_t)(PAGE_SIZE - 1);
	int err;

	if (skip_end) {
		err = filemap_write_and_wait_range(fs, start, offset);
		if (err == 0)
			err = filemap_write_and_wait_range(fs, skip_end, INT64_MAX);
	} else {
		err = filemap_write_and_wait_range(fs, start, INT64_MAX);
	}
	if (err < 0)
		return err;
	truncate_pagecache(fs, start);
	return 0;
}

static const struct ext4_size_rule collapse_isize = EXT4_SIZE_RULE("ext4_collapse_range",
	"collapse range shortens the file by the removed length");
static const struct ext4_size_rule collapse_disksize = EXT4_SIZE_RULE("ext4_collapse_range",
	"collapse range: i_disksize follows the shortened i_size");

/*
 * ext4_collapse_range(): FALLOC_FL_COLLAPSE_RANGE.  Block-aligned and
 * ending before EOF (else EINVAL: that would be a truncate).  One
 * EXT4_HT_TRUNCATE handle frees the range's blocks, shifts the extents
 * after it left and sets i_size and i_disksize to size - len.
 */
static int ext4_collapse_range(struct ext4_fs *fs, int64_t offset, int64_t len, bool o_sync)
{
	uint32_t bits = ext4_blkbits(fs), start_lblk, end_lblk;
	handle_t *h;
	int err;

	if (!block_aligned(fs, offset) || !block_aligned(fs, len))
		return -EINVAL;
	ext4_force_commit_jdata(fs);
	if (offset + len >= fs->inode->i_size)
		return -EINVAL;
	if ((err = shift_prepare(fs, offset, offset + len)) < 0)
		return err;
	start_lblk = (uint32_t)(offset >> bits);
	end_lblk = (uint32_t)((offset + len) >> bits);
	h = ext4_journal_start(fs, "ext4_collapse_range", HT_TRUNCATE, 16);
	ext4_es_remove_delayed(fs, start_lblk);
	ext4_ext_remove_space(fs, h, start_lblk, end_lblk - 1);
	es_shift(&fs->inode->i_es, end_lblk, end_lblk - start_lblk, true);   /* SHIFT_LEFT */
	ext4_ext_dirty(fs, h);
	i_size_write(fs, fs->inode->i_size - len, &collapse_isize);
	ext4_set_i_disksize(fs, fs->inode->i_size, &collapse_disksize);
	ext4_mark_inode_dirty(fs, h);
	if (ext4_sem(fs, fdatasync_extent_ops))
		ext4_update_inode_fsync_trans(fs, h, true);
	if (falloc_sync(fs, true, o_sync))
		ext4_handle_sync(h);
	return ext4_journal_stop(fs, "ext4_collapse_range", h);
}

/*
 * ext4_ext_shift_extents(), SHIFT_RIGHT (insert range): every extent from
 * @start on moves @shift blocks right.  The kernel walks the leaves from the
 * last one back, shifting in each the extents from @start on, and goes on to
 * the leaf before while @start is below the walked leaf's first block less
 * one; before 14d981f468a1 (insert_shift_start_block off) the test was
 * `start < stop`, not `start <= stop`, so when the extent at @start is a
 * single block ending a leaf and the next leaf starts right after it, that
 * leaf is never walked and the block stays at @start: the hole opens one
 * block late.  The leaves are the file's extent blocks (extents.c);
 * the skipped extent is left merged with the rest of the one split at @start.
 * EINVAL, shifting nothing, when the last extent would end past
 * EXT_MAX_BLOCKS (349fa7d6e193, in every modelled kernel).
 */
static int ext4_ext_shift_extents(struct ext4_fs *fs, uint32_t start, uint32_t shift)
{
	struct ext4_es_tree *t = &fs->inode->i_es;
	uint64_t last_end = 0;

	for (uint32_t i = t->es_nr; i-- > 0;)
		if (t->es[i].es_state != ES_DELAYED) {
			last_end = (uint64_t)t->es[i].es_lblk + t->es[i].es_len;
			break;
		}
	if (last_end + shift > EXT_MAX_LBLK)            /* past EXT_MAX_BLOCKS: 349fa7d6e193 */
		return -EINVAL;
	if (!ext4_sem(fs, insert_shift_start_block) &&
	    ext4_ext_leaf_ends_at(fs, start))
		start++;
	es_shift(t, start, shift, false);                                  /* SHIFT_RIGHT */
	return 0;
}

static const struct ext4_size_rule insert_isize = EXT4_SIZE_RULE("ext4_insert_range",
	"insert range lengthens the file by the inserted length");
static const struct ext4_size_rule insert_disksize = EXT4_SIZE_RULE("ext4_insert_range",
	"insert range: i_disksize grows by the inserted length");

/*
 * ext4_insert_range(): FALLOC_FL_INSERT_RANGE.  Block-aligned, starting
 * before EOF (else EINVAL), not growing past the maximum size (EFBIG).
 * One EXT4_HT_TRUNCATE handle grows i_size and i_disksize by @len, splits
 * the extent across @offset and shifts everything from it right, leaving a
 * hole.  ENOSPC when the extent area has no room for the split.  EINVAL
 * when the shift would move the last extent past EXT_MAX_BLOCKS: the sizes
 * were raised first ("expand file to avoid data loss if there is error
 * while shifting") and stay raised, nothing moves.
 */
static int ext4_insert_range(struct ext4_fs *fs, int64_t offset, int64_t len, bool o_sync)
{
	uint32_t bits = ext4_blkbits(fs), lblk = (uint32_t)(offset >> bits);
	handle_t *h;
	int err, stop_err;

	if (!block_aligned(fs, offset) || !block_aligned(fs, len))
		return -EINVAL;
	ext4_force_commit_jdata(fs);
	if (offset >= fs->inode->i_size)
		return -EINVAL;
	if (len > ext4_max_size(fs) - fs->inode->i_size)
		return -EFBIG;
	if (!ext4_ext_has_room(fs, 2))
		return -ENOSPC;
	if ((err = shift_prepare(fs, offset, 0)) < 0)
		return err;
	h = ext4_journal_start(fs, "ext4_insert_range", HT_TRUNCATE, 16);
	i_size_write(fs, fs->inode->i_size + len, &insert_isize);
	ext4_set_i_disksize(fs, fs->inode->i_disksize + len, &insert_disksize);
	ext4_mark_inode_dirty(fs, h);
	ext4_es_remove_delayed(fs, lblk);
	err = ext4_ext_shift_extents(fs, lblk, (uint32_t)(len >> bits));
	if (err == 0) {
		ext4_ext_dirty(fs, h);
		if (ext4_sem(fs, fdatasync_extent_ops))
			ext4_update_inode_fsync_trans(fs, h, true);
	}
	if (falloc_sync(fs, true, o_sync))
		ext4_handle_sync(h);
	stop_err = ext4_journal_stop(fs, "ext4_insert_range", h);
	return err < 0 ? err : stop_err;        /* a failed shift: the raised sizes stay */
}

/* vfs_fallocate()'s checks of the arguments. */
static int vfs_fallocate_checks(const struct ext4_fs *fs, int mode, int64_t offset, int64_t len)
{
	if (offset < 0 || len <= 0)
		return -EINVAL;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	if ((mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)) &&
	    (mode & ~(FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)))
		return -EINVAL;
	if ((mode & FALLOC_FL_UNSHARE_RANGE) &&
	    (mode & ~(FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE)))
		return -EINVAL;
	if (offset + len > ext4_max_size(fs))
		return -EFBIG;
	return 0;
}

/*
 * ext4_fallocate(): fallocate(2) on the file with @mode (FALLOC_FL_*).
 * Returns 0 or a negative errno: EINVAL for bad ranges (and unaligned or
 * EOF-reaching collapse, insert at or past EOF), EFBIG past the maximum
 * size, ENOSPC when blocks run out (what was allocated stays), EOPNOTSUPP
 * for modes ext4 lacks, EIO after a shutdown.
 */
int ext4_fallocate(struct ext4_fs *fs, int mode, int64_t offset, int64_t len)
{
	return ext4_fallocate_file(fs, mode, offset, len, false);
}

int ext4_fallocate_file(struct ext4_fs *fs, int mode, int64_t offset, int64_t len, bool o_sync)
{
	int err;

	SIM_ASSERT(ext4_journal_current_handle(fs) == NULL);
	if ((err = vfs_fallocate_checks(fs, mode, offset, len)) < 0)
		return err;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_MODE_MASK))
		return -EOPNOTSUPP;
	if (fs->s_shutdown)
		return -EIO;
	file_update_time(fs);                   /* file_modified() */
	if (!(mode & FALLOC_FL_MODE_MASK))
		return ext4_do_fallocate(fs, mode, offset, len, o_sync);
	if (mode & FALLOC_FL_PUNCH_HOLE)
		return ext4_punch_hole(fs, offset, len, o_sync);
	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		return ext4_collapse_range(fs, offset, len, o_sync);
	if (mode & FALLOC_FL_INSERT_RANGE)
		return ext4_insert_range(fs, offset, len, o_sync);
	return ext4_zero_range(fs, mode, offset, len, o_sync);
}
