/*
 * diff.c - ext4sim diff FILE.yaml --patch NAME [FLAGS]: every variant of
 * the scenario run twice, with patch toggle NAME off and on over the
 * variant's own profile and settings, and what changed side by side: the
 * verdict and the invariants violated, the final sizes, every counter that
 * differs, and per crash point the raw / distinct / violating counts and
 * the distinct states (size, SHA-256, violations) found on one side only,
 * with the bytes where each differs from the other side's, and the final
 * bytes.  A variant whose runs would repeat an earlier variant's (it
 * differs from it only in the toggle) is named, not run again.  With
 * --json, one document with both runs of each variant in the shape
 * `run --json` prints.  Exit status: 0 when every variant's verdict is the
 * same off and on, 1 when some variant's differs, 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "content.h"
#include "explain.h"
#include "report.h"

/*
 * A verdict in run's sense (PASS: the variant met its expect:) as
 * "as expected [a, b]" or "not as expected [a, b]", with the invariants
 * violated; matrix and bisect, which set expect: aside, say "violates
 * nothing" instead (outcome_verdict_text).
 */
static void verdict_text(const struct sim_variant_result *r, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "%s [", r->passed ? "as expected" : "not as expected");

	for (int inv = 0, any = 0; inv < INV_COUNT && n < cap; inv++)
		if (r->violated[inv])
			n += (size_t)snprintf(out + n, cap - n, "%s%s", any++ ? ", " : "",
					      chk_inv_info(inv)->name);
	if (n < cap)
		snprintf(out + n, cap - n, "]");
}

static void print_row(const char *what, const char *off, const char *on)
{
	printf("  %-34s %-36s %s%s\n", what, off, on, strcmp(off, on) ? "   <- differs" : "");
}

static void diff_counters(const struct sim_variant_result *a, const struct sim_variant_result *b)
{
	struct named_count x[REPORT_COUNTERS_MAX], y[REPORT_COUNTERS_MAX];
	unsigned n = report_counters_flat(&a->counters, x), same = 0;

	report_counters_flat(&b->counters, y);
	for (unsigned i = 0; i < n; i++) {
		char p[32], q[32];

		if (x[i].value == y[i].value) {
			same++;
			continue;
		}
		snprintf(p, sizeof(p), "%llu", (unsigned long long)x[i].value);
		snprintf(q, sizeof(q), "%llu (%+lld)", (unsigned long long)y[i].value,
			 (long long)(y[i].value - x[i].value));
		print_row(x[i].name, p, q);
	}
	printf("  %u other counter(s) equal\n", same);
}

static bool has_state(const struct cs_point *p, const struct cs_state *st)
{
	for (uint32_t i = 0; p && i < p->nr_states; i++)
		if (p->states[i].size == st->size && strcmp(p->states[i].sha256, st->sha256) == 0 &&
		    p->states[i].mask == st->mask)
			return true;
	return false;
}

/* Where a crash state's bytes can be had again: a run that ends with its example. */
struct side {
	const struct loaded *ld;
	struct sim_variant_cfg cfg;
	const struct sim_options *o;
};

/*
 * The recovered content of state @st of point @p: the steps before the
 * crash, then its example ("crash --keep LIST") as a step.  False for a
 * point inside a step (no step line replays it).
 */
static bool state_content(const struct side *sd, const struct cs_point *p,
			  const struct cs_state *st, struct sim_content *out)
{
	struct scenario *s = sim_zalloc(sizeof(*s));
	uint32_t n = p->hypothetical ? p->step : p->step - 1;
	struct sim_options o = *sd->o;
	struct sim_variant_result r;
	char err[SCN_ERR_MAX];
	unsigned col;
	bool ok = false;

	*s = sd->ld->s;
	s->has_expect = false;
	s->nr_expect = s->nr_cs_expect = 0;
	s->steps = sim_zalloc((n + 1) * sizeof(*s->steps));
	memcpy(s->steps, sd->ld->s.steps, n * sizeof(*s->steps));
	s->nr_steps = n + 1;
	if (!p->within && scn_parse_step(st->example, &s->steps[n], err, sizeof(err), &col) == 0) {
		o.crash_bound = 0;
		o.crash_everywhere = false;
		o.record_events = false;
		o.final_bytes = true;
		SIM_ASSERT(sim_run_variant(s, &sd->cfg, &o, NULL, NULL, &r, err, sizeof(err)) == 0);
		*out = r.final_content;
		memset(&r.final_content, 0, sizeof(r.final_content));
		sim_variant_result_free(&r, s->nr_steps);
		ok = true;
	}
	free(s->steps);
	free(s);
	return ok;
}

