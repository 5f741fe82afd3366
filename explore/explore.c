/*
 * explore.c - ext4sim explore: search step sequences for findings.
 *
 * The grammar is a list of step templates over a small file (grammar.c:
 * the built-in one, or a grammar file with --grammar), written in terms of
 * the block and page size and expanded for the variant's block size:
 * writes and size changes at and around block and page boundaries,
 * persistence steps (fsync, fdatasync, sync, sync_range -w, none), crashes
 * and the optional kinds (--kinds).  Two modes:
 *
 *   bounded exhaustive (default): every sequence of 1..K steps (--steps K)
 *     drawn from the grammar, in a fixed order; sequence number i is the
 *     mixed-radix number of its steps, so --shard I/N (i mod N == I) splits
 *     the space exactly;
 *   seeded random (--seed S --count N): N runs; each first picks a random
 *     subset of the kinds (swarm testing), then its length in 1..K (K with
 *     --fixed-length), then its steps; run r belongs to shard r mod N.
 *     Runs of K > EXPLORE_STEPS_MAX steps are long runs: streamed through
 *     the model (run.c's sim_stream_*), crash states judged where
 *     --crash-at says, not minimized; a finding gives its run, first step
 *     and the command that replays it (--run R).
 *
 * Each short sequence runs with a crash judged after every step and before every
 * flush and FUA write inside one (as --crash-everywhere), under the
 * variant the flags give; with --diff PATCH it runs with the toggle off and
 * on and a finding is an invariant whose verdict differs.  A finding is
 * minimized (minimize.c) unless --no-minimize, and written to --out DIR as
 * INVARIANT-HASH.yaml (HASH: of the minimized steps and settings); the same
 * minimized scenario found again is counted, not written again.
 *
 * Pruning (counted in the report): a sequence with two equal persistence
 * steps in a row is skipped, as the second finds the file already durable
 * and changes nothing a crash could show.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "acerun.h"
#include "cause.h"
#include "cpmemo.h"
#include "explore.h"
#include "grammar.h"
#include "minimize.h"
#include "outfile.h"
#include "prng.h"
#include "report.h"
#include "scnwrite.h"
#include "sha256.h"
#include "sweep.h"
#include "tree.h"

#define EXPLORE_JSON_VERSION 2          /* the --json report's shape (2: its "sweep") */
#define FINDINGS_MAX 4096
#define CRASH_MEMO_BYTES ((uint64_t)64 << 20)  /* results of crash points kept for reuse */
#define INV_STATES INV_COUNT            /* --diff-states: a finding of crash states, not a verdict */
#define STATES_NAME "crash_states"

struct gstep {
	char text[SCN_STEP_TEXT_MAX];   /* expanded for the block size */
	enum gkind kind;
	bool persist;                   /* a persistence step (for pruning) */
	bool ns;                        /* a namespace step: its sequences judge a namespace */
	bool fill;                      /* a pwrite or mwrite without -S: gets a fill byte */
};

#define EXAMPLES_MAX 3             /* examples a cause's file shows */

/* A minimized finding, kept as an example of its cause. */
struct example {
	char hash[17];
	unsigned nr;
	char texts[EXPLORE_STEPS_MAX][SCN_STEP_TEXT_MAX];
	struct min_target t;
};

/* One cause (cause.c): the minimized findings that share a signature. */
struct finding {
	char hash[17];                  /* of the signature (a long run: of the run) */
	int inv;
	uint64_t count;                 /* sequences that showed it */
	char cause[CAUSE_TEXT_MAX];     /* the signature; empty for a long run */
	char path[4096];
	struct example *ex;             /* the first EXAMPLES_MAX distinct findings */
	unsigned nr_ex;
	bool long_run;                  /* from a long run: run and step, no file */
	uint64_t run;
	uint32_t step;
};

/* A distinct minimized finding and its cause (an index into explore's f[]). */
struct distinct {
	char hash[17];
	unsigned cause;
};

struct explore {
	struct explore_opts op;         /* as the caller set it (the grammar's settings merged) */
	struct sim_variant_cfg cfg;     /* the current configuration's variant */
	struct gstep g[GRAMMAR_MAX];
	unsigned nr_g;
	unsigned nr_configs;            /* the sweep's combinations: 1 without a sweep */
	unsigned nr_distinct;           /* of them, those that mount differently */
	int *same_as;                   /* per configuration: an earlier one it equals, or -1 */
	char sweep_text[512];           /* the report's sweep in words (sweep_summary), or "" */
	char *sweep_json;               /* its JSON "sweep" object (merge: as read), or NULL */
	struct cp_memo *crash_memo;     /* the walk's crash points, shared with the replays of
					   its findings (minimize, cause): NULL when not shared */
	unsigned char *seen;            /* merge: the shards read */
	/* results */
	uint64_t space, run, pruned, with_finding;
	uint64_t mine;                  /* exhaustive: the sequences this shard owns */
	uint64_t steps_run, crash_points;       /* long runs */
	struct finding f[FINDINGS_MAX]; /* causes */
	unsigned nr_f;
	struct distinct d[FINDINGS_MAX];        /* distinct minimized findings */
	unsigned nr_d;
	bool write_failed;              /* a finding could not be written to --out */
	int interrupted;                /* the signal that stopped the search, or 0 */
};

/* A finding's name: its invariant's, or "crash_states" (INV_STATES). */
static const char *inv_name(int inv)
{
	return inv == INV_STATES ? STATES_NAME : chk_inv_info(inv)->name;
}

/* @text with "-S 0xFF" after its command word: the step a position's fill byte makes. */
static void with_fill(const char *text, unsigned fill, char out[SCN_STEP_TEXT_MAX])
{
	int cmd = (int)strcspn(text, " ");

	snprintf(out, SCN_STEP_TEXT_MAX, "%.*s -S 0x%02x%s", cmd, text, fill & 0xff, text + cmd);
}

/*
 * Is the step line @text (parsed: @st) a write that takes the position's
 * fill byte?  Not when it sets its own, in whatever spelling (-S 0x5a,
 * -S0x5a, -DS 0x5a): the step with a fill byte added must parse.
 */
