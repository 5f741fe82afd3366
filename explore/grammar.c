/*
 * grammar.c - the explore grammar: the built-in templates and the grammar
 * file loader (see grammar.h; the format is in docs/scenario-format.md).
 *
 * The loader is the scenario loader's (ldr.h): the file's size checked
 * before parsing, pass 1 over the stream's shape (one document, depth, no
 * anchors, aliases or tags), then this file's schema pass.  A grammar file
 * is one mapping:
 *
 *   name, description   free text (optional)
 *   steps               K, 1..GRAMMAR_STEPS_MAX (optional)
 *   block_size          1024 | 2048 | 4096 (optional)
 *   kinds               the kinds on, a sequence of kind names (optional;
 *                       default: every kind with templates)
 *   templates           kind -> non-empty sequence of step templates
 *   space               instead of templates, kinds and steps: one of ACE's
 *                       spaces by name (ace.h), walked by its generator
 *
 * Each template is expanded for block sizes 1024, 2048 and 4096 and parsed
 * as a step (step.c), so a template that is wrong for any block size the
 * flags could choose is rejected at load time, at its own position.
 */
#include "grammar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gexpr.h"
#include "ldr.h"
#include "sim.h"

static const char *const kind_names[GK_COUNT] = {
	"write", "truncate", "persist", "crash", "falloc", "mwrite", "short",
	"chattr", "close", "remount", "evict", "collapse", "insert",
	"creat", "mkdir", "rmdir", "link", "unlink", "rename", "symlink", "fsyncpath", "xattr"
};

static const struct { enum gkind k; const char *t; } builtin[] = {
	{ GK_WRITE, "pwrite 0 BS/2" }, { GK_WRITE, "pwrite 0 BS" },
	{ GK_WRITE, "pwrite BS/2 BS/2" }, { GK_WRITE, "pwrite BS/2 BS" },
	{ GK_WRITE, "pwrite BS BS/2" }, { GK_WRITE, "pwrite BS BS" },
	{ GK_WRITE, "pwrite PAGE+BS/2 BS/2" }, { GK_WRITE, "pwrite PAGE+BS/2 BS" },
	{ GK_TRUNCATE, "truncate BS/2" }, { GK_TRUNCATE, "truncate BS+BS/2" },
	{ GK_TRUNCATE, "truncate 2*PAGE" },
	{ GK_PERSIST, "fsync" }, { GK_PERSIST, "fdatasync" }, { GK_PERSIST, "sync" },
	{ GK_PERSIST, "sync_range -w 0 0" },
	{ GK_CRASH, "crash" },
	{ GK_FALLOC, "falloc 0 2*PAGE" }, { GK_FALLOC, "falloc -k 0 2*PAGE" },
	{ GK_FALLOC, "fpunch BS/2 BS" }, { GK_FALLOC, "fzero BS/2 BS" },
	{ GK_MWRITE, "mwrite BS/2 BS/2" },
	{ GK_SHORT, "pwrite --short 3*BS/4 BS BS" },
	{ GK_CHATTR, "chattr +S" }, { GK_CHATTR, "chattr -S" },
	{ GK_CLOSE, "close" },
	{ GK_REMOUNT, "remount" },
	{ GK_EVICT, "evict" },
	{ GK_COLLAPSE, "fcollapse 0 BS" }, { GK_COLLAPSE, "fcollapse BS BS" },
	{ GK_INSERT, "finsert 0 BS" }, { GK_INSERT, "finsert BS BS" },
	/* the namespace: a few names over two directories, /A and /B, as gen --namespace */
	{ GK_CREAT, "creat /g" }, { GK_CREAT, "creat /A/x" }, { GK_CREAT, "open -f /A/x" },
	{ GK_MKDIR, "mkdir /A" }, { GK_MKDIR, "mkdir /B" },
	{ GK_RMDIR, "rmdir /B" },
	{ GK_LINK, "link /f /A/y" },
	{ GK_UNLINK, "unlink /f" }, { GK_UNLINK, "unlink /A/x" },
	{ GK_RENAME, "rename /g /A/x" }, { GK_RENAME, "rename -n /A/x /B/x" },
	{ GK_RENAME, "rename -x /f /g" },
	{ GK_SYMLINK, "symlink ../g /A/l" },
	{ GK_FSYNCPATH, "fsync /A" }, { GK_FSYNCPATH, "fsync /A/x" },
	{ GK_FSYNCPATH, "fdatasync /" },
	{ GK_XATTR, "setxattr /f user.a v" }, { GK_XATTR, "removexattr /f user.a" },
};

