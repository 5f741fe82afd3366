/*
 * minimize.c - ext4sim minimize FILE.yaml: shrink a scenario while it keeps
 * showing the same finding (one invariant, counted as violated, under one
 * variant).  First the names it does not need (a namespace finding: every
 * step on a name, and the data steps while it is the open file, dropped at
 * once), then delta debugging over the steps (remove chunks, halving the
 * chunk size when none can go), then the numbers of each remaining step
 * (offsets, lengths, sizes: tried at 0, at the block boundaries around
 * them and at half), then the mount options (block size 4096, data=ordered,
 * delalloc).  Every candidate is a full run with the scenario's crash
 * enumeration.  A scenario whose violating variant has a partner that
 * differs from it in one toggle only and does not violate the invariant (a
 * `diff` or `explore --diff` finding: variants off and on) is minimized as
 * a difference: both sides must still disagree, and both are written.  The
 * result goes to a new file (temporary name, then rename), never over the
 * input.
 */
#include "minimize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "scnwrite.h"
#include "world.h"

void min_build(struct scenario *s, const char *name, char (*texts)[SCN_STEP_TEXT_MAX],
	       unsigned nr)
{
	char err[SCN_ERR_MAX];
	unsigned col;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", name);
	snprintf(s->name, sizeof(s->name), "%s", name);
	scn_config_defaults(&s->config);
	s->steps = sim_zalloc((nr + 1) * sizeof(*s->steps));
	for (unsigned i = 0; i < nr; i++)
		SIM_ASSERT(scn_parse_step(texts[i], &s->steps[i], err, sizeof(err), &col) == 0);
	s->nr_steps = nr;
}

/* Does invariant @inv count as violated in @cfg's run of @s? */
static bool violates(struct min_target *t, const struct scenario *s,
		     const struct sim_variant_cfg *cfg)
{
	struct sim_variant_result r;
	char err[SCN_ERR_MAX];
	bool v;

	SIM_ASSERT(sim_run_variant(s, cfg, &t->o, NULL, NULL, &r, err, sizeof(err)) == 0);
	v = r.violated[t->inv];
	sim_variant_result_free(&r, s->nr_steps);
	t->runs++;
	return v;
}

bool min_reproduces(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr)
{
	struct scenario s;
	bool ok;

	min_build(&s, "candidate", texts, nr);
	if (!t->diff) {
		ok = violates(t, &s, &t->cfg);
	} else {
		struct sim_variant_cfg on = t->cfg, off = t->cfg;

		ext4_toggle_set(&on.sem, t->diff, true);
		ext4_toggle_set(&off.sem, t->diff, false);
		ok = violates(t, &s, &on) == t->diff_on_side &&
		     violates(t, &s, &off) != t->diff_on_side;
	}
	scn_free(&s);
	return ok;
}

/* Try dropping steps [from, to); keep the drop if the finding stays. */
static bool try_drop(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned *nr,
		     unsigned from, unsigned to)
{
	char (*cand)[SCN_STEP_TEXT_MAX] = sim_zalloc((*nr + 1) * sizeof(*cand));
	unsigned n = 0;
	bool ok;

	for (unsigned i = 0; i < *nr; i++)
		if (i < from || i >= to)
			memcpy(cand[n++], texts[i], SCN_STEP_TEXT_MAX);
	ok = n > 0 && min_reproduces(t, cand, n);
	if (ok) {
		memcpy(texts, cand, n * sizeof(*cand));
		*nr = n;
	}
	free(cand);
	return ok;
}

