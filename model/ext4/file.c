/*
 * file.c - the system-call entry points the scenario steps use: write(2)
 * through ext4_buffered_write_iter() with generic_write_checks() and
 * generic_write_sync(), close (ext4_release_file and its auto_da_alloc
 * flush), chattr +S/-S (ext4_ioctl_setflags) and evicting clean folios
 * (POSIX_FADV_DONTNEED), and stores through a shared mapping of the file
 * (the fault path of mm/memory.c and mm/filemap.c: filemap_fault,
 * do_shared_fault / wp_page_shared calling ext4_page_mkwrite), loads
 * through it (xfs_io's mread), and madvise(2)'s effects on a file mapping
 * (mm/madvise.c: MADV_POPULATE_READ/WRITE fault pages in, MADV_DONTNEED
 * zaps them).
 *
 * The model's clock does not advance, so no write changes c/mtime and
 * file_update_time() never dirties the inode (as for writes within one
 * timestamp tick on a real kernel).
 */
#include <string.h>

#include "ext4.h"

/*
 * ext4_write_checks() since the 2026 series (patch 13): a write starting
 * past EOF first zeroes the rest of the old EOF block, before the copy.
 */
static int ext4_write_checks_zero_eof(struct ext4_fs *fs, int64_t pos)
{
	if (!fs->sem.zero_eof_in_write_checks || pos <= fs->inode->i_size)
		return 0;
	return ext4_block_zero_eof(fs, fs->inode->i_size, pos);
}

/*
 * ext4_buffered_write_iter(): generic_write_checks(), the copy, then
 * generic_write_sync() for an IS_SYNC inode or an RWF_DSYNC write (@dsync).
 * @src NULL writes @fill bytes (write(2) from xfs_io's buffer), else the
 * bytes of @src (a splice write).
 */
int ext4_file_write_iter(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			 const uint8_t *src, bool dsync, int64_t readable, int64_t *written)
{
	int64_t max = ext4_max_size(fs);
	int err;

	*written = 0;
	if (fs->s_shutdown)
		return -EIO;
	if (pos < 0 || len < 0)
		return -EINVAL;
	if (len == 0)
		return 0;
	if (pos >= max)
		return -EFBIG;                  /* generic_write_checks_count() */
	len = SIM_MIN(len, max - pos);
	file_update_time(fs);                   /* ext4_write_checks: file_modified() */
	if ((err = ext4_write_checks_zero_eof(fs, pos)) < 0)
		return err;
	err = generic_perform_write(fs, pos, len, fill, src, readable, written);
	if (*written > 0 && ((fs->inode->i_flags & EXT4_SYNC_FL) || dsync))
		err = ext4_sync_file(fs, pos, pos + *written - 1, true);
	return err;
}

int ext4_file_write(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
		    int64_t readable, int64_t *written)
{
	return ext4_file_write_iter(fs, pos, len, fill, NULL, false, readable, written);
}

/* ext4_release_file(): after a truncate to 0, start writeback of new data. */
int ext4_release_file(struct ext4_fs *fs)
{
	if (!fs->inode->i_da_alloc_close)
		return 0;
	fs->inode->i_da_alloc_close = false;
	if (fs->s_shutdown)
		return 0;
	return ext4_alloc_da_blocks(fs);
}

/* ext4_alloc_da_blocks(): start writeback of a file with delayed blocks (filemap_flush). */
int ext4_alloc_da_blocks(struct ext4_fs *fs)
{
	if (fs->inode->i_reserved_data_blocks == 0)
		return 0;
	return ext4_writepages(fs, 0, INT64_MAX, WB_SYNC_NONE, true);
}

/* ext4_ioctl_setflags() for EXT4_SYNC_FL; an IS_SYNC inode commits at once. */
int ext4_set_sync_flag(struct ext4_fs *fs, bool on)
{
	handle_t *h;

	if (fs->s_shutdown)
		return -EIO;
	h = ext4_journal_start(fs, "ext4_ioctl_setflags", HT_INODE, 1);
	if (fs->inode->i_flags & EXT4_SYNC_FL)
		ext4_handle_sync(h);
	if (on)
		fs->inode->i_flags |= EXT4_SYNC_FL;
	else
		fs->inode->i_flags &= ~EXT4_SYNC_FL;
	ext4_mark_inode_dirty(fs, h);
	return ext4_journal_stop(fs, "ext4_ioctl_setflags", h);
}

