/*
 * import_fstests.c - ext4sim import --from fstests: the steps of an fstests
 * test written in the shell subset fstests' crash tests use, and the tests
 * export --format fstests writes (docs/real-kernel.md, "Importing an fstests
 * test").
 *
 * Everything up to the first _scratch_mount (or _mount_flakey) is the
 * test's setup and is passed over; so are shell function definitions,
 * requirements, read-back commands (print_ns, check_state, echo, md5sum,
 * ...) and the setup of the exported test ("touch $file $commit_file" and
 * its sync).  After it each command is a step or steps:
 *
 *   mkdir, rmdir, rm [-f], touch   mkdir, rmdir, unlink, open -f + close
 *   ln [-T] OLD NEW, ln -s [-T] T P, mv [-T] OLD NEW   link, symlink, rename
 *   $here/src/renameat2 [-n] [-x] OLD NEW   rename [-n] [-x]
 *   $XFS_IO_PROG [-f] [-t] [-d] [-s] -c CMD... PATH   an xfs_io process:
 *                              open PATH (when it is not the current file,
 *                              or with -f, -t or -s; -d with it), the
 *                              commands as steps, close; only
 *                              fsync/fdatasync: fsync PATH; -f -t -c quit:
 *                              creat PATH; -d -c pread: dio_read; -d without
 *                              an open: each pwrite a direct write
 *   io ARGS, file=PATH         the exported test's process on $file
 *   sync, commit, echo N > /proc/sys/vm/drop_caches   sync, commit, evict
 *   _scratch_shutdown [-f] then _scratch_cycle_mount (or _scratch_unmount
 *   and _scratch_mount), _flakey_drop_and_remount, the dm-flakey table
 *   switch to $FLAKEY_DROP_WRITES then a remount   crash (shutdown -f)
 *   _scratch_cycle_mount alone  remount
 *   $SETFATTR_PROG -n NAME [-v VALUE] PATH, -x NAME PATH   setxattr, removexattr
 *
 * A leading `ns` (the exported test's helper) is passed over; redirections
 * and what follows `|` or `||` are too.  Any other command is refused with
 * FILE:LINE:COL and the reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "oracle.h"

#define FST_BYTES_MAX (16u << 20)
#define FST_WORDS_MAX 1024
#define FST_WORD_MAX 4096

/* Markers an expanded variable leaves in a word. */
#define V_SCRATCH '\001'        /* $SCRATCH_MNT */
#define V_FILE '\002'           /* $file */
#define V_XFS_IO '\003'         /* $XFS_IO_PROG */
#define V_HERE '\004'           /* $here */
#define V_COMMIT '\005'         /* $commit_file */
#define V_OTHER '\006'          /* any other variable */
#define V_DROP '\007'           /* $FLAKEY_DROP_WRITES */
#define V_ALLOW '\010'          /* $FLAKEY_ALLOW_WRITES */
#define V_SETFATTR '\011'       /* $SETFATTR_PROG */

struct fword {
	char w[FST_WORD_MAX];
	unsigned off;           /* its offset in the input */
	bool op;                /* an operator: | || && ; > >> 2> 2>&1 < &> */
};

struct fst {
	const char *path;
	const char *buf;
	size_t len;
	struct scn_step *steps;
	unsigned nr, cap, nr_cmds;
	char cur[SCN_PATH_MAX];         /* the current file: /f at first */
	char file[SCN_PATH_MAX];        /* $file's path */
	bool pending_open;              /* a file= since the last io */
	bool started;                   /* after the first mount */
	bool setup_sync;                /* the exported setup's touch: its sync is setup too */
	bool unmounted;                 /* after an unmount, before the mount */
	int crash;                      /* 0, or the crash step pending: 1 crash, 2 shutdown -f */
	int skip_depth;                 /* inside a function definition or a block: its depth */
	bool in_function;
	char *err;
	size_t errlen;
};

