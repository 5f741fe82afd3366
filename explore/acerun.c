/*
 * acerun.c - explore over one of ACE's spaces (acerun.h): each workload
 * the generator (ace.c) writes, lowered by import's own j-lang reader
 * (ace_parse, oracle/import_ace.c) into the scenario `import --from ace`
 * gives for the same file, run under each configuration (a sweep's, or the
 * flags' alone; with --diff under both sides of the patch) with a crash
 * judged after every step and inside the steps where the model can
 * (crash_everywhere: ACE's checkpoints are among those points, the last one
 * the scenario's crash step).  The crash points go through the crash-point
 * memo (crash/cpmemo.h): neighbouring workloads, the sides of --diff and
 * the configurations share the points where their devices agree, so a
 * shard is a contiguous range of the space.  A workload whose j-lang text
 * equals one judged before (ACE's duplicates: the choice after an
 * fdatasync or mmapwrite is counted, not written; two parameter
 * combinations that write the same file) takes that one's verdicts without
 * running again: a table of the texts' SHA-256 digests, at most
 * ACE_SEEN_MAX of them (past it, workloads run again).  Findings are
 * grouped by cause (the invariant, the --diff side and the signature of
 * explore/cause.h), each with its count and its first workload; with
 * --out, each cause's first workload is written as a scenario, minimized.
 */
#include "acerun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpmemo.h"
#include "import_ace.h"
#include "minimize.h"
#include "oracle.h"
#include "outfile.h"
#include "scnwrite.h"
#include "sha256.h"
#include "sim.h"

#define ACE_SEEN_MAX (1u << 20)         /* digests held: 1 Mi, in twice as many slots */
#define ACE_CRASH_MEMO_BYTES ((uint64_t)64 << 20)      /* crash points' results kept */

/* A workload judged: its j-lang text's digest and where its verdicts are. */
struct ace_seen {
	uint8_t s_digest[32];
	uint32_t s_verdicts;            /* index into ace_ctx.verdicts: nr_configs of them */
	bool s_used;
};

/* A workload's verdict under one configuration: its cause, or one of these. */
#define ACE_NO_FINDING ((int16_t)-1)
#define ACE_CAUSE_PAST ((int16_t)-2)    /* a cause past the table's ACE_CAUSES_MAX */

struct ace_ctx {
	struct ace_run *r;
	struct ace_seen *seen;          /* nr_slots, open addressing */
	uint64_t nr_slots;              /* twice what it may hold, and one */
	unsigned nr_seen, seen_max;
	int16_t *verdicts;              /* seen_max * nr_configs */
};

/* The slot of @digest: the one holding it, or the empty one where it would go. */
static struct ace_seen *ace_slot(struct ace_ctx *c, const uint8_t digest[32])
{
	uint64_t h = 0;

	for (unsigned i = 0; i < 8; i++)
		h = h << 8 | digest[i];
	for (uint64_t i = h % c->nr_slots;; i = (i + 1) % c->nr_slots) {
		struct ace_seen *sl = &c->seen[i];

		if (!sl->s_used || memcmp(sl->s_digest, digest, 32) == 0)
			return sl;
	}
}

/* What @s violated under @cfg, judged with @judging and a crash at every point. */
static void run_violated(const struct sim_variant_cfg *cfg, const struct sim_options *judging,
			 const struct scenario *s, bool violated[INV_COUNT])
{
	struct sim_variant_result res;
	struct sim_options o = *judging;
	char err[SCN_ERR_MAX];

	o.quiet = true;
	o.json = false;
	o.crash_everywhere = true;
	SIM_ASSERT(sim_run_variant(s, cfg, &o, NULL, NULL, &res, err, sizeof(err)) == 0);
	memcpy(violated, res.violated, sizeof(res.violated));
	sim_variant_result_free(&res, s->nr_steps);
}