static bool takes_fill(const char *text, const struct scn_step *st)
{
	char with[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	struct scn_step w;
	unsigned col;

	if (st->s_op != SCN_PWRITE && st->s_op != SCN_MWRITE)
		return false;
	with_fill(text, 0x11, with);
	return scn_parse_step(with, &w, err, sizeof(err), &col) == 0;
}

/* The grammar: the templates of the kinds on, expanded for the block size. */
static void build_grammar(struct explore *e)
{
	char err[SCN_ERR_MAX];
	struct scn_step st;
	unsigned col;

	e->nr_g = 0;
	for (unsigned i = 0; i < e->op.gf->nr; i++) {
		const struct gtemplate *t = &e->op.gf->t[i];
		struct gstep *s;

		if (!(e->op.kinds & (1u << t->t_kind)))
			continue;
		SIM_ASSERT(e->nr_g < GRAMMAR_MAX);
		s = &e->g[e->nr_g++];
		grammar_expand(t, e->cfg.opts.block_size, s->text);
		SIM_ASSERT(scn_parse_step(s->text, &st, err, sizeof(err), &col) == 0);
		s->kind = t->t_kind;
		s->persist = t->t_kind == GK_PERSIST || t->t_kind == GK_FSYNCPATH;
		s->ns = scn_step_is_namespace(&st);
		s->fill = takes_fill(s->text, &st);
	}
	SIM_ASSERT(e->nr_g > 0);
}

/*
 * Step @i of a sequence as text: writes and stores get the fill byte of
 * their position (0x11, 0x22, ...) so that a reader can tell them apart.
 */
static void step_text(const struct gstep *g, uint32_t i, char out[SCN_STEP_TEXT_MAX])
{
	unsigned fill = 0x11 * ((i % 14) + 1);

	if (g->fill)
		with_fill(g->text, fill, out);
	else
		snprintf(out, SCN_STEP_TEXT_MAX, "%s", g->text);
}

/* Sequence number @n of the exhaustive space: its length and grammar indexes. */
static unsigned decode(const struct explore *e, uint64_t n, unsigned *idx)
{
	uint64_t block = e->nr_g;
	unsigned len = 1;

	while (n >= block) {
		n -= block;
		block *= e->nr_g;
		len++;
	}
	for (unsigned i = 0; i < len; i++) {
		idx[i] = (unsigned)(n % e->nr_g);
		n /= e->nr_g;
	}
	return len;
}

/* Two equal persistence steps in a row: the second changes nothing. */
static bool pruned(const struct explore *e, const unsigned *idx, unsigned len)
{
	for (unsigned i = 1; i < len; i++)
		if (idx[i] == idx[i - 1] && e->g[idx[i]].persist)
			return true;
	return false;
}

/* A random run's generator: its swarm pool, its length, its stream of steps. */
struct drawer {
	struct prng g;
	unsigned pool[GRAMMAR_MAX];
	unsigned n;
	uint32_t len;
};

/*
 * Random run @r: a swarm subset of the grammar's kinds (writes always in),
 * then its length, 1..K drawn (K with --fixed-length); the steps follow
 * from draw_next().  Depends only on the seed, @r and the grammar.
 */
static void draw_begin(const struct explore *e, uint64_t r, struct drawer *d)
{
	uint64_t mask;

	prng_seed(&d->g, e->op.seed * 0x100000001b3ull + r);
	mask = prng_next(&d->g);
	d->n = 0;
	for (unsigned i = 0; i < e->nr_g; i++)
		if ((mask >> (e->g[i].kind * 7 % 64)) & 1 || e->g[i].kind == GK_WRITE)
			d->pool[d->n++] = i;
	SIM_ASSERT(d->n > 0);
	d->len = e->op.fixed_length ? e->op.steps : 1 + (uint32_t)prng_mod(&d->g, e->op.steps);
	SIM_ASSERT(d->len >= 1 && d->len <= e->op.steps);
}

static unsigned draw_next(struct drawer *d)
{
	return d->pool[prng_mod(&d->g, d->n)];
}

/* A short random run (K <= EXPLORE_STEPS_MAX) as grammar indexes; its length. */
static unsigned draw(const struct explore *e, uint64_t r, unsigned *idx)
{
	struct drawer d;

	draw_begin(e, r, &d);
	SIM_ASSERT(d.len <= EXPLORE_STEPS_MAX);
	for (uint32_t i = 0; i < d.len; i++)
		idx[i] = draw_next(&d);
	return d.len;
}

/* What one sequence showed: the invariants counted as violated (per side with --diff). */
struct outcome {
	bool violated[2][INV_COUNT];
};

/* Run @s under @base (with --diff, the toggle set to @on); what it violated. */
static void run_side(const struct explore *e, const struct sim_variant_cfg *base,
		     const struct scenario *s, bool on, bool violated[INV_COUNT])
{
	struct sim_variant_cfg cfg = *base;
	struct sim_variant_result r;
	struct sim_options o = e->op.o;
	char err[SCN_ERR_MAX];

	if (e->op.diff)
		ext4_toggle_set(&cfg.sem, e->op.diff, on);
	o.quiet = true;
	o.json = false;
	o.crash_everywhere = true;
	SIM_ASSERT(sim_run_variant(s, &cfg, &o, NULL, NULL, &r, err, sizeof(err)) == 0);
	memcpy(violated, r.violated, sizeof(r.violated));
	sim_variant_result_free(&r, s->nr_steps);
}

/* The invariant a sequence is a finding for, or -1 (and which side, for --diff). */
static int finding_of(const struct explore *e, const struct outcome *oc, bool *on_side)
{
	for (int inv = 0; inv < INV_COUNT; inv++) {
		if (!e->op.diff && oc->violated[0][inv])
			return inv;
		if (e->op.diff && oc->violated[0][inv] != oc->violated[1][inv]) {
			*on_side = oc->violated[1][inv];
			return inv;
		}
	}
	return -1;
}

/* A short hash of the minimized finding: its steps and its settings. */
static void finding_hash(const struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX],
			 unsigned nr, bool kernel, char out[17])
{
	struct sha256 h;
	uint8_t d[32];
	char hex[65];

	sha256_init(&h);
	for (unsigned i = 0; i < nr; i++)
		sha256_update(&h, texts[i], strlen(texts[i]) + 1);
	sha256_update(&h, &t->cfg.opts.block_size, sizeof(t->cfg.opts.block_size));
	sha256_update(&h, &t->cfg.opts.data, sizeof(t->cfg.opts.data));
	sha256_update(&h, &t->cfg.opts.delalloc, sizeof(t->cfg.opts.delalloc));
	if (!t->cfg.opts.dioread_nolock)        /* off the defaults only: hashes stay as they were */
		sha256_update(&h, "dioread_lock", 12);
	if (!t->cfg.opts.auto_da_alloc)
		sha256_update(&h, "noauto_da_alloc", 15);
	if (kernel)                             /* a sweep of kernels: one finding per kernel */
		sha256_update(&h, t->cfg.profile->name, strlen(t->cfg.profile->name));
	sha256_update(&h, inv_name(t->inv), strlen(inv_name(t->inv)));
	sha256_final(&h, d);
	sha256_hex(d, hex);
	memcpy(out, hex, 16);
	out[16] = 0;
}

/* How many distinct minimized findings cause @f holds. */
static unsigned distinct_of(const struct explore *e, const struct finding *f)
{
	unsigned n = 0;

	for (unsigned i = 0; i < e->nr_d; i++)
		n += e->d[i].cause == (unsigned)(f - e->f);
	return n;
}

/* The description of cause @f's file: the cause, the counts, the other examples' steps. */
static void cause_description(const struct explore *e, const struct finding *f, char *out,
			      size_t cap)
{
	size_t used = (size_t)snprintf(out, cap, "found by ext4sim explore: %s %s%s; cause: %s; "
				       "%llu sequence(s), %u distinct minimized finding(s)",
				       inv_name(f->inv),
				       e->op.diff ? "differs with patch " : "violated",
				       e->op.diff ? e->op.diff->name : "", f->cause,
				       (unsigned long long)f->count, distinct_of(e, f));

	for (unsigned k = 1; k < f->nr_ex && used < cap; k++) {
		used += (size_t)snprintf(out + used, cap - used, "; example %u:", k + 1);
		for (unsigned i = 0; i < f->ex[k].nr && used < cap; i++)
			used += (size_t)snprintf(out + used, cap - used, "%s %s", i ? ";" : "",
						 f->ex[k].texts[i]);
	}
}

/* Write cause @f as a scenario (its first example): one variant, or off/on for --diff. */
static int write_finding(const struct explore *e, const struct finding *f, const char *path)
{
	const struct example *x = &f->ex[0];
	const struct min_target *t = &x->t;
	struct sim_variant_cfg v[2] = { t->cfg, t->cfg };
	bool expect[2][INV_COUNT];
	struct scenario s;
	char err[SCN_ERR_MAX], desc[SCN_TEXT_MAX];
	struct scn_write w = { .w_scn = &s, .w_description = desc, .w_cfg = &t->cfg,
			       .w_expect = (const bool (*)[INV_COUNT])expect, .w_judging = &t->o };
	int rc;

	min_build(&s, "explore-finding", (char (*)[SCN_STEP_TEXT_MAX])x->texts, x->nr);
	cause_description(e, f, desc, sizeof(desc));
	if (e->op.diff) {
		snprintf(v[0].name, sizeof(v[0].name), "off");
		snprintf(v[1].name, sizeof(v[1].name), "on");
		ext4_toggle_set(&v[0].sem, e->op.diff, false);
		ext4_toggle_set(&v[1].sem, e->op.diff, true);
		w.w_variants = v;
		w.w_nr_variants = 2;
	}
	for (unsigned k = 0; k < (e->op.diff ? 2u : 1u); k++)
		run_side(e, &t->cfg, &s, k == 1, expect[k]);
	rc = scn_write_yaml(&w, path, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "ext4sim: %s\n", err);
	scn_free(&s);
	return rc;
}

