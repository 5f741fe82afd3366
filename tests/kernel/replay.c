/*
 * replay.c - the recorded real-kernel corpora replayed against the model in one
 * process (tests/kernel/cases*.txt and ground-truth-*.txt; docs/kernel-comparison.md).
 *
 *   replay compare [-v] [-x SIM] CASES TRUTH
 *       every record "CASE BS MODE POINT size=N runs=BYTE*COUNT,...": the case's
 *       steps up to POINT (preN: just before its N-th crash, postN: just after it)
 *       run as `ext4sim run --quiet --block-size BS MODE-FLAGS --dump-file F -c ...`
 *       runs them, and the file's size and run-length-encoded bytes must be the
 *       kernel's.  Ends with "kernel comparison: N passed, N failed".
 *   replay membership [-v] [-x SIM] CASES TRUTH
 *       every postN record: the kernel's size and SHA-256 must be one of the
 *       distinct states `ext4sim crashstates --json` lists at the case's N-th
 *       crash; one run per (case, block size, mode), up to its last recorded
 *       crash.  Ends with "crash membership: N passed, N failed".
 *
 * Each run of steps between crashes ends with `close`, as the xfs_io process that
 * ran them exited there; so does the run before a chattr or an evict, which the
 * recording ran outside xfs_io.  The model runs through the command line's own
 * entry points (cli.h: parse_run_argv, inline_scenario, load_one; run.h:
 * sim_run_variant), with the options `run` and `crashstates` set.  A mismatch
 * prints a FAIL line and the command that reproduces it (SIM: the ext4sim path
 * to print there).  Exit 0 when every record passes, 1 on a mismatch, 2 on bad
 * input (a truth record of an unknown case or mode, runs that do not add up).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "crashstates.h"
#include "run.h"
#include "sha256.h"

#define MAX_STEPS 1024                  /* steps of one case, closes and crashes included */

struct text_list {                      /* strings owned by the list */
	char **v;
	unsigned nr, cap;
};

struct kcase {
	char *name;
	struct text_list steps;         /* as recorded, trimmed */
};

struct record {
	char *name, *bs, *mode, *point;
	char *expect;                   /* "size=N runs=..." as recorded */
	char kind;                      /* 'e': preN, 'o': postN, 'f': anything else */
	unsigned n;
	unsigned line;                  /* in the truth file */
	long long ksize;                /* membership: the kernel's size and SHA-256 */
	char ksha[65];
};

struct corpus {
	struct kcase *cases;
	unsigned nr_cases, cap_cases;
	struct record *recs;
	unsigned nr_recs, cap_recs;
};

static const char *sim_path = "ext4sim";
static const char *truth_path;
static bool verbose;
static char aborting_at[512];           /* the record being run, for an assertion */

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("replay: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xrealloc(NULL, strlen(s) + 1), s);
}

static void list_add(struct text_list *l, const char *s)
{
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->nr++] = xstrdup(s);
}

