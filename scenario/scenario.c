/*
 * scenario.c - load a scenario file; parse xfs_io-style step lines.
 *
 * scn_load() reads one YAML file (at most SCN_FILE_BYTES_MAX bytes, checked
 * before any parsing) and runs libyaml's event parser over it twice:
 *
 *   pass 1 (ldr_scan)    the stream's shape only: YAML syntax, UTF-8, exactly
 *                        one non-empty document, nesting depth, and no
 *                        anchors, aliases, explicit tags or NUL bytes.  It is
 *                        a flat yaml_parser_parse() loop, so a hostile file
 *                        (deep nesting, alias bombs) is rejected early and
 *                        cheaply, wherever in the file the problem lies.
 *   pass 2 (ldr_schema)  the schema, on a stream now known to be well formed:
 *                        a small pull parser with one function per schema
 *                        node (top mapping, config, patches, steps, variants,
 *                        expect); each consumes exactly the events of its
 *                        value.  Checks that span keys (required keys,
 *                        expect: naming a variant, data=journal against
 *                        delalloc) run when their mapping ends.
 *
 * The first error wins and is written as "PATH:LINE:COL: message", 1-based
 * (libyaml's marks are 0-based).  The loader keeps no state outside its
 * struct ldr and frees the parser, the current event and the file buffer on
 * every path; scn_free() releases the step array.
 *
 * The step lines themselves are parsed in step.c.
 *
 * Not checked here: whether kernel profiles and patch names exist (the
 * profile code does that), and whether a step makes sense for the file's
 * state (the model answers with an errno, as the kernel does).  A number
 * with a leading zero ("010") is rejected rather than guessed: xfs_io reads
 * it as octal.  Step error columns are exact for plain and simple quoted
 * scalars on one line; inside a quoted scalar with escapes they may drift,
 * and for a multi-line scalar they point at the scalar's start.
 */
#include "scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "ldr.h"

#define STEPS_CAP_MIN 16u        /* first allocation of the step array */

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* ------------------------------------------------------------------ */
/* Messages                                                           */
/* ------------------------------------------------------------------ */

/* Format "PATH:LINE:COL: message" from 0-based @line0/@col0 unless an error
 * was already recorded (the first one wins).  Always returns -1. */
static int ldr_verr(struct ldr *L, size_t line0, size_t col0, const char *fmt,
		    va_list ap)
{
	int n;

	if (L->l_failed)
		return -1;
	L->l_failed = true;
	if (L->l_err == NULL || L->l_errlen == 0)
		return -1;
	n = snprintf(L->l_err, L->l_errlen, "%s:%zu:%zu: ", L->l_path,
		     line0 + 1, col0 + 1);
	if (n < 0 || (size_t)n >= L->l_errlen)
		return -1;
	vsnprintf(L->l_err + n, L->l_errlen - (size_t)n, fmt, ap);
	scn_clean_message(L->l_err);
	return -1;
}

void scn_clean_message(char *msg)
{
	for (; *msg; msg++)
		if ((unsigned char)*msg < 0x20 || *msg == 0x7f)
			*msg = '?';
}

/* Record an error at 0-based @line0/@col0.  Returns -1. */
PRINTF_LIKE(4, 5)
int ldr_err_at(struct ldr *L, size_t line0, size_t col0,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ldr_verr(L, line0, col0, fmt, ap);
	va_end(ap);
	return -1;
}

/* Record an error at @mark.  Returns -1. */
PRINTF_LIKE(3, 4)
int ldr_err_mark(struct ldr *L, const yaml_mark_t *mark,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ldr_verr(L, mark->line, mark->column, fmt, ap);
	va_end(ap);
	return -1;
}

/* Record an error at the current event's start.  Returns -1. */
PRINTF_LIKE(2, 3)
int ldr_err_ev(struct ldr *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ldr_verr(L, L->l_ev.start_mark.line, L->l_ev.start_mark.column, fmt,
		 ap);
	va_end(ap);
	return -1;
}

/* Copy user text @src into @dst for a message: at most SCN_QUOTE_MAX bytes,
 * cut on a UTF-8 boundary and marked "...", control bytes shown as '?'. */
const char *scn_quote(char dst[SCN_QUOTE_BUF], const char *src)
{
	size_t n = 0;
	size_t i;
	bool cut;

	while (src[n] != '\0' && n < SCN_QUOTE_MAX)
		n++;
	cut = src[n] != '\0';
	while (cut && n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
		n--;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	strcpy(dst + n, cut ? "..." : "");
	return dst;
}

/* Words for the kind of node an event starts, for "must be X, not Y". */
const char *ldr_kind(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.length == 0 &&
		    ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return "an empty value";
		return "a scalar";
	case YAML_SEQUENCE_START_EVENT:
		return "a sequence";
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	default:
		return "the end of a collection";
	}
}

/* ------------------------------------------------------------------ */
/* Events: the stream-wide rules                                      */
/* ------------------------------------------------------------------ */

/* Report a libyaml reader error (bad UTF-8, control characters): its mark
 * is not set, so the line and column come from the byte offset. */
