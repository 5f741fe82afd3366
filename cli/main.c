/*
 * main.c - the ext4sim command line (docs/scenario-format.md).
 *
 *   ext4sim run [FLAGS] FILE.yaml|DIR ...     replay scenarios
 *   ext4sim run [FLAGS] -c CMD [-c CMD ...]   replay inline steps
 *   ext4sim crashstates [FLAGS] FILE.yaml     every crash state, recovered and judged
 *   ext4sim diff FILE.yaml --patch NAME       a scenario without and with a patch
 *   ext4sim matrix FILE.yaml [--toggles]      the scenario under every profile (matrix.c)
 *   ext4sim bisect FILE.yaml --good P --bad P the toggles behind a change of verdict (bisect.c)
 *   ext4sim patches                           the kernel profiles and patch toggles
 *   ext4sim export FILE.yaml --format F       a scenario as a real-kernel test
 *   ext4sim import FILE                       an fsx log or xfs_io list as a scenario
 *   ext4sim gen --seed S --count N            random scenarios for the real-kernel check
 *   ext4sim html FILE.yaml [-o OUT.html]      the states step by step as one page (html.c)
 *   ext4sim quiz --seed S [--answers]         a generated crash problem (quiz.c)
 *
 * Everything is loaded and validated before anything runs, so bad input
 * exits 2 with one message on stderr and nothing on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "suggest.h"
#include "html.h"
#include "outfile.h"
#include "quiz.h"
#include "report.h"
#include "snapshot.h"

static void usage(FILE *out)
{
	cmd_usage_all(out);
}

/*
 * The variant's header line: its kernel, its mount options as the mount sees
 * them (report_mount_words) and, where @o judges it otherwise than by
 * default, how (report_judging_words: the scenario's config: keys and the
 * flags).
 */