static void list_free(struct text_list *l)
{
	for (unsigned i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void die_input(const char *file, unsigned line, const char *what)
{
	fprintf(stderr, "replay: %s:%u: %s\n", file, line, what);
	exit(2);
}

/* @s without its leading and trailing spaces (in place). */
static char *trim_spaces(char *s)
{
	size_t n;

	while (*s == ' ')
		s++;
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

/* "step; step; ..." into trimmed steps; a trailing empty field is dropped. */
static void split_steps(char *text, struct text_list *out)
{
	char *p = text;

	while (*p) {
		char *semi = strchr(p, ';');

		if (semi)
			*semi = '\0';
		list_add(out, trim_spaces(p));
		if (!semi)
			break;
		p = semi + 1;
	}
}

/* One "NAME: step; step" line of a cases file (newline already removed). */
static void add_case(struct corpus *c, char *line)
{
	char *colon = strchr(line, ':'), *steps = strstr(line, ": ");
	struct kcase *k;

	if (c->nr_cases == c->cap_cases) {
		c->cap_cases = c->cap_cases ? 2 * c->cap_cases : 64;
		c->cases = xrealloc(c->cases, c->cap_cases * sizeof(*c->cases));
	}
	k = &c->cases[c->nr_cases++];
	memset(k, 0, sizeof(*k));
	split_steps(steps ? steps + 2 : line, &k->steps);
	if (colon)
		*colon = '\0';
	k->name = xstrdup(line);
}

static FILE *open_or_die(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		exit(2);
	}
	return f;
}

static void read_cases(struct corpus *c, const char *path)
{
	FILE *f = open_or_die(path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		add_case(c, line);
	}
	free(line);
	fclose(f);
}

/* The next blank-separated field of *@p (NULL at the end of the line). */
static char *next_field(char **p)
{
	char *s = *p + strspn(*p, " \t"), *e;

	if (!*s)
		return NULL;
	e = s + strcspn(s, " \t");
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

/* The point's kind and crash number: preN, postN, or 'f' for anything else. */
static void parse_point(struct record *r)
{
	const char *digits = r->point;

	r->kind = 'f';
	if (strncmp(r->point, "pre", 3) == 0) {
		r->kind = 'e';
		digits += 3;
	} else if (strncmp(r->point, "post", 4) == 0) {
		r->kind = 'o';
		digits += 4;
	}
	if (r->kind != 'f' && (!*digits || strspn(digits, "0123456789") != strlen(digits)))
		r->kind = 'f';
	r->n = r->kind == 'f' ? 0 : (unsigned)strtoul(digits, NULL, 10);
}

/* One "CASE BS MODE POINT size=N runs=..." record: the expectation is the rest. */
static void add_record(struct corpus *c, char *line, unsigned lineno)
{
	char *p = line, *rest;
	struct record r = { .line = lineno };
	size_t n;

	r.name = xstrdup(next_field(&p));
	r.bs = xstrdup((rest = next_field(&p)) ? rest : "");
	r.mode = xstrdup((rest = next_field(&p)) ? rest : "");
	r.point = xstrdup((rest = next_field(&p)) ? rest : "");
	rest = p + strspn(p, " \t");
	n = strlen(rest);
	while (n && (rest[n - 1] == ' ' || rest[n - 1] == '\t'))
		rest[--n] = '\0';
	r.expect = xstrdup(rest);
	parse_point(&r);
	if (c->nr_recs == c->cap_recs) {
		c->cap_recs = c->cap_recs ? 2 * c->cap_recs : 1024;
		c->recs = xrealloc(c->recs, c->cap_recs * sizeof(*c->recs));
	}
	c->recs[c->nr_recs++] = r;
}

static void read_truth(struct corpus *c, const char *path)
{
	FILE *f = open_or_die(path);
	char *line = NULL, *p;
	size_t cap = 0;
	unsigned lineno = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		p = line + strspn(line, " \t");
		if (*p == '\0' || *p == '#')
			continue;
		add_record(c, p, lineno);
	}
	free(line);
	fclose(f);
}

/* The last definition of a case wins, as in the scripts this replaces. */
static const struct kcase *find_case(const struct corpus *c, const char *name)
{
	for (unsigned i = c->nr_cases; i-- > 0;)
		if (strcmp(c->cases[i].name, name) == 0)
			return &c->cases[i];
	return NULL;
}

static const char *const mode_names[] = { "ordered", "ordered-nodelalloc", "writeback",
					  "journal" };
static const char *const mode_flags[][4] = {
	{ "--data", "ordered", "--delalloc", NULL },
	{ "--data", "ordered", "--nodelalloc", NULL },
	{ "--data", "writeback", "--delalloc", NULL },
	{ "--data", "journal", NULL, NULL },
};

static int mode_index(const char *mode)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(mode, mode_names[i]) == 0)
			return i;
	return -1;
}

