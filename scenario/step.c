/*
 * step.c - one step line in xfs_io syntax -> struct scn_step
 * (docs/scenario-format.md, "Steps").  Used by the scenario loader for every
 * `steps:` entry, by `ext4sim run -c` and by import.
 *
 * scn_parse_step() checks the step's name (xfs_io's aliases `s`, `ds` and
 * `syncfs` too), its options as xfs_io's getopt takes them (before, between
 * or after the operands, grouped as `-qW`, a value attached as `-S0xaa` or
 * apart; `--` ends them), and its operands in xfs_io's number syntax
 * (cvtnum.c), and reports the byte offset of the first bad token.  An
 * option xfs_io has but the model does not is refused with the reason.
 * Whether a step makes sense for the file's state is the model's business,
 * not this file's.
 */
#include "scenario.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

#define STEP_TOK_MAX 16          /* tokens in one step line */

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* ------------------------------------------------------------------ */
/* Steps                                                              */
/* ------------------------------------------------------------------ */

enum step_long {
	LONG_SHORT = 1u << 0,    /* --short N (pwrite) */
	LONG_KEEP = 1u << 1,     /* --keep none|N[,N...] (crash, shutdown) */
	LONG_AFTER = 1u << 2,    /* --after N (inject enospc) */
	LONG_AIO = 1u << 3,      /* --aio (pwrite -d): no value */
};

enum step_args {
	ARGS_NONE,               /* no arguments */
	ARGS_RANGE,              /* OFF LEN */
	ARGS_SIZE,               /* SIZE */
	ARGS_RANGE_OPT,          /* [OFF LEN] */
	ARGS_CHATTR,             /* +s | -s | +S | -S */
	ARGS_FAULT,              /* enospc | nonda | clear */
	ARGS_PATH,               /* PATH */
	ARGS_PATH_OPT,           /* [PATH] */
	ARGS_PATHS,              /* OLD NEW */
	ARGS_SYMLINK,            /* TARGET PATH */
	ARGS_XATTR,              /* PATH NAME [VALUE] */
	ARGS_XATTR_NAME,         /* PATH NAME */
};

/*
 * A step: its name, usage, short options as a getopt string (a ':' after a
 * letter: it takes a value), long options, operands and default fill byte.
 * Options may come before, between or after the operands, as xfs_io's
 * getopt permutes them; `--` ends them.
 */
struct step_desc {
	const char *d_name;
	const char *d_usage;
	const char *d_opts;
	unsigned d_long;
	enum step_args d_args;
	uint8_t d_fill;
};

static const struct step_desc step_descs[SCN_OP_COUNT] = {
	[SCN_PWRITE] = { "pwrite", "pwrite [-S B] [-b BSIZE] [-V N [-DA]] [-R -Z N] [-dqwWF] "
			 "[--short N] [--aio] OFF LEN", "S:b:V:qwWDAFRZ:BNi:Od", LONG_SHORT | LONG_AIO,
			 ARGS_RANGE, 0xcd },
	[SCN_PREAD] = { "pread", "pread [-v] [-b BSIZE] [-qF] OFF LEN", "vb:qFRBV:", 0,
			ARGS_RANGE, 0 },
	[SCN_TRUNCATE] = { "truncate", "truncate SIZE", "", 0, ARGS_SIZE, 0 },
	[SCN_FALLOC] = { "falloc", "falloc [-k|-p|-c|-i|-u] OFF LEN", "kpciu", 0, ARGS_RANGE, 0 },
	[SCN_FZERO] = { "fzero", "fzero [-k] OFF LEN", "k", 0, ARGS_RANGE, 0 },
	[SCN_FPUNCH] = { "fpunch", "fpunch OFF LEN", "", 0, ARGS_RANGE, 0 },
	[SCN_FCOLLAPSE] = { "fcollapse", "fcollapse OFF LEN", "", 0, ARGS_RANGE, 0 },
	[SCN_FINSERT] = { "finsert", "finsert OFF LEN", "", 0, ARGS_RANGE, 0 },
	[SCN_MWRITE] = { "mwrite", "mwrite [-r] [-S B] OFF LEN", "rS:", 0, ARGS_RANGE, 0x58 },
	[SCN_FSYNC] = { "fsync", "fsync [PATH]", "", 0, ARGS_PATH_OPT, 0 },
	[SCN_FDATASYNC] = { "fdatasync", "fdatasync [PATH]", "", 0, ARGS_PATH_OPT, 0 },
	[SCN_SYNC_RANGE] = { "sync_range", "sync_range [-w|-a|-b] OFF LEN", "wab", 0,
			     ARGS_RANGE, 0 },
	[SCN_SYNC] = { "sync", "sync", "", 0, ARGS_NONE, 0 },
	[SCN_CHATTR] = { "chattr", "chattr +s|-s", "", 0, ARGS_CHATTR, 0 },
	[SCN_CLOSE] = { "close", "close", "", 0, ARGS_NONE, 0 },
	[SCN_SHUTDOWN] = { "shutdown", "shutdown [-f] [--keep none|N[,N...]]", "f", LONG_KEEP,
			   ARGS_NONE, 0 },
	[SCN_WRITEBACK] = { "writeback", "writeback [OFF LEN]", "", 0, ARGS_RANGE_OPT, 0 },
	[SCN_COMMIT] = { "commit", "commit", "", 0, ARGS_NONE, 0 },
	[SCN_CHECKPOINT] = { "checkpoint", "checkpoint", "", 0, ARGS_NONE, 0 },
	[SCN_CRASH] = { "crash", "crash [--keep none|N[,N...]]", "", LONG_KEEP, ARGS_NONE, 0 },
	[SCN_REMOUNT] = { "remount", "remount", "", 0, ARGS_NONE, 0 },
	[SCN_EVICT] = { "evict", "evict", "", 0, ARGS_NONE, 0 },
	[SCN_DIO_READ] = { "dio_read", "dio_read [-v] OFF LEN", "v", 0, ARGS_RANGE, 0 },
	[SCN_COPY_RANGE] = { "copy_range", "copy_range [-s SRC] [-d DST] [-l LEN] [FILE]",
			     "s:d:l:f:", 0,
			     ARGS_NONE, 0 },
	[SCN_MMAP] = { "mmap", "mmap [-rwxS] OFF LEN", "rwxS", 0, ARGS_RANGE, 0 },
	[SCN_MSYNC] = { "msync", "msync [-a|-i|-s] [OFF LEN]", "ais", 0, ARGS_RANGE_OPT, 0 },
	[SCN_MUNMAP] = { "munmap", "munmap", "", 0, ARGS_NONE, 0 },
	[SCN_INJECT] = { "inject", "inject enospc [--after N] | inject nonda | inject clear", "",
			 LONG_AFTER, ARGS_FAULT, 0 },
	[SCN_FUNSHARE] = { "funshare", "funshare OFF LEN", "", 0, ARGS_RANGE, 0 },
	[SCN_MREAD] = { "mread", "mread [-r] [-v|-f] [OFF LEN]", "rvf", 0, ARGS_RANGE_OPT, 0 },
	[SCN_MREMAP] = { "mremap", "mremap [-m] NEWSIZE", "mf:", 0, ARGS_SIZE, 0 },
	[SCN_MADVISE] = { "madvise", "madvise [-d|-r|-s|-w|-R|-W] [OFF LEN]", "drswRWcDfhHmMopPX",
			  0, ARGS_RANGE_OPT, 0 },
	[SCN_FADVISE] = { "fadvise", "fadvise [-d|-n|-r|-s|-w] [OFF LEN]", "dnrsw", 0,
			  ARGS_RANGE_OPT, 0 },
	[SCN_AIO_WAIT] = { "aio_wait", "aio_wait", "", 0, ARGS_NONE, 0 },
	[SCN_OPEN] = { "open", "open [-f] [-t] [-d] [-s] PATH", "fctadm:nrsRTPL", 0, ARGS_PATH, 0 },
	[SCN_CREAT] = { "creat", "creat PATH", "", 0, ARGS_PATH, 0 },
	[SCN_MKDIR] = { "mkdir", "mkdir PATH", "", 0, ARGS_PATH, 0 },
	[SCN_RMDIR] = { "rmdir", "rmdir PATH", "", 0, ARGS_PATH, 0 },
	[SCN_LINK] = { "link", "link OLD NEW", "", 0, ARGS_PATHS, 0 },
	[SCN_UNLINK] = { "unlink", "unlink PATH", "", 0, ARGS_PATH, 0 },
	[SCN_RENAME] = { "rename", "rename [-n|-x] OLD NEW", "nx", 0, ARGS_PATHS, 0 },
	[SCN_SYMLINK] = { "symlink", "symlink TARGET PATH", "", 0, ARGS_SYMLINK, 0 },
	[SCN_SETXATTR] = { "setxattr", "setxattr PATH NAME [VALUE]", "", 0, ARGS_XATTR, 0 },
	[SCN_REMOVEXATTR] = { "removexattr", "removexattr PATH NAME", "", 0, ARGS_XATTR_NAME, 0 },
};

