/*
 * bisect.c - ext4sim bisect FILE.yaml --good A --bad B: which toggle (or
 * smallest set of toggles) turns the outcome under A into the outcome under
 * B.  A and B are kernel profiles (the scenario's config, with --variant's
 * patches if given) or variants of the scenario.  The outcome compared is
 * the verdict (the invariants counted as violated) when A's and B's differ,
 * else the bytes (the final content and every crash state).  The toggles
 * whose value differs between A and B are set, one at a time, then two,
 * then three at a time, to B's value on A; the first size at which some
 * set gives B's outcome is reported, every such set of that size, each
 * toggle with its commit and release: git bisect over kernel history, in
 * the model.  Past three, the whole difference is the answer.
 *
 * Exit status: 0 a set was found; 1 A and B show the same outcome (nothing
 * to bisect); 2 bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

#define BISECT_K_MAX 3          /* set sizes tried before the whole difference */
#define BISECT_FOUND_MAX 16

struct bisect {
	struct cli *c;
	struct loaded *ld;
	const char *name[2];            /* good, bad as given */
	struct sim_variant_cfg cfg[2];
	struct run_outcome oc[2];
	bool by_verdict;                /* compare verdicts (else the bytes too) */
	unsigned *diff;                 /* toggles whose value differs */
	unsigned nr_diff;
	unsigned found[BISECT_FOUND_MAX][BISECT_K_MAX];
	unsigned nr_found, k;           /* sets found, of size k (k = nr_diff: all of them) */
	uint64_t runs;
};

/* --good/--bad @arg: a kernel profile, else a variant of the scenario. */
static int resolve_side(struct bisect *b, int i)
{
	const struct ext4_profile *p = ext4_profile_find(b->name[i]);

	if (p)
		return cfg_for_profile(b->c, b->ld, b->c->o.variant, p, &b->cfg[i]);
	for (unsigned v = 0; v < b->ld->nr_cfg; v++) {
		if (strcmp(b->ld->cfg[v].name, b->name[i]) == 0) {
			b->cfg[i] = b->ld->cfg[v];
			return 0;
		}
	}
	return bad_usage("bisect: '%s' is neither a kernel profile (`ext4sim patches`) nor a "
			 "variant of the scenario", b->name[i]);
}

/* Does good with the toggles @set (indexes into b->diff) at bad's values show bad's outcome? */
static bool reproduces(struct bisect *b, const unsigned *set, unsigned k)
{
	struct sim_variant_cfg cfg = b->cfg[0];
	struct run_outcome oc;

	for (unsigned i = 0; i < k; i++) {
		const struct ext4_toggle *t = ext4_toggle_at(b->diff[set[i]]);

		ext4_toggle_set(&cfg.sem, t, ext4_toggle_get(&b->cfg[1].sem, t));
	}
	outcome_run(b->ld, &cfg, &b->c->o, &oc);
	b->runs++;
	return b->by_verdict ? outcome_same_verdict(&oc, &b->oc[1]) : outcome_same(&oc, &b->oc[1]);
}

/* Every set of @k of the differing toggles, in order; those that reproduce are kept. */
static void try_size(struct bisect *b, unsigned k)
{
	unsigned set[BISECT_K_MAX];

	for (unsigned i = 0; i < k; i++)
		set[i] = i;
	for (;;) {
		int i;

		if (reproduces(b, set, k) && b->nr_found < BISECT_FOUND_MAX)
			memcpy(b->found[b->nr_found++], set, sizeof(set));
		for (i = (int)k - 1; i >= 0 && set[i] == b->nr_diff - k + (unsigned)i; i--)
			;
		if (i < 0)
			return;
		set[i]++;
		for (unsigned j = (unsigned)i + 1; j < k; j++)
			set[j] = set[j - 1] + 1;
	}
}

static void search(struct bisect *b)
{
	for (b->k = 1; b->k <= BISECT_K_MAX && b->k <= b->nr_diff && !b->nr_found; b->k++)
		try_size(b, b->k);
	if (b->nr_found) {
		b->k--;
		return;
	}
	b->k = b->nr_diff;              /* the whole difference: good with it is bad */
}

static const char *onoff(const struct sim_variant_cfg *cfg, const struct ext4_toggle *t)
{
	return ext4_toggle_get(&cfg->sem, t) ? "on" : "off";
}

/* Toggle @t of set @j of the result (k = nr_diff: the whole difference). */
static const struct ext4_toggle *found_at(const struct bisect *b, unsigned j, unsigned i)
{
	return ext4_toggle_at(b->diff[b->k == b->nr_diff && !b->nr_found ? i : b->found[j][i]]);
}

static void print_text(const struct bisect *b)
{
	char x[512], y[512];
	unsigned sets = b->nr_found ? b->nr_found : 1;

	outcome_verdict_text(&b->oc[0], x, sizeof(x));
	outcome_verdict_text(&b->oc[1], y, sizeof(y));
	printf("== bisect %s: good %s (kernel %s), bad %s (kernel %s)\n", b->ld->s.name,
	       b->name[0], b->cfg[0].profile->name, b->name[1], b->cfg[1].profile->name);
	printf("  good: %s; final bytes %.16s\n  bad:  %s; final bytes %.16s\n", x,
	       b->oc[0].final_sha256, y, b->oc[1].final_sha256);
	printf("  compared: %s\n", b->by_verdict ? "the verdict" :
	       "the bytes (final content and crash states): the verdicts are the same");
	printf("  %u toggle(s) differ:", b->nr_diff);
	for (unsigned i = 0; i < b->nr_diff; i++)
		printf("%s %s (good %s)", i ? "," : "", ext4_toggle_at(b->diff[i])->name,
		       onoff(&b->cfg[0], ext4_toggle_at(b->diff[i])));
	printf("\n  %llu run(s); %s\n", (unsigned long long)b->runs, b->nr_found ?
	       "the smallest sets that turn good into bad:" :
	       "no set of up to 3 does it: the whole difference is the answer");
	for (unsigned j = 0; j < sets; j++) {
		printf("  set %u:\n", j + 1);
		for (unsigned i = 0; i < b->k; i++) {
			const struct ext4_toggle *t = found_at(b, j, i);

			printf("    %s %s -> %s: %s (%s)\n", t->name, onoff(&b->cfg[0], t),
			       onoff(&b->cfg[1], t), t->commit, t->release);
		}
	}
}

