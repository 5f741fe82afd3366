/*
 * quiz.c - ext4sim quiz: a generated crash problem, in the manner of the
 * seeded homework simulators of OSTEP (docs/tutorial/README.md).
 *
 *   ext4sim quiz --seed S [--answers | --yaml] [--block-size N] [--data M]
 *                [--delalloc | --nodelalloc] [--kernel K]
 *
 * Seed S gives a configuration and 3 to 5 steps (writes of one byte value
 * each, 0x11, 0x22, ..., truncates, fsync, fdatasync, sync_range -w,
 * writeback, commit) ending in a crash, and asks which contents the file can
 * have after recovery.  The options are the model's own answer, every
 * distinct state of `ext4sim crashstates` at that crash, mixed with
 * distractors drawn from a naive reading of the steps (everything written,
 * the file at the last fsync, a prefix of the writes since, the new size
 * with zeros or with the blocks' old bytes), sorted by size and content.
 * Each true option's bytes are read back by replaying the steps with the
 * state's `crash --keep` in place of the crash, and its SHA-256 must equal
 * the one the enumeration computed (an assertion).  --answers adds the key:
 * possible or not, with a one-line reason (a possible option: how many raw
 * states lead there, the step that replays one, the writes it keeps and
 * loses, the transactions recovery replays, the violations; an impossible
 * one: the sizes recovery gives, or the first byte range no state of its
 * size holds, or the nearest possible option it departs from), and each
 * option's SHA-256, so a test can compare the key with crashstates.  --yaml prints the problem as a scenario instead.
 * Among up to 64 draws of the seed the first with two to four distinct
 * states is kept (else the first with one).  Everything depends on the seed and the flags alone.
 */
#include "quiz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "pending.h"
#include "prng.h"
#include "sha256.h"

#define QUIZ_STEPS_MAX 8
#define QUIZ_TRIES 64
#define QUIZ_STATES_MAX 4       /* distinct crash states a problem may have */
#define QUIZ_OPTIONS_MAX 16
#define QUIZ_FILE_MAX 65536     /* bytes: the steps stay well below it */
#define STALE 0xee              /* the device's bytes before mkfs (no_stale_data) */

#define PICK(r, arr) ((arr)[prng_below((r), sizeof(arr) / sizeof((arr)[0]))])

struct quiz_args {
	uint64_t seed;
	bool answers, yaml;
	bool has_bs, has_data, has_delalloc;
	uint32_t bs;
	enum scn_data_mode data;
	bool delalloc;
	struct sim_overrides mount;     /* --dioread-nolock and the other mount flags */
	char kernel[SCN_NAME_MAX];
};

/* A file as a reader sees it. */
struct content {
	int64_t size;
	uint8_t bytes[QUIZ_FILE_MAX];
};

struct option {
	struct content c;
	bool possible;
	const struct cs_state *st;      /* the model's state, when possible */
	char sha256[65];
};

struct problem {
	struct scenario s;
	struct scn_step steps[QUIZ_STEPS_MAX];
	struct orc_config oc;
	struct sim_variant_cfg cfg;
	struct sim_variant_result r;    /* the run: its one crash point */
	bool has_r;
	struct option opt[QUIZ_OPTIONS_MAX];
	unsigned nr_opt;
};

/* --- the problem --- */

