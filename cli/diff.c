/*
 * diff.c - ext4sim diff FILE.yaml --patch NAME [FLAGS]: every variant of
 * the scenario run twice, with patch toggle NAME off and on over the
 * variant's own profile and settings, and what changed side by side: the
 * verdict and the invariants violated, the final sizes, every counter that
 * differs, and per crash point the raw / distinct / violating counts and
 * the distinct states (size, SHA-256, violations) found on one side only.
 * With --json, one document with both runs of each variant in the shape
 * `run --json` prints.  Exit status: 0 when both runs of every variant
 * completed, 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "explain.h"
#include "report.h"

/* A verdict as "PASS [a, b]". */
static void verdict_text(const struct sim_variant_result *r, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "%s [", r->passed ? "PASS" : "FAIL");

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

/* The distinct states of @p that @other lacks. */
static void print_only(const char *side, const struct cs_point *p, const struct cs_point *other)
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
	}
}

static void point_text(const struct cs_point *p, char *out, size_t cap)
{
	if (!p)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "raw %.0f, distinct %u, violating %u", p->raw_states, p->nr_states,
			 p->nr_violating);
}

/* Crash points side by side, paired by position in the run. */
static void diff_points(const struct sim_variant_result *a, const struct sim_variant_result *b)
{
	static const char *const where[] = { "after", "inside (flush)", "inside (FUA)" };
	uint32_t n = SIM_MAX(a->nr_points, b->nr_points);

	for (uint32_t i = 0; i < n; i++) {
		const struct cs_point *p = i < a->nr_points ? &a->points[i] : NULL;
		const struct cs_point *q = i < b->nr_points ? &b->points[i] : NULL;
		const struct cs_point *any = p ? p : q;
		char what[64], x[64], y[64];

		snprintf(what, sizeof(what), "crash point %u, %s step %u", i + 1,
			 any->within ? where[any->within] : any->hypothetical ? "after" : "crash at",
			 any->step);
		point_text(p, x, sizeof(x));
		point_text(q, y, sizeof(y));
		print_row(what, x, y);
		print_only("off", p, q);
		print_only("on", q, p);
	}
}

/* Is the rule of size event @e (by field and function) among @r's size events? */
static bool uses_rule(const struct sim_variant_result *r, const struct sim_event *e)
{
	for (uint32_t i = 0; i < r->events.l_nr; i++) {
		const struct sim_event *o = &r->events.l_ev[i];

		if (o->ev_type == e->ev_type && strcmp(o->ev_func, e->ev_func) == 0)
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
			seen = r->events.l_ev[k].ev_type == e->ev_type &&
			       strcmp(r->events.l_ev[k].ev_func, e->ev_func) == 0;
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

static void diff_text(const struct scenario *s, const struct sim_variant_result *a,
		      const struct sim_variant_result *b, const char *patch)
{
	char x[256], y[256];

	printf("== %s, variant %s (kernel %s): %s off | on\n", s->name, a->cfg.name,
	       a->cfg.profile->name, patch);
	verdict_text(a, x, sizeof(x));
	verdict_text(b, y, sizeof(y));
	print_row("verdict", x, y);
	snprintf(x, sizeof(x), "%lld", (long long)a->final_size);
	snprintf(y, sizeof(y), "%lld", (long long)b->final_size);
	print_row("final i_size", x, y);
	snprintf(x, sizeof(x), "%lld", (long long)a->final_disksize);
	snprintf(y, sizeof(y), "%lld", (long long)b->final_disksize);
	print_row("final i_disksize", x, y);
	diff_counters(a, b);
	diff_rules(a, b);
	diff_points(a, b);
}

/* Split "--patch NAME" (no '=') out of the arguments; the rest go to parse_run_args. */
static int take_patch(int *argc, char **argv, const char **patch)
{
	int n = 0;

	*patch = NULL;
	for (int i = 0; i < *argc; i++) {
		if (strcmp(argv[i], "--patch") == 0 && i + 1 < *argc && !strchr(argv[i + 1], '=')) {
			if (*patch)
				return bad_usage("diff takes one --patch NAME%s", "");
			*patch = argv[++i];
			continue;
		}
		argv[n++] = argv[i];
	}
	*argc = n;
	if (!*patch)
		return bad_usage("diff needs --patch NAME (`ext4sim patches` lists them)%s", "");
	if (!ext4_toggle_find(*patch))
		return bad_usage("unknown patch '%s' (`ext4sim patches` lists them)", *patch);
	return 0;
}

/* Run variant @cfg with the toggle set to @on, named "VARIANT". */
static void run_side(const struct loaded *ld, const struct sim_variant_cfg *cfg,
		     const struct ext4_toggle *t, bool on, const struct sim_options *o,
		     struct sim_variant_result *r)
{
	struct sim_variant_cfg c = *cfg;
	char err[SCN_ERR_MAX];

	ext4_toggle_set(&c.sem, t, on);
	SIM_ASSERT(sim_run_variant(&ld->s, &c, o, NULL, NULL, r, err, sizeof(err)) == 0);
}

static void diff_one(struct cli *c, const struct loaded *ld, const struct sim_variant_cfg *cfg,
		     const char *patch, bool first)
{
	const struct ext4_toggle *t = ext4_toggle_find(patch);
	struct sim_variant_result a, b;

	run_side(ld, cfg, t, false, &c->o, &a);
	run_side(ld, cfg, t, true, &c->o, &b);
	if (c->o.json) {
		printf("%s{\"variant\": ", first ? "" : ", ");
		json_string(stdout, cfg->name);
		printf(", \"off\": ");
		report_json_variant(stdout, &ld->s, &a, "");
		printf(", \"on\": ");
		report_json_variant(stdout, &ld->s, &b, "");
		putchar('}');
	} else {
		diff_text(&ld->s, &a, &b, patch);
	}
	sim_variant_result_free(&a, ld->s.nr_steps);
	sim_variant_result_free(&b, ld->s.nr_steps);
}

int cmd_diff(int argc, char **argv)
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
	if ((rc = take_patch(&argc, argv, &patch)) || (rc = parse_run_args(c, argc, argv)))
		goto out_free;
	if (c->nr_inputs != 1 || c->nr_cmds) {
		rc = bad_usage("diff takes one scenario file%s", "");
		goto out_free;
	}
	if ((rc = load_one(c, c->inputs[0], ld)))
		goto out_free;
	if (c->o.json) {
		printf("{\"ext4sim\": \"%s\", \"scenario\": ", EXT4SIM_VERSION);
		json_string(stdout, ld->s.name);
		printf(", \"patch\": ");
		json_string(stdout, patch);
		printf(", \"variants\": [");
	}
	for (unsigned i = 0, n = 0; i < ld->nr_cfg; i++)
		if (!c->o.variant || strcmp(ld->cfg[i].name, c->o.variant) == 0)
			diff_one(c, ld, &ld->cfg[i], patch, n++ == 0);
	if (c->o.json)
		printf("]}\n");
out_free:
	scn_free(&ld->s);
	free(ld);
	free(c);
	return rc;
}
