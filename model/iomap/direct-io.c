/*
 * direct-io.c - iomap_dio_rw() for writes (fs/iomap/direct-io.c, 6.1 and
 * later; see iomap.h): the page cache over the range written back and
 * invalidated, the file system's mappings walked, a bio per block, the
 * bios waited for, then iomap_dio_complete(): ->end_io, the page cache
 * invalidated again, generic_write_sync() for an O_DSYNC write that was not
 * all FUA.
 *
 * An AIO (IOCB_AIO) that needs no wait (no IOMAP_DIO_FORCE_WAIT) returns
 * -EIOCBQUEUED with its bios in flight; iomap_dio_complete_one() finishes
 * it later (its result waits in the completion ring for iomap_dio_reap(),
 * the model's io_getevents), or a crash drops it with its bios among the
 * pending writes.
 *
 * A bio carries a whole block: a sub-block write into a new or unwritten
 * block is the block with zeros around the data (iomap_dio_zero's pads);
 * into a written block, the device's current bytes around it (the sectors
 * the kernel's bio leaves alone; an earlier AIO's bio to that block is
 * completed first, iomap_dio_wait_block, as the kernel's two bios, sector
 * sized, would not overlap).  The bios of one call are completed
 * before ->end_io runs, in submission order, for a synchronous kiocb or
 * IOMAP_DIO_FORCE_WAIT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "ext4.h"
#include "iomap.h"

#define DIO_SECTOR 512          /* bdev_logical_block_size() of the model's device */

/*
 * invalidate_inode_pages2_range() over the pages of bytes [start, end]:
 * every folio there goes; a dirty one, or one under writeback, cannot
 * (-EBUSY).  Called after the range was written back and waited for.
 */
static int iomap_invalidate_range(struct ext4_fs *fs, int64_t start, int64_t end)
{
	struct address_space *m = &fs->inode->i_mapping;
	uint64_t first = (uint64_t)start >> PAGE_SHIFT, last = (uint64_t)end >> PAGE_SHIFT;
	int err = 0;

	for (uint32_t i = filemap_first_at(m, first); i < m->a_nr && m->a_folios[i]->index <= last;) {
		struct folio *f = m->a_folios[i];

		if ((f->flags & (PG_dirty | PG_writeback)) ||
		    ((f->flags & PG_buffers) && folio_any_buffer(m, f, BH_JBDDirty | BH_Dirty))) {
			err = -EBUSY;
			i++;
			continue;
		}
		filemap_remove_folio(m, f);
	}
	return err;
}

/*
 * The bytes of the bio for the block at @blk_start of @map, for the data
 * [iocb->ki_pos, @end): the device's current bytes where the bio leaves
 * sectors alone, zeros before the data with @zero_head (a new or unwritten
 * block: iomap_dio_zero) and after it with @zero_tail (also a write ending
 * at or past EOF).
 */
static void iomap_dio_block(struct ext4_fs *fs, const struct iomap *map, const struct kiocb *iocb,
			    int64_t blk_start, int64_t end, bool zero_head, bool zero_tail,
			    uint8_t *buf)
{
	uint32_t bs = fs->opts.block_size;
	int64_t from = SIM_MAX(iocb->ki_pos, blk_start), to = SIM_MIN(end, blk_start + bs);
	uint32_t pblk = map->pblk + (uint32_t)((blk_start - map->offset) / bs);

	if ((from > blk_start && !zero_head) || (to < blk_start + bs && !zero_tail))
		blkdev_read(fs->bdev, pblk, buf);       /* the sectors the bio leaves alone */
	if (zero_head)
		memset(buf, 0, (size_t)(from - blk_start));
	if (zero_tail)
		memset(buf + (to - blk_start), 0, (size_t)(blk_start + bs - to));
	memset(buf + (from - blk_start), iocb->ki_fill, (size_t)(to - from));
}

static void iomap_dio_complete_front(struct ext4_fs *fs);

/*
 * The model's bios carry whole blocks: before one that keeps the device's
 * bytes around its data is built, the AIOs with a bio to @pblk still in
 * flight complete (oldest first), so that it does not undo their sectors.
 */
static void iomap_dio_wait_block(struct ext4_fs *fs, uint32_t pblk)
{
	uint32_t upto = 0;

	for (uint32_t i = 0; i < fs->s_nr_dios; i++)
		for (uint32_t k = 0; k < fs->s_dios[i].d_nr_seqs; k++)
			if (blkdev_in_flight_to(fs->bdev, fs->s_dios[i].d_seqs[k], pblk))
				upto = i + 1;
	while (upto--)
		iomap_dio_complete_front(fs);
}

/*
 * iomap_dio_bio_iter(): the alignment check, then a bio per block of @map
 * that the write touches, their sequence numbers appended to @seqs.
 * Returns the bytes submitted or -EINVAL.
 */
