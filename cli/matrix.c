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
	report_states_digest(&r, out->states_sha256);
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
	n = (size_t)snprintf(out, cap, "%s", any ? "violates " : "violates nothing");
	for (int inv = 0, k = 0; inv < INV_COUNT && n < cap; inv++)
		if (oc->violated[inv])
			n += (size_t)snprintf(out + n, cap - n, "%s%s", k++ ? ", " : "",
					      chk_inv_info(inv)->name);
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
	int against;                            /* the row it is compared with; -1: none */
	bool differs;
};

#define MATRIX_WIDTH 80                 /* the text lines wrap the toggle lists here */
#define MATRIX_LABEL_MAX 30             /* a longer row name gets a line of its own */

/*
 * The toggles profile @p has and @q lacks, ", "-separated into @out from
 * offset @n; returns the new length.
 */
static size_t toggles_over(const struct ext4_profile *p, const struct ext4_profile *q, char *out,
			   size_t cap, size_t n)
{
	for (unsigned t = 0; t < ext4_toggle_count() && n < cap; t++)
		if (ext4_profile_has(p, t) && !(q && ext4_profile_has(q, t)))
			n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ", " : "",
					      ext4_toggle_at(t)->name);
	return n;
}

/* Print @text after @lead, wrapped at MATRIX_WIDTH, continuation lines indented by @ind. */
static void print_wrapped(const char *lead, const char *text, int ind)
{
	int col = printf("%*s%s", ind, "", lead);
	const char *w = text;

	while (*w) {
		size_t len = strcspn(w, " ");

		if (col > ind + (int)strlen(lead) && col + 1 + (int)len > MATRIX_WIDTH)
			col = printf("\n%*s", ind + 2, "") - 1;
		else if (w != text)
			col += printf(" ");
		col += printf("%.*s", (int)len, w);
		w += len;
		w += *w == ' ';
	}
	putchar('\n');
}

/* Under a profile row: the toggles it adds to (and drops from) the profile it is compared with. */
static void print_profile_changes(const struct mrow *rows, const struct mrow *m, int ind)
{
	const struct ext4_profile *q = m->against >= 0 ? rows[m->against].profile : NULL;
	char add[2048] = "", drop[2048] = "", lead[96];

	toggles_over(m->profile, q, add, sizeof(add), 0);
	if (q)
		toggles_over(q, m->profile, drop, sizeof(drop), 0);
	if (!q) {
		print_wrapped("toggles: ", add[0] ? add : "(none)", ind);
		return;
	}
	if (!add[0] && !drop[0]) {
		snprintf(lead, sizeof(lead), "the same toggles as %s", q->name);
		print_wrapped(lead, "", ind);
		return;
	}
	if (add[0]) {
		snprintf(lead, sizeof(lead), "adds to %s: ", q->name);
		print_wrapped(lead, add, ind);
	}
	if (drop[0]) {
		snprintf(lead, sizeof(lead), "drops from %s: ", q->name);
		print_wrapped(lead, drop, ind);
	}
}

/* The name of row @m: a profile, or (@toggles) "TOGGLE on|off", row 0 "none (the profile)". */
static void row_name(const struct mrow *m, bool toggles, char *out, size_t cap)
{
	if (m->toggle)
		snprintf(out, cap, "%s %s", m->toggle->name, m->on ? "on" : "off");
	else if (toggles)
		snprintf(out, cap, "none (the profile)");
	else
		snprintf(out, cap, "%s", m->profile->name);
}

/* The width of the name column: the longest name, at most MATRIX_LABEL_MAX. */
static int label_width(const struct mrow *rows, unsigned n, bool toggles, const char *head)
{
	int w = (int)strlen(head);

	for (unsigned i = 0; i < n; i++) {
		char what[160];

		row_name(&rows[i], toggles, what, sizeof(what));
		w = SIM_MAX(w, SIM_MIN((int)strlen(what), MATRIX_LABEL_MAX));
	}
	return w;
}

/*
 * One row: its name (on a line of its own when wider than @w), the digests,
 * what it is compared with and whether it differs, the verdict; under a
 * profile row, the toggles it adds.
 */