const char *grammar_kind_name(enum gkind k)
{
	SIM_ASSERT(k < GK_COUNT);
	return kind_names[k];
}

int grammar_kind_lookup(const char *name)
{
	for (int k = 0; k < GK_COUNT; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return -1;
}

void grammar_builtin(struct grammar_file *g)
{
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
		SIM_ASSERT(g->nr < GRAMMAR_MAX);
		snprintf(g->t[g->nr].t_text, SCN_STEP_TEXT_MAX, "%s", builtin[i].t);
		g->t[g->nr].t_kind = builtin[i].k;
		g->have |= 1u << builtin[i].k;
		g->nr++;
	}
}

void grammar_expand(const struct gtemplate *t, uint32_t bs, char out[SCN_STEP_TEXT_MAX])
{
	char err[SCN_ERR_MAX];
	unsigned col;

	SIM_ASSERT(gx_expand(t->t_text, bs, PAGE_SIZE, out, err, sizeof(err), &col) == 0);
}

/* --- the file ------------------------------------------------------------ */

/* The schema pass's state (L->l_ctx). */
struct gldr {
	struct grammar_file *g;
	yaml_mark_t kind_mark[GK_COUNT];        /* where kinds: names each kind */
	yaml_mark_t kinds_mark;                 /* the kinds: value */
};

static const uint32_t check_block_sizes[] = { 1024, 2048, 4096 };

/*
 * Template @text expanded for block size @bs and parsed as a step: 0, or
 * -1 with the message and the offset in @text.
 */
static int template_try(const char *text, uint32_t bs, char *msg, size_t msglen, unsigned *col)
{
	char out[SCN_STEP_TEXT_MAX];
	struct scn_step st;

	if (gx_expand(text, bs, PAGE_SIZE, out, msg, msglen, col) < 0)
		return -1;
	if (scn_parse_step(out, &st, msg, msglen, col) == 0)
		return 0;
	*col = gx_source_col(text, out, *col);
	return -1;
}

/*
 * The current scalar as a template: expanded for every block size and
 * parsed as a step; an error points into the scalar, and names the block
 * size when another one would do.
 */
static int ldr_template_check(struct ldr *L, const char *text)
{
	char msg[SCN_ERR_MAX], other[SCN_ERR_MAX], full[SCN_ERR_MAX + 32];
	const size_t nr = sizeof(check_block_sizes) / sizeof(check_block_sizes[0]);
	unsigned col = 0, ocol;

	for (size_t i = 0; i < nr; i++) {
		if (template_try(text, check_block_sizes[i], msg, sizeof(msg), &col) == 0)
			continue;
		for (size_t j = 0; j < nr; j++) {
			if (template_try(text, check_block_sizes[j], other, sizeof(other),
					 &ocol) == 0) {
				snprintf(full, sizeof(full), "%s (with block size %u)", msg,
					 check_block_sizes[i]);
				return ldr_step_err(L, col, full);
			}
		}
		return ldr_step_err(L, col, msg);
	}
	return 0;
}

/* One template (the current event) of kind @k. */
static int ldr_template(struct ldr *L, enum gkind k)
{
	struct grammar_file *g = ((struct gldr *)L->l_ctx)->g;
	struct gtemplate *t;

	if (L->l_ev.type != YAML_SCALAR_EVENT)
		return ldr_err_ev(L, "each template must be a string, not %s",
				  ldr_kind(&L->l_ev));
	if (g->nr == GRAMMAR_MAX)
		return ldr_err_ev(L, "too many templates (max %d)", GRAMMAR_MAX);
	t = &g->t[g->nr];
	if (L->l_ev.data.scalar.length == 0)
		return ldr_err_ev(L, "a template must not be empty");
	if (ldr_take_str(L, "a template", t->t_text, SCN_STEP_TEXT_MAX) < 0 ||
	    ldr_template_check(L, t->t_text) < 0)
		return -1;
	t->t_kind = k;
	t->t_line = (uint32_t)L->l_ev.start_mark.line + 1;
	t->t_col = (uint32_t)L->l_ev.start_mark.column + 1;
	g->nr++;
	return 0;
}