/* What @s violated under configuration @k (with --diff, the patch set to @on). */
static void ace_side(const struct ace_run *r, unsigned k, const struct scenario *s, bool on,
		     bool violated[INV_COUNT])
{
	struct sim_variant_cfg cfg = r->configs[k].cfg;

	if (r->diff)
		ext4_toggle_set(&cfg.sem, r->diff, on);
	run_violated(&cfg, &r->o, s, violated);
}

/*
 * The first invariant the run under configuration @k shows (with --diff:
 * one the sides disagree on), or -1.
 */
static int ace_verdict(const struct ace_run *r, unsigned k, const struct scenario *s, int *side)
{
	bool v[2][INV_COUNT];

	ace_side(r, k, s, false, v[0]);
	if (r->diff)
		ace_side(r, k, s, true, v[1]);
	for (int inv = 0; inv < INV_COUNT; inv++) {
		if (!r->diff && v[0][inv])
			return *side = 0, inv;
		if (r->diff && v[0][inv] != v[1][inv])
			return *side = v[1][inv], inv;
	}
	return -1;
}

/* Count workload @n's verdict @v under configuration @c: under its cause. */
static void ace_count(struct ace_config *c, uint64_t n, int16_t cause)
{
	if (cause == ACE_NO_FINDING)
		return;
	c->with_finding++;
	if (cause == ACE_CAUSE_PAST) {
		c->others++;
		return;
	}
	SIM_ASSERT(cause >= 0 && (unsigned)cause < c->nr_causes);
	if (!c->causes[cause].count)
		c->causes[cause].first = n;
	c->causes[cause].count++;
}

/* The steps of @a as text (allocated, one spare row). */
static char (*ace_step_texts(const struct ace_result *a))[SCN_STEP_TEXT_MAX]
{
	char (*texts)[SCN_STEP_TEXT_MAX] = sim_zalloc(((size_t)a->nr + 1) * sizeof(*texts));

	for (unsigned i = 0; i < a->nr; i++)
		orc_step_text(&a->steps[i], texts[i], sizeof(texts[i]));
	return texts;
}

/*
 * The cause of the finding @inv (--diff: on @side) that steps @a show under
 * configuration @k: its signature (cause_signature: a toggle or release
 * that makes it go away, else the function it first appears in), found in
 * or added to the configuration's causes; ACE_CAUSE_PAST when it is full.
 */
static int16_t ace_cause_of(const struct ace_run *r, unsigned k, const struct ace_result *a,
			    int inv, int side)
{
	struct ace_config *c = &r->configs[k];
	struct min_target t = { .cfg = c->cfg, .inv = inv, .diff = r->diff,
				.diff_on_side = side == 1, .o = r->o };
	char (*texts)[SCN_STEP_TEXT_MAX] = ace_step_texts(a);
	char sig[CAUSE_TEXT_MAX];
	unsigned i;

	t.o.crash_everywhere = true;
	t.o.quiet = true;
	cause_signature(&t, texts, a->nr, sig, sizeof(sig));
	free(texts);
	for (i = 0; i < c->nr_causes; i++)
		if (c->causes[i].inv == inv && c->causes[i].side == side &&
		    strcmp(c->causes[i].sig, sig) == 0)
			return (int16_t)i;
	if (i == ACE_CAUSES_MAX)
		return ACE_CAUSE_PAST;
	c->causes[i] = (struct ace_cause){ .inv = inv, .side = side };
	snprintf(c->causes[i].sig, sizeof(c->causes[i].sig), "%s", sig);
	c->nr_causes++;
	return (int16_t)i;
}

/* The scenario of the steps ace_parse made: crash_everywhere, the defaults else. */
static void ace_scenario(struct scenario *s, struct ace_result *a, uint64_t n)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "ace-%llu", (unsigned long long)n);
	snprintf(s->name, sizeof(s->name), "ace-%llu", (unsigned long long)n);
	scn_config_defaults(&s->config);
	s->steps = a->steps;
	s->nr_steps = a->nr;
}