/* The state of @p to hold @st against: the one with the same example, else the first. */
static const struct cs_state *counterpart(const struct cs_point *p, const struct cs_state *st)
{
	for (uint32_t i = 0; p && i < p->nr_states; i++)
		if (strcmp(p->states[i].example, st->example) == 0)
			return &p->states[i];
	return p && p->nr_states ? &p->states[0] : NULL;
}

/* The bytes where state @st (of side @me) differs from its counterpart on @other. */
static void print_state_bytes(const struct side *me, const struct cs_point *p,
			      const struct cs_state *st, const struct side *other,
			      const struct cs_point *q, bool me_is_off)
{
	const struct cs_state *cp = counterpart(q, st);
	struct sim_content a, b;
	char text[4096], *line, *save = NULL;

	if (!cp || (!me_is_off && !has_state(p, cp)))
		return;         /* an on-only state against an off-only one: shown with it */
	if (!state_content(me, p, st, &a))
		return;
	if (!state_content(other, q, cp, &b)) {
		sim_content_free(&a);
		return;
	}
	sim_content_diff(me_is_off ? &a : &b, me_is_off ? &b : &a, 8, text, sizeof(text));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("        bytes %s (off | on; the other side's state: %s)\n", line,
		       cp->example);
	sim_content_free(&a);
	sim_content_free(&b);
}

/* The distinct states of @p that @other lacks, with the bytes they differ in. */
static void print_only(const char *side, const struct cs_point *p, const struct cs_point *other,
		       const struct side *me, const struct side *them)
{
	for (uint32_t i = 0; p && i < p->nr_states; i++) {
		const struct cs_state *st = &p->states[i];

		if (has_state(other, st))
			continue;
		printf("      only %s: size %lld sha256 %.16s... raw %llu (%s)", side,
		       (long long)st->size, st->sha256, (unsigned long long)st->raw_states,
		       st->example);
		for (int inv = 0; inv < INV_COUNT; inv++)
			if (st->violated[inv])
				printf(" %s", chk_inv_info(inv)->name);
		putchar('\n');
		print_state_bytes(me, p, st, them, other, strcmp(side, "off") == 0);
	}
}

static void point_text(const struct cs_point *p, char *out, size_t cap)
{
	if (!p)
		snprintf(out, cap, "no crash point here");
	else
		snprintf(out, cap, "raw %.0f, distinct %u, violating %u", p->raw_states, p->nr_states,
			 p->nr_violating);
}

/* Do @p and @q (both present) hold the same distinct states? */
static bool same_states(const struct cs_point *p, const struct cs_point *q)
{
	for (uint32_t i = 0; i < p->nr_states; i++)
		if (!has_state(q, &p->states[i]))
			return false;
	for (uint32_t i = 0; i < q->nr_states; i++)
		if (!has_state(p, &q->states[i]))
			return false;
	return true;
}

/* Do two crash points stand for the same moment of their step (the same write, in a commit or not)? */
static bool same_moment(const struct cs_point *p, const struct cs_point *q)
{
	return p->within == q->within && !p->in_commit == !q->in_commit &&
	       (p->within != BD_BEFORE_FUA || p->fua_kind == q->fua_kind);
}

/* The points of one step on both sides: @a[0..@na) off, @b[0..@nb) on. */
struct step_points {
	const struct cs_point *a, *b;
	uint32_t na, nb;
	uint32_t step;
};