static int ldr_reader_err(struct ldr *L)
{
	const yaml_parser_t *p = &L->l_parser;
	size_t off = p->problem_offset < L->l_len ? p->problem_offset : L->l_len;
	size_t line = 0;
	size_t col = 0;
	size_t i;

	for (i = 0; i < off; i++) {
		if (L->l_buf[i] == '\n') {
			line++;
			col = 0;
		} else if ((L->l_buf[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	if (p->problem_value >= 0)
		return ldr_err_at(L, line, col, "invalid input: %s (0x%02x)",
				  p->problem, (unsigned)p->problem_value);
	return ldr_err_at(L, line, col, "invalid input: %s", p->problem);
}

/* Report why yaml_parser_parse() failed.  Returns -1. */
static int ldr_syntax_err(struct ldr *L)
{
	const yaml_parser_t *p = &L->l_parser;
	const char *problem = p->problem ? p->problem : "unknown problem";

	if (p->error == YAML_MEMORY_ERROR)
		return ldr_err_at(L, 0, 0, "out of memory");
	if (p->error == YAML_READER_ERROR)
		return ldr_reader_err(L);
	if (p->context == NULL)
		return ldr_err_mark(L, &p->problem_mark, "syntax error: %s",
				    problem);
	return ldr_err_mark(L, &p->problem_mark,
			    "syntax error: %s (%s at %zu:%zu)", problem,
			    p->context, p->context_mark.line + 1,
			    p->context_mark.column + 1);
}

/* Reject an anchor or tag on the current node event. */
static int ldr_check_props(struct ldr *L, const yaml_char_t *anchor,
			   const yaml_char_t *tag)
{
	char q[SCN_QUOTE_BUF];

	if (anchor != NULL)
		return ldr_err_ev(L, "anchors are not allowed ('&%s')",
				  scn_quote(q, (const char *)anchor));
	if (tag != NULL)
		return ldr_err_ev(L, "explicit tags are not allowed ('%s')",
				  scn_quote(q, (const char *)tag));
	return 0;
}

/* Apply the stream-wide rules to the current event and track depth. */
static int ldr_check_event(struct ldr *L)
{
	const yaml_event_t *ev = &L->l_ev;
	char q[SCN_QUOTE_BUF];

	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return ldr_err_ev(L, "aliases are not allowed ('*%s')",
				  scn_quote(q, (const char *)ev->data.alias.anchor));
	case YAML_SCALAR_EVENT:
		if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
			return ldr_err_ev(L, "scalar contains a NUL byte");
		return ldr_check_props(L, ev->data.scalar.anchor,
				       ev->data.scalar.tag);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (++L->l_depth > SCN_DEPTH_MAX)
			return ldr_err_ev(L, "nesting deeper than %d levels",
					  SCN_DEPTH_MAX);
		if (ev->type == YAML_SEQUENCE_START_EVENT)
			return ldr_check_props(L, ev->data.sequence_start.anchor,
					       ev->data.sequence_start.tag);
		return ldr_check_props(L, ev->data.mapping_start.anchor,
				       ev->data.mapping_start.tag);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		L->l_depth--;
		return 0;
	default:
		return 0;
	}
}

/* Free the current event (if any), parse the next one and apply the
 * stream-wide rules.  Returns 0, or -1 with the error recorded. */
int ldr_next(struct ldr *L)
{
	if (L->l_has_ev) {
		yaml_event_delete(&L->l_ev);
		L->l_has_ev = false;
	}
	if (!yaml_parser_parse(&L->l_parser, &L->l_ev))
		return ldr_syntax_err(L);
	L->l_has_ev = true;
	return ldr_check_event(L);
}

/* Run @pass with a fresh parser over the file's bytes; frees the parser and
 * the last event whatever @pass returns. */
int ldr_pass(struct ldr *L, int (*pass)(struct ldr *L))
{
	int rc;

	if (!yaml_parser_initialize(&L->l_parser))
		return ldr_err_at(L, 0, 0, "out of memory");
	yaml_parser_set_input_string(&L->l_parser, L->l_buf, L->l_len);
	L->l_depth = 0;
	rc = pass(L);
	if (L->l_has_ev) {
		yaml_event_delete(&L->l_ev);
		L->l_has_ev = false;
	}
	yaml_parser_delete(&L->l_parser);
	return rc;
}

/* Pass 1: read every event; exactly one document. */
int ldr_scan(struct ldr *L)
{
	unsigned nr_docs = 0;

	for (;;) {
		if (ldr_next(L) < 0)
			return -1;
		switch (L->l_ev.type) {
		case YAML_DOCUMENT_START_EVENT:
			if (++nr_docs > 1)
				return ldr_err_ev(L, "more than one document "
						  "(%s is one YAML document)", L->l_what);
			break;
		case YAML_STREAM_END_EVENT:
			if (nr_docs == 0)
				return ldr_err_ev(L, "empty document");
			return 0;
		default:
			break;
		}
	}
}

/*
 * Open @path for reading without waiting for a writer: a FIFO with none
 * reads as empty (O_NONBLOCK for the open only), so nothing hangs.
 */
FILE *scn_open_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY), fl;
	FILE *f;

	if (fd < 0)
		return NULL;
	if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ||
	    !(f = fdopen(fd, "rb"))) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	return f;
}

/* Read the file into L->l_buf, refusing files above SCN_FILE_BYTES_MAX
 * and UTF-16 (libyaml would accept it; the format is UTF-8, BOM allowed). */
