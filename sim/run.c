/*
 * run.c - the step interpreter.  Each variant gets a fresh world: a device
 * pre-filled with the sentinel, mkfs, mount, the empty durable file; then
 * every step calls the model's system-call entry points, and the checker
 * judges the result.  A crash keeps the device (completed writes only),
 * drops every in-memory structure, and mounts again: jbd2 recovery and
 * orphan cleanup run as on a real mount.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkdev.h"
#include "crashpoint.h"
#include "explain.h"
#include "blkimage.h"
#include "mke2fs.h"
#include "namei.h"
#include "namespace.h"
#include "nsnap.h"
#include "report.h"
#include "outfile.h"
#include "snapshot.h"
#include "timeline.h"
#include "trace.h"
#include "world.h"
#include "suggest.h"
#include "xfs_io_random.h"

#define XFS_IO_BUFSIZE 4096     /* xfs_io pwrite issues write(2)s of -b 4096 */


int world_mount(struct world *w)
{
	return ext4_fill_super(&w->fs, w->bd, &w->cfg->opts, &w->cfg->sem, w->c, w->rec);
}

/*
 * run --from-image: the checker's reference starts as the file the mount
 * found (its size, then its bytes as runs of equal bytes), durable: what the
 * image holds is what a crash must keep.
 */
static void world_seed_checker(struct world *w)
{
	enum { PIECE = 1 << 16 };
	uint8_t *buf = sim_zalloc(PIECE);
	int64_t size = w->fs.inode->i_size;

	chk_note_truncate(w->chk, size);
	for (int64_t k = 0; k < size; k += PIECE) {
		int64_t len = SIM_MIN((int64_t)PIECE, size - k), i = 0;

		ext4_peek(&w->fs, k, len, buf);
		while (i < len) {
			int64_t j = i;

			while (j < len && buf[j] == buf[i])
				j++;
			if (buf[i])
				chk_note_write(w->chk, k + i, j - i, buf[i]);
			i = j;
		}
	}
	free(buf);
	chk_note_durable(w->chk);
}

/*
 * A fresh world for variant @cfg: a new device made by mkfs, or with
 * o->from_image a copy of that device; mounted.
 */
static void world_init(struct world *w, const struct sim_variant_cfg *cfg,
		       struct sim_variant_result *r, const struct sim_options *o)
{
	const char *why = NULL;

	memset(w, 0, sizeof(*w));
	w->cfg = cfg;
	w->r = r;
	w->c = &r->counters;
	w->chk = &r->chk;
	w->rec = &r->last_recovery;
	if (o && o->from_image) {       /* run --from-image: checked to mount (sim_image_probe) */
		w->bd = blkdev_clone(o->from_image);
	} else {
		w->bd = mke2fs_device(cfg->opts.disk_blocks, cfg->opts.block_size, &why);
		SIM_ASSERT(w->bd != NULL);      /* the loader refuses a geometry mke2fs refuses */
	}
	SIM_ASSERT(world_mount(w) == 0);
	memset(w->c, 0, sizeof(*w->c));
	chk_init(w->chk, cfg->opts.block_size);
	if (o)
		chk_set_log_mode(w->chk, (enum chk_log_mode)o->checker_log);
	if (o && o->from_image)
		world_seed_checker(w);
}

void world_attach_events(struct world *w)
{
	w->bd->bd_events = &w->r->events;
	w->fs.inode->i_mapping.a_events = &w->r->events;
}

void note(struct sim_step_result *sr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sr->note, sizeof(sr->note), fmt, ap);
	va_end(ap);
}

/* The bytes of one write(2) of pwrite: -b (default 4096), times -V's vectors. */
static int64_t pwrite_call_size(const struct scn_step *st)
{
	int64_t b = st->s_bsize ? st->s_bsize : XFS_IO_BUFSIZE;

	return st->s_vectors ? b * st->s_vectors : b;
}

/* pwrite -W / -w: fsync or fdatasync after the writes, as xfs_io does. */
static void pwrite_sync_after(struct world *w, const struct scn_step *st,
			      struct sim_step_result *sr)
{
	int err = 0;

	if (st->s_fsync_after)
		err = ext4_sync_file(&w->fs, 0, INT64_MAX, false);
	if (!err && st->s_fdatasync_after)
		err = ext4_sync_file(&w->fs, 0, INT64_MAX, true);
	if ((st->s_fsync_after || st->s_fdatasync_after) && !err)
		chk_note_durable(w->chk);
	if (!sr->err)
		sr->err = err;
}

/*
 * pwrite -R -Z N: xfs_io's write_random(): srandom(N), OFF rounded down to
 * the buffer size B, LEN grown by LEN % B (xfs_io's rounding, as it is) to at
 * least B; then B-byte writes at B-aligned offsets OFF + random() % (LEN - B)
 * until LEN bytes are written, a short or failed write ending the loop.
 * Returns the bytes written.
 */
static int64_t pwrite_random(struct world *w, const struct scn_step *st,
			     struct sim_step_result *sr)
{
	int64_t bs = st->s_bsize ? st->s_bsize : XFS_IO_BUFSIZE, total = 0;
	int64_t offset = st->s_off - st->s_off % bs, count = st->s_len + st->s_len % bs, range;
	struct glibc_random g;

	glibc_srandom(&g, st->s_zeed);
	count = SIM_MAX(bs, count);
	range = count - bs;
	while (count > 0 && sr->err == 0) {
		int64_t off = range ? (offset + glibc_random(&g) % range) / bs * bs : offset, got;

		sr->err = ext4_file_write_iter(&w->fs, off, bs, st->s_fill, NULL, false, bs, &got);
		chk_note_write(w->chk, off, got, st->s_fill);
		total += got;
		if (got < bs)
			break;
		count -= got;
	}
	return total;
}

/*
 * io_getevents: the results of the AIOs that completed (inside a step:
 * inode_dio_wait, ext4_unwritten_wait; or by sim_aio_reap), each noted to
 * the checker in completion order.  Returns how many.
 */
static uint32_t sim_aio_events(struct world *w)
{
	struct iomap_dio_done d;
	uint32_t n = 0;

	while (iomap_dio_reap(&w->fs, &d)) {
		n++;
		if (d.dd_ret <= 0 || d.dd_ino != w->fs.inode->i_ino)
			continue;
		chk_note_write(w->chk, d.dd_pos, d.dd_ret, d.dd_fill);
		if (d.dd_ki_flags & IOCB_DSYNC)
			chk_note_dsync(w->chk, d.dd_pos, d.dd_ret, d.dd_fill);
	}
	return n;
}

/*
 * Every direct write submitted asynchronously completed and reaped
 * (aio_wait), and inode_dio_wait before a step that waits for them.
 * Returns how many completed.
 */
static uint32_t sim_aio_reap(struct world *w)
{
	while (iomap_dio_complete_one(&w->fs))
		;
	return sim_aio_events(w);
}

/* "O_DIRECT, exclusive i_rwsem, extending" and the like: what the write went through. */
static void pwrite_how(char *buf, size_t len, unsigned flags, unsigned how)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s", (flags & IOCB_DIRECT) ? " with O_DIRECT" : "",
		 (how & EXT4_DIO_BUFFERED) ? " (buffered: ext4 takes no direct I/O here)" : "",
		 !(flags & IOCB_DIRECT) || (how & EXT4_DIO_BUFFERED) ? "" :
		 (how & EXT4_DIO_SHARED) ? ", i_rwsem shared" : ", i_rwsem exclusive",
		 (how & EXT4_DIO_UNALIGNED) ? ", unaligned" : "",
		 (how & EXT4_DIO_EXTEND) ? ", extending (orphan until completion)" : "",
		 (how & EXT4_DIO_QUEUED_WAITED) ? ", submitted as AIO, then waited for "
		 "(ext4_unwritten_wait: its blocks converted)" :
		 (how & EXT4_DIO_QUEUED) ? ", submitted as AIO (completed by aio_wait)" :
		 (flags & IOCB_AIO) ? ", AIO waited for (unaligned or extending)" : "",
		 (flags & IOCB_SYNC) ? ", O_SYNC" : (flags & IOCB_DSYNC) ? ", O_DSYNC" : "");
}