static void draw_config(struct prng *r, const struct quiz_args *a, struct problem *p)
{
	static const enum scn_data_mode modes[] = { SCN_DATA_ORDERED, SCN_DATA_ORDERED,
						    SCN_DATA_ORDERED, SCN_DATA_WRITEBACK,
						    SCN_DATA_JOURNAL };
	static const uint32_t sizes[] = { 4096, 4096, 1024 };
	struct sim_overrides ov;
	char err[SCN_ERR_MAX];
	unsigned nc;

	memset(&p->oc, 0, sizeof(p->oc));
	p->oc.block_size = a->has_bs ? a->bs : PICK(r, sizes);
	p->oc.data = a->has_data ? a->data : PICK(r, modes);
	p->oc.delalloc = a->has_delalloc ? a->delalloc : prng_below(r, 3) != 0;
	if (p->oc.data == SCN_DATA_JOURNAL)
		p->oc.delalloc = false;
	p->oc.dioread_nolock = !a->mount.has_dioread_nolock || a->mount.dioread_nolock;
	p->oc.noauto_da_alloc = a->mount.has_auto_da_alloc && !a->mount.auto_da_alloc;
	snprintf(p->oc.kernel, sizeof(p->oc.kernel), "%s", a->kernel);
	scn_config_defaults(&p->s.config);
	p->s.config.c_dioread_nolock = p->oc.dioread_nolock;
	p->s.config.c_auto_da_alloc = !p->oc.noauto_da_alloc;
	p->s.config.c_block_size = p->oc.block_size;
	p->s.config.c_data = p->oc.data;
	p->s.config.c_delalloc = p->oc.delalloc;
	if (a->kernel[0])
		snprintf(p->s.config.c_kernel, sizeof(p->s.config.c_kernel), "%s", a->kernel);
	snprintf(p->s.path, sizeof(p->s.path), "quiz");
	snprintf(p->s.name, sizeof(p->s.name), "quiz-%llu", (unsigned long long)a->seed);
	memset(&ov, 0, sizeof(ov));
	SIM_ASSERT(sim_resolve_variants(&p->s, &ov, &p->cfg, &nc, err, sizeof(err)) == 0 &&
		   nc == 1);
}

/* One step after the first write; @writes counts the writes so far. */
static void draw_step(struct prng *r, struct scn_step *st, unsigned *writes)
{
	static const int64_t offs[] = { 0, 1024, 2048, 4096, 6144, 8192 };
	static const int64_t lens[] = { 1024, 2048, 3000, 4096, 8192 };
	static const int64_t sizes[] = { 0, 1000, 2048, 4096, 6000 };
	unsigned k = (unsigned)prng_below(r, 100);

	if (k < 35 || *writes == 0) {
		++*writes;
		orc_make_step(st, "pwrite -S 0x%02x %lld %lld", 0x11 * *writes,
			      (long long)PICK(r, offs), (long long)PICK(r, lens));
	} else if (k < 47) {
		orc_make_step(st, "fsync");
	} else if (k < 52) {
		orc_make_step(st, "fdatasync");
	} else if (k < 62) {
		orc_make_step(st, "sync_range -w 0 0");
	} else if (k < 75) {
		orc_make_step(st, "writeback");
	} else if (k < 88) {
		orc_make_step(st, "commit");
	} else {
		orc_make_step(st, "truncate %lld", (long long)PICK(r, sizes));
	}
}

static void draw_steps(struct prng *r, struct problem *p)
{
	static const char *const unsettled[] = { "writeback", "sync_range -w 0 0", "commit" };
	unsigned n = 3 + (unsigned)prng_below(r, 3), writes = 0, i = 0;

	draw_step(r, &p->steps[i++], &writes);
	if (prng_below(r, 5) < 3)       /* mostly from a durable first write */
		orc_make_step(&p->steps[i++], "fsync");
	while (i + 1 < n)
		draw_step(r, &p->steps[i++], &writes);
	if (prng_below(r, 4) < 3)       /* mostly writes still in flight at the crash */
		orc_make_step(&p->steps[i++], "%s", PICK(r, unsettled));
	else
		draw_step(r, &p->steps[i++], &writes);
	orc_make_step(&p->steps[n], "crash");
	p->s.steps = p->steps;
	p->s.nr_steps = n + 1;
}

/* Run the problem and keep its crash point's distinct states. */
static void run_problem(struct problem *p)
{
	struct sim_options o = { .crash_bound = CS_BOUND_DEFAULT, .crash_digest = true,
				 .name_writes = true, .quiet = true };
	char err[SCN_ERR_MAX];

	SIM_ASSERT(sim_run_variant(&p->s, &p->cfg, &o, NULL, NULL, &p->r, err,
				   sizeof(err)) == 0);
	SIM_ASSERT(p->r.nr_points == 1);
	p->has_r = true;
}

/* Draw @t of the seed and run it; returns its number of distinct crash states. */
static uint32_t draw(const struct quiz_args *a, struct problem *p, unsigned t)
{
	struct prng r;

	if (p->has_r)
		sim_variant_result_free(&p->r, p->s.nr_steps);
	prng_seed(&r, prng_mix64(a->seed) + t);
	draw_config(&r, a, p);
	draw_steps(&r, p);
	run_problem(p);
	return p->r.points[0].nr_states;
}

