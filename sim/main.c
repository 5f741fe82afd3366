/*
 * main.c - the ext4sim command line (docs/cli.md, the contract).
 *
 *   ext4sim run [FLAGS] FILE.yaml|DIR ...     replay scenarios
 *   ext4sim run [FLAGS] -c CMD [-c CMD ...]   replay inline steps
 *   ext4sim patches                           list kernel profiles and semantics
 *
 * Everything is loaded and validated before anything runs, so bad input
 * exits 2 with one message on stderr and nothing on stdout.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "run.h"

#define EXT4SIM_VERSION "0.1.0"
#define MAX_INPUTS 4096

struct cli {
	struct sim_overrides ov;
	struct sim_options o;
	char *inputs[MAX_INPUTS];
	unsigned nr_inputs;
	char *cmds[SCN_STEPS_MAX];
	unsigned nr_cmds;
};

static void usage(FILE *out)
{
	fputs("usage: ext4sim run [FLAGS] FILE.yaml|DIR ...\n"
	      "       ext4sim run [FLAGS] -c CMD [-c CMD ...]\n"
	      "       ext4sim crashstates [FLAGS] FILE.yaml\n"
	      "       ext4sim patches\n"
	      "flags: --block-size N  --data ordered|writeback|journal  --delalloc  --nodelalloc\n"
	      "       --disk-blocks N  --kernel VERSION  --patch NAME=on|off  --variant NAME\n"
	      "       --json  --summary  --quiet  --dump-file PATH  --fail-on INVARIANT\n"
	      "       --crash-bound N (crash states evaluated per crash point; 0: none)\n"
	      "       --crash-everywhere (also judge a crash after every step)\n"
	      "       --crash-reference (judge every crash state whole: slow, for testing)\n"
	      "exit status: 0 all held, 1 an invariant or expectation failed, 2 bad input\n", out);
}

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("ext4sim: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n(ext4sim --help for usage)\n", stderr);
	return 2;
}

static void note_flag(struct sim_overrides *ov, const char *flag, const char *val)
{
	size_t used = strlen(ov->argv_text);

	snprintf(ov->argv_text + used, sizeof(ov->argv_text) - used, "%s%s%s%s",
		 used ? " " : "", flag, val ? " " : "", val ? val : "");
}

static int parse_u32(const char *s, uint32_t *out)
{
	int64_t v;

	if (scn_parse_num(s, &v) < 0 || v <= 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int flag_block_size(struct cli *c, const char *v)
{
	if (parse_u32(v, &c->ov.block_size) < 0 ||
	    (c->ov.block_size != 1024 && c->ov.block_size != 2048 && c->ov.block_size != 4096))
		return bad_usage("--block-size must be 1024, 2048 or 4096, not '%s'", v);
	c->ov.has_block_size = true;
	return 0;
}

static int flag_data(struct cli *c, const char *v)
{
	static const char *const modes[] = { "ordered", "writeback", "journal" };

	for (int i = 0; i < 3; i++) {
		if (strcmp(v, modes[i]) == 0) {
			c->ov.has_data = true;
			c->ov.data = (enum scn_data_mode)i;
			return 0;
		}
	}
	return bad_usage("--data must be ordered, writeback or journal, not '%s'", v);
}

static int flag_patch(struct cli *c, const char *v)
{
	const char *eq = strchr(v, '=');
	struct scn_patch_setting *p;

	if (!eq || (strcmp(eq + 1, "on") && strcmp(eq + 1, "off")) || eq == v ||
	    (size_t)(eq - v) >= SCN_NAME_MAX)
		return bad_usage("--patch takes NAME=on|off, not '%s'", v);
	if (c->ov.nr_patches == SCN_PATCHES_MAX)
		return bad_usage("too many --patch flags%s", "");
	p = &c->ov.patches[c->ov.nr_patches++];
	memcpy(p->p_name, v, (size_t)(eq - v));
	p->p_name[eq - v] = '\0';
	p->p_on = strcmp(eq + 1, "on") == 0;
	return 0;
}

static int flag_fail_on(struct cli *c, const char *v)
{
	int inv = chk_inv_lookup(v);

	if (inv < 0)
		return bad_usage("--fail-on: unknown invariant '%s'", v);
	c->o.fail_on[inv] = true;
	return 0;
}

/* A flag that takes a value; returns 1 if @flag is not one. */
/* --keep LIST, checked as a crash step's --keep list is. */
static int parse_keep(struct cli *c, const char *v)
{
	char text[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	struct scn_step st;
	unsigned col;

	if (snprintf(text, sizeof(text), "crash --keep %s", v) >= (int)sizeof(text) ||
	    scn_parse_step(text, &st, err, sizeof(err), &col) != 0)
		return bad_usage("--keep takes none or write numbers and ranges such as 1,3-5, "
				 "not '%s'", v);
	c->o.has_keep = true;
	c->o.nr_keep = st.s_nr_persist;
	memcpy(c->o.keep, st.s_persist, sizeof(c->o.keep));
	return 0;
}

static int value_flag(struct cli *c, const char *flag, const char *v)
{
	if (strcmp(flag, "--block-size") == 0)
		return flag_block_size(c, v);
	if (strcmp(flag, "--data") == 0)
		return flag_data(c, v);
	if (strcmp(flag, "--patch") == 0)
		return flag_patch(c, v);
	if (strcmp(flag, "--fail-on") == 0)
		return flag_fail_on(c, v);
	if (strcmp(flag, "--kernel") == 0) {
		if (strlen(v) >= SCN_NAME_MAX)
			return bad_usage("--kernel name too long: '%s'", v);
		c->ov.has_kernel = true;
		strcpy(c->ov.kernel, v);
		return 0;
	}
	if (strcmp(flag, "--disk-blocks") == 0) {
		if (parse_u32(v, &c->ov.disk_blocks) < 0 || c->ov.disk_blocks < SCN_DISK_BLOCKS_MIN ||
		    c->ov.disk_blocks > SCN_DISK_BLOCKS_MAX)
			return bad_usage("--disk-blocks out of range: '%s'", v);
		c->ov.has_disk_blocks = true;
		return 0;
	}
	if (strcmp(flag, "--point") == 0) {
		if (parse_u32(v, &c->o.only_point) < 0 || c->o.only_point == 0)
			return bad_usage("--point takes a crash point number from 1, not '%s'", v);
		return 0;
	}
	if (strcmp(flag, "--keep") == 0)
		return parse_keep(c, v);
	if (strcmp(flag, "--crash-bound") == 0) {
		int64_t n;

		if (scn_parse_num(v, &n) < 0 || n > (1 << 24))
			return bad_usage("--crash-bound takes 0 to 16777216, not '%s'", v);
		c->o.crash_bound = (uint64_t)n;
		return 0;
	}
	if (strcmp(flag, "--dump-file") == 0)
		c->o.dump_file = v;
	else if (strcmp(flag, "--variant") == 0)
		c->o.variant = v;
	else
		return 1;
	return 0;
}

static int bool_flag(struct cli *c, const char *a)
{
	if (strcmp(a, "--json") == 0)
		c->o.json = true;
	else if (strcmp(a, "--crash-everywhere") == 0)
		c->o.crash_everywhere = true;
	else if (strcmp(a, "--crash-reference") == 0)
		c->o.crash_reference = true;
	else if (strcmp(a, "--summary") == 0)
		c->o.summary = true;
	else if (strcmp(a, "--quiet") == 0)
		c->o.quiet = true;
	else if (strcmp(a, "--delalloc") == 0 || strcmp(a, "--nodelalloc") == 0) {
		c->ov.has_delalloc = true;
		c->ov.delalloc = strcmp(a, "--delalloc") == 0;
		note_flag(&c->ov, a, NULL);
	} else
		return 1;
	return 0;
}

static int parse_run_args(struct cli *c, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int rc;

		if (strcmp(a, "-c") == 0) {
			if (++i == argc)
				return bad_usage("-c needs a step%s", "");
			if (c->nr_cmds == SCN_STEPS_MAX)
				return bad_usage("too many -c steps%s", "");
			c->cmds[c->nr_cmds++] = argv[i];
			continue;
		}
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			if (c->nr_inputs == MAX_INPUTS)
				return bad_usage("too many inputs%s", "");
			c->inputs[c->nr_inputs++] = argv[i];
			continue;
		}
		if ((rc = bool_flag(c, a)) <= 0)
			continue;
		if (i + 1 == argc)
			return bad_usage("%s needs a value", a);
		if ((rc = value_flag(c, a, argv[i + 1])) < 0 || rc == 2)
			return 2;
		if (rc == 1)
			return bad_usage("unknown flag '%s'", a);
		if (strcmp(a, "--dump-file") && strcmp(a, "--variant") && strcmp(a, "--fail-on"))
			note_flag(&c->ov, a, argv[i + 1]);
		i++;
	}
	if (c->nr_cmds && c->nr_inputs)
		return bad_usage("give scenario files or -c steps, not both%s", "");
	if (!c->nr_cmds && !c->nr_inputs)
		return bad_usage("run needs a scenario file, a directory or -c steps%s", "");
	return 0;
}

