/*
 * outfile.h - files written whole or not at all: each is written under a
 * temporary name made with mkstemp in the same folder and renamed over its
 * path only once every byte is written and closed without error; and what
 * SIGINT and SIGTERM do (remove the temporaries, or let a long command stop
 * cleanly and say so).
 *
 * Only a regular file is ever replaced.  A path that is a symbolic link is
 * followed: the file the link chain ends at is what is written (a regular
 * one replaced through a temporary in its own folder, the link kept); a link
 * to nothing is refused.  A target that exists and is not a regular file (a
 * device, a FIFO) is opened and written in place, as a shell's `>` would:
 * never replaced, never made anew, its mode left alone.
 */
#ifndef EXT4SIM_OUTFILE_H
#define EXT4SIM_OUTFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define OUTFILE_PATH_MAX 4096
#define OUTFILE_OPEN_MAX 16             /* temporaries open at once in a process */

struct outfile {
	FILE *f;                        /* write here */
	char path[OUTFILE_PATH_MAX];
	char tmp[OUTFILE_PATH_MAX];     /* DIR/.NAME.XXXXXX */
	char target[OUTFILE_PATH_MAX];  /* @path, or the file its symbolic links end at */
	bool exec;                      /* mode 0777 & ~umask, else 0666 & ~umask */
	bool in_place;                  /* not a regular file: written in place */
	int slot;                       /* -1 in place */
};

/* Create the temporary for @path; 0, or -1 with "ext4sim: cannot write PATH: why" in @err. */
int outfile_open(struct outfile *o, const char *path, bool exec, char *err, size_t errlen);
/*
 * Whether @path could be written (its folder, or a target written in place:
 * writable), without opening a target written in place (a FIFO would wait
 * for a reader); 0, or -1 with @err as outfile_open gives it.
 */
int outfile_probe(const char *path, char *err, size_t errlen);
/* Close it, checking every write, and rename it over @path; 0, or -1 (removed) with @err. */
int outfile_commit(struct outfile *o, char *err, size_t errlen);
/* Close and remove the temporary. */
void outfile_abort(struct outfile *o);

/*
 * A directory written whole or not at all: its files are made in a temporary
 * directory DIR/../.NAME.XXXXXX (mkdtemp, beside @path) and the directory is
 * renamed to @path once every file is closed; on an error, a signal or an
 * exit before outfile_dir_commit every file made in it and the directory are
 * removed.  @path must not exist, or be an empty directory (the rename
 * replaces it); a symbolic link to one is followed.  One at a time.
 */
struct outfile_dir {
	char path[OUTFILE_PATH_MAX];
	char target[OUTFILE_PATH_MAX];  /* @path, or the directory its links end at */
	char tmp[OUTFILE_PATH_MAX];
	int fd;                         /* the temporary directory, open */
};

#define OUTFILE_DIR_NAME_MAX 64         /* a file name inside the directory */

/* Make the temporary directory; 0, or -1 with "ext4sim: cannot write PATH: why" in @err. */
int outfile_dir_open(struct outfile_dir *d, const char *path, char *err, size_t errlen);
/*
 * Create file @name (a plain name, new) in the temporary directory, opened
 * for writing (a descriptor); -1 with @err as outfile_dir_open gives it.
 */
int outfile_dir_create(struct outfile_dir *d, const char *name, char *err, size_t errlen);
/* Rename the directory over @path (mode 0777 & ~umask); 0, or -1 (all removed) with @err. */
int outfile_dir_commit(struct outfile_dir *d, char *err, size_t errlen);
/* Remove every file made in it and the temporary directory. */
void outfile_dir_abort(struct outfile_dir *d);

/*
 * SIGINT and SIGTERM: with @defer false the temporaries are removed and the
 * process dies of the signal; with @defer true the signal is only noted in
 * outfile_signal, for a command that stops at the next safe point, writes
 * what it has marked incomplete and exits 128 + the signal.  SIGXFSZ (a file
 * size limit, `ulimit -f`) is ignored either way: the write that passes the
 * limit fails with EFBIG and ends as a full disk does (exit 2, the message,
 * the temporary removed).
 */
void outfile_catch_signals(bool defer);
extern volatile sig_atomic_t outfile_signal;

/* Flush and close stdout; 0, or 2 after "ext4sim: cannot write the output: why" on stderr. */
int outfile_close_stdout(void);

#endif