/* Lower @jlang and judge it under each configuration into @v; false when refused. */
static bool ace_judge(struct ace_run *r, uint64_t n, const char *jlang, int16_t *v)
{
	struct ace_result a = { 0 };
	struct scenario s;
	FILE *f = fmemopen((void *)jlang, strlen(jlang), "r");

	SIM_ASSERT(f != NULL);
	if (ace_parse("ace", f, &a) < 0) {
		fclose(f);
		r->refused[strstr(a.err, "mknod") ? 1 : 0]++;
		ace_result_free(&a);
		return false;
	}
	fclose(f);
	ace_scenario(&s, &a, n);
	for (unsigned k = 0; k < r->nr_configs; k++) {
		int side = 0, inv = ace_verdict(r, k, &s, &side);

		v[k] = inv < 0 ? ACE_NO_FINDING : ace_cause_of(r, k, &a, inv, side);
	}
	ace_result_free(&a);
	r->run++;
	return true;
}

/* One workload: a duplicate, refused or run; its verdicts counted. */
static int ace_one(void *arg, uint64_t n, const char *jlang)
{
	struct ace_ctx *c = arg;
	struct ace_run *r = c->r;
	int16_t v[ACE_CONFIGS_MAX];
	struct ace_seen *sl;
	struct sha256 h;
	uint8_t digest[32];

	if ((r->interrupted = outfile_signal))
		return 1;
	sha256_init(&h);
	sha256_update(&h, jlang, strlen(jlang));
	sha256_final(&h, digest);
	sl = ace_slot(c, digest);
	if (sl->s_used) {
		r->same++;
		for (unsigned k = 0; k < r->nr_configs; k++)
			ace_count(&r->configs[k], n, c->verdicts[sl->s_verdicts + k]);
		return 0;
	}
	if (!ace_judge(r, n, jlang, v))
		return 0;
	for (unsigned k = 0; k < r->nr_configs; k++)
		ace_count(&r->configs[k], n, v[k]);
	if (c->nr_seen < c->seen_max) {
		*sl = (struct ace_seen){ .s_verdicts = c->nr_seen * r->nr_configs, .s_used = true };
		memcpy(sl->s_digest, digest, 32);
		memcpy(&c->verdicts[sl->s_verdicts], v, r->nr_configs * sizeof(*v));
		c->nr_seen++;
	}
	return 0;
}

/* ace_walk's callback that keeps the one workload asked for and stops. */
static int copy_jlang(void *arg, uint64_t n, const char *jlang)
{
	(void)n;
	snprintf(arg, ACE_JLANG_MAX, "%s", jlang);
	return 1;
}

/*
 * Workload @n's steps as text (allocated), their number into *@nr; it
 * lowers, as it did when it was judged.
 */
static char (*ace_texts(const struct ace_run *r, uint64_t n, unsigned *nr))[SCN_STEP_TEXT_MAX]
{
	char jlang[ACE_JLANG_MAX] = "", (*texts)[SCN_STEP_TEXT_MAX];
	struct ace_result a = { 0 };
	FILE *f;

	ace_walk(r->sp, n, n, copy_jlang, jlang);
	f = fmemopen(jlang, strlen(jlang), "r");
	SIM_ASSERT(f != NULL);
	SIM_ASSERT(ace_parse("ace", f, &a) == 0);
	fclose(f);
	*nr = a.nr;
	texts = ace_step_texts(&a);
	ace_result_free(&a);
	return texts;
}

/*
 * Cause @k of configuration @c as a scenario file under --out: its first
 * workload's steps, minimized unless --no-minimize (the finding kept: the
 * invariant under the configuration, with --diff on the same side only),
 * with the configuration's settings, crash_everywhere, the off/on variants
 * of --diff and the verdicts they show, as DIR/INVARIANT-KERNEL-wN.yaml.
 */
