/*
 * truncate.c - size changes: ext4_setattr(ATTR_SIZE), ext4_truncate,
 * ext4_ext_truncate / ext4_ext_remove_space, ext4_block_truncate_page,
 * ext4_truncate_failed_write (fs/ext4/inode.c, extents.c) and
 * truncate_pagecache, truncate_pagecache_range (mm/truncate.c), as of 6.18.
 * ext4_ext_remove_space takes a block range, for punch and collapse too.
 *
 * Shrink: orphan add, i_disksize and i_size set in one handle; the page
 * cache is cut (the partial EOF folio zeroed in memory); ext4_truncate then
 * zeroes the tail of the EOF block (ordered), frees the blocks past it and
 * leaves the orphan list, in a second handle.
 * Grow (6.13+): the old EOF block's tail is zeroed (ordered) in the same
 * handle that sets the sizes; pagecache_isize_extended after it.  Since the
 * 2026 series (zero_outside_handle) both EOF zeroings run before the
 * operation's handle, through ext4_block_zero_eof(), which orders a zeroed
 * written block in a 1-credit handle of its own (7.2's inode.c).  The
 * experimental toggle exp_grow_zero_written_only skips that zeroing unless
 * the old EOF block is written (docs/writing-a-toggle.md).
 */
#include <stdlib.h>

#include "ext4.h"

/* ext4_block_truncate_page(): zero [from, end of its block), ordered as EOF zeroing. */
static int ext4_block_truncate_page(struct ext4_fs *fs, handle_t *h, int64_t from)
{
	uint32_t bs = fs->opts.block_size;
	uint32_t length = bs - (uint32_t)(from & (bs - 1));

	return ext4_block_zero_page_range(fs, h, from, length, true, NULL);
}

/*
 * ext4_ext_remove_space(): free the blocks of [start, end] (logical,
 * inclusive; EXT_MAX_LBLK for everything from @start on) and drop the
 * delayed ones with their reservation (ext4_es_remove_extent).
 */
int ext4_ext_remove_space(struct ext4_fs *fs, handle_t *h, uint32_t start, uint32_t end)
{
	struct ext4_es_tree *t = &fs->inode->i_es;
	uint32_t cap = t->es_nr + 2, nr = 0, delayed;
	struct es_freed *freed = sim_zalloc(cap * sizeof(*freed));

	SIM_ASSERT(start <= end);
	delayed = es_remove(t, start, (uint64_t)end + 1 - start, freed, cap, &nr);
	if (delayed)
		ext4_da_release_space(fs, delayed);
	for (uint32_t i = 0; i < nr; i++)
		ext4_free_blocks(fs, h, freed[i].pblk, freed[i].len);
	ext4_ext_dirty(fs, h);
	free(freed);
	return 0;
}

static const struct ext4_size_rule ext_truncate_disksize = EXT4_SIZE_RULE("ext4_ext_truncate",
	"truncate sets i_disksize to i_size before it frees the blocks past EOF");

/* ext4_ext_truncate(): i_disksize = i_size first, then free past EOF. */
static int ext4_ext_truncate(struct ext4_fs *fs, handle_t *h)
{
	uint32_t bs = fs->opts.block_size;
	uint64_t last_block = ((uint64_t)fs->inode->i_size + bs - 1) >> ext4_blkbits(fs);

	ext4_set_i_disksize(fs, fs->inode->i_size, &ext_truncate_disksize);
	ext4_mark_inode_dirty(fs, h);
	if (last_block > EXT_MAX_LBLK)
		return 0;
	return ext4_ext_remove_space(fs, h, (uint32_t)last_block, EXT_MAX_LBLK);
}

/*
 * ext4_truncate(): trim the blocks past i_size.  Orphan-protected so that a
 * crash in the middle is finished by orphan cleanup at mount.
 */
