/*
 * step.c - one step line in xfs_io syntax -> struct scn_step (the contract's
 * section 4), and xfs_io's number syntax.  Used by the scenario loader for
 * every `steps:` entry and by `ext4sim run -c`.
 *
 * scn_parse_num() is xfs_io's cvtnum restricted to decimal, 0x hex and
 * k/m/g/t suffixes (1024-based); a leading zero ("010") is rejected rather
 * than guessed, as xfs_io would read it as octal.  scn_parse_step() checks
 * the step's name, options (before the first operand, each at most once) and
 * operands, and reports the byte offset of the first bad token.  Whether a
 * step makes sense for the file's state is the model's business, not this
 * file's.
 */
#include "scenario.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_TOK_MAX 8           /* tokens in one step line */

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* ------------------------------------------------------------------ */
/* Numbers                                                            */
/* ------------------------------------------------------------------ */

/* Value of digit @c in bases up to 16, or 16 if it is not one. */
static unsigned num_digit(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a') + 10;
	if (c >= 'A' && c <= 'F')
		return (unsigned)(c - 'A') + 10;
	return 16;
}

/* Shift of a k/m/g/t suffix (any case), or 0 if @c is not one. */
static unsigned num_shift(char c)
{
	switch (c) {
	case 'k': case 'K':
		return 10;
	case 'm': case 'M':
		return 20;
	case 'g': case 'G':
		return 30;
	case 't': case 'T':
		return 40;
	default:
		return 0;
	}
}

/* Parse an xfs_io number.  Returns 0, -EINVAL (not a number: empty, sign,
 * trailing garbage, leading zero) or -ERANGE (above SCN_OFFSET_MAX). */
int scn_parse_num(const char *s, int64_t *out)
{
	unsigned base = 10;
	unsigned nr_digits = 0;
	unsigned shift;
	uint64_t v = 0;
	bool big = false;

	if (s == NULL || out == NULL)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && num_digit(s[1]) < 10) {
		return -EINVAL;    /* xfs_io would read octal */
	}
	for (; num_digit(*s) < base; s++, nr_digits++) {
		v = v * base + num_digit(*s);
		if (v > (uint64_t)SCN_OFFSET_MAX) {
			big = true;
			v = (uint64_t)SCN_OFFSET_MAX + 1;
		}
	}
	shift = num_shift(*s);
	if (shift != 0)
		s++;
	if (nr_digits == 0 || *s != '\0')
		return -EINVAL;
	if (big || v > ((uint64_t)SCN_OFFSET_MAX >> shift))
		return -ERANGE;
	*out = (int64_t)(v << shift);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Steps                                                              */
/* ------------------------------------------------------------------ */

enum step_opt {
	OPT_FILL = 1u << 0,      /* -S B */
	OPT_SHORT = 1u << 1,     /* --short N */
	OPT_VERBOSE = 1u << 2,   /* -v */
	OPT_KEEP = 1u << 3,      /* -k */
	OPT_SR = 1u << 4,        /* -w | -a | -b */
	OPT_PERSIST = 1u << 5,   /* --keep none|N[,N...] (crash, shutdown) */
};

enum step_args {
	ARGS_NONE,               /* no arguments */
	ARGS_RANGE,              /* OFF LEN */
	ARGS_SIZE,               /* SIZE */
	ARGS_RANGE_OPT,          /* [OFF LEN] */
	ARGS_CHATTR,             /* +S | -S */
};

struct step_desc {
	const char *d_name;
	const char *d_usage;
	unsigned d_opts;         /* enum step_opt bits accepted */
	enum step_args d_args;
	uint8_t d_fill;          /* default -S byte */
};