static int64_t iomap_dio_bio_iter(struct ext4_fs *fs, const struct iomap *map,
				  struct kiocb *iocb, int64_t end, unsigned *dflags,
				  uint64_t **seqs, uint32_t *nr)
{
	uint32_t bs = fs->opts.block_size;
	int64_t pos = iocb->ki_pos, stop = SIM_MIN(end, map->offset + map->length);
	bool need_zeroout = map->type == IOMAP_UNWRITTEN || (map->flags & IOMAP_F_NEW);
	bool use_fua = false;
	uint8_t *buf = sim_zalloc(bs);

	if ((pos | (stop - pos)) & (DIO_SECTOR - 1)) {
		free(buf);
		return -EINVAL;
	}
	if (map->type == IOMAP_UNWRITTEN)
		*dflags |= IOMAP_DIO_UNWRITTEN;
	if (!need_zeroout && map->type == IOMAP_MAPPED && !(map->flags & IOMAP_F_DIRTY) &&
	    (*dflags & IOMAP_DIO_WRITE_FUA))
		use_fua = true;                 /* bdev_fua(): the model's device has FUA */
	if (!use_fua)
		*dflags &= ~IOMAP_DIO_WRITE_FUA;
	for (int64_t b = pos & ~(int64_t)(bs - 1); b < stop; b += bs) {
		bool tail = need_zeroout || stop >= fs->inode->i_size;  /* the EOF block */
		uint32_t pblk = map->pblk + (uint32_t)((b - map->offset) / bs);

		if ((pos > b && !need_zeroout) || (stop < b + bs && !tail))
			iomap_dio_wait_block(fs, pblk);
		iomap_dio_block(fs, map, iocb, b, stop, need_zeroout, tail, buf);
		*seqs = sim_realloc_array(*seqs, *nr + 1, sizeof(**seqs));
		(*seqs)[(*nr)++] = blkdev_submit_bio(fs->bdev, pblk, buf, BIO_DATA, use_fua,
			&(struct bio_info){ .bi_func = "iomap_dio_bio_iter", .bi_what = BW_DATA,
					    .bi_lblk = b / bs });
		fs->counters->bios_submitted++;
	}
	free(buf);
	return stop - pos;
}

int64_t generic_write_sync(struct ext4_fs *fs, const struct kiocb *iocb, int64_t count,
			   bool is_sync, const struct iomap_dio_ops *dops)
{
	int err;

	if (count <= 0 || (!(iocb->ki_flags & IOCB_DSYNC) && !is_sync))
		return count;
	err = dops->fsync(fs, iocb->ki_pos - count, iocb->ki_pos - 1,
			  !(iocb->ki_flags & IOCB_SYNC));
	return err < 0 ? err : count;
}

/*
 * iomap_dio_complete(): ->end_io with the bytes written, the page cache
 * over them invalidated again (kiocb_invalidate_post_direct_write), the
 * position advanced, generic_write_sync() when the dio still needs it.
 */
static int64_t iomap_dio_complete(struct ext4_fs *fs, struct kiocb *iocb, int64_t size,
				  int error, unsigned dflags, const struct iomap_dio_ops *dops)
{
	int64_t ret = error;

	if (dops && dops->end_io)
		ret = dops->end_io(fs, iocb->ki_pos, size, error, dflags);
	if (ret == 0)
		ret = size;
	if (!error && size)
		iomap_invalidate_range(fs, iocb->ki_pos, iocb->ki_pos + size - 1);
	if (ret > 0) {
		iocb->ki_pos += ret;
		if (dflags & IOMAP_DIO_NEED_SYNC)
			ret = generic_write_sync(fs, iocb, ret, false, dops);
	}
	return ret;
}

/*
 * The mappings of [pos, end), their bios submitted into *@seqs (*@nr); the
 * bytes submitted, *@error for an error.
 */
static int64_t iomap_dio_iter_all(struct ext4_fs *fs, struct kiocb *iocb, int64_t end,
				  const struct iomap_ops *ops, unsigned *dflags, int *error,
				  uint64_t **seqs, uint32_t *nr)
{
	int64_t pos = iocb->ki_pos, done = 0;

	while (pos + done < end) {
		struct iomap map;
		struct kiocb at = *iocb;
		int64_t n;
		int err = ops->iomap_begin(fs, pos + done, end - pos - done,
					   IOMAP_WRITE | IOMAP_DIRECT, &map);

		if (err < 0) {
			*error = err;
			break;
		}
		at.ki_pos = pos + done;
		n = iomap_dio_bio_iter(fs, &map, &at, end, dflags, seqs, nr);
		if (n < 0) {
			*error = (int)n;
			break;
		}
		done += n;
	}
	return done;
}

/* The bios of a dio complete (those a crash or an earlier wait left in flight are done). */
static void iomap_dio_bios_end(struct ext4_fs *fs, const uint64_t *seqs, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (blkdev_in_flight(fs->bdev, seqs[i]))
			blkdev_complete(fs->bdev, seqs[i]);
}