/* Is @path the name @p or a name under it? */
static bool path_under(const char *path, const char *p)
{
	size_t n = strlen(p);

	return strncmp(path, p, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Does namespace step @st work on @p or a name under it (link's and rename's NEW too)? */
static bool step_names(const struct scn_step *st, const char *p)
{
	if (!scn_step_is_namespace(st))
		return false;
	return path_under(st->s_path, p) ||
	       ((st->s_op == SCN_LINK || st->s_op == SCN_RENAME) && path_under(st->s_path2, p));
}

/*
 * Drop the steps on name @p of scenario @s (*@nr steps @texts): those that
 * name it or a name under it, and the data steps while an open of it is
 * the current file; kept if the finding stays.  False when none or kept.
 */
static bool try_drop_name(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned *nr,
			  const struct scenario *s, const char *p)
{
	char (*cand)[SCN_STEP_TEXT_MAX] = sim_zalloc((*nr + 1) * sizeof(*cand));
	bool on_p = false, ok;
	unsigned n = 0;

	for (unsigned i = 0; i < *nr; i++) {
		const struct scn_step *st = &s->steps[i];

		if (st->s_op == SCN_OPEN)
			on_p = path_under(st->s_path, p);
		if (!step_names(st, p) && !(on_p && sim_step_on_file(st->s_op)))
			memcpy(cand[n++], texts[i], SCN_STEP_TEXT_MAX);
	}
	ok = n > 0 && n < *nr && min_reproduces(t, cand, n);
	if (ok) {
		memcpy(texts, cand, n * sizeof(*cand));
		*nr = n;
	}
	free(cand);
	return ok;
}

/*
 * The names a finding does not need: for each name its namespace steps
 * give (in order of first use; "/" and /f, the data steps' first file,
 * aside), every step on it dropped at once, as long as the finding stays.
 * Steps on a name depend on each other (a create, the writes while it is
 * open, a rename of it), so that dropping one alone can change the others'
 * file; dropping them together keeps the rest as it was.
 */
static void minimize_names(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned *nr)
{
	char (*names)[SCN_PATH_MAX] = sim_zalloc((2 * *nr + 1) * sizeof(*names));
	unsigned nn = 0;
	struct scenario s;

	min_build(&s, "names", texts, *nr);
	for (unsigned i = 0; i < *nr; i++) {
		const struct scn_step *st = &s.steps[i];
		const char *cand[2] = { st->s_path, st->s_op == SCN_LINK || st->s_op == SCN_RENAME ?
					st->s_path2 : "" };

		for (unsigned k = 0; scn_step_is_namespace(st) && k < 2; k++) {
			bool seen = !cand[k][0] || !strcmp(cand[k], "/") || !strcmp(cand[k], "/f");

			for (unsigned j = 0; j < nn && !seen; j++)
				seen = strcmp(names[j], cand[k]) == 0;
			if (!seen)
				snprintf(names[nn++], SCN_PATH_MAX, "%s", cand[k]);
		}
	}
	for (unsigned j = 0; j < nn; j++) {
		if (try_drop_name(t, texts, nr, &s, names[j])) {
			scn_free(&s);
			min_build(&s, "names", texts, *nr);
		}
	}
	scn_free(&s);
	free(names);
}

/* ddmin's complement phase: remove chunks of *nr / chunks steps. */
static void minimize_steps(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned *nr)
{
	unsigned chunks = 2;

	while (*nr > 1 && chunks <= *nr) {
		unsigned size = (*nr + chunks - 1) / chunks;
		bool dropped = false;

		for (unsigned from = 0; from < *nr && !dropped; from += size)
			dropped = try_drop(t, texts, nr, from, SIM_MIN(from + size, *nr));
		if (dropped)
			chunks = SIM_MAX(chunks - 1, 2u);
		else if (chunks == *nr)
			break;
		else
			chunks = SIM_MIN(chunks * 2, *nr);
	}
}

/* Smaller values to try for @v, nearest block boundaries first; returns how many. */
static unsigned candidates(int64_t v, int64_t bs, int64_t *out)
{
	unsigned n = 0;
	int64_t down = v / bs * bs, c[5] = { 0, down, down - bs, v / 2, down + bs };

	for (unsigned i = 0; i < 5; i++)
		if (c[i] >= 0 && c[i] < v)
			out[n++] = c[i];
	return n;
}

/* Replace token @k of @text (space-separated) by @v; false if it does not parse. */
static bool with_token(const char *text, unsigned k, int64_t v, char out[SCN_STEP_TEXT_MAX])
{
	char buf[SCN_STEP_TEXT_MAX], *save = NULL, *tok;
	size_t used = 0;
	unsigned i = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	out[0] = 0;
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), i++) {
		int n = i == k ? snprintf(out + used, SCN_STEP_TEXT_MAX - used, "%s%lld",
					  used ? " " : "", (long long)v)
			       : snprintf(out + used, SCN_STEP_TEXT_MAX - used, "%s%s",
					  used ? " " : "", tok);

		if (n < 0 || used + (size_t)n >= SCN_STEP_TEXT_MAX)
			return false;
		used += (size_t)n;
	}
	return true;
}

