/*
 * import.c - ext4sim import: a scenario from an fsx operation log or from a
 * list of xfs_io commands (docs/real-kernel.md).
 *
 *   ext4sim import [--from fsx|xfs_io|ace|fstests] [--name NAME] [--block-size N]
 *                  [--data MODE] [--delalloc|--nodelalloc] [--kernel K] [--dio] FILE
 *
 * An fsx log (.fsxops, written by `fsx --record-ops`) has one operation a
 * line: `[skip ]OP ARG... [keep_size] [close_open] [unshare] [*]`, the
 * arguments in hex or decimal (offset, length, file size before the
 * operation; four for the two-range operations).  Each maps to steps:
 *
 *   write, write_dontcache  pwrite (dontcache: then sync_range -w of the range)
 *   mapwrite                truncate up first when it extends the file (as fsx
 *                           does), mwrite, then fdatasync (fsx's msync(MS_SYNC))
 *   read, read_dontcache, mapread   pread
 *   truncate                truncate
 *   fallocate [keep_size]   falloc [-k]
 *   punch_hole, zero_range [keep_size], collapse_range, insert_range
 *                           fpunch, fzero [-k], fcollapse, finsert
 *   fsync                   fsync
 *   close_open (flag)       close, evict (fsx closes, drops caches, reopens)
 *   skip ...                nothing (fsx did not run it); its close_open
 *                           flag still is a close and an evict (fsx's test()
 *                           closes and reopens after a skipped operation too)
 *
 * With --dio (a log of fsx -Z, whose file is opened O_DIRECT) a write is
 * pwrite -d and a read dio_read; copy_range and the dontcache operations
 * are refused then.
 *
 * fsx writes a pattern; the model writes one byte, so each write or store
 * gets its own fill byte (never 0xee, the device's sentinel).  Refused, at
 * the token, as FILE:LINE:COL: write_atomic (RWF_ATOMIC), clone_range,
 * dedupe_range, copy_range, exchange_range (a second range's bytes), the
 * unshare flag, unknown operations and flags, and bad numbers.
 *
 * An xfs_io list has one command a line in the syntax `xfs_io -c` takes
 * (the step syntax; '#' comments and blank lines skipped), or whole
 * `xfs_io [FLAGS] -c CMD ... FILE` command lines as fstests tests write
 * them, a backslash before the newline continuing one on the next line.
 * Each such command line is an xfs_io process, which closes the file when
 * it exits: a close step follows its commands.  A truncated fsx line (too
 * few numbers, or the log's last line without a newline) is named so.
 *
 * The YAML goes to stdout only when the whole input converted; exit 2 and one
 * message on stderr otherwise.  Limits: IMPORT_LINE_MAX bytes a line,
 * IMPORT_BYTES_MAX bytes in all (the input may be a pipe), and what a
 * scenario holds (SCN_STEPS_MAX steps, SCN_FILE_BYTES_MAX bytes of YAML).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "import_ace.h"
#include "oracle.h"
#include "suggest.h"

#define IMPORT_TOK_MAX 16
#define IMPORT_LINE_MAX 4096            /* bytes in one input line, the newline aside */
#define IMPORT_BYTES_MAX (16u << 20)    /* bytes of input read in all */
#define IMPORT_JOIN_MAX 64              /* input lines one continued command line spans */

enum ifrom { IF_AUTO, IF_FSX, IF_XFS_IO, IF_ACE, IF_FSTESTS };

/*
 * A command line continued over several input lines (a backslash before the
 * newline, as the shell takes it): where each input line starts in the
 * joined text, so a message names the input line and column.
 */
struct imp_join {
	unsigned nr;                    /* input lines joined; 0: none */
	unsigned first;                 /* the first one's number */
	unsigned off[IMPORT_JOIN_MAX];  /* 0-based offset of each in the joined text */
};

struct imp {
	const char *path;
	enum ifrom from;
	char name[SCN_NAME_MAX];
	bool has_config;
	struct orc_config cfg;
	struct scn_step *steps;
	unsigned nr, cap;
	unsigned nr_ops, nr_skipped, nr_fills, nr_polluted;
	bool pollute_eof;               /* --pollute-eof: fsx -e 1 */
	bool fsx_direct;                /* --dio: fsx -Z, its file opened O_DIRECT */
	int64_t size;                   /* the file's size after the lines so far */
	unsigned nr_lines;
	unsigned nr_closes;             /* xfs_io: the closes that end its processes */
	struct imp_join join;           /* xfs_io: the lines of a continued command line */
	bool cut;                       /* the line being read is the input's last, cut short */
	char err[SCN_ERR_MAX + 512];
};

struct tok {
	char *t;
	unsigned col;                   /* 1-based */
};

/* A position in a continued command line's joined text as the input line and column. */
static void join_position(const struct imp_join *j, unsigned *line, unsigned *col)
{
	unsigned k = 0;

	if (j->nr < 2 || *line != j->first)
		return;
	while (k + 1 < j->nr && j->off[k + 1] < *col)
		k++;
	*line = j->first + k;
	*col -= j->off[k];
}