/* The first draw with 2 to QUIZ_STATES_MAX distinct states, else the first with fewer. */
static void make_problem(const struct quiz_args *a, struct problem *p)
{
	unsigned fallback = QUIZ_TRIES;

	for (unsigned t = 0; t < QUIZ_TRIES; t++) {
		uint32_t n = draw(a, p, t);

		if (n >= 2 && n <= QUIZ_STATES_MAX)
			return;
		if (n < 2 && fallback == QUIZ_TRIES)
			fallback = t;
	}
	SIM_ASSERT(fallback < QUIZ_TRIES);
	draw(a, p, fallback);
}

/* --- the options --- */

static void content_sha256(const struct content *c, char out[65])
{
	struct sha256 h;
	uint8_t d[32];

	sha256_init(&h);
	sha256_update(&h, c->bytes, (size_t)c->size);
	sha256_final(&h, d);
	sha256_hex(d, out);
}

/* Add @c as an option unless an equal one is there; returns it. */
static struct option *add_option(struct problem *p, const struct content *c)
{
	struct option *o;

	for (unsigned i = 0; i < p->nr_opt; i++)
		if (p->opt[i].c.size == c->size &&
		    memcmp(p->opt[i].c.bytes, c->bytes, (size_t)c->size) == 0)
			return &p->opt[i];
	if (p->nr_opt == QUIZ_OPTIONS_MAX)
		return NULL;
	o = &p->opt[p->nr_opt++];
	memset(o, 0, sizeof(*o));
	o->c = *c;
	content_sha256(c, o->sha256);
	return o;
}

/* The file of crash state @st: the steps replayed with its crash --keep. */
static void state_content(const struct problem *p, const struct cs_state *st,
			  struct content *c)
{
	struct sim_options o = { .crash_bound = 0 };
	struct sim_stream *ss = sim_stream_open(&p->cfg, &o);
	struct sim_stream_result res;
	struct scn_step keep;
	char err[SCN_ERR_MAX];
	unsigned col;

	SIM_ASSERT(scn_parse_step(st->example, &keep, err, sizeof(err), &col) == 0);
	for (unsigned i = 0; i + 1 < p->s.nr_steps; i++)
		sim_stream_step(ss, &p->steps[i], false);
	sim_stream_step(ss, &keep, false);
	c->size = sim_stream_fs(ss)->inode->i_size;
	SIM_ASSERT(c->size >= 0 && c->size <= QUIZ_FILE_MAX);
	ext4_peek(sim_stream_fs(ss), 0, c->size, c->bytes);
	sim_stream_close(ss, &res);
}

static void true_options(struct problem *p, struct content *scratch)
{
	const struct cs_point *pt = &p->r.points[0];

	for (uint32_t k = 0; k < pt->nr_states; k++) {
		struct option *o;

		state_content(p, &pt->states[k], scratch);
		o = add_option(p, scratch);
		SIM_ASSERT(o != NULL && strcmp(o->sha256, pt->states[k].sha256) == 0);
		if (o->possible)
			continue;       /* the same bytes, other violations */
		o->possible = true;
		o->st = &pt->states[k];
	}
}

/* A naive reading of the steps: what write and truncate do to the bytes. */
static void naive_apply(struct content *c, const struct scn_step *st)
{
	if (st->s_op == SCN_PWRITE) {
		SIM_ASSERT(st->s_off + st->s_len <= QUIZ_FILE_MAX);
		memset(c->bytes + st->s_off, st->s_fill, (size_t)st->s_len);
		c->size = SIM_MAX(c->size, st->s_off + st->s_len);
	} else if (st->s_op == SCN_TRUNCATE) {
		if (st->s_len < c->size)
			memset(c->bytes + st->s_len, 0, (size_t)(c->size - st->s_len));
		c->size = st->s_len;
	}
}