/*
 * pwrite with kiocb flags @flags (pwrite -d, a file opened with -d or -s):
 * the -b sized calls of step_pwrite, each through ext4_file_write_kiocb().
 * Returns the bytes written; *how gathers what the calls went through.
 */
static int64_t pwrite_kiocb(struct world *w, const struct scn_step *st, struct sim_step_result *sr,
			    unsigned flags, unsigned *how)
{
	int64_t done = 0, call = pwrite_call_size(st);

	*how = 0;
	while (done < st->s_len && sr->err == 0) {
		int64_t n = SIM_MIN(call, st->s_len - done), got;
		unsigned h;

		sr->err = ext4_file_write_kiocb(&w->fs, st->s_off + done, n, st->s_fill, flags,
						&got, &h);
		*how |= h;
		if (sr->err == -EIOCBQUEUED) {  /* io_submit: completed at aio_wait */
			sr->err = 0;
			chk_note_write_submitted(w->chk, st->s_off + done, n, st->s_fill);
			sim_aio_events(w);      /* AIOs the call waited for, itself too */
			done += n;
			continue;
		}
		sim_aio_events(w);              /* those it waited for before its own I/O */
		chk_note_write(w->chk, st->s_off + done, got, st->s_fill);
		if ((flags & IOCB_DIRECT) && (flags & IOCB_DSYNC) && got > 0 && sr->err == 0)
			chk_note_dsync(w->chk, st->s_off + done, got, st->s_fill);
		done += got;
		if (got < n && sr->err == 0)
			break;
	}
	return done;
}

/* pwrite: xfs_io writes in -b sized write(2) calls (pwritev2 with -V); --short
 * is one call; -R writes at random offsets; -A (RWF_ATOMIC) fails at once on a
 * device without atomic writes (FMODE_CAN_ATOMIC_WRITE is never set). */
static void step_pwrite(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	int64_t done = 0, call = pwrite_call_size(st);

	if (st->s_dsync && !ext4_sem(&w->fs, pwritev2_syscall)) {
		sr->err = -ENOSYS;
		note(sr, "pwritev2(2) does not exist on this kernel: nothing written");
		return;
	}
	if (st->s_atomic) {
		sr->err = -EOPNOTSUPP;
		note(sr, "RWF_ATOMIC: the device has no atomic write unit; nothing written");
		return;
	}
	unsigned flags = w->f_flags | (st->s_direct ? IOCB_DIRECT : 0) |
			 (st->s_dsync ? IOCB_DSYNC : 0), how = 0;
	char how_text[256] = "";

	if (st->s_aio)
		flags |= IOCB_AIO;
	if (((flags & IOCB_DIRECT) || w->f_flags) && !st->s_random && st->s_short_copy < 0) {
		done = pwrite_kiocb(w, st, sr, flags, &how);
		pwrite_how(how_text, sizeof(how_text), flags, how);
	} else if (st->s_random) {
		done = pwrite_random(w, st, sr);
	} else if (st->s_short_copy >= 0) {
		sr->err = ext4_file_write(&w->fs, st->s_off, st->s_len, st->s_fill,
					  st->s_short_copy, &done);
	} else {
		while (done < st->s_len && sr->err == 0) {
			int64_t n = SIM_MIN(call, st->s_len - done), got;

			sr->err = ext4_file_write_iter(&w->fs, st->s_off + done, n, st->s_fill, NULL,
						       st->s_dsync, n, &got);
			chk_note_write(w->chk, st->s_off + done, got, st->s_fill);
			done += got;
			if (got < n && sr->err == 0)
				break;
		}
	}
	if (st->s_short_copy >= 0)
		chk_note_write(w->chk, st->s_off, done, st->s_fill);
	if (done < st->s_len)           /* ext4_truncate_failed_write past EOF */
		chk_note_free_from(w->chk, SIM_MIN(st->s_off, w->chk->posix.size));
	if (sr->err == 0)
		pwrite_sync_after(w, st, sr);
	sr->bytes = done;
	note(sr, "%s %lld bytes at %lld%s", (how & EXT4_DIO_QUEUED) ? "submitted" : "wrote",
	     (long long)done, (long long)st->s_off, how_text);
}

/* The checker's copy of [src, src+n) to @dst, in pipe-sized pieces. */
static void chk_note_copy(struct chk_state *c, int64_t src, int64_t dst, int64_t n)
{
	enum { PIECE = 1 << 16 };
	uint8_t *buf = sim_zalloc(PIECE);

	for (int64_t k = 0; k < n; k += PIECE) {
		int64_t len = SIM_MIN((int64_t)PIECE, n - k), i = 0;

		runs_read(&c->posix, src + k, len, buf);
		while (i < len) {
			int64_t j = i;

			while (j < len && buf[j] == buf[i])
				j++;
			chk_note_write(c, dst + k + i, j - i, buf[i]);
			i = j;
		}
	}
	free(buf);
}

/*
 * copy_range -s SRC -d DST -l LEN, the file as its own source: xfs_io calls
 * copy_file_range(2) until LEN bytes are copied or a call copies nothing
 * (the source's EOF); without -l, LEN is the size less SRC.
 */
static void step_copy_range(struct world *w, const struct scn_step *st,
			    struct sim_step_result *sr)
{
	int64_t src = st->s_src, dst = st->s_off, done = 0;
	int64_t len = st->s_has_len ? st->s_len : w->fs.inode->i_size - src;

	if (!ext4_sem(&w->fs, copy_file_range_syscall)) {
		sr->err = -ENOSYS;
		note(sr, "copy_file_range(2) does not exist on this kernel: nothing copied");
		return;
	}
	while (len > 0) {
		int64_t got;

		sr->err = vfs_copy_file_range(&w->fs, src, dst, len, &got);
		chk_note_copy(w->chk, src, dst, got);
		done += got;
		if (sr->err || got == 0)
			break;
		src += got;
		dst += got;
		len -= got;
	}
	if (sr->err)                    /* a failed write trims past EOF */
		chk_note_free_from(w->chk, SIM_MIN(dst, w->chk->posix.size));
	sr->bytes = done;
	note(sr, "copied %lld bytes from %lld to %lld", (long long)done, (long long)st->s_src,
	     (long long)st->s_off);
}

/* The fallocate(2) mode of a falloc/fzero/fpunch/fcollapse/finsert step, as xfs_io passes it. */
static int falloc_mode(const struct scn_step *st)
{
	int keep = st->s_keep_size ? FALLOC_FL_KEEP_SIZE : 0;

	switch (st->s_op) {
	case SCN_FZERO: return FALLOC_FL_ZERO_RANGE | keep;
	case SCN_FPUNCH: return FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	case SCN_FCOLLAPSE: return FALLOC_FL_COLLAPSE_RANGE;
	case SCN_FINSERT: return FALLOC_FL_INSERT_RANGE;
	case SCN_FUNSHARE: return FALLOC_FL_UNSHARE_RANGE | keep;
	default: return keep;
	}
}

/*
 * falloc, fzero, fpunch, fcollapse, finsert: one fallocate(2).  An error
 * is the step's result and the scenario goes on; a mode-0 fallocate that
 * ran out of space keeps the size its allocated chunks set.
 */