static void ace_write_cause(struct ace_run *r, const struct ace_config *c, struct ace_cause *k)
{
	struct min_target t = { .cfg = c->cfg, .inv = k->inv, .diff = r->diff,
				.diff_on_side = k->side == 1, .o = r->o };
	char (*texts)[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX], desc[SCN_TEXT_MAX];
	char name[SCN_NAME_MAX];
	struct sim_variant_cfg v[2];
	bool expect[2][INV_COUNT];
	struct scenario s;
	unsigned nr;

	t.o.crash_everywhere = true;
	t.o.quiet = true;
	texts = ace_texts(r, k->first, &nr);
	k->nr_steps[0] = nr;
	if (r->minimize)
		min_minimize(&t, texts, &nr);
	k->nr_steps[1] = nr;
	snprintf(name, sizeof(name), "%s-%s-w%llu%s", chk_inv_info(k->inv)->name,
		 t.cfg.profile->name, (unsigned long long)k->first,
		 !r->diff ? "" : k->side ? "-on" : "-off");
	min_build(&s, name, texts, nr);
	snprintf(desc, sizeof(desc), "found by ext4sim explore over ACE's space %s: workload %llu "
		 "(--shard %llu/%llu), %s %s%s, like %llu workload(s) in all (cause: %s); %u "
		 "step(s)%s",
		 ace_space_name(r->sp), (unsigned long long)k->first,
		 (unsigned long long)k->first - 1, (unsigned long long)r->space,
		 chk_inv_info(k->inv)->name, r->diff ? "differs with patch " : "violated",
		 r->diff ? r->diff->name : "", (unsigned long long)k->count, k->sig, k->nr_steps[0],
		 r->minimize ? ", minimized" : "");
	for (unsigned side = 0; side < (r->diff ? 2u : 1u); side++) {
		v[side] = t.cfg;
		if (r->diff) {
			snprintf(v[side].name, sizeof(v[side].name), side ? "on" : "off");
			ext4_toggle_set(&v[side].sem, r->diff, side);
		}
		run_violated(&v[side], &t.o, &s, expect[side]);
	}
	snprintf(k->path, sizeof(k->path), "%s/%s.yaml", r->out_dir, name);
	if (scn_write_yaml(&(struct scn_write){ .w_scn = &s, .w_description = desc,
						.w_cfg = &t.cfg, .w_variants = r->diff ? v : NULL,
						.w_nr_variants = r->diff ? 2 : 0,
						.w_expect = (const bool (*)[INV_COUNT])expect,
						.w_judging = &t.o }, k->path, err, sizeof(err)) < 0) {
		fprintf(stderr, "ext4sim: %s\n", err);
		k->path[0] = 0;
		r->write_failed = true;
	}
	scn_free(&s);
	free(texts);
}