/* invalidate_mapping_pages(): drop folios that are clean and idle. */
void ext4_evict_clean(struct ext4_fs *fs)
{
	struct address_space *m = &fs->inode->i_mapping;

	for (uint32_t i = m->a_nr; i-- > 0;) {
		struct folio *f = m->a_folios[i];

		if (f->flags & (PG_dirty | PG_writeback))
			continue;
		if ((f->flags & PG_buffers) && folio_any_buffer(m, f, BH_JBDDirty | BH_Dirty))
			continue;
		filemap_remove_folio(m, f);
	}
}

/*
 * A load fault on page @index of the mapping: filemap_fault() (SIGBUS at or
 * past the page holding EOF, else the folio read if it is not uptodate).
 * Returns 0 with the folio in *fp, -EFAULT for SIGBUS, or the read's error.
 */
static int ext4_load_fault(struct ext4_fs *fs, uint64_t index, struct folio **fp)
{
	uint64_t max_idx = ((uint64_t)fs->inode->i_size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	struct folio *f;
	int err;

	if (fs->s_shutdown)
		return -EIO;
	if (index >= max_idx)
		return -EFAULT;
	f = filemap_grab_folio(&fs->inode->i_mapping, index);
	if (!(f->flags & PG_uptodate) && (err = ext4_read_folio(fs, f)) < 0)
		return err;
	*fp = f;
	return 0;
}

/*
 * A store fault on page @index of the mapping: the load fault, then
 * ->page_mkwrite unless an earlier store left the folio writable
 * (PG_mkwrite).  Returns 0 with the folio in *fp, -EFAULT for SIGBUS, or the
 * read's or page_mkwrite's error.
 */
static int ext4_store_fault(struct ext4_fs *fs, uint64_t index, struct folio **fp)
{
	int err = ext4_load_fault(fs, index, fp);

	if (err < 0)
		return err;
	if (!((*fp)->flags & PG_mkwrite)) {
		if ((err = ext4_page_mkwrite(fs, *fp)) < 0)
			return err;
		(*fp)->flags |= PG_mkwrite;
	}
	return 0;
}

/*
 * Store @len bytes of @fill at @pos through a shared mapping of the file,
 * page by page in ascending order as xfs_io's mwrite does.  A store past
 * EOF inside the EOF page lands in the page cache only (it is not part of
 * the file); a page at or past the EOF page stops the stores with SIGBUS
 * (-EFAULT), the earlier ones staying.  *stored gets the bytes stored.
 */
int ext4_mmap_store(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
		    int64_t *stored)
{
	return ext4_mmap_store_dir(fs, pos, len, fill, false, stored);
}

/* The page-by-page stores of ext4_mmap_store() from the end of the range
 * down (xfs_io's mwrite -r): the last page faults first. */
static int ext4_mmap_store_reverse(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
				   int64_t *stored)
{
	int64_t end = pos + len;

	while (end > pos) {
		int64_t start = SIM_MAX(pos, (end - 1) & ~(int64_t)(PAGE_SIZE - 1));
		struct folio *f;
		int err = ext4_store_fault(fs, (uint64_t)start >> PAGE_SHIFT, &f);

		if (err < 0)
			return err;
		memset(f->data + (start & (PAGE_SIZE - 1)), fill, (size_t)(end - start));
		*stored += end - start;
		end = start;
	}
	return 0;
}

int ext4_mmap_store_dir(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			bool reverse, int64_t *stored)
{
	*stored = 0;
	if (pos < 0 || len < 0)
		return -EINVAL;
	if (reverse)
		return ext4_mmap_store_reverse(fs, pos, len, fill, stored);
	while (len > 0) {
		uint32_t off = (uint32_t)(pos & (PAGE_SIZE - 1));
		uint32_t n = (uint32_t)SIM_MIN((int64_t)(PAGE_SIZE - off), len);
		struct folio *f;
		int err = ext4_store_fault(fs, (uint64_t)pos >> PAGE_SHIFT, &f);

		if (err < 0)
			return err;
		memset(f->data + off, fill, n);
		*stored += n;
		pos += n;
		len -= n;
	}
	return 0;
}

/* munmap (the process that mapped the file went away): every page write-protected. */
void ext4_munmap(struct ext4_fs *fs)
{
	struct address_space *m = &fs->inode->i_mapping;

	for (uint32_t i = 0; i < m->a_nr; i++)
		m->a_folios[i]->flags &= (uint8_t)~PG_mkwrite;
}

/*
 * Load [@pos, @pos + @len) through a shared mapping, page by page (from the
 * last page down with @reverse, as xfs_io's mread -r), into @out (NULL: the
 * loads only fault, as MADV_POPULATE_READ).  The mapping shows the whole
 * folio: bytes past EOF in the EOF page are what the folio holds (zeros
 * from the read, or an earlier store's).  A page at or past the EOF page
 * stops the loads with SIGBUS (-EFAULT); *loaded gets the bytes loaded, of
 * a prefix of the range (a suffix with @reverse).
 */
int ext4_mmap_load(struct ext4_fs *fs, int64_t pos, int64_t len, bool reverse, uint8_t *out,
		   int64_t *loaded)
{
	int64_t end = pos + len;

	*loaded = 0;
	if (pos < 0 || len < 0)
		return -EINVAL;
	while (*loaded < len) {
		int64_t at = reverse ? SIM_MAX(pos, (end - *loaded - 1) & ~(int64_t)(PAGE_SIZE - 1))
				     : pos + *loaded;
		int64_t n = reverse ? end - *loaded - at
				    : SIM_MIN((int64_t)PAGE_SIZE - (at & (PAGE_SIZE - 1)), end - at);
		struct folio *f;
		int err = ext4_load_fault(fs, (uint64_t)at >> PAGE_SHIFT, &f);

		if (err < 0)
			return err;
		if (out)
			memcpy(out + (at - pos), f->data + (at & (PAGE_SIZE - 1)), (size_t)n);
		*loaded += n;
	}
	return 0;
}

/*
 * madvise(MADV_POPULATE_WRITE) over [@pos, @pos + @len): a write fault on
 * each page (->page_mkwrite, the folio dirtied), storing nothing.  Stops at
 * the first page at or past the EOF page with -EFAULT, as the kernel's
 * faultin_page() reports SIGBUS; *done gets the bytes populated.
 */
int ext4_mmap_populate_write(struct ext4_fs *fs, int64_t pos, int64_t len, int64_t *done)
{
	int64_t end = pos + len;

	*done = 0;
	for (int64_t at = pos; at < end;) {
		int64_t next = SIM_MIN(end, (at | (int64_t)(PAGE_SIZE - 1)) + 1);
		struct folio *f;
		int err = ext4_store_fault(fs, (uint64_t)at >> PAGE_SHIFT, &f);

		if (err < 0)
			return err;
		*done += next - at;
		at = next;
	}
	return 0;
}

/*
 * madvise(MADV_DONTNEED) over [@pos, @pos + @len) of a shared file mapping:
 * zap_page_range() drops the page-table entries (a dirty entry's folio stays
 * dirty in the page cache), so the next store to each page faults and calls
 * ->page_mkwrite again.  The page cache keeps every folio.
 */
void ext4_mmap_dontneed(struct ext4_fs *fs, int64_t pos, int64_t len)
{
	struct address_space *m = &fs->inode->i_mapping;
	uint64_t first = (uint64_t)pos >> PAGE_SHIFT;
	uint64_t last = (uint64_t)(pos + len + PAGE_SIZE - 1) >> PAGE_SHIFT;

	for (uint32_t i = 0; i < m->a_nr; i++)
		if (m->a_folios[i]->index >= first && m->a_folios[i]->index < last)
			m->a_folios[i]->flags &= (uint8_t)~PG_mkwrite;
}