/* One file per cause under --out: INVARIANT-HASH.yaml (a shard's: INVARIANT-HASH.sI.yaml). */
static void write_causes(struct explore *e)
{
	char shard[32] = "";

	if (e->op.nr_shards > 1)
		snprintf(shard, sizeof(shard), ".s%u", e->op.shard);
	for (unsigned i = 0; e->op.out_dir && i < e->nr_f; i++) {
		struct finding *f = &e->f[i];
		char hash[sizeof(f->hash)];     /* a copy: no argument inside the destination */

		if (f->long_run || !f->nr_ex)
			continue;
		memcpy(hash, f->hash, sizeof(hash));
		snprintf(f->path, sizeof(f->path), "%s/%s-%s%s.yaml", e->op.out_dir,
			 inv_name(f->inv), hash, shard);
		if (write_finding(e, f, f->path) < 0) {
			f->path[0] = 0;
			e->write_failed = true;         /* exit 2 once the report is out */
		}
	}
}

/* Keep minimized finding @hash (steps @texts) as an example of cause @f. */
static void add_example(struct finding *f, const struct min_target *t, const char *hash,
			char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr)
{
	struct example *x;

	if (f->nr_ex == EXAMPLES_MAX)
		return;
	if (!f->ex)
		f->ex = sim_zalloc(EXAMPLES_MAX * sizeof(*f->ex));
	x = &f->ex[f->nr_ex++];
	memcpy(x->hash, hash, sizeof(x->hash));
	x->nr = nr;
	memcpy(x->texts, texts, nr * sizeof(*texts));
	x->t = *t;
}

/* The cause of signature @sig (a new one if none has it yet); NULL when full. */
static struct finding *cause_for(struct explore *e, const char *sig, int inv)
{
	char hex[65];
	uint8_t d[32];
	struct sha256 h;
	struct finding *f;

	sha256_init(&h);
	sha256_update(&h, sig, strlen(sig));
	sha256_final(&h, d);
	sha256_hex(d, hex);
	for (unsigned i = 0; i < e->nr_f; i++)
		if (!e->f[i].long_run && strncmp(e->f[i].hash, hex, 16) == 0)
			return &e->f[i];
	if (e->nr_f == FINDINGS_MAX)
		return NULL;
	f = &e->f[e->nr_f++];
	*f = (struct finding){ .inv = inv };
	memcpy(f->hash, hex, 16);
	snprintf(f->cause, sizeof(f->cause), "%s", sig);
	return f;
}

/*
 * A finding: minimize it (unless --no-minimize); a minimized finding seen
 * before counts for its cause; a new one gets its signature (cause.c) and
 * joins the cause that has it, or starts one.
 */
static void handle_finding(struct explore *e, char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr,
			   int inv, bool on_side)
{
	struct min_target t = { .cfg = e->cfg, .inv = inv, .diff = e->op.diff,
				.diff_on_side = on_side, .o = e->op.o };
	char hash[17], sig[CAUSE_TEXT_MAX];
	struct finding *f;

	t.o.quiet = true;
	t.o.json = false;
	t.o.crash_everywhere = true;
	t.o.crash_memo = e->crash_memo;  /* sound under every variant: cpmemo.c compares the
					  * semantics a point read */
	if (e->op.minimize && inv != INV_STATES)   /* minimize keeps a verdict, not states */
		min_minimize(&t, texts, &nr);
	finding_hash(&t, texts, nr, e->op.sweep.nr[SD_KERNEL] > 1, hash);
	for (unsigned i = 0; i < e->nr_d; i++) {
		if (strcmp(e->d[i].hash, hash) == 0) {
			e->f[e->d[i].cause].count++;
			return;
		}
	}
	if (e->nr_d == FINDINGS_MAX)
		return;
	if (inv == INV_STATES)
		snprintf(sig, sizeof(sig), STATES_NAME ": the crash states differ with %s off and "
			 "on, no verdict does", e->op.diff->name);
	else
		cause_signature(&t, texts, nr, sig, sizeof(sig));
	if (!(f = cause_for(e, sig, inv)))
		return;
	f->count++;
	e->d[e->nr_d] = (struct distinct){ .cause = (unsigned)(f - e->f) };
	memcpy(e->d[e->nr_d++].hash, hash, sizeof(hash));
	add_example(f, &t, hash, texts, nr);
}

/*
 * --diff-states: run @s with the toggle off and on, what each violated into
 * @oc, and whether their crash states differ (any crash point's distinct
 * states, their bytes or their violations: matrix's digest).
 */
static bool run_states(const struct explore *e, const struct scenario *s, struct outcome *oc)
{
	struct sim_options o = e->op.o;
	char digest[2][65], err[SCN_ERR_MAX];

	o.crash_everywhere = true;
	o.quiet = true;
	o.json = false;
	o.crash_digest = true;
	o.final_digest = true;
	for (unsigned k = 0; k < 2; k++) {
		struct sim_variant_cfg cfg = e->cfg;
		struct sim_variant_result r;

		ext4_toggle_set(&cfg.sem, e->op.diff, k == 1);
		SIM_ASSERT(sim_run_variant(s, &cfg, &o, NULL, NULL, &r, err, sizeof(err)) == 0);
		memcpy(oc->violated[k], r.violated, sizeof(oc->violated[k]));
		report_states_digest(&r, digest[k]);
		sim_variant_result_free(&r, s->nr_steps);
	}
	return strcmp(digest[0], digest[1]) != 0;
}

/* Run one sequence (grammar indexes @idx); record a finding if it shows one. */
static void run_sequence(struct explore *e, const unsigned *idx, unsigned len)
{
	char texts[EXPLORE_STEPS_MAX][SCN_STEP_TEXT_MAX];
	struct outcome oc;
	struct scenario s;
	bool on_side = false, states_differ = false;
	int inv;

	for (unsigned i = 0; i < len; i++)
		step_text(&e->g[idx[i]], i, texts[i]);
	min_build(&s, "explore", texts, len);
	if (e->op.diff_states) {
		states_differ = run_states(e, &s, &oc);
	} else {
		run_side(e, &e->cfg, &s, false, oc.violated[0]);
		if (e->op.diff)
			run_side(e, &e->cfg, &s, true, oc.violated[1]);
	}
	scn_free(&s);
	e->run++;
	inv = finding_of(e, &oc, &on_side);
	if (inv < 0 && states_differ)
		inv = INV_STATES;
	if (inv >= 0) {
		e->with_finding++;
		handle_finding(e, texts, len, inv, on_side);
	}
}