/* --- inputs --- */

struct input_list {
	char **paths;
	unsigned nr;
	unsigned cap;
};

static void add_path(struct input_list *l, const char *p)
{
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->paths = realloc(l->paths, l->cap * sizeof(*l->paths));
		SIM_ASSERT(l->paths != NULL);
	}
	l->paths[l->nr] = strdup(p);
	SIM_ASSERT(l->paths[l->nr] != NULL);
	l->nr++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_yaml(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && strcmp(name + n - 5, ".yaml") == 0;
}

/* Add every *.yaml under @dir, recursively, in name order. */
static int expand_dir(struct input_list *l, const char *dir, int depth)
{
	struct input_list here = { 0 };
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d || depth > 8)
		return bad_usage("cannot read directory '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		char p[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		add_path(&here, p);
	}
	closedir(d);
	if (here.nr)
		qsort(here.paths, here.nr, sizeof(*here.paths), cmp_str);
	for (unsigned i = 0; i < here.nr; i++) {
		struct stat st;

		if (stat(here.paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (expand_dir(l, here.paths[i], depth + 1))
				return 2;
		} else if (is_yaml(here.paths[i])) {
			add_path(l, here.paths[i]);
		}
		free(here.paths[i]);
	}
	free(here.paths);
	return 0;
}