/*
 * One place: the points @p (off) and @q (on), either NULL when that side has
 * none there, under "step S (OP), point K: MOMENT" (K: the place among the
 * step's points inside it, 0 for the step's own end).
 */
static void print_place(const struct scenario *s, const struct cs_point *p,
			const struct cs_point *q, uint32_t k, const struct side *sa,
			const struct side *sb)
{
	const struct cs_point *any = p ? p : q;
	char moment[96], what[64], x[64], y[64], nx[16], ny[16];

	cs_point_moment(any, moment, sizeof(moment));
	SIM_ASSERT(any->step >= 1 && any->step <= s->nr_steps);
	if (k)
		printf("  step %u (%s), point %u: %s\n", any->step,
		       scn_op_name(s->steps[any->step - 1].s_op), k, moment);
	else
		printf("  step %u (%s): %s\n", any->step, scn_op_name(s->steps[any->step - 1].s_op),
		       moment);
	snprintf(nx, sizeof(nx), "%u", p ? p->point_no : 0);
	snprintf(ny, sizeof(ny), "%u", q ? q->point_no : 0);
	snprintf(what, sizeof(what), "  the run's point %s | %s", p ? nx : "-", q ? ny : "-");
	point_text(p, x, sizeof(x));
	point_text(q, y, sizeof(y));
	if (strcmp(x, y) == 0 && !same_states(p, q))    /* the same counts, other states */
		printf("  %-34s %-36s %s   <- differs (the states)\n", what, x, y);
	else
		print_row(what, x, y);
	print_only("off", p, q, sa, sb);
	print_only("on", q, p, sb, sa);
}

#define DIFF_LCS_CELLS_MAX (1u << 22)    /* past this, a step's points pair by position */

/*
 * The points inside one step, paired by a longest common subsequence of
 * their moments (a flush with a flush, the FUA write of a commit block with
 * another), so that a side with one more point leaves the others paired.
 * A step with more points than DIFF_LCS_CELLS_MAX allows for the table
 * pairs them greedily in order (a point whose moment the other side's next
 * point does not share stands alone).
 */
static void diff_inside(const struct scenario *s, const struct step_points *sp, uint32_t na,
			uint32_t nb, const struct side *sa, const struct side *sb)
{
	uint32_t w = nb + 1, i = 0, j = 0, k = 0;
	bool lcs = (uint64_t)(na + 1) * w <= DIFF_LCS_CELLS_MAX;
	uint32_t *len = sim_zalloc((lcs ? (size_t)(na + 1) * w : 1) * sizeof(*len));

	for (uint32_t x = na; lcs && x-- > 0;)
		for (uint32_t y = nb; y-- > 0;)
			len[x * w + y] = same_moment(&sp->a[x], &sp->b[y]) ?
					 len[(x + 1) * w + y + 1] + 1 :
					 SIM_MAX(len[(x + 1) * w + y], len[x * w + y + 1]);
	while (i < na || j < nb) {
		const struct cs_point *p = NULL, *q = NULL;

		if (i < na && j < nb && same_moment(&sp->a[i], &sp->b[j]) &&
		    (!lcs || len[i * w + j] == len[(i + 1) * w + j + 1] + 1)) {
			p = &sp->a[i++];
			q = &sp->b[j++];
		} else if (j == nb || (i < na && (!lcs || len[(i + 1) * w + j] >= len[i * w + j + 1]))) {
			p = &sp->a[i++];
		} else {
			q = &sp->b[j++];
		}
		print_place(s, p, q, ++k, sa, sb);
	}
	free(len);
}

/* The points of one step: those inside it, then its end (after it, or the crash). */
static void diff_step(const struct scenario *s, const struct step_points *sp,
		      const struct side *sa, const struct side *sb)
{
	uint32_t na = sp->na, nb = sp->nb;
	const struct cs_point *p = NULL, *q = NULL;

	if (na && !sp->a[na - 1].within)
		p = &sp->a[--na];
	if (nb && !sp->b[nb - 1].within)
		q = &sp->b[--nb];
	for (uint32_t i = 0; i < na; i++)
		SIM_ASSERT(sp->a[i].within);
	for (uint32_t i = 0; i < nb; i++)
		SIM_ASSERT(sp->b[i].within);
	diff_inside(s, sp, na, nb, sa, sb);
	if (p || q)
		print_place(s, p, q, 0, sa, sb);
}