static void print_row_text(const struct mrow *rows, const struct mrow *m, bool toggles, int w,
			   int vs_w)
{
	char what[160], verdict[512], vs[64];

	row_name(m, toggles, what, sizeof(what));
	outcome_verdict_text(&m->oc, verdict, sizeof(verdict));
	if (m->against < 0)
		snprintf(vs, sizeof(vs), "-");
	else if (m->toggle)
		snprintf(vs, sizeof(vs), "%s", m->differs ? "differs" : "same");
	else
		snprintf(vs, sizeof(vs), "%s %s", m->differs ? "differs from" : "same as",
			 rows[m->against].profile->name);
	if ((int)strlen(what) > w) {
		printf("  %s\n", what);
		what[0] = 0;
	}
	printf("  %-*s %.8s %.8s %-*s %s\n", w, what, m->oc.final_sha256, m->oc.states_sha256,
	       vs_w, vs, verdict);
	if (!toggles)
		print_profile_changes(rows, m, w + 3);
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
	printf("], \"final_sha256\": \"%s\", \"crash_states_sha256\": \"%s\", \"against\": ",
	       m->oc.final_sha256, m->oc.states_sha256);
	if (m->against < 0)
		printf("null");
	else
		printf("%d", m->against + 1);
	printf(", \"differs\": %s}", m->differs ? "true" : "false");
}

/* The row that row @i (profile @p) is compared with: its base profile's, else the row above. */
static int profile_against(const struct mrow *rows, unsigned n, unsigned i)
{
	for (unsigned k = 0; rows[i].profile->base && k < n; k++)
		if (strcmp(rows[k].profile->name, rows[i].profile->base) == 0)
			return (int)k;
	return (int)i - 1;
}

/*
 * The rows: every profile, each compared with its base profile (the one
 * whose toggles it starts from; else the row above), or (--toggles) @base
 * and each toggle flipped on it, compared with @base's row.
 */
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
		rows[n] = (struct mrow){ .profile = order[i], .against = -1 };
		outcome_run(ld, &cfg, &c->o, &rows[n].oc);
		n++;
	}
	for (unsigned i = 0; !base && i < n; i++) {
		rows[i].against = profile_against(rows, n, i);
		rows[i].differs = rows[i].against >= 0 &&
				  !outcome_same(&rows[i].oc, &rows[rows[i].against].oc);
	}
	for (unsigned t = 0; base && t < ext4_toggle_count(); t++) {
		struct sim_variant_cfg flipped = cfg;
		const struct ext4_toggle *tg = ext4_toggle_at(t);

		ext4_toggle_set(&flipped.sem, tg, !ext4_toggle_get(&cfg.sem, tg));
		rows[n] = (struct mrow){ .profile = base, .toggle = tg, .against = 0,
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

static void print_matrix_json(const struct loaded *ld, const char *variant,
			      const struct ext4_profile *base, const struct mrow *rows, unsigned n)
{
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
}

/*
 * The text table: per row its name, the first 8 hex digits of the final
 * bytes' and the crash states' digests, what it is compared with ("vs"),
 * and its verdict with expect: set aside ("violates nothing" or the
 * invariants), never PASS/FAIL (run's "as expected").
 */
static void print_matrix(const struct cli *c, const struct loaded *ld, const char *variant,
			 const struct ext4_profile *base, const struct mrow *rows, unsigned n)
{
	const char *head = base ? "toggle flipped" : "profile";
	char vs[64];
	int w, vs_w = base ? 7 : 0;

	if (c->o.json) {
		print_matrix_json(ld, variant, base, rows, n);
		return;
	}
	w = label_width(rows, n, base != NULL, head);
	for (unsigned i = 0; !base && i < n; i++)
		if (rows[i].against >= 0)
			vs_w = SIM_MAX(vs_w, (int)strlen(rows[rows[i].against].profile->name) + 13);
	snprintf(vs, sizeof(vs), base ? "vs %s" : "compared", base ? base->name : "");
	vs_w = SIM_MAX(vs_w, (int)strlen(vs));
	printf("== %s%s%s: %s%s (verdicts with expect: set aside)\n", ld->s.name,
	       variant ? ", variant " : "", variant ? variant : "",
	       base ? "each toggle flipped on profile " : "every kernel profile",
	       base ? base->name : "");
	if (base)
		printf("  %-*s %-8s %s\n", w, "", "final", "crash");
	else
		printf("  %-*s %-8s %-8s %s\n", w, "", "final", "crash", "compared");
	printf("  %-*s %-8s %-8s %-*s %s\n", w, head, "bytes", "states", vs_w, base ? vs : "with",
	       "verdict");
	for (unsigned i = 0; i < n; i++)
		print_row_text(rows, &rows[i], base != NULL, w, vs_w);
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
