/*
 * ext4_jbd2.c - ext4's side of the journal: handle wrappers, inode and
 * metadata dirtying, the ordered-data list, and the callbacks jbd2 calls
 * during commit.  Mirrors fs/ext4/ext4_jbd2.c, ext4_mark_inode_dirty() and
 * ext4_do_update_inode() of fs/ext4/inode.c, and the j_submit/j_finish
 * inode data callbacks of fs/ext4/super.c.
 */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "blkdev.h"
#include "ext4.h"

handle_t *__ext4_journal_start(struct ext4_fs *fs, const char *where, int type, uint32_t credits)
{
	bool nested = fs->journal.j_current_handle != NULL;
	handle_t *h;

	SIM_ASSERT(credits > 0);
	h = jbd2_journal_start(&fs->journal, credits, type);
	if (fs->bdev->bd_events)
		ev_record(fs->bdev->bd_events, EV_HANDLE_START, where, credits, type,
			  h->h_transaction->t_tid, nested);
	return h;
}

/*
 * A point inside a step where other tasks see the sizes (a handle stops,
 * so its changes can commit; write_end unlocks the folio): count it if
 * i_disksize is above i_size (the checker reports disksize_le_size).
 */
void ext4_note_size_point(struct ext4_fs *fs)
{
	if (fs->inode->i_disksize > fs->inode->i_size)
		fs->counters->disksize_over_size++;
}

int __ext4_journal_stop(const char *where, struct ext4_fs *fs, handle_t *h)
{
	SIM_ASSERT(h == fs->journal.j_current_handle);
	ext4_note_size_point(fs);
	if (fs->bdev->bd_events)
		ev_record(fs->bdev->bd_events, EV_HANDLE_STOP, where, h->h_transaction->t_tid, 0, 0,
			  h->h_ref > 1);
	return jbd2_journal_stop(h);
}

handle_t *ext4_journal_current_handle(struct ext4_fs *fs)
{
	return fs->journal.j_current_handle;
}

void ext4_handle_sync(handle_t *h)
{
	h->h_sync = true;
}

/* ext4_update_inode_fsync_trans() */
void ext4_update_inode_fsync_trans(struct ext4_fs *fs, handle_t *h, bool datasync)
{
	fs->inode->i_sync_tid = h->h_transaction->t_tid;
	if (datasync)
		fs->inode->i_datasync_tid = h->h_transaction->t_tid;
}

/*
 * ext4_mark_inode_dirty(): copy the in-memory inode (i_disksize, i_blocks,
 * flags, the extent root) into the raw inode in its inode-table block, and
 * journal that block under @h (its neighbours' inodes with it).  A changed
 * size makes the transaction the one fdatasync must commit
 * (ext4_do_update_inode).
 */
int ext4_mark_inode_dirty(struct ext4_fs *fs, handle_t *h)
{
	uint8_t *raw = ext4_meta_bh(fs, fs->inode->i_loc_blk) + fs->inode->i_loc_off;
	struct ext4_inode old;
	bool size_changed;

	SIM_ASSERT(h != NULL);
	SIM_ASSERT(fs->inode->i_disksize >= 0);
	memcpy(&old, raw, sizeof(old));
	size_changed = (int64_t)(old.i_size_lo | (uint64_t)old.i_size_high << 32) !=
		       fs->inode->i_disksize;
	ext4_fill_raw_inode(fs, raw);
	jbd2_journal_dirty_metadata(h, fs->inode->i_loc_blk);
	ext4_update_inode_fsync_trans(fs, h, size_changed);
	fs->counters->mark_dirty_calls++;
	return 0;
}

/* ext4_jbd2_inode_add_write(): commit submits and waits for the range. */
void ext4_jbd2_inode_add_write(struct ext4_fs *fs, handle_t *h, int64_t start, int64_t len)
{
	jbd2_journal_inode_ranged(h, fs->inode->i_ino, JI_WRITE_DATA | JI_WAIT_DATA, start, len);
	fs->counters->ordered_ranges_added++;
}

/* ext4_jbd2_inode_add_wait(): commit only waits (writeback submitted it). */
void ext4_jbd2_inode_add_wait(struct ext4_fs *fs, handle_t *h, int64_t start, int64_t len)
{
	jbd2_journal_inode_ranged(h, fs->inode->i_ino, JI_WAIT_DATA, start, len);
	fs->counters->ordered_ranges_added++;
}