/*
 * Crash points side by side, paired by place: by step, and inside a step
 * by moment (diff_inside), not by their numbers in the run, so that a side
 * with one more point does not shift every later pair.
 */
static void diff_points(const struct scenario *s, const struct sim_variant_result *a,
			const struct sim_variant_result *b, const struct side *sa,
			const struct side *sb)
{
	uint32_t i = 0, j = 0;

	while (i < a->nr_points || j < b->nr_points) {
		struct step_points sp = { .a = &a->points[i], .b = &b->points[j], .step = UINT32_MAX };

		if (i < a->nr_points)
			sp.step = a->points[i].step;
		if (j < b->nr_points)
			sp.step = SIM_MIN(sp.step, b->points[j].step);
		while (i + sp.na < a->nr_points && a->points[i + sp.na].step == sp.step)
			sp.na++;
		while (j + sp.nb < b->nr_points && b->points[j + sp.nb].step == sp.step)
			sp.nb++;
		diff_step(s, &sp, sa, sb);
		i += sp.na;
		j += sp.nb;
	}
}

/* Is the rule of size event @e among @r's size events? */
static bool uses_rule(const struct sim_variant_result *r, const struct sim_event *e)
{
	for (uint32_t i = 0; i < r->events.l_nr; i++) {
		const struct sim_event *o = &r->events.l_ev[i];

		if (explain_same_rule(o, e))
			return true;
	}
	return false;
}

/* The size rules one side applied and the other did not, once each, in words. */
static void print_rules_only(const char *side, const struct sim_variant_result *r,
			     const struct sim_variant_result *other)
{
	char text[EXPLAIN_LINE_MAX + 256];

	for (uint32_t i = 0; i < r->events.l_nr; i++) {
		const struct sim_event *e = &r->events.l_ev[i];
		bool seen = false;

		if (e->ev_type != EV_I_SIZE && e->ev_type != EV_I_DISKSIZE)
			continue;
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = explain_same_rule(&r->events.l_ev[k], e);
		if (seen || uses_rule(other, e))
			continue;
		explain_size_rule(e, &r->cfg.sem, text, sizeof(text));
		printf("  %-22s %s moved by %s\n", side, e->ev_type == EV_I_SIZE ? "i_size" :
		       "i_disksize", text);
	}
}

static void diff_rules(const struct sim_variant_result *a, const struct sim_variant_result *b)
{
	print_rules_only("rule only off:", a, b);
	print_rules_only("rule only on:", b, a);
}

/* The final bytes: their digests, and where they differ. */
static void diff_final_bytes(const struct sim_variant_result *a, const struct sim_variant_result *b)
{
	char x[64], y[64], text[4096], *line, *save = NULL;

	snprintf(x, sizeof(x), "sha256 %.16s...", a->final_content.sha256);
	snprintf(y, sizeof(y), "sha256 %.16s...", b->final_content.sha256);
	print_row("final bytes", x, y);
	sim_content_diff(&a->final_content, &b->final_content, 8, text, sizeof(text));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("      bytes %s (off | on)\n", line);
}

/* The steps whose result (0 or the errno) differs between the two runs. */
static void diff_results(const struct scenario *s, const struct sim_variant_result *a,
			 const struct sim_variant_result *b)
{
	char what[64], x[64], y[64];

	for (uint32_t i = 0; i < s->nr_steps; i++) {
		int ea = a->steps[i].err, eb = b->steps[i].err;

		if (ea == eb)
			continue;
		snprintf(what, sizeof(what), "step %u (%s): result", i + 1,
			 scn_op_name(s->steps[i].s_op));
		snprintf(x, sizeof(x), "%s", ea ? strerror(-ea) : "0");
		snprintf(y, sizeof(y), "%s", eb ? strerror(-eb) : "0");
		print_row(what, x, y);
	}
}

