/*
 * nsstep.c - the namespace steps as the step interpreter runs them: each
 * step calls the model's operation (model/ext4/namei), its -errno the
 * step's result (the run goes on, as xfs_io's and ACE's do), and tells the
 * namespace reference (checker/namespace.h) what a successful one did.
 * Also the reference's notes every step of a namespace scenario owes it:
 * what a data step did to the current file's bytes, the commits, syncs,
 * fsyncs and crashes.
 *
 * The scenario's file (/f, inode 12) keeps the single-file checker: its
 * notes are muted while a step works on another file, and it stops judging
 * once no name holds inode 12.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "namei.h"
#include "xattr.h"
#include "namespace.h"
#include "nsnap.h"
#include "world.h"

void sim_ns_start(struct world *w)
{
	if (w->ns)
		return;
	w->ns = calloc(1, sizeof(*w->ns));
	SIM_ASSERT(w->ns != NULL);
	chk_ns_init(w->ns);
	w->chk->c_ns = w->ns;
	w->fs.s_time_ticks = true;
	if (w->fs.inode->i_ino == EXT4_FILE_INO && w->fs.inode->i_size != 0)
		chk_ns_note_unknown(w->ns, EXT4_FILE_INO, w->fs.inode->i_size);
}

void sim_ns_start_for(struct world *w, const struct scenario *s)
{
	for (uint32_t i = 0; i < s->nr_steps && !w->ns; i++)
		if (scn_step_is_namespace(&s->steps[i]))
			sim_ns_start(w);
}

struct ext4_inode_info *sim_file_view(struct world *w)
{
	struct ext4_inode_info *was = w->fs.inode, *f;

	if (w->ns && was->i_ino != EXT4_FILE_INO && (f = ext4_ilookup(&w->fs, EXT4_FILE_INO)))
		w->fs.inode = f;
	return was;
}

void sim_ns_free(struct world *w)
{
	if (!w->ns)
		return;
	chk_ns_destroy(w->ns);
	free(w->ns);
	w->ns = NULL;
	w->chk->c_ns = NULL;
}

void sim_ns_rebase(struct world *w)
{
	struct nsnap s;

	if (!w->ns)
		return;
	w->fs.s_time_ticks = true;              /* the mount cleared it */
	SIM_ASSERT(ext4_ns_read(&w->fs, &s) == 0);
	SIM_ASSERT(chk_ns_rebase(w->ns, &s) == 0);
	nsnap_free(&s);
	if (w->fs.inode->i_ino != EXT4_FILE_INO)
		ext4_current_is_f(&w->fs);      /* xfs_io, started again, opens f by its name */
}

bool sim_step_on_file(enum scn_op op)
{
	switch (op) {
	case SCN_SYNC: case SCN_SHUTDOWN: case SCN_COMMIT: case SCN_CHECKPOINT: case SCN_CRASH:
	case SCN_REMOUNT: case SCN_INJECT:
		return false;
	default:
		return op < SCN_OPEN;
	}
}

/* The inode @path names now (its last link not followed), or 0. */
static uint32_t ino_of(struct world *w, const char *path, bool follow)
{
	struct ext4_inode_info *ei;

	return ext4_path_lookup(&w->fs, path, follow, &ei) == 0 ? ei->i_ino : 0;
}

/* A note's -E2BIG: the reference's limit, a clear stop of the run. */
static void ns_checked(int err)
{
	SIM_ASSERT(err == 0 || err == -E2BIG);
	SIM_ASSERT(err != -E2BIG || !"the namespace reference's limits (checker/namespace.h)");
}

/* open and creat: a new inode for the reference, or O_TRUNC of an old one. */
static void step_open(struct world *w, const struct scn_step *st, uint32_t idx,
		      struct sim_step_result *sr)
{
	bool creat = st->s_op == SCN_CREAT || st->s_creat;
	bool trunc = st->s_op == SCN_CREAT || st->s_trunc;
	uint32_t old = ino_of(w, st->s_path, true), ino;

	sr->err = st->s_op == SCN_CREAT ? ext4_creat(&w->fs, st->s_path)
					: ext4_open_path(&w->fs, st->s_path, creat, trunc);
	if (sr->err)
		return;
	ino = ino_of(w, st->s_path, true);
	if (!old) {
		ns_checked(chk_ns_note_create(w->ns, idx, st->s_path, ino));
	} else if (trunc) {
		chk_ns_note_truncate(w->ns, ino, 0);
		if (ino == EXT4_FILE_INO)
			chk_note_truncate(w->chk, 0);   /* O_TRUNC of the scenario's file */
	}
	if (st->s_op == SCN_OPEN)
		w->f_flags = (st->s_direct ? IOCB_DIRECT : 0) |
			     (st->s_osync ? IOCB_DSYNC | IOCB_SYNC : 0);
	if (st->s_op == SCN_OPEN)
		note(sr, "%s %s: inode %u is the current file%s%s", old ? "opened" : "created",
		     st->s_path, ino, st->s_direct ? ", O_DIRECT" : "", st->s_osync ? ", O_SYNC" : "");
	else
		note(sr, "%s %s (inode %u)", old ? "truncated" : "created", st->s_path, ino);
}

/* The steps that make or remove a name, and their notes. */
static void step_names(struct world *w, const struct scn_step *st, uint32_t idx,
		       struct sim_step_result *sr)
{
	struct ext4_fs *fs = &w->fs;
	const char *a = st->s_path, *b = st->s_path2;

