/*
 * matrix.c - ext4sim matrix FILE.yaml [--toggles] [--json]: the scenario
 * under every kernel profile (mainline in release order, then the
 * distribution profiles), or with --toggles under one profile with each
 * toggle flipped in turn: per row the verdict, the invariants counted as
 * violated, the final bytes' SHA-256 and a digest of every crash state;
 * a row that differs from the one it is compared with (the row above; with
 * --toggles, the profile's own row) is marked.  The affected-kernels table.
 *
 * Also the outcome both matrix and bisect (bisect.c) compare: what a run
 * shows, with the scenario's expectations set aside (only counted
 * invariants make a verdict, as in a scenario without expect:).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "sha256.h"

/* A digest of every crash point's distinct states: where, sizes, bytes, violations. */
static void states_digest(const struct sim_variant_result *r, char out[65])
{
	struct sha256 h;
	uint8_t d[32];

	sha256_init(&h);
	for (uint32_t i = 0; i < r->nr_points; i++) {
		const struct cs_point *p = &r->points[i];

		sha256_update(&h, &p->step, sizeof(p->step));
		sha256_update(&h, &p->within, sizeof(p->within));
		for (uint32_t k = 0; k < p->nr_states; k++) {
			sha256_update(&h, p->states[k].sha256, 64);
			sha256_update(&h, &p->states[k].mask, sizeof(p->states[k].mask));
		}
	}
	sha256_final(&h, d);
	sha256_hex(d, out);
}

void outcome_run(const struct loaded *ld, const struct sim_variant_cfg *cfg,
		 const struct sim_options *base, struct run_outcome *out)
{
	struct scenario *s = sim_zalloc(sizeof(*s));
	struct sim_options o = *base;
	struct sim_variant_result r;
	char err[SCN_ERR_MAX];

	*s = ld->s;                     /* the steps are shared, not copied */
	s->has_expect = false;
	s->nr_expect = s->nr_cs_expect = 0;
	o.quiet = true;
	o.json = false;
	o.crash_digest = true;
	o.final_digest = true;
	SIM_ASSERT(sim_run_variant(s, cfg, &o, NULL, NULL, &r, err, sizeof(err)) == 0);
	memcpy(out->violated, r.violated, sizeof(out->violated));
	memcpy(out->final_sha256, r.final_content.sha256, sizeof(out->final_sha256));
	states_digest(&r, out->states_sha256);
	sim_variant_result_free(&r, s->nr_steps);
	free(s);
}

bool outcome_same_verdict(const struct run_outcome *a, const struct run_outcome *b)
{
	return memcmp(a->violated, b->violated, sizeof(a->violated)) == 0;
}

bool outcome_same(const struct run_outcome *a, const struct run_outcome *b)
{
	return outcome_same_verdict(a, b) && strcmp(a->final_sha256, b->final_sha256) == 0 &&
	       strcmp(a->states_sha256, b->states_sha256) == 0;
}

void outcome_verdict_text(const struct run_outcome *oc, char *out, size_t cap)
{
	size_t n = 0;
	bool any = false;

	for (int inv = 0; inv < INV_COUNT; inv++)
		any |= oc->violated[inv];
	n = (size_t)snprintf(out, cap, "%s [", any ? "FAIL" : "PASS");
	for (int inv = 0, k = 0; inv < INV_COUNT && n < cap; inv++)
		if (oc->violated[inv])
			n += (size_t)snprintf(out + n, cap - n, "%s%s", k++ ? ", " : "",
					      chk_inv_info(inv)->name);
	if (n < cap)
		snprintf(out + n, cap - n, "]");
}