/* The faults an inject step names, in enum scn_fault order. */
static const char *const fault_names[] = { "enospc", "nonda", "clear" };

/* xfs_io's other names for steps (its commands' altname, and syncfs). */
static const struct { const char *alias; enum scn_op op; } step_aliases[] = {
	{ "s", SCN_FSYNC }, { "ds", SCN_FDATASYNC }, { "syncfs", SCN_SYNC },
	{ "w", SCN_PWRITE }, { "r", SCN_PREAD }, { "t", SCN_TRUNCATE }, { "mm", SCN_MMAP },
	{ "mw", SCN_MWRITE }, { "mr", SCN_MREAD }, { "ms", SCN_MSYNC }, { "mu", SCN_MUNMAP },
	{ "ma", SCN_MADVISE },
};

/* Options xfs_io has that the model refuses, and why. */
static const struct { enum scn_op op; char opt; const char *why; } step_refused[] = {
	{ SCN_PWRITE, 'B', "backward writes are not modelled; write the ranges as separate "
	  "steps" },
	{ SCN_PWRITE, 'N', "RWF_NOWAIT depends on the page cache's timing, not modelled" },
	{ SCN_PWRITE, 'i', "an input file's bytes: the model writes one byte per step" },
	{ SCN_PWRITE, 'O', "a single partial write: use --short N" },
	{ SCN_PREAD, 'R', "random read offsets are not modelled" },
	{ SCN_PREAD, 'B', "backward reads are not modelled" },
	{ SCN_PREAD, 'V', "vectored reads are not modelled" },
	{ SCN_COPY_RANGE, 'f', "-f N copies from xfs_io's open file N and then closes it, so "
	  "the process's later commands fail with EBADF; name the source file instead" },
	{ SCN_MREMAP, 'f', "MREMAP_FIXED moves the mapping to a chosen address, and the model "
	  "has no address space; -m (MREMAP_MAYMOVE) has the same effect on the file" },
	{ SCN_MADVISE, 'w', "MADV_WILLNEED's read-ahead reads as much as the device's "
	  "read-ahead settings say, which the model does not have; use mread or madvise -R" },
	{ SCN_FADVISE, 'w', "POSIX_FADV_WILLNEED's read-ahead reads as much as the device's "
	  "read-ahead settings say, which the model does not have; use pread" },
	{ SCN_MADVISE, 'c', "MADV_COLLAPSE: transparent huge pages are not modelled" },
	{ SCN_MADVISE, 'D', "MADV_COLD: page reclaim is not modelled" },
	{ SCN_MADVISE, 'f', "MADV_FREE applies to anonymous memory, not to a file mapping" },
	{ SCN_MADVISE, 'h', "MADV_NOHUGEPAGE: transparent huge pages are not modelled" },
	{ SCN_MADVISE, 'H', "MADV_HUGEPAGE: transparent huge pages are not modelled" },
	{ SCN_MADVISE, 'm', "MADV_MERGEABLE (KSM) applies to anonymous memory" },
	{ SCN_MADVISE, 'M', "MADV_UNMERGEABLE (KSM) applies to anonymous memory" },
	{ SCN_MADVISE, 'o', "MADV_SOFT_OFFLINE: memory failure is not modelled" },
	{ SCN_MADVISE, 'p', "MADV_REMOVE is a hole punch: write fpunch OFF LEN" },
	{ SCN_MADVISE, 'P', "MADV_HWPOISON: memory failure is not modelled" },
	{ SCN_MADVISE, 'X', "MADV_PAGEOUT: page reclaim is not modelled" },
	{ SCN_OPEN, 'a', "O_APPEND: the data steps give their offsets" },
	{ SCN_OPEN, 'm', "file modes change nothing a crash leaves" },
	{ SCN_OPEN, 'n', "O_NONBLOCK changes nothing for a regular file here" },
	{ SCN_OPEN, 'r', "every file is opened O_RDWR, as xfs_io's default" },
	{ SCN_OPEN, 'R', "XFS's realtime flag: ext4 has no realtime device" },
	{ SCN_OPEN, 'T', "O_TMPFILE: create the file with open -f" },
	{ SCN_OPEN, 'P', "O_PATH: such a descriptor takes no data step" },
	{ SCN_OPEN, 'L', "O_NOFOLLOW" },
};