int ext4_truncate(struct ext4_fs *fs)
{
	uint32_t bs = fs->opts.block_size;
	handle_t *h;
	int err;

	bool unaligned = fs->inode->i_size & (bs - 1);

	if (fs->inode->i_size == 0 && fs->opts.auto_da_alloc)
		fs->inode->i_da_alloc_close = true;
	if (unaligned && ext4_sem(fs, zero_outside_handle) &&
	    (err = ext4_block_zero_eof(fs, fs->inode->i_size, INT64_MAX)) < 0)
		return err;
	h = ext4_journal_start(fs, "ext4_truncate", HT_TRUNCATE, 16);
	if (unaligned && !ext4_sem(fs, zero_outside_handle))
		ext4_block_truncate_page(fs, h, fs->inode->i_size);
	ext4_orphan_add(fs, h);
	err = ext4_ext_truncate(fs, h);
	if (!err && (fs->inode->i_flags & EXT4_SYNC_FL))
		ext4_handle_sync(h);
	if (fs->inode->i_links_count)   /* an unlinked inode's is ext4_evict_inode's */
		ext4_orphan_del(fs, h);
	ext4_mark_inode_dirty(fs, h);
	ext4_journal_stop(fs, "ext4_truncate", h);
	return err;
}

/* Drop a journaled buffer a truncate discards (jbd2 journal_unmap_buffer). */
static void discard_buffer(struct ext4_fs *fs, struct folio *f, unsigned i)
{
	struct buffer_head *bh = &f->bh[i];

	if (bh->b_state & BH_JBDDirty)
		jbd2_journal_unmap_buffer(&fs->journal, bh->b_blocknr);
	bh->b_state = 0;
	bh->b_blocknr = 0;
}

/* truncate_inode_partial_folio(): zero past @newsize, discard whole buffers. */
static void truncate_partial_folio(struct ext4_fs *fs, struct folio *f, uint32_t offset)
{
	uint32_t bs = fs->opts.block_size;

	folio_zero_segment(f, offset, PAGE_SIZE);
	if (!(f->flags & PG_buffers))
		return;
	for (unsigned i = 0; i < folio_nr_buffers(&fs->inode->i_mapping); i++)
		if (i * bs >= offset)
			discard_buffer(fs, f, i);
	if (!folio_all_buffers(&fs->inode->i_mapping, f, BH_Uptodate))
		f->flags &= (uint8_t)~PG_uptodate;
	folio_update_summary(&fs->inode->i_mapping, f);
}

/* truncate_pagecache(): remove everything past @newsize from the cache. */
void truncate_pagecache(struct ext4_fs *fs, int64_t newsize)
{
	struct address_space *m = &fs->inode->i_mapping;
	uint64_t first_whole = ((uint64_t)newsize + PAGE_SIZE - 1) >> PAGE_SHIFT;
	struct folio *partial = filemap_get_folio(m, (uint64_t)newsize >> PAGE_SHIFT);

	ext4_wait_io_range(fs, newsize, INT64_MAX);     /* folio_wait_writeback */
	if (partial && (newsize & (PAGE_SIZE - 1)))
		truncate_partial_folio(fs, partial, (uint32_t)(newsize & (PAGE_SIZE - 1)));
	while (m->a_nr > 0 && m->a_folios[m->a_nr - 1]->index >= first_whole) {
		struct folio *f = m->a_folios[m->a_nr - 1];

		for (unsigned i = 0; (f->flags & PG_buffers) && i < folio_nr_buffers(m); i++)
			discard_buffer(fs, f, i);
		filemap_remove_folio(m, f);
	}
}

/*
 * discard_buffer() for a range invalidation (block_invalidate_folio): the
 * buffer forgets its block and its dirtiness, keeps its (zeroed) bytes
 * uptodate.
 */
static void invalidate_buffer(struct ext4_fs *fs, struct folio *f, unsigned i)
{
	struct buffer_head *bh = &f->bh[i];
	uint16_t uptodate = bh->b_state & BH_Uptodate;

	discard_buffer(fs, f, i);
	bh->b_state = uptodate;
}

/*
 * truncate_inode_partial_folio(): zero [start, end) of the folio (bytes
 * within it) and invalidate the buffers wholly inside.
 */
static void truncate_inode_partial_folio(struct ext4_fs *fs, struct folio *f, uint32_t start,
					 uint32_t end)
{
	uint32_t bs = fs->opts.block_size;

	folio_zero_segment(f, start, end);
	if (!(f->flags & PG_buffers))
		return;
	for (unsigned i = 0; i < folio_nr_buffers(&fs->inode->i_mapping); i++)
		if (i * bs >= start && i * bs + bs <= end)
			invalidate_buffer(fs, f, i);
	folio_update_summary(&fs->inode->i_mapping, f);
}

/*
 * truncate_pagecache_range(): remove the folios wholly inside [lstart,
 * lend] (bytes, inclusive) from the cache; zero the part of the range in
 * the folios at either end.  Waits for their writeback first.
 */
