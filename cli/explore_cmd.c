/*
 * explore_cmd.c - the command line of ext4sim explore, merge and minimize:
 * their flags into the options of the search library (explore/explore.h,
 * explore/minimize.h), the usage errors (one message, exit 2), then the
 * library's entry point, whose exit status is the command's.  The run flags
 * go through parse_run_args as for run; explore's sweeps (a flag given
 * several values: `--kernel 6.1,6.12`, `--block-size 1024 --block-size
 * 4096`, both flags of a mount pair) become the options' sweep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "explore.h"
#include "minimize.h"

/* What explore's command line builds: the options, the run flags, the grammar. */
struct explore_cmd {
	struct explore_opts op;
	struct cli c;
	struct grammar_file gf;
};

/* --- the sweeping flags (sweep.h) ------------------------------------------ */

/* The flag ids of each dimension: a value flag, or the on/off pair. */
static const enum cmd_flag_id dim_on[SD_NR] = { F_KERNEL, F_BLOCK_SIZE, F_DATA, F_DELALLOC,
						F_DIOREAD_NOLOCK, F_AUTO_DA_ALLOC };
static const enum cmd_flag_id dim_off[SD_NR] = { F_NONE, F_NONE, F_NONE, F_NODELALLOC,
						 F_DIOREAD_LOCK, F_NOAUTO_DA_ALLOC };

/* The dimension flag @id sweeps (*@off: the pair's off flag), or -1. */
static int dim_of(enum cmd_flag_id id, bool *off)
{
	for (int d = 0; d < SD_NR; d++) {
		if (id == dim_on[d] || (dim_off[d] != F_NONE && id == dim_off[d])) {
			*off = id != dim_on[d];
			return d;
		}
	}
	return -1;
}

/* Item @v of dimension @d as value number @i: 0, 2 after the message. */
static int add_value(struct explore_sweep *sw, int d, unsigned i, const char *v)
{
	if (d == SD_KERNEL) {
		if (i == SWEEP_KERNELS_MAX)
			return bad_usage("--kernel lists more than " STR(SWEEP_KERNELS_MAX)
					 " kernels%s", "");
		if (parse_kernel_name(v))
			return 2;
		snprintf(sw->kernels[i], SCN_NAME_MAX, "%s", v);
		for (unsigned k = 0; k < i; k++)
			if (strcmp(sw->kernels[k], v) == 0)
				return bad_usage("--kernel lists '%s' twice", v);
		return 0;
	}
	if (i == 3)
		return bad_usage("a sweep lists a value twice: '%s'", v);
	if (d == SD_BLOCK_SIZE && parse_block_size(v, &sw->block_sizes[i]))
		return 2;
	if (d == SD_DATA && parse_data_mode(v, &sw->data[i]))
		return 2;
	for (unsigned k = 0; k < i; k++)
		if (d == SD_BLOCK_SIZE ? sw->block_sizes[k] == sw->block_sizes[i] :
		    sw->data[k] == sw->data[i])
			return bad_usage(d == SD_BLOCK_SIZE ? "--block-size lists '%s' twice" :
					 "--data lists '%s' twice", v);
	return 0;
}

/* The comma list @v of value dimension @d, after the values it has. */
static int add_list(struct explore_sweep *sw, int d, const char *v)
{
	char buf[1024], *save = NULL;
	unsigned n = 0;
	int rc;

	if (snprintf(buf, sizeof(buf), "%s", v) >= (int)sizeof(buf) || !v[0] ||
	    v[strlen(v) - 1] == ',' || v[0] == ',' || strstr(v, ",,"))
		return bad_usage("a sweep takes values apart by single commas, not '%s'", v);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++)
		if ((rc = add_value(sw, d, sw->nr[d] + n, t)))
			return rc;
	sw->nr[d] += n;
	return 0;
}

