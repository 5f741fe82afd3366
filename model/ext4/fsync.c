/*
 * fsync.c - making data durable: ext4_sync_file() and ext4_fsync_journal()
 * (fs/ext4/fsync.c) and sync_file_range() (fs/sync.c), as of 6.18.
 *
 * fsync: write back and wait for the range (allocating delalloc blocks and
 * raising i_disksize), then commit the transaction that last changed the
 * inode (i_sync_tid, or i_datasync_tid for fdatasync); when that
 * transaction is already committed its commit will not flush the device
 * cache, so fsync flushes it itself.  Before the 6.5 data=journal rework
 * (jdata_dirty_folio off) data=journal fsync is ext4_force_commit(): the
 * writeback commits nothing there.  A directory or a symlink: before the
 * rework it counts as journalled data (ext4_should_journal_data), after it
 * ext4_fsync_journal forces the commit.
 */
#include "blkdev.h"
#include "ext4.h"

/*
 * ext4_fsync_journal(): commit the transaction that last changed the inode
 * (i_datasync_tid for fdatasync); a file that is not regular forces a full
 * commit (1077b2d53ef5, fsync_nonreg_force_commit).  Sets *needs_barrier
 * when that commit will not flush the device cache.  Returns the commit's
 * result: 0 or a negative errno.
 */
static int ext4_fsync_journal(struct ext4_fs *fs, bool datasync, bool *needs_barrier)
{
	uint32_t commit_tid = datasync ? fs->inode->i_datasync_tid : fs->inode->i_sync_tid;

	if (ext4_sem(fs, fsync_nonreg_force_commit) && !S_ISREG(fs->inode->i_mode))
		return jbd2_journal_force_commit(&fs->journal);  /* ext4_force_commit() */
	if (!jbd2_trans_will_send_data_barrier(&fs->journal, commit_tid))
		*needs_barrier = true;
	return jbd2_complete_transaction(&fs->journal, commit_tid);
}

/* file_write_and_wait_range() */
static int file_write_and_wait_range(struct ext4_fs *fs, int64_t start, int64_t end)
{
	int err = ext4_writepages(fs, start, end, WB_SYNC_ALL, true);

	ext4_wait_io_range(fs, start, end);
	return err;
}

int ext4_sync_file(struct ext4_fs *fs, int64_t start, int64_t end, bool datasync)
{
	bool needs_barrier = false;
	int err;

	SIM_ASSERT(ext4_journal_current_handle(fs) == NULL);
	if (fs->s_shutdown)
		return -EIO;
	if ((err = file_write_and_wait_range(fs, start, end)) < 0)
		return err;
	if (ext4_should_journal_data(fs) && !ext4_sem(fs, jdata_dirty_folio))
		err = jbd2_journal_force_commit(&fs->journal);  /* ext4_force_commit() */
	else
		err = ext4_fsync_journal(fs, datasync, &needs_barrier);
	if (needs_barrier) {
		blkdev_flush(fs->bdev, "ext4_sync_file");
		fs->counters->flushes++;
	}
	return err;
}

/*
 * sync_file_range() with one flag: 'w' starts writeback (WB_SYNC_NONE, no
 * wait, no commit), 'a' and 'b' wait for writeback already under way.
 * @len == 0 means to the end of the file.
 */
int ext4_sync_file_range(struct ext4_fs *fs, int64_t off, int64_t len, char flag)
{
	int64_t end = len == 0 ? INT64_MAX : off + len - 1;

	if (off < 0 || len < 0)
		return -EINVAL;
	if (fs->s_shutdown)
		return -EIO;
	if (flag == 'w')
		return ext4_writepages(fs, off, end, WB_SYNC_NONE, true);
	SIM_ASSERT(flag == 'a' || flag == 'b');
	ext4_wait_io_range(fs, off, end);
	return 0;
}