/* The numbers of step @i: each numeric token (not a -S fill byte) made smaller. */
static void minimize_numbers_of(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX],
				unsigned nr, unsigned i)
{
	char buf[SCN_STEP_TEXT_MAX], *save = NULL, *tok, prev[32] = "";
	int64_t bs = t->cfg.opts.block_size;
	unsigned k = 0;

	snprintf(buf, sizeof(buf), "%s", texts[i]);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), k++) {
		int64_t v, c[5];
		unsigned n;

		if (strcmp(prev, "-S") == 0 || scn_parse_num(tok, &v) < 0 || v <= 0) {
			snprintf(prev, sizeof(prev), "%s", tok);
			continue;
		}
		snprintf(prev, sizeof(prev), "%s", tok);
		n = candidates(v, bs, c);
		for (unsigned j = 0; j < n; j++) {
			char old[SCN_STEP_TEXT_MAX], cand[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
			struct scn_step st;
			unsigned col;

			if (!with_token(texts[i], k, c[j], cand) ||
			    scn_parse_step(cand, &st, err, sizeof(err), &col) < 0)
				continue;
			memcpy(old, texts[i], sizeof(old));
			memcpy(texts[i], cand, sizeof(cand));
			if (min_reproduces(t, texts, nr))
				break;
			memcpy(texts[i], old, sizeof(old));
		}
	}
}

/* The mount options towards the defaults: 4096-byte blocks, ordered, delalloc. */
static void minimize_config(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr)
{
	struct ext4_mount_opts keep = t->cfg.opts;

	if (t->cfg.opts.block_size != 4096) {
		t->cfg.opts.block_size = 4096;
		if (!min_reproduces(t, texts, nr))
			t->cfg.opts = keep;
	}
	keep = t->cfg.opts;
	if (t->cfg.opts.data != DATA_ORDERED || !t->cfg.opts.delalloc) {
		t->cfg.opts.data = DATA_ORDERED;
		t->cfg.opts.delalloc = true;
		if (!min_reproduces(t, texts, nr))
			t->cfg.opts = keep;
	}
}

#define NUMBER_PASSES 4         /* a smaller number can let another shrink */

void min_minimize(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned *nr)
{
	SIM_ASSERT(min_reproduces(t, texts, *nr));
	minimize_names(t, texts, nr);
	minimize_steps(t, texts, nr);
	for (unsigned pass = 0; pass < NUMBER_PASSES; pass++) {
		char (*before)[SCN_STEP_TEXT_MAX] = sim_zalloc((*nr + 1) * sizeof(*before));
		bool same;

		memcpy(before, texts, *nr * sizeof(*before));
		for (unsigned i = 0; i < *nr; i++)
			minimize_numbers_of(t, texts, *nr, i);
		same = memcmp(before, texts, *nr * sizeof(*before)) == 0;
		free(before);
		if (same)
			break;
	}
	minimize_config(t, texts, *nr);
}

/* --- ext4sim minimize --------------------------------------------------- */

/* The variant and invariant to keep: as asked, else the first counted violation. */
static int pick_target(const struct min_request *rq, const char *inv_name, struct min_target *t)
{
	for (unsigned i = 0; i < rq->nr_cfg; i++) {
		struct sim_variant_result r;
		char err[SCN_ERR_MAX];

		if (rq->o.variant && strcmp(rq->o.variant, rq->cfg[i].name))
			continue;
		SIM_ASSERT(sim_run_variant(rq->s, &rq->cfg[i], &t->o, NULL, NULL, &r, err,
					   sizeof(err)) == 0);
		for (int inv = 0; inv < INV_COUNT && t->inv < 0; inv++)
			if (r.violated[inv] && (!inv_name || chk_inv_lookup(inv_name) == inv))
				t->inv = inv;
		sim_variant_result_free(&r, rq->s->nr_steps);
		if (t->inv >= 0) {
			t->cfg = rq->cfg[i];
			return 0;
		}
	}
	fprintf(stderr, "ext4sim: %s: no variant violates %s; nothing to minimize\n", rq->s->path,
		inv_name ? inv_name : "a counted invariant");
	return 2;
}

/*
 * A variant of @rq that differs from the target's only in one toggle and
 * does not violate its invariant: then the finding is that difference.
 */