static void step_fallocate(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	int64_t off = st->s_off, len = st->s_len;

	sr->err = ext4_fallocate_file(&w->fs, falloc_mode(st), off, len,
				      (w->f_flags & IOCB_SYNC) != 0);  /* open -s */
	note(sr, "%s [%lld, %lld)%s", sr->err ? "fallocate refused or stopped" : "fallocate",
	     (long long)off, (long long)(off + len), st->s_keep_size ? " keeping the size" : "");
	if (sr->err && st->s_op == SCN_FALLOC && !st->s_keep_size)
		chk_note_extend(w->chk, w->fs.inode->i_size);
	if (sr->err)
		return;
	switch (st->s_op) {
	case SCN_FALLOC:
		if (!st->s_keep_size)
			chk_note_extend(w->chk, off + len);
		chk_note_falloc(w->chk, off, len);
		break;
	case SCN_FZERO:
		chk_note_zero(w->chk, off, len, !st->s_keep_size);
		chk_note_falloc(w->chk, off, len);
		break;
	case SCN_FPUNCH: chk_note_punch(w->chk, off, len); break;
	case SCN_FCOLLAPSE: chk_note_collapse(w->chk, off, len); break;
	case SCN_FUNSHARE: break;       /* no block is shared: the data stays */
	default: chk_note_insert(w->chk, off, len); break;
	}
}

static void step_pread(struct world *w, const struct scn_step *st, struct sim_step_result *sr,
		       FILE *trace)
{
	int64_t len = SIM_MIN(st->s_len, (int64_t)1 << 26), got = 0;
	uint8_t *buf = sim_zalloc((size_t)len + 1);

	sr->err = ext4_file_read(&w->fs, st->s_off, len, buf, &got);
	sr->bytes = got;
	note(sr, "read %lld bytes at %lld", (long long)got, (long long)st->s_off);
	if (st->s_verbose && trace) {
		trace_step_result(trace, sr);
		sr->note[0] = '\0';            /* printed already, before the dump */
		trace_hexdump(trace, st->s_off, buf, got);
	}
	free(buf);
}

/*
 * dio_read: a read through a file opened O_DIRECT.  What it returns must be
 * what a buffered read returns (read_posix), as it writes the cache back
 * first.
 */
static void step_dio_read(struct world *w, const struct scn_step *st, struct sim_step_result *sr,
			  FILE *trace, uint32_t idx)
{
	int64_t len = SIM_MIN(st->s_len, (int64_t)1 << 26), got = 0;
	uint8_t *buf = sim_zalloc((size_t)len + 1), *want = sim_zalloc((size_t)len + 1);

	sr->err = ext4_dio_read(&w->fs, st->s_off, len, buf, &got);
	sr->bytes = got;
	note(sr, "read %lld bytes at %lld with O_DIRECT", (long long)got, (long long)st->s_off);
	ext4_peek(&w->fs, st->s_off, got, want);
	for (int64_t k = 0; k < got; k++) {
		if (buf[k] != want[k]) {
			chk_report(w->chk, INV_READ_POSIX, idx, "direct read at %lld returns 0x%02x, "
				   "a buffered read 0x%02x", (long long)(st->s_off + k), buf[k],
				   want[k]);
			break;
		}
	}
	if (st->s_verbose && trace) {
		trace_step_result(trace, sr);
		sr->note[0] = '\0';
		trace_hexdump(trace, st->s_off, buf, got);
	}
	free(want);
	free(buf);
}

static void step_truncate(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	sr->err = ext4_setattr_size(&w->fs, st->s_len);
	if (sr->err == 0)
		chk_note_truncate(w->chk, st->s_len);
	note(sr, "truncated to %lld", (long long)st->s_len);
}

/* syncfs(2): sync_filesystem() writes, commits, waits, commits again. */
static int do_syncfs(struct ext4_fs *fs)
{
	int err;

	if (fs->s_shutdown)
		return -EIO;
	err = ext4_writeback_inodes(fs, WB_SYNC_NONE);
	jbd2_journal_force_commit(&fs->journal);
	if (!err)
		err = ext4_writeback_inodes(fs, WB_SYNC_ALL);
	ext4_sync_fs(fs);
	return err;
}

static void step_remount(struct world *w, struct sim_step_result *sr)
{
	ext4_put_super(&w->fs);
	w->bd->bd_durable_hook = NULL;  /* the mount is not judged inside */
	sr->err = world_mount(w);
	SIM_ASSERT(sr->err == 0);
	chk_note_durable(w->chk);
	sim_ns_rebase(w);
	w->f_flags = 0;                 /* the file opened again, plainly */
	note(sr, "clean unmount and mount");
}

static void step_commit(struct world *w, struct sim_step_result *sr)
{
	transaction_t *t = w->fs.journal.j_running_transaction;

	if (!t) {
		note(sr, "no running transaction");
		return;
	}
	note(sr, "committed transaction %u", t->t_tid);
	jbd2_journal_commit_transaction(&w->fs.journal);
}

static void step_writeback(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	int64_t start = st->s_has_range ? st->s_off : 0;
	int64_t end = st->s_has_range && st->s_len ? st->s_off + st->s_len - 1 : INT64_MAX;

	sr->err = ext4_writepages(&w->fs, start, end, WB_SYNC_NONE, true);
	ext4_wait_io_range(&w->fs, start, end);
	note(sr, "writeback ran and its I/O completed");
}

/* Steps that flush or sync. */
static bool step_sync_like(struct world *w, const struct scn_step *st,
			   struct sim_step_result *sr)
{
	switch (st->s_op) {
	case SCN_FSYNC:
	case SCN_FDATASYNC:
		sr->err = ext4_sync_file(&w->fs, 0, INT64_MAX, st->s_op == SCN_FDATASYNC);
		if (sr->err == 0)
			chk_note_durable(w->chk);
		return true;
	case SCN_SYNC:
		sr->err = do_syncfs(&w->fs);
		if (sr->err == 0)
			chk_note_durable(w->chk);
		return true;
	case SCN_SYNC_RANGE:
		sr->err = ext4_sync_file_range(&w->fs, st->s_off, st->s_len, st->s_sr_flag);
		return true;
	default:
		return false;
	}
}

/* inject: arm a model-only fault (or clear them) until it fires or the next mount. */
static void step_inject(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	uint32_t after = st->s_after < 0 ? 0 : (uint32_t)st->s_after;

	ext4_fault_inject(&w->fs, (enum ext4_fault)st->s_fault, after);
	if (st->s_fault == SCN_FAULT_ENOSPC)
		note(sr, "armed: the block allocation after the next %u block(s) fails with "
		     "ENOSPC (once)", after);
	else if (st->s_fault == SCN_FAULT_NONDA)
		note(sr, "armed: ext4_nonda_switch() reports too little free space (delalloc "
		     "writes fall back to nodelalloc)");
	else
		note(sr, "no fault armed");
}

/*
 * Does step @st wait for the direct I/O in flight (inode_dio_wait): a
 * buffered write, truncate, fallocate's modes, a copy, a remount (the
 * inode's eviction)?  A direct write waits inside the model where the
 * kernel does (an unaligned one: inode_dio_wait, ext4_unwritten_wait).
 * An fsync, fdatasync, sync or msync -s does not in the kernel; the model
 * completes the AIO first, one schedule a real run may take, so that the
 * durable point it makes holds its bytes.
 */
static bool step_waits_for_dio(const struct world *w, const struct scn_step *st)
{
	switch (st->s_op) {
	case SCN_PWRITE:
		return !(st->s_direct || (w->f_flags & IOCB_DIRECT));
	case SCN_TRUNCATE: case SCN_FALLOC: case SCN_FZERO: case SCN_FPUNCH:
	case SCN_FCOLLAPSE: case SCN_FINSERT: case SCN_COPY_RANGE: case SCN_REMOUNT:
		return true;
	case SCN_FSYNC: case SCN_FDATASYNC: case SCN_SYNC: case SCN_MSYNC:
		return true;    /* the model's schedule: the AIO completed before the sync */
	default:
		return false;
	}
}