void truncate_pagecache_range(struct ext4_fs *fs, int64_t lstart, int64_t lend)
{
	struct address_space *m = &fs->inode->i_mapping;
	uint32_t i;

	SIM_ASSERT(lstart <= lend);
	ext4_wait_io_range(fs, lstart, lend);           /* folio_wait_writeback */
	i = filemap_first_at(m, (uint64_t)lstart >> PAGE_SHIFT);
	while (i < m->a_nr && m->a_folios[i]->index <= (uint64_t)lend >> PAGE_SHIFT) {
		struct folio *f = m->a_folios[i];
		int64_t pos = (int64_t)f->index << PAGE_SHIFT;
		uint32_t s = (uint32_t)SIM_MAX((int64_t)0, lstart - pos);
		uint32_t e = (uint32_t)SIM_MIN((int64_t)PAGE_SIZE, lend + 1 - pos);

		if (s > 0 || e < PAGE_SIZE) {
			truncate_inode_partial_folio(fs, f, s, e);
			i++;
			continue;
		}
		for (unsigned k = 0; (f->flags & PG_buffers) && k < folio_nr_buffers(m); k++)
			discard_buffer(fs, f, k);
		filemap_remove_folio(m, f);
	}
}

/* ext4_truncate_failed_write(): drop what a failed extending write left. */
void ext4_truncate_failed_write(struct ext4_fs *fs)
{
	truncate_pagecache(fs, fs->inode->i_size);
	ext4_truncate(fs);
}

/*
 * Does growing from @oldsize zero the old EOF block's tail?  6.13 (eof_zero_fs)
 * always does; the experimental exp_grow_zero_written_only only when that
 * block is written on disk (experimental.c: an idea under test, not a kernel).
 */
static bool grow_zeroes_eof_block(const struct ext4_fs *fs, int64_t oldsize)
{
	struct extent_status es;
	uint32_t lblk = (uint32_t)(oldsize >> ext4_blkbits(fs));

	if (!ext4_sem(fs, eof_zero_fs) || !(oldsize & (fs->opts.block_size - 1)))
		return false;
	if (!ext4_sem(fs, exp_grow_zero_written_only))
		return true;
	return ext4_es_lookup_extent(&fs->inode->i_es, lblk, &es) && es.es_state == ES_WRITTEN;
}

static const struct ext4_size_rule setattr_isize = EXT4_SIZE_RULE("ext4_setattr",
	"truncate sets i_size to the new size, after i_disksize, under the same handle");
static const struct ext4_size_rule setattr_disksize = EXT4_SIZE_RULE("ext4_setattr",
	"truncate stores the new size in i_disksize first, under the handle that puts the inode "
	"on the orphan list");

/* The handle part of ext4_setattr() for a size change. */
static void setattr_size_handle(struct ext4_fs *fs, int64_t newsize, bool shrink)
{
	int64_t oldsize = fs->inode->i_size;
	bool zero = !shrink && grow_zeroes_eof_block(fs, oldsize);
	handle_t *h;

	if (zero && ext4_sem(fs, zero_outside_handle))
		ext4_block_zero_eof(fs, oldsize, INT64_MAX);
	h = __ext4_journal_start(fs, "ext4_setattr", HT_INODE, 3);
	if (shrink)
		ext4_orphan_add(fs, h);
	if (zero && !ext4_sem(fs, zero_outside_handle))
		ext4_block_truncate_page(fs, h, oldsize);
	ext4_set_i_disksize(fs, newsize, &setattr_disksize);
	ext4_mark_inode_dirty(fs, h);
	i_size_write(fs, newsize, &setattr_isize);
	__ext4_journal_stop("ext4_setattr", fs, h);
	if (!shrink)
		pagecache_isize_extended(fs, oldsize, newsize);
}

/* ext4_setattr(ATTR_SIZE) */
int ext4_setattr_size(struct ext4_fs *fs, int64_t newsize)
{
	int64_t oldsize = fs->inode->i_size;
	int err = 0;

	if (newsize < 0)
		return -EINVAL;
	if (newsize > ext4_max_size(fs))
		return -EFBIG;
	if (newsize != oldsize)
		setattr_size_handle(fs, newsize, newsize < oldsize);
	truncate_pagecache(fs, fs->inode->i_size);
	if (newsize <= oldsize)
		err = ext4_truncate(fs);
	if (fs->inode->i_orphan && fs->inode->i_links_count)
		ext4_orphan_del(fs, NULL);
	return err;
}