/* An AIO's dio, kept until iomap_dio_complete_one(): inode_dio_begin(). */
static void iomap_dio_queue(struct ext4_fs *fs, const struct kiocb *iocb, int64_t size,
			    unsigned dflags, const struct iomap_dio_ops *dops, uint64_t *seqs,
			    uint32_t nr)
{
	fs->s_dios = sim_realloc_array(fs->s_dios, fs->s_nr_dios + 1, sizeof(*fs->s_dios));
	fs->s_dios[fs->s_nr_dios++] = (struct iomap_dio){ .d_iocb = *iocb, .d_size = size,
		.d_flags = dflags, .d_ino = fs->inode->i_ino, .d_seqs = seqs, .d_nr_seqs = nr,
		.d_dops = dops };
}

/* The oldest AIO in flight completes; its result goes to the completion ring. */
static void iomap_dio_complete_front(struct ext4_fs *fs)
{
	struct iomap_dio d = fs->s_dios[0];
	struct ext4_inode_info *was;
	struct iomap_dio_done *done;

	memmove(fs->s_dios, fs->s_dios + 1, (fs->s_nr_dios - 1) * sizeof(*fs->s_dios));
	fs->s_nr_dios--;
	iomap_dio_bios_end(fs, d.d_seqs, d.d_nr_seqs);
	free(d.d_seqs);
	fs->s_dio_done = sim_realloc_array(fs->s_dio_done, fs->s_nr_dio_done + 1,
					   sizeof(*fs->s_dio_done));
	done = &fs->s_dio_done[fs->s_nr_dio_done++];
	*done = (struct iomap_dio_done){ .dd_ino = d.d_ino, .dd_pos = d.d_iocb.ki_pos,
		.dd_size = d.d_size, .dd_ki_flags = d.d_iocb.ki_flags, .dd_fill = d.d_iocb.ki_fill };
	was = ext4_set_current_inode(fs, d.d_ino);
	done->dd_ret = iomap_dio_complete(fs, &d.d_iocb, d.d_size, 0, d.d_flags, d.d_dops);
	fs->inode = was;
}

bool iomap_dio_complete_one(struct ext4_fs *fs)
{
	if (fs->s_nr_dios == 0)
		return false;
	iomap_dio_complete_front(fs);
	return true;
}

bool iomap_dio_reap(struct ext4_fs *fs, struct iomap_dio_done *done)
{
	if (fs->s_nr_dio_done == 0)
		return false;
	*done = fs->s_dio_done[0];
	memmove(fs->s_dio_done, fs->s_dio_done + 1, (fs->s_nr_dio_done - 1) * sizeof(*done));
	fs->s_nr_dio_done--;
	return true;
}

void inode_dio_wait(struct ext4_fs *fs)
{
	for (uint32_t i = 0; i < fs->s_nr_dios;) {
		if (fs->s_dios[i].d_ino != fs->inode->i_ino) {
			i++;
			continue;
		}
		SIM_ASSERT(i == 0 || !"inode_dio_wait past another inode's dio");
		iomap_dio_complete_front(fs);
	}
}

void iomap_dio_drop_all(struct ext4_fs *fs)
{
	for (uint32_t i = 0; i < fs->s_nr_dios; i++)
		free(fs->s_dios[i].d_seqs);
	free(fs->s_dios);
	fs->s_dios = NULL;
	fs->s_nr_dios = 0;
	free(fs->s_dio_done);
	fs->s_dio_done = NULL;
	fs->s_nr_dio_done = 0;
}

int64_t iomap_dio_rw(struct ext4_fs *fs, struct kiocb *iocb, int64_t len,
		     const struct iomap_ops *ops, const struct iomap_dio_ops *dops,
		     unsigned dio_flags)
{
	int64_t end = iocb->ki_pos + len, done;
	unsigned dflags = IOMAP_DIO_WRITE;
	bool wait = !(iocb->ki_flags & IOCB_AIO) || (dio_flags & IOMAP_DIO_FORCE_WAIT);
	uint64_t *seqs = NULL;
	uint32_t nr = 0;
	int err = 0;

	if (len == 0)
		return 0;
	if (iocb->ki_flags & IOCB_DSYNC) {
		dflags |= IOMAP_DIO_NEED_SYNC;
		if (!(iocb->ki_flags & IOCB_SYNC))
			dflags |= IOMAP_DIO_WRITE_FUA;  /* datasync only: try FUA */
	}
	if ((err = dops->write_and_wait(fs, iocb->ki_pos, end - 1)) < 0)
		return err;
	if (iomap_invalidate_range(fs, iocb->ki_pos, end - 1) < 0)
		return -ENOTBLK;
	done = iomap_dio_iter_all(fs, iocb, end, ops, &dflags, &err, &seqs, &nr);
	if (dflags & IOMAP_DIO_WRITE_FUA)
		dflags &= ~IOMAP_DIO_NEED_SYNC; /* every write was FUA: nothing to flush */
	if (!wait && done > 0 && !err) {
		iomap_dio_queue(fs, iocb, done, dflags, dops, seqs, nr);
		return -EIOCBQUEUED;            /* completed by iomap_dio_complete_one() */
	}
	iomap_dio_bios_end(fs, seqs, nr);       /* the wait: every bio completes */
	free(seqs);
	if (err && done == 0)
		dflags &= ~IOMAP_DIO_NEED_SYNC;
	return iomap_dio_complete(fs, iocb, done, done ? 0 : err, dflags, dops);
}