static void diff_text(const struct scenario *s, const struct sim_variant_result *a,
		      const struct sim_variant_result *b, const char *patch,
		      const struct side *sa, const struct side *sb)
{
	char x[256], y[256];

	printf("== %s, variant %s (kernel %s): %s off | on\n", s->name, a->cfg.name,
	       a->cfg.profile->name, patch);
	verdict_text(a, x, sizeof(x));
	verdict_text(b, y, sizeof(y));
	print_row("expect: met? [violated]", x, y);
	snprintf(x, sizeof(x), "%lld", (long long)a->final_size);
	snprintf(y, sizeof(y), "%lld", (long long)b->final_size);
	print_row("final i_size", x, y);
	snprintf(x, sizeof(x), "%lld", (long long)a->final_disksize);
	snprintf(y, sizeof(y), "%lld", (long long)b->final_disksize);
	print_row("final i_disksize", x, y);
	diff_final_bytes(a, b);
	diff_results(s, a, b);
	diff_counters(a, b);
	diff_rules(a, b);
	diff_points(s, a, b, sa, sb);
}

/* Split "--patch NAME" (no '=') out of the arguments; the rest go to parse_run_args. */
static int take_patch(int *argc, struct cmd_opt *opts, const char **patch)
{
	int n = 0;

	*patch = NULL;
	for (int i = 0; i < *argc; i++) {
		if (opts[i].id == F_PATCH && !strchr(opts[i].val, '=')) {
			if (*patch)
				return bad_usage("diff takes one --patch NAME%s", "");
			*patch = opts[i].val;
			continue;
		}
		opts[n++] = opts[i];
	}
	*argc = n;
	if (!*patch)
		return bad_usage("diff needs --patch NAME (`ext4sim patches` lists them)%s", "");
	if (!ext4_toggle_find(*patch))
		return bad_usage("unknown patch '%s' (`ext4sim patches` lists them)", *patch);
	return 0;
}

/* Run variant @cfg with the toggle set to @on, named "VARIANT". */
static void run_side(const struct side *sd, struct sim_variant_result *r)
{
	char err[SCN_ERR_MAX];

	SIM_ASSERT(sim_run_variant(&sd->ld->s, &sd->cfg, sd->o, NULL, NULL, r, err,
				   sizeof(err)) == 0);
}

/* Do the verdicts differ (the invariants counted as violated)? */
static bool verdicts_differ(const struct sim_variant_result *a, const struct sim_variant_result *b)
{
	return memcmp(a->violated, b->violated, sizeof(a->violated)) != 0;
}

static void json_final_bytes(const struct sim_variant_result *a, const struct sim_variant_result *b)
{
	char text[4096], *line, *save = NULL;
	unsigned n = 0;

	sim_content_diff(&a->final_content, &b->final_content, 64, text, sizeof(text));
	printf(", \"final_bytes_differ\": [");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		printf("%s", n++ ? ", " : "");
		json_string(stdout, line);
	}
	putchar(']');
}

/* Both runs of variant @cfg; true when their verdicts differ. */
static bool diff_one(struct cli *c, const struct loaded *ld, const struct sim_variant_cfg *cfg,
		     const char *patch, bool first)
{
	const struct ext4_toggle *t = ext4_toggle_find(patch);
	struct side sa = { ld, *cfg, &c->o }, sb = { ld, *cfg, &c->o };
	struct sim_variant_result a, b;
	bool differ;

	ext4_toggle_set(&sa.cfg.sem, t, false);
	ext4_toggle_set(&sb.cfg.sem, t, true);
	run_side(&sa, &a);
	run_side(&sb, &b);
	differ = verdicts_differ(&a, &b);
	if (c->o.json) {
		printf("%s{\"variant\": ", first ? "" : ", ");
		json_string(stdout, cfg->name);
		printf(", \"verdicts_differ\": %s", differ ? "true" : "false");
		json_final_bytes(&a, &b);
		printf(", \"off\": ");
		report_json_variant(stdout, &ld->s, &a, "");
		printf(", \"on\": ");
		report_json_variant(stdout, &ld->s, &b, "");
		putchar('}');
	} else {
		diff_text(&ld->s, &a, &b, patch, &sa, &sb);
	}
	sim_variant_result_free(&a, ld->s.nr_steps);
	sim_variant_result_free(&b, ld->s.nr_steps);
	return differ;
}