int ldr_read_file(struct ldr *L)
{
	FILE *f = scn_open_read(L->l_path);
	struct stat st;
	size_t n;
	int e;

	if (f == NULL)
		return ldr_err_at(L, 0, 0, "cannot open: %s", strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > (off_t)SCN_FILE_BYTES_MAX) {
		fclose(f);
		return ldr_err_at(L, 0, 0, "file too large (%lld bytes, max %u)",
				  (long long)st.st_size, SCN_FILE_BYTES_MAX);
	}
	L->l_buf = malloc(SCN_FILE_BYTES_MAX + 1);
	if (L->l_buf == NULL) {
		fclose(f);
		return ldr_err_at(L, 0, 0, "out of memory");
	}
	n = fread(L->l_buf, 1, SCN_FILE_BYTES_MAX + 1, f);
	e = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
	fclose(f);
	if (e != 0)
		return ldr_err_at(L, 0, 0, "cannot read: %s", strerror(e));
	if (n > SCN_FILE_BYTES_MAX)
		return ldr_err_at(L, 0, 0, "file too large (more than %u bytes)",
				  SCN_FILE_BYTES_MAX);
	if (n >= 2 && ((L->l_buf[0] == 0xfe && L->l_buf[1] == 0xff) ||
		       (L->l_buf[0] == 0xff && L->l_buf[1] == 0xfe)))
		return ldr_err_at(L, 0, 0, "invalid input: UTF-16 byte order "
				  "mark (%s must be UTF-8)", L->l_what);
	L->l_len = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Values                                                             */
/* ------------------------------------------------------------------ */

/* The current scalar's text (NUL-terminated; pass 1 rejected inner NULs). */
const char *ev_str(const struct ldr *L)
{
	return (const char *)L->l_ev.data.scalar.value;
}

/* True if the current scalar is exactly @word. */
bool ev_is(const struct ldr *L, const char *word)
{
	return strcmp(ev_str(L), word) == 0;
}

/* Advance to @key's value; it must start with an event of @type (@what
 * describes the expected value). */
int ldr_value(struct ldr *L, const char *key, yaml_event_type_t type,
		     const char *what)
{
	char q[SCN_QUOTE_BUF];

	if (ldr_next(L) < 0)
		return -1;
	if (L->l_ev.type == type)
		return 0;
	return ldr_err_ev(L, "'%s' must be %s, not %s", scn_quote(q, key), what,
			  ldr_kind(&L->l_ev));
}

/* @key's value, a sequence (@what describes it): @item for each element, the
 * element's first event current, with @ctx. */
int ldr_sequence(struct ldr *L, const char *key, const char *what,
		 int (*item)(struct ldr *L, void *ctx), void *ctx)
{
	if (ldr_value(L, key, YAML_SEQUENCE_START_EVENT, what) < 0)
		return -1;
	for (;;) {
		if (ldr_next(L) < 0)
			return -1;
		if (L->l_ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if (item(L, ctx) < 0)
			return -1;
	}
}

/* Copy the current scalar into @dst (capacity @cap, NUL included). */
int ldr_take_str(struct ldr *L, const char *what, char *dst, size_t cap)
{
	size_t len = L->l_ev.data.scalar.length;

	if (len >= cap)
		return ldr_err_ev(L, "%s is too long (%zu bytes, max %zu)", what,
				  len, cap - 1);
	memcpy(dst, ev_str(L), len + 1);
	return 0;
}

/* True if @s is a valid name: [a-z0-9._-]+. */
static bool scn_name_ok(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* Copy the current scalar into the name buffer @dst, checking length and
 * the [a-z0-9._-]+ pattern; @what names the item in messages. */
static int ldr_take_name(struct ldr *L, const char *what,
			 char dst[SCN_NAME_MAX])
{
	char q[SCN_QUOTE_BUF];

	if (L->l_ev.data.scalar.length == 0)
		return ldr_err_ev(L, "%s must not be empty", what);
	if (ldr_take_str(L, what, dst, SCN_NAME_MAX) < 0)
		return -1;
	if (!scn_name_ok(dst))
		return ldr_err_ev(L, "invalid %s '%s': use only a-z, 0-9, '.', "
				  "'_' and '-'", what, scn_quote(q, dst));
	return 0;
}

/* Read @key's value as a name (see ldr_take_name). */
int ldr_name(struct ldr *L, const char *key, char dst[SCN_NAME_MAX])
{
	if (ldr_value(L, key, YAML_SCALAR_EVENT, "a string") < 0)
		return -1;
	return ldr_take_name(L, key, dst);
}

/* Read @key's value as free text of at most @cap - 1 bytes. */
int ldr_text(struct ldr *L, const char *key, char *dst, size_t cap)
{
	if (ldr_value(L, key, YAML_SCALAR_EVENT, "a string") < 0)
		return -1;
	return ldr_take_str(L, key, dst, cap);
}

/* Read @key's value as a boolean: plain true or false, nothing else. */
int ldr_bool(struct ldr *L, const char *key, bool *out)
{
	char q[SCN_QUOTE_BUF];

	if (ldr_value(L, key, YAML_SCALAR_EVENT, "true or false") < 0)
		return -1;
	if (L->l_ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return ldr_err_ev(L, "'%s' must be true or false (unquoted), "
				  "not a quoted string", key);
	if (ev_is(L, "true") || ev_is(L, "false")) {
		*out = ev_is(L, "true");
		return 0;
	}
	return ldr_err_ev(L, "'%s' must be true or false, not '%s'", key,
			  scn_quote(q, ev_str(L)));
}

/* Read @key's value as a plain (unquoted) number, see scn_parse_num; a
 * number above SCN_OFFSET_MAX gives INT64_MAX, for the caller's range check. */
int ldr_number(struct ldr *L, const char *key, int64_t *out)
{
	char q[SCN_QUOTE_BUF];
	int rc;

	if (ldr_value(L, key, YAML_SCALAR_EVENT, "a number") < 0)
		return -1;
	if (L->l_ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return ldr_err_ev(L, "'%s' must be a number, not a quoted string",
				  key);
	rc = scn_parse_num(ev_str(L), out);
	if (rc == -ERANGE) {
		*out = INT64_MAX;
		return 0;
	}
	if (rc < 0)
		return ldr_err_ev(L, "'%s' is not a valid number: '%s'", key,
				  scn_quote(q, ev_str(L)));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Mappings                                                           */
/* ------------------------------------------------------------------ */

/* The current event is a mapping key: it must be a scalar. */
int ldr_key_scalar(struct ldr *L)
{
	if (L->l_ev.type == YAML_SCALAR_EVENT)
		return 0;
	return ldr_err_ev(L, "mapping keys must be scalars, not %s",
			  ldr_kind(&L->l_ev));
}

/* Report an unknown key (the current event), listing the known ones. */
static int ldr_unknown_key(struct ldr *L, const struct ldr_keys *keys)
{
	char known[256] = "";
	char q[SCN_QUOTE_BUF];
	unsigned i;

	for (i = 0; keys->k_names[i] != NULL; i++) {
		if (i > 0)
			strncat(known, ", ", sizeof known - strlen(known) - 1);
		strncat(known, keys->k_names[i], sizeof known - strlen(known) - 1);
	}
	return ldr_err_ev(L, "unknown key '%s' %s (known: %s)",
			  scn_quote(q, ev_str(L)), keys->k_where, known);
}

/* Read the mapping whose MAPPING_START is current.  Each key must be one
 * of @keys, at most once; @fn is called with the key's index while the key
 * is the current event and must consume the value.  *@seen_out gets the
 * bit set of keys present. */
int ldr_fixed_mapping(struct ldr *L, const struct ldr_keys *keys,
			     ldr_key_fn fn, void *ctx, uint32_t *seen_out)
{
	char q[SCN_QUOTE_BUF];
	uint32_t seen = 0;
	unsigned i;

	for (;;) {
		if (ldr_next(L) < 0)
			return -1;
		if (L->l_ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (ldr_key_scalar(L) < 0)
			return -1;
		for (i = 0; keys->k_names[i] != NULL; i++)
			if (ev_is(L, keys->k_names[i]))
				break;
		if (keys->k_names[i] == NULL)
			return ldr_unknown_key(L, keys);
		if (seen & (1u << i))
			return ldr_err_ev(L, "duplicate key '%s'",
					  scn_quote(q, ev_str(L)));
		seen |= 1u << i;
		if (fn(L, i, ctx) < 0)
			return -1;
	}
	*seen_out = seen;
	return 0;
}

/* Read the mapping whose MAPPING_START is current, with keys chosen by the
 * user (patch names, variant names): @fn is called with each scalar key
 * current and must check it (duplicates too) and consume the value. */
int ldr_open_mapping(struct ldr *L, ldr_entry_fn fn, void *ctx)
{
	for (;;) {
		if (ldr_next(L) < 0)
			return -1;
		if (L->l_ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		if (ldr_key_scalar(L) < 0)
			return -1;
		if (fn(L, ctx) < 0)
			return -1;
	}
}

/* ------------------------------------------------------------------ */
/* patches: NAME: on|off                                              */
/* ------------------------------------------------------------------ */

struct ldr_patches {
	struct scn_patch_setting *lp_arr;  /* SCN_PATCHES_MAX entries */
	unsigned *lp_nr;
};

/* One patches entry; the key is current. */
static int ldr_patch_entry(struct ldr *L, void *vctx)
{
	struct ldr_patches *ctx = vctx;
	struct scn_patch_setting *p;
	char q[SCN_QUOTE_BUF];
	unsigned i;

	if (*ctx->lp_nr == SCN_PATCHES_MAX)
		return ldr_err_ev(L, "too many patches (max %d)", SCN_PATCHES_MAX);
	p = &ctx->lp_arr[*ctx->lp_nr];
	p->p_line = (uint32_t)L->l_ev.start_mark.line + 1;
	p->p_col = (uint32_t)L->l_ev.start_mark.column + 1;
	if (ldr_take_name(L, "patch name", p->p_name) < 0)
		return -1;
	for (i = 0; i < *ctx->lp_nr; i++)
		if (strcmp(ctx->lp_arr[i].p_name, p->p_name) == 0)
			return ldr_err_ev(L, "duplicate key '%s'", p->p_name);
	if (ldr_value(L, p->p_name, YAML_SCALAR_EVENT, "on or off") < 0)
		return -1;
	if (!ev_is(L, "on") && !ev_is(L, "off"))
		return ldr_err_ev(L, "patch '%s' must be on or off, not '%s'",
				  p->p_name, scn_quote(q, ev_str(L)));
	p->p_on = ev_is(L, "on");
	(*ctx->lp_nr)++;
	return 0;
}

/* Read a patches: value into @arr / *@nr. */
static int ldr_patches(struct ldr *L, struct scn_patch_setting *arr,
		       unsigned *nr)
{
	struct ldr_patches ctx = { .lp_arr = arr, .lp_nr = nr };

	if (ldr_value(L, "patches", YAML_MAPPING_START_EVENT, "a mapping") < 0)
		return -1;
	return ldr_open_mapping(L, ldr_patch_entry, &ctx);
}

/* ------------------------------------------------------------------ */
/* config:                                                            */
/* ------------------------------------------------------------------ */

/* CK_RUN stays last: CK_RUN + LDR_RC_* are runcfg.c's keys, after every other. */
enum { CK_BLOCK_SIZE, CK_DATA, CK_DELALLOC, CK_DIOREAD_NOLOCK, CK_DISK_BLOCKS,
       CK_KERNEL, CK_PATCHES, CK_AUTO_DA_ALLOC, CK_RUN };

static const char *const config_key_names[] = {
	"block_size", "data", "delalloc", "dioread_nolock", "disk_blocks",
	"kernel", "patches", "auto_da_alloc", LDR_RUN_CONFIG_KEY_NAMES, NULL
};
_Static_assert(sizeof(config_key_names) / sizeof(config_key_names[0]) ==
	       CK_RUN + LDR_RC_COUNT + 1, "config_key_names and the CK_ keys differ");
static const struct ldr_keys config_keys = { "in config", config_key_names };

const char *const scn_mount_key_names[SCN_MK_NR] = {
	"block_size", "data", "delalloc", "dioread_nolock", "auto_da_alloc", "disk_blocks"
};

struct ldr_config {
	struct scn_config *lc_cfg;
	yaml_mark_t lc_delalloc_mark;     /* where delalloc's value was */
};

/* block_size: 1024 | 2048 | 4096. */
static int ldr_block_size(struct ldr *L, uint32_t *out)
{
	char q[SCN_QUOTE_BUF];
	int64_t v;

	if (ldr_number(L, "block_size", &v) < 0)
		return -1;
	if (v != 1024 && v != 2048 && v != 4096)
		return ldr_err_ev(L, "'block_size' must be 1024, 2048 or 4096, "
				  "not '%s'", scn_quote(q, ev_str(L)));
	*out = (uint32_t)v;
	return 0;
}

/* disk_blocks: SCN_DISK_BLOCKS_MIN .. SCN_DISK_BLOCKS_MAX. */
static int ldr_disk_blocks(struct ldr *L, uint32_t *out)
{
	char q[SCN_QUOTE_BUF];
	int64_t v;

	if (ldr_number(L, "disk_blocks", &v) < 0)
		return -1;
	if (v < SCN_DISK_BLOCKS_MIN || v > SCN_DISK_BLOCKS_MAX)
		return ldr_err_ev(L, "'disk_blocks' must be between %u and %u (%s), "
				  "not '%s'", SCN_DISK_BLOCKS_MIN, SCN_DISK_BLOCKS_MAX,
				  SCN_DISK_BLOCKS_WHY, scn_quote(q, ev_str(L)));
	*out = (uint32_t)v;
	return 0;
}

/* data: ordered | writeback | journal. */
static int ldr_data(struct ldr *L, enum scn_data_mode *out)
{
	char q[SCN_QUOTE_BUF];

	if (ldr_value(L, "data", YAML_SCALAR_EVENT, "a data mode") < 0)
		return -1;
	if (ev_is(L, "ordered"))
		*out = SCN_DATA_ORDERED;
	else if (ev_is(L, "writeback"))
		*out = SCN_DATA_WRITEBACK;
	else if (ev_is(L, "journal"))
		*out = SCN_DATA_JOURNAL;
	else
		return ldr_err_ev(L, "'data' must be ordered, writeback or "
				  "journal, not '%s'", scn_quote(q, ev_str(L)));
	return 0;
}

/*
 * One mount key @mk (the key is current) into @m, its bit set in m_set.
 * config: and a variant read their mount keys here, so the two spell and
 * check them alike.
 */
static int ldr_mount_key(struct ldr *L, unsigned mk, struct scn_mount *m)
{
	const char *key = scn_mount_key_names[mk];
	int rc;

	m->m_set |= 1u << mk;
	switch (mk) {
	case SCN_MK_BLOCK_SIZE:
		return ldr_block_size(L, &m->m_block_size);
	case SCN_MK_DATA:
		return ldr_data(L, &m->m_data);
	case SCN_MK_DELALLOC:
		rc = ldr_bool(L, key, &m->m_delalloc);
		m->m_delalloc_line = (uint32_t)L->l_ev.start_mark.line;
		m->m_delalloc_col = (uint32_t)L->l_ev.start_mark.column;
		return rc;
	case SCN_MK_DIOREAD_NOLOCK:
		return ldr_bool(L, key, &m->m_dioread_nolock);
	case SCN_MK_AUTO_DA_ALLOC:
		return ldr_bool(L, key, &m->m_auto_da_alloc);
	default:
		return ldr_disk_blocks(L, &m->m_disk_blocks);
	}
}

/* A mount key of config: (@mk), read as a variant's is, into @c. */
static int ldr_config_mount_key(struct ldr *L, unsigned mk, struct ldr_config *ctx)
{
	struct scn_config *c = ctx->lc_cfg;
	struct scn_mount m = { 0 };

	if (ldr_mount_key(L, mk, &m) < 0)
		return -1;
	switch (mk) {
	case SCN_MK_BLOCK_SIZE: c->c_block_size = m.m_block_size; break;
	case SCN_MK_DATA: c->c_data = m.m_data; break;
	case SCN_MK_DELALLOC:
		c->c_set_delalloc = true;
		c->c_delalloc = m.m_delalloc;
		ctx->lc_delalloc_mark = L->l_ev.start_mark;
		break;
	case SCN_MK_DIOREAD_NOLOCK: c->c_dioread_nolock = m.m_dioread_nolock; break;
	case SCN_MK_AUTO_DA_ALLOC: c->c_auto_da_alloc = m.m_auto_da_alloc; break;
	default: c->c_disk_blocks = m.m_disk_blocks; break;
	}
	return 0;
}

/* One config key; the key is current. */
static int ldr_config_key(struct ldr *L, unsigned idx, void *vctx)
{
	static const unsigned mount_key[] = {
		[CK_BLOCK_SIZE] = SCN_MK_BLOCK_SIZE, [CK_DATA] = SCN_MK_DATA,
		[CK_DELALLOC] = SCN_MK_DELALLOC, [CK_DIOREAD_NOLOCK] = SCN_MK_DIOREAD_NOLOCK,
		[CK_DISK_BLOCKS] = SCN_MK_DISK_BLOCKS, [CK_AUTO_DA_ALLOC] = SCN_MK_AUTO_DA_ALLOC,
	};
	struct ldr_config *ctx = vctx;
	struct scn_config *c = ctx->lc_cfg;

	if (idx >= CK_RUN)
		return ldr_run_config_key(L, idx - CK_RUN, &c->c_run);
	switch (idx) {
	case CK_KERNEL:
		if (ldr_name(L, "kernel", c->c_kernel) < 0)
			return -1;
		c->c_kernel_line = (uint32_t)L->l_ev.start_mark.line + 1;
		c->c_kernel_col = (uint32_t)L->l_ev.start_mark.column + 1;
		return 0;
	case CK_PATCHES:
		return ldr_patches(L, c->c_patches, &c->c_nr_patches);
	default:
		return ldr_config_mount_key(L, mount_key[idx], ctx);
	}
}

/* config: a mapping; data=journal forces delalloc off (an explicit
 * delalloc: true with it is an error). */
static int ldr_config(struct ldr *L)
{
	struct ldr_config ctx = { .lc_cfg = &L->l_scn->config };
	struct scn_config *c = ctx.lc_cfg;
	uint32_t seen = 0;

	if (ldr_value(L, "config", YAML_MAPPING_START_EVENT, "a mapping") < 0)
		return -1;
	if (ldr_fixed_mapping(L, &config_keys, ldr_config_key, &ctx, &seen) < 0)
		return -1;
	if (c->c_data != SCN_DATA_JOURNAL)
		return 0;
	if (c->c_set_delalloc && c->c_delalloc)
		return ldr_err_mark(L, &ctx.lc_delalloc_mark,
				    "data=journal does not support delalloc");
	c->c_delalloc = false;
	return 0;
}

/* ------------------------------------------------------------------ */
/* steps:                                                             */
/* ------------------------------------------------------------------ */

/* Make room for one more step. */
static int ldr_grow_steps(struct ldr *L)
{
	struct scenario *s = L->l_scn;
	struct scn_step *steps;
	unsigned cap;

	if (s->nr_steps < L->l_steps_cap)
		return 0;
	cap = L->l_steps_cap ? L->l_steps_cap * 2 : STEPS_CAP_MIN;
	if (cap > SCN_STEPS_MAX)
		cap = SCN_STEPS_MAX;
	steps = realloc(s->steps, cap * sizeof(*steps));
	if (steps == NULL)
		return ldr_err_ev(L, "out of memory");
	s->steps = steps;
	L->l_steps_cap = cap;
	return 0;
}

/* Report a step error at byte @off of the current scalar. */
int ldr_step_err(struct ldr *L, unsigned off, const char *msg)
{
	const yaml_event_t *ev = &L->l_ev;
	size_t col = ev->start_mark.column;

	if (ev->start_mark.line == ev->end_mark.line) {
		col += off;
		if (ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
		    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
			col++;
	}
	return ldr_err_at(L, ev->start_mark.line, col, "%s", msg);
}

/* One steps: entry (the current event): a step line in xfs_io syntax. */
static int ldr_step(struct ldr *L)
{
	struct scenario *s = L->l_scn;
	struct scn_step *step;
	char msg[SCN_ERR_MAX];
	unsigned col = 0;

	if (L->l_ev.type != YAML_SCALAR_EVENT)
		return ldr_err_ev(L, "each step must be a string, not %s",
				  ldr_kind(&L->l_ev));
	if (s->nr_steps == SCN_STEPS_MAX)
		return ldr_err_ev(L, "too many steps (max %d)", SCN_STEPS_MAX);
	if (ldr_grow_steps(L) < 0)
		return -1;
	step = &s->steps[s->nr_steps];
	if (scn_parse_step(ev_str(L), step, msg, sizeof msg, &col) < 0)
		return ldr_step_err(L, col, msg);
	step->s_line = (uint32_t)L->l_ev.start_mark.line + 1;
	step->s_col = (uint32_t)L->l_ev.start_mark.column + 1;
	s->nr_steps++;
	return 0;
}

/* steps: a non-empty sequence of step strings. */
static int ldr_steps(struct ldr *L)
{
	yaml_mark_t start;

	if (ldr_value(L, "steps", YAML_SEQUENCE_START_EVENT, "a sequence") < 0)
		return -1;
	start = L->l_ev.start_mark;
	for (;;) {
		if (ldr_next(L) < 0)
			return -1;
		if (L->l_ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (ldr_step(L) < 0)
			return -1;
	}
	if (L->l_scn->nr_steps == 0)
		return ldr_err_mark(L, &start, "'steps' must not be empty");
	return 0;
}

/* ------------------------------------------------------------------ */
/* variants:                                                          */
/* ------------------------------------------------------------------ */

enum { VK_NAME, VK_KERNEL, VK_PATCHES, VK_MOUNT };   /* VK_MOUNT + enum scn_mount_key */

static const char *const variant_key_names[] = {
	"name", "kernel", "patches", "block_size", "data", "delalloc", "dioread_nolock",
	"auto_da_alloc", "disk_blocks", NULL
};
static const struct ldr_keys variant_keys = { "in a variant",
					      variant_key_names };

/* One variant key; the key is current; the variant is variants[nr]. */
static int ldr_variant_key(struct ldr *L, unsigned idx, void *vctx)
{
	struct scenario *s = L->l_scn;
	struct scn_variant *v = vctx;
	unsigned i;

	switch (idx) {
	case VK_NAME:
		if (ldr_name(L, "name", v->v_name) < 0)
			return -1;
		for (i = 0; i < s->nr_variants; i++)
			if (strcmp(s->variants[i].v_name, v->v_name) == 0)
				return ldr_err_ev(L, "duplicate variant name '%s'",
						  v->v_name);
		return 0;
	case VK_KERNEL:
		v->v_has_kernel = true;
		if (ldr_name(L, "kernel", v->v_kernel) < 0)
			return -1;
		v->v_kernel_line = (uint32_t)L->l_ev.start_mark.line + 1;
		v->v_kernel_col = (uint32_t)L->l_ev.start_mark.column + 1;
		return 0;
	case VK_PATCHES:
		return ldr_patches(L, v->v_patches, &v->v_nr_patches);
	default:
		return ldr_mount_key(L, idx - VK_MOUNT, &v->v_mount);
	}
}

/*
 * A variant's mount keys: data: journal with an explicit delalloc: true in
 * the same variant is refused as in config: (at delalloc's value).
 */
static int ldr_variant_mount_check(struct ldr *L, const struct scn_mount *m)
{
	bool journal = (m->m_set & (1u << SCN_MK_DATA)) && m->m_data == SCN_DATA_JOURNAL;

	if (journal && (m->m_set & (1u << SCN_MK_DELALLOC)) && m->m_delalloc)
		return ldr_err_at(L, m->m_delalloc_line, m->m_delalloc_col,
				  "data=journal does not support delalloc");
	return 0;
}

/* One variants: entry (the current event): a mapping with a name. */
static int ldr_variant(struct ldr *L, void *unused)
{
	struct scenario *s = L->l_scn;
	struct scn_variant *v;
	yaml_mark_t start = L->l_ev.start_mark;
	uint32_t seen = 0;

	(void)unused;

	if (L->l_ev.type != YAML_MAPPING_START_EVENT)
		return ldr_err_ev(L, "each variant must be a mapping, not %s",
				  ldr_kind(&L->l_ev));
	if (s->nr_variants == SCN_VARIANTS_MAX)
		return ldr_err_ev(L, "too many variants (max %d)",
				  SCN_VARIANTS_MAX);
	v = &s->variants[s->nr_variants];
	memset(v, 0, sizeof(*v));
	v->v_line = (uint32_t)start.line + 1;
	v->v_col = (uint32_t)start.column + 1;
	if (ldr_fixed_mapping(L, &variant_keys, ldr_variant_key, v, &seen) < 0)
		return -1;
	if (!(seen & (1u << VK_NAME)))
		return ldr_err_mark(L, &start, "variant is missing required "
				    "key 'name'");
	if (ldr_variant_mount_check(L, &v->v_mount) < 0)
		return -1;
	s->nr_variants++;
	return 0;
}

/* variants: a sequence of variant mappings. */
static int ldr_variants(struct ldr *L)
{
	return ldr_sequence(L, "variants", "a sequence", ldr_variant, NULL);
}

/* ------------------------------------------------------------------ */
/* expect:                                                            */
/* ------------------------------------------------------------------ */

/* One invariant name (the current event) of expect entry @e. */
static int ldr_invariant(struct ldr *L, void *vctx)
{
	struct scn_expect *e = vctx;
	char *name;
	unsigned i;

	if (L->l_ev.type != YAML_SCALAR_EVENT)
		return ldr_err_ev(L, "each invariant must be a name, not %s",
				  ldr_kind(&L->l_ev));
	if (e->e_nr == SCN_EXPECT_MAX)
		return ldr_err_ev(L, "too many invariants in expect entry '%s' "
				  "(max %d)", e->e_variant, SCN_EXPECT_MAX);
	name = e->e_invariants[e->e_nr];
	if (ldr_take_name(L, "invariant name", name) < 0)
		return -1;
	if (L->l_is_invariant != NULL && !L->l_is_invariant(name))
		return ldr_err_ev(L, "unknown invariant '%s'", name);
	for (i = 0; i < e->e_nr; i++)
		if (strcmp(e->e_invariants[i], name) == 0)
			return ldr_err_ev(L, "invariant '%s' listed twice", name);
	e->e_nr++;
	return 0;
}

/* One expect entry; the key (a variant name) is current. */
static int ldr_expect_entry(struct ldr *L, void *unused)
{
	struct scenario *s = L->l_scn;
	struct scn_expect *e;
	unsigned i;

	(void)unused;
	if (s->nr_expect == SCN_VARIANTS_MAX)
		return ldr_err_ev(L, "too many expect entries (max %d)",
				  SCN_VARIANTS_MAX);
	e = &s->expect[s->nr_expect];
	memset(e, 0, sizeof(*e));
	e->e_line = (uint32_t)L->l_ev.start_mark.line + 1;
	e->e_col = (uint32_t)L->l_ev.start_mark.column + 1;
	if (ldr_take_name(L, "variant name", e->e_variant) < 0)
		return -1;
	for (i = 0; i < s->nr_expect; i++)
		if (strcmp(s->expect[i].e_variant, e->e_variant) == 0)
			return ldr_err_ev(L, "duplicate key '%s'", e->e_variant);
	if (ldr_sequence(L, e->e_variant, "a sequence of invariant names", ldr_invariant, e) < 0)
		return -1;
	s->nr_expect++;
	return 0;
}

/* expect: a mapping variant-name -> invariant names. */
static int ldr_expect(struct ldr *L)
{
	if (ldr_value(L, "expect", YAML_MAPPING_START_EVENT, "a mapping") < 0)
		return -1;
	L->l_scn->has_expect = true;
	return ldr_open_mapping(L, ldr_expect_entry, NULL);
}

/* ------------------------------------------------------------------ */
/* crash_states: variant -> [{step, raw, distinct, violating}]         */
/* ------------------------------------------------------------------ */

enum { XK_STEP, XK_RAW, XK_DISTINCT, XK_VIOLATING };

static const char *const cs_key_names[] = { "step", "raw", "distinct", "violating", NULL };
static const struct ldr_keys cs_keys = { "in a crash_states entry", cs_key_names };

/* One key of a crash_states entry; the key is current. */
static int ldr_cs_key(struct ldr *L, unsigned idx, void *vctx)
{
	struct scn_cs_expect *x = vctx;
	const char *key = cs_key_names[idx];
	int64_t v;

	if (ldr_number(L, key, &v) < 0)
		return -1;
	if (idx == XK_STEP && (v < 1 || v > SCN_STEPS_MAX))
		return ldr_err_ev(L, "'step' must be a step number, 1 to %d", SCN_STEPS_MAX);
	if (v > (int64_t)1 << 53)
		return ldr_err_ev(L, "'%s' is too large (max 2^53)", key);
	if (idx == XK_STEP)
		x->x_step = (uint32_t)v;
	else
		*(idx == XK_RAW ? &x->x_raw : idx == XK_DISTINCT ? &x->x_distinct :
		  &x->x_violating) = v;
	return 0;
}

/* One entry of a crash_states sequence (the current event). */
static int ldr_cs_entry(struct ldr *L, void *vctx)
{
	struct scn_cs_expect_set *xs = vctx;
	yaml_mark_t start = L->l_ev.start_mark;
	struct scn_cs_expect *x;
	uint32_t seen = 0;

	if (L->l_ev.type != YAML_MAPPING_START_EVENT)
		return ldr_err_ev(L, "each crash_states entry must be a mapping, not %s",
				  ldr_kind(&L->l_ev));
	if (xs->xs_nr == SCN_CS_EXPECT_MAX)
		return ldr_err_ev(L, "too many crash_states entries for '%s' (max %d)",
				  xs->xs_variant, SCN_CS_EXPECT_MAX);
	x = &xs->xs[xs->xs_nr];
	*x = (struct scn_cs_expect){ .x_raw = -1, .x_distinct = -1, .x_violating = -1,
				     .x_line = (uint32_t)start.line + 1,
				     .x_col = (uint32_t)start.column + 1 };
	if (ldr_fixed_mapping(L, &cs_keys, ldr_cs_key, x, &seen) < 0)
		return -1;
	if (!(seen & (1u << XK_STEP)))
		return ldr_err_mark(L, &start, "crash_states entry is missing required key 'step'");
	for (unsigned i = 0; i < xs->xs_nr; i++)
		if (xs->xs[i].x_step == x->x_step)
			return ldr_err_mark(L, &start, "crash_states: step %u listed twice",
					    x->x_step);
	xs->xs_nr++;
	return 0;
}

/* One crash_states entry; the key (a variant name) is current. */
static int ldr_cs_variant(struct ldr *L, void *unused)
{
	struct scenario *s = L->l_scn;
	struct scn_cs_expect_set *xs;

	(void)unused;
	if (s->nr_cs_expect == SCN_VARIANTS_MAX)
		return ldr_err_ev(L, "too many crash_states entries (max %d)", SCN_VARIANTS_MAX);
	xs = &s->cs_expect[s->nr_cs_expect];
	memset(xs, 0, sizeof(*xs));
	xs->xs_line = (uint32_t)L->l_ev.start_mark.line + 1;
	xs->xs_col = (uint32_t)L->l_ev.start_mark.column + 1;
	if (ldr_take_name(L, "variant name", xs->xs_variant) < 0)
		return -1;
	for (unsigned i = 0; i < s->nr_cs_expect; i++)
		if (strcmp(s->cs_expect[i].xs_variant, xs->xs_variant) == 0)
			return ldr_err_ev(L, "duplicate key '%s'", xs->xs_variant);
	if (ldr_sequence(L, xs->xs_variant, "a sequence of crash point expectations",
			 ldr_cs_entry, xs) < 0)
		return -1;
	s->nr_cs_expect++;
	return 0;
}

/* crash_states: a mapping variant-name -> expectations per crash step. */
static int ldr_crash_states(struct ldr *L)
{
	if (ldr_value(L, "crash_states", YAML_MAPPING_START_EVENT, "a mapping") < 0)
		return -1;
	return ldr_open_mapping(L, ldr_cs_variant, NULL);
}

/* ------------------------------------------------------------------ */
/* The document                                                       */
/* ------------------------------------------------------------------ */

enum { TK_NAME, TK_DESCRIPTION, TK_SOURCE, TK_CONFIG, TK_STEPS, TK_VARIANTS,
       TK_EXPECT, TK_CRASH_STATES };

static const char *const top_key_names[] = {
	"name", "description", "source", "config", "steps", "variants",
	"expect", "crash_states", NULL
};
static const struct ldr_keys top_keys = { "at the top level", top_key_names };

/* One top-level key; the key is current. */
static int ldr_top_key(struct ldr *L, unsigned idx, void *unused)
{
	struct scenario *s = L->l_scn;

	(void)unused;
	switch (idx) {
	case TK_NAME:
		return ldr_name(L, "name", s->name);
	case TK_DESCRIPTION:
		return ldr_text(L, "description", s->description, SCN_TEXT_MAX);
	case TK_SOURCE:
		return ldr_text(L, "source", s->source, SCN_TEXT_MAX);
	case TK_CONFIG:
		return ldr_config(L);
	case TK_STEPS:
		return ldr_steps(L);
	case TK_VARIANTS:
		return ldr_variants(L);
	case TK_CRASH_STATES:
		return ldr_crash_states(L);
	default:
		return ldr_expect(L);
	}
}

/* True if @name is one of the scenario's variants ("default" without
 * variants:). */
static bool scn_has_variant(const struct scenario *s, const char *name)
{
	unsigned i;

	if (s->nr_variants == 0)
		return strcmp(name, "default") == 0;
	for (i = 0; i < s->nr_variants; i++)
		if (strcmp(s->variants[i].v_name, name) == 0)
			return true;
	return false;
}

/* crash_states: existing variants, and steps that are crashes. */
static int ldr_cs_finish(struct ldr *L)
{
	const struct scenario *s = L->l_scn;

	for (unsigned i = 0; i < s->nr_cs_expect; i++) {
		const struct scn_cs_expect_set *xs = &s->cs_expect[i];

		if (!scn_has_variant(s, xs->xs_variant))
			return ldr_err_at(L, xs->xs_line - 1, xs->xs_col - 1,
					  "crash_states: no variant named '%s'", xs->xs_variant);
		for (unsigned k = 0; k < xs->xs_nr; k++) {
			const struct scn_cs_expect *x = &xs->xs[k];
			enum scn_op op = x->x_step <= s->nr_steps ? s->steps[x->x_step - 1].s_op
								  : SCN_OP_COUNT;

			if (op != SCN_CRASH && op != SCN_SHUTDOWN)
				return ldr_err_at(L, x->x_line - 1, x->x_col - 1,
						  "crash_states: step %u is not a crash or shutdown "
						  "step", x->x_step);
		}
	}
	return 0;
}

/* Checks that span keys, once the top mapping (started at @root) is read. */
static int ldr_top_finish(struct ldr *L, uint32_t seen, const yaml_mark_t *root)
{
	const struct scenario *s = L->l_scn;
	const struct scn_expect *e;
	unsigned i;

	if (!(seen & (1u << TK_NAME)))
		return ldr_err_mark(L, root, "missing required key 'name'");
	if (!(seen & (1u << TK_STEPS)))
		return ldr_err_mark(L, root, "missing required key 'steps'");
	for (i = 0; i < s->nr_expect; i++) {
		e = &s->expect[i];
		if (scn_has_variant(s, e->e_variant))
			continue;
		return ldr_err_at(L, e->e_line - 1, e->e_col - 1,
				  "expect: no variant named '%s'%s", e->e_variant,
				  s->nr_variants ? "" : " (without variants: the "
				  "only variant is 'default')");
	}
	return ldr_cs_finish(L);
}

/*
 * Pass 2's start, for every schema: advance to the document's root node,
 * which must be a mapping (an empty document is reported at its start).
 * On success the current event is the root's MAPPING_START, at *root.
 */
int ldr_root_mapping(struct ldr *L, yaml_mark_t *root)
{
	yaml_mark_t doc = { 0, 0, 0 };

	do {
		if (ldr_next(L) < 0)
			return -1;
		if (L->l_ev.type == YAML_DOCUMENT_START_EVENT)
			doc = L->l_ev.start_mark;
	} while (L->l_ev.type == YAML_STREAM_START_EVENT ||
		 L->l_ev.type == YAML_DOCUMENT_START_EVENT);
	*root = L->l_ev.start_mark;
	if (L->l_ev.type == YAML_SCALAR_EVENT &&
	    L->l_ev.data.scalar.length == 0 &&
	    L->l_ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
		return ldr_err_mark(L, &doc, "empty document");
	if (L->l_ev.type != YAML_MAPPING_START_EVENT)
		return ldr_err_ev(L, "top level must be a mapping, not %s",
				  ldr_kind(&L->l_ev));
	return 0;
}

/*
 * Pass 2 for a schema: the root must be a mapping with the fixed keys
 * @keys (each read by @fn); @finish then checks the keys seen as a whole.
 */
int ldr_root_schema(struct ldr *L, const struct ldr_keys *keys, ldr_key_fn fn,
		    ldr_finish_fn finish)
{
	yaml_mark_t root;
	uint32_t seen = 0;

	if (ldr_root_mapping(L, &root) < 0 || ldr_fixed_mapping(L, keys, fn, NULL, &seen) < 0)
		return -1;
	return finish(L, seen, &root);
}

/* Pass 2 of a scenario file. */
static int ldr_schema(struct ldr *L)
{
	return ldr_root_schema(L, &top_keys, ldr_top_key, ldr_top_finish);
}

/* Fill @cfg with the defaults of docs/scenario-format.md. */
void scn_config_defaults(struct scn_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->c_block_size = 4096;
	cfg->c_data = SCN_DATA_ORDERED;
	cfg->c_delalloc = true;
	cfg->c_dioread_nolock = true;
	cfg->c_auto_da_alloc = true;
	cfg->c_disk_blocks = 16384;
	strcpy(cfg->c_kernel, "6.18");
}

/* Load and validate @path into @out; see scenario.h. */
int scn_load(const char *path, struct scenario *out,
	     bool (*is_invariant)(const char *name), char *err, size_t errlen)
{
	struct ldr L;
	size_t n = strlen(path);
	int rc;

	memset(&L, 0, sizeof(L));
	L.l_path = path;
	L.l_what = "a scenario";
	L.l_err = err;
	L.l_errlen = errlen;
	L.l_scn = out;
	L.l_is_invariant = is_invariant;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	memset(out, 0, sizeof(*out));
	if (n >= sizeof(out->path))
		n = sizeof(out->path) - 1;
	memcpy(out->path, path, n);
	scn_config_defaults(&out->config);
	rc = ldr_read_file(&L);
	if (rc == 0)
		rc = ldr_pass(&L, ldr_scan);
	if (rc == 0)
		rc = ldr_pass(&L, ldr_schema);
	free(L.l_buf);
	if (rc < 0)
		scn_free(out);
	return rc;
}

/* Release the step array; safe on a zeroed or already freed scenario. */
void scn_free(struct scenario *s)
{
	free(s->steps);
	s->steps = NULL;
	s->nr_steps = 0;
}