static void print_json(const struct bisect *b)
{
	unsigned sets = b->nr_found ? b->nr_found : 1;

	printf("{\"ext4sim\": \"%s\", \"scenario\": ", EXT4SIM_VERSION);
	json_string(stdout, b->ld->s.name);
	printf(", \"good\": ");
	json_string(stdout, b->name[0]);
	printf(", \"bad\": ");
	json_string(stdout, b->name[1]);
	printf(", \"compared\": \"%s\", \"runs\": %llu, \"differing\": [",
	       b->by_verdict ? "verdict" : "bytes", (unsigned long long)b->runs);
	for (unsigned i = 0; i < b->nr_diff; i++)
		printf("%s\"%s\"", i ? ", " : "", ext4_toggle_at(b->diff[i])->name);
	printf("], \"smallest\": %s, \"sets\": [", b->nr_found ? "true" : "false");
	for (unsigned j = 0; j < sets; j++) {
		printf("%s[", j ? ", " : "");
		for (unsigned i = 0; i < b->k; i++) {
			const struct ext4_toggle *t = found_at(b, j, i);

			printf("%s{\"toggle\": \"%s\", \"good\": \"%s\", \"bad\": \"%s\", \"commit\": ",
			       i ? ", " : "", t->name, onoff(&b->cfg[0], t), onoff(&b->cfg[1], t));
			json_string(stdout, t->commit);
			printf(", \"release\": ");
			json_string(stdout, t->release);
			putchar('}');
		}
		putchar(']');
	}
	printf("]}\n");
}

/* Split --good and --bad out of the arguments. */
static int take_bisect_args(int *argc, struct cmd_opt *opts, struct bisect *b)
{
	int n = 0;

	for (int i = 0; i < *argc; i++) {
		if (opts[i].id != F_GOOD && opts[i].id != F_BAD) {
			opts[n++] = opts[i];
			continue;
		}
		b->name[opts[i].id == F_GOOD ? 0 : 1] = opts[i].val;
	}
	*argc = n;
	if (!b->name[0] || !b->name[1])
		return bad_usage("bisect needs --good PROFILE and --bad PROFILE%s", "");
	return 0;
}

/* Run both sides, find the differing toggles; 1 when the outcomes are the same. */
static int prepare(struct bisect *b)
{
	outcome_run(b->ld, &b->cfg[0], &b->c->o, &b->oc[0]);
	outcome_run(b->ld, &b->cfg[1], &b->c->o, &b->oc[1]);
	b->runs = 2;
	b->by_verdict = !outcome_same_verdict(&b->oc[0], &b->oc[1]);
	b->diff = sim_zalloc(ext4_toggle_count() * sizeof(*b->diff));
	for (unsigned t = 0; t < ext4_toggle_count(); t++)
		if (ext4_toggle_get(&b->cfg[0].sem, ext4_toggle_at(t)) !=
		    ext4_toggle_get(&b->cfg[1].sem, ext4_toggle_at(t)))
			b->diff[b->nr_diff++] = t;
	if ((outcome_same(&b->oc[0], &b->oc[1]) || b->nr_diff == 0) && b->c->o.json) {
		printf("{\"ext4sim\": \"%s\", \"scenario\": ", EXT4SIM_VERSION);
		json_string(stdout, b->ld->s.name);
		printf(", \"good\": ");
		json_string(stdout, b->name[0]);
		printf(", \"bad\": ");
		json_string(stdout, b->name[1]);
		printf(", \"same\": true}\n");
		return 1;
	}
	if (outcome_same(&b->oc[0], &b->oc[1]) || b->nr_diff == 0) {
		char x[512];

		outcome_verdict_text(&b->oc[0], x, sizeof(x));
		printf("== bisect %s: good %s and bad %s show the same outcome (%s; final bytes "
		       "%.16s, the same crash states)%s: nothing to bisect\n", b->ld->s.name,
		       b->name[0], b->name[1], x, b->oc[0].final_sha256,
		       b->nr_diff ? "" : " and have the same toggles");
		return 1;
	}
	return 0;
}

int cmd_bisect(int argc, struct cmd_opt *opts)
{
	struct bisect *b = sim_zalloc(sizeof(*b));
	int rc;

	b->c = sim_zalloc(sizeof(*b->c));
	b->ld = sim_zalloc(sizeof(*b->ld));
	b->c->o.crash_bound = CS_BOUND_DEFAULT;
	if ((rc = take_bisect_args(&argc, opts, b)) || (rc = parse_run_args(b->c, argc, opts)) ||
	    (rc = load_single(b->c, b->ld, "bisect")) || (rc = resolve_side(b, 0)) ||
	    (rc = resolve_side(b, 1)) || (rc = prepare(b)))
		goto out;
	search(b);
	if (b->c->o.json)
		print_json(b);
	else
		print_text(b);
out:
	scn_free(&b->ld->s);
	free(b->diff);
	free(b->ld);
	free(b->c);
	free(b);
	return rc;
}