static void find_diff_partner(const struct min_request *rq, struct min_target *t)
{
	for (unsigned i = 0; i < rq->nr_cfg && !t->diff; i++) {
		const struct sim_variant_cfg *c = &rq->cfg[i];
		const struct ext4_toggle *only = NULL;
		unsigned nr_diff = 0;

		if (memcmp(&c->opts, &t->cfg.opts, sizeof(c->opts)) || !strcmp(c->name, t->cfg.name))
			continue;
		for (unsigned k = 0; k < ext4_toggle_count(); k++) {
			const struct ext4_toggle *tg = ext4_toggle_at(k);

			if (ext4_toggle_get(&c->sem, tg) != ext4_toggle_get(&t->cfg.sem, tg)) {
				only = tg;
				nr_diff++;
			}
		}
		if (nr_diff != 1 || violates(t, rq->s, c))
			continue;
		t->diff = only;
		t->diff_on_side = ext4_toggle_get(&t->cfg.sem, only);
		snprintf(t->partner, sizeof(t->partner), "%s", c->name);
	}
}

/* The variants to write: the target's, and with a difference its partner (off first). */
static unsigned result_variants(const struct min_target *t, struct sim_variant_cfg *v)
{
	v[0] = v[1] = t->cfg;
	if (!t->diff)
		return 1;
	ext4_toggle_set(&v[0].sem, t->diff, false);
	ext4_toggle_set(&v[1].sem, t->diff, true);
	snprintf(v[t->diff_on_side ? 0 : 1].name, sizeof(v[0].name), "%s", t->partner);
	return 2;
}

/* Write the minimized scenario with what it violates as its expect:, and its cause. */
static int write_result(struct min_target *t, const struct min_request *rq,
			char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr, const char *out,
			const char *cause)
{
	bool expect[2][INV_COUNT];
	struct sim_variant_cfg v[2];
	struct scenario s;
	char err[SCN_ERR_MAX], name[SCN_NAME_MAX], desc[1400 + CAUSE_TEXT_MAX];
	unsigned nv = result_variants(t, v);
	struct scn_write w = { .w_scn = &s, .w_description = desc, .w_cfg = &t->cfg,
			       .w_expect = (const bool (*)[INV_COUNT])expect, .w_judging = &t->o,
			       .w_variants = nv > 1 ? v : NULL, .w_nr_variants = nv > 1 ? nv : 0 };
	int rc;

	snprintf(name, sizeof(name), "%.*s-min", (int)sizeof(name) - 5, rq->s->name);
	min_build(&s, name, texts, nr);
	for (unsigned k = 0; k < nv; k++) {
		struct sim_variant_result r;

		SIM_ASSERT(sim_run_variant(&s, &v[k], &t->o, NULL, NULL, &r, err, sizeof(err)) == 0);
		memcpy(expect[k], r.violated, sizeof(expect[k]));
		sim_variant_result_free(&r, s.nr_steps);
	}
	snprintf(desc, sizeof(desc), "%s minimized (variant %s, kernel %s): still violates %s%s%s",
		 rq->s->path, t->cfg.name, t->cfg.profile->name, chk_inv_info(t->inv)->name,
		 t->diff ? ", which variant " : "", t->diff ? t->partner : "");
	if (t->diff)
		snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), " (%s %s) does not",
			 t->diff->name, t->diff_on_side ? "off" : "on");
	snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), "; cause: %s", cause);
	rc = scn_write_yaml(&w, out, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "ext4sim: %s\n", err);
	scn_free(&s);
	return rc < 0 ? 2 : 0;
}

int min_run(const struct min_request *rq)
{
	struct min_target *t = sim_zalloc(sizeof(*t));
	char (*texts)[SCN_STEP_TEXT_MAX] = NULL, cause[CAUSE_TEXT_MAX];
	unsigned nr, before;
	int rc;

	t->o = rq->o;
	t->o.quiet = true;
	t->o.json = false;
	t->inv = -1;
	if ((rc = pick_target(rq, rq->invariant, t)))
		goto out_free;
	find_diff_partner(rq, t);
	nr = before = rq->s->nr_steps;
	texts = sim_zalloc((nr + 1) * sizeof(*texts));
	for (unsigned i = 0; i < nr; i++)
		memcpy(texts[i], rq->s->steps[i].s_text, SCN_STEP_TEXT_MAX);
	min_minimize(t, texts, &nr);
	cause_signature(t, texts, nr, cause, sizeof(cause));
	if ((rc = write_result(t, rq, texts, nr, rq->out, cause)) == 0)
		printf("%s: %u step(s) -> %u, variant %s still violates %s%s%s (%llu runs): %s\n"
		       "    cause: %s\n", rq->in_path, before, nr, t->cfg.name,
		       chk_inv_info(t->inv)->name, t->diff ? ", not variant " : "",
		       t->diff ? t->partner : "", (unsigned long long)t->runs, rq->out, cause);
out_free:
	free(texts);
	free(t);
	return rc;
}