/* Every record names a known case and mode. */
static void check_records(const struct corpus *c)
{
	for (unsigned i = 0; i < c->nr_recs; i++) {
		char msg[256];

		if (!find_case(c, c->recs[i].name)) {
			snprintf(msg, sizeof(msg), "case %s is not in the cases file", c->recs[i].name);
			die_input(truth_path, c->recs[i].line, msg);
		}
		if (mode_index(c->recs[i].mode) < 0) {
			snprintf(msg, sizeof(msg), "unknown mode %s", c->recs[i].mode);
			die_input(truth_path, c->recs[i].line, msg);
		}
	}
}

/*
 * The steps of @k up to the point: kind 'e' stops before the @want-th crash,
 * 'o' just after it; otherwise every step, then a close.
 */
static void build_steps(const struct kcase *k, char kind, unsigned want, struct text_list *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < k->steps.nr; i++) {
		const char *s = k->steps.v[i];

		if (strcmp(s, "crash") == 0) {
			n++;
			list_add(out, "close");
			if (kind == 'e' && n == want)
				return;
			list_add(out, "crash");
			if (kind == 'o' && n == want)
				return;
			continue;
		}
		if (!strcmp(s, "chattr +S") || !strcmp(s, "chattr -S") || !strcmp(s, "evict"))
			list_add(out, "close");
		list_add(out, s);
	}
	list_add(out, "close");
}

/* @s quoted for a shell when it needs it. */
static void print_quoted(FILE *out, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			   "_./=+-:,@%") == strlen(s)) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (; *s; s++)
		fputs(*s == '\'' ? "'\\''" : (char[]){ *s, 0 }, out);
	fputc('\'', out);
}

static void on_abort(int sig)
{
	static const char head[] = "replay: the model stopped while running ";

	(void)sig;
	if (write(2, head, sizeof(head) - 1) < 0 ||
	    write(2, aborting_at, strlen(aborting_at)) < 0 || write(2, "\n", 1) < 0)
		_exit(3);
	signal(SIGABRT, SIG_DFL);
}

/*
 * Run @steps under block size @bs and mode @mode as `ext4sim run` (dump to
 * @dump) or, with @dump NULL, as `ext4sim crashstates --json` does; 0, or 2 on
 * bad input (the message is on stderr).
 */
static int run_model(const char *bs, int mode, const struct text_list *steps, const char *dump,
		     struct sim_variant_result *r)
{
	struct cli *c = calloc(1, sizeof(*c));
	struct loaded *ld = calloc(1, sizeof(*ld));
	char *argv[MAX_STEPS * 2 + 16], err[SCN_ERR_MAX];
	int argc = 0, rc;

	if (!c || !ld || steps->nr > MAX_STEPS)
		die_input("replay", 0, "out of memory or too many steps");
	argv[argc++] = dump ? "--quiet" : "--json";
	argv[argc++] = "--block-size";
	argv[argc++] = (char *)bs;
	for (int i = 0; mode_flags[mode][i]; i++)
		argv[argc++] = (char *)mode_flags[mode][i];
	if (dump) {
		argv[argc++] = "--dump-file";
		argv[argc++] = (char *)dump;
	}
	for (unsigned i = 0; i < steps->nr; i++) {
		argv[argc++] = "-c";
		argv[argc++] = steps->v[i];
	}
	c->o.crash_bound = CS_BOUND_DEFAULT;
	c->o.crash_digest = dump == NULL;
	rc = parse_run_argv(c, argc, argv);
	if (!rc)
		rc = inline_scenario(c, &ld->s);
	if (!rc)
		rc = load_one(c, NULL, ld);
	if (!rc && sim_run_variant(&ld->s, &ld->cfg[0], &c->o, NULL, c->o.dump_file, r, err,
				   sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		rc = 2;
	}
	scn_free(&ld->s);
	free(ld);
	free(c);
	return rc;
}

/* ---- compare ---- */

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 1 > b->cap) {
		b->cap = 2 * (b->len + n + 1);
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n + 1);
	b->len += n;
}

