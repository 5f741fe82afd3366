/*
 * splice.c - copy_file_range(2) from the file to itself, as it reaches ext4
 * (fs/read_write.c, fs/splice.c; ext4 has no ->copy_file_range and no
 * ->remap_file_range), and the log flush of a shutdown with -f
 * (ext4_force_shutdown() in fs/ext4/ioctl.c; ordered_data_shutdown_check,
 * logflush_commit_first).
 *
 * vfs_copy_file_range() checks the ranges (generic_copy_file_checks(): the
 * count shortened to the source's EOF, the write limits, EINVAL for ranges
 * of one file that overlap) and falls back to do_splice_direct(): a loop of
 * filemap_splice_read() into an internal pipe of PIPE_DEF_BUFFERS page
 * buffers (a buffered read through the page cache, stopping at i_size) and
 * iter_file_splice_write(), which hands the pipe's pages to
 * ext4_file_write_iter() as one write: generic_write_checks(),
 * generic_perform_write() a folio at a time with its size effects (i_size
 * raised, the old EOF block zeroed as for any write past EOF), and
 * generic_write_sync() for an IS_SYNC inode.  Nothing else: no fsync, no
 * writeback, no page-cache bypass.
 */
#include <errno.h>
#include <stdlib.h>

#include "ext4.h"

#define PIPE_DEF_BUFFERS 16     /* the internal pipe of splice_direct_to_actor() */

/*
 * filemap_splice_read(): at most one pipe of page buffers from @pos (the
 * first buffer holds the rest of its page), clipped to i_size.
 */
static int filemap_splice_read(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t *buf,
			       int64_t *got)
{
	int64_t room = (int64_t)PIPE_DEF_BUFFERS * PAGE_SIZE - (pos & (PAGE_SIZE - 1));

	*got = 0;
	if (fs->s_shutdown)
		return -EIO;    /* ext4_file_splice_read() */
	return ext4_file_read(fs, pos, SIM_MIN(len, room), buf, got);
}

/* iter_file_splice_write(): the pipe's bytes as one ext4_file_write_iter(). */
static int iter_file_splice_write(struct ext4_fs *fs, int64_t pos, const uint8_t *buf,
				  int64_t len, int64_t *written)
{
	return ext4_file_write_iter(fs, pos, len, 0, buf, false, len, written);
}

/* do_splice_direct() / splice_direct_to_actor(): read a pipe, write it, until done. */
static int do_splice_direct(struct ext4_fs *fs, int64_t pos_in, int64_t pos_out, int64_t len,
			    int64_t *copied)
{
	uint8_t *pipe = sim_zalloc((size_t)PIPE_DEF_BUFFERS * PAGE_SIZE);
	int err = 0;

	*copied = 0;
	while (len > 0) {
		int64_t got, written;

		err = filemap_splice_read(fs, pos_in, len, pipe, &got);
		if (err < 0 || got == 0)
			break;
		err = iter_file_splice_write(fs, pos_out, pipe, got, &written);
		*copied += written;
		if (err < 0 || written < got)
			break;
		pos_in += got;
		pos_out += got;
		len -= got;
	}
	free(pipe);
	return *copied > 0 ? 0 : err;
}

/* generic_copy_file_checks() for one file: the count the copy may move, or an error. */
static int generic_copy_file_checks(const struct ext4_fs *fs, int64_t pos_in, int64_t pos_out,
				    int64_t *count)
{
	int64_t size_in = fs->inode->i_size, max = ext4_max_size(fs);

	if (pos_in < 0 || pos_out < 0 || *count < 0)
		return -EINVAL;
	*count = pos_in >= size_in ? 0 : SIM_MIN(*count, size_in - pos_in);
	if (*count > 0 && pos_out >= max)
		return -EFBIG;  /* generic_write_check_limits() */
	*count = SIM_MIN(*count, max - pos_out);
	if (pos_out + *count > pos_in && pos_out < pos_in + *count)
		return -EINVAL; /* overlapping ranges of one file */
	return 0;
}

/*
 * vfs_copy_file_range() with the file as source and destination: *copied
 * gets the bytes copied (0 at the source's EOF); the result is 0 or an error.
 */
int vfs_copy_file_range(struct ext4_fs *fs, int64_t pos_in, int64_t pos_out, int64_t len,
			int64_t *copied)
{
	int err = generic_copy_file_checks(fs, pos_in, pos_out, &len);

	*copied = 0;
	if (err < 0 || len == 0)
		return err;
	return do_splice_direct(fs, pos_in, pos_out, len, copied);
}

/*
 * ext4_force_shutdown(EXT4_GOING_FLAGS_LOGFLUSH): ext4_force_commit() of
 * the running transaction before the journal is aborted (xfs_io's
 * `shutdown -f`); what the commit waits for (ordered data) is written as
 * at any commit.  Before logflush_commit_first the shutdown flag is set
 * before the commit; where the commit's ordered-data writeback tests that
 * flag (before ordered_writeout_do_writepages ext4_writepage() returns EIO,
 * with ordered_data_shutdown_check ext4_do_writepages() does) and
 * the file has dirty folios, jbd2 aborts the journal before the commit
 * block, so the transaction is lost as in a shutdown without -f.  The
 * crash itself is the caller's.
 */
void ext4_shutdown_logflush(struct ext4_fs *fs)
{
	const transaction_t *t = fs->journal.j_running_transaction;
	bool refused = ext4_sem(fs, ordered_data_shutdown_check) ||
		       !ext4_sem(fs, ordered_writeout_do_writepages);

	if (fs->s_shutdown || !t)
		return;
	if (refused && !ext4_sem(fs, logflush_commit_first) &&
	    (jbd2_transaction_inode_flags(t) & JI_WRITE_DATA) && mapping_tagged_dirty(&fs->inode->i_mapping))
		return;
	jbd2_journal_force_commit(&fs->journal);
}

/*
 * ext4_ioctl(EXT4_IOC_SHUTDOWN) as xfs_io's `shutdown [-f]` calls it:
 * before shutdown_ioctl ext4 has no such ioctl (-ENOTTY, nothing changes);
 * else -f flushes the log first (ext4_shutdown_logflush) and 0 is returned:
 * the shutdown itself, a crash as the model treats it, is the caller's.
 */
int ext4_shutdown(struct ext4_fs *fs, bool logflush)
{
	if (!ext4_sem(fs, shutdown_ioctl))
		return -ENOTTY;
	if (logflush)
		ext4_shutdown_logflush(fs);
	return 0;
}