/*
 * ext4_jbd2_file_inode(): the whole file on the transaction's list (the
 * kernels before the ranged calls; ext4_write_end's ordering before
 * 06bd3c36a733): commit writes and waits for every dirty mapped block.
 */
void ext4_jbd2_file_inode(struct ext4_fs *fs, handle_t *h)
{
	ext4_jbd2_inode_add_write(fs, h, 0, INT64_MAX);
}

void sim_folio_lock(struct ext4_fs *fs, struct folio *f, enum sim_lock_site site)
{
	(void)f;
	if (fs->journal.j_current_handle)
		fs->counters->folio_lock_under_handle[site]++;
}

/* --- callbacks from jbd2 commit --- */

/* ext4_normal_submit_inode_data_buffers(): write mapped dirty data, no allocation. */
static void ext4_submit_inode_data(void *p, uint32_t ino, int64_t start, int64_t end)
{
	struct ext4_fs *fs = p;
	struct ext4_inode_info *was = ext4_set_current_inode(fs, ino);

	ext4_writepages(fs, start, end, WB_SYNC_ALL, false);
	fs->inode = was;
}

/* ext4_journal_finish_inode_data_buffers(): wait for the range's writeback. */
static void ext4_finish_inode_data(void *p, uint32_t ino, int64_t start, int64_t end)
{
	struct ext4_fs *fs = p;
	struct ext4_inode_info *was = ext4_set_current_inode(fs, ino);

	ext4_wait_io_range(fs, start, end);
	fs->inode = was;
}

static void ext4_get_journal_block(void *p, const struct jbd2_buf *b, uint8_t *out)
{
	struct ext4_fs *fs = p;
	uint32_t bs = fs->opts.block_size;
	struct folio *f;
	uint64_t pos;

	if (b->jb_lblk < 0) {
		memcpy(out, ext4_meta_bh(fs, b->jb_blocknr), bs);
		return;
	}
	pos = (uint64_t)b->jb_lblk << ext4_blkbits(fs);
	SIM_ASSERT(ext4_ilookup(fs, b->jb_ino) != NULL);
	f = filemap_get_folio(&ext4_ilookup(fs, b->jb_ino)->i_mapping, pos >> PAGE_SHIFT);
	SIM_ASSERT(f != NULL);
	memcpy(out, f->data + (pos & (PAGE_SIZE - 1)), bs);
}

/*
 * Journaled data is committed: its buffer may now be written in place, and
 * the folio is write-protected so that the next store faults and journals
 * it again (ext4_journalled_submit_inode_data_buffers).
 */
static void ext4_buffer_committed(void *p, const struct jbd2_buf *b)
{
	struct ext4_fs *fs = p;
	uint64_t pos;
	struct folio *f;
	unsigned i;

	if (b->jb_lblk < 0)
		return;
	pos = (uint64_t)b->jb_lblk << ext4_blkbits(fs);
	if (!ext4_ilookup(fs, b->jb_ino))
		return;                 /* the inode went (freed since) */
	f = filemap_get_folio(&ext4_ilookup(fs, b->jb_ino)->i_mapping, pos >> PAGE_SHIFT);
	if (!f)
		return;
	i = (unsigned)((pos & (PAGE_SIZE - 1)) >> ext4_blkbits(fs));
	f->flags &= (uint8_t)~PG_mkwrite;
	if (f->bh[i].b_state & BH_JBDDirty) {
		f->bh[i].b_state &= (uint16_t)~BH_JBDDirty;
		mark_buffer_dirty(f, i);
	}
}

/* ext4_journal_commit_callback(): freed blocks become allocatable. */
static void ext4_commit_callback(void *p, transaction_t *t)
{
	for (uint32_t i = 0; i < t->t_nr_freed; i++)
		ext4_mb_release_freed(p, t->t_freed[i].start, t->t_freed[i].len);
}

const struct jbd2_fs_ops ext4_jbd2_ops = {
	.submit_inode_data = ext4_submit_inode_data,
	.finish_inode_data = ext4_finish_inode_data,
	.get_block = ext4_get_journal_block,
	.commit_callback = ext4_commit_callback,
	.buffer_committed = ext4_buffer_committed,
};