int cfg_for_profile(const struct cli *c, const struct loaded *ld, const char *variant,
		    const struct ext4_profile *p, struct sim_variant_cfg *out)
{
	struct sim_overrides ov = c->ov;
	struct sim_variant_cfg *cfg = sim_zalloc(SCN_VARIANTS_MAX * sizeof(*cfg));
	struct scenario *s = sim_zalloc(sizeof(*s));
	char err[SCN_ERR_MAX];
	unsigned nr = 0, pick = 0;
	int rc = 0;

	*s = ld->s;
	if (!variant)
		s->nr_variants = 0;     /* the config and --patch flags only */
	ov.has_kernel = true;
	snprintf(ov.kernel, sizeof(ov.kernel), "%s", p->name);
	SIM_ASSERT(sim_resolve_variants(s, &ov, cfg, &nr, err, sizeof(err)) == 0);
	while (variant && pick < nr && strcmp(cfg[pick].name, variant))
		pick++;
	if (pick == nr)
		rc = bad_usage("the scenario has no variant '%s'", variant);
	else
		*out = cfg[pick];
	free(cfg);
	free(s);
	return rc;
}

/* The profiles in release order: mainline by version, then the others as listed. */
static unsigned profiles_in_order(const struct ext4_profile **out)
{
	unsigned n = ext4_profile_mainline(out);

	for (unsigned i = 0; i < ext4_profile_count(); i++)
		if (ext4_profile_version(ext4_profile_at(i)) < 0)
			out[n++] = ext4_profile_at(i);
	return n;
}

/* One row of the matrix. */
struct mrow {
	const struct ext4_profile *profile;
	const struct ext4_toggle *toggle;       /* --toggles: the toggle flipped, else NULL */
	bool on;                                /* its value in this row */
	struct run_outcome oc;
	bool differs;
};

static void print_row_text(const struct mrow *m)
{
	char what[96], verdict[512];

	if (m->toggle)
		snprintf(what, sizeof(what), "%s %s", m->toggle->name, m->on ? "on" : "off");
	else
		snprintf(what, sizeof(what), "%s", m->profile->name);
	outcome_verdict_text(&m->oc, verdict, sizeof(verdict));
	printf("  %-32s %-52s %.16s  %.16s%s\n", what, verdict, m->oc.final_sha256,
	       m->oc.states_sha256, m->differs ? "   <- differs" : "");
}

static void print_row_json(const struct mrow *m, bool first)
{
	bool any = false;

	for (int inv = 0; inv < INV_COUNT; inv++)
		any |= m->oc.violated[inv];
	printf("%s{\"profile\": ", first ? "" : ",\n ");
	json_string(stdout, m->profile->name);
	if (m->toggle) {
		printf(", \"toggle\": ");
		json_string(stdout, m->toggle->name);
		printf(", \"on\": %s", m->on ? "true" : "false");
	}
	printf(", \"verdict\": \"%s\", \"violated\": [", any ? "fail" : "pass");
	for (int inv = 0, k = 0; inv < INV_COUNT; inv++)
		if (m->oc.violated[inv])
			printf("%s\"%s\"", k++ ? ", " : "", chk_inv_info(inv)->name);
	printf("], \"final_sha256\": \"%s\", \"crash_states_sha256\": \"%s\", \"differs\": %s}",
	       m->oc.final_sha256, m->oc.states_sha256, m->differs ? "true" : "false");
}

/* The rows: every profile, or (--toggles) @base and each toggle flipped on it. */
static unsigned matrix_rows(const struct cli *c, const struct loaded *ld, const char *variant,
			    const struct ext4_profile *base, struct mrow *rows)
{
	const struct ext4_profile **order = sim_zalloc(ext4_profile_count() * sizeof(*order));
	unsigned n = 0, np = base ? 1 : profiles_in_order(order);
	struct sim_variant_cfg cfg;

	if (base)
		order[0] = base;
	for (unsigned i = 0; i < np; i++) {
		SIM_ASSERT(cfg_for_profile(c, ld, variant, order[i], &cfg) == 0);
		rows[n] = (struct mrow){ .profile = order[i] };
		outcome_run(ld, &cfg, &c->o, &rows[n].oc);
		rows[n].differs = n > 0 && !outcome_same(&rows[n].oc, &rows[n - 1].oc);
		n++;
	}
	for (unsigned t = 0; base && t < ext4_toggle_count(); t++) {
		struct sim_variant_cfg flipped = cfg;
		const struct ext4_toggle *tg = ext4_toggle_at(t);

		ext4_toggle_set(&flipped.sem, tg, !ext4_toggle_get(&cfg.sem, tg));
		rows[n] = (struct mrow){ .profile = base, .toggle = tg,
					 .on = ext4_toggle_get(&flipped.sem, tg) };
		outcome_run(ld, &flipped, &c->o, &rows[n].oc);
		rows[n].differs = !outcome_same(&rows[n].oc, &rows[0].oc);
		n++;
	}
	free(order);
	return n;
}

