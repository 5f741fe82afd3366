/*
 * mapping.c - the steps on a shared mapping of the file and the page-cache
 * advice: mmap, mwrite, mread, mremap, msync, madvise, munmap and fadvise.
 * One mapping is current at a time, as xfs_io's current mapping: an mmap
 * step sets it; without one, mwrite, mread and madvise with a range map the
 * file implicitly (export writes the mmap they need).  A range outside the
 * current mapping, or the wrong protection, is refused as xfs_io refuses it
 * (EINVAL, nothing touched); a page at or past the one holding EOF is
 * SIGBUS (the step's EFAULT), which ends a real xfs_io process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace.h"
#include "world.h"

/*
 * The range a mapping step names (its OFF LEN, else the whole current
 * mapping), checked against the current mapping and protection @prot.
 * Returns false with the step's error and sentence set when it is refused.
 */
static bool map_range(struct world *w, const struct scn_step *st, uint8_t prot,
		      struct sim_step_result *sr, int64_t *start, int64_t *len)
{
	bool given = st->s_has_range || st->s_op == SCN_MWRITE;

	*start = given ? st->s_off : w->map_off;
	*len = given ? st->s_len : w->map_len;
	if (!w->mapped && !given) {
		sr->err = -EINVAL;
		note(sr, "no mapping: give OFF LEN or map the file first");
		return false;
	}
	if (w->mapped && (w->map_prot & prot) != prot) {
		sr->err = -EINVAL;
		note(sr, "the mapping is not %s", prot & 2 ? "writable" : "readable");
		return false;
	}
	if (w->mapped && (*start < w->map_off || *start + *len > w->map_off + w->map_len)) {
		sr->err = -EINVAL;
		note(sr, "the range is outside the mapping");
		return false;
	}
	return true;
}

/*
 * mwrite: stores through the mapping.  Only the stored bytes below EOF
 * become file content; a page at or past the EOF page is SIGBUS.
 */
static void step_mwrite(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	int64_t size = w->fs.inode->i_size, stored = 0, start, len;

	if (!map_range(w, st, 2, sr, &start, &len))
		return;
	sr->err = ext4_mmap_store_dir(&w->fs, start, len, st->s_fill, st->s_reverse, &stored);
	if (start < size)
		chk_note_write(w->chk, start, SIM_MIN(stored, size - start), st->s_fill);
	sr->bytes = stored;
	note(sr, "stored %lld bytes at %lld%s", (long long)stored, (long long)start,
	     sr->err == -EFAULT ? " (SIGBUS: page past the EOF page)" : "");
}

/*
 * mread: loads through the mapping, forward or (-r) from the end.  With -v
 * the bytes are dumped with offsets from the start of the mapping, with -f
 * from the start of the file; past EOF inside the EOF page they are what
 * the folio holds.
 */
static void step_mread(struct world *w, const struct scn_step *st, struct sim_step_result *sr,
		       FILE *trace)
{
	int64_t start, len, loaded = 0;
	uint8_t *buf;

	if (!map_range(w, st, 1, sr, &start, &len))
		return;
	len = SIM_MIN(len, (int64_t)1 << 26);
	buf = sim_zalloc((size_t)len + 1);
	sr->err = ext4_mmap_load(&w->fs, start, len, st->s_reverse, buf, &loaded);
	sr->bytes = loaded;
	note(sr, "loaded %lld bytes at %lld%s", (long long)loaded,
	     (long long)(st->s_reverse ? start + len - loaded : start),
	     sr->err == -EFAULT ? " (SIGBUS: page past the EOF page)" : "");
	if (st->s_verbose && trace && sr->err == 0) {
		trace_step_result(trace, sr);
		sr->note[0] = '\0';            /* printed already, before the dump */
		trace_hexdump(trace, st->s_file_offsets ? start : start - (w->mapped ? w->map_off : 0),
			      buf, loaded);
	}
	free(buf);
}

/*
 * mremap NEWSIZE: the current mapping grows or shrinks at its end; a shrink
 * unmaps the pages cut off.  The model always may move the mapping, as with
 * -m (MREMAP_MAYMOVE): a real mremap without -m fails with ENOMEM when the
 * addresses after the mapping are taken, which depends on the process.
 */
static void step_mremap(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	if (!w->mapped) {
		sr->err = -EINVAL;
		note(sr, "no mapping to resize (map the file first)");
		return;
	}
	if (st->s_len < w->map_len)
		ext4_mmap_dontneed(&w->fs, w->map_off + st->s_len, w->map_len - st->s_len);
	w->map_len = st->s_len;
	note(sr, "mapping now [%lld, %lld)", (long long)w->map_off,
	     (long long)(w->map_off + w->map_len));
}

/*
 * madvise: -R (MADV_POPULATE_READ) and -W (MADV_POPULATE_WRITE) fault the
 * range in, a write fault calling ->page_mkwrite; past the EOF page they
 * fail with EFAULT (madvise returns, xfs_io goes on).  -d (MADV_DONTNEED)
 * drops the range's page-table entries.  -r, -s and none set read-ahead,
 * which the model does not have.
 */