/*
 * Take the sweeping flags out of @opts (*@argc updated); a dimension with
 * one value keeps its flag in @opts.  0, or 2 after the one message (a bad
 * value, a value listed twice, too many kernels).  Two passes: gather each
 * dimension's values, then drop the flags of those with several.
 */
static int sweep_take(struct explore_sweep *sw, int *argc, struct cmd_opt *opts)
{
	unsigned seen[SD_NR] = { 0 };   /* value dims: values; pairs: bit 1 on, bit 2 off */
	int n = 0, rc;
	bool off;

	memset(sw, 0, sizeof(*sw));
	for (int i = 0; i < *argc; i++) {
		int d = dim_of(opts[i].id, &off);

		if (d >= SD_DELALLOC)
			seen[d] |= off ? 2u : 1u;
		else if (d >= 0 && (rc = add_list(sw, d, opts[i].val)))
			return rc;
	}
	for (int d = SD_DELALLOC; d < SD_NR; d++)
		sw->nr[d] = seen[d] == 3 ? 2 : 0;
	for (int d = 0; d < SD_DELALLOC; d++)
		sw->nr[d] = sw->nr[d] > 1 ? sw->nr[d] : 0;
	for (int i = 0; i < *argc; i++) {
		int d = dim_of(opts[i].id, &off);

		if (d < 0 || sw->nr[d] < 2)
			opts[n++] = opts[i];
	}
	*argc = n;
	return 0;
}

/* --- ext4sim explore ------------------------------------------------------ */

static int parse_kinds(struct explore_opts *e, const char *v)
{
	char buf[256], *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", v) >= (int)sizeof(buf))
		return bad_usage("--kinds list too long: '%s'", v);
	e->kinds = 0;
	e->kinds_arg = v;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = grammar_kind_lookup(t);

		if (k < 0)
			return bad_usage("--kinds takes " GK_NAMES_TEXT "; not '%s'", t);
		e->kinds |= 1u << k;
	}
	return e->kinds & (1u << GK_WRITE) ? 0 :
	       bad_usage("--kinds must include write (every sequence needs data)%s", "");
}

/* --crash-at everywhere|persist|crash|none|N. */
static int parse_crash_at(struct explore_opts *e, const char *v)
{
	static const char *const names[] = { "everywhere", NULL, "persist", "crash", "none" };

	e->crash_at_arg = v;
	for (int i = 0; i <= CA_NONE; i++) {
		if (names[i] && strcmp(v, names[i]) == 0) {
			e->crash_at = (enum crash_at)i;
			return 0;
		}
	}
	if (parse_u32(v, &e->crash_every) < 0)
		return bad_usage("--crash-at takes everywhere, persist, crash, none or a step "
				 "count N, not '%s'", v);
	e->crash_at = CA_EVERY_N;
	return 0;
}