	switch (st->s_op) {
	case SCN_MKDIR:
		if (!(sr->err = ext4_mkdir(fs, a)))
			ns_checked(chk_ns_note_mkdir(w->ns, idx, a, ino_of(w, a, false)));
		break;
	case SCN_RMDIR:
		if (!(sr->err = ext4_rmdir(fs, a)))
			ns_checked(chk_ns_note_rmdir(w->ns, idx, a));
		break;
	case SCN_UNLINK:
		if (!(sr->err = ext4_unlink(fs, a)))
			ns_checked(chk_ns_note_unlink(w->ns, idx, a));
		break;
	case SCN_LINK:
		if (!(sr->err = ext4_link(fs, a, b)))
			ns_checked(chk_ns_note_link(w->ns, idx, a, b));
		break;
	case SCN_RENAME:
		if (!(sr->err = ext4_rename(fs, a, b, st->s_rename_flags)))
			ns_checked(chk_ns_note_rename(w->ns, idx, a, b, st->s_rename_flags));
		break;
	case SCN_SETXATTR:              /* s_path2: the VALUE */
		if (!(sr->err = ext4_setxattr(fs, a, st->s_xattr_name, b, strlen(b), 0)))
			ns_checked(chk_ns_note_setxattr(w->ns, idx, ino_of(w, a, true),
							st->s_xattr_name, b, strlen(b)));
		break;
	case SCN_REMOVEXATTR:
		if (!(sr->err = ext4_removexattr(fs, a, st->s_xattr_name)))
			ns_checked(chk_ns_note_removexattr(w->ns, idx, ino_of(w, a, true),
							   st->s_xattr_name));
		break;
	case SCN_SYMLINK:               /* symlink TARGET PATH: s_path is PATH, s_path2 TARGET */
		if (!(sr->err = ext4_symlink(fs, b, a)))
			ns_checked(chk_ns_note_symlink(w->ns, idx, b, a, ino_of(w, a, false)));
		break;
	default:
		SIM_ASSERT(!"not a namespace step");
	}
}

/* fsync PATH / fdatasync PATH: the file's promise, and the scenario file's durable point. */
static void step_fsync_path(struct world *w, const struct scn_step *st, uint32_t idx,
			    struct sim_step_result *sr)
{
	bool datasync = st->s_op == SCN_FDATASYNC;
	uint32_t ino = ino_of(w, st->s_path, true);

	sr->err = ext4_fsync_path(&w->fs, st->s_path, datasync);
	if (sr->err)
		return;
	ns_checked(chk_ns_note_fsync(w->ns, idx, ino, datasync));
	if (ino == EXT4_FILE_INO)
		chk_note_durable(w->chk);
	note(sr, "%s %s (inode %u)", datasync ? "fdatasync" : "fsync", st->s_path, ino);
}

void sim_step_namespace(struct world *w, const struct scn_step *st, uint32_t idx,
			struct sim_step_result *sr)
{
	sim_ns_start(w);
	w->fs.s_ns_error = NULL;
	if (w->fs.s_shutdown)
		sr->err = -EIO;
	else if (st->s_op == SCN_OPEN || st->s_op == SCN_CREAT)
		step_open(w, st, idx, sr);
	else if (st->s_op == SCN_FSYNC || st->s_op == SCN_FDATASYNC)
		step_fsync_path(w, st, idx, sr);
	else
		step_names(w, st, idx, sr);
	if (sr->err && w->fs.s_ns_error)
		note(sr, "%s", w->fs.s_ns_error);
	else if (!sr->err && !sr->note[0])
		note(sr, "%s", st->s_text);
}

/* What a data step did to the bytes of the file it worked on (inode @ino). */
static void ns_content_note(struct world *w, const struct scn_step *st,
			    const struct sim_step_result *sr, uint32_t ino)
{
	const struct ext4_inode_info *ei = ext4_ilookup(&w->fs, ino);
	int64_t size = ei ? ei->i_size : 0;

	if (sr->err == -EBADF || !ei || !S_ISREG(ei->i_mode))
		return;                 /* no file was open: nothing changed */

	switch (st->s_op) {
	case SCN_PWRITE:
		if (!st->s_random && st->s_short_copy < 0 && sr->bytes == st->s_len) {
			chk_ns_note_write(w->ns, ino, st->s_off, sr->bytes, st->s_fill);
			return;
		}
		break;
	case SCN_TRUNCATE:
		if (sr->err == 0) {
			chk_ns_note_truncate(w->ns, ino, st->s_len);
			return;
		}
		break;
	case SCN_PREAD: case SCN_DIO_READ: case SCN_MREAD: case SCN_SYNC_RANGE:
	case SCN_WRITEBACK: case SCN_EVICT: case SCN_FADVISE: case SCN_MMAP: case SCN_MSYNC:
	case SCN_MUNMAP: case SCN_MADVISE: case SCN_CHATTR: case SCN_CLOSE:
		return;
	default:
		break;
	}
	chk_ns_note_unknown(w->ns, ino, size);        /* any other change of its bytes */
}

void sim_ns_after_step(struct world *w, const struct scn_step *st, uint32_t idx,
		       const struct sim_step_result *sr, uint32_t ino)
{
	const struct ext4_inode_info *f = ext4_ilookup(&w->fs, EXT4_FILE_INO);

	if (sim_step_on_file(st->s_op) && !scn_step_is_namespace(st))
		ns_content_note(w, st, sr, ino);
	if (sr->err == 0 && st->s_op == SCN_SYNC)
		chk_ns_note_sync(w->ns, idx);
	if (sr->err == 0 && (st->s_op == SCN_FSYNC || st->s_op == SCN_FDATASYNC) &&
	    !st->s_has_path)
		ns_checked(chk_ns_note_fsync(w->ns, idx, ino, st->s_op == SCN_FDATASYNC));
	chk_ns_note_commit(w->ns, w->fs.journal.j_commit_sequence);
	if (!f || f->i_links_count == 0)
		w->chk->c_detached = true;      /* no name holds the scenario's file */
}
