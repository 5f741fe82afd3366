/*
 * gexpr.c - the explore grammar's step templates: expressions over BS and
 * PAGE, and a template line expanded for one block size (see gexpr.h).
 *
 * The evaluator is recursive descent over
 *   expr   := term (('+' | '-') term)*
 *   term   := factor (('*' | '/') factor)*
 *   factor := NUMBER | 'BS' | 'PAGE' | '(' expr ')'
 * with the first error recorded (message and offset) and every value
 * range-checked before the operation that could overflow.
 */
#include "gexpr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"

struct gx {
	const char *s;
	size_t len;
	size_t pos;
	int64_t bs, page;
	unsigned depth;
	bool failed;
	char *err;
	size_t errlen;
	unsigned col;
};

static int gx_fail(struct gx *g, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first error, at offset @at of the expression.  Returns -1. */
static int gx_fail(struct gx *g, size_t at, const char *fmt, ...)
{
	va_list ap;

	if (g->failed)
		return -1;
	g->failed = true;
	g->col = (unsigned)at;
	va_start(ap, fmt);
	vsnprintf(g->err, g->errlen, fmt, ap);
	va_end(ap);
	scn_clean_message(g->err);
	return -1;
}

static bool gx_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Is @v within +-SCN_OFFSET_MAX? */
static bool gx_in_range(int64_t v)
{
	return v <= SCN_OFFSET_MAX && v >= -SCN_OFFSET_MAX;
}

static int gx_expr(struct gx *g, int64_t *out);

/* A number (xfs_io syntax) or a name, at g->pos. */
static int gx_atom(struct gx *g, int64_t *out)
{
	size_t start = g->pos, n;
	char word[GX_TOKEN_MAX + 1];

	while (g->pos < g->len && gx_alnum(g->s[g->pos]))
		g->pos++;
	n = g->pos - start;
	if (n == 0 && g->pos < g->len)
		return gx_fail(g, start, "unexpected '%c' in expression", g->s[g->pos]);
	if (n == 0)
		return gx_fail(g, start, "expression ends early");
	SIM_ASSERT(n <= GX_TOKEN_MAX);
	memcpy(word, g->s + start, n);
	word[n] = '\0';
	if (strcmp(word, "BS") == 0 || strcmp(word, "PAGE") == 0) {
		*out = word[0] == 'B' ? g->bs : g->page;
		return 0;
	}
	if (word[0] < '0' || word[0] > '9')
		return gx_fail(g, start, "unknown name '%s' (BS and PAGE are known)", word);
	if (scn_parse_num(word, out) < 0)
		return gx_fail(g, start, "'%s' is not a number (a product is written 3*BS)", word);
	return 0;
}

/* A factor: an atom or a parenthesised expression. */
static int gx_factor(struct gx *g, int64_t *out)
{
	size_t open = g->pos;

	if (g->pos >= g->len || g->s[g->pos] != '(')
		return gx_atom(g, out);
	if (++g->depth > GX_DEPTH_MAX)
		return gx_fail(g, open, "parentheses nested deeper than %d", GX_DEPTH_MAX);
	g->pos++;
	if (gx_expr(g, out) < 0)
		return -1;
	if (g->pos >= g->len || g->s[g->pos] != ')')
		return gx_fail(g, open, "'(' without its ')'");
	g->pos++;
	g->depth--;
	return 0;
}

/* @a * @b or @a / @b (exact) into *@a, range-checked; @at: the operator. */
static int gx_mul(struct gx *g, int64_t *a, int64_t b, char op, size_t at)
{
	int64_t ma = *a < 0 ? -*a : *a, mb = b < 0 ? -b : b;

	if (op == '*') {
		if (mb != 0 && ma > SCN_OFFSET_MAX / mb)
			return gx_fail(g, at, "value out of range (above %lld)",
				       (long long)SCN_OFFSET_MAX);
		*a *= b;
		return 0;
	}
	if (b == 0)
		return gx_fail(g, at, "division by zero");
	if (*a % b != 0)
		return gx_fail(g, at, "%lld/%lld is not a whole number", (long long)*a,
			       (long long)b);
	*a /= b;
	return 0;
}

static int gx_term(struct gx *g, int64_t *out)
{
	int64_t b;

	if (gx_factor(g, out) < 0)
		return -1;
	while (g->pos < g->len && (g->s[g->pos] == '*' || g->s[g->pos] == '/')) {
		size_t at = g->pos++;

		if (gx_factor(g, &b) < 0 || gx_mul(g, out, b, g->s[at], at) < 0)
			return -1;
	}
	return 0;
}

static int gx_expr(struct gx *g, int64_t *out)
{
	int64_t b;

	if (gx_term(g, out) < 0)
		return -1;
	while (g->pos < g->len && (g->s[g->pos] == '+' || g->s[g->pos] == '-')) {
		size_t at = g->pos++;

		if (gx_term(g, &b) < 0)
			return -1;
		*out = g->s[at] == '+' ? *out + b : *out - b;   /* both within 2^44 */
		if (!gx_in_range(*out))
			return gx_fail(g, at, "value out of range (above %lld)",
				       (long long)SCN_OFFSET_MAX);
	}
	return 0;
}

int gx_eval(const char *s, size_t len, int64_t bs, int64_t page, int64_t *out, char *err,
	    size_t errlen, unsigned *col)
{
	struct gx g = { .s = s, .len = len, .bs = bs, .page = page, .err = err,
			.errlen = errlen };
	int64_t v = 0;

	SIM_ASSERT(s != NULL && out != NULL && err != NULL && errlen > 0 && col != NULL);
	SIM_ASSERT(bs > 0 && page > 0 && gx_in_range(bs) && gx_in_range(page));
	if (len == 0)
		gx_fail(&g, 0, "empty expression");
	else if (len > GX_TOKEN_MAX)
		gx_fail(&g, 0, "expression longer than %d bytes", GX_TOKEN_MAX);
	else if (gx_expr(&g, &v) == 0 && g.pos < len)
		gx_fail(&g, g.pos, g.s[g.pos] == ')' ? "')' without its '('" :
			"unexpected '%c' in expression", g.s[g.pos]);
	if (!g.failed && v < 0)
		gx_fail(&g, 0, "negative value (%lld)", (long long)v);
	if (g.failed) {
		*col = g.col;
		return -1;
	}
	*out = v;
	return 0;
}

bool gx_is_expr(const char *tok, size_t len)
{
	if (len > 0 && (tok[0] == '-' || tok[0] == '+'))
		return false;           /* an option or a chattr flag */
	for (size_t i = 0; i < len; i++) {
		char c = tok[i];

		if (c == '*' || c == '/' || c == '(' || c == ')' ||
		    (i > 0 && (c == '+' || c == '-')))
			return true;
		if (i + 1 < len && c == 'B' && tok[i + 1] == 'S')
			return true;
		if (i + 3 < len && memcmp(tok + i, "PAGE", 4) == 0)
			return true;
	}
	return false;
}

/* Append @n bytes of @src (and a space before, unless first) to @out at *@used. */
static bool gx_append(char *out, size_t *used, const char *src, size_t n)
{
	size_t need = n + (*used ? 1 : 0);

	if (*used + need >= SCN_STEP_TEXT_MAX)
		return false;
	if (*used)
		out[(*used)++] = ' ';
	memcpy(out + *used, src, n);
	*used += n;
	out[*used] = '\0';
	return true;
}

/* The steps whose operands are paths, names and values (namespace steps): kept as written. */
static const char *const path_steps[] = {
	"open", "creat", "mkdir", "rmdir", "link", "unlink", "rename", "symlink", "fsync",
	"fdatasync", "setxattr", "removexattr"
};

bool gx_path_step(const char *tmpl)
{
	size_t i = 0, n;

	while (tmpl[i] == ' ' || tmpl[i] == '\t')
		i++;
	n = strcspn(tmpl + i, " \t");
	for (size_t k = 0; k < sizeof(path_steps) / sizeof(path_steps[0]); k++)
		if (strlen(path_steps[k]) == n && memcmp(tmpl + i, path_steps[k], n) == 0)
			return true;
	return false;
}

int gx_expand(const char *tmpl, int64_t bs, int64_t page, char out[SCN_STEP_TEXT_MAX],
	      char *err, size_t errlen, unsigned *col)
{
	size_t used = 0, i = 0;
	bool verbatim = gx_path_step(tmpl);

	out[0] = '\0';
	while (tmpl[i]) {
		size_t start, n;
		char num[32];
		int64_t v;

		while (tmpl[i] == ' ' || tmpl[i] == '\t')
			i++;
		start = i;
		while (tmpl[i] && tmpl[i] != ' ' && tmpl[i] != '\t')
			i++;
		if ((n = i - start) == 0)
			break;
		if (!verbatim && gx_is_expr(tmpl + start, n)) {
			if (gx_eval(tmpl + start, n, bs, page, &v, err, errlen, col) < 0) {
				*col += (unsigned)start;
				return -1;
			}
			snprintf(num, sizeof(num), "%lld", (long long)v);
			if (!gx_append(out, &used, num, strlen(num)))
				goto too_long;
		} else if (!gx_append(out, &used, tmpl + start, n)) {
			goto too_long;
		}
	}
	return 0;
too_long:
	snprintf(err, errlen, "the expanded step is longer than %d bytes", SCN_STEP_TEXT_MAX - 1);
	*col = 0;
	return -1;
}

/* Start of token number @k (0-based) of @s, and its length in *@n; -1 if none. */
static long gx_token(const char *s, unsigned k, size_t *n)
{
	size_t i = 0, start;

	for (;;) {
		while (s[i] == ' ' || s[i] == '\t')
			i++;
		if (!s[i])
			return -1;
		start = i;
		while (s[i] && s[i] != ' ' && s[i] != '\t')
			i++;
		if (k-- == 0) {
			*n = i - start;
			return (long)start;
		}
	}
}

unsigned gx_source_col(const char *tmpl, const char *out, unsigned off)
{
	unsigned k = 0;
	size_t n, tn;
	long ts, os;

	for (unsigned i = 0; i < off && out[i]; i++)
		if (out[i] == ' ' && out[i + 1] != ' ')
			k++;
	os = gx_token(out, k, &n);
	ts = gx_token(tmpl, k, &tn);
	if (ts < 0)
		return (unsigned)strlen(tmpl);
	if (os < 0 || (!gx_path_step(tmpl) && gx_is_expr(tmpl + ts, tn)) || off < (unsigned)os)
		return (unsigned)ts;
	return (unsigned)ts + SIM_MIN((unsigned)(off - os), (unsigned)tn);
}