/* Split matrix's own flags (--toggles) out; the rest go to parse_run_args. */
static void take_matrix_args(int *argc, struct cmd_opt *opts, bool *toggles)
{
	int n = 0;

	*toggles = false;
	for (int i = 0; i < *argc; i++) {
		if (opts[i].id == F_TOGGLES)
			*toggles = true;
		else
			opts[n++] = opts[i];
	}
	*argc = n;
}

/* Load FILE.yaml or the -c steps, for matrix and bisect. */
int load_single(struct cli *c, struct loaded *ld, const char *cmd)
{
	int rc;

	if (c->nr_inputs + (c->nr_cmds > 0) != 1)
		return bad_usage("%s takes one scenario file or -c steps", cmd);
	if (c->nr_cmds && (rc = inline_scenario(c, &ld->s)))
		return rc;
	return load_one(c, c->nr_cmds ? NULL : c->inputs[0], ld);
}

static void print_matrix(const struct cli *c, const struct loaded *ld, const char *variant,
			 const struct ext4_profile *base, const struct mrow *rows, unsigned n)
{
	if (c->o.json) {
		printf("{\"ext4sim\": \"%s\", \"scenario\": ", EXT4SIM_VERSION);
		json_string(stdout, ld->s.name);
		printf(", \"variant\": ");
		json_string(stdout, variant ? variant : "");
		printf(", \"toggles_on\": ");
		json_string(stdout, base ? base->name : "");
		printf(", \"rows\": [");
		for (unsigned i = 0; i < n; i++)
			print_row_json(&rows[i], i == 0);
		printf("]}\n");
		return;
	}
	printf("== %s%s%s: %s\n", ld->s.name, variant ? ", variant " : "", variant ? variant : "",
	       base ? "each toggle flipped on the profile" : "every kernel profile");
	printf("  %-32s %-52s %-16s  %s\n", base ? "toggle (row 1: the profile)" : "profile",
	       "verdict [counted violations]", "final bytes", "crash states");
	for (unsigned i = 0; i < n; i++)
		print_row_text(&rows[i]);
}

int cmd_matrix(int argc, struct cmd_opt *opts)
{
	struct cli *c = sim_zalloc(sizeof(*c));
	struct loaded *ld = sim_zalloc(sizeof(*ld));
	struct mrow *rows = NULL;
	const struct ext4_profile *base = NULL;
	bool toggles;
	int rc;

	c->o.crash_bound = CS_BOUND_DEFAULT;
	take_matrix_args(&argc, opts, &toggles);
	if ((rc = parse_run_args(c, argc, opts)) || (rc = load_single(c, ld, "matrix")))
		goto out;
	if (toggles) {
		unsigned pick = 0;

		while (c->o.variant && strcmp(ld->cfg[pick].name, c->o.variant))
			pick++;
		base = ld->cfg[pick].profile;   /* --kernel, the variant's or the config's */
	}
	rows = sim_zalloc((ext4_profile_count() + ext4_toggle_count() + 1) * sizeof(*rows));
	print_matrix(c, ld, c->o.variant, base, rows,
		     matrix_rows(c, ld, c->o.variant, base, rows));
out:
	free(rows);
	scn_free(&ld->s);
	free(ld);
	free(c);
	return rc;
}