/* "size=N runs=BYTE*COUNT,..." of the file at @path, as the recording wrote it. */
static void describe_file(const char *path, struct buf *out)
{
	FILE *f = fopen(path, "rb");
	long long size = 0, count = 0;
	struct buf runs = { 0 };
	int c, cur = -1;
	char item[64];

	buf_add(&runs, "");
	while (f && (c = getc(f)) != EOF) {
		size++;
		if (c == cur) {
			count++;
			continue;
		}
		if (cur >= 0) {
			snprintf(item, sizeof(item), "%s%02x*%lld", runs.len ? "," : "", cur, count);
			buf_add(&runs, item);
		}
		cur = c;
		count = 1;
	}
	if (cur >= 0) {
		snprintf(item, sizeof(item), "%s%02x*%lld", runs.len ? "," : "", cur, count);
		buf_add(&runs, item);
	}
	if (f)
		fclose(f);
	snprintf(item, sizeof(item), "size=%lld runs=", size);
	out->len = 0;
	buf_add(out, item);
	buf_add(out, runs.p);
	free(runs.p);
}

static void print_replay_run(const struct record *r, const struct text_list *steps)
{
	int mode = mode_index(r->mode);

	printf("     replay: %s run --block-size %s", sim_path, r->bs);
	for (int i = 0; mode_flags[mode][i]; i++)
		printf(" %s", mode_flags[mode][i]);
	for (unsigned i = 0; i < steps->nr; i++) {
		fputs(" -c ", stdout);
		print_quoted(stdout, steps->v[i]);
	}
	putchar('\n');
}

/* One record: 1 if the model's file is the kernel's. */
static int compare_one(const struct corpus *c, const struct record *r, const char *dump)
{
	struct text_list steps = { 0 };
	struct sim_variant_result res;
	struct buf got = { 0 };
	int rc, ok;

	build_steps(find_case(c, r->name), r->kind, r->n, &steps);
	unlink(dump);
	rc = run_model(r->bs, mode_index(r->mode), &steps, dump, &res);
	if (rc) {
		printf("FAIL %s %s %s %s: ext4sim exit %d (its message on stderr)\n", r->name,
		       r->bs, r->mode, r->point, rc);
		list_free(&steps);
		return 0;
	}
	sim_variant_result_free(&res, 0);
	describe_file(dump, &got);
	ok = strcmp(got.p, r->expect) == 0;
	if (ok && verbose)
		printf("ok   %s %s %s %s\n", r->name, r->bs, r->mode, r->point);
	if (!ok) {
		printf("FAIL %s %s %s %s: kernel %s, model %s\n", r->name, r->bs, r->mode,
		       r->point, r->expect, got.p);
		print_replay_run(r, &steps);
	}
	free(got.p);
	list_free(&steps);
	return ok;
}

/* A fresh directory under $TMPDIR (or /tmp) for the dumped files. */
static void make_scratch(char *dir, size_t cap)
{
	const char *t = getenv("TMPDIR");

	if ((size_t)snprintf(dir, cap, "%s/replay.XXXXXX", t && *t ? t : "/tmp") >= cap ||
	    !mkdtemp(dir))
		die_input("replay", 0, "cannot make a temporary directory");
}

