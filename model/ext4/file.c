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

static int ext4_buffered_write_sync(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
				    const uint8_t *src, unsigned ki_flags, int64_t readable,
				    int64_t *written);

/*
 * ext4_write_checks() since the 2026 series (patch 13): a write starting
 * past EOF first zeroes the rest of the old EOF block, before the copy.
 */
static int ext4_write_checks_zero_eof(struct ext4_fs *fs, int64_t pos)
{
	if (!ext4_sem(fs, zero_eof_in_write_checks) || pos <= fs->inode->i_size)
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
	return ext4_buffered_write_sync(fs, pos, len, fill, src, dsync ? IOCB_DSYNC : 0,
					readable, written);
}

/*
 * The checks every write makes before its path is chosen: -EIO after a
 * shutdown (ext4_forced_shutdown), -EINVAL for a negative offset or length
 * (rw_verify_area), 0 for a write of nothing; 1 to go on.
 */
static int write_iter_checks(const struct ext4_fs *fs, int64_t pos, int64_t len)
{
	if (fs->s_shutdown)
		return -EIO;
	if (pos < 0 || len < 0)
		return -EINVAL;
	return len > 0;
}

/* ext4_buffered_write_iter() with the kiocb's flags: O_SYNC's sync is fsync's. */
static int ext4_buffered_write_sync(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
				    const uint8_t *src, unsigned ki_flags, int64_t readable,
				    int64_t *written)
{
	int64_t max = ext4_max_size(fs);
	int err;

	*written = 0;
	if ((err = write_iter_checks(fs, pos, len)) <= 0)
		return err;
	if (pos >= max)
		return -EFBIG;                  /* generic_write_checks_count() */
	len = SIM_MIN(len, max - pos);
	if (fs->s_nr_dios)
		inode_dio_wait(fs);             /* no direct I/O in flight under the copy */
	file_update_time(fs);                   /* ext4_write_checks: file_modified() */
	if ((err = ext4_write_checks_zero_eof(fs, pos)) < 0)
		return err;
	err = generic_perform_write(fs, pos, len, fill, src, readable, written);
	if (*written > 0 && ((fs->inode->i_flags & EXT4_SYNC_FL) || (ki_flags & IOCB_DSYNC)))
		err = ext4_sync_file(fs, pos, pos + *written - 1, !(ki_flags & IOCB_SYNC));
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

/* ------------------------------------------------------------------ */
/* Direct I/O writes: ext4_dio_write_iter() over iomap_dio_rw()       */
/* ------------------------------------------------------------------ */

/*
 * invalidate_mapping_pages() over the pages of bytes [start, end]: the
 * folios that are clean, idle and not mapped writable go.
 */
static void ext4_invalidate_mapping_pages(struct ext4_fs *fs, int64_t start, int64_t end)
{
	struct address_space *m = &fs->inode->i_mapping;
	uint64_t first = (uint64_t)start >> PAGE_SHIFT, last = (uint64_t)end >> PAGE_SHIFT;

	for (uint32_t i = filemap_first_at(m, first); i < m->a_nr && m->a_folios[i]->index <= last;) {
		struct folio *f = m->a_folios[i];

		if ((f->flags & (PG_dirty | PG_writeback | PG_mkwrite)) ||
		    ((f->flags & PG_buffers) && folio_any_buffer(m, f, BH_JBDDirty | BH_Dirty))) {
			i++;
			continue;
		}
		filemap_remove_folio(m, f);
	}
}

/* ->write_and_wait: filemap_write_and_wait_range() through ext4_writepages. */
static int ext4_dio_write_and_wait(struct ext4_fs *fs, int64_t start, int64_t end)
{
	int err = ext4_writepages(fs, start, end, WB_SYNC_ALL, true);

	ext4_wait_io_range(fs, start, end);
	return err;
}

/* ->fsync: ext4_sync_file(), as vfs_fsync_range() reaches it. */
static int ext4_dio_fsync(struct ext4_fs *fs, int64_t start, int64_t end, bool datasync)
{
	return ext4_sync_file(fs, start, end, datasync);
}

/*
 * ext4_should_use_dio() / ext4_dio_alignment() (before 5.19: ext4_dio_supported()):
 * a data=journal file takes the buffered path; every other one direct I/O,
 * its alignment left to iomap (EINVAL for a misaligned write).
 */
static bool ext4_should_use_dio(const struct ext4_fs *fs)
{
	return !ext4_should_journal_data(fs);
}

/* ext4_unaligned_io(): not aligned to the file-system block. */
static bool ext4_unaligned_io(const struct ext4_fs *fs, int64_t pos, int64_t len)
{
	return ((pos | len) & (int64_t)(fs->opts.block_size - 1)) != 0;
}

/*
 * ext4_unaligned_aio() (the path before dio_iomap): an AIO not aligned to
 * the block, unless it starts at or past i_size, or past i_size rounded up
 * to the block since 372a03e01853 (dio_unaligned_aio_eof_block): only then
 * is no AIO in flight into the block it shares.
 */
static bool ext4_unaligned_aio(const struct ext4_fs *fs, const struct kiocb *iocb, int64_t len)
{
	int64_t bs = fs->opts.block_size, eof = fs->inode->i_size;

	if (!(iocb->ki_flags & IOCB_AIO))
		return false;
	if (ext4_sem(fs, dio_unaligned_aio_eof_block))
		eof = (eof + bs - 1) / bs * bs;
	return iocb->ki_pos < eof && ext4_unaligned_io(fs, iocb->ki_pos, len);
}

/*
 * ext4_unwritten_wait() (before dio_iomap): until the inode's i_unwritten
 * is 0, no AIO of the inode with blocks to convert in flight; the model
 * completes the AIOs in flight, oldest first, up to the last such one.
 */
static void ext4_unwritten_wait(struct ext4_fs *fs)
{
	uint32_t upto = 0;

	for (uint32_t i = 0; i < fs->s_nr_dios; i++)
		if (fs->s_dios[i].d_ino == fs->inode->i_ino &&
		    (fs->s_dios[i].d_flags & IOMAP_DIO_UNWRITTEN))
			upto = i + 1;
	while (upto-- && iomap_dio_complete_one(fs))
		;
}

/*
 * ext4_extending_io(): the write ends past i_size or past i_disksize.  The
 * path before dio_iomap (ext4_direct_IO_write) tests i_size only, and
 * i_disksize too from 45d8ec4d9fd5 (dio_disksize_inside_isize).
 */
static bool ext4_extending_io(const struct ext4_fs *fs, int64_t pos, int64_t len)
{
	bool disksize = ext4_sem(fs, dio_iomap) || ext4_sem(fs, dio_disksize_inside_isize);

	return pos + len > fs->inode->i_size || (disksize && pos + len > fs->inode->i_disksize);
}

/* ext4_overwrite_io(): inside i_size over blocks all allocated and written. */
static bool ext4_overwrite_io(struct ext4_fs *fs, int64_t pos, int64_t len)
{
	uint32_t bits = ext4_blkbits(fs);
	struct ext4_map_blocks map = { .m_lblk = (uint32_t)(pos >> bits),
		.m_len = (uint32_t)(((pos + len - 1) >> bits) - (pos >> bits) + 1) };
	uint32_t want = map.m_len;

	if (pos + len > fs->inode->i_size)
		return false;
	return ext4_map_blocks(fs, NULL, &map, 0) == (int)want && (map.m_flags & MAP_MAPPED);
}

static const struct ext4_size_rule dio_ext_isize = EXT4_SIZE_RULE_TOGGLE(
	"ext4_handle_inode_extension", "a direct write that completed past i_size raises "
	"it to its end (after the sync before dio_extension_in_end_io)",
	dio_extension_in_end_io);
static const struct ext4_size_rule dio_ext_disksize = EXT4_SIZE_RULE_TOGGLE(
	"ext4_handle_inode_extension", "an extending direct write raises i_disksize to "
	"its end once its I/O completed, and takes the inode off the orphan list",
	dio_extension_in_end_io);
static const struct ext4_size_rule dio_endio_isize = EXT4_SIZE_RULE("ext4_dio_write_end_io",
	"a direct write's completion raises i_size to its end before the page cache is "
	"invalidated (i_disksize follows in ext4_dio_write_iter)");
static const struct ext4_size_rule dio_old_isize = EXT4_SIZE_RULE("ext4_direct_IO_write",
	"a direct write that completed past i_size raises it to its end");
static const struct ext4_size_rule dio_old_disksize = EXT4_SIZE_RULE_TOGGLE(
	"ext4_direct_IO_write", "a completed direct write past i_size (or past i_disksize, "
	"45d8ec4d9fd5) raises i_disksize to its end", dio_disksize_inside_isize);

/*
 * ext4_handle_inode_extension(): after @count bytes at @pos completed, one
 * handle raises i_size and i_disksize to the write's end (ext4_update_inode_size)
 * and takes the inode off the orphan list.  From 91562895f803 it runs in
 * ext4_dio_write_end_io, before the sync; before, in ext4_dio_write_iter
 * after iomap_dio_rw (and sync) returned, where a write already inside
 * i_disksize only leaves the orphan list (5.14's form, @count the asked length).
 */
static int64_t ext4_handle_inode_extension(struct ext4_fs *fs, int64_t pos, int64_t written,
					   int64_t count)
{
	handle_t *h;

	SIM_ASSERT(fs->inode->i_rwsem_writer);
	if (!ext4_sem(fs, dio_extension_in_end_io) && written >= 0 &&
	    pos + count <= fs->inode->i_disksize) {
		if (fs->inode->i_orphan && fs->inode->i_links_count) {
			h = ext4_journal_start(fs, "ext4_handle_inode_extension", HT_INODE, 2);
			ext4_orphan_del(fs, h);
			ext4_journal_stop(fs, "ext4_handle_inode_extension", h);
		}
		return written;
	}
	if (written < 0)
		return written;
	h = ext4_journal_start(fs, "ext4_handle_inode_extension", HT_INODE, 2);
	if (ext4_update_inode_size(fs, pos + written, &dio_ext_isize, &dio_ext_disksize))
		ext4_mark_inode_dirty(fs, h);
	if (fs->inode->i_links_count)
		ext4_orphan_del(fs, h);
	ext4_journal_stop(fs, "ext4_handle_inode_extension", h);
	if (!ext4_sem(fs, dio_extension_in_end_io) && written < count)
		ext4_truncate_failed_write(fs);
	return written;
}

/*
 * ext4_dio_write_end_io(): the unwritten blocks written are converted; from
 * 91562895f803 a write ending past i_disksize or i_size has its inode
 * extension here, before iomap_dio_complete() syncs; before, i_size alone
 * is raised here (5.14 to 6.6).  The path before dio_iomap converts here
 * too and leaves the sizes to ext4_direct_IO_write.
 */
static int ext4_dio_write_end_io(struct ext4_fs *fs, int64_t pos, int64_t size, int error,
				 unsigned flags)
{
	if (error)
		return error;
	if (size && (flags & IOMAP_DIO_UNWRITTEN))
		ext4_convert_unwritten_extents_range(fs, pos, size);
	if (!ext4_sem(fs, dio_iomap))
		return 0;
	if (!ext4_sem(fs, dio_extension_in_end_io)) {
		if (pos + size > fs->inode->i_size)
			i_size_write(fs, pos + size, &dio_endio_isize);
		return 0;
	}
	if (pos + size <= fs->inode->i_disksize && pos + size <= fs->inode->i_size)
		return 0;
	return (int)SIM_MIN(ext4_handle_inode_extension(fs, pos, size, size), 0);
}

/* ext4_iomap_overwrite_begin(): the lookup without IOMAP_WRITE (no handle). */
static int ext4_iomap_overwrite_begin(struct ext4_fs *fs, int64_t pos, int64_t len,
				      unsigned flags, struct iomap *iomap)
{
	int err = ext4_iomap_begin(fs, pos, len, flags & ~IOMAP_WRITE, iomap);

	SIM_ASSERT(err || iomap->type == IOMAP_MAPPED);
	return err;
}

static const struct iomap_ops ext4_iomap_ops = { .iomap_begin = ext4_iomap_begin };
static const struct iomap_ops ext4_iomap_overwrite_ops = {
	.iomap_begin = ext4_iomap_overwrite_begin };
static const struct iomap_dio_ops ext4_dio_write_ops = {
	.end_io = ext4_dio_write_end_io, .write_and_wait = ext4_dio_write_and_wait,
	.fsync = ext4_dio_fsync };

/*
 * ext4_dio_write_checks(): generic_write_checks(), then with the lock
 * shared, anything but an overwrite inside i_size takes it exclusive (the
 * kernel's restart); *extend for an extending write; file_modified().
 * Returns the bytes to write or a negative errno.
 */
static int64_t ext4_dio_write_checks(struct ext4_fs *fs, int64_t pos, int64_t len, bool *shared,
				     bool *extend)
{
	int64_t max = ext4_max_size(fs);

	if (pos >= max)
		return -EFBIG;
	len = SIM_MIN(len, max - pos);
	*extend = ext4_extending_io(fs, pos, len);
	if (*shared && (*extend || !ext4_overwrite_io(fs, pos, len))) {
		ext4_inode_unlock(fs->inode, true);
		*shared = false;
		ext4_inode_lock(fs->inode, false);
		*extend = ext4_extending_io(fs, pos, len);
	}
	file_update_time(fs);
	return len;
}

/*
 * The old path's end (ext4_direct_IO_write, before dio_iomap): for a write
 * that took the orphan, one handle raises the sizes to what was written
 * past i_size (or past i_disksize, 45d8ec4d9fd5) and drops the orphan.
 */
static void ext4_direct_io_write_end(struct ext4_fs *fs, int64_t pos, int64_t written)
{
	handle_t *h = ext4_journal_start(fs, "ext4_direct_IO_write", HT_INODE, 2);
	int64_t end = pos + written;

	if (written > 0 && (end > fs->inode->i_size ||
			    (ext4_sem(fs, dio_disksize_inside_isize) && end > fs->inode->i_disksize))) {
		ext4_update_i_disksize(fs, end, &dio_old_disksize);
		if (end > fs->inode->i_size)
			i_size_write(fs, end, &dio_old_isize);
		ext4_mark_inode_dirty(fs, h);
	}
	ext4_orphan_del(fs, h);
	ext4_journal_stop(fs, "ext4_direct_IO_write", h);
	if (written < 0)
		ext4_truncate_failed_write(fs);
}

/*
 * The buffered write of the part a direct write left (a fall-back), then
 * that range written back and its clean pages dropped, so that later
 * direct reads and writes see it on disk (filemap_write_and_wait_range,
 * invalidate_mapping_pages).  Returns the bytes written or an error.
 */
static int64_t ext4_dio_buffered_rest(struct ext4_fs *fs, struct kiocb *iocb, int64_t len)
{
	int64_t got = 0, pos = iocb->ki_pos;
	unsigned flags = ext4_sem(fs, dio_iomap) ? iocb->ki_flags :
			 iocb->ki_flags & ~(IOCB_DSYNC | IOCB_SYNC);    /* synced by the caller */
	int err = ext4_buffered_write_sync(fs, pos, len, iocb->ki_fill, NULL, flags, len, &got);

	if (err < 0 && got == 0)
		return err;
	if (got > 0 && ext4_dio_write_and_wait(fs, pos, pos + got - 1) == 0)
		ext4_invalidate_mapping_pages(fs, pos, pos + got - 1);
	iocb->ki_pos += got;
	return got;
}

/* The extending write's orphan, in a handle of its own, before the I/O. */
static void ext4_dio_orphan_add(struct ext4_fs *fs)
{
	handle_t *h = ext4_journal_start(fs, "ext4_dio_write_iter", HT_INODE, 2);

	ext4_orphan_add(fs, h);
	ext4_journal_stop(fs, "ext4_dio_write_iter", h);
}

/*
 * ext4_dio_write_iter(): the lock (shared for an aligned write inside
 * i_size), the fall-back to buffered I/O where ext4 takes it, the checks,
 * the orphan for an extending write, iomap_dio_rw() with FORCE_WAIT for an
 * unaligned or extending one, the size (ext4_handle_inode_extension: here
 * before 91562895f803, else the cleanup), the unlock; a short write's rest
 * is written buffered.  The old path (dio_iomap off) syncs after all of it,
 * waits for an extending write only, and serializes an unaligned AIO
 * (ext4_file_write_iter) by ext4_unwritten_wait before it and, from
 * 57a0da28ced8 (dio_unaligned_aio_wait), after it is queued.
 */
static int64_t ext4_dio_write_iter(struct ext4_fs *fs, struct kiocb *iocb, int64_t len,
				   unsigned *how)
{
	int64_t pos = iocb->ki_pos, ret;
	bool unaligned = ext4_unaligned_io(fs, pos, len), extend = false;
	bool iomap = ext4_sem(fs, dio_iomap), unaligned_aio = false;
	bool shared = !unaligned && pos + len <= fs->inode->i_size && iomap;
	struct kiocb io = *iocb;

	ext4_inode_lock(fs->inode, shared);
	if (!ext4_should_use_dio(fs)) {
		ext4_inode_unlock(fs->inode, shared);
		*how |= EXT4_DIO_BUFFERED;
		return -ENOTBLK;
	}
	if ((ret = ext4_dio_write_checks(fs, pos, len, &shared, &extend)) < 0) {
		ext4_inode_unlock(fs->inode, shared);
		return ret;
	}
	len = ret;
	*how |= (shared ? EXT4_DIO_SHARED : 0) | (unaligned ? EXT4_DIO_UNALIGNED : 0) |
		(extend ? EXT4_DIO_EXTEND : 0);
	if (iomap && unaligned)
		inode_dio_wait(fs);     /* no unaligned direct I/O in flight alongside */
	else if (!iomap && (unaligned_aio = ext4_unaligned_aio(fs, iocb, len)))
		ext4_unwritten_wait(fs);
	if (extend)
		ext4_dio_orphan_add(fs);
	if (!iomap)
		io.ki_flags &= ~(IOCB_DSYNC | IOCB_SYNC);      /* synced by the caller */
	ret = iomap_dio_rw(fs, &io, len, shared ? &ext4_iomap_overwrite_ops : &ext4_iomap_ops,
			   &ext4_dio_write_ops,
			   (extend || (iomap && unaligned)) ? IOMAP_DIO_FORCE_WAIT : 0);
	if (ret == -ENOTBLK)
		ret = 0;
	if (ret == -EIOCBQUEUED) {      /* an AIO, not extending (aligned too from dio_iomap) */
		SIM_ASSERT(!extend && (!iomap || !unaligned));
		if (unaligned_aio && ext4_sem(fs, dio_unaligned_aio_wait)) {
			ext4_unwritten_wait(fs);        /* the only unaligned AIO in flight */
			*how |= EXT4_DIO_QUEUED_WAITED;
		}
		ext4_inode_unlock(fs->inode, shared);
		*how |= EXT4_DIO_QUEUED;
		return ret;
	}
	if (extend && !ext4_sem(fs, dio_iomap))
		ext4_direct_io_write_end(fs, pos, ret);
	else if (extend && !ext4_sem(fs, dio_extension_in_end_io))
		ret = ext4_handle_inode_extension(fs, pos, ret, len);
	else if (extend && ret < 0)
		ext4_truncate_failed_write(fs);
	if (extend && fs->inode->i_orphan && fs->inode->i_links_count) {
		handle_t *h = ext4_journal_start(fs, "ext4_inode_extension_cleanup", HT_INODE, 2);

		ext4_orphan_del(fs, h);         /* ext4_inode_extension_cleanup() */
		ext4_journal_stop(fs, "ext4_inode_extension_cleanup", h);
	}
	ext4_inode_unlock(fs->inode, shared);
	iocb->ki_pos = pos + SIM_MAX(ret, 0);
	if (ret >= 0 && ret < len) {
		int64_t more = ext4_dio_buffered_rest(fs, iocb, len - ret);

		ret = more < 0 ? more : ret + more;
	}
	return ret;
}

int ext4_file_write_kiocb(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			  unsigned ki_flags, int64_t *written, unsigned *how)
{
	struct kiocb iocb = { .ki_pos = pos, .ki_flags = ki_flags, .ki_fill = fill };
	int64_t ret;

	if (fs->inode->i_flags & EXT4_SYNC_FL)
		iocb.ki_flags |= IOCB_DSYNC;    /* iocb_flags(): IS_SYNC */
	*how = 0;
	*written = 0;
	if (!(ki_flags & IOCB_DIRECT))
		return ext4_buffered_write_sync(fs, pos, len, fill, NULL, ki_flags, len, written);
	if ((ret = write_iter_checks(fs, pos, len)) <= 0)
		return (int)ret;
	ret = ext4_dio_write_iter(fs, &iocb, len, how);
	if (ret == -ENOTBLK)            /* ext4_should_use_dio() said no */
		return ext4_buffered_write_sync(fs, pos, len, fill, NULL,
						ki_flags & ~IOCB_AIO, len, written);
	if (ret < 0)                    /* -EIOCBQUEUED: the bytes count at completion */
		return (int)ret;
	*written = ret;
	if (!ext4_sem(fs, dio_iomap))         /* ext4_file_write_iter() syncs after it all */
		ret = generic_write_sync(fs, &iocb, ret, false, &ext4_dio_write_ops);
	return ret < 0 ? (int)ret : 0;
}
