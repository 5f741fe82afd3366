/*
 * outfile.c - files written through a temporary and renamed, the targets
 * that are not regular files written in place, the list of temporaries a
 * signal removes, and the check of stdout at exit (see outfile.h).
 */
#define _XOPEN_SOURCE 700                /* realpath */
#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t outfile_signal;
static char tmp_names[OUTFILE_OPEN_MAX][OUTFILE_PATH_MAX];
static volatile sig_atomic_t tmp_used[OUTFILE_OPEN_MAX];
static bool at_exit_set;

static int fail(char *err, size_t errlen, const char *path, int e)
{
	snprintf(err, errlen, "ext4sim: cannot write %s: %s", path, strerror(e));
	return -1;
}

/*
 * Where @path leads: o->target is the path itself, or the file a symbolic
 * link chain ends at (a link to nothing, or a loop, is @path's error); and
 * whether that file exists and is not a regular file (a device, a FIFO, a
 * socket, a directory), in *@special with its mode in *@mode.  0, or an errno.
 */
static int resolve_target(struct outfile *o, const char *path, bool *special, mode_t *mode)
{
	char real[PATH_MAX];
	struct stat st;

	*special = false;
	snprintf(o->target, sizeof(o->target), "%s", path);
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : errno;
	if (S_ISLNK(st.st_mode)) {
		if (!realpath(path, real))
			return errno;
		if (strlen(real) + 10 >= OUTFILE_PATH_MAX)
			return ENAMETOOLONG;
		snprintf(o->target, sizeof(o->target), "%s", real);
		if (stat(real, &st) != 0)
			return errno;
	}
	*special = !S_ISREG(st.st_mode);
	*mode = st.st_mode;
	return 0;
}

/* A target that is not a regular file: opened and written in place, never replaced. */
static int open_in_place(struct outfile *o, mode_t mode, char *err, size_t errlen)
{
	int fd;

	if (S_ISDIR(mode))
		return fail(err, errlen, o->path, EISDIR);
	if ((fd = open(o->target, O_WRONLY | O_NOCTTY)) < 0)
		return fail(err, errlen, o->path, errno);
	if (!(o->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		return fail(err, errlen, o->path, e);
	}
	o->in_place = true;
	o->slot = -1;
	return 0;
}

int outfile_open(struct outfile *o, const char *path, bool exec, char *err, size_t errlen)
{
	const char *slash;
	int dirlen, fd, slot = -1, e;
	sigset_t block, old;
	bool special;
	mode_t mode = 0;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < OUTFILE_OPEN_MAX && slot < 0; i++)
		slot = tmp_used[i] ? -1 : i;
	if (slot < 0 || strlen(path) + 10 >= OUTFILE_PATH_MAX || !*path || path[strlen(path) - 1] == '/')
		return fail(err, errlen, path, slot < 0 ? EMFILE : ENAMETOOLONG);
	snprintf(o->path, sizeof(o->path), "%s", path);
	if ((e = resolve_target(o, path, &special, &mode)) != 0)
		return fail(err, errlen, path, e);
	if (special)
		return open_in_place(o, mode, err, errlen);
	slash = strrchr(o->target, '/');
	dirlen = slash ? (int)(slash - o->target + 1) : 0;
	if (snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", dirlen, o->target,
		     o->target + dirlen) >= (int)sizeof(o->tmp))
		return fail(err, errlen, path, ENAMETOOLONG);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);   /* no signal between creating and listing it */
	if ((fd = mkstemp(o->tmp)) >= 0) {
		memcpy(tmp_names[slot], o->tmp, sizeof(o->tmp));
		tmp_used[slot] = 1;
	}
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0)
		return fail(err, errlen, path, e);
	o->slot = slot;
	o->exec = exec;
	if (!(o->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		outfile_abort(o);
		return fail(err, errlen, path, e);
	}
	return 0;
}