int ace_run_space(struct ace_run *r)
{
	struct ace_ctx *c;

	r->space = ace_walk(r->sp, 0, 0, NULL, NULL);
	r->first = r->shard * r->space / r->nr_shards + 1;
	r->mine = (r->shard + 1) * r->space / r->nr_shards + 1 - r->first;
	fprintf(stderr, "explore: ACE's space %s: %llu workloads (ACE's count), %llu to run here "
		"(shard %u/%u)\n", ace_space_name(r->sp), (unsigned long long)r->space,
		(unsigned long long)r->mine, r->shard, r->nr_shards);
	if (r->mine > r->max_space) {
		fprintf(stderr, "ext4sim: explore: ACE's space %s holds %llu workloads, %llu to run "
			"here, past the limit of %llu (--max-space N raises it; --shard I/N takes a "
			"share)\n", ace_space_name(r->sp), (unsigned long long)r->space,
			(unsigned long long)r->mine, (unsigned long long)r->max_space);
		return 2;
	}
	SIM_ASSERT(r->nr_configs >= 1 && r->nr_configs <= ACE_CONFIGS_MAX);
	c = sim_zalloc(sizeof(*c));
	c->r = r;
	c->seen_max = r->mine < ACE_SEEN_MAX ? (unsigned)r->mine : ACE_SEEN_MAX;
	c->nr_slots = 2 * (uint64_t)c->seen_max + 1;
	c->seen = sim_zalloc(c->nr_slots * sizeof(*c->seen));
	c->verdicts = sim_zalloc(((size_t)c->seen_max + 1) * r->nr_configs * sizeof(*c->verdicts));
	r->o.crash_memo = r->share ? cp_memo_create(ACE_CRASH_MEMO_BYTES) : NULL;
	if (r->mine)
		ace_walk(r->sp, r->first, r->first + r->mine - 1, ace_one, c);
	for (unsigned ci = 0; r->out_dir && ci < r->nr_configs; ci++)
		for (unsigned i = 0; i < r->configs[ci].nr_causes; i++)
			ace_write_cause(r, &r->configs[ci], &r->configs[ci].causes[i]);
	if (r->o.crash_memo && r->share_stats)
		fprintf(stderr, "explore: %llu crash point(s) met again, judged once\n",
			(unsigned long long)cp_memo_hits(r->o.crash_memo));
	cp_memo_destroy(r->o.crash_memo);
	r->o.crash_memo = NULL;
	free(c->verdicts);
	free(c->seen);
	free(c);
	return 0;
}

/* Configuration @c's findings, each cause with its count and first workload. */
static void report_causes(const struct ace_run *r, const struct ace_config *c)
{
	for (unsigned i = 0; i < c->nr_causes; i++) {
		const struct ace_cause *k = &c->causes[i];

		printf("  %-28s %s%sx%-7llu first: workload %llu (--shard %llu/%llu)\n",
		       chk_inv_info(k->inv)->name, !r->diff ? "" : k->side ? "patch on " :
		       "patch off", r->diff ? " " : "", (unsigned long long)k->count,
		       (unsigned long long)k->first,
		       (unsigned long long)k->first - 1, (unsigned long long)r->space);
		printf("    cause: %s\n", k->sig);
		if (k->path[0])
			printf("    %s (%u step(s) of %u)\n", k->path, k->nr_steps[1], k->nr_steps[0]);
	}
	if (c->others)
		printf("  %llu more finding(s) of causes past the first %u, not told apart\n",
		       (unsigned long long)c->others, ACE_CAUSES_MAX);
}

void ace_run_report(const struct ace_run *r)
{
	const struct ace_config *one = r->nr_configs == 1 ? &r->configs[0] : NULL;

	printf("explore: ACE's space %s: %llu workloads (ACE's count); shard %u/%u\n",
	       ace_space_name(r->sp), (unsigned long long)r->space, r->shard, r->nr_shards);
	printf("  here %llu: run %llu, the same as one judged before %llu, refused %llu (mknod: "
	       "no device nodes in the model) and %llu (other)",
	       (unsigned long long)r->mine, (unsigned long long)r->run,
	       (unsigned long long)r->same, (unsigned long long)r->refused[1],
	       (unsigned long long)r->refused[0]);
	if (one)
		printf(", with a finding %llu, causes %u\n", (unsigned long long)one->with_finding,
		       one->nr_causes);
	else
		printf("; under each of %u configurations:\n", r->nr_configs);
	if (r->interrupted)
		printf("  incomplete: stopped by signal %d; the counts cover what ran before it\n",
		       r->interrupted);
	for (unsigned k = 0; k < r->nr_configs; k++) {
		if (!one)
			printf("configuration %u/%u: %s: with a finding %llu, causes %u\n", k + 1,
			       r->nr_configs, r->configs[k].name,
			       (unsigned long long)r->configs[k].with_finding,
			       r->configs[k].nr_causes);
		report_causes(r, &r->configs[k]);
	}
}