static void run_step_op(struct world *w, const struct scn_step *st, uint32_t idx,
			struct sim_step_result *sr, FILE *trace)
{
	if (w->fs.s_nr_dios && step_waits_for_dio(w, st))
		sim_aio_reap(w);                /* inode_dio_wait() in the step's path */
	if (scn_step_is_namespace(st)) {
		sim_step_namespace(w, st, idx, sr);
		return;
	}
	if (w->ns && sim_step_on_file(st->s_op) && !S_ISREG(w->fs.inode->i_mode)) {
		sr->err = -EBADF;       /* no file open: the last one was closed and freed */
		return;
	}
	if (step_sync_like(w, st, sr))
		return;
	switch (st->s_op) {
	case SCN_PWRITE: step_pwrite(w, st, sr); break;
	case SCN_PREAD: step_pread(w, st, sr, trace); break;
	case SCN_TRUNCATE: step_truncate(w, st, sr); break;
	case SCN_CHATTR: sr->err = ext4_set_sync_flag(&w->fs, st->s_sync_flag); break;
	case SCN_CLOSE:
		ext4_munmap(&w->fs);
		w->mapped = false;
		w->f_flags = 0;
		sr->err = ext4_close_current(&w->fs);
		chk_note_close(w->chk, &w->fs);
		break;
	case SCN_FALLOC: case SCN_FZERO: case SCN_FPUNCH:
	case SCN_FCOLLAPSE: case SCN_FINSERT: case SCN_FUNSHARE: step_fallocate(w, st, sr); break;
	case SCN_SHUTDOWN:
		sr->err = ext4_shutdown(&w->fs, st->s_logflush);
		if (sr->err)
			break;
		/* fall through */
	case SCN_CRASH:
		w->mapped = false;
		w->f_flags = 0;                 /* xfs_io, started again, opens f plainly */
		crash_step(w, st, idx, sr);
		break;
	case SCN_COPY_RANGE: step_copy_range(w, st, sr); break;
	case SCN_MWRITE: case SCN_MMAP: case SCN_MSYNC: case SCN_MUNMAP: case SCN_MREAD:
	case SCN_MREMAP: case SCN_MADVISE: sim_step_mapping(w, st, sr, trace); break;
	case SCN_FADVISE: sim_step_fadvise(w, st, sr); break;
	case SCN_WRITEBACK: step_writeback(w, st, sr); break;
	case SCN_COMMIT: step_commit(w, sr); break;
	case SCN_CHECKPOINT: jbd2_log_do_checkpoint(&w->fs.journal); break;
	case SCN_REMOUNT: step_remount(w, sr); break;
	case SCN_EVICT: ext4_evict_clean(&w->fs); break;
	case SCN_DIO_READ: step_dio_read(w, st, sr, trace, idx); break;
	case SCN_AIO_WAIT:
		note(sr, "%u asynchronous direct write(s) completed", sim_aio_reap(w));
		break;
	case SCN_INJECT: step_inject(w, st, sr); break;
	default:
		SIM_ASSERT(!"unknown step");
	}
}

/* Run step @st (number @idx) into @sr, noting whether it left the delalloc path. */
static void run_step(struct world *w, const struct scn_step *st, uint32_t idx,
		     struct sim_step_result *sr, FILE *trace)
{
	uint64_t nonda = w->c->nonda_switches;
	uint32_t ino = w->fs.inode->i_ino;

	if (w->ns)
		w->chk->c_mute = ino != EXT4_FILE_INO && sim_step_on_file(st->s_op);
	run_step_op(w, st, idx, sr, trace);
	if (w->fs.s_nr_dio_done)
		sim_aio_events(w);      /* completions inside the step, none left unreaped */
	w->chk->c_mute = false;
	if (w->ns)
		sim_ns_after_step(w, st, idx, sr, ino);
	sr->nonda = w->c->nonda_switches != nonda;
}

/* --- variants --- */

static void errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* "did you mean 'X'? " for a mistyped toggle (@toggle) or profile name, or "". */
static const char *name_hint(char *buf, size_t cap, const char *name, bool toggle)
{
	const char *names[256];
	size_t n = 0, max = toggle ? ext4_toggle_count() : ext4_profile_count();
	const char *best;

	for (size_t i = 0; i < max && n < 256; i++)
		names[n++] = toggle ? ext4_toggle_at((unsigned)i)->name :
			     ext4_profile_at((unsigned)i)->name;
	best = suggest_closest(name, names, n);
	if (best)
		snprintf(buf, cap, "did you mean '%s'? ", best);
	else if (cap)
		buf[0] = '\0';
	return buf;
}

/* Every patch setting names a toggle (`ext4sim patches` lists them). */
static int check_patches(const struct scenario *s, const struct scn_patch_setting *p,
			 unsigned nr, char *err, size_t errlen)
{
	for (unsigned i = 0; i < nr; i++) {
		char h[96];

		if (ext4_toggle_find(p[i].p_name))
			continue;
		name_hint(h, sizeof(h), p[i].p_name, true);
		if (p[i].p_line)
			errf(err, errlen, "%s:%u:%u: unknown patch '%s' (%s`ext4sim patches` lists "
			     "them)", s->path, p[i].p_line, p[i].p_col, p[i].p_name, h);
		else
			errf(err, errlen, "ext4sim: unknown patch '%s' (%s`ext4sim patches` lists "
			     "them)", p[i].p_name, h);
		return -1;
	}
	return 0;
}

/* Apply checked patch settings over @sem, in order (a later one wins). */
static void apply_patches(struct ext4_semantics *sem, const struct scn_patch_setting *p,
			  unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		ext4_toggle_set(sem, ext4_toggle_find(p[i].p_name), p[i].p_on);
}

static const struct ext4_profile *find_profile(const struct scenario *s, const char *name,
					       uint32_t line, uint32_t col, char *err,
					       size_t errlen)
{
	const struct ext4_profile *p = ext4_profile_find(name);
	char h[96];

	if (p)
		return p;
	name_hint(h, sizeof(h), name, false);
	if (line)
		errf(err, errlen, "%s:%u:%u: unknown kernel profile '%s' (%s`ext4sim patches` "
		     "lists them)", s->path, line, col, name, h);
	else
		errf(err, errlen, "ext4sim: unknown kernel profile '%s' (%s`ext4sim patches` "
		     "lists them)", name, h);
	return NULL;
}

/*
 * The mount options of variant @v (NULL: none) in layers: the scenario's
 * config:, the variant's mount keys, the command-line flags.  delalloc not
 * given anywhere is the default (on), so that a layer leaving data=journal
 * mounts delalloc; data=journal then forces it off, as ext4 does.
 */
static void base_opts(const struct scn_config *c, const struct scn_variant *v,
		      const struct sim_overrides *ov, struct ext4_mount_opts *o)
{
	const struct scn_mount *m = v ? &v->v_mount : &(struct scn_mount){ 0 };
	bool set_da = c->c_set_delalloc;
#define VSET(k) (m->m_set & (1u << SCN_MK_##k))

	o->block_size = VSET(BLOCK_SIZE) ? m->m_block_size : c->c_block_size;
	o->data = (enum ext4_data_mode)(VSET(DATA) ? m->m_data : c->c_data);
	o->delalloc = set_da || c->c_data != SCN_DATA_JOURNAL ? c->c_delalloc : true;
	o->delalloc = VSET(DELALLOC) ? m->m_delalloc : o->delalloc;
	o->dioread_nolock = VSET(DIOREAD_NOLOCK) ? m->m_dioread_nolock : c->c_dioread_nolock;
	o->auto_da_alloc = VSET(AUTO_DA_ALLOC) ? m->m_auto_da_alloc : c->c_auto_da_alloc;
	o->disk_blocks = VSET(DISK_BLOCKS) ? m->m_disk_blocks : c->c_disk_blocks;
#undef VSET
	o->block_size = ov->has_block_size ? ov->block_size : o->block_size;
	o->data = ov->has_data ? (enum ext4_data_mode)ov->data : o->data;
	o->delalloc = ov->has_delalloc ? ov->delalloc : o->delalloc;
	o->dioread_nolock = ov->has_dioread_nolock ? ov->dioread_nolock : o->dioread_nolock;
	o->auto_da_alloc = ov->has_auto_da_alloc ? ov->auto_da_alloc : o->auto_da_alloc;
	o->disk_blocks = ov->has_disk_blocks ? ov->disk_blocks : o->disk_blocks;
	if (o->data == DATA_JOURNAL)
		o->delalloc = false;
}