int outfile_probe(const char *path, char *err, size_t errlen)
{
	struct outfile *o = calloc(1, sizeof(*o));
	bool special;
	mode_t mode = 0;
	int e, rc;

	if (!o)
		return fail(err, errlen, path, ENOMEM);
	if (strlen(path) + 10 >= OUTFILE_PATH_MAX || !*path)
		e = ENAMETOOLONG;
	else
		e = resolve_target(o, path, &special, &mode);
	if (e == 0 && special)
		e = S_ISDIR(mode) ? EISDIR : access(o->target, W_OK) != 0 ? errno : 0;
	if (e != 0 || special) {
		free(o);
		return e ? fail(err, errlen, path, e) : 0;
	}
	if ((rc = outfile_open(o, path, false, err, errlen)) == 0)
		outfile_abort(o);
	free(o);
	return rc;
}

static void release(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->in_place)
		return;
	unlink(o->tmp);
	tmp_used[o->slot] = 0;
}

void outfile_abort(struct outfile *o)
{
	release(o);
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	mode_t mask = umask(0);
	int e = 0;

	umask(mask);
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	if (!e && !o->in_place && fchmod(fileno(o->f), (o->exec ? 0777 : 0666) & ~mask) != 0)
		e = errno;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (!e && o->in_place)
		return 0;
	if (!e && rename(o->tmp, o->target) != 0)
		e = errno;
	if (!e) {
		tmp_used[o->slot] = 0;
		return 0;
	}
	release(o);
	return fail(err, errlen, o->path, e);
}

/* --- directories written whole --- */

/* The one directory being written: its files, by name, for a signal to remove. */
static char dir_tmp[OUTFILE_PATH_MAX];
static volatile sig_atomic_t dir_used;
static int dir_fd = -1;
static char (*dir_names)[OUTFILE_DIR_NAME_MAX];
static volatile sig_atomic_t dir_nr;
static uint32_t dir_cap;

/* Remove the temporary directory's files and itself (async-signal-safe). */
static void dir_remove(void)
{
	if (!dir_used)
		return;
	for (sig_atomic_t i = 0; i < dir_nr; i++)
		unlinkat(dir_fd, dir_names[i], 0);
	rmdir(dir_tmp);
}

/* Block SIGINT and SIGTERM (into @old) while the lists change. */
static void block_signals(sigset_t *old)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, old);
}

/*
 * Where @path leads (d->target): itself, or the directory its links end at;
 * 0 when it does not exist or is an empty directory, else an errno.
 */