static int do_compare(const struct corpus *c)
{
	char dir[4096], dump[4200];
	unsigned pass = 0, fail = 0;

	make_scratch(dir, sizeof(dir));
	snprintf(dump, sizeof(dump), "%s/f", dir);
	for (unsigned i = 0; i < c->nr_recs; i++) {
		const struct record *r = &c->recs[i];

		snprintf(aborting_at, sizeof(aborting_at), "%s %s %s %s", r->name, r->bs, r->mode,
			 r->point);
		if (compare_one(c, r, dump))
			pass++;
		else
			fail++;
	}
	unlink(dump);
	rmdir(dir);
	printf("kernel comparison: %u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}

/* ---- membership ---- */

/* The SHA-256 of the bytes "BYTE*COUNT,..." stand for; their number, or -1 if malformed. */
static long long runs_sha256(const char *runs, char hex[65])
{
	static uint8_t block[65536];
	long long total = 0;
	struct sha256 s;
	uint8_t d[32];

	sha256_init(&s);
	while (*runs) {
		char *e;
		unsigned long v = strtoul(runs, &e, 16);
		long long n;

		if (e == runs || *e != '*' || v > 255)
			return -1;
		n = strtoll(e + 1, &e, 10);
		if (n < 0 || (*e && *e != ','))
			return -1;
		memset(block, (int)v, sizeof(block));
		for (long long left = n; left > 0; left -= (long long)sizeof(block))
			sha256_update(&s, block, left < (long long)sizeof(block) ? (size_t)left
										: sizeof(block));
		total += n;
		runs = *e ? e + 1 : e;
	}
	sha256_final(&s, d);
	sha256_hex(d, hex);
	return total;
}

/* Every postN record's kernel state: size and SHA-256 (exit 2 if the runs do not add up). */
static void kernel_states(struct corpus *c)
{
	for (unsigned i = 0; i < c->nr_recs; i++) {
		struct record *r = &c->recs[i];
		const char *runs = strstr(r->expect, " runs=");
		char *e = NULL;

		if (r->kind != 'o')
			continue;
		r->ksize = strncmp(r->expect, "size=", 5) ? -1 : strtoll(r->expect + 5, &e, 10);
		if (r->ksize < 0 || !runs || e != runs)
			die_input(truth_path, r->line, "the record is not size=N runs=...");
		if (runs_sha256(runs + 6, r->ksha) != r->ksize)
			die_input(truth_path, r->line, "the runs do not expand to size= bytes");
	}
}

struct group {                          /* the postN records of one (case, bs, mode) */
	unsigned first, maxn;
};

/* group_of[i]: the group of record i (-1: not a postN record); returns the count. */
static unsigned make_groups(const struct corpus *c, struct group *g, int *group_of)
{
	unsigned nr = 0;

	for (unsigned i = 0; i < c->nr_recs; i++) {
		const struct record *r = &c->recs[i];
		unsigned k;

		group_of[i] = -1;
		if (r->kind != 'o')
			continue;
		for (k = 0; k < nr; k++) {
			const struct record *f = &c->recs[g[k].first];

			if (!strcmp(f->name, r->name) && !strcmp(f->bs, r->bs) &&
			    !strcmp(f->mode, r->mode))
				break;
		}
		if (k == nr)
			g[nr++] = (struct group){ .first = i, .maxn = 0 };
		if (r->n > g[k].maxn)
			g[k].maxn = r->n;
		group_of[i] = (int)k;
	}
	return nr;
}

/* The crash point of the run at 1-based step @step (NULL if none). */
static const struct cs_point *point_at(const struct sim_variant_result *res, uint32_t step)
{
	for (uint32_t i = 0; i < res->nr_points; i++)
		if (res->points[i].step == step && !res->points[i].hypothetical)
			return &res->points[i];
	return NULL;
}

/* The 1-based step of the @n-th crash among @steps (0: none). */
static uint32_t crash_step(const struct text_list *steps, unsigned n)
{
	for (unsigned i = 0; i < steps->nr; i++)
		if (!strcmp(steps->v[i], "crash") && --n == 0)
			return i + 1;
	return 0;
}

static void print_not_member(const struct record *r, const struct cs_point *p,
			     const struct text_list *steps)
{
	int mode = mode_index(r->mode);

	printf("FAIL %s %s %s %s: kernel size=%lld sha256=%s is not among the %u state(s) "
	       "listed at step %u (%llu of %.0f evaluated, exhaustive %s):\n", r->name, r->bs,
	       r->mode, r->point, r->ksize, r->ksha, p->nr_states, p->step,
	       (unsigned long long)p->evaluated, p->reduced_states,
	       p->exhaustive ? "true" : "false");
	for (uint32_t k = 0; k < p->nr_states; k++)
		printf("     size=%lld sha256=%s\n", (long long)p->states[k].size,
		       p->states[k].sha256);
	printf("     replay: %s crashstates --block-size %s", sim_path, r->bs);
	for (int i = 0; mode_flags[mode][i]; i++)
		printf(" %s", mode_flags[mode][i]);
	printf(" FILE.yaml, FILE.yaml holding the steps:");
	for (unsigned i = 0; i < p->step; i++)
		printf("%s %s", i ? ";" : "", steps->v[i]);
	putchar('\n');
}

/* One postN record against the run's crash points: 1 if the kernel's state is listed. */
static int member_one(const struct record *r, const struct text_list *steps,
		      const struct sim_variant_result *res)
{
	uint32_t step = crash_step(steps, r->n);
	const struct cs_point *p = step ? point_at(res, step) : NULL;

	if (!p) {
		printf("FAIL %s %s %s %s: ext4sim lists no crash point for step %u (crash %u)\n",
		       r->name, r->bs, r->mode, r->point, step, r->n);
		return 0;
	}
	for (uint32_t k = 0; k < p->nr_states; k++) {
		if (p->states[k].size == r->ksize && !strcmp(p->states[k].sha256, r->ksha)) {
			if (verbose)
				printf("ok   %s %s %s %s (step %u, %u state(s))\n", r->name, r->bs,
				       r->mode, r->point, step, p->nr_states);
			return 1;
		}
	}
	print_not_member(r, p, steps);
	return 0;
}

/* One group: one run, every record of it judged; adds to @pass and @fail. */
static void member_group(const struct corpus *c, const struct group *g, unsigned gi,
			 const int *group_of, unsigned *pass, unsigned *fail)
{
	const struct record *f = &c->recs[g->first];
	struct text_list steps = { 0 };
	struct sim_variant_result res;
	int rc;

	build_steps(find_case(c, f->name), 'o', g->maxn, &steps);
	snprintf(aborting_at, sizeof(aborting_at), "%s %s %s post%u", f->name, f->bs, f->mode,
		 g->maxn);
	rc = run_model(f->bs, mode_index(f->mode), &steps, NULL, &res);
	for (unsigned i = g->first; i < c->nr_recs; i++) {
		const struct record *r = &c->recs[i];
		int ok = 0;

		if (group_of[i] != (int)gi)
			continue;
		if (rc)
			printf("FAIL %s %s %s %s: ext4sim crashstates exit %d (its message on "
			       "stderr)\n", r->name, r->bs, r->mode, r->point, rc);
		else
			ok = member_one(r, &steps, &res);
		*pass += ok;
		*fail += !ok;
	}
	if (!rc)
		sim_variant_result_free(&res, 0);
	list_free(&steps);
}

static int do_membership(struct corpus *c)
{
	struct group *g = xrealloc(NULL, (c->nr_recs + 1) * sizeof(*g));
	int *group_of = xrealloc(NULL, (c->nr_recs + 1) * sizeof(*group_of));
	unsigned nr = make_groups(c, g, group_of), pass = 0, fail = 0;

	kernel_states(c);
	for (unsigned k = 0; k < nr; k++)
		member_group(c, &g[k], k, group_of, &pass, &fail);
	free(g);
	free(group_of);
	printf("crash membership: %u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}

static int usage(void)
{
	fputs("usage: replay compare|membership [-v] [-x SIM] CASES TRUTH\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct corpus c = { 0 };
	bool compare;
	int o;

	if (argc < 2 || (strcmp(argv[1], "compare") && strcmp(argv[1], "membership")))
		return usage();
	compare = strcmp(argv[1], "compare") == 0;
	while ((o = getopt(argc - 1, argv + 1, "vx:")) != -1) {
		if (o == 'v')
			verbose = true;
		else if (o == 'x')
			sim_path = optarg;
		else
			return usage();
	}
	if (argc - 1 - optind != 2)
		return usage();
	read_cases(&c, argv[1 + optind]);
	truth_path = argv[2 + optind];
	read_truth(&c, truth_path);
	check_records(&c);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGABRT, on_abort);
	return compare ? do_compare(&c) : do_membership(&c);
}
