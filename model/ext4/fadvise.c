/*
 * fadvise.c - posix_fadvise(2) on the file: mm/fadvise.c's generic_fadvise(),
 * which ext4 uses as its ->fadvise.  Of the advice values only
 * POSIX_FADV_DONTNEED changes what the model holds: it starts writeback of
 * the range (WB_SYNC_NONE, as sync_file_range -w) and then drops the range's
 * whole folios that are clean, idle and unmapped (invalidate_mapping_pages).
 * NORMAL, RANDOM and SEQUENTIAL set the file's read-ahead, and NOREUSE does
 * nothing (6.1) or marks the file for the LRU (later kernels): the model has
 * neither read-ahead nor an LRU.  WILLNEED's read-ahead is refused by the
 * step parser, since how much it reads depends on the device's settings.
 */
#include "ext4.h"

/*
 * invalidate_mapping_pages() over folios @first..@last (inclusive): drop
 * each folio that is clean, not under writeback, without dirty or
 * journalled buffers, and not mapped writable (mapping_evict_folio()
 * keeps a mapped folio; the model knows a folio is mapped once a store
 * fault made it writable).
 */
static void invalidate_mapping_pages(struct ext4_fs *fs, uint64_t first, uint64_t last)
{
	struct address_space *m = &fs->inode->i_mapping;

	for (uint32_t i = m->a_nr; i-- > 0;) {
		struct folio *f = m->a_folios[i];

		if (f->index < first || f->index > last)
			continue;
		if (f->flags & (PG_dirty | PG_writeback | PG_mkwrite))
			continue;
		if ((f->flags & PG_buffers) && folio_any_buffer(m, f, BH_JBDDirty | BH_Dirty))
			continue;
		filemap_remove_folio(m, f);
	}
}

/*
 * POSIX_FADV_DONTNEED over [@offset, @endbyte] (inclusive): the first and
 * last *whole* pages are dropped, a partial page at either end kept, except
 * that the last page goes when @endbyte ends a page or is the last byte of
 * the file.
 */
static void fadvise_dontneed(struct ext4_fs *fs, int64_t offset, int64_t endbyte)
{
	uint64_t start_index = ((uint64_t)offset + PAGE_SIZE - 1) >> PAGE_SHIFT;
	uint64_t end_index = (uint64_t)endbyte >> PAGE_SHIFT;

	(void)ext4_writepages(fs, offset, endbyte, WB_SYNC_NONE, true);
	if ((endbyte & (PAGE_SIZE - 1)) != PAGE_SIZE - 1 && endbyte != fs->inode->i_size - 1) {
		if (end_index == 0)
			return;
		end_index--;
	}
	if (end_index >= start_index)
		invalidate_mapping_pages(fs, start_index, end_index);
}

/*
 * generic_fadvise(): @advice is xfs_io's letter ('d' DONTNEED, 'n' NOREUSE,
 * 'r' RANDOM, 's' SEQUENTIAL, 0 NORMAL).  A @len of 0 means to the end of
 * the file and past it.  Returns 0, or -EINVAL for a negative length: the
 * write-out's own error is not returned (__filemap_fdatawrite_range()'s
 * result is dropped), after a shutdown too.
 */
int generic_fadvise(struct ext4_fs *fs, int64_t offset, int64_t len, char advice)
{
	int64_t endbyte;

	if (len < 0)
		return -EINVAL;
	if (len == 0 || offset > INT64_MAX - len)
		endbyte = INT64_MAX;
	else
		endbyte = offset + len - 1;
	if (advice == 'd')
		fadvise_dontneed(fs, offset, endbyte);
	return 0;
}