/*
 * An earlier variant whose runs variant @i's would repeat: the same mount
 * options and the same semantics once toggle @t is forced; -1 if none.
 */
static int same_as_earlier(const struct loaded *ld, unsigned i, const struct ext4_toggle *t)
{
	struct sim_variant_cfg x = ld->cfg[i];

	ext4_toggle_set(&x.sem, t, false);
	for (unsigned k = 0; k < i; k++) {
		struct sim_variant_cfg y = ld->cfg[k];
		const struct ext4_mount_opts *p = &x.opts, *q = &y.opts;

		ext4_toggle_set(&y.sem, t, false);
		if (p->block_size == q->block_size && p->data == q->data &&
		    p->delalloc == q->delalloc && p->dioread_nolock == q->dioread_nolock &&
		    p->auto_da_alloc == q->auto_da_alloc && p->disk_blocks == q->disk_blocks &&
		    memcmp(&x.sem, &y.sem, sizeof(x.sem)) == 0)
			return (int)k;
	}
	return -1;
}

/* Load FILE.yaml or the -c steps. */
static int diff_load(struct cli *c, struct loaded *ld)
{
	int rc;

	if (c->nr_inputs + (c->nr_cmds > 0) != 1)
		return bad_usage("diff takes one scenario file or -c steps%s", "");
	if (c->nr_cmds && (rc = inline_scenario(c, &ld->s)))
		return rc;
	return load_one(c, c->nr_cmds ? NULL : c->inputs[0], ld);
}

/* Every variant (one block for variants that differ only in the toggle); 0 or 1. */
static int diff_all(struct cli *c, const struct loaded *ld, const char *patch)
{
	const struct ext4_toggle *t = ext4_toggle_find(patch);
	bool differ = false;

	for (unsigned i = 0, n = 0; i < ld->nr_cfg; i++) {
		int same = c->o.variant ? -1 : same_as_earlier(ld, i, t);

		if (c->o.variant && strcmp(ld->cfg[i].name, c->o.variant))
			continue;
		if (same >= 0) {
			if (!c->o.json)
				printf("== %s, variant %s: the runs of variant %s (it differs only in "
				       "%s)\n", ld->s.name, ld->cfg[i].name, ld->cfg[same].name, patch);
			continue;
		}
		differ |= diff_one(c, ld, &ld->cfg[i], patch, n++ == 0);
	}
	return differ ? 1 : 0;
}

int cmd_diff(int argc, struct cmd_opt *opts)
{
	struct cli *c = calloc(1, sizeof(*c));
	struct loaded *ld = calloc(1, sizeof(*ld));
	const char *patch;
	int rc;

	SIM_ASSERT(c != NULL && ld != NULL);
	c->o.crash_bound = CS_BOUND_DEFAULT;
	c->o.name_writes = true;
	c->o.crash_digest = true;
	c->o.quiet = true;
	c->o.record_events = true;      /* the size rules each side applied */
	c->o.final_bytes = true;
	if ((rc = take_patch(&argc, opts, &patch)) || (rc = parse_run_args(c, argc, opts)) ||
	    (rc = diff_load(c, ld)))
		goto out_free;
	if (c->o.json) {
		printf("{\"ext4sim\": \"%s\", \"scenario\": ", EXT4SIM_VERSION);
		json_string(stdout, ld->s.name);
		printf(", \"patch\": ");
		json_string(stdout, patch);
		printf(", \"variants\": [");
	}
	rc = diff_all(c, ld, patch);
	if (c->o.json)
		printf("]}\n");
out_free:
	scn_free(&ld->s);
	free(ld);
	free(c);
	return rc;
}