int sim_resolve_variants(const struct scenario *s, const struct sim_overrides *ov,
			 struct sim_variant_cfg *out, unsigned *nr, char *err, size_t errlen)
{
	const struct scn_config *c = &s->config;
	unsigned n = s->nr_variants ? s->nr_variants : 1;

	if (check_patches(s, c->c_patches, c->c_nr_patches, err, errlen) < 0 ||
	    check_patches(s, ov->patches, ov->nr_patches, err, errlen) < 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		const struct scn_variant *v = s->nr_variants ? &s->variants[i] : NULL;
		const char *kname = ov->has_kernel ? ov->kernel : c->c_kernel;
		uint32_t line = ov->has_kernel ? 0 : c->c_kernel_line, col = c->c_kernel_col;

		if (v && v->v_has_kernel && !ov->has_kernel) {
			kname = v->v_kernel;
			line = v->v_kernel_line;
			col = v->v_kernel_col;
		}
		if (v && check_patches(s, v->v_patches, v->v_nr_patches, err, errlen) < 0)
			return -1;
		memset(&out[i], 0, sizeof(out[i]));
		snprintf(out[i].name, sizeof(out[i].name), "%s", v ? v->v_name : "default");
		out[i].profile = find_profile(s, kname, line, col, err, errlen);
		if (!out[i].profile)
			return -1;
		ext4_profile_semantics(out[i].profile, &out[i].sem);
		apply_patches(&out[i].sem, c->c_patches, c->c_nr_patches);
		if (v)
			apply_patches(&out[i].sem, v->v_patches, v->v_nr_patches);
		apply_patches(&out[i].sem, ov->patches, ov->nr_patches);
		base_opts(c, v, ov, &out[i].opts);
	}
	*nr = n;
	return 0;
}

/* --- verdict --- */

static const struct scn_expect *find_expect(const struct scenario *s, const char *variant)
{
	for (unsigned i = 0; i < s->nr_expect; i++)
		if (strcmp(s->expect[i].e_variant, variant) == 0)
			return &s->expect[i];
	return NULL;
}

static bool expect_lists(const struct scn_expect *e, const char *name)
{
	for (unsigned i = 0; e && i < e->e_nr; i++)
		if (strcmp(e->e_invariants[i], name) == 0)
			return true;
	return false;
}

/*
 * An informational invariant counts only where expect: lists it (or
 * --fail-on names it).  With expect:, the counted set must equal the list;
 * without, it must be empty.
 */
/* The crash point of crash step @step (not a hypothetical one), or NULL. */
static const struct cs_point *crash_point_of(const struct sim_variant_result *r, uint32_t step)
{
	for (uint32_t i = 0; i < r->nr_points; i++)
		if (r->points[i].step == step && !r->points[i].hypothetical)
			return &r->points[i];
	return NULL;
}

/*
 * crash_states: each listed crash step's counts.  Unchecked (said in
 * r->cs_mismatch, not failed) when crash states are not enumerated.
 */
static void check_crash_states(const struct scenario *s, const struct sim_options *o,
			       struct sim_variant_result *r)
{
	const struct scn_cs_expect_set *xs = NULL;

	for (unsigned i = 0; i < s->nr_cs_expect; i++)
		if (strcmp(s->cs_expect[i].xs_variant, r->cfg.name) == 0)
			xs = &s->cs_expect[i];
	for (unsigned k = 0; xs && k < xs->xs_nr && !r->cs_mismatch[0]; k++) {
		const struct scn_cs_expect *x = &xs->xs[k];
		const struct cs_point *p = crash_point_of(r, x->x_step);

		if (!o || o->crash_bound == 0 || o->only_point) {
			snprintf(r->cs_mismatch, sizeof(r->cs_mismatch), "crash_states not checked: "
				 "crash states are not enumerated");
			return;
		}
		if (!p || (x->x_raw >= 0 && p->raw_states != (double)x->x_raw) ||
		    (x->x_distinct >= 0 && p->nr_states != x->x_distinct) ||
		    (x->x_violating >= 0 && p->nr_violating != x->x_violating)) {
			snprintf(r->cs_mismatch, sizeof(r->cs_mismatch), "crash_states at step %u: "
				 "expected raw %lld, distinct %lld, violating %lld (-1: any); got "
				 "raw %.0f, distinct %u, violating %u", x->x_step,
				 (long long)x->x_raw, (long long)x->x_distinct,
				 (long long)x->x_violating, p ? p->raw_states : 0,
				 p ? p->nr_states : 0, p ? p->nr_violating : 0);
			r->passed = false;
		}
	}
}

static void compute_verdict(const struct scenario *s, const struct sim_options *o,
			    struct sim_variant_result *r)
{
	r->expect = find_expect(s, r->cfg.name);
	r->has_expect = r->expect != NULL;
	for (uint32_t i = 0; i < r->chk.nr_v; i++)
		r->seen[r->chk.v[i].inv] = true;
	r->passed = true;
	for (int inv = 0; inv < INV_COUNT; inv++) {
		const struct chk_inv_info *info = chk_inv_info(inv);
		bool listed = expect_lists(r->expect, info->name);

		r->violated[inv] = r->seen[inv] &&
				   (!info->informational || listed || o->fail_on[inv]);
		if (r->violated[inv] != listed)
			r->passed = false;
	}
	check_crash_states(s, o, r);
}

/* --- the run --- */

static void trace_step_header(FILE *trace, uint32_t idx, const struct scn_step *st)
{
	fprintf(trace, "  [%u] %s\n", idx, st->s_text);
}

void trace_step_result(FILE *trace, const struct sim_step_result *sr)
{
	if (sr->err)
		fprintf(trace, "      error: %s\n", strerror(-sr->err));
	if (sr->note[0])
		fprintf(trace, "      %s\n", sr->note);
	if (sr->note2[0])
		fprintf(trace, "      %s\n", sr->note2);
	if (sr->writes_note)
		fprintf(trace, "      %s\n", sr->writes_note);
}

static void trace_violations(FILE *trace, const struct world *w, uint32_t from);

/*
 * run --quiz: the lines a step prints even unchanged, those whose values the
 * quiz blanks: the sizes of every step, the whole state after a crash or
 * shutdown, the page cache after a read (what it read in tells the size).
 */
static unsigned quiz_lines(enum scn_op op)
{
	if (op == SCN_CRASH || op == SCN_SHUTDOWN)
		return TRACE_SIZES | TRACE_EXTENTS | TRACE_CACHE | TRACE_JOURNAL;
	if (op == SCN_PREAD || op == SCN_DIO_READ)
		return TRACE_SIZES | TRACE_CACHE;
	return TRACE_SIZES;
}

/* The lines of @text, each indented by @indent spaces. */
static void trace_ns_text(FILE *trace, const char *text, unsigned indent)
{
	const char *p = text;

	while (*p) {
		const char *e = strchr(p, '\n');
		int n = e ? (int)(e - p) : (int)strlen(p);

		fprintf(trace, "%*s%.*s\n", (int)indent, "", n, p);
		p += n + (e != NULL);
	}
}

/* A namespace snapshot's lines (nsnap_text) after @head, indented by @indent. */
static void trace_ns_lines(FILE *trace, const struct nsnap *ns, const char *head,
			   unsigned indent)
{
	size_t cap = 64 + (size_t)ns->ns_nr * (NSNAP_PATH_MAX + NSNAP_TARGET_MAX + 96);
	char *text = sim_zalloc(cap);

	nsnap_text(ns, text, cap);
	fputs(head, trace);
	trace_ns_text(trace, text, indent);
	free(text);
}

/*
 * A crash step of a namespace scenario: each distinct crash state's tree,
 * as crashstates prints it (the crash points of step @sr taken, not the
 * hypothetical ones of --crash-everywhere).
 */