/* The distractor candidates, in a seeded order; returns how many. */
static unsigned candidates(const struct problem *p, uint64_t seed, struct content *cand)
{
	struct content *mem = &cand[0], *dur = &cand[1];
	unsigned n = 2;
	struct prng r;

	memset(mem, 0, sizeof(*mem));
	memset(dur, 0, sizeof(*dur));
	for (unsigned i = 0; i + 1 < p->s.nr_steps; i++) {
		const struct scn_step *st = &p->steps[i];

		naive_apply(mem, st);
		if (st->s_op == SCN_FSYNC || st->s_op == SCN_FDATASYNC)
			*dur = *mem;
		else if (st->s_op == SCN_PWRITE || st->s_op == SCN_TRUNCATE)
			cand[n++] = *mem;       /* the file after this step */
	}
	cand[n] = *dur;                 /* the new size, none of the new data */
	cand[n].size = mem->size;
	cand[n + 1] = cand[n];          /* the new size, the blocks' old bytes */
	for (int64_t b = dur->size; b < mem->size; b++)
		cand[n + 1].bytes[b] = STALE;
	memset(&cand[n + 2], 0, sizeof(cand[n + 2]));  /* nothing survived */
	n += 3;
	prng_seed(&r, prng_mix64(seed ^ UINT64_C(0x51)));
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = (unsigned)prng_below(&r, i + 1);
		struct content t = cand[i];

		cand[i] = cand[j];
		cand[j] = t;
	}
	return n;
}

static int cmp_option(const void *a, const void *b)
{
	const struct option *x = a, *y = b;

	if (x->c.size != y->c.size)
		return x->c.size < y->c.size ? -1 : 1;
	return memcmp(x->c.bytes, y->c.bytes, (size_t)x->c.size);
}

static void make_options(struct problem *p, uint64_t seed)
{
	struct content *cand = sim_zalloc((QUIZ_STEPS_MAX + 4) * sizeof(*cand));
	unsigned nr_true, want, n;

	true_options(p, &cand[0]);
	nr_true = p->nr_opt;
	want = SIM_MIN(QUIZ_OPTIONS_MAX, nr_true + (nr_true < 3 ? 3 : 2));
	n = candidates(p, seed, cand);
	for (unsigned i = 0; i < n && p->nr_opt < want; i++)
		add_option(p, &cand[i]);
	qsort(p->opt, p->nr_opt, sizeof(p->opt[0]), cmp_option);
	free(cand);
}

/* --- printing --- */

/* "N bytes: [0, 4096) 11, [4096, 6000) 00" */
static void print_content(const struct content *c)
{
	printf("%lld byte(s)", (long long)c->size);
	for (int64_t i = 0, j; i < c->size; i = j) {
		for (j = i + 1; j < c->size && c->bytes[j] == c->bytes[i]; j++)
			;
		printf("%s[%lld, %lld) %02x", i ? ", " : ": ", (long long)i, (long long)j,
		       c->bytes[i]);
	}
	putchar('\n');
}

static void print_config(const struct problem *p)
{
	const struct ext4_mount_opts *o = &p->cfg.opts;

	printf("block size %u, data=%s, %s%s%s, kernel %s\n", o->block_size,
	       orc_data_name(p->oc.data), o->delalloc ? "delalloc" : "nodelalloc",
	       o->delalloc && !o->dioread_nolock ? ", dioread_lock" : "",
	       o->auto_da_alloc ? "" : ", noauto_da_alloc", p->cfg.profile->name);
}

static void print_question(const struct problem *p, uint64_t seed)
{
	printf("quiz %llu: ", (unsigned long long)seed);
	print_config(p);
	printf("The file f exists, empty and durable.  These steps run, then the power fails:\n");
	for (unsigned i = 0; i < p->s.nr_steps; i++)
		printf("  %u. %s\n", i + 1, p->steps[i].s_text);
	printf("The next mount replays the journal.  Which of these can f then hold?  Each\n"
	       "may be possible or not; more than one may be.  Bytes are in hex, [start, end)\n"
	       "value; ee is what the disk held before the file got the block.\n");
	for (unsigned i = 0; i < p->nr_opt; i++) {
		printf("  %c. ", 'A' + i);
		print_content(&p->opt[i].c);
	}
}

/* --- the reasons --- */

/*
 * Why a possible option is: the raw states that lead there, the writes one
 * of them keeps and loses, what recovery replays, and any violation.
 */