/* The current event as a kind name (@what: for messages); its index or -1. */
static int ldr_kind_name(struct ldr *L, const char *what)
{
	char q[SCN_QUOTE_BUF];
	int k;

	if (L->l_ev.type != YAML_SCALAR_EVENT)
		return ldr_err_ev(L, "%s must be a kind name, not %s", what, ldr_kind(&L->l_ev));
	k = grammar_kind_lookup(ev_str(L));
	if (k < 0)
		return ldr_err_ev(L, "unknown kind '%s' (" GK_NAMES_TEXT ")", scn_quote(q, ev_str(L)));
	return k;
}

/* templates: one entry, KIND: [TEMPLATE, ...]; the key is current. */
static int ldr_templates_entry(struct ldr *L, void *unused)
{
	struct grammar_file *g = ((struct gldr *)L->l_ctx)->g;
	yaml_mark_t start;
	unsigned before = g->nr;
	int k = ldr_kind_name(L, "a templates key");

	(void)unused;
	if (k < 0)
		return -1;
	if (g->have & (1u << k))
		return ldr_err_ev(L, "duplicate key '%s'", kind_names[k]);
	g->have |= 1u << k;
	if (ldr_value(L, kind_names[k], YAML_SEQUENCE_START_EVENT, "a sequence of templates") < 0)
		return -1;
	start = L->l_ev.start_mark;
	for (;;) {
		if (ldr_next(L) < 0)
			return -1;
		if (L->l_ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (ldr_template(L, (enum gkind)k) < 0)
			return -1;
	}
	if (g->nr == before)
		return ldr_err_mark(L, &start, "'%s' must list at least one template", kind_names[k]);
	return 0;
}

/* kinds: a sequence of distinct kind names. */
static int ldr_kinds(struct ldr *L, struct gldr *G)
{
	struct grammar_file *g = G->g;

	if (ldr_value(L, "kinds", YAML_SEQUENCE_START_EVENT, "a sequence of kind names") < 0)
		return -1;
	g->has_kinds = true;
	G->kinds_mark = L->l_ev.start_mark;
	for (;;) {
		int k;

		if (ldr_next(L) < 0)
			return -1;
		if (L->l_ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if ((k = ldr_kind_name(L, "each kinds entry")) < 0)
			return -1;
		if (g->kinds & (1u << k))
			return ldr_err_ev(L, "kind '%s' listed twice", kind_names[k]);
		g->kinds |= 1u << k;
		G->kind_mark[k] = L->l_ev.start_mark;
	}
}

/* steps: K; block_size: 1024 | 2048 | 4096. */
static int ldr_bound(struct ldr *L, const char *key, struct grammar_file *g)
{
	char q[SCN_QUOTE_BUF];
	int64_t v;

	if (ldr_number(L, key, &v) < 0)
		return -1;
	if (key[0] == 'b') {
		if (v != 1024 && v != 2048 && v != 4096)
			return ldr_err_ev(L, "'block_size' must be 1024, 2048 or 4096, not '%s'",
					  scn_quote(q, ev_str(L)));
		g->has_block_size = true;
		g->block_size = (uint32_t)v;
		return 0;
	}
	if (v < 1 || v > GRAMMAR_STEPS_MAX)
		return ldr_err_ev(L, "'steps' must be between 1 and %u, not '%s'",
				  GRAMMAR_STEPS_MAX, scn_quote(q, ev_str(L)));
	g->has_steps = true;
	g->steps = (uint32_t)v;
	g->steps_line = (uint32_t)L->l_ev.start_mark.line + 1;
	g->steps_col = (uint32_t)L->l_ev.start_mark.column + 1;
	return 0;
}

/* space: the name of one of ACE's spaces (ace.h). */
static int ldr_space(struct ldr *L, struct grammar_file *g)
{
	char name[SCN_NAME_MAX], q[SCN_QUOTE_BUF];

	if (ldr_name(L, "space", name) < 0)
		return -1;
	g->space = ace_space_lookup(name);
	if (g->space == ACE_SPACE_NONE)
		return ldr_err_ev(L, "'space' must be one of " ACE_SPACE_NAMES_TEXT ", not '%s'",
				  scn_quote(q, ev_str(L)));
	return 0;
}

enum { TK_NAME, TK_DESCRIPTION, TK_STEPS, TK_BLOCK_SIZE, TK_KINDS, TK_TEMPLATES, TK_SPACE };
static const char *const top_key_names[] = {
	"name", "description", "steps", "block_size", "kinds", "templates", "space", NULL
};
static const struct ldr_keys top_keys = { "at the top level of a grammar", top_key_names };

/* One top-level key; the key is current. */
static int ldr_top_key(struct ldr *L, unsigned idx, void *unused)
{
	struct gldr *G = L->l_ctx;
	char name[SCN_NAME_MAX], text[SCN_TEXT_MAX];

	(void)unused;
	switch (idx) {
	case TK_NAME: return ldr_name(L, "name", name);
	case TK_DESCRIPTION: return ldr_text(L, "description", text, sizeof(text));
	case TK_STEPS: return ldr_bound(L, "steps", G->g);
	case TK_BLOCK_SIZE: return ldr_bound(L, "block_size", G->g);
	case TK_KINDS: return ldr_kinds(L, G);
	case TK_SPACE: return ldr_space(L, G->g);
	default:
		if (ldr_value(L, "templates", YAML_MAPPING_START_EVENT, "a mapping") < 0)
			return -1;
		return ldr_open_mapping(L, ldr_templates_entry, NULL);
	}
}

/*
 * Checks across keys: templates given; every kind on has templates; write
 * is on.  A space (ACE's) takes none of templates, kinds and steps.
 */
static int ldr_top_finish(struct ldr *L, uint32_t seen, const yaml_mark_t *root)
{
	struct gldr *G = L->l_ctx;
	struct grammar_file *g = G->g;

	if (g->space != ACE_SPACE_NONE) {
		if (seen & ((1u << TK_TEMPLATES) | (1u << TK_KINDS) | (1u << TK_STEPS)))
			return ldr_err_mark(L, root, "a grammar with 'space' takes no 'templates', "
					    "'kinds' or 'steps' (the space sets them)");
		return 0;
	}
	if (!(seen & (1u << TK_TEMPLATES)))
		return ldr_err_mark(L, root, "missing required key 'templates'");
	for (int k = 0; g->has_kinds && k < GK_COUNT; k++)
		if ((g->kinds & (1u << k)) && !(g->have & (1u << k)))
			return ldr_err_mark(L, &G->kind_mark[k], "kind '%s' is on but has no "
					    "templates", kind_names[k]);
	if (!g->has_kinds)
		g->kinds = g->have;
	if (!(g->kinds & (1u << GK_WRITE)))
		return ldr_err_mark(L, g->has_kinds ? &G->kinds_mark : root, "the kinds on must "
				    "include write (every sequence needs data)");
	return 0;
}

/* Pass 2 of a grammar file. */
static int ldr_grammar_schema(struct ldr *L)
{
	return ldr_root_schema(L, &top_keys, ldr_top_key, ldr_top_finish);
}

int grammar_load(const char *path, struct grammar_file *g, char *err, size_t errlen)
{
	struct gldr G = { .g = g };
	struct ldr L;
	int rc;

	SIM_ASSERT(path != NULL && g != NULL && err != NULL && errlen > 0);
	memset(&L, 0, sizeof(L));
	memset(g, 0, sizeof(*g));
	L.l_path = path;
	L.l_what = "a grammar";
	L.l_err = err;
	L.l_errlen = errlen;
	L.l_ctx = &G;
	err[0] = '\0';
	rc = ldr_read_file(&L);
	if (rc == 0)
		rc = ldr_pass(&L, ldr_scan);
	if (rc == 0)
		rc = ldr_pass(&L, ldr_grammar_schema);
	free(L.l_buf);
	SIM_ASSERT(rc == 0 || err[0] != '\0');
	return rc;
}