static void trace_crash_trees(FILE *trace, const struct sim_variant_result *r,
			      const struct scn_step *st, const struct sim_step_result *sr)
{
	uint32_t step = (uint32_t)(sr - r->steps) + 1;

	if (st->s_op != SCN_CRASH)
		return;
	for (uint32_t i = 0; i < r->nr_points; i++) {
		const struct cs_point *p = &r->points[i];

		if (p->step != step || p->hypothetical || p->within)
			continue;
		for (uint32_t k = 0; k < p->nr_states; k++) {
			const struct cs_state *cs = &p->states[k];

			if (!cs->ns)
				continue;
			fprintf(trace, "      crash state %u of %u: raw %llu (%s)", k + 1, p->nr_states,
				(unsigned long long)cs->raw_states, cs->example);
			for (int inv = 0; inv < INV_COUNT; inv++)
				if (cs->violated[inv])
					fprintf(trace, " %s", chk_inv_info(inv)->name);
			fputc('\n', trace);
			trace_ns_text(trace, cs->ns, 8);
		}
	}
}

/*
 * The trace of one step: its result, what changed (@now: the state before,
 * updated to after), with --explain the rule behind each size change, with
 * --events the events, then the violations reported from index @nv on.
 */
static void trace_step(FILE *trace, struct world *w, const struct scn_step *st,
		       const struct sim_step_result *sr, struct trace_state *now, uint32_t nv,
		       bool ns_changed)
{
	struct trace_state before = *now;
	const struct sim_options *o = w->o;

	trace_capture(&w->fs, now);
	trace_step_result(trace, sr);
	trace_print_changes(trace, &before, now, o && o->quiz_lines ? quiz_lines(st->s_op) : 0);
	if (ns_changed)
		trace_ns_lines(trace, w->ns_view, "      namespace:\n", 8);
	trace_crash_trees(trace, w->r, st, sr);
	if (o && o->explain && (st->s_op == SCN_CRASH || st->s_op == SCN_SHUTDOWN ||
				st->s_op == SCN_REMOUNT))
		fprintf(trace, "      why: %s drops the page cache and the in-memory inode; the "
			"mount (ext4_fill_super, ext4_iget) reads i_size and i_disksize from the %s "
			"inode\n", st->s_op == SCN_REMOUNT ? "the unmount" : "the crash",
			st->s_op == SCN_REMOUNT ? "written" : "recovered");
	if (o && o->explain) {
		explain_print_sizes(trace, &w->r->events, sr->ev_first, sr->ev_end, &w->cfg->sem);
		explain_print_fields(trace, &w->r->lay, &w->r->events, sr->ev_first, sr->ev_end,
				     strcmp(before.extents, now->extents) != 0,
				     strcmp(before.cache, now->cache) != 0);
	}
	if (o && o->events)
		explain_print_events(trace, &w->r->lay, &w->r->events, sr->ev_first, sr->ev_end);
	trace_violations(trace, w, nv);
}

/* The state object @json (freed) with the namespace's keys before its closing brace. */
static char *state_with_ns(char *json, const struct nsnap *ns)
{
	size_t len = strlen(json), n = 0;
	char *s = NULL;
	FILE *f = open_memstream(&s, &n);

	SIM_ASSERT(f != NULL && len > 0 && json[len - 1] == '}');
	fwrite(json, 1, len - 1, f);
	json_nsnap_keys(f, ns);
	fputc('}', f);
	SIM_ASSERT(fclose(f) == 0 && s != NULL);
	free(json);
	return s;
}

/*
 * Before the first step: the trace's first capture and, in a namespace
 * scenario traced or run with --json, the namespace mkfs left
 * (w->ns_view), so that the first step's trace shows it only if it
 * changed.
 */
static void view_start(struct world *w, FILE *trace, struct trace_state *now)
{
	if (trace)      /* the captures feed the trace only */
		trace_capture(&w->fs, now);
	if (w->ns && (trace || (w->o && (w->o->json_state || w->o->name_writes)))) {
		w->ns_view = sim_zalloc(sizeof(*w->ns_view));
		if (ext4_ns_read(&w->fs, w->ns_view) < 0)
			nsnap_free(w->ns_view);         /* empty: the first step shows its tree */
	}
}

/*
 * After step @st is judged: the namespace as ext4_ns_read sees it now into
 * w->ns_view (kept: w->ns_fresh, and whether it changed: w->ns_changed), so
 * that a hypothetical crash after the step names its writes by it; then,
 * with --crash-everywhere, that crash.  A namespace the walk cannot read
 * leaves the last one and is not shown.
 */
static void step_judged(struct world *w, const struct scn_step *st, uint32_t idx,
			struct sim_step_result *sr)
{
	struct nsnap cur;

	w->ns_fresh = w->ns_changed = false;
	if (w->ns_view && ext4_ns_read(&w->fs, &cur) == 0) {
		w->ns_changed = !nsnap_equal(w->ns_view, &cur);
		w->ns_fresh = true;
		nsnap_free(w->ns_view);
		*w->ns_view = cur;
	} else if (w->ns_view) {
		nsnap_free(&cur);
	}
	if (w->o && w->o->crash_everywhere)
		crash_here(w, st, idx, sr);
}

/*
 * After step @st: with run --json the state (and, in a namespace scenario,
 * the namespace step_judged read), then the trace, which shows the
 * namespace when it differs from the last step's.
 */
static void step_outputs(struct world *w, const struct scn_step *st, struct sim_step_result *sr,
			 FILE *trace, struct trace_state *now, uint32_t nv)
{
	if (w->o && w->o->json_state) {
		sr->state_json = snap_json_string(&w->fs);
		if (w->ns_fresh)
			sr->state_json = state_with_ns(sr->state_json, w->ns_view);
	}
	if (trace)
		trace_step(trace, w, st, sr, now, nv, w->ns_changed);
}

/* The end of the run: the namespace views and the reference go. */
static void view_end(struct world *w)
{
	if (w->ns_view)
		nsnap_free(w->ns_view);
	free(w->ns_view);
	w->ns_view = NULL;
	sim_ns_free(w);
}

/* The violations reported from index @from on; informational ones with --notes or --fail-on. */
static void trace_violations(FILE *trace, const struct world *w, uint32_t from)
{
	const struct chk_state *c = w->chk;

	for (uint32_t i = from; i < c->nr_v; i++) {
		const struct chk_inv_info *info = chk_inv_info(c->v[i].inv);

		if (info->informational && !w->o->notes && !w->o->fail_on[c->v[i].inv])
			continue;
		fprintf(trace, "      %s: %s: %s\n", info->informational ? "note" : "violation",
			info->name, c->v[i].msg);
	}
}

/*
 * The namespace of @fs as a reader sees it after the last step (ext4_ns_read
 * of the in-core file system), as nsnap_text's lines in a new string.
 */
static char *final_namespace(struct ext4_fs *fs)
{
	struct nsnap s;
	size_t cap;
	char *text;

	SIM_ASSERT(ext4_ns_read(fs, &s) == 0);
	cap = 64 + (size_t)s.ns_nr * (NSNAP_PATH_MAX + NSNAP_TARGET_MAX + 96);
	text = sim_zalloc(cap);
	nsnap_text(&s, text, cap);
	nsnap_free(&s);
	return text;
}

/* What the options ask of the state after the last step: its content, its namespace. */
static void capture_final(struct world *w, const struct sim_options *o,
			  struct sim_variant_result *r)
{
	if (o && (o->final_digest || o->final_bytes))
		sim_content_capture(&w->fs, o->final_bytes, &r->final_content);
	if (o && o->final_ns)
		r->final_ns = final_namespace(&w->fs);
}

/*
 * run --image: the device as a clean unmount (ext4_put_super, as umount(8)
 * does) leaves it after the last step, written to @path (sim/blkimage.h).  The
 * unmount is not part of the run: its events are not recorded and its
 * counters are not kept.  With @trace, the file as a mount of the image
 * reads it (trace_image_line).  Frees @w's file system; 0, or -1 with @err.
 */