static void why_possible(const struct problem *p, const struct option *o)
{
	const struct cs_point *pt = &p->r.points[0];
	const struct cs_state *st = o->st;
	char writes[1024];

	cs_describe_writes(&p->r.lay, pt, st, writes, sizeof(writes));
	printf(": %llu of the %.0f raw state(s), e.g. %s", (unsigned long long)st->raw_states,
	       pt->raw_states, st->example);
	if (writes[0])
		printf(" (%s)", writes);
	if (st->replay_end == st->replay_first)
		printf("; recovery replays no transaction");
	else if (st->replay_end == st->replay_first + 1)
		printf("; recovery replays tid %u", st->replay_first);
	else
		printf("; recovery replays tids %u-%u", st->replay_first, st->replay_end - 1);
	printf(", the file is %lld byte(s)", (long long)o->c.size);
	for (int inv = 0; inv < INV_COUNT; inv++)
		if (st->violated[inv])
			printf("; %s %s", chk_inv_info(inv)->informational ?
			       "shows (informational)" : "violates", chk_inv_info(inv)->name);
}

/* No possible option has @o's size: say the sizes recovery gives. */
static bool why_not_size(const struct problem *p, const struct option *o)
{
	bool any = false;

	for (unsigned i = 0; i < p->nr_opt; i++)
		if (p->opt[i].possible && p->opt[i].c.size == o->c.size)
			return false;
	printf(": after recovery f has ");
	for (unsigned i = 0, n = 0; i < p->nr_opt; i++) {
		bool seen = false;

		if (!p->opt[i].possible)
			continue;
		for (unsigned k = 0; k < i; k++)
			seen |= p->opt[k].possible && p->opt[k].c.size == p->opt[i].c.size;
		if (!seen)
			printf("%s%lld", n++ ? " or " : "", (long long)p->opt[i].c.size);
		any = true;
	}
	SIM_ASSERT(any);
	printf(" byte(s) in every crash state (the size in the recovered inode), not %lld",
	       (long long)o->c.size);
	return true;
}

/* Does a possible option of @o's size hold byte @v at @off? */
static bool byte_possible(const struct problem *p, const struct option *o, int64_t off)
{
	for (unsigned i = 0; i < p->nr_opt; i++)
		if (p->opt[i].possible && p->opt[i].c.size == o->c.size &&
		    p->opt[i].c.bytes[off] == o->c.bytes[off])
			return true;
	return false;
}

/* A range of @o whose byte no crash state of its size has there: name it. */
static bool why_not_bytes(const struct problem *p, const struct option *o)
{
	const struct content *c = &o->c;
	int64_t i = 0, j;

	while (i < c->size && byte_possible(p, o, i))
		i++;
	if (i == c->size)
		return false;
	for (j = i + 1; j < c->size && c->bytes[j] == c->bytes[i] && !byte_possible(p, o, j); j++)
		;
	printf(": [%lld, %lld) holds %02x%s, which no crash state of %lld byte(s) has there (",
	       (long long)i, (long long)j, c->bytes[i], c->bytes[i] == STALE ?
	       " (the disk's old bytes)" : "", (long long)c->size);
	for (unsigned k = 0, n = 0; k < p->nr_opt; k++)
		if (p->opt[k].possible && p->opt[k].c.size == c->size)
			printf("%s%c: %02x", n++ ? ", " : "", 'A' + k, p->opt[k].c.bytes[i]);
	putchar(')');
	return true;
}

/* Every byte occurs in some state of that size, not all in one: the nearest one. */
static void why_not_mixed(const struct problem *p, const struct option *o)
{
	unsigned best = p->nr_opt;
	int64_t best_len = -1, diff;

	for (unsigned k = 0; k < p->nr_opt; k++) {
		int64_t n = 0;

		if (!p->opt[k].possible || p->opt[k].c.size != o->c.size)
			continue;
		while (n < o->c.size && p->opt[k].c.bytes[n] == o->c.bytes[n])
			n++;
		if (n > best_len) {
			best_len = n;
			best = k;
		}
	}
	SIM_ASSERT(best < p->nr_opt && best_len < o->c.size);
	diff = best_len;
	printf(": its bytes come from different crash states, no one state has them all; the "
	       "nearest, %c, has the same [0, %lld) but %02x at %lld where this has %02x",
	       'A' + best, (long long)diff, p->opt[best].c.bytes[diff], (long long)diff,
	       o->c.bytes[diff]);
}

static void print_reason(const struct problem *p, const struct option *o)
{
	if (o->possible)
		why_possible(p, o);
	else if (!why_not_size(p, o) && !why_not_bytes(p, o))
		why_not_mixed(p, o);
}