static const struct step_desc step_descs[SCN_OP_COUNT] = {
	[SCN_PWRITE] = { "pwrite", "pwrite [-S B] [--short N] OFF LEN",
			 OPT_FILL | OPT_SHORT, ARGS_RANGE, 0xcd },
	[SCN_PREAD] = { "pread", "pread [-v] OFF LEN", OPT_VERBOSE,
			ARGS_RANGE, 0 },
	[SCN_TRUNCATE] = { "truncate", "truncate SIZE", 0, ARGS_SIZE, 0 },
	[SCN_FALLOC] = { "falloc", "falloc [-k] OFF LEN", OPT_KEEP,
			 ARGS_RANGE, 0 },
	[SCN_FZERO] = { "fzero", "fzero [-k] OFF LEN", OPT_KEEP, ARGS_RANGE, 0 },
	[SCN_FPUNCH] = { "fpunch", "fpunch OFF LEN", 0, ARGS_RANGE, 0 },
	[SCN_FCOLLAPSE] = { "fcollapse", "fcollapse OFF LEN", 0, ARGS_RANGE, 0 },
	[SCN_FINSERT] = { "finsert", "finsert OFF LEN", 0, ARGS_RANGE, 0 },
	[SCN_MWRITE] = { "mwrite", "mwrite [-S B] OFF LEN", OPT_FILL,
			 ARGS_RANGE, 0x58 },
	[SCN_FSYNC] = { "fsync", "fsync", 0, ARGS_NONE, 0 },
	[SCN_FDATASYNC] = { "fdatasync", "fdatasync", 0, ARGS_NONE, 0 },
	[SCN_SYNC_RANGE] = { "sync_range", "sync_range -w|-a|-b OFF LEN",
			     OPT_SR, ARGS_RANGE, 0 },
	[SCN_SYNC] = { "sync", "sync", 0, ARGS_NONE, 0 },
	[SCN_CHATTR] = { "chattr", "chattr +S|-S", 0, ARGS_CHATTR, 0 },
	[SCN_CLOSE] = { "close", "close", 0, ARGS_NONE, 0 },
	[SCN_SHUTDOWN] = { "shutdown", "shutdown [--keep none|N[,N...]]", OPT_PERSIST,
			   ARGS_NONE, 0 },
	[SCN_WRITEBACK] = { "writeback", "writeback [OFF LEN]", 0,
			    ARGS_RANGE_OPT, 0 },
	[SCN_COMMIT] = { "commit", "commit", 0, ARGS_NONE, 0 },
	[SCN_CHECKPOINT] = { "checkpoint", "checkpoint", 0, ARGS_NONE, 0 },
	[SCN_CRASH] = { "crash", "crash [--keep none|N[,N...]]", OPT_PERSIST, ARGS_NONE, 0 },
	[SCN_REMOUNT] = { "remount", "remount", 0, ARGS_NONE, 0 },
	[SCN_EVICT] = { "evict", "evict", 0, ARGS_NONE, 0 },
	[SCN_DIO_READ] = { "dio_read", "dio_read [-v] OFF LEN", OPT_VERBOSE, ARGS_RANGE, 0 },
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
	unsigned p_seen;                  /* enum step_opt bits given */
	unsigned p_short_tok;             /* token index of --short's value */
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

/* Look up the keyword (token 0); set the step's op and default fill. */
static int step_find_op(struct step_parser *P)
{
	const struct step_desc *d;
	char q[SCN_QUOTE_BUF];
	unsigned op;

	for (op = 0; op < SCN_OP_COUNT; op++)
		if (strcmp(P->p_tok[0], step_descs[op].d_name) == 0)
			break;
	if (op == SCN_OP_COUNT)
		return step_err(P, P->p_off[0], "unknown step '%s'",
				scn_quote(q, P->p_tok[0]));
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
static bool step_is_option(const char *t)
{
	return t[0] == '-' && t[1] != '\0' && num_digit(t[1]) >= 10;
}

/* The enum step_opt bit of option token @t, or 0 if unknown. */
static unsigned step_opt_bit(const char *t)
{
	if (strcmp(t, "-S") == 0)
		return OPT_FILL;
	if (strcmp(t, "--short") == 0)
		return OPT_SHORT;
	if (strcmp(t, "-v") == 0)
		return OPT_VERBOSE;
	if (strcmp(t, "-k") == 0)
		return OPT_KEEP;
	if (strcmp(t, "-w") == 0 || strcmp(t, "-a") == 0 || strcmp(t, "-b") == 0)
		return OPT_SR;
	if (strcmp(t, "--keep") == 0)
		return OPT_PERSIST;
	return 0;
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

/* Why scn_parse_num() returned @rc for token @t, for a message. */
static const char *num_problem(const char *t, int rc)
{
	if (t[0] == '-')
		return "is negative";
	if (rc == -ERANGE)
		return "is too large (max 16 TiB)";
	if (t[0] == '0' && num_digit(t[1]) < 10)
		return "has a leading zero (xfs_io would read it as octal)";
	return "is not a number";
}

/* Parse token @idx as a number into @out. */
static int step_num(struct step_parser *P, unsigned idx, int64_t *out)
{
	char q[SCN_QUOTE_BUF];
	int rc = scn_parse_num(P->p_tok[idx], out);

	if (rc == 0)
		return 0;
	return step_err(P, P->p_off[idx], "%s: '%s' %s", P->p_desc->d_name,
			scn_quote(q, P->p_tok[idx]), num_problem(P->p_tok[idx], rc));
}

/* The value of option -S or --short, at token *@i; advances *@i. */
static int step_option_value(struct step_parser *P, unsigned opt,
			     const char *name, unsigned *i)
{
	const struct step_desc *d = P->p_desc;
	int64_t v;

	if (*i >= P->p_nr)
		return step_err(P, P->p_end, "%s: option '%s' needs a value; "
				"usage: %s", d->d_name, name, d->d_usage);
	if (step_num(P, *i, &v) < 0)
		return -1;
	if (opt == OPT_FILL) {
		if (v > 255)
			return step_err(P, P->p_off[*i], "%s: fill byte '%s' is "
					"out of range (0..255)", d->d_name,
					P->p_tok[*i]);
		P->p_out->s_fill = (uint8_t)v;
	} else {
		P->p_out->s_short_copy = v;
		P->p_short_tok = *i;
	}
	(*i)++;
	return 0;
}

/* One option at token *@i (and its value); advances *@i past them. */
static int step_option(struct step_parser *P, unsigned *i)
{
	const struct step_desc *d = P->p_desc;
	const char *t = P->p_tok[*i];
	unsigned off = P->p_off[*i];
	unsigned opt = step_opt_bit(t);
	char q[SCN_QUOTE_BUF];

	if (!(opt & d->d_opts))
		return step_err(P, off, "%s: unknown option '%s'; usage: %s",
				d->d_name, scn_quote(q, t), d->d_usage);
	if ((P->p_seen & opt) && opt == OPT_SR)
		return step_err(P, off, "%s: give exactly one of -w, -a, -b",
				d->d_name);
	if (P->p_seen & opt)
		return step_err(P, off, "%s: option '%s' given twice",
				d->d_name, t);
	P->p_seen |= opt;
	(*i)++;
	if (opt == OPT_PERSIST) {
		if (*i >= P->p_nr)
			return step_err(P, P->p_end, "%s: option '--keep' needs a value; "
					"usage: %s", d->d_name, d->d_usage);
		return step_persist_list(P, (*i)++);
	}
	if (opt == OPT_VERBOSE)
		P->p_out->s_verbose = true;
	else if (opt == OPT_KEEP)
		P->p_out->s_keep_size = true;
	else if (opt == OPT_SR)
		P->p_out->s_sr_flag = t[1];
	else
		return step_option_value(P, opt, t, i);
	return 0;
}

/* Name of the first missing argument when @have were given. */
static const char *step_arg_name(const struct step_desc *d, unsigned have)
{
	switch (d->d_args) {
	case ARGS_SIZE:
		return "SIZE";
	case ARGS_CHATTR:
		return "+S or -S";
	default:
		return have == 0 ? "OFF" : "LEN";
	}
}

/* Check the number of arguments from token @first on, and that no option
 * follows them. */
static int step_count_args(struct step_parser *P, unsigned first)
{
	const struct step_desc *d = P->p_desc;
	unsigned have = P->p_nr - first;
	unsigned want = 1;
	unsigned i;

	if (d->d_args == ARGS_NONE || (d->d_args == ARGS_RANGE_OPT && have == 0))
		want = 0;
	else if (d->d_args == ARGS_RANGE || d->d_args == ARGS_RANGE_OPT)
		want = 2;
	for (i = first; i < P->p_nr && d->d_args != ARGS_CHATTR; i++)
		if (step_is_option(P->p_tok[i]))
			return step_err(P, P->p_off[i], "%s: options must come "
					"before the arguments; usage: %s",
					d->d_name, d->d_usage);
	if (have < want)
		return step_err(P, P->p_end, "%s: missing %s; usage: %s",
				d->d_name, step_arg_name(d, have), d->d_usage);
	if (have > want)
		return step_err(P, P->p_off[first + want], "%s: too many "
				"arguments; usage: %s", d->d_name, d->d_usage);
	return 0;
}

/* Parse the arguments from token @first on into the step. */
static int step_args(struct step_parser *P, unsigned first)
{
	struct scn_step *out = P->p_out;
	const char *t = P->p_tok[first];
	char q[SCN_QUOTE_BUF];

	if (step_count_args(P, first) < 0)
		return -1;
	switch (P->p_desc->d_args) {
	case ARGS_NONE:
		return 0;
	case ARGS_SIZE:
		return step_num(P, first, &out->s_len);
	case ARGS_CHATTR:
		if (strcmp(t, "+S") != 0 && strcmp(t, "-S") != 0)
			return step_err(P, P->p_off[first], "chattr: expected "
					"+S or -S, not '%s'", scn_quote(q, t));
		out->s_sync_flag = t[0] == '+';
		return 0;
	default:
		if (first == P->p_nr)
			return 0;      /* writeback without a range */
		out->s_has_range = P->p_desc->d_args == ARGS_RANGE_OPT;
		if (step_num(P, first, &out->s_off) < 0)
			return -1;
		return step_num(P, first + 1, &out->s_len);
	}
}

/* Checks across arguments: sync_range's flag, OFF + LEN, --short <= LEN. */
static int step_check(struct step_parser *P, unsigned first)
{
	const struct step_desc *d = P->p_desc;
	const struct scn_step *s = P->p_out;

	if ((d->d_opts & OPT_SR) && !(P->p_seen & OPT_SR))
		return step_err(P, P->p_off[0], "%s: needs one of -w, -a, -b; "
				"usage: %s", d->d_name, d->d_usage);
	if (s->s_off + s->s_len > SCN_OFFSET_MAX)
		return step_err(P, P->p_off[first + 1], "%s: OFF + LEN is "
				"beyond 16 TiB", d->d_name);
	if (s->s_short_copy > s->s_len)
		return step_err(P, P->p_off[P->p_short_tok], "%s: --short %lld "
				"is more than LEN %lld", d->d_name,
				(long long)s->s_short_copy, (long long)s->s_len);
	return 0;
}

/* Parse one step line; see scenario.h. */
int scn_parse_step(const char *text, struct scn_step *out, char *err,
		   size_t errlen, unsigned *col_out)
{
	struct step_parser P;
	unsigned first = 1;

	memset(&P, 0, sizeof(P));
	P.p_out = out;
	P.p_err = err;
	P.p_errlen = errlen;
	P.p_col = col_out;
	memset(out, 0, sizeof(*out));
	out->s_short_copy = -1;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (col_out != NULL)
		*col_out = 0;
	if (text == NULL)
		return step_err(&P, 0, "empty step");
	if (step_split(&P, text) < 0 || step_find_op(&P) < 0)
		return -1;
	while (P.p_desc->d_args != ARGS_CHATTR && first < P.p_nr &&
	       step_is_option(P.p_tok[first]))
		if (step_option(&P, &first) < 0)
			return -1;
	if (step_args(&P, first) < 0)
		return -1;
	return step_check(&P, first);
}

int64_t scn_step_bytes(const struct scn_step *st)
{
	switch (st->s_op) {
	case SCN_PWRITE: case SCN_MWRITE: case SCN_PREAD: case SCN_DIO_READ:
		return st->s_len;
	default:
		return 0;
	}
}

/* The step keyword of @op, or "?" if @op is out of range. */
const char *scn_op_name(enum scn_op op)
{
	if ((unsigned)op >= SCN_OP_COUNT)
		return "?";
	return step_descs[op].d_name;
}
