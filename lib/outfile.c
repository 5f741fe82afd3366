/*
 * outfile.c - files written through a temporary and renamed, the list of
 * temporaries a signal removes, and the check of stdout at exit (see
 * outfile.h).
 */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t outfile_signal;
static char tmp_names[OUTFILE_OPEN_MAX][OUTFILE_PATH_MAX];
static volatile sig_atomic_t tmp_used[OUTFILE_OPEN_MAX];

static int fail(char *err, size_t errlen, const char *path, int e)
{
	snprintf(err, errlen, "ext4sim: cannot write %s: %s", path, strerror(e));
	return -1;
}

int outfile_open(struct outfile *o, const char *path, bool exec, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0, fd, slot = -1, e;
	sigset_t block, old;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < OUTFILE_OPEN_MAX && slot < 0; i++)
		slot = tmp_used[i] ? -1 : i;
	if (slot < 0 || strlen(path) + 10 >= OUTFILE_PATH_MAX || !*path || path[strlen(path) - 1] == '/')
		return fail(err, errlen, path, slot < 0 ? EMFILE : ENAMETOOLONG);
	snprintf(o->path, sizeof(o->path), "%s", path);
	snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", dirlen, path, path + dirlen);
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

static void release(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
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
	if (fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	if (!e && fchmod(fileno(o->f), (o->exec ? 0777 : 0666) & ~mask) != 0)
		e = errno;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (!e && rename(o->tmp, o->path) != 0)
		e = errno;
	if (!e) {
		tmp_used[o->slot] = 0;
		return 0;
	}
	release(o);
	return fail(err, errlen, o->path, e);
}

static void on_signal(int sig)
{
	for (int i = 0; i < OUTFILE_OPEN_MAX; i++)
		if (tmp_used[i])
			unlink(tmp_names[i]);
	signal(sig, SIG_DFL);
	raise(sig);
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