static int world_write_image(struct world *w, const char *path, int64_t max_bytes, FILE *trace,
			     char *err, size_t errlen)
{
	struct sim_counters keep = *w->c, c = { 0 };
	struct jbd2_recovery_info ri;
	struct blkdev *copy;
	struct ext4_fs fs;

	w->bd->bd_events = NULL;
	w->fs.inode->i_mapping.a_events = NULL;
	w->bd->bd_durable_hook = NULL;
	ext4_put_super(&w->fs);
	*w->c = keep;
	if (trace) {
		copy = blkdev_clone(w->bd);
		SIM_ASSERT(ext4_fill_super(&fs, copy, &w->cfg->opts, &w->cfg->sem, &c, &ri) == 0);
		ext4_current_is_f(&fs);
		trace_image_line(trace, path, &fs);
		ext4_free_fs(&fs);
		blkdev_destroy(copy);
	}
	return sim_image_write(w->bd, path, max_bytes, err, errlen);
}

int sim_image_probe(const struct blkdev *bd, const struct sim_variant_cfg *cfg, char *msg,
		    size_t cap)
{
	struct sim_counters c = { 0 };
	struct jbd2_recovery_info ri;
	struct blkdev *copy = blkdev_clone(bd);
	struct ext4_fs fs;
	int err = ext4_fill_super(&fs, copy, &cfg->opts, &cfg->sem, &c, &ri);

	if (err < 0)
		snprintf(msg, cap, "%s", ext4_mount_error(&fs) ? ext4_mount_error(&fs) : strerror(-err));
	ext4_free_fs(&fs);
	blkdev_destroy(copy);
	return err < 0 ? -1 : 0;
}

void sim_judging_of(struct sim_judging *j, const struct sim_options *o)
{
	j->j_crash_everywhere = o->crash_everywhere;
	j->j_crash_bound = o->crash_bound;
	memcpy(j->j_fail_on, o->fail_on, sizeof(j->j_fail_on));
}

int sim_run_variant(const struct scenario *s, const struct sim_variant_cfg *cfg,
		    const struct sim_options *o, FILE *trace, const char *dump_path,
		    struct sim_variant_result *r, char *err, size_t errlen)
{
	struct trace_state now;
	struct world w;
	struct crash_inside_ctx ic = { .w = &w };
	struct tl_tracker *tl = NULL;
	struct ext4_inode_info *view;
	int ret;

	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	if (o)
		sim_judging_of(&r->judging, o);
	r->show_notes = o && o->notes;
	r->steps = sim_zalloc(s->nr_steps * sizeof(*r->steps));
	world_init(&w, cfg, r, o);
	w.o = o;
	sim_ns_start_for(&w, s);
	r->lay = w.fs.lay;
	if (o && o->record_events)
		world_attach_events(&w);
	if (o && o->record_events && o->timeline)
		tl = tl_create(&w);
	view_start(&w, trace, &now);
	for (uint32_t i = 0; i < s->nr_steps; i++) {
		struct sim_step_result *sr = &r->steps[i];
		uint32_t nv = r->chk.nr_v;

		if (trace)
			trace_step_header(trace, i + 1, &s->steps[i]);
		sr->ev_first = r->events.l_nr;
		if (tl)
			tl_step_begin(tl);
		view = sim_file_view(&w);
		chk_step_begin(&r->chk, &w.fs);
		w.fs.inode = view;
		crash_arm_inside(&ic, &s->steps[i], i + 1, o && o->crash_everywhere);
		run_step(&w, &s->steps[i], i + 1, sr, trace);
		w.bd->bd_durable_hook = NULL;
		ext4_check_state(&w.fs);
		view = sim_file_view(&w);
		chk_step_end(&r->chk, &w.fs, i + 1);
		w.fs.inode = view;
		step_judged(&w, &s->steps[i], i + 1, sr);
		sr->i_size = w.fs.inode->i_size;
		sr->i_disksize = w.fs.inode->i_disksize;
		sr->ev_end = r->events.l_nr;
		if (tl)
			sr->timeline_json = tl_step_end(tl);
		step_outputs(&w, &s->steps[i], sr, trace, &now, nv);
		if (trace && tl)
			tl_print(trace, tl, &r->lay, &r->events, sr->ev_first, sr->ev_end);
	}
	tl_destroy(tl);
	r->final_size = w.fs.inode->i_size;
	r->final_disksize = w.fs.inode->i_disksize;
	ret = dump_path ? sim_dump_file(&w.fs, dump_path, err, errlen) : 0;
	capture_final(&w, o, r);
	if (o && o->image && ret == 0)
		ret = world_write_image(&w, o->image, o->max_image_bytes, trace, err, errlen);
	else
		ext4_free_fs(&w.fs);
	blkdev_destroy(w.bd);
	view_end(&w);
	compute_verdict(s, o, r);
	return ret;
}

void sim_variant_result_free(struct sim_variant_result *r, unsigned nr_steps)
{
	for (unsigned i = 0; r->steps && i < nr_steps; i++) {
		free(r->steps[i].state_json);
		free(r->steps[i].timeline_json);
		free(r->steps[i].writes_note);
	}
	free(r->steps);
	for (uint32_t i = 0; i < r->nr_points; i++)
		cs_point_free(&r->points[i]);
	free(r->points);
	chk_destroy(&r->chk);
	ev_log_free(&r->events);
	sim_content_free(&r->final_content);
	free(r->final_ns);
	memset(r, 0, sizeof(*r));
}

/* --- streaming (long explore runs) --- */

struct sim_stream {
	struct world w;
	struct sim_variant_result r;    /* counters, checker; no step records */
	struct crash_inside_ctx ic;
	const struct sim_options *o;
	struct sim_stream_result res;
};

struct sim_stream *sim_stream_open(const struct sim_variant_cfg *cfg, const struct sim_options *o)
{
	struct sim_stream *ss = sim_zalloc(sizeof(*ss));

	SIM_ASSERT(o != NULL && !o->has_keep && !o->only_point);
	ss->r.cfg = *cfg;
	ss->o = o;
	world_init(&ss->w, &ss->r.cfg, &ss->r, o);
	ss->w.o = o;
	ss->ic.w = &ss->w;
	return ss;
}

void sim_stream_namespace(struct sim_stream *ss)
{
	SIM_ASSERT(ss->res.steps == 0);
	sim_ns_start(&ss->w);
}

/*
 * Fold the step's violations into the counts and free its crash points:
 * nothing per step stays (report_crash_states only looks at the current
 * step's violations, and a crash-state copy of the checker starts from
 * the current ones).
 */
static void stream_drain(struct sim_stream *ss)
{
	struct chk_state *c = &ss->r.chk;
	struct sim_stream_result *res = &ss->res;

	res->step_mask = 0;
	for (uint32_t i = 0; i < c->nr_v; i++) {
		enum chk_inv inv = c->v[i].inv;

		SIM_ASSERT(inv < INV_COUNT);
		if (!chk_inv_info(inv)->informational || ss->o->fail_on[inv])
			res->step_mask |= 1u << inv;
		if (res->reports[inv]++ == 0)
			res->first_step[inv] = c->v[i].step;
	}
	c->nr_v = 0;
	for (uint32_t i = 0; i < ss->r.nr_points; i++)
		cs_point_free(&ss->r.points[i]);
	res->crash_points += ss->r.nr_points;
	ss->r.nr_points = 0;
}

uint32_t sim_stream_step(struct sim_stream *ss, const struct scn_step *st, bool judge)
{
	struct world *w = &ss->w;
	struct sim_step_result sr;
	uint32_t idx = ss->res.steps + 1;
	struct ext4_inode_info *view;

	SIM_ASSERT(idx != 0);           /* no wrap: explore bounds the steps */
	if (ss->res.cut)
		return 0;
	if (chk_log_entries(w->chk) >= SIM_STREAM_MUTS_MAX) {
		ss->res.cut = true;     /* the memory bound of a long run: stop here */
		return 0;
	}
	memset(&sr, 0, sizeof(sr));
	view = sim_file_view(w);
	chk_step_begin(w->chk, &w->fs);
	w->fs.inode = view;
	crash_arm_inside(&ss->ic, st, idx, judge);
	run_step(w, st, idx, &sr, NULL);
	w->bd->bd_durable_hook = NULL;
	ext4_check_state(&w->fs);
	view = sim_file_view(w);
	chk_step_end(w->chk, &w->fs, idx);
	w->fs.inode = view;
	if (judge)
		crash_here(w, st, idx, &sr);
	free(sr.writes_note);           /* crash --keep's words: no step records here */
	free(sr.state_json);
	ss->res.steps = idx;
	stream_drain(ss);
	return ss->res.step_mask;
}