static void step_madvise(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	int64_t start, len, done = 0;
	char a = st->s_advice;

	if ((a == 'R' || a == 'W') && !ext4_sem(&w->fs, madv_populate)) {
		sr->err = -EINVAL;      /* madvise_behavior_valid() */
		note(sr, "MADV_POPULATE_%s is unknown to this kernel: nothing faulted in",
		     a == 'R' ? "READ" : "WRITE");
		return;
	}
	if (!map_range(w, st, a == 'W' ? 2 : a == 'R' ? 1 : 0, sr, &start, &len))
		return;
	if (a == 'R')
		sr->err = ext4_mmap_load(&w->fs, start, len, false, NULL, &done);
	else if (a == 'W')
		sr->err = ext4_mmap_populate_write(&w->fs, start, len, &done);
	else if (a == 'd')
		ext4_mmap_dontneed(&w->fs, start, len);
	note(sr, "madvise %s [%lld, %lld)%s", a == 'R' ? "MADV_POPULATE_READ" :
	     a == 'W' ? "MADV_POPULATE_WRITE" : a == 'd' ? "MADV_DONTNEED" :
	     a == 'r' ? "MADV_RANDOM (read-ahead only)" : a == 's' ?
	     "MADV_SEQUENTIAL (read-ahead only)" : "MADV_NORMAL (read-ahead only)",
	     (long long)start, (long long)(start + len),
	     sr->err == -EFAULT ? ": a page past the EOF page" : "");
}

/* mmap: the new current mapping; MAP_SYNC (-S) fails on a file without DAX. */
static void step_mmap(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	if (st->s_map_sync && !ext4_sem(&w->fs, map_shared_validate)) {
		sr->err = -EINVAL;      /* do_mmap(): MAP_SHARED_VALIDATE is no map type */
		note(sr, "MAP_SHARED_VALIDATE is unknown to this kernel: nothing mapped");
		return;
	}
	if (st->s_map_sync) {
		sr->err = w->fs.s_shutdown ? -EIO : -EOPNOTSUPP;   /* ext4_file_mmap() */
		note(sr, "MAP_SYNC needs a DAX file system: nothing mapped");
		return;
	}
	w->mapped = true;
	w->map_off = st->s_off;
	w->map_len = st->s_len;
	w->map_prot = st->s_prot;
	note(sr, "mapped [%lld, %lld)", (long long)st->s_off, (long long)(st->s_off + st->s_len));
}

/*
 * msync -s is MS_SYNC: vfs_fsync_range(.., datasync) over the range (the
 * whole mapping without one); -a (MS_ASYNC), -i and no flag do nothing a
 * crash could see.
 */
static void step_msync(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	int64_t start, len;

	if (!w->mapped) {
		sr->err = -EINVAL;
		note(sr, "no mapping");
		return;
	}
	if (!map_range(w, st, 0, sr, &start, &len))
		return;
	if (st->s_msync_flag == 's' && len > 0)   /* a range: not a durable point of the whole file */
		sr->err = ext4_sync_file(&w->fs, start, start + len - 1, true);
	note(sr, "msync%s [%lld, %lld)", st->s_msync_flag == 's' ? " MS_SYNC" : " (no write)",
	     (long long)start, (long long)(start + len));
}

void sim_step_mapping(struct world *w, const struct scn_step *st, struct sim_step_result *sr,
		      FILE *trace)
{
	switch (st->s_op) {
	case SCN_MMAP: step_mmap(w, st, sr); break;
	case SCN_MWRITE: step_mwrite(w, st, sr); break;
	case SCN_MREAD: step_mread(w, st, sr, trace); break;
	case SCN_MREMAP: step_mremap(w, st, sr); break;
	case SCN_MADVISE: step_madvise(w, st, sr); break;
	case SCN_MSYNC: step_msync(w, st, sr); break;
	default:                /* munmap */
		if (!w->mapped)
			sr->err = -EINVAL;
		ext4_munmap(&w->fs);
		w->mapped = false;
		note(sr, "%s", sr->err ? "no mapping" : "unmapped");
		break;
	}
}

/*
 * fadvise: posix_fadvise(2) over OFF LEN (without a range: from 0 to the
 * end, a length of 0).  Only -d (DONTNEED) changes what the model holds.
 */
void sim_step_fadvise(struct world *w, const struct scn_step *st, struct sim_step_result *sr)
{
	int64_t off = st->s_has_range ? st->s_off : 0, len = st->s_has_range ? st->s_len : 0;
	char a = st->s_advice;

	char end[24] = "EOF";

	sr->err = generic_fadvise(&w->fs, off, len, a);
	if (len)
		snprintf(end, sizeof(end), "%lld", (long long)(off + len));
	note(sr, "fadvise %s [%lld, %s)", a == 'd' ? "POSIX_FADV_DONTNEED" :
	     a == 'n' ? "POSIX_FADV_NOREUSE (no effect)" : a == 'r' ?
	     "POSIX_FADV_RANDOM (read-ahead only)" : a == 's' ?
	     "POSIX_FADV_SEQUENTIAL (read-ahead only)" : "POSIX_FADV_NORMAL (read-ahead only)",
	     (long long)off, end);
}