static int expand_inputs(struct cli *c, struct input_list *l)
{
	for (unsigned i = 0; i < c->nr_inputs; i++) {
		struct stat st;

		if (stat(c->inputs[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (expand_dir(l, c->inputs[i], 0))
				return 2;
		} else {
			add_path(l, c->inputs[i]);
		}
	}
	return 0;
}

static int inline_scenario(struct cli *c, struct scenario *s)
{
	char err[SCN_ERR_MAX];
	unsigned col;

	memset(s, 0, sizeof(*s));
	strcpy(s->path, "-c");
	strcpy(s->name, "inline");
	scn_config_defaults(&s->config);
	s->steps = calloc(c->nr_cmds, sizeof(*s->steps));
	SIM_ASSERT(s->steps != NULL);
	for (unsigned i = 0; i < c->nr_cmds; i++) {
		if (scn_parse_step(c->cmds[i], &s->steps[i], err, sizeof(err), &col) < 0) {
			fprintf(stderr, "ext4sim: -c '%s': column %u: %s\n", c->cmds[i], col + 1, err);
			return 2;
		}
	}
	s->nr_steps = c->nr_cmds;
	return 0;
}

/* --- running --- */

struct loaded {
	struct scenario s;
	struct sim_variant_cfg cfg[SCN_VARIANTS_MAX];
	unsigned nr_cfg;
};

static int load_one(struct cli *c, const char *path, struct loaded *ld)
{
	char err[SCN_ERR_MAX];
	bool found = !c->o.variant;

	if (path && scn_load(path, &ld->s, chk_is_invariant_name, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (sim_resolve_variants(&ld->s, &c->ov, ld->cfg, &ld->nr_cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	for (unsigned i = 0; i < ld->nr_cfg && !found; i++)
		found = strcmp(ld->cfg[i].name, c->o.variant) == 0;
	if (!found) {
		fprintf(stderr, "ext4sim: %s has no variant '%s'\n", ld->s.path, c->o.variant);
		return 2;
	}
	return 0;
}

static void print_header(const struct loaded *ld, const struct sim_variant_cfg *cfg)
{
	static const char *const modes[] = { "ordered", "writeback", "journal" };
	const struct ext4_mount_opts *o = &cfg->opts;

	printf("-- variant %s: kernel %s; block size %u, data=%s, %s%s, %u blocks\n", cfg->name,
	       cfg->profile->name, o->block_size, modes[o->data],
	       o->delalloc ? "delalloc" : "nodelalloc",
	       ext4_should_dioread_nolock_opts(o) ? ", dioread_nolock" : "", o->disk_blocks);
	(void)ld;
}

/* The dump path of one variant: PATH, or PATH.VARIANT when there are several. */
static const char *dump_path(const struct cli *c, const struct loaded *ld,
			     const struct sim_variant_cfg *cfg, char *buf, size_t cap)
{
	if (!c->o.dump_file)
		return NULL;
	if (ld->nr_cfg == 1 || c->o.variant)
		return c->o.dump_file;
	snprintf(buf, cap, "%s.%s", c->o.dump_file, cfg->name);
	return buf;
}

/* Run the variants of one scenario; returns how many failed, or -1. */
static int run_one(struct cli *c, struct loaded *ld, bool first_json, unsigned *nr_run)
{
	struct sim_variant_result *res = calloc(ld->nr_cfg, sizeof(*res));
	char repro[SCN_VARIANTS_MAX][2048], err[SCN_ERR_MAX], dbuf[4096];
	const char *repro_p[SCN_VARIANTS_MAX];
	bool text = !c->o.json && !c->o.summary;
	unsigned n = 0;
	int failed = 0;

	SIM_ASSERT(res != NULL);
	if (text)
		printf("== scenario %s (%s)\n", ld->s.name, ld->s.path);
	for (unsigned i = 0; i < ld->nr_cfg; i++) {
		const struct sim_variant_cfg *cfg = &ld->cfg[i];

		if (c->o.variant && strcmp(cfg->name, c->o.variant))
			continue;
		if (text)
			print_header(ld, cfg);
		report_reproduce(repro[n], sizeof(repro[n]), &ld->s, &c->ov, cfg->name,
				 ld->nr_cfg > 1);
		repro_p[n] = repro[n];
		if (sim_run_variant(&ld->s, cfg, &c->o, text && !c->o.quiet ? stdout : NULL,
				    dump_path(c, ld, cfg, dbuf, sizeof(dbuf)), &res[n], err,
				    sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			failed = -1;
		}
		if (text)
			report_verdict(stdout, &ld->s, &res[n], repro[n]);
		if (c->o.summary)
			report_summary_line(stdout, &ld->s, &res[n]);
		failed += failed >= 0 && !res[n].passed;
		n++;
	}
	if (c->o.json)
		report_json_scenario(stdout, &ld->s, res, n, first_json, repro_p);
	for (unsigned i = 0; i < n; i++)
		sim_variant_result_free(&res[i], ld->s.nr_steps);
	free(res);
	*nr_run += n;
	return failed;
}

static int cmd_run(int argc, char **argv)
{
	struct cli *c = calloc(1, sizeof(*c));
	struct input_list l = { 0 };
	struct loaded *ld = NULL;
	unsigned nr = 0, nr_run = 0, failed = 0;
	int rc;

	SIM_ASSERT(c != NULL);
	c->o.crash_bound = CS_BOUND_DEFAULT;
	if ((rc = parse_run_args(c, argc, argv)) || (rc = expand_inputs(c, &l)))
		goto out_free;
	if (c->o.only_point || c->o.has_keep) {
		rc = bad_usage("--point and --keep are flags of crashstates%s", "");
		goto out_free;
	}
	nr = c->nr_cmds ? 1 : l.nr;
	ld = calloc(nr ? nr : 1, sizeof(*ld));
	SIM_ASSERT(ld != NULL);
	if (c->nr_cmds && (rc = inline_scenario(c, &ld[0].s)))
		goto out_free;
	for (unsigned i = 0; i < nr; i++)
		if ((rc = load_one(c, c->nr_cmds ? NULL : l.paths[i], &ld[i])))
			goto out_free;
	if (c->o.json)
		printf("{\"ext4sim\": \"%s\", \"scenarios\": [", EXT4SIM_VERSION);
	for (unsigned i = 0; i < nr; i++) {
		int f = run_one(c, &ld[i], i == 0, &nr_run);

		if (f < 0)
			rc = 2;
		else
			failed += (unsigned)f;
	}
	if (c->o.json)
		printf("]}\n");
	else
		printf("%u scenario(s), %u variant(s): %u as expected, %u not\n", nr, nr_run,
		       nr_run - failed, failed);
	if (!rc)
		rc = failed ? 1 : 0;
out_free:
	for (unsigned i = 0; ld && i < nr; i++)
		scn_free(&ld[i].s);
	for (unsigned i = 0; i < l.nr; i++)
		free(l.paths[i]);
	free(l.paths);
	free(ld);
	free(c);
	return rc;
}

static void print_crash_point_head(const struct cs_point *p)
{
	static const char *const where[] = { "", " before a flush", " before a FUA write" };
	char tid[32] = "";

	if (p->in_commit)
		snprintf(tid, sizeof(tid), ", committing tid %u", p->in_commit);
	printf("  point %u, %s step %u%s%s: %.0f raw state(s) from %u unflushed write(s), "
	       "%llu evaluated (%s), %u distinct\n", p->point_no,
	       p->within ? "inside" : p->hypothetical ? "after" : "crash at", p->step,
	       where[p->within], tid, p->raw_states, p->nr_pending,
	       (unsigned long long)p->evaluated, p->exhaustive ? "exhaustive" : "sampled",
	       p->nr_states);
}

static void print_crash_points_text(const struct sim_variant_result *r)
{
	for (uint32_t i = 0; i < r->nr_points; i++) {
		const struct cs_point *p = &r->points[i];

		print_crash_point_head(p);
		if (p->bad_keep)
			printf("    --keep names a write past the %u unflushed at this point\n",
			       p->nr_pending);
		for (uint32_t k = 0; k < p->nr_states; k++) {
			const struct cs_state *st = &p->states[k];
			char where[CS_EXAMPLE_MAX + 256];

			cs_describe_state(p, st, where, sizeof(where));
			printf("    size %lld sha256 %.16s... raw %llu (%s)", (long long)st->size,
			       st->sha256, (unsigned long long)st->raw_states, where);
			for (int inv = 0; inv < INV_COUNT; inv++)
				if (st->violated[inv])
					printf(" %s", chk_inv_info(inv)->name);
			putchar('\n');
			if (st->detail)
				printf("    sha256 %s\n%s", st->sha256, st->detail);
		}
	}
}

/*
 * ext4sim crashstates FILE.yaml [FLAGS]: every distinct post-recovery state
 * at every crash step of every variant (JSON with --json).
 */
static int cmd_crashstates(int argc, char **argv)
{
	struct cli *c = calloc(1, sizeof(*c));
	struct loaded *ld = calloc(1, sizeof(*ld));
	int rc, failed = 0;

	SIM_ASSERT(c != NULL && ld != NULL);
	c->o.crash_bound = CS_BOUND_DEFAULT;
	c->o.crash_digest = true;
	if ((rc = parse_run_args(c, argc, argv)))
		goto out_free;
	if (c->nr_inputs != 1 || c->nr_cmds) {
		rc = bad_usage("crashstates takes one scenario file%s", "");
		goto out_free;
	}
	if (c->o.has_keep && !c->o.only_point) {
		rc = bad_usage("--keep needs --point: which crash point's writes%s", "");
		goto out_free;
	}
	if ((rc = load_one(c, c->inputs[0], ld)))
		goto out_free;
	if (c->o.json) {
		printf("{\"scenario\": ");
		json_string(stdout, ld->s.name);
		printf(", \"variants\": [");
	}
	for (unsigned i = 0, n = 0; i < ld->nr_cfg; i++) {
		struct sim_variant_result r;
		char err[SCN_ERR_MAX];

		if (c->o.variant && strcmp(ld->cfg[i].name, c->o.variant))
			continue;
		sim_run_variant(&ld->s, &ld->cfg[i], &c->o, NULL, NULL, &r, err, sizeof(err));
		failed += !r.passed;
		if (c->o.json) {
			printf("%s{\"name\": ", n++ ? ", " : "");
			json_string(stdout, r.cfg.name);
			printf(", \"crash_points\": ");
			json_crash_points(stdout, &r);
			putchar('}');
		} else {
			printf("== %s, variant %s\n", ld->s.name, r.cfg.name);
			print_crash_points_text(&r);
		}
		sim_variant_result_free(&r, ld->s.nr_steps);
	}
	if (c->o.json)
		printf("]}\n");
	rc = failed ? 1 : 0;
out_free:
	scn_free(&ld->s);
	free(ld);
	free(c);
	return rc;
}

static int cmd_patches(void)
{
	for (unsigned i = 0; i < ext4_profile_count(); i++) {
		const struct ext4_profile *p = ext4_profile_at(i);

		printf("profile %s%s\n  %s\n", p->name,
		       p == ext4_profile_default() ? " (default)" : "", p->description);
	}
	printf("patch toggles: none in this release; each behavioural decision of a profile is\n"
	       "one field of struct ext4_semantics (model/profile.h), with its source commit\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	if (strcmp(argv[1], "patches") == 0)
		return cmd_patches();
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ext4sim %s\n", EXT4SIM_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "crashstates") == 0)
		return cmd_crashstates(argc - 2, argv + 2);
	if (strcmp(argv[1], "diff") == 0 || strcmp(argv[1], "explore") == 0)
		return bad_usage("'%s' is not available in this release", argv[1]);
	return bad_usage("unknown command '%s'", argv[1]);
}