/* Seconds since the first call (the monotonic clock: for the progress line only). */
static double progress_elapsed(void)
{
	static struct timespec t0;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (t0.tv_sec == 0 && t0.tv_nsec == 0)
		t0 = t;
	return (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
}

/*
 * "done/total, rate, findings, ETA" on stderr, when it is a terminal.  The
 * clock is read here only, for a line no output file or report contains,
 * so results stay independent of time.
 */
static void progress(const struct explore *e, uint64_t done, uint64_t total)
{
	double secs, rate;

	if (!isatty(2))
		return;
	secs = progress_elapsed();
	if (done % 64 && done != total)
		return;
	rate = secs > 0 ? (double)done / secs : 0;
	fprintf(stderr, "\rexplore: %llu/%llu sequences, %.0f/s, %llu with a finding, %u distinct, "
		"ETA %.0f s  %s", (unsigned long long)done, (unsigned long long)total, rate,
		(unsigned long long)e->with_finding, e->nr_d,
		rate > 0 ? (double)(total - done) / rate : 0.0, done == total ? "\n" : "");
}

/*
 * The size of the space, on stderr before the first sequence runs (the
 * report repeats it): sequences in the space, and this shard's share.
 */
static void announce(const struct explore *e)
{
	uint64_t mine = e->space / e->op.nr_shards + (e->op.shard < e->space % e->op.nr_shards);

	if (!e->op.random)
		mine = e->mine;
	if (e->op.random && e->op.has_run)
		mine = 1;
	fprintf(stderr, "explore: %s, %u grammar step(s), sequences of 1..%u: space %llu, "
		"%llu to run here (shard %u/%u%s)\n",
		e->op.random ? "seeded random" : "bounded exhaustive", e->nr_g, e->op.steps,
		(unsigned long long)e->space, (unsigned long long)mine, e->op.shard, e->op.nr_shards,
		e->op.random && e->op.has_run ? ", --run" : "");
}

/* The space as tree.c sees it; @st gets every step at every position, parsed. */
static void tree_space_of(const struct explore *e, struct tree_space *sp, struct scn_step *st,
			  bool *persist, bool *ns, struct sim_variant_cfg *cfg, struct sim_options *o)
{
	char text[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	bool any_ns = false;
	unsigned col;

	for (unsigned i = 0; i < e->op.steps; i++)
		for (unsigned g = 0; g < e->nr_g; g++) {
			step_text(&e->g[g], i, text);
			SIM_ASSERT(scn_parse_step(text, &st[i * e->nr_g + g], err, sizeof(err),
						  &col) == 0);
		}
	for (unsigned g = 0; g < e->nr_g; g++) {
		persist[g] = e->g[g].persist;
		ns[g] = e->g[g].ns;
		any_ns |= ns[g];
	}
	*o = e->op.o;
	o->quiet = true;
	o->json = false;
	o->crash_everywhere = true;
	cfg[0] = cfg[1] = e->cfg;
	if (e->op.diff) {
		ext4_toggle_set(&cfg[0].sem, e->op.diff, false);
		ext4_toggle_set(&cfg[1].sem, e->op.diff, true);
	}
	*sp = (struct tree_space){ .nr_g = e->nr_g, .steps = e->op.steps, .st = st,
				   .persist = persist, .ns = any_ns ? ns : NULL,
				   .shard = e->op.shard,
				   .nr_shards = e->op.nr_shards, .sides = e->op.diff ? 2 : 1,
				   .cfg = { &cfg[0], &cfg[1] }, .o = o,
				   .share_states = e->op.share_states };
}

/* The tree walk: each prefix once; then the findings, in sequence order. */
static void explore_tree(struct explore *e, const struct tree_space *sp)
{
	char texts[EXPLORE_STEPS_MAX][SCN_STEP_TEXT_MAX];
	unsigned idx[EXPLORE_STEPS_MAX];
	struct tree_result res;

	tree_explore(sp, &res);
	if (res.interrupted)
		e->interrupted = outfile_signal;
	if (e->op.share_stats)
		fprintf(stderr, "explore: prefix sharing: %llu world(s) forked; %llu state(s) met again "
		"at the same depth, %llu sequence(s) under them not run; %llu subtree(s) kept\n",
		(unsigned long long)res.forks, (unsigned long long)res.reused,
		(unsigned long long)res.reused_seqs, (unsigned long long)res.memo_entries);
	e->run += res.run;
	e->pruned += res.pruned;
	for (uint64_t k = 0; k < res.nr_hits; k++) {
		unsigned len = decode(e, res.hits[k].n, idx);
		struct outcome oc;
		bool on_side = false;
		int inv;

		for (int v = 0; v < INV_COUNT; v++)
			for (unsigned s = 0; s < 2; s++)
				oc.violated[s][v] = res.hits[k].mask[e->op.diff ? s : 0] >> v & 1;
		inv = finding_of(e, &oc, &on_side);
		SIM_ASSERT(inv >= 0);
		for (unsigned i = 0; i < len; i++)
			step_text(&e->g[idx[i]], i, texts[i]);
		e->with_finding++;
		handle_finding(e, texts, len, inv, on_side);
	}
	progress(e, e->space, e->space);
	tree_result_free(&res);
}

/*
 * The sequences of 1..@steps steps over @nr_g templates: the sum of nr_g^k,
 * saturated at UINT64_MAX (with GRAMMAR_MAX and EXPLORE_STEPS_MAX it stays
 * below 2^57, but the sum is computed so that no bound is assumed).
 */
static uint64_t space_of(uint64_t nr_g, uint32_t steps)
{
	uint64_t total = 0, block = 1;

	for (uint32_t k = 1; k <= steps; k++) {
		if (nr_g && block > UINT64_MAX / nr_g)
			return UINT64_MAX;
		block *= nr_g;
		if (total > UINT64_MAX - block)
			return UINT64_MAX;
		total += block;
	}
	return total;
}

/*
 * Refuse an exhaustive space that runs more than --max-space sequences here
 * (this shard's share), before anything runs: one line that gives the size
 * and names the flags that take it (--max-space N, or a random sample with
 * --seed S --count N); 0 or 2.
 */
static int space_check(const struct explore *e)
{
	struct tree_space sp = { .nr_g = e->nr_g, .steps = e->op.steps, .shard = e->op.shard,
				 .nr_shards = e->op.nr_shards };
	uint64_t space = space_of(e->nr_g, e->op.steps), mine, n = e->nr_distinct;
	char sweep[64] = "";

	if (e->op.random)
		return 0;
	mine = space == UINT64_MAX ? UINT64_MAX : tree_owned_total(&sp);
	space = space > UINT64_MAX / n ? UINT64_MAX : space * n;
	mine = mine > UINT64_MAX / n ? UINT64_MAX : mine * n;
	if (mine <= e->op.max_space)
		return 0;
	if (n > 1)
		snprintf(sweep, sizeof(sweep), " in %u configurations", e->nr_distinct);
	fprintf(stderr, "ext4sim: explore: the space holds %llu%s sequence(s) of 1..%u steps over "
		"%u grammar step(s)%s, %llu%s to run here, past the limit of %llu (--max-space N "
		"raises it; --seed S --count N runs a random sample)\n",
		(unsigned long long)space, space == UINT64_MAX ? " or more" : "", e->op.steps,
		e->nr_g, sweep, (unsigned long long)mine, mine == UINT64_MAX ? " or more" : "",
		(unsigned long long)e->op.max_space);
	return 2;
}

static void explore_all(struct explore *e)
{
	unsigned idx[EXPLORE_STEPS_MAX];
	uint64_t total = space_of(e->nr_g, e->op.steps);
	struct scn_step *st = sim_zalloc((size_t)e->op.steps * e->nr_g * sizeof(*st));
	struct sim_variant_cfg cfg[2];
	bool persist[GRAMMAR_MAX], ns[GRAMMAR_MAX];
	struct tree_space sp;
	struct sim_options o;

	e->space = total;
	tree_space_of(e, &sp, st, persist, ns, cfg, &o);
	e->mine = tree_owned_total(&sp);
	announce(e);
	if (e->op.share && e->op.share_states)        /* equal crash points too (crash/cpmemo.h) */
		o.crash_memo = cp_memo_create(CRASH_MEMO_BYTES);
	e->crash_memo = o.crash_memo;
	if (e->op.share)
		explore_tree(e, &sp);
	e->crash_memo = NULL;
	if (o.crash_memo && e->op.share_stats)
		fprintf(stderr, "explore: %llu crash point(s) met again, judged once\n",
			(unsigned long long)cp_memo_hits(o.crash_memo));
	cp_memo_destroy(o.crash_memo);
	for (uint64_t n = 0; !e->op.share && n < total && !(e->interrupted = outfile_signal); n++) {
		unsigned len = decode(e, n, idx);

		if (!tree_owns(&sp, idx, len))
			continue;
		if (pruned(e, idx, len))
			e->pruned++;
		else
			run_sequence(e, idx, len);
		progress(e, n + 1, total);
	}
	free(st);
}

/* --- long random runs (K > EXPLORE_STEPS_MAX) -------------------------------- */

/* Does --crash-at judge a crash inside and right after step @n (1-based), of @g? */
static bool judge_at(const struct explore *e, uint32_t n, const struct gstep *g)
{
	switch (e->op.crash_at) {
	case CA_EVERYWHERE: return true;
	case CA_EVERY_N: return n % e->op.crash_every == 0;
	case CA_PERSIST: return g->persist;
	default: return false;
	}
}

/* "run R: step N of M" on stderr every 2^16 steps, when it is a terminal. */
static void long_progress(uint64_t r, uint32_t n, uint32_t len)
{
	if (isatty(2) && (n % 65536 == 0 || n == len))
		fprintf(stderr, "\rexplore: run %llu, step %u of %u%s", (unsigned long long)r, n,
			len, n == len ? "\n" : "");
}

/*
 * Long run @r, streamed (no scenario is built, no per-step record kept),
 * under the variant (with --diff, the toggle set to @on).
 */
static void run_long_side(struct explore *e, uint64_t r, bool on,
			  struct sim_stream_result *res)
{
	struct sim_variant_cfg cfg = e->cfg;
	struct sim_options o = e->op.o;
	char text[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	struct sim_stream *ss;
	struct scn_step st;
	struct drawer d;
	unsigned col;

	if (e->op.diff)
		ext4_toggle_set(&cfg.sem, e->op.diff, on);
	o.quiet = true;
	o.json = false;
	o.crash_everywhere = false;
	if (e->op.crash_at == CA_NONE)
		o.crash_bound = 0;
	draw_begin(e, r, &d);
	ss = sim_stream_open(&cfg, &o);
	for (uint32_t i = 0; i < d.len && !outfile_signal; i++) {
		const struct gstep *g = &e->g[draw_next(&d)];

		step_text(g, i, text);
		SIM_ASSERT(scn_parse_step(text, &st, err, sizeof(err), &col) == 0);
		sim_stream_step(ss, &st, judge_at(e, i + 1, g));
		long_progress(r, i + 1, d.len);
	}
	sim_stream_close(ss, res);
	SIM_ASSERT(res->steps == d.len || outfile_signal || res->cut);
	if (res->cut) {
		fprintf(stderr, "ext4sim: explore: run %llu stopped after step %u of %u: the checker's "
			"logs hold %u entries (changes since the last crash and durable point, and "
			"durable points), the most a long run keeps (docs/performance.md, \"Limits\")\n", (unsigned long long)r,
			res->steps, d.len, SIM_STREAM_MUTS_MAX);
		e->write_failed = true;         /* exit 2 once the report is out */
	}
	if (!on) {                      /* counted once, not per side of --diff */
		e->steps_run += res->steps;
		e->crash_points += res->crash_points;
	}
}

/* A long run's finding: hashed by the seed, run, invariant and settings. */
static void long_finding(struct explore *e, uint64_t r, int inv, uint32_t step)
{
	struct sha256 h;
	struct finding *f;
	uint8_t dg[32];
	char hex[65];

	sha256_init(&h);
	sha256_update(&h, "long", 4);
	sha256_update(&h, &e->op.seed, sizeof(e->op.seed));
	sha256_update(&h, &r, sizeof(r));
	sha256_update(&h, &inv, sizeof(inv));
	sha256_update(&h, &e->cfg.opts.block_size, sizeof(e->cfg.opts.block_size));
	sha256_update(&h, &e->cfg.opts.data, sizeof(e->cfg.opts.data));
	for (unsigned i = 0; i < e->nr_g; i++)
		sha256_update(&h, e->g[i].text, strlen(e->g[i].text) + 1);
	sha256_final(&h, dg);
	sha256_hex(dg, hex);
	if (e->nr_f == FINDINGS_MAX)
		return;
	f = &e->f[e->nr_f++];
	*f = (struct finding){ .inv = inv, .count = 1, .long_run = true, .run = r, .step = step };
	memcpy(f->hash, hex, 16);
	f->hash[16] = 0;
}

/* Run long run @r (both sides with --diff); record what it found. */
static void run_long(struct explore *e, uint64_t r)
{
	struct sim_stream_result *res = sim_zalloc(2 * sizeof(*res));
	struct outcome oc;
	bool on_side = false;
	int inv;

	run_long_side(e, r, false, &res[0]);
	if (e->op.diff)
		run_long_side(e, r, true, &res[1]);
	memcpy(oc.violated[0], res[0].violated, sizeof(oc.violated[0]));
	memcpy(oc.violated[1], res[e->op.diff ? 1 : 0].violated, sizeof(oc.violated[1]));
	e->run++;
	inv = finding_of(e, &oc, &on_side);
	if (inv >= 0) {
		e->with_finding++;
		long_finding(e, r, inv, res[on_side ? 1 : 0].first_step[inv]);
	}
	free(res);
}

/* The runs of this shard (or --run R alone): short ones judged whole, long ones streamed. */
static void explore_random(struct explore *e)
{
	unsigned idx[EXPLORE_STEPS_MAX];
	uint64_t first = e->op.has_run ? e->op.only_run : e->op.shard;
	uint64_t end = e->op.has_run ? e->op.only_run + 1 : e->op.count;

	e->space = e->op.count;
	announce(e);
	for (uint64_t r = first; r < end && !(e->interrupted = outfile_signal);
	     r += e->op.nr_shards) {
		if (e->op.steps > EXPLORE_STEPS_MAX)
			run_long(e, r);
		else
			run_sequence(e, idx, draw(e, r, idx));
		progress(e, r + 1, e->op.count);
	}
}

/* --- the command ----------------------------------------------------------- */

/* The command that runs long run @f again, alone, into @out. */
static void reproduce_cmd(const struct explore *e, const struct finding *f, char *out, size_t cap)
{
	const char *ov = e->op.ov.argv_text;

	snprintf(out, cap, "ext4sim explore --seed %llu --count %llu --steps %u%s%s%s%s%s%s%s%s%s%s%s"
		 " --run %llu", (unsigned long long)e->op.seed, (unsigned long long)e->op.count,
		 e->op.steps, e->op.fixed_length ? " --fixed-length" : "",
		 e->op.grammar_path ? " --grammar " : "", e->op.grammar_path ? e->op.grammar_path : "",
		 e->op.kinds_arg ? " --kinds " : "", e->op.kinds_arg ? e->op.kinds_arg : "",
		 e->op.crash_at_arg ? " --crash-at " : "", e->op.crash_at_arg ? e->op.crash_at_arg : "",
		 e->op.diff ? " --diff " : "", e->op.diff ? e->op.diff->name : "", ov[0] ? " " : "", ov,
		 (unsigned long long)f->run);
}

/* Findings with no cause (long runs'): each counts as one distinct finding. */
static unsigned uncaused(const struct explore *e)
{
	unsigned n = 0;

	for (unsigned i = 0; i < e->nr_f; i++)
		n += !e->f[i].cause[0];
	return n;
}

static void report_text(const struct explore *e)
{
	char cmd[2048];

	printf("explore: %s, %u grammar step(s), sequences of %s%u: space %llu; shard %u/%u\n",
	       e->op.random ? "seeded random" : "bounded exhaustive", e->nr_g,
	       e->op.random && e->op.fixed_length ? "" : "1..", e->op.steps,
	       (unsigned long long)e->space, e->op.shard, e->op.nr_shards);
	if (e->nr_configs > 1)
		printf("  a sweep of %u configuration(s), %u distinct: %s; the space is their sum\n",
		       e->nr_configs, e->nr_distinct, e->sweep_text);
	printf("  run %llu, pruned %llu (a persistence step repeated), with a finding %llu, "
	       "distinct findings %u, causes %u\n", (unsigned long long)e->run,
	       (unsigned long long)e->pruned, (unsigned long long)e->with_finding,
	       e->nr_d + uncaused(e), e->nr_f);
	if (e->op.random && e->op.steps > EXPLORE_STEPS_MAX)
		printf("  long runs: %llu step(s) run, %llu crash point(s) judged (--crash-at %s)\n",
		       (unsigned long long)e->steps_run, (unsigned long long)e->crash_points,
		       e->op.crash_at_arg ? e->op.crash_at_arg : "crash");
	if (e->interrupted)
		printf("  incomplete: stopped by signal %d; the counts cover what ran before it\n",
		       e->interrupted);
	for (unsigned i = 0; i < e->nr_f; i++) {
		const struct finding *f = &e->f[i];

		printf("  %-28s %s  x%-6llu ", inv_name(f->inv), f->hash,
		       (unsigned long long)f->count);
		if (!f->long_run && f->cause[0]) {
			printf("%u distinct  %s\n      cause: %s\n", distinct_of(e, f),
			       f->path[0] ? f->path : "-", f->cause);
			continue;
		}
		if (!f->long_run) {
			printf("%s\n", f->path[0] ? f->path : "-");
			continue;
		}
		reproduce_cmd(e, f, cmd, sizeof(cmd));
		printf("run %llu, first at step %u; reproduce: %s\n", (unsigned long long)f->run,
		       f->step, cmd);
	}
}

/*
 * The report's sweep (without one, nothing): its words for the text report,
 * and its JSON object for --json, which ends the report's first line: the
 * summary, the number of configurations and of distinct ones, and each
 * configuration in order with its swept values and, when it mounts as an
 * earlier one and was not run again, "mounts_as" (that one's number).  The
 * same for every shard of one sweep, so merge compares and keeps it.
 */
static void sweep_report(struct explore *e)
{
	size_t len = 0;
	FILE *f;

	if (e->nr_configs < 2)
		return;
	sweep_summary(&e->op.sweep, e->sweep_text, sizeof(e->sweep_text));
	f = open_memstream(&e->sweep_json, &len);
	SIM_ASSERT(f != NULL);
	fprintf(f, "{\"summary\": \"%s\", \"count\": %u, \"distinct\": %u, \"configurations\": [",
		e->sweep_text, e->nr_configs, e->nr_distinct);
	for (unsigned k = 0; k < e->nr_configs; k++) {
		fprintf(f, "%s{\"configuration\": %u, ", k ? ", " : "", k + 1);
		sweep_json_values(&e->op.sweep, k, f);
		if (e->same_as[k] >= 0)
			fprintf(f, ", \"mounts_as\": %d", e->same_as[k] + 1);
		fputc('}', f);
	}
	fputs("]}", f);
	SIM_ASSERT(fclose(f) == 0);
}

/* JSON, one finding per line (ext4sim merge reads it back). */
static void report_json(const struct explore *e)
{
	char cmd[2048];

	printf("{\"ext4sim_explore\": %d, \"mode\": \"%s\", \"grammar\": %u, \"steps\": %u, "
	       "\"space\": %llu, \"shard\": %u, \"shards\": %u, \"run\": %llu, \"pruned\": %llu, "
	       "\"with_finding\": %llu", EXPLORE_JSON_VERSION, e->op.random ? "random" : "exhaustive",
	       e->nr_g, e->op.steps, (unsigned long long)e->space, e->op.shard, e->op.nr_shards,
	       (unsigned long long)e->run, (unsigned long long)e->pruned,
	       (unsigned long long)e->with_finding);
	if (e->op.random && e->op.steps > EXPLORE_STEPS_MAX)
		printf(", \"steps_run\": %llu, \"crash_points\": %llu",
		       (unsigned long long)e->steps_run, (unsigned long long)e->crash_points);
	if (e->sweep_json)
		printf(", \"sweep\": %s", e->sweep_json);
	printf(", \"findings\": [\n");
	for (unsigned i = 0; i < e->nr_f; i++) {
		const struct finding *f = &e->f[i];

		printf("{\"invariant\": \"%s\", \"hash\": \"%s\", \"count\": %llu, \"file\": ",
		       inv_name(f->inv), f->hash, (unsigned long long)f->count);
		json_string(stdout, f->path);
		if (f->cause[0]) {
			printf(", \"cause\": ");
			json_string(stdout, f->cause);
			printf(", \"findings\": [");
			for (unsigned k = 0, n = 0; k < e->nr_d; k++)
				if (e->d[k].cause == i)
					printf("%s\"%s\"", n++ ? ", " : "", e->d[k].hash);
			putchar(']');
		}
		if (f->long_run) {
			reproduce_cmd(e, f, cmd, sizeof(cmd));
			printf(", \"run\": %llu, \"step\": %u, \"reproduce\": ",
			       (unsigned long long)f->run, f->step);
			json_string(stdout, cmd);
		}
		printf("}%s\n", i + 1 < e->nr_f ? "," : "");
	}
	printf("], \"complete\": %s}\n", e->interrupted ? "false" : "true");
}

/* The variant the flags give, over an empty inline scenario's defaults. */
static int explore_variant(struct explore *e)
{
	struct scenario s;
	struct sim_variant_cfg cfg[SCN_VARIANTS_MAX];
	char err[SCN_ERR_MAX];
	unsigned nr;

	memset(&s, 0, sizeof(s));
	snprintf(s.path, sizeof(s.path), "explore");
	scn_config_defaults(&s.config);
	if (sim_resolve_variants(&s, &e->op.ov, cfg, &nr, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	e->cfg = cfg[0];
	return 0;
}

/* Do two resolved configurations run alike (dioread_nolock only where it applies)? */
static bool config_equal(const struct sim_variant_cfg *a, const struct sim_variant_cfg *b)
{
	const struct ext4_mount_opts *p = &a->opts, *q = &b->opts;

	return a->profile == b->profile && memcmp(&a->sem, &b->sem, sizeof(a->sem)) == 0 &&
	       p->block_size == q->block_size && p->data == q->data && p->delalloc == q->delalloc &&
	       ext4_should_dioread_nolock_opts(p) == ext4_should_dioread_nolock_opts(q) &&
	       p->auto_da_alloc == q->auto_da_alloc && p->disk_blocks == q->disk_blocks;
}

/*
 * Mark each configuration that mounts as an earlier one (data=journal
 * turns delalloc off, so a sweep of both meets the same mount twice): it is
 * not run again.  Counts the distinct ones; 0, or 2.
 */
static int sweep_distinct(struct explore *e)
{
	struct sim_variant_cfg *cfg = sim_zalloc(e->nr_configs * sizeof(*cfg));
	int rc = 0;

	e->same_as = sim_zalloc(e->nr_configs * sizeof(*e->same_as));
	e->nr_distinct = 0;
	for (unsigned k = 0; k < e->nr_configs && rc == 0; k++) {
		sweep_apply(&e->op.sweep, k, &e->op.ov);
		rc = explore_variant(e);
		cfg[k] = e->cfg;
		e->same_as[k] = -1;
		for (unsigned j = 0; j < k && e->same_as[k] < 0; j++)
			if (e->same_as[j] < 0 && config_equal(&cfg[j], &cfg[k]))
				e->same_as[k] = (int)j;
		e->nr_distinct += e->same_as[k] < 0;
	}
	free(cfg);
	sweep_apply(&e->op.sweep, 0, &e->op.ov);
	return rc ? rc : explore_variant(e);
}

/*
 * Configuration @k of the sweep: its settings over the flags', its variant
 * and its grammar (expanded for its block size); with a sweep, a line on
 * stderr names it before its space's.  0, or 2.
 */
static int explore_config(struct explore *e, unsigned k)
{
	char what[256];
	int rc;

	sweep_apply(&e->op.sweep, k, &e->op.ov);
	if ((rc = explore_variant(e)))
		return rc;
	build_grammar(e);
	if (e->nr_configs == 1)
		return 0;
	sweep_describe(&e->op.sweep, k, what, sizeof(what));
	fprintf(stderr, "explore: configuration %u/%u: %s", k + 1, e->nr_configs, what);
	if (e->same_as[k] >= 0)
		fprintf(stderr, ": mounts as configuration %d, not run again", e->same_as[k] + 1);
	fputc('\n', stderr);
	return 0;
}

/*
 * Every configuration in turn (one without a sweep), findings gathered and
 * grouped across them; the space reported is their sum.  0, or 2.
 */
static int explore_configs(struct explore *e)
{
	uint64_t space = 0;
	char what[512];
	int rc;

	if (e->nr_configs > 1) {
		uint64_t one = e->op.random ? e->op.count : space_of(e->nr_g, e->op.steps);

		sweep_summary(&e->op.sweep, what, sizeof(what));
		fprintf(stderr, "explore: a sweep of %u configuration(s), %u distinct: %s; space %llu "
			"in all\n", e->nr_configs, e->nr_distinct, what,
			one > UINT64_MAX / e->nr_distinct ? UINT64_MAX :
			(unsigned long long)(one * e->nr_distinct));
	}
	outfile_catch_signals(true);    /* stop at the next sequence, report, mark it incomplete */
	for (unsigned k = 0; k < e->nr_configs && !e->interrupted; k++) {
		if ((rc = explore_config(e, k)))
			return rc;
		if (e->same_as && e->same_as[k] >= 0)
			continue;
		if (e->op.random)
			explore_random(e);
		else
			explore_all(e);
		space = space + e->space < space ? UINT64_MAX : space + e->space;
	}
	e->space = space;
	return 0;
}

void explore_opts_init(struct explore_opts *op)
{
	*op = (struct explore_opts){ .steps = 3, .minimize = true, .share = true,
				     .share_states = true, .nr_shards = 1, .kinds = GK_DEFAULT,
				     .crash_at = CA_CRASH, .max_space = EXPLORE_SPACE_DEFAULT };
	op->o.crash_bound = CS_BOUND_DEFAULT;
}

struct explore *explore_new(const struct explore_opts *op)
{
	struct explore *e = sim_zalloc(sizeof(*e));

	e->op = *op;
	e->nr_configs = sweep_count(&op->sweep);
	e->nr_distinct = 1;
	SIM_ASSERT(op->gf != NULL && e->nr_configs <= SWEEP_CONFIGS_MAX && op->nr_shards > 0);
	return e;
}

int explore_resolve(struct explore *e)
{
	return e->nr_configs > 1 ? sweep_distinct(e) : explore_variant(e);
}

/*
 * The configurations an ACE space is walked under: the flags' variant, or
 * each distinct one of the sweep (one mounting as an earlier one is left
 * out), named as the sweep describes it.  How many; 0 with the usage error
 * printed (2).
 */
static unsigned ace_configs(struct explore *e, struct ace_config *out)
{
	unsigned n = 0;

	for (unsigned k = 0; k < e->nr_configs; k++) {
		bool dup = false;

		if (e->nr_configs > 1)
			sweep_apply(&e->op.sweep, k, &e->op.ov);
		if (explore_variant(e))
			return 0;
		for (unsigned j = 0; j < n && !dup; j++)
			dup = config_equal(&out[j].cfg, &e->cfg);
		if (dup)
			continue;
		if (n == ACE_CONFIGS_MAX) {
			fprintf(stderr, "ext4sim: explore: an ACE space is walked under at most %u "
				"configurations at once; the sweep has more\n", ACE_CONFIGS_MAX);
			return 0;
		}
		out[n].cfg = e->cfg;
		if (e->nr_configs > 1)
			sweep_describe(&e->op.sweep, k, out[n].name, sizeof(out[n].name));
		n++;
	}
	return n;
}

/*
 * A grammar file's ACE space (space:): its generator walked under the
 * flags' variant or a sweep's configurations, each workload judged under
 * all of them in turn, its own report.
 */
static int explore_ace(struct explore *e)
{
	struct ace_run *r = sim_zalloc(sizeof(*r));
	struct ace_config *cf = sim_zalloc(ACE_CONFIGS_MAX * sizeof(*cf));
	unsigned n;
	int rc = 2;

	if (e->op.random || e->op.o.json || e->op.diff_states) {
		fprintf(stderr, "ext4sim: explore: an ACE space (%s) is walked whole or by --shard, "
			"reported as text: not with --seed, --json or --diff-states\n",
			e->op.grammar_path);
		goto out;
	}
	if (!(n = ace_configs(e, cf)))
		goto out;
	*r = (struct ace_run){ .sp = e->op.gf->space, .shard = e->op.shard,
			       .nr_shards = e->op.nr_shards, .max_space = e->op.max_space,
			       .configs = cf, .nr_configs = n, .o = e->op.o, .diff = e->op.diff,
			       .share = e->op.share && e->op.share_states,
			       .share_stats = e->op.share_stats, .out_dir = e->op.out_dir,
			       .minimize = e->op.minimize };
	outfile_catch_signals(true);
	if ((rc = ace_run_space(r)) == 0)
		ace_run_report(r);
	rc = rc ? rc : r->interrupted ? 128 + r->interrupted : r->write_failed ? 2 : 0;
out:
	free(cf);
	free(r);
	return rc;
}

int explore_run(struct explore *e)
{
	int rc;

	if (e->op.gf->space != ACE_SPACE_NONE)
		return explore_ace(e);
	build_grammar(e);
	if ((rc = space_check(e)) || (rc = explore_configs(e)))
		return rc;
	write_causes(e);
	sweep_report(e);
	if (e->op.o.json)
		report_json(e);
	else
		report_text(e);
	return e->interrupted ? 128 + e->interrupted : e->write_failed ? 2 : 0;
}

void explore_free(struct explore *e)
{
	if (!e)
		return;
	for (unsigned i = 0; i < e->nr_f; i++)
		free(e->f[i].ex);
	free(e->same_as);
	free(e->sweep_json);
	free(e->seen);
	free(e);
}
/* --- ext4sim merge ---------------------------------------------------------- */

#define MERGE_SHARDS_MAX 65536

/* The distinct findings listed in @line's "findings": [...], joined to cause @ci. */
static void merge_distinct(struct explore *e, const char *line, unsigned ci)
{
	const char *p = strstr(line, "\"findings\": [");
	char h[17];

	for (p = p ? p + 13 : NULL; p && sscanf(p, "\"%16[0-9a-f]\"", h) == 1;) {
		bool seen = false;

		for (unsigned i = 0; i < e->nr_d && !seen; i++)
			seen = strcmp(e->d[i].hash, h) == 0;
		if (!seen && e->nr_d < FINDINGS_MAX) {
			e->d[e->nr_d] = (struct distinct){ .cause = ci };
			memcpy(e->d[e->nr_d++].hash, h, sizeof(h));
		}
		p = strchr(p + 1, '"');
		p = p ? strpbrk(p + 1, "\"]") : NULL;
		if (p && *p == ']')
			break;
	}
}

/* One finding line of a report: its cause's counts added, its findings joined; -1: bad. */
static int merge_finding(struct explore *e, const char *line)
{
	char inv[64], hash[17], file[4096] = "", cause[CAUSE_TEXT_MAX] = "";
	unsigned long long count;
	struct finding *fd = NULL;
	const char *c = strstr(line, "\"cause\": \"");

	if (sscanf(line, "{\"invariant\": \"%63[a-z_]\", \"hash\": \"%16[0-9a-f]\", \"count\": "
		   "%llu, \"file\": \"%4095[^\"]\"", inv, hash, &count, file) < 3 ||
	    (chk_inv_lookup(inv) < 0 && strcmp(inv, STATES_NAME)))
		return -1;
	if (c)
		sscanf(c + 10, "%511[^\"]", cause);
	for (unsigned i = 0; i < e->nr_f && !fd; i++)
		if (strcmp(e->f[i].hash, hash) == 0)
			fd = &e->f[i];
	if (!fd && e->nr_f < FINDINGS_MAX) {
		fd = &e->f[e->nr_f++];
		*fd = (struct finding){ .inv = strcmp(inv, STATES_NAME) ? chk_inv_lookup(inv) :
					INV_STATES };
		memcpy(fd->hash, hash, sizeof(fd->hash));
		snprintf(fd->path, sizeof(fd->path), "%s", file);
		snprintf(fd->cause, sizeof(fd->cause), "%s", cause);
	}
	if (!fd)
		return 0;
	fd->count += count;
	merge_distinct(e, line, (unsigned)(fd - e->f));
	return 0;
}

#define MERGE_LINE_MAX (16u << 20)      /* a cause's line lists its distinct findings */

/*
 * The finding lines of a report after its header, up to its closing line,
 * which must say the report is complete: an interrupted explore's report, or
 * one cut short, is refused.
 */
static int merge_findings(struct explore *e, FILE *f, const char *path)
{
	unsigned lineno = 1;
	bool complete = false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (strcmp(line, "], \"complete\": true}\n") == 0 || strcmp(line, "]}\n") == 0) {
			complete = true;
			break;
		}
		if (strcmp(line, "], \"complete\": false}\n") == 0) {
			fprintf(stderr, "%s:%u:1: an incomplete report (its explore was stopped by a "
				"signal): run the shard again\n", path, lineno);
			rc = 2;
		} else if ((size_t)len > MERGE_LINE_MAX || merge_finding(e, line) < 0) {
			fprintf(stderr, "%s:%u:1: not a finding line\n", path, lineno);
			rc = 2;
		}
	}
	free(line);
	if (rc == 0 && !complete) {
		fprintf(stderr, "%s:%u:1: the report is cut short (no closing line)\n", path,
			lineno + 1);
		rc = 2;
	}
	return rc;
}

/*
 * The sweep of a report's first line @line (the "sweep" object that ends it,
 * before "findings"), compared with the reports' before it (@first: none):
 * shards of one sweep carry the same one.  Kept in @e (its words from the
 * summary) for the merged report; 0, or -1 when it differs or is malformed.
 */
static int merge_sweep(struct explore *e, const char *line, bool first)
{
	const char *p = strstr(line, ", \"sweep\": "), *end = strstr(line, ", \"findings\": [\n");
	char *sw = NULL;
	unsigned count = 0, distinct = 0;

	if (p && end && end > p) {
		p += strlen(", \"sweep\": ");
		sw = strndup(p, (size_t)(end - p));
		SIM_ASSERT(sw != NULL);
		if (sscanf(sw, "{\"summary\": \"%511[^\"]\", \"count\": %u, \"distinct\": %u",
			   e->sweep_text, &count, &distinct) != 3 || count < 2 || distinct < 1 ||
		    distinct > count || count > SWEEP_CONFIGS_MAX) {
			free(sw);
			return -1;
		}
	}
	if (!first && ((sw == NULL) != (e->sweep_json == NULL) ||
		       (sw && strcmp(sw, e->sweep_json) != 0))) {
		free(sw);
		return -1;
	}
	free(e->sweep_json);
	e->sweep_json = sw;
	e->nr_configs = sw ? count : 1;
	e->nr_distinct = sw ? distinct : 1;
	return 0;
}

/* Read @path's explore report into @e (counts added, findings merged). */
static int merge_file(struct explore *e, const char *path, unsigned char *seen, bool first)
{
	char mode[16], *line = NULL;
	unsigned version, grammar, steps, shard, shards;
	unsigned long long space, run, pruned, with;
	size_t cap = 0;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f)
		return -1;              /* the caller's usage error */
	if (getline(&line, &cap, f) < 0 || strlen(line) > MERGE_LINE_MAX ||
	    sscanf(line, "{\"ext4sim_explore\": %u, \"mode\": \"%15[a-z]\", \"grammar\": %u, "
		   "\"steps\": %u, \"space\": %llu, \"shard\": %u, \"shards\": %u, \"run\": %llu, "
		   "\"pruned\": %llu, \"with_finding\": %llu", &version, mode, &grammar, &steps,
		   &space, &shard, &shards, &run, &pruned, &with) != 10 ||
	    version < 1 || version > EXPLORE_JSON_VERSION) {
		fclose(f);
		free(line);
		fprintf(stderr, "%s:1:1: not an ext4sim explore --json report\n", path);
		return 2;
	}
	if ((!first && (e->nr_g != grammar || e->op.steps != steps || e->space != space ||
			e->op.nr_shards != shards || e->op.random != (strcmp(mode, "random") == 0))) ||
	    merge_sweep(e, line, first) < 0) {
		fclose(f);
		free(line);
		fprintf(stderr, "%s:1:1: a different exploration (mode, grammar, steps, space, "
			"sweep or shard count) than the reports before it\n", path);
		return 2;
	}
	free(line);
	if (shards > MERGE_SHARDS_MAX || shard >= shards || seen[shard]++) {
		fclose(f);
		fprintf(stderr, "%s:1:1: shard %u/%u is %s\n", path, shard, shards,
			shard < shards && shards <= MERGE_SHARDS_MAX ? "given twice" : "out of range");
		return 2;
	}
	e->nr_g = grammar;
	e->op.steps = steps;
	e->space = space;
	e->op.nr_shards = shards;
	e->op.random = strcmp(mode, "random") == 0;
	e->run += run;
	e->pruned += pruned;
	e->with_finding += with;
	rc = merge_findings(e, f, path);
	fclose(f);
	return rc;
}

struct explore *explore_merge_new(void)
{
	struct explore *e = sim_zalloc(sizeof(*e));

	e->seen = sim_zalloc(MERGE_SHARDS_MAX);
	return e;
}

int explore_merge_file(struct explore *m, const char *path, bool first)
{
	return merge_file(m, path, m->seen, first);
}

int explore_merge_report(struct explore *m, bool json, char missing[32])
{
	for (unsigned s = 0; s < m->op.nr_shards; s++) {
		if (!m->seen[s]) {
			snprintf(missing, 32, "%u/%u", s, m->op.nr_shards);
			return -1;
		}
	}
	m->op.shard = 0;
	if (json)
		report_json(m);
	else
		report_text(m);
	return 0;
}