static int dir_target(struct outfile_dir *d, const char *path)
{
	char real[PATH_MAX];
	struct stat st;
	DIR *dir;
	struct dirent *e;
	int n = 0;

	snprintf(d->target, sizeof(d->target), "%s", path);
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : errno;
	if (S_ISLNK(st.st_mode)) {
		if (!realpath(path, real))
			return errno;
		if (strlen(real) + 10 >= OUTFILE_PATH_MAX)
			return ENAMETOOLONG;
		snprintf(d->target, sizeof(d->target), "%s", real);
	}
	if (!(dir = opendir(d->target)))
		return errno == ENOTDIR ? EEXIST : errno;
	while ((e = readdir(dir)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(dir);
	return n ? ENOTEMPTY : 0;
}

int outfile_dir_open(struct outfile_dir *d, const char *path, char *err, size_t errlen)
{
	size_t len = strlen(path);
	const char *slash, *base;
	sigset_t old;
	int e, dirlen;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (dir_used || len == 0 || len + 10 >= OUTFILE_PATH_MAX)
		return fail(err, errlen, path, dir_used ? EBUSY : ENAMETOOLONG);
	snprintf(d->path, sizeof(d->path), "%.*s", (int)len, path);
	if ((e = dir_target(d, d->path)) != 0)
		return fail(err, errlen, d->path, e);
	slash = strrchr(d->target, '/');
	base = slash ? slash + 1 : d->target;
	dirlen = (int)(base - d->target);
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return fail(err, errlen, d->path, EINVAL);
	if (snprintf(d->tmp, sizeof(d->tmp), "%.*s.%s.XXXXXX", dirlen, d->target, base) >=
	    (int)sizeof(d->tmp))
		return fail(err, errlen, d->path, ENAMETOOLONG);
	block_signals(&old);
	e = mkdtemp(d->tmp) ? 0 : errno;
	if (!e && (dir_fd = open(d->tmp, O_RDONLY | O_DIRECTORY)) < 0) {
		e = errno;
		rmdir(d->tmp);
	}
	if (!e) {
		memcpy(dir_tmp, d->tmp, sizeof(dir_tmp));
		dir_nr = 0;
		dir_used = 1;
		d->fd = dir_fd;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return e ? fail(err, errlen, d->path, e) : 0;
}

int outfile_dir_create(struct outfile_dir *d, const char *name, char *err, size_t errlen)
{
	sigset_t old;
	int fd, e = 0;

	if (!dir_used || d->fd != dir_fd)
		return fail(err, errlen, d->path, EBADF);
	if (strlen(name) >= OUTFILE_DIR_NAME_MAX || strchr(name, '/') || !*name)
		return fail(err, errlen, name, EINVAL);
	block_signals(&old);
	if ((uint32_t)dir_nr == dir_cap) {
		uint32_t cap = dir_cap ? 2 * dir_cap : 64;
		void *p = realloc(dir_names, cap * sizeof(*dir_names));

		if (p) {
			dir_names = p;
			dir_cap = cap;
		}
	}
	if ((uint32_t)dir_nr == dir_cap)
		e = ENOMEM;
	else if ((fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY, 0666)) < 0)
		e = errno;
	else
		snprintf(dir_names[dir_nr++], OUTFILE_DIR_NAME_MAX, "%s", name);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (e) {
		char what[OUTFILE_PATH_MAX + OUTFILE_DIR_NAME_MAX];

		snprintf(what, sizeof(what), "%s/%s", d->path, name);
		return fail(err, errlen, what, e);
	}
	return fd;
}

void outfile_dir_abort(struct outfile_dir *d)
{
	sigset_t old;

	if (d->fd < 0)
		return;
	block_signals(&old);
	dir_remove();
	close(dir_fd);
	dir_fd = d->fd = -1;
	dir_used = 0;
	dir_nr = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int outfile_dir_commit(struct outfile_dir *d, char *err, size_t errlen)
{
	mode_t mask = umask(0);
	sigset_t old;
	int e = 0;

	umask(mask);
	if (!dir_used || d->fd != dir_fd)
		return fail(err, errlen, d->path, EBADF);
	if (fchmod(dir_fd, 0777 & ~mask) != 0)
		e = errno;
	block_signals(&old);
	if (!e && rename(d->tmp, d->target) != 0)
		e = errno;
	if (!e) {
		close(dir_fd);
		dir_fd = d->fd = -1;
		dir_used = 0;
		dir_nr = 0;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!e)
		return 0;
	outfile_dir_abort(d);
	return fail(err, errlen, d->path, e);
}

static void on_signal(int sig)
{
	for (int i = 0; i < OUTFILE_OPEN_MAX; i++)
		if (tmp_used[i])
			unlink(tmp_names[i]);
	dir_remove();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* At exit (exit 2 on a failed allocation among them): no temporary left behind. */
static void remove_temporaries(void)
{
	for (int i = 0; i < OUTFILE_OPEN_MAX; i++)
		if (tmp_used[i])
			unlink(tmp_names[i]);
	dir_remove();
}

static void note_signal(int sig)
{
	outfile_signal = sig;
}

void outfile_catch_signals(bool defer)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = defer ? note_signal : on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGXFSZ, SIG_IGN);       /* a file size limit: write(2) fails with EFBIG */
	if (!at_exit_set && atexit(remove_temporaries) == 0)
		at_exit_set = true;
}

int outfile_close_stdout(void)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		e = errno ? errno : EIO;
	if (fclose(stdout) != 0 && !e)
		e = errno ? errno : EIO;
	if (!e)
		return 0;
	fprintf(stderr, "ext4sim: cannot write the output: %s\n", strerror(e));
	return 2;
}