static void print_header(FILE *out, const struct sim_variant_cfg *cfg, const struct sim_options *o)
{
	static const char *const modes[] = { "ordered", "writeback", "journal" };
	char mount[96], judged[SIM_JUDGING_WORDS_MAX];
	struct sim_judging j;

	sim_judging_of(&j, o);
	report_mount_words(mount, sizeof(mount), cfg);
	report_judging_words(judged, sizeof(judged), &j);
	fprintf(out, "-- variant %s: kernel %s; block size %u, data=%s, %s, %u blocks%s\n",
		cfg->name, cfg->profile->name, cfg->opts.block_size, modes[cfg->opts.data], mount,
		cfg->opts.disk_blocks, judged);
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
static int run_one(struct cli *c, struct loaded *ld, bool first_json, unsigned *nr_run, FILE *out)
{
	struct sim_variant_result *res = calloc(ld->nr_cfg, sizeof(*res));
	char repro[SCN_VARIANTS_MAX][2048], err[SCN_ERR_MAX], dbuf[4096];
	const char *repro_p[SCN_VARIANTS_MAX];
	bool text = !c->o.json && !c->o.summary;
	unsigned n = 0;
	int failed = 0;

	SIM_ASSERT(res != NULL);
	if (text)
		fprintf(out, "== scenario %s (%s)\n", ld->s.name, ld->s.path);
	for (unsigned i = 0; i < ld->nr_cfg; i++) {
		const struct sim_variant_cfg *cfg = &ld->cfg[i];

		if (c->o.variant && strcmp(cfg->name, c->o.variant))
			continue;
		if (text)
			print_header(out, cfg, &c->o);
		report_reproduce(repro[n], sizeof(repro[n]), &ld->s, &c->ov, cfg->name,
				 ld->nr_cfg > 1);
		repro_p[n] = repro[n];
		if (sim_run_variant(&ld->s, cfg, &c->o, text && !c->o.quiet ? out : NULL,
				    dump_path(c, ld, cfg, dbuf, sizeof(dbuf)), &res[n], err,
				    sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			failed = -1;
		}
		if (text)
			report_verdict(out, &ld->s, &res[n], repro[n]);
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

/* Whether @path is a regular file (read again to run it); a FIFO or a device is read once. */
static bool rereadable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Every input loaded and checked first (then freed: memory does not grow
 * with their number), so that bad input prints nothing on stdout; then
 * each loaded again, run and freed in turn.  An input that is not a regular
 * file (a FIFO, /dev/stdin) cannot be read twice: what the check loaded is
 * kept in @kept[i] for the run.  A --dump-file and an --image path are tried
 * first too, and --from-image's image loaded and mounted (images.c).
 */
static int check_inputs(struct cli *c, const struct input_list *l, unsigned nr,
			struct loaded **kept)
{
	struct loaded *ld = calloc(1, sizeof(*ld));
	char err[OUTFILE_PATH_MAX + 128];
	int rc = 0;

	SIM_ASSERT(ld != NULL);
	for (unsigned i = 0; i < nr && rc == 0; i++) {
		if (c->nr_cmds)
			rc = inline_scenario(c, &ld->s);
		if (rc == 0)
			rc = load_one(c, c->nr_cmds ? NULL : l->paths[i], ld);
		if (rc == 0)
			rc = images_check_loaded(c, ld, nr == 1);
		if (rc == 0 && !c->nr_cmds && !rereadable(l->paths[i])) {
			kept[i] = ld;
			ld = calloc(1, sizeof(*ld));
			SIM_ASSERT(ld != NULL);
			continue;
		}
		scn_free(&ld->s);
		memset(ld, 0, sizeof(*ld));
	}
	free(ld);
	if (rc == 0 && c->o.dump_file && outfile_probe(c->o.dump_file, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (rc == 0 && c->o.image && outfile_probe(c->o.image, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	return rc;
}

/*
 * Load input @i again (or take what the check kept of it) and run it; -1
 * when it no longer loads or a run failed.
 */
static int run_input(struct cli *c, const struct input_list *l, unsigned i, unsigned *nr_run,
		     FILE *out, struct loaded **kept)
{
	struct loaded *ld = kept[i] ? kept[i] : calloc(1, sizeof(*ld));
	int f = -1;

	SIM_ASSERT(ld != NULL);
	if (kept[i] || ((c->nr_cmds ? inline_scenario(c, &ld->s) : 0) == 0 &&
			load_one(c, c->nr_cmds ? NULL : l->paths[i], ld) == 0))
		f = run_one(c, ld, i == 0, nr_run, out);
	scn_free(&ld->s);
	free(ld);
	kept[i] = NULL;
	return f;
}

static int cmd_run(int argc, struct cmd_opt *opts)
{
	struct cli *c = calloc(1, sizeof(*c));
	struct input_list l = { 0 };
	unsigned nr = 0, nr_run = 0, failed = 0;
	bool quiz = false, reveal = false;
	struct quiz_out q = { 0 };
	struct loaded **kept = NULL;
	int rc;

	SIM_ASSERT(c != NULL);
	c->o.crash_bound = CS_BOUND_DEFAULT;
	c->o.name_writes = true;        /* crash states name their pending writes */
	argc = quiz_take_flags(argc, opts, &quiz, &reveal);
	if ((rc = parse_run_args(c, argc, opts)) || (rc = expand_inputs(c, &l)) ||
	    (quiz && (rc = quiz_check_flags(c))))
		goto out_free;
	if (c->o.only_point || c->o.has_keep) {
		rc = bad_usage("--point and --keep are flags of crashstates%s", "");
		goto out_free;
	}
	if (quiz && c->o.timeline) {    /* it shows the events and the durable blocks */
		rc = bad_usage("--quiz hides the answers that --timeline shows%s", "");
		goto out_free;
	}
	nr = c->nr_cmds ? 1 : l.nr;
	kept = calloc(nr, sizeof(*kept));
	SIM_ASSERT(kept != NULL);
	if ((rc = check_inputs(c, &l, nr, kept)))
		goto out_free;
	c->o.json_state = c->o.json;    /* each step's state in the JSON (docs/json.md) */
	c->o.record_events = c->o.json || c->o.events || c->o.explain || c->o.timeline;
	if (c->o.json)
		printf("{\"ext4sim\": \"%s\", \"json_version\": %d, \"scenarios\": [",
		       EXT4SIM_VERSION, SNAP_JSON_VERSION);
	c->o.quiz_lines = quiz;         /* no line's absence tells a blank's value */
	q.out = quiz ? quiz_open(&q) : stdout;
	for (unsigned i = 0; i < nr; i++) {
		int f = run_input(c, &l, i, &nr_run, q.out, kept);

		if (f < 0)
			rc = 2;
		else
			failed += (unsigned)f;
	}
	if (c->o.json)
		printf("]}\n");
	else
		fprintf(q.out, "%u scenario(s), %u variant(s): %u as expected, %u not\n", nr, nr_run,
			nr_run - failed, failed);
	if (!rc)
		rc = failed ? 1 : 0;
	if (quiz)
		rc = quiz_close(&q, reveal, rc);
out_free:
	for (unsigned i = 0; kept && i < nr; i++)
		if (kept[i]) {
			scn_free(&kept[i]->s);
			free(kept[i]);
		}
	free(kept);
	for (unsigned i = 0; i < l.nr; i++)
		free(l.paths[i]);
	free(l.paths);
	images_free(c);
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

/* A crash state's namespace (nsnap_text's lines), indented under the state. */
static void print_namespace(const char *ns)
{
	const char *p = ns;

	printf("      namespace:\n");
	while (*p) {
		const char *e = strchr(p, '\n');
		int n = e ? (int)(e - p) : (int)strlen(p);

		printf("        %.*s\n", n, p);
		p += n + (e != NULL);
	}
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
			char where[CS_EXAMPLE_MAX + 256], writes[4096];

			cs_describe_state(p, st, where, sizeof(where));
			printf("    size %lld sha256 %.16s... raw %llu (%s)", (long long)st->size,
			       st->sha256, (unsigned long long)st->raw_states, where);
			for (int inv = 0; inv < INV_COUNT; inv++)
				if (st->violated[inv])
					printf(" %s", chk_inv_info(inv)->name);
			putchar('\n');
			if (st->runs[0])
				printf("      bytes: %s\n", st->runs);
			if (st->ns)
				print_namespace(st->ns);
			if (st->tx_kept)
				printf("      size and extents: recovered %s; lost %s\n", st->tx_kept,
				       st->tx_lost ? st->tx_lost : "nothing");
			cs_describe_writes(&r->lay, p, st, writes, sizeof(writes));
			if (writes[0])
				printf("      %s\n", writes);
			if (st->image)
				printf("      image: %s\n", st->image);
			if (st->detail)
				printf("    sha256 %s\n%s", st->sha256, st->detail);
		}
	}
}

/*
 * ext4sim crashstates FILE.yaml [FLAGS]: every distinct post-recovery state
 * at every crash step of every variant (JSON with --json).
 */
static int cmd_crashstates(int argc, struct cmd_opt *opts)
{
	struct cli *c = calloc(1, sizeof(*c));
	struct loaded *ld = calloc(1, sizeof(*ld));
	struct images_run ir = { 0 };
	int rc, failed = 0;

	SIM_ASSERT(c != NULL && ld != NULL);
	c->o.crash_bound = CS_BOUND_DEFAULT;
	c->o.name_writes = true;
	c->o.crash_digest = true;
	if ((rc = parse_run_args(c, argc, opts)))
		goto out_free;
	if (c->nr_inputs + (c->nr_cmds > 0) != 1) {
		rc = bad_usage("crashstates takes one scenario file or -c steps%s", "");
		goto out_free;
	}
	if (c->o.has_keep && !c->o.only_point) {
		rc = bad_usage("--keep needs --point: which crash point's writes%s", "");
		goto out_free;
	}
	c->o.record_events = c->o.events;       /* pending writes with their event numbers */
	if ((c->nr_cmds && (rc = inline_scenario(c, &ld->s))) ||
	    (rc = load_one(c, c->nr_cmds ? NULL : c->inputs[0], ld)) ||
	    (rc = images_check_loaded(c, ld, true)) || (rc = images_begin(c, ld, &ir)))
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
	rc = images_end(&ir, failed ? 1 : 0);
out_free:
	images_free(c);
	scn_free(&ld->s);
	free(ld);
	free(c);
	return rc;
}

static void print_profile(const struct ext4_profile *p)
{
	unsigned any = 0;

	printf("  %-16s %s%s\n  %-16s on:", p->name, p->description,
	       p == ext4_profile_default() ? " [default]" : "", "");
	for (unsigned t = 0; t < ext4_toggle_count(); t++)
		if (ext4_profile_has(p, t))
			printf("%s %s", any++ ? "," : "", ext4_toggle_at(t)->name);
	printf("%s\n", any ? "" : " (none)");
}

static void print_toggle(const struct ext4_toggle *t)
{
	printf("  %s\n    commit:  %s (%s)\n    before:  %s\n    after:   %s\n    path:    %s\n",
	       t->name, t->commit, t->release, t->before, t->after, t->path);
	if (t->stable)
		printf("    stable:  backported to the last release of %s\n", t->stable);
	if (t->unmodelled)
		printf("    model:   %s\n", t->unmodelled);
	if (t->why)
		printf("    why:     %s\n", t->why);
	if (t->shown_by)
		printf("    shown:   %s\n", t->shown_by);
}

/* ext4sim patches: the profiles, the toggles (experimental ones apart), what has no toggle. */
static int cmd_patches(void)
{
	printf("kernel profiles (--kernel NAME; config kernel:)\n");
	for (unsigned i = 0; i < ext4_profile_count(); i++)
		print_profile(ext4_profile_at(i));
	printf("\npatch toggles (--patch NAME=on|off; patches: {NAME: on|off})\n");
	for (unsigned t = 0; t < ext4_toggle_count(); t++)
		if (ext4_toggle_at(t)->klass != TC_EXPERIMENTAL)
			print_toggle(ext4_toggle_at(t));
	printf("\nexperimental toggles (ideas under test, in no profile: --patch NAME=on; "
	       "model/profile/experimental.c)\n");
	for (unsigned t = 0; t < ext4_toggle_count(); t++)
		if (ext4_toggle_at(t)->klass == TC_EXPERIMENTAL)
			print_toggle(ext4_toggle_at(t));
	printf("\nnot modelled (no toggle)\n");
	for (unsigned i = 0; ext4_not_modelled[i]; i++)
		printf("  %s\n", ext4_not_modelled[i]);
	return 0;
}

/* `help WORD` for a WORD no command has: the closest command (or those it starts). */
static int help_unknown(const char *word)
{
	const char *names[32];
	char hint[160];
	size_t n = 0;

	for (const struct cmd_desc *d = cmd_table(); d->name && n < 32; d++)
		names[n++] = d->name;
	fprintf(stderr, "ext4sim: help: unknown command '%s'%s (ext4sim --help for usage)\n", word,
		suggest_hint(hint, sizeof(hint), word, names, n));
	return 2;
}

/* ext4sim help [COMMAND | --man | --completion]. */
static int cmd_help(int argc, char **argv)
{
	const struct cmd_desc *d = argc ? cmd_find(argv[0]) : NULL;

	if (argc == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[0], "--man") == 0) {
		cmd_print_man(stdout, EXT4SIM_VERSION);
		return 0;
	}
	if (strcmp(argv[0], "--completion") == 0) {
		cmd_print_completion(stdout);
		return 0;
	}
	if (!d)
		return help_unknown(argv[0]);
	cmd_usage(stdout, d);
	return 0;
}

/* True when @argv asks for help (`--help` or `-h`, not as a flag's value). */
static bool wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return i == 0 || !cmd_is_short_valued(argv[i - 1]);
	}
	return false;
}

/* The command @d with its arguments normalized (commands.c). */
static int dispatch(const struct cmd_desc *d, int argc, char **argv)
{
	static int (*const fns[])(int, struct cmd_opt *) = {
		cmd_run, cmd_crashstates, cmd_diff, cmd_matrix, cmd_bisect, NULL, cmd_explore,
		cmd_minimize, cmd_merge, cmd_export, cmd_import, cmd_gen, cmd_html, cmd_quiz,
	};
	struct cmd_args a;
	int rc;

	if (wants_help(argc, argv)) {
		cmd_usage(stdout, d);
		return 0;
	}
	if ((rc = cmd_parse(d, argc, argv, &a)))
		return rc;
	if (strcmp(d->name, "patches") == 0)
		rc = a.argc ? bad_usage("patches takes no arguments%s", "") : cmd_patches();
	else
		rc = fns[d - cmd_table()](a.argc, a.opts);
	free(a.opts);
	return rc;
}

/* ext4sim COMMAND ...: the command table (commands.c) decides; help and --version here. */
static int run_command(int argc, char **argv)
{
	const struct cmd_desc *d;
	const char *names[32];
	char hint[160];
	size_t n = 0;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(0, NULL);
	if (strcmp(argv[1], "help") == 0)
		return cmd_help(argc - 2, argv + 2);
	if (strcmp(argv[1], "--version") == 0) {
		printf("ext4sim %s\n", EXT4SIM_VERSION);
		return 0;
	}
	if ((d = cmd_find(argv[1])) != NULL)
		return dispatch(d, argc - 2, argv + 2);
	for (d = cmd_table(); d->name && n < 32; d++)
		names[n++] = d->name;
	fprintf(stderr, "ext4sim: unknown command '%s'%s (ext4sim --help for usage)\n", argv[1],
		suggest_hint(hint, sizeof(hint), argv[1], names, n));
	return 2;
}

/*
 * Every command: SIGINT and SIGTERM remove the temporaries of files being
 * written (explore instead stops and reports what it did, marked incomplete);
 * stdout is flushed and closed, and a write that failed there is exit 2.
 */
int main(int argc, char **argv)
{
	int rc;

	outfile_catch_signals(false);
	rc = run_command(argc, argv);
	return outfile_close_stdout() ? 2 : rc;
}
