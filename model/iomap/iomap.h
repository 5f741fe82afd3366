/*
 * iomap.h - the direct-I/O half of fs/iomap (include/linux/iomap.h,
 * fs/iomap/direct-io.c) as ext4 calls it: iomap_dio_rw() walks the write's
 * range through the file system's ->iomap_begin, submits one bio per block
 * (zeroing the rest of a new or unwritten block around a sub-block write,
 * iomap_dio_zero), waits for them, then iomap_dio_complete() runs the file
 * system's ->end_io and generic_write_sync() for an O_SYNC / O_DSYNC write.
 *
 * The model's file system is passed as struct ext4_fs (the kernel passes
 * the kiocb's inode); the file system's hooks are function pointers, as
 * struct iomap_ops and struct iomap_dio_ops are, and so are the two VFS
 * calls iomap makes through the file (filemap_write_and_wait_range()'s
 * ->writepages and generic_write_sync()'s ->fsync), so that nothing here
 * calls ext4 by name.  Not modelled: reads (readpage.c's ext4_dio_read),
 * polled I/O, IOCB_NOWAIT, bio merging (a bio per block), devices without
 * FUA.
 */
#ifndef EXT4SIM_IOMAP_H
#define EXT4SIM_IOMAP_H

#include <stdbool.h>
#include <stdint.h>

struct ext4_fs;

/* struct kiocb's flags the model uses (include/linux/fs.h IOCB_*) */
#define IOCB_DSYNC 0x1u         /* O_DSYNC, O_SYNC, RWF_DSYNC */
#define IOCB_SYNC 0x2u          /* O_SYNC (__O_SYNC) */
#define IOCB_DIRECT 0x4u        /* O_DIRECT */
#define IOCB_AIO 0x8u           /* a kiocb with ki_complete (io_submit(2)): !is_sync_kiocb() */

#define EIOCBQUEUED 529         /* include/linux/errno.h: the AIO is under way */

struct kiocb {
	int64_t ki_pos;
	unsigned ki_flags;
	uint8_t ki_fill;        /* the byte the user buffer holds (xfs_io's -S) */
};

/* struct iomap's types and flags */
enum iomap_type { IOMAP_HOLE, IOMAP_DELALLOC, IOMAP_MAPPED, IOMAP_UNWRITTEN };
#define IOMAP_F_NEW 0x1u        /* blocks allocated by this ->iomap_begin */
#define IOMAP_F_DIRTY 0x2u      /* metadata a datasync needs is not committed */

/* ->iomap_begin's flags */
#define IOMAP_WRITE 0x1u
#define IOMAP_DIRECT 0x10u

struct iomap {
	int64_t offset;         /* bytes: where the mapping starts, block aligned */
	int64_t length;
	uint32_t pblk;          /* the first block (MAPPED, UNWRITTEN) */
	uint8_t type;           /* enum iomap_type */
	uint8_t flags;          /* IOMAP_F_* */
};

/* iomap_dio_rw()'s dio_flags and the dio's own flags (->end_io's @flags) */
#define IOMAP_DIO_FORCE_WAIT 0x1u
#define IOMAP_DIO_WRITE 0x10u
#define IOMAP_DIO_UNWRITTEN 0x20u
#define IOMAP_DIO_WRITE_FUA 0x40u
#define IOMAP_DIO_NEED_SYNC 0x80u

/*
 * A direct write submitted asynchronously (struct iomap_dio of an AIO): its
 * bios are in flight until iomap_dio_complete_one() completes it, the
 * model's io_getevents (a crash drops it: nothing of its completion runs).
 */
struct iomap_dio {
	struct kiocb d_iocb;
	int64_t d_size;                 /* bytes submitted */
	unsigned d_flags;               /* IOMAP_DIO_* */
	uint32_t d_ino;                 /* the inode it writes */
	uint64_t *d_seqs;               /* its bios (owned) */
	uint32_t d_nr_seqs;
	const struct iomap_dio_ops *d_dops;
};

/* What an AIO's completion left for io_getevents (iomap_dio_reap). */
struct iomap_dio_done {
	uint32_t dd_ino;
	int64_t dd_pos, dd_size;
	int64_t dd_ret;                 /* the kiocb's result: bytes or a negative errno */
	unsigned dd_ki_flags;
	uint8_t dd_fill;
};

struct iomap_ops {
	/* map [pos, pos + len) for @flags into *iomap; 0 or a negative errno */
	int (*iomap_begin)(struct ext4_fs *fs, int64_t pos, int64_t len, unsigned flags,
			   struct iomap *iomap);
};

struct iomap_dio_ops {
	/* the file system's completion: @size bytes written at @pos, @error, the dio's flags */
	int (*end_io)(struct ext4_fs *fs, int64_t pos, int64_t size, int error, unsigned flags);
	/* filemap_write_and_wait_range() through the mapping's ->writepages */
	int (*write_and_wait)(struct ext4_fs *fs, int64_t start, int64_t end);
	/* vfs_fsync_range() through the file's ->fsync */
	int (*fsync)(struct ext4_fs *fs, int64_t start, int64_t end, bool datasync);
};

/*
 * iomap_dio_rw() for a write of @len bytes of iocb->ki_fill at
 * iocb->ki_pos: the page cache over the range written back and
 * invalidated (a folio that cannot go is -ENOTBLK, the caller's cue to fall
 * back to buffered I/O), then each mapping: the 512-byte alignment check
 * (-EINVAL), a bio per block (a FUA write for an O_DSYNC overwrite of
 * written blocks with nothing to commit), the bios completed (the model's
 * submission is synchronous), then iomap_dio_complete().  Returns the bytes
 * written or a negative errno.
 */
int64_t iomap_dio_rw(struct ext4_fs *fs, struct kiocb *iocb, int64_t len,
		     const struct iomap_ops *ops, const struct iomap_dio_ops *dops,
		     unsigned dio_flags);

/*
 * Complete the oldest pending asynchronous direct write (its bios, then
 * iomap_dio_complete: ->end_io, the sync), as its bio's end_io and the
 * completion work would, its result queued for iomap_dio_reap(); false
 * when none is pending.
 */
bool iomap_dio_complete_one(struct ext4_fs *fs);
/*
 * io_getevents(): the oldest completed AIO's result into *@done, removed
 * from the ring; false when the ring is empty.  Completions inside a step
 * (inode_dio_wait, ext4_unwritten_wait) wait there until the caller reaps.
 */
bool iomap_dio_reap(struct ext4_fs *fs, struct iomap_dio_done *done);
/* inode_dio_wait(): complete every pending direct write of the current inode. */
void inode_dio_wait(struct ext4_fs *fs);
/* The pending direct writes and unreaped results dropped (a crash: no completion runs). */
void iomap_dio_drop_all(struct ext4_fs *fs);

/*
 * generic_write_sync(): after @count bytes written up to iocb->ki_pos, an
 * O_SYNC, O_DSYNC or RWF_DSYNC write (or one to an IS_SYNC inode, @is_sync)
 * syncs its range: fdatasync's unless O_SYNC.  Returns @count or the error.
 */
int64_t generic_write_sync(struct ext4_fs *fs, const struct kiocb *iocb, int64_t count,
			   bool is_sync, const struct iomap_dio_ops *dops);

#endif