__attribute__((format(printf, 4, 5)))
static int imp_err(struct imp *m, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[SCN_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	join_position(&m->join, &line, &col);
	snprintf(m->err, sizeof(m->err), "%s:%u:%u: %s", m->path, line, col, msg);
	scn_clean_message(m->err);
	return -1;
}

static int add_step(struct imp *m, unsigned line, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Append a step built from @fmt; a step the parser refuses is the input's error. */
static int add_step(struct imp *m, unsigned line, unsigned col, const char *fmt, ...)
{
	char text[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	unsigned c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (m->nr == SCN_STEPS_MAX)
		return imp_err(m, line, col, "more than %u steps, the most a scenario holds",
			       SCN_STEPS_MAX);
	if (m->nr == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->steps = realloc(m->steps, m->cap * sizeof(*m->steps));
		SIM_ASSERT(m->steps != NULL);
	}
	if (scn_parse_step(text, &m->steps[m->nr], err, sizeof(err), &c) != 0)
		return imp_err(m, line, col, "%s gives '%s': %s", "this operation", text, err);
	m->steps[m->nr].s_line = line;
	m->steps[m->nr].s_col = col;
	m->nr++;
	return 0;
}

/* Split @s at blanks, recording 1-based columns. */
static unsigned tokenize(char *s, struct tok *t, unsigned max)
{
	unsigned n = 0;
	char *p = s;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		t[n].t = p;
		t[n].col = (unsigned)(p - s) + 1;
		n++;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* fsx                                                                */
/* ------------------------------------------------------------------ */

enum fsx_kind {
	FK_WRITE, FK_WRITE_DONTCACHE, FK_MAPWRITE, FK_READ, FK_TRUNCATE, FK_FALLOCATE,
	FK_PUNCH, FK_ZERO, FK_COLLAPSE, FK_INSERT, FK_FSYNC, FK_COPY, FK_REFUSED,
};

static const struct fsx_op {
	const char *name;
	enum fsx_kind kind;
	unsigned nargs;
	const char *why;                /* FK_REFUSED: the reason */
} fsx_ops[] = {
	{ "read", FK_READ, 3, NULL },
	{ "read_dontcache", FK_READ, 3, NULL },
	{ "write", FK_WRITE, 3, NULL },
	{ "write_dontcache", FK_WRITE_DONTCACHE, 3, NULL },
	{ "write_atomic", FK_REFUSED, 3, "an atomic write (RWF_ATOMIC) needs the device's "
	  "atomic write unit, which the model's device has not" },
	{ "mapread", FK_READ, 3, NULL },
	{ "mapwrite", FK_MAPWRITE, 3, NULL },
	{ "truncate", FK_TRUNCATE, 3, NULL },
	{ "fallocate", FK_FALLOCATE, 3, NULL },
	{ "punch_hole", FK_PUNCH, 3, NULL },
	{ "zero_range", FK_ZERO, 3, NULL },
	{ "collapse_range", FK_COLLAPSE, 3, NULL },
	{ "insert_range", FK_INSERT, 3, NULL },
	{ "clone_range", FK_REFUSED, 4, "clone_range copies a second range's bytes, and "
	  "ext4 cannot clone; the model writes one byte per step" },
	{ "dedupe_range", FK_REFUSED, 4, "dedupe_range compares two ranges' bytes, and ext4 "
	  "cannot share blocks; the model writes one byte per step" },
	{ "copy_range", FK_COPY, 4, NULL },
	{ "exchange_range", FK_REFUSED, 4, "exchange_range swaps two ranges' bytes; the "
	  "model writes one byte per step" },
	{ "fsync", FK_FSYNC, 3, NULL },
};

static const struct fsx_op *fsx_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(fsx_ops) / sizeof(fsx_ops[0]); i++)
		if (strcmp(fsx_ops[i].name, name) == 0)
			return &fsx_ops[i];
	return NULL;
}

/* fsx's strtoul(str, &end, 0), limited to the model's offsets. */
static int fsx_num(const char *s, int64_t *out)
{
	char *end;
	unsigned long long v;

	if (!(s[0] >= '0' && s[0] <= '9'))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > (unsigned long long)SCN_OFFSET_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* A fill byte per write: 0x01.. 0xfe, never 0xee. */
static unsigned next_fill(struct imp *m)
{
	unsigned b = 1 + m->nr_fills++ % 0xfd;

	return b >= 0xee ? b + 1 : b;
}

/* One fsx log line, parsed. */
struct fsx_rec {
	const struct fsx_op *op;
	unsigned at;                    /* the operation's token (after "skip") */
	bool skip, keep, closeopen;
	unsigned nargs;                 /* numbers on the line */
	int64_t a[4];                   /* offset, length, [destination,] file size */
};

/* An unknown operation, with the closest name fsx logs. */
static int fsx_unknown(struct imp *m, unsigned line, const struct tok *t)
{
	const char *names[sizeof(fsx_ops) / sizeof(fsx_ops[0])];
	char hint[160];

	for (size_t i = 0; i < sizeof(fsx_ops) / sizeof(fsx_ops[0]); i++)
		names[i] = fsx_ops[i].name;
	return imp_err(m, line, t->col, "unknown fsx operation '%s'%s", t->t,
		       suggest_hint(hint, sizeof(hint), t->t, names,
				    sizeof(names) / sizeof(names[0])));
}

/*
 * A line that ends before its operation's numbers do: fsx writes every
 * number, so the line was cut (a log copied while fsx wrote it, or cut
 * short); the message says so, at the end of the line.
 */
static int fsx_short_line(struct imp *m, unsigned line, const struct tok *t, unsigned n,
			  const struct fsx_rec *r)
{
	const struct tok *last = &t[n - 1];

	return imp_err(m, line, last->col + (unsigned)strlen(last->t),
		       "a truncated fsx line: '%s' has %u of its %u numbers (%s)%s", r->op->name,
		       n - r->at - 1, r->op->nargs, r->op->nargs == 4 ?
		       "offset, length, destination, file size" : "offset, length, file size",
		       m->cut ? "; the log ends inside it, without a newline" : "");
}

/*
 * The operation of line @t[0..n) and its numbers: "skip" first marks an
 * operation fsx did not run; an unknown operation, too few numbers or a
 * number fsx does not write is refused at its token.
 */
static int fsx_parse_op(struct imp *m, unsigned line, struct tok *t, unsigned n,
			struct fsx_rec *r)
{
	unsigned i = 0;

	if (strcmp(t[0].t, "skip") == 0) {
		r->skip = true;
		i = 1;
		if (n < 2)
			return imp_err(m, line, t[0].col + 4, "'skip' needs an operation");
	}
	r->at = i;
	r->op = fsx_find(t[i].t);
	if (!r->op)
		return fsx_unknown(m, line, &t[i]);
	r->nargs = r->op->nargs;
	if (r->skip && r->nargs == 4 && (n < i + 5 || fsx_num(t[i + 4].t, &r->a[3]) < 0))
		r->nargs = 3;   /* a skipped two-range operation may be logged with three */
	if (n < i + 1 + r->nargs)
		return fsx_short_line(m, line, t, n, r);
	for (unsigned k = 0; k < r->nargs; k++)
		if (fsx_num(t[i + 1 + k].t, &r->a[k]) < 0)
			return imp_err(m, line, t[i + 1 + k].col, "'%s' is not a number fsx writes "
				       "(hex or decimal, at most 16 TiB)", t[i + 1 + k].t);
	return 0;
}

/*
 * The flags after the numbers: keep_size, close_open, fsx's overlap marker
 * '*', and unshare (only on a skipped operation: the model has no unshare).
 */
static int fsx_parse_flags(struct imp *m, unsigned line, struct tok *t, unsigned n,
			   struct fsx_rec *r)
{
	for (unsigned k = r->at + 1 + r->nargs; k < n; k++) {
		if (strcmp(t[k].t, "keep_size") == 0)
			r->keep = true;
		else if (strcmp(t[k].t, "close_open") == 0)
			r->closeopen = true;
		else if (strcmp(t[k].t, "*") == 0)
			;       /* fsx's overlap marker */
		else if (strcmp(t[k].t, "unshare") == 0) {
			if (!r->skip)
				return imp_err(m, line, t[k].col, "fallocate unshare "
					       "(FALLOC_FL_UNSHARE_RANGE) is not modelled");
		} else
			return imp_err(m, line, t[k].col, "unknown fsx flag '%s'", t[k].t);
	}
	return 0;
}

/*
 * The steps of a write or an mmap store: a pwrite (dontcache: then the
 * range's writeback started), or a truncate up when the store extends the
 * file (as fsx does), the mwrite and fsx's msync as fdatasync.
 */
/*
 * Under --dio (fsx -Z: fsx opens its file O_DIRECT, and again at each
 * close_open), what an operation cannot be: a dontcache read or write (-Z
 * turns them off) or a copy (the kernel's splice would write it direct, the
 * model's copy_range is buffered).  0, or -1 with the message.
 */
static int fsx_direct_refused(struct imp *m, unsigned line, unsigned col, const struct fsx_rec *r)
{
	if (!m->fsx_direct)
		return 0;
	if (r->op->kind == FK_COPY)
		return imp_err(m, line, col, "copy_range through an O_DIRECT file (--dio): the "
			       "kernel's splice writes it direct, the model's copy_range is a "
			       "buffered write; run fsx with -E");
	if (strstr(r->op->name, "dontcache"))
		return imp_err(m, line, col, "%s in a log of fsx -Z (--dio): -Z turns dontcache "
			       "I/O off, so this log is not one", r->op->name);
	return 0;
}

static int fsx_write_steps(struct imp *m, unsigned line, unsigned col, const struct fsx_rec *r)
{
	long long off = (long long)r->a[0], len = (long long)r->a[1];

	if (r->op->kind != FK_MAPWRITE) {
		if (add_step(m, line, col, "pwrite%s -S 0x%02x %lld %lld",
			     m->fsx_direct ? " -d" : "", next_fill(m), off, len) < 0)
			return -1;
		if (r->op->kind == FK_WRITE_DONTCACHE && len > 0 &&
		    add_step(m, line, col, "sync_range -w %lld %lld", off, len) < 0)
			return -1;
		return 0;
	}
	if (len == 0)
		return 0;
	if (r->a[0] + r->a[1] > r->a[2] && add_step(m, line, col, "truncate %lld", off + len) < 0)
		return -1;
	if (add_step(m, line, col, "mwrite -S 0x%02x %lld %lld", next_fill(m), off, len) < 0 ||
	    add_step(m, line, col, "fdatasync") < 0)
		return -1;
	return 0;
}

/* The steps of an operation fsx ran (its table in the comment at the top). */
static int fsx_steps(struct imp *m, unsigned line, unsigned col, const struct fsx_rec *r)
{
	enum fsx_kind kind = r->op->kind;
	long long off = (long long)r->a[0], len = (long long)r->a[1];

	if (fsx_direct_refused(m, line, col, r) < 0)
		return -1;
	switch (kind) {
	case FK_WRITE:
	case FK_WRITE_DONTCACHE:
	case FK_MAPWRITE:
		return fsx_write_steps(m, line, col, r);
	case FK_READ:   /* fsx -Z: a read(2) of the O_DIRECT file is a direct read */
		return add_step(m, line, col, "%s %lld %lld", m->fsx_direct &&
				strcmp(r->op->name, "read") == 0 ? "dio_read" : "pread", off, len);
	case FK_TRUNCATE:
		return add_step(m, line, col, "truncate %lld", len);
	case FK_FALLOCATE:
	case FK_ZERO:
		return add_step(m, line, col, "%s%s %lld %lld", kind == FK_ZERO ? "fzero" : "falloc",
				r->keep ? " -k" : "", off, len);
	case FK_PUNCH:
	case FK_COLLAPSE:
	case FK_INSERT:
		return add_step(m, line, col, "%s %lld %lld", kind == FK_PUNCH ? "fpunch" :
				kind == FK_COLLAPSE ? "fcollapse" : "finsert", off, len);
	case FK_FSYNC:
		return add_step(m, line, col, "fsync");
	case FK_COPY:
		return len == 0 ? 0 : add_step(m, line, col, "copy_range -s %lld -d %lld -l %lld",
						off, (long long)r->a[2], len);
	case FK_REFUSED:
		break;
	}
	return 0;
}

/* The file's size after operation @r (fsx ran it) from @size. */
static int64_t fsx_size_after(const struct fsx_rec *r, int64_t size)
{
	int64_t off = r->a[0], len = r->a[1];

	switch (r->op->kind) {
	case FK_WRITE: case FK_WRITE_DONTCACHE: case FK_MAPWRITE:
		return len ? SIM_MAX(size, off + len) : size;
	case FK_TRUNCATE:
		return len;
	case FK_FALLOCATE: case FK_ZERO:
		return r->keep ? size : SIM_MAX(size, off + len);
	case FK_COLLAPSE:
		return size - len;
	case FK_INSERT:
		return size + len;
	case FK_COPY:
		return len ? SIM_MAX(size, r->a[2] + len) : size;
	default:
		return size;
	}
}

/* The line's file-size field (its last number: the size before the operation). */
static int fsx_check_size(struct imp *m, unsigned line, const struct tok *t,
			  const struct fsx_rec *r)
{
	int64_t logged = r->a[r->nargs - 1];

	if (logged == m->size)
		return 0;
	return imp_err(m, line, t[r->at + r->nargs].col, "fsx logged a file size of %lld (0x%llx) "
		       "before this operation, the scenario has %lld: a log of another format or "
		       "of a run that went another way", (long long)logged,
		       (unsigned long long)logged, (long long)m->size);
}

/*
 * Where fsx -e 1 (--pollute-eof) pollutes before operation @r, as ltp/fsx.c
 * does: update_file_size() before an operation that starts past EOF and
 * ends beyond it (a write, mapwrite, copy, extending fallocate or zero
 * range, truncate up), from EOF up to the operation's end; and before a
 * truncate down, a collapse and an insert, from EOF to the page's end.
 * Returns the end of the range to pollute (0: none); fsx_pollute() cuts
 * it to the page holding EOF.
 */
static int64_t fsx_pollute_end(const struct fsx_rec *r, int64_t size)
{
	int64_t off = r->a[0], len = r->a[1];

	switch (r->op->kind) {
	case FK_WRITE: case FK_WRITE_DONTCACHE: case FK_MAPWRITE:
		return len && off > size ? off + len : 0;
	case FK_FALLOCATE: case FK_ZERO:
		return !r->keep && off > size ? off + len : 0;
	case FK_COPY:
		return len && r->a[2] > size ? r->a[2] + len : 0;
	case FK_TRUNCATE:
		return len > size ? len : len < size ? INT64_MAX : 0;
	case FK_COLLAPSE: case FK_INSERT:
		return INT64_MAX;
	default:
		return 0;
	}
}

/*
 * fsx -e 1: bytes stored through a mapping past EOF inside the page holding
 * EOF (not file content, only the page cache's), which the operation must
 * not expose; an mwrite past EOF does that.
 */
static int fsx_pollute(struct imp *m, unsigned line, unsigned col, const struct fsx_rec *r)
{
	int64_t old = m->size, end = fsx_pollute_end(r, old), room;

	if (!m->pollute_eof || end <= old || (old & 4095) == 0)
		return 0;
	room = SIM_MIN(4096 - (old & 4095), end - old);
	m->nr_polluted++;
	return add_step(m, line, col, "mwrite -S 0x%02x %lld %lld", next_fill(m), (long long)old,
			(long long)room);
}

/*
 * close_open: fsx's docloseopen() after the operation, a close, the page
 * cache dropped and an open; test() runs it after a skipped operation too
 * (its "out:" label), so a skip line's flag counts as well.
 */
static int fsx_closeopen(struct imp *m, unsigned line, unsigned col)
{
	if (add_step(m, line, col, "close") < 0 || add_step(m, line, col, "evict") < 0)
		return -1;
	return 0;
}

/*
 * One line of an fsx log (tokens @t[0..n), n > 0): parsed, checked, and
 * turned into steps (none for a skipped operation); close_open adds a
 * close and an evict, on a skip line too.  Returns 0, or -1 with the message in m->err.
 */
static int fsx_line(struct imp *m, unsigned line, struct tok *t, unsigned n)
{
	struct fsx_rec r = { 0 };
	unsigned col;

	if (fsx_parse_op(m, line, t, n, &r) < 0 || fsx_parse_flags(m, line, t, n, &r) < 0 ||
	    fsx_check_size(m, line, t, &r) < 0)
		return -1;
	if (r.a[0] + r.a[1] > SCN_OFFSET_MAX)
		return imp_err(m, line, t[r.at + 2].col, "offset + length is beyond 16 TiB");
	if (r.skip) {
		m->nr_skipped++;        /* fsx chose it and could not run it: nothing happened */
		return r.closeopen ? fsx_closeopen(m, line, t[r.at].col) : 0;
	}
	if (r.op->kind == FK_REFUSED)
		return imp_err(m, line, t[r.at].col, "fsx '%s' has no counterpart in the model: %s",
			       r.op->name, r.op->why);
	m->nr_ops++;
	col = t[r.at].col;
	if (fsx_pollute(m, line, col, &r) < 0 || fsx_steps(m, line, col, &r) < 0)
		return -1;
	m->size = fsx_size_after(&r, m->size);
	return r.closeopen ? fsx_closeopen(m, line, col) : 0;
}

/* ------------------------------------------------------------------ */
/* xfs_io lists                                                       */
/* ------------------------------------------------------------------ */

/* Append the step @text (at 0-based column @lead of line @line). */
static int xfs_io_step(struct imp *m, unsigned line, const char *text, unsigned lead)
{
	char err[SCN_ERR_MAX];
	unsigned col;

	if (m->nr == SCN_STEPS_MAX)
		return imp_err(m, line, lead + 1, "more than %u steps, the most a scenario holds",
			       SCN_STEPS_MAX);
	if (m->nr == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->steps = realloc(m->steps, m->cap * sizeof(*m->steps));
		SIM_ASSERT(m->steps != NULL);
	}
	if (scn_parse_step(text, &m->steps[m->nr], err, sizeof(err), &col) != 0)
		return imp_err(m, line, lead + col + 1, "%s", err);
	if (scn_step_is_namespace(&m->steps[m->nr]))     /* its PATH is the host's */
		return imp_err(m, line, lead + 1, "%s%s: a namespace step names a path of the "
			       "machine it ran on, and import takes one file's steps; write it "
			       "into the scenario by hand, its path from the file system's root",
			       scn_op_name(m->steps[m->nr].s_op), m->steps[m->nr].s_has_path ?
			       " PATH" : "");
	m->steps[m->nr].s_line = line;          /* where the budget check points */
	m->steps[m->nr].s_col = lead + 1;
	m->nr++;
	m->nr_ops++;
	return 0;
}

/*
 * One shell word of an xfs_io command line at *@p: quotes ('...', "...")
 * removed, backslash escapes kept literal; into @out.  Returns the word's
 * column in the line (0-based), or -1 at the end or on an unclosed quote.
 */
static int shell_word(const char **p, const char *line, char *out, size_t cap, bool *bad)
{
	const char *c = *p;
	size_t n = 0;
	int col;

	while (*c == ' ' || *c == '\t')
		c++;
	if (!*c)
		return -1;
	col = (int)(c - line);
	while (*c && *c != ' ' && *c != '\t') {
		char q = *c;

		if (q == '\'' || q == '"') {
			const char *end = strchr(c + 1, q);

			if (!end) {
				*bad = true;
				return col;
			}
			for (c++; c < end && n + 1 < cap; c++)
				out[n++] = *c;
			c = end + 1;
			continue;
		}
		if (q == '\\' && c[1])
			c++;
		if (n + 1 < cap)
			out[n++] = *c;
		c++;
	}
	out[n] = '\0';
	*p = c;
	return col;
}

/*
 * The end of an xfs_io process whose commands are the steps from @before on:
 * the process closes the file when it exits (ext4_release_file: the
 * auto_da_alloc writeback after a truncate, the mapping gone), so a close
 * step follows unless its last step already ended the process.
 */
static int xfs_io_exit(struct imp *m, unsigned line, unsigned before)
{
	if (m->nr == before || !orc_in_process(m->steps[m->nr - 1].s_op))
		return 0;
	m->nr_closes++;
	return add_step(m, line, 1, "close");
}

/* xfs_io's open flags of a command line that import follows: -d (O_DIRECT), -s (O_SYNC). */
struct xio_flags {
	bool direct, osync;
};

/* The -d and -s among the flags of command line @text (the words not after a -c). */
static struct xio_flags xfs_io_flags(const char *text)
{
	char word[SCN_STEP_TEXT_MAX + 64];
	const char *p = text;
	struct xio_flags fl = { false, false };
	bool next_is_cmd = false, bad = false;

	shell_word(&p, text, word, sizeof(word), &bad);         /* xfs_io */
	while (shell_word(&p, text, word, sizeof(word), &bad) >= 0 && !bad) {
		if (!next_is_cmd && word[0] == '-' && word[1] != '-' && strcmp(word, "-c")) {
			fl.direct |= strchr(word, 'd') != NULL;
			fl.osync |= strchr(word, 's') != NULL;
		}
		next_is_cmd = !next_is_cmd && strcmp(word, "-c") == 0;
	}
	return fl;
}

/*
 * The step just added from a -c command of a process opened with @fl, at
 * column @col: under -d a pwrite is a direct write and a pread a direct read
 * (dio_read); a read, copy or mapping through an O_DIRECT file otherwise is
 * refused, and so is xfs_io's own pwrite -d (O_DIRECT for its -i input file:
 * the write to the file is buffered).
 */
static int xfs_io_direct(struct imp *m, unsigned line, unsigned col, struct xio_flags fl)
{
	struct scn_step *st = &m->steps[m->nr - 1];

	if (st->s_op == SCN_PWRITE && st->s_direct)
		return imp_err(m, line, col, "pwrite -d in an xfs_io command line is xfs_io's: "
			       "O_DIRECT for its -i input file, a buffered write to the file; a "
			       "direct write is xfs_io -d -c 'pwrite ...'");
	if (!fl.direct)
		return 0;
	if (st->s_op == SCN_PWRITE) {
		st->s_direct = !fl.osync;       /* with -s, the open -d's */
		return 0;
	}
	if (st->s_op == SCN_PREAD && !fl.osync) {
		st->s_op = SCN_DIO_READ;
		return 0;
	}
	if (st->s_op == SCN_PREAD || orc_needs_buffered_fd(st))
		return imp_err(m, line, col, "xfs_io -d%s: %s through an O_DIRECT file; import "
			       "takes direct writes there, %sand the commands that neither read "
			       "nor map the file", fl.osync ? " -s" : "", scn_op_name(st->s_op),
			       fl.osync ? "" : "direct reads (pread) ");
	return 0;
}

/*
 * `xfs_io [-f -x ...] -c CMD -c CMD ... FILE` on one line (as fstests tests
 * write it, `$XFS_IO_PROG` too): each -c's command is a step, at the column
 * of its word.  -d opens the file O_DIRECT: its pwrites are direct writes,
 * its preads dio_read; -s O_SYNC: the process starts with open -s /f (open
 * -d -s /f with -d; its pwrites are then the open's).  xfs_io's other flags
 * and the file are passed over.
 */
static int xfs_io_cmdline(struct imp *m, unsigned line, const char *text)
{
	char word[SCN_STEP_TEXT_MAX + 64];
	const char *p = text;
	bool next_is_cmd = false, bad = false;
	struct xio_flags fl = xfs_io_flags(text);
	unsigned before = m->nr, lead;
	int col;

	if (fl.osync && add_step(m, line, 1, "open%s -s /f", fl.direct ? " -d" : "") < 0)
		return -1;
	shell_word(&p, text, word, sizeof(word), &bad);         /* xfs_io */
	while ((col = shell_word(&p, text, word, sizeof(word), &bad)) >= 0) {
		if (bad)
			return imp_err(m, line, (unsigned)col + 1, "a quote that does not close");
		if (next_is_cmd) {
			lead = (unsigned)col + (text[col] == '\'' || text[col] == '"');
			if (xfs_io_step(m, line, word, lead) < 0 ||
			    xfs_io_direct(m, line, lead + 1, fl) < 0)
				return -1;
			next_is_cmd = false;
			continue;
		}
		next_is_cmd = strcmp(word, "-c") == 0;
	}
	if (next_is_cmd)
		return imp_err(m, line, (unsigned)strlen(text) + 1, "-c needs a command");
	return xfs_io_exit(m, line, before);
}

static bool is_xfs_io_cmdline(const char *text)
{
	static const char *const heads[] = { "xfs_io ", "xfs_io\t", "$XFS_IO_PROG ",
					     "${XFS_IO_PROG} " };

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		if (strncmp(text, heads[i], strlen(heads[i])) == 0)
			return true;
	return false;
}

static int xfs_io_line(struct imp *m, unsigned line, const char *text, unsigned lead)
{
	if (is_xfs_io_cmdline(text))
		return xfs_io_cmdline(m, line, text - lead);
	return xfs_io_step(m, line, text, lead);
}

/* ------------------------------------------------------------------ */
/* The input                                                          */
/* ------------------------------------------------------------------ */

static bool all_numbers(struct tok *t, unsigned from, unsigned n)
{
	int64_t v;

	for (unsigned i = from; i < n; i++)
		if (fsx_num(t[i].t, &v) < 0)
			return false;
	return n > from;
}

/* fsx or xfs_io, from the first line that holds a command. */
static enum ifrom detect(const char *path, char *first_line)
{
	size_t n = strlen(path);
	struct tok t[IMPORT_TOK_MAX];
	unsigned nt;

	if (n > 7 && strcmp(path + n - 7, ".fsxops") == 0)
		return IF_FSX;
	if (!first_line)
		return IF_XFS_IO;
	nt = tokenize(first_line, t, IMPORT_TOK_MAX);
	if (nt == 0 || nt > IMPORT_TOK_MAX)
		return IF_XFS_IO;
	if (strcmp(t[0].t, "skip") == 0)
		return IF_FSX;
	if (strcmp(t[0].t, "truncate") == 0 || strcmp(t[0].t, "fsync") == 0)
		return nt >= 4 && all_numbers(t, 1, 4) ? IF_FSX : IF_XFS_IO;
	return fsx_find(t[0].t) ? IF_FSX : IF_XFS_IO;
}

/* The line without its end of line; NULL for a blank or comment line. */
static char *meaningful(char *line, unsigned *lead)
{
	size_t n = strlen(line);
	char *p = line;

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	*lead = (unsigned)(p - line);
	return *p && *p != '#' ? p : NULL;
}

/*
 * One line of at most IMPORT_LINE_MAX bytes into @buf (NUL-terminated, the
 * newline kept); returns its length, 0 at the end, -1 for a longer line, -2
 * past IMPORT_BYTES_MAX in all, -3 for a NUL byte.
 */
static long read_line(FILE *f, char *buf, size_t *total)
{
	long n = 0;
	int ch;

	while ((ch = getc(f)) != EOF) {
		if (++*total > IMPORT_BYTES_MAX)
			return -2;
		if (ch == 0)
			return -3;
		if (n == IMPORT_LINE_MAX)
			return -1;
		buf[n++] = (char)ch;
		if (ch == '\n')
			break;
	}
	buf[n] = '\0';
	return n;
}

static int line_err(struct imp *m, unsigned lineno, long got)
{
	if (got == -1)
		return imp_err(m, lineno, IMPORT_LINE_MAX + 1, "a line longer than %u bytes, the "
			       "most an import line may hold", IMPORT_LINE_MAX);
	if (got == -2)
		return imp_err(m, lineno, 1, "the input passes %u bytes, the most import reads",
			       IMPORT_BYTES_MAX);
	return imp_err(m, lineno, 1, "a NUL byte");
}

/* fsx or xfs_io (--from, or from the first line that holds a command), then rewound. */
static int detect_input(struct imp *m, FILE *f, char *line)
{
	unsigned lineno = 0, lead;
	size_t total = 0;
	long got;
	char *p = NULL;

	while (!p && (got = read_line(f, line, &total)) > 0) {
		lineno++;
		p = meaningful(line, &lead);
	}
	if (!p && got < 0)
		return line_err(m, lineno + 1, got);
	m->from = detect(m->path, p);
	rewind(f);
	return 0;
}

/*
 * A refused last line without a newline: the log was cut inside it (fsx
 * writes each line whole), which the message says first, unless it already
 * names the line truncated.
 */
static void fsx_cut_message(struct imp *m)
{
	char msg[sizeof(m->err)];
	char *at = strstr(m->err + strlen(m->path), ": ");

	if (!at || strstr(at, "truncated"))
		return;
	snprintf(msg, sizeof(msg), "%s", at + 2);
	snprintf(at + 2, sizeof(m->err) - (size_t)(at + 2 - m->err), "a truncated fsx line "
		 "(the log ends inside it, without a newline): %s", msg);
	scn_clean_message(m->err);
}

/* Whether @s (@n bytes, no newline) ends in a backslash that continues it (an odd run). */
static bool continues(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && s[n - 1 - k] == '\\')
		k++;
	return k % 2 == 1;
}

/*
 * An xfs_io line (@line, its newline gone) that ends in a backslash goes on
 * on the next input line, as the shell reads it: the backslash and the
 * newline removed, the next line appended (IMPORT_LINE_MAX bytes in all,
 * IMPORT_JOIN_MAX lines), and where each input line starts kept in m->join
 * for messages.  *@lineno becomes the last line's number.  Returns 0, or -1
 * with the message in m->err.
 */
static int xfs_io_join(struct imp *m, FILE *f, char *line, unsigned *lineno, size_t *total)
{
	char *next = sim_zalloc(IMPORT_LINE_MAX + 1);
	size_t n = strlen(line);
	int rc = 0;
	long got;

	m->join = (struct imp_join){ .nr = 1, .first = *lineno };
	while (rc == 0 && continues(line, n)) {
		line[--n] = '\0';
		if (m->join.nr == IMPORT_JOIN_MAX) {
			rc = imp_err(m, *lineno, (unsigned)n + 1, "a command line continued over "
				     "more than %u lines", IMPORT_JOIN_MAX);
			break;
		}
		if ((got = read_line(f, next, total)) <= 0) {
			rc = got < 0 ? line_err(m, *lineno + 1, got)
				     : imp_err(m, *lineno, (unsigned)n + 1, "the input ends after a "
					       "backslash that continues the line");
			break;
		}
		(*lineno)++;
		while (got && (next[got - 1] == '\n' || next[got - 1] == '\r'))
			next[--got] = '\0';
		if (n + (size_t)got > IMPORT_LINE_MAX) {
			rc = imp_err(m, *lineno, 1, "a command line longer than %u bytes with its "
				     "continuations, the most an import line may hold", IMPORT_LINE_MAX);
			break;
		}
		m->join.off[m->join.nr++] = (unsigned)n;
		memcpy(line + n, next, (size_t)got + 1);
		n += (size_t)got;
	}
	free(next);
	return rc;
}

/* An xfs_io line at @p (@lead blanks into @line), with its continuation lines. */
static int xfs_io_input_line(struct imp *m, FILE *f, char *line, char *p, unsigned lead,
			     unsigned *lineno, size_t *total)
{
	unsigned first = *lineno;
	int rc = xfs_io_join(m, f, line, lineno, total);

	if (rc == 0)
		rc = xfs_io_line(m, first, p, lead);
	m->join.nr = 0;
	return rc;
}

static int read_lines(struct imp *m, FILE *f, char *line)
{
	unsigned lineno = 0;
	size_t total = 0;
	int rc = 0;
	long got;

	while (rc == 0 && (got = read_line(f, line, &total)) != 0) {
		struct tok t[IMPORT_TOK_MAX];
		unsigned lead, nt;
		char *p;

		lineno++;
		if (got < 0)
			return line_err(m, lineno, got);
		m->cut = line[got - 1] != '\n';
		if (!(p = meaningful(line, &lead)))
			continue;
		if (m->from == IF_XFS_IO) {
			rc = xfs_io_input_line(m, f, line, p, lead, &lineno, &total);
			continue;
		}
		nt = tokenize(line, t, IMPORT_TOK_MAX);
		if (nt > IMPORT_TOK_MAX)
			rc = imp_err(m, lineno, 1, "more than %u words: not an fsx operation",
				     IMPORT_TOK_MAX);
		else
			rc = fsx_line(m, lineno, t, nt);
		if (rc < 0 && m->cut)
			fsx_cut_message(m);
	}
	if (rc == 0 && ferror(f))
		rc = imp_err(m, lineno + 1, 1, "cannot read: %s", strerror(errno ? errno : EIO));
	m->nr_lines = lineno;
	return rc;
}

static bool is_directory(FILE *f)
{
	struct stat st;

	return fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * --from fstests: the whole input (at most IMPORT_BYTES_MAX bytes, no NUL)
 * to orc_import_fstests (import_fstests.c).  0, or -1 with the message.
 */
static int read_fstests(struct imp *m, FILE *f)
{
	char *buf = malloc(IMPORT_BYTES_MAX + 1);
	size_t len;
	int rc;

	SIM_ASSERT(buf != NULL);
	len = fread(buf, 1, IMPORT_BYTES_MAX + 1, f);
	if (ferror(f))
		rc = imp_err(m, 1, 1, "cannot read: %s", strerror(errno ? errno : EIO));
	else if (len > IMPORT_BYTES_MAX)
		rc = imp_err(m, 1, 1, "more than %u bytes of input", IMPORT_BYTES_MAX);
	else if (memchr(buf, '\0', len))
		rc = imp_err(m, 1, 1, "a NUL byte: not a shell script");
	else
		rc = orc_import_fstests(m->path, buf, len, &m->steps, &m->nr, m->err,
					sizeof(m->err));
	m->nr_ops = m->nr;
	m->nr_lines = 0;
	for (size_t i = 0; i < len; i++)
		m->nr_lines += buf[i] == '\n';
	free(buf);
	return rc;
}

static int read_input(struct imp *m)
{
	FILE *f = scn_open_read(m->path);
	char *line = sim_zalloc(IMPORT_LINE_MAX + 1);
	int rc = 0;

	if (!f || is_directory(f)) {
		/* the loader's words for a scenario file (ldr_read_file) */
		imp_err(m, 1, 1, "%s: %s", f ? "cannot read" : "cannot open",
			strerror(f ? EISDIR : errno));
		if (f)
			fclose(f);
		free(line);
		return -1;
	}
	if (m->from == IF_FSTESTS)
		rc = read_fstests(m, f);
	else if (m->from == IF_AUTO)
		rc = detect_input(m, f, line);
	if (rc == 0 && m->from != IF_FSTESTS)
		rc = read_lines(m, f, line);
	free(line);
	fclose(f);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The command                                                        */
/* ------------------------------------------------------------------ */

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= SCN_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '.' ||
		      *s == '_' || *s == '-'))
			return false;
	return true;
}

/* --block-size, --data or --kernel: 0, or 2 after the message. */
static int import_config_flag(struct imp *m, enum cmd_flag_id id, const char *v)
{
	m->has_config = true;
	if (id == F_BLOCK_SIZE)
		return parse_block_size(v, &m->cfg.block_size);
	if (id == F_DATA)
		return parse_data_mode(v, &m->cfg.data);
	if (parse_kernel_name(v))
		return 2;
	snprintf(m->cfg.kernel, sizeof(m->cfg.kernel), "%s", v);
	return 0;
}

/* --dioread-nolock and the other mount flags with no value into the config. */
static int import_mount_flag(struct imp *m, const struct cmd_opt *o)
{
	struct sim_overrides ov = { 0 };

	if (mount_flag(&ov, o))
		return cmd_no_code("import", o);
	m->cfg.dioread_nolock = ov.has_dioread_nolock ? ov.dioread_nolock : m->cfg.dioread_nolock;
	m->cfg.noauto_da_alloc = ov.has_auto_da_alloc ? !ov.auto_da_alloc : m->cfg.noauto_da_alloc;
	m->has_config = true;
	return 0;
}

/* One parsed argument of import: 0, or 2 after the message. */
static int import_arg(struct imp *m, const struct cmd_opt *o)
{
	const char *v = o->val;

	switch (o->id) {
	case F_POLLUTE_EOF:
		m->pollute_eof = true;
		return 0;
	case F_DIO:
		m->fsx_direct = true;
		return 0;
	case F_DELALLOC: case F_NODELALLOC:
		m->cfg.delalloc = o->id == F_DELALLOC;
		m->has_config = true;
		return 0;
	case F_NONE:
		if (m->path)
			return bad_usage("import takes one file%s", "");
		m->path = v;
		return 0;
	case F_FROM:
		if (strcmp(v, "fsx") && strcmp(v, "xfs_io") && strcmp(v, "ace") && strcmp(v, "fstests"))
			return bad_usage("--from takes fsx, xfs_io, ace or fstests, not '%s'", v);
		m->from = strcmp(v, "fsx") == 0 ? IF_FSX : strcmp(v, "xfs_io") == 0 ? IF_XFS_IO :
			  strcmp(v, "ace") == 0 ? IF_ACE : IF_FSTESTS;
		return 0;
	case F_NAME:
		if (!valid_name(v))
			return bad_usage("--name takes [a-z0-9._-]+ (at most 63 bytes), "
					 "not '%s'", v);
		snprintf(m->name, sizeof(m->name), "%s", v);
		return 0;
	case F_BLOCK_SIZE: case F_DATA: case F_KERNEL:
		return import_config_flag(m, o->id, v);
	default:
		return import_mount_flag(m, o);
	}
}

static int import_args(struct imp *m, int argc, const struct cmd_opt *opts)
{
	int rc;

	m->cfg.block_size = 4096;
	m->cfg.data = SCN_DATA_ORDERED;
	m->cfg.delalloc = true;
	m->cfg.dioread_nolock = true;
	for (int i = 0; i < argc; i++)
		if ((rc = import_arg(m, &opts[i])))
			return rc;
	if (!m->path)
		return bad_usage("import needs a file: an fsx log or a list of xfs_io "
				 "commands%s", "");
	if (!m->name[0])
		orc_name_from_path(m->path, m->name, sizeof(m->name));
	return 0;
}

/*
 * The work budget run checks (scn_budget_step, at run's default: there is
 * no config key for it): steps that write and read more than run takes are
 * refused at the input line that passes it, rather than written as a
 * scenario run then refuses.  0, or -1 with the message in m->err.
 */
static int import_check_budget(struct imp *m)
{
	int64_t sum;
	int bad = scn_budget_step(m->steps, m->nr, SCN_RUN_BYTES_DEFAULT, &sum);

	if (bad < 0)
		return 0;
	return imp_err(m, m->steps[bad].s_line, m->steps[bad].s_col, "this operation brings "
		       "the bytes the steps write and read to %lld, past the limit of %lld that "
		       "run takes (a scenario file cannot raise it); import a part of the input",
		       (long long)sum, (long long)SCN_RUN_BYTES_DEFAULT);
}

/* The imported scenario's description: what it came from and how it maps. */
static void import_description(const struct imp *m, char *desc, size_t cap)
{
	char pol[256] = "";

	if (m->pollute_eof)
		snprintf(pol, sizeof(pol), "; fsx -e 1 re-created: %u EOF-page pollution(s) as "
			 "mwrite past EOF", m->nr_polluted);
	if (m->fsx_direct)
		snprintf(pol + strlen(pol), sizeof(pol) - strlen(pol), "; fsx -Z: its writes "
			 "are direct writes and its reads direct reads");
	if (m->from == IF_FSX)
		snprintf(desc, cap, "Imported from an fsx operation log: %u operation(s), "
			 "%u skipped by fsx and left out%s.  Each write or mmap store writes one "
			 "byte of its own where fsx wrote a pattern; a mapwrite's msync(MS_SYNC) "
			 "is an fdatasync of the whole file; close_open is a close and an evict; "
			 "copy_range is a copy_range step.", m->nr_ops, m->nr_skipped, pol);
	else if (m->from == IF_FSTESTS)
		snprintf(desc, cap, "Imported from an fstests test: %u step(s) from its "
			 "shell commands after the scratch mount; each xfs_io process opens its "
			 "file when it is not the current one and ends with a close, a shutdown "
			 "and its remount are a crash.", m->nr);
	else
		snprintf(desc, cap, "Imported from a list of %u xfs_io command(s)%s.",
			 m->nr_ops, m->nr_closes ? "; each xfs_io process ends with a close, as "
			 "the process closes the file when it exits" : "");
}

int cmd_import(int argc, struct cmd_opt *opts)
{
	struct imp *m = sim_zalloc(sizeof(*m));
	char desc[1024], *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int rc;

	if ((rc = import_args(m, argc, opts)))
		goto out;
	if (m->from == IF_ACE) {        /* oracle/import_ace.c: a j-lang workload of ACE's */
		rc = orc_import_ace(m->path, m->name, &m->cfg, m->has_config);
		goto out;
	}
	if (m->fsx_direct && m->from != IF_FSX && m->from != IF_AUTO) {
		rc = bad_usage("--dio takes an fsx -Z log (--from fsx)%s", "");
		goto out;
	}
	if (read_input(m) < 0 || import_check_budget(m) < 0) {
		fprintf(stderr, "%s\n", m->err);
		rc = 2;
		goto out;
	}
	if (m->nr == 0) {
		fprintf(stderr, "%s:%u:1: no operations to import (only blank lines, comments or "
			"operations fsx skipped)\n", m->path, m->nr_lines + 1);
		rc = 2;
		goto out;
	}
	if (m->fsx_direct && m->from != IF_FSX) {
		fprintf(stderr, "%s:1:1: --dio takes an fsx -Z log, and this input is not an fsx "
			"log\n", m->path);
		rc = 2;
		goto out;
	}
	import_description(m, desc, sizeof(desc));
	mem = open_memstream(&buf, &len);
	SIM_ASSERT(mem != NULL);
	orc_write_yaml(mem, &(struct orc_yaml){
		.name = m->name, .description = desc, .source = m->path,
		.config = m->has_config ? &m->cfg : NULL, .steps = m->steps, .nr_steps = m->nr });
	SIM_ASSERT(fclose(mem) == 0);
	if (len > SCN_FILE_BYTES_MAX) {
		fprintf(stderr, "%s: import: the scenario would be %zu bytes, more than the %u a "
			"scenario file may hold; import a part of the input\n", m->path, len,
			SCN_FILE_BYTES_MAX);
		rc = 2;
	} else {
		fwrite(buf, 1, len, stdout);
	}
	free(buf);
out:
	free(m->steps);
	free(m);
	return rc;
}