/* A decimal number of at most 10 digits up to UINT32_MAX, from @s to @end exactly. */
static int parse_dec(const char *s, const char *end, uint32_t *out)
{
	uint64_t v = 0;

	if (s == end || end - s > 10)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* --shard I/N: two decimal numbers, nothing else, 0 <= I < N. */
static int parse_shard(const char *v, uint32_t *i, uint32_t *n)
{
	const char *slash = strchr(v, '/');

	if (!slash || parse_dec(v, slash, i) < 0 || parse_dec(slash + 1, slash + strlen(slash), n) < 0)
		return -1;
	return *n > 0 && *i < *n ? 0 : -1;
}

/* --seed, --count and --run: a number each. */
static int explore_number_flag(struct explore_opts *e, enum cmd_flag_id id, const char *v)
{
	int64_t n;

	if (scn_parse_num(v, &n) < 0 || n < 0)
		return bad_usage("--seed, --count and --run take a number, not '%s'", v);
	*(id == F_SEED ? &e->seed : id == F_COUNT ? &e->count : &e->only_run) = (uint64_t)n;
	e->has_run = e->has_run || id == F_RUN;
	e->random = e->random || id != F_RUN;
	return 0;
}

/* One explore-only flag with a value: 0, 2 after a message, 1: not one of them. */
static int explore_value_flag(struct explore_opts *e, enum cmd_flag_id id, const char *v)
{
	uint32_t u;
	int64_t n;

	switch (id) {
	case F_STEPS:
		if (parse_u32(v, &u) < 0 || u > GRAMMAR_STEPS_MAX)
			return bad_usage("--steps takes 1 to 10000000 (above 8: random mode only), "
					 "not '%s'", v);
		e->steps = u;
		e->has_steps = true;
		return 0;
	case F_SEED: case F_COUNT: case F_RUN:
		return explore_number_flag(e, id, v);
	case F_SHARD:
		if (parse_shard(v, &e->shard, &e->nr_shards) < 0)
			return bad_usage("--shard takes I/N, decimal, with 0 <= I < N <= 4294967295, "
					 "not '%s'", v);
		return 0;
	case F_OUT:
		e->out_dir = v;
		return 0;
	case F_MAX_SPACE:
		if (scn_parse_num(v, &n) < 0 || n <= 0)
			return bad_usage("--max-space takes a number of sequences from 1, not '%s'", v);
		e->max_space = (uint64_t)n;
		return 0;
	case F_GRAMMAR:
		e->grammar_path = v;
		return 0;
	case F_KINDS:
		return parse_kinds(e, v);
	case F_CRASH_AT:
		return parse_crash_at(e, v);
	case F_DIFF:
		if (!(e->diff = ext4_toggle_find(v)))
			return bad_usage("unknown patch '%s' (`ext4sim patches` lists them)", v);
		return 0;
	default:
		return 1;
	}
}

/* One explore-only flag; 1: not one of them. */
static int explore_flag(struct explore_opts *e, const struct cmd_opt *o)
{
	switch (o->id) {
	case F_SHARE_STATS:
		e->share_stats = true;
		return 0;
	case F_NO_SHARE: case F_NO_SHARE_STATES:
		e->share = e->share && o->id == F_NO_SHARE_STATES;
		e->share_states = false;
		return 0;
	case F_NO_MINIMIZE:
		e->minimize = false;
		return 0;
	case F_FIXED_LENGTH:
		e->fixed_length = true;
		return 0;
	case F_DIFF_STATES:
		e->diff_states = true;
		e->share = e->share_states = false;     /* the walk keeps verdicts, not states */
		return 0;
	default:
		return explore_value_flag(e, o->id, o->val);
	}
}

/* Split explore's own flags out; the rest go to parse_run_args. */
static int take_explore_args(struct explore_opts *e, int *argc, struct cmd_opt *opts)
{
	int n = 0, rc;

	for (int i = 0; i < *argc; i++) {
		if ((rc = explore_flag(e, &opts[i])) == 1)
			opts[n++] = opts[i];
		else if (rc)
			return rc;
	}
	*argc = n;
	return 0;
}

/*
 * The grammar (built in, or --grammar FILE) and what it sets that the
 * flags did not: kinds, K, the block size (into e->ov).  A file's error is
 * FILE:LINE:COL (exit 2).
 */
static int explore_grammar(struct explore_opts *e, struct grammar_file *gf)
{
	char err[SCN_ERR_MAX];

	if (!e->grammar_path) {
		grammar_builtin(gf);
		return 0;
	}
	if (grammar_load(e->grammar_path, gf, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (!e->kinds_arg)
		e->kinds = gf->kinds;
	if (!e->has_steps && gf->has_steps)
		e->steps = gf->steps;
	if (!e->ov.has_block_size && gf->has_block_size) {
		e->ov.has_block_size = true;
		e->ov.block_size = gf->block_size;
	}
	if (e->kinds & ~gf->have)
		return bad_usage("--kinds names a kind the grammar file '%s' has no templates for",
				 e->grammar_path);
	return 0;
}

/* Combinations the flags (and grammar file) must not make. */
static int explore_check(const struct explore_cmd *x)
{
	if (x->c.nr_inputs != 1 || strcmp(x->c.inputs[0], "explore") || x->c.nr_cmds)
		return bad_usage("explore takes no scenario file or -c steps%s", "");
	if (x->op.random && !x->op.count)
		return bad_usage("--seed needs --count N%s", "");
	if (x->op.fixed_length && !x->op.random)
		return bad_usage("--fixed-length is for random mode (--seed S --count N)%s", "");
	if (x->op.has_run && (!x->op.random || x->op.only_run >= x->op.count || x->op.nr_shards != 1))
		return bad_usage("--run R needs --seed and --count N with R < N, and no --shard%s",
				 "");
	if (!x->op.random && x->op.steps > EXPLORE_STEPS_MAX && !x->op.has_steps && x->op.gf->has_steps) {
		fprintf(stderr, "%s:%u:%u: steps above %d need random mode (--seed S --count N)\n",
			x->op.grammar_path, x->op.gf->steps_line, x->op.gf->steps_col, EXPLORE_STEPS_MAX);
		return 2;
	}
	if (!x->op.random && x->op.steps > EXPLORE_STEPS_MAX)
		return bad_usage("--steps above 8 needs random mode (--seed S --count N)%s", "");
	if (x->op.diff_states && (!x->op.diff || x->op.steps > EXPLORE_STEPS_MAX))
		return bad_usage("--diff-states needs --diff PATCH, and sequences of at most 8 steps%s",
				 "");
	if (sweep_count(&x->op.sweep) > 1 && (x->op.steps > EXPLORE_STEPS_MAX || x->op.has_run))
		return bad_usage("a sweep (a flag with several values) is for sequences of at most 8 "
				 "steps, without --run%s", "");
	if (x->op.crash_at_arg && (!x->op.random || x->op.steps <= EXPLORE_STEPS_MAX))
		return bad_usage("--crash-at is for long random runs (--seed, --count and --steps "
				 "above 8), not '%s'", x->op.crash_at_arg);
	if (x->op.out_dir) {
		struct stat st;

		mkdir(x->op.out_dir, 0777);
		if (stat(x->op.out_dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(x->op.out_dir, W_OK) < 0)
			return bad_usage("cannot create or write --out directory '%s'", x->op.out_dir);
	}
	return 0;
}

/* Flags, grammar, variant, checks into @x; 0 or the exit code. */
static int explore_setup(struct explore_cmd *x, struct explore **out, int argc,
			 struct cmd_opt *opts, struct cmd_opt *args)
{
	int rc;

	if ((rc = take_explore_args(&x->op, &argc, opts)) ||
	    (rc = sweep_take(&x->op.sweep, &argc, opts)))
		return rc;
	if (sweep_count(&x->op.sweep) > SWEEP_CONFIGS_MAX)
		return bad_usage("a sweep of more than " STR(SWEEP_CONFIGS_MAX) " configurations%s",
				 "");
	memcpy(args, opts, (size_t)argc * sizeof(*args));
	/* parse_run_args wants an input: a placeholder */
	args[argc] = (struct cmd_opt){ F_NONE, NULL, "explore" };
	if ((rc = parse_run_args(&x->c, argc + 1, args)))
		return rc;
	x->op.ov = x->c.ov;
	x->op.o = x->c.o;
	x->op.gf = &x->gf;
	if ((rc = explore_grammar(&x->op, &x->gf)))
		return rc;
	*out = explore_new(&x->op);
	if ((rc = explore_resolve(*out)))
		return rc;
	return explore_check(x);
}

int cmd_explore(int argc, struct cmd_opt *opts)
{
	struct explore_cmd *x = sim_zalloc(sizeof(*x));
	struct cmd_opt *args = sim_zalloc(((size_t)argc + 2) * sizeof(*args));
	struct explore *e = NULL;
	int rc;

	explore_opts_init(&x->op);
	x->c.o = x->op.o;               /* the crash bound's default */
	if ((rc = explore_setup(x, &e, argc, opts, args)) == 0)
		rc = explore_run(e);
	explore_free(e);
	free(args);
	free(x);
	return rc;
}

/* ext4sim merge [--json] REPORT.json ...: the shards of one exploration, combined. */
int cmd_merge(int argc, struct cmd_opt *opts)
{
	struct explore *m = explore_merge_new();
	char which[32];
	bool json = false;
	int rc = 0, files = 0;

	for (int i = 0; i < argc && rc == 0; i++) {
		if (opts[i].id == F_JSON)
			json = true;
		else if (opts[i].id == F_NONE &&
			 (rc = explore_merge_file(m, opts[i].val, files++ == 0)) < 0)
			rc = bad_usage("cannot read '%s'", opts[i].val);
		else if (opts[i].id != F_NONE)
			rc = cmd_no_code("merge", &opts[i]);
	}
	if (rc == 0 && files == 0)
		rc = bad_usage("merge needs explore --json reports%s", "");
	if (rc == 0 && explore_merge_report(m, json, which) < 0)
		rc = bad_usage("merge: shard %s is missing", which);
	explore_free(m);
	return rc;
}

/* --- ext4sim minimize ------------------------------------------------------- */

/* Split "--invariant NAME" and "-o PATH" out of the arguments. */
static int take_min_args(int *argc, struct cmd_opt *opts, const char **inv, const char **out)
{
	int n = 0;

	*inv = *out = NULL;
	for (int i = 0; i < *argc; i++) {
		if (opts[i].id != F_INVARIANT && opts[i].id != F_O) {
			opts[n++] = opts[i];
			continue;
		}
		*(opts[i].id == F_INVARIANT ? inv : out) = opts[i].val;
	}
	*argc = n;
	if (*inv && !chk_is_invariant_name(*inv))
		return bad_usage("unknown invariant '%s'", *inv);
	return 0;
}

/* FILE.yaml -> FILE.min.yaml */
static void default_out(const char *in, char *out, size_t cap)
{
	size_t n = strlen(in);

	if (n > 5 && strcmp(in + n - 5, ".yaml") == 0)
		snprintf(out, cap, "%.*s.min.yaml", (int)(n - 5), in);
	else
		snprintf(out, cap, "%s.min.yaml", in);
}

/* minimize's flags and its one input, loaded into @ld; 0, or 2 after the message. */
static int minimize_setup(struct cli *c, struct loaded *ld, int argc, struct cmd_opt *opts,
			  const char **inv, char *out, size_t cap)
{
	const char *outp;
	int rc;

	c->o.crash_bound = CS_BOUND_DEFAULT;
	if ((rc = take_min_args(&argc, opts, inv, &outp)) || (rc = parse_run_args(c, argc, opts)))
		return rc;
	if (c->nr_inputs != 1 || c->nr_cmds)
		return bad_usage("minimize takes one scenario file%s", "");
	if (outp)
		snprintf(out, cap, "%s", outp);
	else
		default_out(c->inputs[0], out, cap);
	if (strcmp(out, c->inputs[0]) == 0)
		return bad_usage("minimize never overwrites its input: give -o another path%s", "");
	return load_one(c, c->inputs[0], ld);
}

int cmd_minimize(int argc, struct cmd_opt *opts)
{
	struct cli *c = sim_zalloc(sizeof(*c));
	struct loaded *ld = sim_zalloc(sizeof(*ld));
	char out[4096];
	const char *inv = NULL;
	int rc;

	if ((rc = minimize_setup(c, ld, argc, opts, &inv, out, sizeof(out))) == 0) {
		struct min_request rq = { .s = &ld->s, .cfg = ld->cfg, .nr_cfg = ld->nr_cfg,
					  .o = c->o, .invariant = inv, .in_path = c->inputs[0],
					  .out = out };

		rc = min_run(&rq);
	}
	scn_free(&ld->s);
	free(ld);
	free(c);
	return rc;
}