struct sim_stream *sim_stream_fork(const struct sim_stream *src)
{
	struct sim_stream *ss = sim_realloc_array(NULL, 1, sizeof(*ss));  /* each part set below */
	const struct world *sw = &src->w;

	SIM_ASSERT(src->r.nr_points == 0 && src->r.chk.nr_v == 0 && !sw->bd->bd_events);
	memset(&ss->w, 0, sizeof(ss->w));      /* in parts: each under memset's string-store size */
	memset(&ss->r, 0, sizeof(ss->r));
	memset(&ss->ic, 0, sizeof(ss->ic));
	ss->o = src->o;
	memcpy(&ss->res, &src->res, sizeof(ss->res));
	ss->r.cfg = src->r.cfg;
	ss->r.counters = src->r.counters;
	ss->r.last_recovery = src->r.last_recovery;
	ss->r.lay = src->r.lay;
	chk_copy(&ss->r.chk, &src->r.chk);
	ss->w = (struct world){ .cfg = &ss->r.cfg, .o = sw->o, .r = &ss->r,
				.c = &ss->r.counters, .chk = &ss->r.chk,
				.rec = &ss->r.last_recovery, .points_seen = sw->points_seen,
				.mapped = sw->mapped, .map_prot = sw->map_prot,
				.map_off = sw->map_off, .map_len = sw->map_len };
	ss->w.bd = blkdev_clone(sw->bd);
	ext4_fs_clone(&ss->w.fs, &sw->fs, ss->w.bd, ss->w.c);
	ss->r.chk.c_ns = NULL;
	if (sw->ns) {
		ss->w.ns = sim_zalloc(sizeof(*ss->w.ns));
		chk_ns_copy(ss->w.ns, sw->ns);
		ss->r.chk.c_ns = ss->w.ns;
	}
	ss->ic.w = &ss->w;
	return ss;
}

struct world *sim_stream_world(struct sim_stream *ss)
{
	return &ss->w;
}

void sim_stream_key(const struct sim_stream *ss, uint64_t key[2])
{
	world_key(&ss->w, key);
}

const struct chk_state *sim_stream_checker(const struct sim_stream *ss)
{
	return &ss->r.chk;
}

void sim_stream_free(struct sim_stream *ss)
{
	sim_ns_free(&ss->w);
	ext4_free_fs(&ss->w.fs);
	blkdev_destroy(ss->w.bd);
	sim_variant_result_free(&ss->r, 0);
	free(ss);
}

const struct ext4_fs *sim_stream_fs(const struct sim_stream *ss)
{
	return &ss->w.fs;
}

void sim_stream_close(struct sim_stream *ss, struct sim_stream_result *out)
{
	for (int inv = 0; inv < INV_COUNT; inv++)
		ss->res.violated[inv] = ss->res.reports[inv] &&
					(!chk_inv_info(inv)->informational || ss->o->fail_on[inv]);
	*out = ss->res;
	sim_stream_free(ss);
}

/* --- the memory a run needs --- */

int64_t sim_mem_add_step(struct sim_mem_estimate *me, const struct scn_step *st)
{
	int64_t reach;

	switch (st->s_op) {
	case SCN_PWRITE: case SCN_MWRITE:
		me->me_written += st->s_len;
		me->me_end = SIM_MAX(me->me_end, st->s_off + st->s_len);
		break;
	case SCN_FINSERT:
		me->me_inserted += st->s_len;
		break;
	default:
		me->me_read += scn_step_bytes(st);
		break;
	}
	reach = SIM_MIN(me->me_written, me->me_end + me->me_inserted);
	return SIM_MEM_BASE + reach / 10 * SIM_MEM_PER_BYTE_X10 + me->me_read / 4;
}

/* --- --dump-file --- */

static int write_all(int fd, const uint8_t *buf, size_t n, off_t off)
{
	while (n > 0) {
		ssize_t k = pwrite(fd, buf, n, off);

		if (k < 0)
			return -1;
		buf += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

/* Is the page all zeros (left a hole in the dump)? */
static bool zero_page(const uint8_t *buf, size_t n)
{
	return n == 0 || (buf[0] == 0 && memcmp(buf, buf + 1, n - 1) == 0);
}

/*
 * Into a target that is not a regular file (a device, a FIFO: written in
 * place, not seekable), the whole file in order, holes as the zeros they read.
 */
static int dump_stream(const struct ext4_fs *fs, int fd)
{
	uint8_t *buf = sim_zalloc(PAGE_SIZE);
	int rc = 0;

	for (int64_t p = 0; rc == 0 && p < fs->inode->i_size; p += PAGE_SIZE) {
		size_t n = (size_t)SIM_MIN((int64_t)PAGE_SIZE, fs->inode->i_size - p);
		const uint8_t *b = buf;

		ext4_peek(fs, p, (int64_t)n, buf);
		while (rc == 0 && n > 0) {
			ssize_t k = write(fd, b, n);

			rc = k < 0 ? -1 : 0;
			b += k > 0 ? k : 0;
			n -= k > 0 ? (size_t)k : 0;
		}
	}
	free(buf);
	return rc;
}

/*
 * Dump the non-hole parts; the rest (zero pages too: unwritten extents) stays
 * sparse zeros.  A target that is not a regular file gets the whole stream.
 */
static int dump_contents(const struct ext4_fs *fs, int fd)
{
	const struct address_space *m = &fs->inode->i_mapping;
	const struct ext4_es_tree *t = &fs->inode->i_es;
	uint32_t bits = ext4_blkbits(fs);
	struct stat st;
	uint8_t *buf;
	int rc;

	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		return dump_stream(fs, fd);
	buf = sim_zalloc(PAGE_SIZE);
	rc = ftruncate(fd, (off_t)fs->inode->i_size);

	for (uint32_t i = 0; rc == 0 && i < m->a_nr; i++) {
		int64_t p = (int64_t)m->a_folios[i]->index << PAGE_SHIFT;
		int64_t n = SIM_MIN((int64_t)PAGE_SIZE, fs->inode->i_size - p);

		if (n <= 0)
			continue;
		ext4_peek(fs, p, n, buf);
		if (!zero_page(buf, (size_t)n))
			rc = write_all(fd, buf, (size_t)n, (off_t)p);
	}
	for (uint32_t i = 0; rc == 0 && i < t->es_nr; i++) {
		int64_t s = (int64_t)t->es[i].es_lblk << bits;
		int64_t e = SIM_MIN(((int64_t)t->es[i].es_lblk + t->es[i].es_len) << bits,
				    fs->inode->i_size);

		for (int64_t p = s; rc == 0 && p < e; p += PAGE_SIZE) {
			int64_t n = SIM_MIN((int64_t)PAGE_SIZE, e - p);

			ext4_peek(fs, p, n, buf);
			if (!zero_page(buf, (size_t)n))
				rc = write_all(fd, buf, (size_t)n, (off_t)p);
		}
	}
	free(buf);
	return rc;
}

int sim_dump_file(const struct ext4_fs *fs, const char *path, char *err, size_t errlen)
{
	struct outfile o;

	if (outfile_open(&o, path, false, err, errlen) < 0)
		return -1;
	if (dump_contents(fs, fileno(o.f)) < 0) {
		snprintf(err, errlen, "ext4sim: cannot write %s: %s", path, strerror(errno));
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o, err, errlen);
}