static void print_answers(const struct problem *p, uint64_t seed)
{
	const struct cs_point *pt = &p->r.points[0];

	printf("\nanswers (the model's crash states: %.0f raw from %u unflushed write(s), %u "
	       "distinct):\n", pt->raw_states, pt->nr_pending, pt->nr_states);
	for (unsigned i = 0; i < p->nr_opt; i++) {
		const struct option *o = &p->opt[i];

		printf("  %c. %s", 'A' + i, o->possible ? "possible" : "not possible");
		print_reason(p, o);
		printf("\n     sha256 %s\n", o->sha256);
	}
	printf("see them: ext4sim quiz --seed %llu --yaml > q.yaml; ext4sim crashstates "
	       "q.yaml\n", (unsigned long long)seed);
}

static void print_yaml(const struct problem *p, uint64_t seed)
{
	char name[SCN_NAME_MAX], desc[256], src[128];

	snprintf(name, sizeof(name), "quiz-%llu", (unsigned long long)seed);
	snprintf(desc, sizeof(desc), "After these steps and a crash, which contents can the "
		 "file have?  (ext4sim quiz --seed %llu --answers)", (unsigned long long)seed);
	snprintf(src, sizeof(src), "ext4sim quiz --seed %llu", (unsigned long long)seed);
	orc_write_yaml(stdout, &(struct orc_yaml){ .name = name, .description = desc,
						    .source = src, .config = &p->oc,
						    .steps = p->steps, .nr_steps = p->s.nr_steps });
}

/* --- the command --- */

static int quiz_value(struct quiz_args *a, const struct cmd_opt *o)
{
	const char *v = o->val;
	char *end;

	if (o->id == F_SEED) {
		errno = 0;
		a->seed = strtoull(v, &end, 10);
		if (errno || *end || !(v[0] >= '0' && v[0] <= '9'))
			return bad_usage("--seed takes a decimal number, not '%s'", v);
	} else if (o->id == F_BLOCK_SIZE) {
		if (parse_block_size(v, &a->bs))
			return 2;
		a->has_bs = true;
	} else if (o->id == F_DATA) {
		a->has_data = true;
		if (parse_data_mode(v, &a->data))
			return 2;
	} else if (o->id == F_KERNEL) {
		if (parse_kernel_name(v))
			return 2;
		snprintf(a->kernel, sizeof(a->kernel), "%s", v);
	} else {
		return cmd_no_code("quiz", o);
	}
	return 0;
}

static int quiz_args(struct quiz_args *a, int argc, const struct cmd_opt *opts)
{
	bool has_seed = false;
	int rc;

	for (int i = 0; i < argc; i++) {
		const struct cmd_opt *o = &opts[i];

		if (o->id == F_ANSWERS || o->id == F_YAML) {
			*(o->id == F_ANSWERS ? &a->answers : &a->yaml) = true;
			continue;
		}
		if (o->id == F_DELALLOC || o->id == F_NODELALLOC) {
			a->has_delalloc = true;
			a->delalloc = o->id == F_DELALLOC;
			continue;
		}
		if (o->id == F_NONE)
			return bad_usage("quiz takes no file: '%s'", o->val);
		if (mount_flag(&a->mount, o) == 0)
			continue;
		if ((rc = quiz_value(a, o)))
			return rc;
		has_seed |= o->id == F_SEED;
	}
	if (!has_seed)
		return bad_usage("quiz needs --seed S%s", "");
	if (a->answers && a->yaml)
		return bad_usage("--answers and --yaml: one or the other%s", "");
	return 0;
}

int cmd_quiz(int argc, struct cmd_opt *opts)
{
	struct quiz_args a;
	struct problem *p;
	int rc;

	memset(&a, 0, sizeof(a));
	if ((rc = quiz_args(&a, argc, opts)))
		return rc;
	p = sim_zalloc(sizeof(*p));
	make_problem(&a, p);
	if (a.yaml) {
		print_yaml(p, a.seed);
	} else {
		make_options(p, a.seed);
		print_question(p, a.seed);
		if (a.answers)
			print_answers(p, a.seed);
	}
	sim_variant_result_free(&p->r, p->s.nr_steps);
	free(p);
	return 0;
}