/* The input line and column of offset @off. */
static void position(const struct fst *f, unsigned off, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (unsigned i = 0; i < off && i < f->len; i++) {
		if (f->buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* "FILE:LINE:COL: message" for offset @off into f->err; returns -1. */
__attribute__((format(printf, 3, 4)))
static int fst_err(struct fst *f, unsigned off, const char *fmt, ...)
{
	char msg[SCN_ERR_MAX];
	unsigned line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	position(f, off, &line, &col);
	snprintf(f->err, f->errlen, "%s:%u:%u: %s", f->path, line, col, msg);
	return -1;
}

/* Append the step @fmt builds, at offset @off; a step the parser refuses is the input's error. */
__attribute__((format(printf, 3, 4)))
static int fst_step(struct fst *f, unsigned off, const char *fmt, ...)
{
	char text[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	unsigned line, col, c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (f->nr == SCN_STEPS_MAX)
		return fst_err(f, off, "more than %u steps, the most a scenario holds", SCN_STEPS_MAX);
	if (f->nr == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->steps = realloc(f->steps, f->cap * sizeof(*f->steps));
		SIM_ASSERT(f->steps != NULL);
	}
	if (scn_parse_step(text, &f->steps[f->nr], err, sizeof(err), &c) != 0)
		return fst_err(f, off, "this command gives the step '%s': %s", text, err);
	position(f, off, &line, &col);
	f->steps[f->nr].s_line = line;
	f->steps[f->nr].s_col = col;
	f->nr++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Words                                                              */
/* ------------------------------------------------------------------ */

/* The marker of variable @name (its @n bytes). */
static char var_marker(const char *name, size_t n)
{
	static const struct { const char *v; char m; } vars[] = {
		{ "SCRATCH_MNT", V_SCRATCH }, { "file", V_FILE }, { "XFS_IO_PROG", V_XFS_IO },
		{ "here", V_HERE }, { "commit_file", V_COMMIT }, { "FLAKEY_DROP_WRITES", V_DROP },
		{ "FLAKEY_ALLOW_WRITES", V_ALLOW }, { "SETFATTR_PROG", V_SETFATTR },
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strlen(vars[i].v) == n && strncmp(vars[i].v, name, n) == 0)
			return vars[i].m;
	return V_OTHER;
}

/* A $NAME or ${NAME} at @p into @out: the bytes it takes. */
static size_t expand(const char *p, char *out)
{
	size_t n = 0, skip = 1;

	if (p[1] == '{') {
		const char *end = strchr(p + 2, '}');

		if (!end)
			return 0;
		*out = var_marker(p + 2, (size_t)(end - p - 2));
		return (size_t)(end - p) + 1;
	}
	while (p[skip + n] == '_' || (p[skip + n] >= 'a' && p[skip + n] <= 'z') ||
	       (p[skip + n] >= 'A' && p[skip + n] <= 'Z') || (p[skip + n] >= '0' && p[skip + n] <= '9'))
		n++;
	if (!n)
		return 0;
	*out = var_marker(p + 1, n);
	return n + 1;
}

/* An operator at @p: its length, or 0. */
static size_t op_len(const char *p)
{
	static const char *const ops[] = { "2>&1", "&>>", "2>>", "||", "&&", ">>", "2>", "&>",
					   "|", ";", ">", "<", "&" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strncmp(p, ops[i], strlen(ops[i])) == 0)
			return strlen(ops[i]);
	return 0;
}

/* The rest of one word at @p (quotes removed, variables as markers) into @w; its end. */
static const char *word_at(const char *p, const char *end, struct fword *w, bool *bad)
{
	size_t n = 0;
	char q = 0;

	for (; p < end && (q || !(*p == ' ' || *p == '\t' || *p == '\n' || op_len(p))); p++) {
		size_t k;

		if (n + 2 >= sizeof(w->w))
			break;
		if (!q && (*p == '\'' || *p == '"')) {
			q = *p;
		} else if (q && *p == q) {
			q = 0;
		} else if (q != '\'' && *p == '\\' && p + 1 < end) {
			if (p[1] != '\n')
				w->w[n++] = p[1];
			p++;
		} else if (q != '\'' && *p == '$' && (k = expand(p, &w->w[n])) > 0) {
			n++;
			p += k - 1;
		} else {
			w->w[n++] = *p;
		}
	}
	*bad |= q != 0;
	w->w[n] = '\0';
	return p;
}

/* The words of the command at [@start, @end) into @w; their count, or -1 after a message. */
static int split(struct fst *f, unsigned start, unsigned end, struct fword *w)
{
	const char *p = f->buf + start, *e = f->buf + end;
	int n = 0;
	bool bad = false;

	while (p < e) {
		size_t k;

		if (*p == ' ' || *p == '\t' || *p == '\n' || (*p == '\\' && p + 1 < e && p[1] == '\n')) {
			p += *p == '\\' ? 2 : 1;
			continue;
		}
		if (*p == '#') {        /* a comment, to the end of its line */
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		if (n == FST_WORDS_MAX)
			return fst_err(f, (unsigned)(p - f->buf), "more than %u words in a command",
				       FST_WORDS_MAX);
		w[n].off = (unsigned)(p - f->buf);
		w[n].op = (k = op_len(p)) > 0;
		if (w[n].op) {
			snprintf(w[n].w, sizeof(w[n].w), "%.*s", (int)k, p);
			p += k;
		} else {
			p = word_at(p, e, &w[n], &bad);
		}
		if (bad)
			return fst_err(f, w[n].off, "a quote that does not close");
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Commands                                                           */
/* ------------------------------------------------------------------ */

/* Does the text before @p (from @start) end with an operator that continues the command? */
static bool continues(const char *start, const char *p)
{
	while (p > start && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	return (p - start >= 1 && p[-1] == '|') || (p - start >= 2 && p[-1] == '&' && p[-2] == '&');
}

/*
 * The next command from *@pos: [*@start, *@end) of the input, comments
 * blanked out for split() by ending at them; false at the end.  A command
 * goes on past a newline inside quotes, after a backslash, or after |, ||
 * and &&.
 */
static bool next_command(const struct fst *f, size_t *pos, unsigned *start, unsigned *end)
{
	const char *b = f->buf, *p = b + *pos, *e = b + f->len;
	char q = 0;

	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';'))
		p++;
	if (p >= e)
		return false;
	*start = (unsigned)(p - b);
	for (; p < e; p++) {
		if (q) {
			q = *p == q ? 0 : q;
			if (q == '"' && *p == '\\' && p + 1 < e)
				p++;
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		} else if (*p == '\\' && p + 1 < e) {     /* the last byte escapes nothing */
			p++;
		} else if (*p == '#' && (p == b + *start || p[-1] == ' ' || p[-1] == '\t')) {
			while (p < e && *p != '\n')
				p++;
			if (p > b + *start && !continues(b + *start, p))
				break;
			p--;
		} else if (*p == '\n' && !continues(b + *start, p)) {
			break;
		}
	}
	SIM_ASSERT(p <= e);
	*end = (unsigned)(p - b);
	*pos = (size_t)(p - b) + (p < e);
	return true;
}

/*
 * The words a command runs with: up to its first | || && ; & (a filter, a
 * fallback), redirections and their targets taken out; the target of a >
 * into @redir.  Returns the count.
 */
static int command_words(struct fword *w, int n, char *redir, size_t cap)
{
	int k = 0;

	redir[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (!w[i].op) {
			w[k++] = w[i];
			continue;
		}
		if (strchr(">2&<", w[i].w[0]) && strcmp(w[i].w, "&&") && strcmp(w[i].w, "&")) {
			if (strcmp(w[i].w, "2>&1") && i + 1 < n) {
				if (strcmp(w[i].w, ">") == 0)
					snprintf(redir, cap, "%s", w[i + 1].w);
				i++;
			}
			continue;
		}
		break;
	}
	return k;
}

/* ------------------------------------------------------------------ */
/* Steps                                                              */
/* ------------------------------------------------------------------ */

/* Word @w as a path from the scratch mount's root ($SCRATCH_MNT/P, or $file): false if not one. */
static bool scratch_path(const struct fst *f, const char *w, char out[SCN_PATH_MAX])
{
	if (w[0] == V_FILE && !w[1]) {
		snprintf(out, SCN_PATH_MAX, "%s", f->file);
		return true;
	}
	if (w[0] != V_SCRATCH || (w[1] && w[1] != '/') || strlen(w) > SCN_PATH_MAX ||
	    strpbrk(w + 1, "\001\002\003\004\005\006\007\010\011"))
		return false;
	snprintf(out, SCN_PATH_MAX, "%s", w[1] ? w + 1 : "/");
	return true;
}

/* Operand @i of a command as a scratch path, or the message. */
static int operand(struct fst *f, const struct fword *w, char out[SCN_PATH_MAX])
{
	if (scratch_path(f, w->w, out) && strpbrk(out, "*?["))
		return fst_err(f, w->off, "a pattern (* ? [): import takes each path by name");
	if (scratch_path(f, w->w, out))
		return 0;
	return fst_err(f, w->off, "not a path under $SCRATCH_MNT: import runs the steps on the "
		       "scratch file system only");
}

/*
 * The options and operands of a shell command (words 1..@n): each option
 * letter must be in @allowed (its letters set in *@set); operands into
 * @ops.  Returns their count, or -1 after a message.
 */
static int options(struct fst *f, const struct fword *w, int n, const char *allowed,
		   char *set, const struct fword **ops)
{
	int nops = 0;
	bool dd = false;

	set[0] = '\0';
	for (int i = 1; i < n; i++) {
		if (dd || w[i].w[0] != '-' || !w[i].w[1]) {
			ops[nops++] = &w[i];
			continue;
		}
		if (strcmp(w[i].w, "--") == 0) {
			dd = true;
			continue;
		}
		for (const char *c = w[i].w + 1; *c; c++) {
			if (!strchr(allowed, *c))
				return fst_err(f, w[i].off, "%s -%c: an option import does not take "
					       "(%s%s)", w[0].w, *c, *allowed ? "only -" : "none",
					       allowed);
			if (!strchr(set, *c))
				strncat(set, c, 1);
		}
	}
	return nops;
}

/*
 * mkdir -p: a mkdir of each directory above @path first (one that exists
 * fails with EEXIST in the model and changes nothing, as mkdir -p passes
 * over it).
 */
static int mkdir_parents(struct fst *f, unsigned off, const char *path)
{
	for (const char *c = strchr(path + 1, '/'); c; c = strchr(c + 1, '/'))
		if (fst_step(f, off, "mkdir %.*s", (int)(c - path), path) < 0)
			return -1;
	return 0;
}

/* mkdir, rmdir, rm, touch: one step per operand. */
static int each_path(struct fst *f, const struct fword *w, int n, const char *op,
		     const char *allowed)
{
	const struct fword *ops[FST_WORDS_MAX];
	char set[16], path[SCN_PATH_MAX];
	int nops = options(f, w, n, allowed, set, ops);

	if (nops <= 0)
		return nops < 0 ? -1 : fst_err(f, w[0].off, "%s needs a path", w[0].w);
	for (int i = 0; i < nops; i++) {
		if (operand(f, ops[i], path) < 0)
			return -1;
		if (strchr(set, 'p') && mkdir_parents(f, ops[i]->off, path) < 0)
			return -1;
		if (strcmp(op, "touch") == 0) {
			if (fst_step(f, ops[i]->off, "open -f %s", path) < 0 ||
			    fst_step(f, ops[i]->off, "close") < 0)
				return -1;
			snprintf(f->cur, sizeof(f->cur), "%s", path);
		} else if (fst_step(f, ops[i]->off, "%s %s", op, path) < 0) {
			return -1;
		}
	}
	return 0;
}

/* ln [-T] OLD NEW, ln -s [-T] TARGET PATH, mv [-T] OLD NEW, renameat2 [-n] [-x] OLD NEW. */
static int two_paths(struct fst *f, const struct fword *w, int n, const char *tool)
{
	const struct fword *ops[FST_WORDS_MAX];
	char set[16], a[SCN_PATH_MAX], b[SCN_PATH_MAX];
	int nops = options(f, w, n, strcmp(tool, "ln") == 0 ? "sT" :
			   strcmp(tool, "mv") == 0 ? "Tf" : "nx", set, ops);
	bool sym = strchr(set, 's') != NULL;

	if (nops < 0)
		return -1;
	if (nops != 2)
		return fst_err(f, w[0].off, "%s takes two operands here (%d given)", tool, nops);
	if (operand(f, ops[1], b) < 0 || (!sym && operand(f, ops[0], a) < 0))
		return -1;
	if (sym && strpbrk(ops[0]->w, "\001\002\003\004\005\006\007\010"))
		return fst_err(f, ops[0]->off, "a symbolic link's target with a variable: it would "
			       "name a path of the machine the test ran on; write the target "
			       "relative to the link");
	if (sym)
		return fst_step(f, ops[0]->off, "symlink -- %s %s", ops[0]->w, b);
	if (strcmp(tool, "ln") == 0)
		return fst_step(f, ops[0]->off, "link %s %s", a, b);
	return fst_step(f, ops[0]->off, "rename%s%s %s %s", strchr(set, 'n') ? " -n" : "",
			strchr(set, 'x') ? " -x" : "", a, b);
}

/* An xfs_io command line: its flags, -c commands and file. */
struct xio {
	char flags[16];
	const struct fword *cmd[FST_WORDS_MAX];
	int nr;
	char path[SCN_PATH_MAX];
	const struct fword *file;       /* its file operand (NULL for io: $file) */
};

/* Words 1..@n of xfs_io (or the io helper, whose file is $file) into @x; 0 or -1. */
static int parse_xfs_io(struct fst *f, const struct fword *w, int n, bool helper, struct xio *x)
{
	memset(x, 0, sizeof(*x));
	for (int i = 1; i < n; i++) {
		if (strcmp(w[i].w, "-c") == 0 && i + 1 < n) {
			x->cmd[x->nr++] = &w[++i];
		} else if (w[i].w[0] == '-' && w[i].w[1]) {
			for (const char *c = w[i].w + 1; *c; c++)
				if (!strchr("ftrdisx", *c))
					return fst_err(f, w[i].off, "xfs_io -%c: a flag import does "
						       "not take (-f, -t, -r, -d, -s, -i, -x)", *c);
				else if (!strchr(x->flags, *c))
					strncat(x->flags, c, 1);
		} else if (!helper && !x->file) {
			x->file = &w[i];
		} else {
			return fst_err(f, w[i].off, "xfs_io takes one file here");
		}
	}
	if (helper) {
		snprintf(x->path, sizeof(x->path), "%s", f->file);
		return 0;
	}
	if (!x->file)
		return fst_err(f, w[0].off, "xfs_io without a file");
	return operand(f, x->file, x->path);
}

/* Do all of @x's commands start with @a (or @b)? */
static bool all_cmds(const struct xio *x, const char *a, const char *b)
{
	for (int i = 0; i < x->nr; i++) {
		const char *c = x->cmd[i]->w;

		if (strncmp(c, a, strlen(a)) && (!b || strncmp(c, b, strlen(b))))
			return false;
	}
	return x->nr > 0;
}

/* A one-command line the model has its own step for: fsync PATH, creat, dio_read, shutdown. */
static int xfs_io_special(struct fst *f, const struct xio *x, bool helper, unsigned off)
{
	bool ft = strchr(x->flags, 'f') && strchr(x->flags, 't');

	if (!helper && !strchr(x->flags, 'f') && !strchr(x->flags, 't') &&
	    all_cmds(x, "fsync", "fdatasync")) {
		for (int i = 0; i < x->nr; i++)
			if (fst_step(f, x->cmd[i]->off, "%s %s", x->cmd[i]->w, x->path) < 0)
				return -1;
		return 1;
	}
	if (!helper && ft && x->nr == 1 && strcmp(x->cmd[0]->w, "quit") == 0)
		return fst_step(f, off, "creat %s", x->path) < 0 ? -1 : 1;
	if (strchr(x->flags, 'd') && all_cmds(x, "pread ", NULL) && !strchr(x->flags, 's')) {
		if (strcmp(x->path, f->cur))
			return fst_err(f, off, "xfs_io -d: import takes direct reads (pread) of "
				       "the current file only");
		for (int i = 0; i < x->nr; i++)
			if (fst_step(f, x->cmd[i]->off, "dio_read %s", x->cmd[i]->w + 6) < 0)
				return -1;
		return 1;
	}
	if (!helper && strcmp(x->path, "/") == 0 && x->nr == 1 && all_cmds(x, "shutdown", NULL)) {
		f->crash = strstr(x->cmd[0]->w, "-f") ? 2 : 1;
		return 1;
	}
	return 0;
}

/*
 * One -c command of a process as a step: quit nothing, copy_range without
 * its file; @direct: the process's file is O_DIRECT (xfs_io -d without an
 * open step), so a pwrite is a direct write, and a read or mapping refused.
 */
static int process_cmd(struct fst *f, const struct fword *c, bool direct)
{
	char text[FST_WORD_MAX];
	size_t n;

	if (strcmp(c->w, "quit") == 0 || strcmp(c->w, "close") == 0)
		return 0;
	snprintf(text, sizeof(text), "%s", c->w);
	n = strlen(text);
	if (strncmp(text, "copy_range", 10) == 0 && n > 2 && text[n - 1] == V_FILE)
		text[n - 2] = '\0';     /* its source: the file itself */
	if (strpbrk(text, "\001\002\003\004\005\006\007\010"))
		return fst_err(f, c->off, "a variable in an xfs_io command: import takes its "
			       "commands as written");
	if (fst_step(f, c->off, "%s", text) < 0)
		return -1;
	if (direct && f->steps[f->nr - 1].s_op == SCN_PWRITE)
		f->steps[f->nr - 1].s_direct = true;
	else if (direct && orc_needs_buffered_fd(&f->steps[f->nr - 1]))
		return fst_err(f, c->off, "xfs_io -d: %s through an O_DIRECT file among other "
			       "commands; import takes direct writes there, and the commands "
			       "that neither read nor map the file",
			       scn_op_name(f->steps[f->nr - 1].s_op));
	if (scn_step_is_namespace(&f->steps[f->nr - 1]))
		return fst_err(f, c->off, "xfs_io's %s: a namespace command inside xfs_io; use "
			       "the shell's (mkdir, ln, mv, rm) or xfs_io's file operand",
			       scn_op_name(f->steps[f->nr - 1].s_op));
	return 0;
}

/*
 * An xfs_io process: an open when its file is not the current one (or was
 * named by file=, or with -f or -t), its commands, and the close its exit
 * makes (not after a lone chattr, which runs in a process of its own).
 */
static int xfs_io_process(struct fst *f, const struct fword *w, int n, bool helper)
{
	struct xio x;
	unsigned before = f->nr;
	int rc;

	if (parse_xfs_io(f, w, n, helper, &x) < 0 || (rc = xfs_io_special(f, &x, helper, w[0].off)) < 0)
		return -1;
	if (rc)
		return 0;
	bool opened = (helper && f->pending_open) || strchr(x.flags, 'f') ||
		      strchr(x.flags, 't') || strchr(x.flags, 's') || strcmp(x.path, f->cur);

	if (opened) {   /* -d and -s: the open's, O_DIRECT and O_SYNC */
		if (fst_step(f, w[0].off, "open%s%s%s%s %s", strchr(x.flags, 'f') ? " -f" : "",
			     strchr(x.flags, 't') ? " -t" : "", strchr(x.flags, 'd') ? " -d" : "",
			     strchr(x.flags, 's') ? " -s" : "", x.path) < 0)
			return -1;
		snprintf(f->cur, sizeof(f->cur), "%s", x.path);
	}
	f->pending_open = false;
	for (int i = 0; i < x.nr; i++)
		if (process_cmd(f, x.cmd[i], !opened && strchr(x.flags, 'd')) < 0)
			return -1;
	if (f->nr == before || (f->nr == before + 1 && f->steps[before].s_op == SCN_CHATTR))
		return 0;
	return fst_step(f, w[0].off, "close");
}

/* ------------------------------------------------------------------ */
/* Mounts and crashes                                                 */
/* ------------------------------------------------------------------ */

/* The mount that ends a crash (a pending shutdown or dropped writes), else a remount. */
static int remounted(struct fst *f, unsigned off)
{
	int crash = f->crash;

	f->crash = 0;
	f->unmounted = false;
	if (crash == 2)
		return fst_step(f, off, "shutdown -f");
	return fst_step(f, off, crash ? "crash" : "remount");
}

/* Is the last step a crash (whose recovery leaves the page cache empty)? */
static bool after_crash(const struct fst *f)
{
	return f->nr && (f->steps[f->nr - 1].s_op == SCN_CRASH ||
			 f->steps[f->nr - 1].s_op == SCN_SHUTDOWN);
}

/* fstests' mount and crash helpers; 1 if @w is one (handled), 0 if not, -1. */
static int mount_helper(struct fst *f, const struct fword *w, int n)
{
	const char *c = w[0].w;

	if (strcmp(c, "_scratch_shutdown") == 0) {
		f->crash = n > 1 && strcmp(w[1].w, "-f") == 0 ? 2 : 1;
		return 1;
	}
	if (strcmp(c, "_scratch_cycle_mount") == 0 || strcmp(c, "_flakey_drop_and_remount") == 0) {
		f->crash = c[1] == 'f' ? 1 : f->crash;
		return remounted(f, w[0].off) < 0 ? -1 : 1;
	}
	if (strcmp(c, "_load_flakey_table") == 0) {
		if (n > 1 && w[1].w[0] == V_DROP)
			f->crash = 1;
		return 1;
	}
	if (strcmp(c, "_scratch_unmount") == 0 || strcmp(c, "_unmount_flakey") == 0) {
		f->unmounted = true;
		return 1;
	}
	if (strcmp(c, "_scratch_mount") == 0 || strcmp(c, "_mount_flakey") == 0) {
		if (!f->unmounted)
			return fst_err(f, w[0].off, "%s of a mounted scratch file system", c);
		return remounted(f, w[0].off) < 0 ? -1 : 1;
	}
	return 0;
}

/* Commands that change nothing the scenario holds: requirements, reads, output. */
static bool passed_over(const struct fword *w, int n, const char *redir)
{
	static const char *const prefixes[] = { "_require", "_exclude", "_begin_fstest",
		"_fixed_by", "_notrun", "_check_scratch_fs", "_scratch_mkfs", "_init_flakey",
		"_cleanup", "_filter", "_get_", "_md5_checksum", "_fail", "_supported" };
	static const char *const words[] = { ".", "source", "exit", "_exit", "print_ns",
		"print_state", "check_ns_state", "check_state", "check_fs", "[", "[[", "test",
		"md5sum", "stat", "ls", "cat", "cd", "local", "sed", "grep", "od", "hexdump",
		"_hexdump", "true", ":", "wait", "getfattr", "_getfattr", "readlink" };
	const char *c = w[0].w;

	(void)n;
	if (strcmp(c, "echo") == 0)
		return strcmp(redir, "/proc/sys/vm/drop_caches") != 0;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(c, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(c, words[i]) == 0)
			return true;
	/* an assignment other than file= (status=0, mount_opts=..., commit_file=...) */
	return strchr(c, '=') && strncmp(c, "file=", 5) && c[0] != '=';
}

/* ------------------------------------------------------------------ */
/* The test                                                           */
/* ------------------------------------------------------------------ */

/* Word @w as written, each variable's marker as its name, into @out. */
static const char *shown(const char *w, char *out, size_t cap)
{
	static const char *const names[] = { "", "$SCRATCH_MNT", "$file", "$XFS_IO_PROG", "$here",
					     "$commit_file", "$VAR", "$FLAKEY_DROP_WRITES",
					     "$FLAKEY_ALLOW_WRITES", "$SETFATTR_PROG" };
	size_t n = 0;

	for (; *w && n + 24 < cap; w++) {
		if ((unsigned char)*w < sizeof(names) / sizeof(names[0]) && *w)
			n += (size_t)snprintf(out + n, cap - n, "%s", names[(unsigned char)*w]);
		else
			out[n++] = *w;
	}
	out[n] = '\0';
	return out;
}

/* rm of test-local files ($tmp.*, not under the scratch mount) is the test's own. */
static bool local_rm(const struct fword *w, int n)
{
	for (int i = 1; i < n; i++)
		if (w[i].w[0] == V_SCRATCH || w[i].w[0] == V_FILE)
			return false;
	return true;
}

/* setfattr's -v VALUE as bytes: 0xHEX decoded, "..." unquoted, else as written; 0 or -1. */
static int xattr_value(struct fst *f, const struct fword *w, char *out, size_t cap)
{
	const char *v = w->w;
	size_t n = strlen(v);

	if (strncmp(v, "0x", 2) == 0 || strncmp(v, "0X", 2) == 0) {
		size_t k = 0;

		for (v += 2; v[0] && v[1] && k + 1 < cap; v += 2)
			if (sscanf(v, "%2hhx", (unsigned char *)&out[k++]) != 1)
				return fst_err(f, w->off, "setfattr -v 0x: not hex");
		out[k] = '\0';
		return *v ? fst_err(f, w->off, "setfattr -v 0x: an odd number of digits") : 0;
	}
	if (strncmp(v, "0s", 2) == 0 || strncmp(v, "0S", 2) == 0)
		return fst_err(f, w->off, "setfattr -v 0s (base64): import takes 0x or text");
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v++;
		n -= 2;
	}
	if (n >= cap)
		return fst_err(f, w->off, "setfattr -v: a value longer than %u bytes",
			       SCN_XATTR_VALUE_MAX);
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

/* setfattr -n NAME [-v VALUE] PATH, setfattr -x NAME PATH: setxattr, removexattr. */
static int setfattr(struct fst *f, const struct fword *w, int n)
{
	const char *name = NULL, *path_w = NULL;
	char value[2 * SCN_XATTR_VALUE_MAX + 2] = "", path[SCN_PATH_MAX];
	bool remove = false;

	for (int i = 1; i < n; i++) {
		if ((!strcmp(w[i].w, "-n") || !strcmp(w[i].w, "-x")) && i + 1 < n) {
			remove = w[i].w[1] == 'x';
			name = w[++i].w;
		} else if (!strcmp(w[i].w, "-v") && i + 1 < n) {
			if (xattr_value(f, &w[++i], value, sizeof(value)) < 0)
				return -1;
		} else if (w[i].w[0] == '-') {
			return fst_err(f, w[i].off, "setfattr %s: an option import does not take "
				       "(-n, -v, -x)", w[i].w);
		} else if (!path_w) {
			if (operand(f, &w[i], path) < 0)
				return -1;
			path_w = w[i].w;
		} else {
			return fst_err(f, w[i].off, "setfattr takes one file here");
		}
	}
	if (!name || !path_w)
		return fst_err(f, w[0].off, "setfattr needs -n NAME (or -x NAME) and a file");
	if (remove)
		return fst_step(f, w[0].off, "removexattr %s %s", path, name);
	return fst_step(f, w[0].off, "setxattr -- %s %s%s%s", path, name, value[0] ? " " : "",
			value);
}

/* The shell's namespace commands, the exported test's and the data helpers: 0, or -1. */
static int shell_step(struct fst *f, const struct fword *w, int n)
{
	const char *c = w[0].w;
	char name[FST_WORD_MAX + 64];

	if (strcmp(c, "mkdir") == 0)
		return each_path(f, w, n, c, "p");
	if (strcmp(c, "rmdir") == 0)
		return each_path(f, w, n, c, "");
	if (strcmp(c, "unlink") == 0)
		return each_path(f, w, n, c, "");
	if (strcmp(c, "rm") == 0)
		return local_rm(w, n) ? 0 : each_path(f, w, n, "unlink", "f");
	if (strcmp(c, "touch") == 0)
		return each_path(f, w, n, "touch", "");
	if (strcmp(c, "ln") == 0 || strcmp(c, "mv") == 0)
		return two_paths(f, w, n, c);
	if (c[0] == V_HERE && strcmp(c + 1, "/src/renameat2") == 0)
		return two_paths(f, w, n, "renameat2");
	if (c[0] == V_XFS_IO && !c[1])
		return xfs_io_process(f, w, n, false);
	if (strcmp(c, "io") == 0)
		return xfs_io_process(f, w, n, true);
	if (strcmp(c, "sync") == 0 || strcmp(c, "commit") == 0)
		return fst_step(f, w[0].off, "%s", c);
	if (strcmp(c, "_scratch_sync") == 0 ||       /* syncfs of the scratch mount */
	    (strcmp(c, "_sync_fs") == 0 && n == 2 && strcmp(w[1].w, "\001") == 0))
		return fst_step(f, w[0].off, "sync");
	if (strcmp(c, "echo") == 0)     /* > /proc/sys/vm/drop_caches (passed_over) */
		return after_crash(f) ? 0 : fst_step(f, w[0].off, "evict");
	if (strncmp(c, "file=", 5) == 0) {
		char path[SCN_PATH_MAX];

		if (!scratch_path(f, c + 5, path))
			return fst_err(f, w[0].off, "file= names a path under $SCRATCH_MNT here");
		snprintf(f->file, sizeof(f->file), "%s", path);
		f->pending_open = true;
		return 0;
	}
	if ((c[0] == V_SETFATTR && !c[1]) || strcmp(c, "setfattr") == 0)
		return setfattr(f, w, n);
	if (c[0] == V_OTHER)
		return fst_err(f, w[0].off, "a command run from a variable other than $XFS_IO_PROG "
			       "and $SETFATTR_PROG: not in the subset import takes");
	return fst_err(f, w[0].off, "'%s': not in the fstests subset import takes (mkdir, "
		       "rmdir, rm, touch, ln, mv, src/renameat2, $XFS_IO_PROG, setfattr, sync, "
		       "_scratch_shutdown, _scratch_cycle_mount, _flakey_drop_and_remount, "
		       "drop_caches)", shown(c, name, sizeof(name)));
}

/* Function definitions and blocks (for, while, if, case) are skipped whole: their depth. */
static bool skipped_block(struct fst *f, const struct fword *w, int n)
{
	static const char *const open[] = { "for", "while", "until", "if", "case" };
	static const char *const close[] = { "done", "fi", "esac" };
	size_t l = strlen(w[0].w);
	bool def = (l > 2 && strcmp(w[0].w + l - 2, "()") == 0) || (n > 1 && strcmp(w[1].w, "()") == 0);

	if (f->in_function) {
		f->in_function = strcmp(w[0].w, "}") != 0;
		return true;
	}
	if (def) {
		f->in_function = strcmp(w[n - 1].w, "}") != 0;
		return true;
	}
	for (size_t i = 0; i < sizeof(open) / sizeof(open[0]); i++)
		f->skip_depth += strcmp(w[0].w, open[i]) == 0;
	for (size_t i = 0; i < sizeof(close) / sizeof(close[0]); i++)
		if (strcmp(w[0].w, close[i]) == 0 && f->skip_depth) {
			f->skip_depth--;
			return true;
		}
	return f->skip_depth > 0;
}

/* One command: passed over, the mount that starts the steps, or steps. */
static int one_command(struct fst *f, struct fword *w, int n)
{
	char redir[FST_WORD_MAX];
	bool setup_sync = f->setup_sync;
	int rc;

	n = command_words(w, n, redir, sizeof(redir));
	if (n == 0 || skipped_block(f, w, n))
		return 0;
	if (f->started && (redir[0] == V_SCRATCH || redir[0] == V_FILE))
		return fst_err(f, w[0].off, "a write by the shell (%s > FILE): the model's writes "
			       "are runs of one byte; write with $XFS_IO_PROG -c \"pwrite -S B OFF "
			       "LEN\"", w[0].w);
	if (strcmp(w[0].w, "ns") == 0) {        /* the exported test's namespace helper */
		w++;
		if (--n == 0)
			return fst_err(f, w[-1].off, "ns without a command");
	}
	f->setup_sync = false;
	if (!f->started) {
		f->started = strcmp(w[0].w, "_scratch_mount") == 0 || strcmp(w[0].w, "_mount_flakey") == 0;
		return 0;
	}
	if ((rc = mount_helper(f, w, n)) != 0)
		return rc < 0 ? -1 : 0;
	if (f->crash && !f->unmounted)
		return fst_err(f, w[0].off, "a step after _scratch_shutdown before the remount");
	if (strcmp(w[0].w, "touch") == 0 && n == 3 && w[1].w[0] == V_FILE && w[2].w[0] == V_COMMIT) {
		f->setup_sync = true;   /* the exported test's setup: the model starts so */
		f->pending_open = false;        /* its file=$SCRATCH_MNT/f is the model's /f */
		return 0;
	}
	if (strcmp(w[0].w, "sync") == 0 && setup_sync)
		return 0;
	if (passed_over(w, n, redir))
		return 0;
	return shell_step(f, w, n);
}

int orc_import_fstests(const char *path, const char *buf, size_t len, struct scn_step **steps,
		       unsigned *nr, char *err, size_t errlen)
{
	struct fst *f = sim_zalloc(sizeof(*f));
	struct fword *w = sim_zalloc(FST_WORDS_MAX * sizeof(*w));
	size_t pos = 0;
	unsigned start, end;
	int rc = 0;

	*f = (struct fst){ .path = path, .buf = buf, .len = len, .err = err, .errlen = errlen };
	snprintf(f->cur, sizeof(f->cur), "/f");
	snprintf(f->file, sizeof(f->file), "/f");
	while (rc == 0 && next_command(f, &pos, &start, &end)) {
		int n = split(f, start, end, w);

		rc = n < 0 ? -1 : one_command(f, w, n);
		f->nr_cmds++;
	}
	if (rc == 0 && !f->started)
		rc = fst_err(f, (unsigned)len, "no _scratch_mount (or _mount_flakey): the steps "
			     "of a test start after the scratch file system is mounted");
	else if (rc == 0 && f->crash)
		rc = fst_err(f, (unsigned)len, "a shutdown without the remount after it");
	*steps = f->steps;
	*nr = f->nr;
	free(w);
	free(f);
	return rc;
}
