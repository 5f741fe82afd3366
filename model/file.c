/*
 * file.c - the system-call entry points the scenario steps use: write(2)
 * through ext4_buffered_write_iter() with generic_write_checks() and
 * generic_write_sync(), close (ext4_release_file and its auto_da_alloc
 * flush), chattr +S/-S (ext4_ioctl_setflags) and evicting clean folios
 * (POSIX_FADV_DONTNEED).
 *
 * The model's clock does not advance, so no write changes c/mtime and
 * file_update_time() never dirties the inode (as for writes within one
 * timestamp tick on a real kernel).
 */
#include "ext4.h"

/*
 * ext4_write_checks() since the 2026 series (patch 13): a write starting
 * past EOF first zeroes the rest of the old EOF block, with no handle; the
 * write's own handle, if it starts one, orders it (i_pending_zero).
 */
static int ext4_write_checks_zero_eof(struct ext4_fs *fs, int64_t pos)
{
	struct ext4_pending_zero *z = &fs->inode.i_pending_zero;
	int64_t old_size = fs->inode.i_size;
	int err;

	z->pz_len = 0;
	if (!fs->sem.zero_eof_in_write_checks || pos <= old_size)
		return 0;
	err = ext4_block_zero_eof(fs, old_size, pos, &z->pz_result);
	if (err == 0 && z->pz_result.zeroed) {
		uint32_t bs = fs->opts.block_size;

		z->pz_from = old_size;
		z->pz_len = SIM_MIN(pos, (old_size | (bs - 1)) + 1) - old_size;
	}
	return err;
}

int ext4_file_write(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
		    int64_t readable, int64_t *written)
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
	if ((err = ext4_write_checks_zero_eof(fs, pos)) < 0)
		return err;
	err = ext4_buffered_write(fs, pos, len, fill, readable, written);
	fs->inode.i_pending_zero.pz_len = 0;
	if (*written > 0 && (fs->inode.i_flags & EXT4_SYNC_FL))
		err = ext4_sync_file(fs, pos, pos + *written - 1, true);
	return err;
}

/* ext4_release_file(): after a truncate to 0, start writeback of new data. */
int ext4_release_file(struct ext4_fs *fs)
{
	if (!fs->inode.i_da_alloc_close)
		return 0;
	fs->inode.i_da_alloc_close = false;
	if (fs->inode.i_reserved_data_blocks == 0 || fs->s_shutdown)
		return 0;
	return ext4_writepages(fs, 0, INT64_MAX, WB_SYNC_NONE, true);   /* filemap_flush */
}

/* ext4_ioctl_setflags() for EXT4_SYNC_FL; an IS_SYNC inode commits at once. */
int ext4_set_sync_flag(struct ext4_fs *fs, bool on)
{
	handle_t *h;

	if (fs->s_shutdown)
		return -EIO;
	h = ext4_journal_start(fs, HT_INODE, 1);
	if (fs->inode.i_flags & EXT4_SYNC_FL)
		ext4_handle_sync(h);
	if (on)
		fs->inode.i_flags |= EXT4_SYNC_FL;
	else
		fs->inode.i_flags &= ~EXT4_SYNC_FL;
	ext4_mark_inode_dirty(fs, h);
	return ext4_journal_stop(fs, h);
}

/* invalidate_mapping_pages(): drop folios that are clean and idle. */
void ext4_evict_clean(struct ext4_fs *fs)
{
	struct address_space *m = &fs->inode.i_mapping;

	for (uint32_t i = m->a_nr; i-- > 0;) {
		struct folio *f = m->a_folios[i];

		if (f->flags & (PG_dirty | PG_writeback))
			continue;
		if ((f->flags & PG_buffers) && folio_any_buffer(m, f, BH_JBDDirty | BH_Dirty))
			continue;
		filemap_remove_folio(m, f);
	}
}