/* State of one scn_parse_step() call. */
struct step_parser {
	const struct step_desc *p_desc;   /* NULL until the keyword is known */
	struct scn_step *p_out;
	char p_buf[SCN_STEP_TEXT_MAX];    /* the trimmed text, tokens split */
	const char *p_tok[STEP_TOK_MAX];
	unsigned p_off[STEP_TOK_MAX];     /* byte offset of each token in text */
	unsigned p_nr;                    /* tokens stored */
	bool p_overflow;                  /* more than STEP_TOK_MAX tokens */
	unsigned p_overflow_off;          /* offset of the first one dropped */
	unsigned p_end;                   /* offset just past the trimmed text */
	char p_seen[32];                  /* options given, in order */
	unsigned p_arg[STEP_TOK_MAX];     /* token index of each operand */
	unsigned p_nr_args;
	unsigned p_short_tok;             /* token index of --short's value */
	unsigned p_len_tok;               /* token of LEN (or copy_range -l) */
	char *p_err;
	size_t p_errlen;
	unsigned *p_col;
};

/* Record a step error starting at byte @off of the text.  Returns -1. */
PRINTF_LIKE(3, 4)
static int step_err(struct step_parser *P, unsigned off, const char *fmt, ...)
{
	va_list ap;

	if (P->p_col != NULL)
		*P->p_col = off;
	if (P->p_err == NULL || P->p_errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(P->p_err, P->p_errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* True for the bytes that separate or surround a step's words. */
static bool step_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Split the trimmed p_buf (which starts at offset @base of the text) into
 * tokens at spaces and tabs. */
static void step_tokenize(struct step_parser *P, unsigned base)
{
	char *b = P->p_buf;
	unsigned i = 0;

	while (b[i] != '\0') {
		if (b[i] == ' ' || b[i] == '\t') {
			b[i++] = '\0';
			continue;
		}
		if (P->p_nr == STEP_TOK_MAX) {
			P->p_overflow = true;
			P->p_overflow_off = base + i;
			return;
		}
		P->p_tok[P->p_nr] = b + i;
		P->p_off[P->p_nr++] = base + i;
		while (b[i] != '\0' && b[i] != ' ' && b[i] != '\t')
			i++;
	}
}

/* Trim @text, check its length and bytes, keep it in s_text, tokenize. */
static int step_split(struct step_parser *P, const char *text)
{
	size_t start = 0;
	size_t end = strlen(text);
	size_t i;

	while (start < end && step_space(text[start]))
		start++;
	while (end > start && step_space(text[end - 1]))
		end--;
	if (start == end)
		return step_err(P, 0, "empty step");
	if (end - start >= SCN_STEP_TEXT_MAX)
		return step_err(P, (unsigned)start, "step too long (%zu bytes, "
				"max %d)", end - start, SCN_STEP_TEXT_MAX - 1);
	for (i = start; i < end; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n' || c == '\r')
			return step_err(P, (unsigned)i, "a step must be one line");
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return step_err(P, (unsigned)i, "control character "
					"0x%02x in step", c);
	}
	memcpy(P->p_out->s_text, text + start, end - start);
	memcpy(P->p_buf, text + start, end - start);
	P->p_end = (unsigned)end;
	step_tokenize(P, (unsigned)start);
	return 0;
}

/* The step named @name (an alias too), or SCN_OP_COUNT. */
static unsigned step_lookup(const char *name)
{
	for (unsigned op = 0; op < SCN_OP_COUNT; op++)
		if (strcmp(name, step_descs[op].d_name) == 0)
			return op;
	for (size_t i = 0; i < sizeof(step_aliases) / sizeof(step_aliases[0]); i++)
		if (strcmp(name, step_aliases[i].alias) == 0)
			return step_aliases[i].op;
	return SCN_OP_COUNT;
}

/* "unknown step 'X'" with the closest name, or the list of names. */
static int step_unknown(struct step_parser *P)
{
	const char *names[SCN_OP_COUNT];
	char q[SCN_QUOTE_BUF], hint[160];

	for (unsigned op = 0; op < SCN_OP_COUNT; op++)
		names[op] = step_descs[op].d_name;
	suggest_hint(hint, sizeof(hint), P->p_tok[0], names, SCN_OP_COUNT);
	if (hint[0])
		return step_err(P, P->p_off[0], "unknown step '%s'%s",
				scn_quote(q, P->p_tok[0]), hint);
	return step_err(P, P->p_off[0], "unknown step '%s'; the steps: pwrite (w) pread (r) "
			"truncate (t) falloc fzero fpunch fcollapse finsert funshare mwrite (mw) "
			"fsync (s) fdatasync (ds) sync_range sync (syncfs) chattr close shutdown "
			"writeback commit checkpoint crash remount evict dio_read aio_wait copy_range mmap "
			"(mm) mread (mr) mremap msync (ms) munmap (mu) madvise (ma) fadvise inject "
			"open creat mkdir rmdir link unlink rename symlink",
			scn_quote(q, P->p_tok[0]));
}

/* Look up the keyword (token 0); set the step's op and default fill. */
static int step_find_op(struct step_parser *P)
{
	const struct step_desc *d;
	unsigned op = step_lookup(P->p_tok[0]);

	if (op == SCN_OP_COUNT)
		return step_unknown(P);
	d = &step_descs[op];
	P->p_desc = d;
	P->p_out->s_op = (enum scn_op)op;
	P->p_out->s_fill = d->d_fill;
	if (P->p_overflow)
		return step_err(P, P->p_overflow_off, "%s: too many arguments; "
				"usage: %s", d->d_name, d->d_usage);
	return 0;
}

/* True if token @t looks like an option ("-x", "--x"), not a number. */
static bool step_is_option(const struct step_parser *P, const char *t)
{
	if (P->p_desc->d_args == ARGS_CHATTR)
		return false;
	return t[0] == '-' && t[1] != '\0' && !(t[1] >= '0' && t[1] <= '9');
}

/* One write number of a --keep list at @c: the end of it, or NULL. */
static const char *persist_number(const char *c, unsigned long *v)
{
	char *end;

	if (*c < '1' || *c > '9')
		return NULL;
	*v = strtoul(c, &end, 10);
	return *v > SCN_PERSIST_INDEX_MAX ? NULL : end;
}

/*
 * crash --keep LIST: "none", or the 1-based indexes of the unflushed writes
 * (in submission order) that persist, comma-separated; N-M names a range.
 */
static int step_persist_list(struct step_parser *P, unsigned i)
{
	const char *t = P->p_tok[i];
	struct scn_step *out = P->p_out;

	out->s_has_persist = true;
	if (strcmp(t, "none") == 0)
		return 0;
	for (const char *c = t; *c;) {
		unsigned long v, w;
		const char *end = persist_number(c, &v);

		w = v;
		if (end && *end == '-')
			end = persist_number(end + 1, &w);
		if (!end || (*end != ',' && *end != '\0') || w < v)
			return step_err(P, P->p_off[i] + (unsigned)(c - t), "%s: --keep takes "
					"none or write numbers 1..%d (or ranges N-M, N <= M) "
					"separated by commas", P->p_desc->d_name,
					SCN_PERSIST_INDEX_MAX);
		if (out->s_nr_persist == SCN_PERSIST_MAX)
			return step_err(P, P->p_off[i] + (unsigned)(c - t), "%s: --keep names "
					"more than %d writes or ranges", P->p_desc->d_name,
					SCN_PERSIST_MAX);
		out->s_persist[out->s_nr_persist][0] = (uint16_t)v;
		out->s_persist[out->s_nr_persist++][1] = (uint16_t)w;
		c = *end ? end + 1 : end;
		if (*end == ',' && *c == '\0')
			return step_err(P, P->p_off[i] + (unsigned)(c - t), "%s: --keep list "
					"ends with a comma", P->p_desc->d_name);
	}
	return 0;
}

/* Why scn_parse_cvtnum() returned @rc for token @t, for a message. */
static const char *num_problem(const char *t, int rc)
{
	if (t[0] == '-')
		return "is negative";
	if (rc == -ERANGE)
		return "is too large (max 16 TiB)";
	if (t[0] == '0' && t[1] >= '0' && t[1] <= '9')
		return "is not an octal number (a leading 0 means octal, as in xfs_io)";
	return "is not a number";
}

/* Parse @t (at byte @off of the text) as a number into @out. */
static int step_num_at(struct step_parser *P, const char *t, unsigned off, int64_t *out)
{
	char q[SCN_QUOTE_BUF];
	int rc = scn_parse_cvtnum(t, out);

	if (rc == 0)
		return 0;
	return step_err(P, off, "%s: '%s' %s", P->p_desc->d_name, scn_quote(q, t),
			num_problem(t, rc));
}

/* Parse token @idx as a number into @out. */
static int step_num(struct step_parser *P, unsigned idx, int64_t *out)
{
	return step_num_at(P, P->p_tok[idx], P->p_off[idx], out);
}

/* A numeric option value @t at @off for option @c, within [@lo, @hi]. */
static int step_value(struct step_parser *P, char c, const char *t, unsigned off, int64_t lo,
		      int64_t hi, int64_t *v)
{
	if (step_num_at(P, t, off, v) < 0)
		return -1;
	if (*v < lo || *v > hi)
		return step_err(P, off, "%s: -%c %s is out of range (%lld..%lld)",
				P->p_desc->d_name, c, t, (long long)lo, (long long)hi);
	return 0;
}

/* Option -@c with value @t (at byte @off). */
static int step_apply_value(struct step_parser *P, char c, const char *t, unsigned off)
{
	struct scn_step *s = P->p_out;
	int64_t v;

	switch (c) {
	case 'S':
		if (step_num_at(P, t, off, &v) < 0)
			return -1;
		if (v > 255)
			return step_err(P, off, "%s: fill byte '%s' is out of range (0..255)",
					P->p_desc->d_name, t);
		s->s_fill = (uint8_t)v;
		return 0;
	case 'b':
		if (step_value(P, c, t, off, 1, 64 << 20, &v) < 0)
			return -1;
		s->s_bsize = (uint32_t)v;
		return 0;
	case 'V':
		if (step_value(P, c, t, off, 1, 1024, &v) < 0)
			return -1;
		s->s_vectors = (uint16_t)v;
		return 0;
	case 'Z':               /* 0 would make xfs_io seed from the clock */
		if (step_value(P, c, t, off, 1, UINT32_MAX, &v) < 0)
			return -1;
		s->s_zeed = (uint32_t)v;
		return 0;
	case 's':
		return step_num_at(P, t, off, &s->s_src);
	case 'd':
		return step_num_at(P, t, off, &s->s_off);
	default:        /* 'l' */
		s->s_has_len = true;
		return step_num_at(P, t, off, &s->s_len);
	}
}

/* Option -@c of falloc: the fallocate mode, the last one given winning as in xfs_io
 * (-u, FALLOC_FL_UNSHARE_RANGE, is funshare's mode). */
static void step_falloc_mode(struct scn_step *s, char c)
{
	s->s_keep_size = c == 'k';
	s->s_op = c == 'p' ? SCN_FPUNCH : c == 'c' ? SCN_FCOLLAPSE : c == 'i' ? SCN_FINSERT :
		  c == 'u' ? SCN_FUNSHARE : SCN_FALLOC;
}

/*
 * A flag of the steps added for xfs_io's mapping and advice commands, and of
 * pwrite's pwritev2 and direction flags.  The last advice given wins, as
 * each of xfs_io's option cases overwrites its `advise`.  Returns false if
 * @c is not one of these.
 */
static bool step_flag_more(struct scn_step *s, enum scn_op op, char c)
{
	switch (op) {
	case SCN_MMAP:
		if (c != 'S')
			return false;
		s->s_map_sync = true;
		return true;
	case SCN_MADVISE: case SCN_FADVISE:
		s->s_advice = c;
		return true;
	case SCN_MREAD:
		s->s_reverse |= c == 'r';
		s->s_verbose |= c == 'v' || c == 'f';
		s->s_file_offsets |= c == 'f';
		return true;
	case SCN_PWRITE:
		if (c != 'A' && c != 'R' && c != 'F' && c != 'd')
			return false;
		s->s_atomic |= c == 'A';
		s->s_direct |= c == 'd';
		s->s_random = c == 'R' ? true : c == 'F' ? false : s->s_random;
		return true;
	case SCN_OPEN:          /* -c is xfs_io's other spelling of -f */
		s->s_creat |= c == 'f' || c == 'c';
		s->s_trunc |= c == 't';
		s->s_direct |= c == 'd';        /* O_DIRECT */
		s->s_osync |= c == 's';         /* O_SYNC */
		return true;
	case SCN_RENAME:        /* both: renameat2's EINVAL, the model's to return */
		s->s_rename_flags |= c == 'n' ? SCN_RENAME_NOREPLACE : SCN_RENAME_EXCHANGE;
		return true;
	default:
		return false;     /* mremap -m: MREMAP_MAYMOVE, the model's only way */
	}
}

/* Option -@c without a value. */
static int step_apply_flag(struct step_parser *P, char c, unsigned off)
{
	struct scn_step *s = P->p_out;
	enum scn_op op = (enum scn_op)(P->p_desc - step_descs);

	if (op == SCN_FALLOC) {
		step_falloc_mode(s, c);
		return 0;
	}
	if (op == SCN_SYNC_RANGE) {
		if (s->s_sr_flag)
			return step_err(P, off, "%s: give exactly one of -w, -a, -b",
					P->p_desc->d_name);
		s->s_sr_flag = c;
		return 0;
	}
	if (step_flag_more(s, op, c) || op == SCN_MREMAP)
		return 0;
	if (op == SCN_MMAP) {
		s->s_prot |= c == 'r' ? 1 : c == 'w' ? 2 : 4;
		return 0;
	}
	if (op == SCN_MSYNC) {
		if (s->s_msync_flag && s->s_msync_flag != c)
			return step_err(P, off, "msync: give one of -a, -i, -s");
		s->s_msync_flag = c;
		return 0;
	}
	switch (c) {
	case 'v': s->s_verbose = true; break;
	case 'k': s->s_keep_size = true; break;
	case 'w': s->s_fdatasync_after = true; break;
	case 'W': s->s_fsync_after = true; break;
	case 'D': s->s_dsync = true; break;
	case 'r': s->s_reverse = true; break;
	case 'f': s->s_logflush = true; break;
	default: break;         /* -q, -F: nothing to model */
	}
	return 0;
}

/* The reason xfs_io's option -@c is refused, or NULL. */
static const char *step_refusal(const struct step_parser *P, char c)
{
	enum scn_op op = (enum scn_op)(P->p_desc - step_descs);

	for (size_t i = 0; i < sizeof(step_refused) / sizeof(step_refused[0]); i++)
		if (step_refused[i].op == op && step_refused[i].opt == c)
			return step_refused[i].why;
	return NULL;
}

/* Check option -@c (at byte @off) is known, allowed and new. */
static int step_opt_known(struct step_parser *P, char c, unsigned off, const char **spec)
{
	const struct step_desc *d = P->p_desc;
	const char *why = step_refusal(P, c);
	size_t n = strlen(P->p_seen);

	*spec = c != ':' ? strchr(d->d_opts, c) : NULL;
	if (why)
		return step_err(P, off, "%s: -%c is not modelled: %s", d->d_name, c, why);
	if (!*spec)
		return step_err(P, off, "%s: unknown option '-%c'; usage: %s", d->d_name, c,
				d->d_usage);
	if (strchr(P->p_seen, c) && (*spec)[1] == ':')
		return step_err(P, off, "%s: option '-%c' given twice", d->d_name, c);
	if (n + 1 < sizeof(P->p_seen))
		P->p_seen[n] = c;
	return 0;
}

/* The short options of token *@i ("-qW", "-S 0xaa", "-S0xaa"); advances *@i. */
static int step_short_opts(struct step_parser *P, unsigned *i)
{
	const char *t = P->p_tok[*i];
	unsigned off = P->p_off[*i];

	for (unsigned k = 1; t[k]; k++) {
		const char *spec;
		unsigned at = k == 1 ? off : off + k;  /* the option's letter, past the first */

		if (step_opt_known(P, t[k], at, &spec) < 0)
			return -1;
		if (spec[1] != ':') {
			if (step_apply_flag(P, t[k], at) < 0)
				return -1;
			continue;
		}
		if (t[k + 1])
			return step_apply_value(P, t[k], t + k + 1, off + k + 1) < 0 ? -1 :
			       ((*i)++, 0);
		if (*i + 1 >= P->p_nr)
			return step_err(P, P->p_end, "%s: option '-%c' needs a value; usage: %s",
					P->p_desc->d_name, t[k], P->p_desc->d_usage);
		*i += 2;
		if (t[k] == 'l')
			P->p_len_tok = *i - 1;
		return step_apply_value(P, t[k], P->p_tok[*i - 1], P->p_off[*i - 1]);
	}
	(*i)++;
	return 0;
}

/* A long option at token *@i (--short N, --keep LIST); advances *@i. */
static int step_long_opt(struct step_parser *P, unsigned *i)
{
	const struct step_desc *d = P->p_desc;
	const char *t = P->p_tok[*i];
	unsigned bit = strcmp(t, "--short") == 0 ? LONG_SHORT :
		       strcmp(t, "--keep") == 0 ? LONG_KEEP :
		       strcmp(t, "--after") == 0 ? LONG_AFTER :
		       strcmp(t, "--aio") == 0 ? LONG_AIO : 0;
	char q[SCN_QUOTE_BUF];
	int64_t v;

	if (!(bit & d->d_long))
		return step_err(P, P->p_off[*i], "%s: unknown option '%s'; usage: %s",
				d->d_name, scn_quote(q, t), d->d_usage);
	if (bit == LONG_AIO) {
		P->p_out->s_aio = true;
		(*i)++;
		return 0;
	}
	if ((bit == LONG_SHORT && P->p_out->s_short_copy >= 0) ||
	    (bit == LONG_KEEP && P->p_out->s_has_persist) ||
	    (bit == LONG_AFTER && P->p_out->s_after >= 0))
		return step_err(P, P->p_off[*i], "%s: option '%s' given twice", d->d_name, t);
	if (*i + 1 >= P->p_nr)
		return step_err(P, P->p_end, "%s: option '%s' needs a value; usage: %s",
				d->d_name, t, d->d_usage);
	*i += 2;
	if (bit == LONG_KEEP)
		return step_persist_list(P, *i - 1);
	if (step_num(P, *i - 1, &v) < 0)
		return -1;
	if (bit == LONG_AFTER) {
		if (v > SCN_FAULT_AFTER_MAX)
			return step_err(P, P->p_off[*i - 1], "%s: --after %s is out of range "
					"(0..%lld blocks)", d->d_name, P->p_tok[*i - 1],
					SCN_FAULT_AFTER_MAX);
		P->p_out->s_after = v;
		P->p_short_tok = *i - 1;
		return 0;
	}
	P->p_out->s_short_copy = v;
	P->p_short_tok = *i - 1;
	return 0;
}

/* Every token after the keyword: options (anywhere, as getopt permutes
 * them; none after `--`) and operands (into p_arg). */
static int step_scan(struct step_parser *P)
{
	bool opts = true;

	for (unsigned i = 1; i < P->p_nr;) {
		const char *t = P->p_tok[i];
		int rc;

		if (opts && strcmp(t, "--") == 0) {
			opts = false;
			i++;
			continue;
		}
		if (!opts || !step_is_option(P, t)) {
			P->p_arg[P->p_nr_args++] = i++;
			continue;
		}
		rc = t[1] == '-' ? step_long_opt(P, &i) : step_short_opts(P, &i);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Name of the first missing argument when @have were given. */
static const char *step_arg_name(const struct step_desc *d, unsigned have)
{
	switch (d->d_args) {
	case ARGS_SIZE:
		return "SIZE";
	case ARGS_CHATTR:
		return "+s or -s";
	case ARGS_FAULT:
		return "the fault (enospc, nonda or clear)";
	case ARGS_PATH: case ARGS_PATH_OPT:
		return "PATH";
	case ARGS_PATHS:
		return have == 0 ? "OLD" : "NEW";
	case ARGS_SYMLINK:
		return have == 0 ? "TARGET" : "PATH";
	case ARGS_XATTR: case ARGS_XATTR_NAME:
		return have == 0 ? "PATH" : "NAME";
	default:
		return have == 0 ? "OFF" : "LEN";
	}
}

/* Check the number of operands. */
static int step_count_args(struct step_parser *P)
{
	const struct step_desc *d = P->p_desc;
	unsigned have = P->p_nr_args;
	unsigned want = 1;

	if (d->d_args == ARGS_NONE || ((d->d_args == ARGS_RANGE_OPT ||
					       d->d_args == ARGS_PATH_OPT) && have == 0))
		want = 0;
	else if (d->d_args == ARGS_RANGE || d->d_args == ARGS_RANGE_OPT ||
		 d->d_args == ARGS_PATHS || d->d_args == ARGS_SYMLINK ||
		 d->d_args == ARGS_XATTR || d->d_args == ARGS_XATTR_NAME)
		want = 2;
	if (have < want)
		return step_err(P, P->p_end, "%s: missing %s; usage: %s",
				d->d_name, step_arg_name(d, have), d->d_usage);
	if (have > want + 1 && P->p_out->s_op == SCN_COPY_RANGE)
		return step_err(P, P->p_off[P->p_arg[want + 1]], "copy_range: one source file "
				"at most (the scenario's file: the model has one); usage: %s",
				d->d_usage);
	if (have == want + 1 && P->p_out->s_op == SCN_COPY_RANGE)
		return 0;       /* the source named: xfs_io's SRC_FILE, the file itself */
	if (have == want + 1 && d->d_args == ARGS_XATTR)
		return 0;       /* setxattr's VALUE (none: an empty value) */
	if (have > want)        /* the first one too many (setxattr: past its VALUE) */
		return step_err(P, P->p_off[P->p_arg[want + (d->d_args == ARGS_XATTR)]],
				"%s: too many arguments; usage: %s", d->d_name, d->d_usage);
	return 0;
}

/* chattr's one operand: +s/-s (xfs_io), +S/-S (e2fsprogs' chattr). */
static int step_chattr(struct step_parser *P, unsigned tok)
{
	const char *t = P->p_tok[tok];
	char q[SCN_QUOTE_BUF];

	if ((t[0] == '+' || t[0] == '-') && (t[1] == 's' || t[1] == 'S') && t[2] == '\0') {
		P->p_out->s_sync_flag = t[0] == '+';
		return 0;
	}
	return step_err(P, P->p_off[tok], "chattr: expected +s or -s (the sync flag; +S and "
			"-S, e2fsprogs' spelling, are taken too), not '%s'", scn_quote(q, t));
}

/* inject's one operand: the fault's name; --after only with enospc. */
static int step_fault(struct step_parser *P, unsigned tok)
{
	const char *t = P->p_tok[tok];
	char q[SCN_QUOTE_BUF];
	unsigned k = 0;

	while (k < sizeof(fault_names) / sizeof(fault_names[0]) && strcmp(t, fault_names[k]))
		k++;
	if (k == sizeof(fault_names) / sizeof(fault_names[0]))
		return step_err(P, P->p_off[tok], "inject: unknown fault '%s'; the faults: enospc "
				"(--after N), nonda, clear", scn_quote(q, t));
	P->p_out->s_fault = (uint8_t)k;
	if (k != SCN_FAULT_ENOSPC && P->p_out->s_after >= 0)
		return step_err(P, P->p_off[P->p_short_tok], "inject: --after goes with enospc "
				"only");
	return 0;
}

/* The path operand @name at token @tok into @out (scnpath.c's checks). */
static int step_path(struct step_parser *P, unsigned tok, const char *name,
		     char out[SCN_PATH_MAX])
{
	char what[64], msg[SCN_ERR_MAX];
	unsigned col = 0;

	snprintf(what, sizeof(what), "%s: %s", P->p_desc->d_name, name);
	if (scn_parse_path(P->p_tok[tok], what, out, msg, sizeof(msg), &col) < 0)
		return step_err(P, P->p_off[tok] + col, "%s", msg);
	return 0;
}

/* symlink's TARGET at token @tok: any bytes 0x21-0x7e, at most SCN_PATH_MAX - 1 of them. */
static int step_target(struct step_parser *P, unsigned tok)
{
	const char *t = P->p_tok[tok];
	char q[SCN_QUOTE_BUF];
	size_t n = strlen(t);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x21 || (unsigned char)t[i] > 0x7e)
			return step_err(P, P->p_off[tok] + (unsigned)i, "symlink: TARGET '%s': "
					"byte 0x%02x (a target takes the bytes 0x21-0x7e)",
					scn_quote(q, t), (unsigned char)t[i]);
	if (n >= SCN_PATH_MAX)
		return step_err(P, P->p_off[tok], "symlink: TARGET '%s' is too long (%zu bytes, "
				"max %u)", scn_quote(q, t), n, SCN_PATH_MAX - 1);
	memcpy(P->p_out->s_path2, t, n + 1);
	return 0;
}

/*
 * An xattr operand at token @tok, @what "NAME" or "VALUE": bytes 0x21-0x7e,
 * at most @max of them, into @out; a NAME is not empty.
 */
static int step_xattr_word(struct step_parser *P, unsigned tok, const char *what, size_t max,
			   char *out)
{
	const char *t = P->p_tok[tok];
	char q[SCN_QUOTE_BUF];
	size_t n = strlen(t);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x21 || (unsigned char)t[i] > 0x7e)
			return step_err(P, P->p_off[tok] + (unsigned)i, "%s: %s '%s': byte 0x%02x "
					"(an xattr %s takes the bytes 0x21-0x7e)", P->p_desc->d_name,
					what, scn_quote(q, t), (unsigned char)t[i], what);
	if (n > max)
		return step_err(P, P->p_off[tok], "%s: %s '%s' is too long (%zu bytes, max %zu)",
				P->p_desc->d_name, what, scn_quote(q, t), n, max);
	memcpy(out, t, n + 1);
	return 0;
}

/* setxattr PATH NAME [VALUE], removexattr PATH NAME. */
static int step_xattr(struct step_parser *P)
{
	struct scn_step *out = P->p_out;
	const unsigned *a = P->p_arg;

	if (step_path(P, a[0], "PATH", out->s_path) < 0 ||
	    step_xattr_word(P, a[1], "NAME", SCN_XATTR_NAME_MAX, out->s_xattr_name) < 0)
		return -1;
	if (P->p_nr_args < 3)
		return 0;
	return step_xattr_word(P, a[2], "VALUE", SCN_XATTR_VALUE_MAX, out->s_path2);
}

/* The operands of the namespace steps (docs/scenario-format.md, "Namespace steps"). */
static int step_paths(struct step_parser *P)
{
	struct scn_step *out = P->p_out;
	const unsigned *a = P->p_arg;

	switch (P->p_desc->d_args) {
	case ARGS_PATH_OPT:
		if (P->p_nr_args == 0)
			return 0;
		out->s_has_path = true;
		return step_path(P, a[0], "PATH", out->s_path);
	case ARGS_PATHS:
		if (step_path(P, a[0], "OLD", out->s_path) < 0)
			return -1;
		return step_path(P, a[1], "NEW", out->s_path2);
	case ARGS_SYMLINK:
		if (step_target(P, a[0]) < 0)
			return -1;
		return step_path(P, a[1], "PATH", out->s_path);
	case ARGS_XATTR: case ARGS_XATTR_NAME:
		return step_xattr(P);
	default:
		return step_path(P, a[0], "PATH", out->s_path);
	}
}

/* Parse the operands into the step. */
static int step_args(struct step_parser *P)
{
	struct scn_step *out = P->p_out;

	if (step_count_args(P) < 0)
		return -1;
	switch (P->p_desc->d_args) {
	case ARGS_NONE:
		return 0;
	case ARGS_PATH: case ARGS_PATH_OPT: case ARGS_PATHS: case ARGS_SYMLINK:
	case ARGS_XATTR: case ARGS_XATTR_NAME:
		return step_paths(P);
	case ARGS_SIZE:
		return step_num(P, P->p_arg[0], &out->s_len);
	case ARGS_CHATTR:
		return step_chattr(P, P->p_arg[0]);
	case ARGS_FAULT:
		return step_fault(P, P->p_arg[0]);
	default:
		if (P->p_nr_args == 0)
			return 0;      /* writeback, msync without a range */
		out->s_has_range = P->p_desc->d_args == ARGS_RANGE_OPT;
		P->p_len_tok = P->p_arg[1];
		if (step_num(P, P->p_arg[0], &out->s_off) < 0)
			return -1;
		return step_num(P, P->p_arg[1], &out->s_len);
	}
}

/*
 * pwrite's flags that need another: -D and -A are pwritev2(2) flags, which
 * xfs_io passes only to a vectored write (-V N): without -V, xfs_io 6.1 makes
 * a plain pwrite(2) and later versions refuse the command; -R needs -Z N, as
 * xfs_io seeds random(3) from the clock without it.
 */
static int step_check_pwrite(struct step_parser *P)
{
	const struct scn_step *s = P->p_out;

	if ((s->s_dsync || s->s_atomic) && !s->s_vectors)
		return step_err(P, P->p_off[0], "pwrite: -%c is a pwritev2(2) flag, which xfs_io "
				"passes only with -V N (without it xfs_io 6.1 makes a plain "
				"pwrite(2) and later versions refuse the command); add -V 1",
				s->s_dsync ? 'D' : 'A');
	if (s->s_random && s->s_vectors)
		return step_err(P, P->p_off[0], "pwrite: -R with -V is not modelled: xfs_io's "
				"random writes trim their vectors; use -b");
	if (s->s_random && s->s_direct)
		return step_err(P, P->p_off[0], "pwrite: -R with -d is not modelled yet: write "
				"the direct writes as separate steps");
	if (s->s_random && !s->s_zeed)
		return step_err(P, P->p_off[0], "pwrite: -R needs -Z N, a nonzero seed: without "
				"it xfs_io seeds random(3) from the clock, and no run repeats");
	return 0;
}

/* mremap's new size and mread's range: xfs_io's own checks come first. */
static int step_check_mapping(struct step_parser *P)
{
	const struct scn_step *s = P->p_out;

	if (s->s_op == SCN_MREMAP && s->s_len == 0)
		return step_err(P, P->p_off[P->p_arg[0]], "mremap: NEWSIZE must be more than 0");
	return 0;
}

/* Checks across arguments: sync_range's flag, OFF + LEN, --short <= LEN. */
static int step_check(struct step_parser *P)
{
	const struct step_desc *d = P->p_desc;
	struct scn_step *s = P->p_out;

	if (s->s_op == SCN_SYNC_RANGE && !s->s_sr_flag)
		s->s_sr_flag = 'w';     /* io/sync_file_range.c: no flag means -w */
	if (s->s_op == SCN_MMAP && !s->s_prot)
		s->s_prot = 7;          /* no flag: every protection */
	if (s->s_off + s->s_len > SCN_OFFSET_MAX || s->s_src + s->s_len > SCN_OFFSET_MAX)
		return step_err(P, P->p_off[P->p_len_tok ? P->p_len_tok : 0], "%s: OFF + LEN "
				"is beyond 16 TiB", d->d_name);
	if (s->s_short_copy > s->s_len)
		return step_err(P, P->p_off[P->p_short_tok], "%s: --short %lld "
				"is more than LEN %lld", d->d_name,
				(long long)s->s_short_copy, (long long)s->s_len);
	if (s->s_short_copy >= 0 && (s->s_bsize || s->s_vectors || s->s_dsync || s->s_random))
		return step_err(P, P->p_off[P->p_short_tok], "%s: --short is one write(2); "
				"it takes no -b, -V, -D or -R", d->d_name);
	if (s->s_aio && (!s->s_direct || s->s_dsync || s->s_fsync_after || s->s_fdatasync_after))
		return step_err(P, P->p_off[0], "pwrite: --aio is an asynchronous direct write: "
				"it needs -d, and takes no -D, -w or -W (an O_DSYNC AIO completes at "
				"aio_wait; write fsync or fdatasync after it)");
	if (s->s_short_copy >= 0 && s->s_direct)
		return step_err(P, P->p_off[P->p_short_tok], "%s: --short with -d is not "
				"modelled: a direct write's user buffer is pinned before any I/O "
				"(a fault fails the whole write, nothing short)", d->d_name);
	return s->s_op == SCN_PWRITE ? step_check_pwrite(P) : step_check_mapping(P);
}

/* Parse one step line; see scenario.h. */
int scn_parse_step(const char *text, struct scn_step *out, char *err,
		   size_t errlen, unsigned *col_out)
{
	struct step_parser P;

	memset(&P, 0, sizeof(P));
	P.p_out = out;
	P.p_err = err;
	P.p_errlen = errlen;
	P.p_col = col_out;
	memset(out, 0, sizeof(*out));
	out->s_short_copy = -1;
	out->s_after = -1;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (col_out != NULL)
		*col_out = 0;
	if (text == NULL)
		return step_err(&P, 0, "empty step");
	if (step_split(&P, text) < 0 || step_find_op(&P) < 0 || step_scan(&P) < 0 ||
	    step_args(&P) < 0)
		return -1;
	return step_check(&P);
}

int64_t scn_step_bytes(const struct scn_step *st)
{
	int64_t bs = st->s_bsize ? st->s_bsize : 4096;

	switch (st->s_op) {
	case SCN_PWRITE:        /* -R: xfs_io's rounding, at least one buffer */
		return st->s_random ? (st->s_len + st->s_len % bs > bs ?
				       st->s_len + st->s_len % bs : bs) : st->s_len;
	case SCN_MWRITE: case SCN_PREAD: case SCN_DIO_READ: case SCN_MREAD:
		return st->s_len;
	default:
		return 0;
	}
}

int scn_budget_step(const struct scn_step *steps, unsigned nr, int64_t max, int64_t *sum)
{
	*sum = 0;
	for (unsigned i = 0; i < nr; i++) {
		*sum += scn_step_bytes(&steps[i]);
		if (*sum > max)
			return (int)i;
	}
	return -1;
}

void scn_budget_message(char *buf, size_t len, int64_t sum, int64_t max)
{
	snprintf(buf, len, "this step brings the bytes the steps write and read to %lld, "
		 "past the limit of %lld (--max-bytes N raises it, up to %lld)", (long long)sum,
		 (long long)max, (long long)SCN_RUN_BYTES_MAX);
}

/* Is @st a namespace step: one of open..symlink, or fsync/fdatasync of a PATH? */
bool scn_step_is_namespace(const struct scn_step *st)
{
	return (st->s_op >= SCN_OPEN && st->s_op < SCN_OP_COUNT) ||
	       ((st->s_op == SCN_FSYNC || st->s_op == SCN_FDATASYNC) && st->s_has_path);
}

/* The name of inject's fault @fault (enum scn_fault), or "?". */
const char *scn_fault_name(unsigned fault)
{
	return fault < sizeof(fault_names) / sizeof(fault_names[0]) ? fault_names[fault] : "?";
}

/* The step keyword of @op, or "?" if @op is out of range. */
const char *scn_op_name(enum scn_op op)
{
	if ((unsigned)op >= SCN_OP_COUNT)
		return "?";
	return step_descs[op].d_name;
}
