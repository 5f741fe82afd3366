/*
 * html.c - ext4sim html FILE.yaml [-o OUT.html] [--variant V] [--diff PATCH]
 * [FLAGS]: one self-contained static page that pictures the model's state
 * step by step (docs/html.md).  The data is the document `run --json`
 * prints (with --diff, each variant run with the toggle off and on, in the
 * shape of `diff --json` with the per-step states), embedded in a
 * <script type="application/json"> element of the page html_page.c holds.
 * The page is written to a temporary name next to OUT and renamed, so a
 * failure leaves no partial file.  Exit status: 0 when the page was
 * written, 2 on bad input (one message on stderr, nothing written).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "html.h"
#include "outfile.h"
#include "report.h"
#include "snapshot.h"

struct html_args {
	const char *out;                /* -o PATH, or NULL: NAME.html here */
	const char *patch;              /* --diff PATCH, or NULL */
};

/* Take -o PATH and --diff PATCH out of the arguments; the rest go to parse_run_args. */
static int take_html_flags(int *argc, struct cmd_opt *opts, struct html_args *h)
{
	int n = 0;

	for (int i = 0; i < *argc; i++) {
		bool o = opts[i].id == F_O, d = opts[i].id == F_DIFF;

		if (!o && !d) {
			opts[n++] = opts[i];
			continue;
		}
		if ((o && h->out) || (d && h->patch))
			return bad_usage("html takes one %s", opts[i].name);
		*(o ? &h->out : &h->patch) = opts[i].val;
	}
	*argc = n;
	if (h->out && !h->out[0])
		return bad_usage("-o needs a path%s", "");
	if (h->patch && !ext4_toggle_find(h->patch))
		return bad_usage("unknown patch '%s' (`ext4sim patches` lists them)", h->patch);
	return 0;
}

/* NAME.html in the current directory for scenario file DIR/NAME.yaml. */
static void default_out(const char *in, char *buf, size_t cap)
{
	const char *base = strrchr(in, '/');
	size_t n;

	base = base ? base + 1 : in;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
		n -= 5;
	else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
		n -= 4;
	snprintf(buf, cap, "%.*s.html", (int)n, base);
}

/* The document of `run --json` for the selected variants. */
static void json_run(FILE *f, struct cli *c, struct loaded *ld)
{
	struct sim_variant_result *res = calloc(ld->nr_cfg, sizeof(*res));
	char repro[SCN_VARIANTS_MAX][2048], err[SCN_ERR_MAX];
	const char *repro_p[SCN_VARIANTS_MAX];
	unsigned n = 0;

	SIM_ASSERT(res != NULL);
	for (unsigned i = 0; i < ld->nr_cfg; i++) {
		const struct sim_variant_cfg *cfg = &ld->cfg[i];

		if (c->o.variant && strcmp(cfg->name, c->o.variant))
			continue;
		report_reproduce(repro[n], sizeof(repro[n]), &ld->s, &c->ov, cfg->name,
				 ld->nr_cfg > 1);
		repro_p[n] = repro[n];
		SIM_ASSERT(sim_run_variant(&ld->s, cfg, &c->o, NULL, NULL, &res[n], err,
					   sizeof(err)) == 0);
		n++;
	}
	fprintf(f, "{\"ext4sim\": \"%s\", \"json_version\": %d, \"scenarios\": [",
		EXT4SIM_VERSION, SNAP_JSON_VERSION);
	report_json_scenario(f, &ld->s, res, n, true, repro_p);
	fputs("]}", f);
	for (unsigned i = 0; i < n; i++)
		sim_variant_result_free(&res[i], ld->s.nr_steps);
	free(res);
}

/* One side of --diff: variant @cfg with toggle @t set to @on, as run --json prints it. */
static void json_side(FILE *f, struct cli *c, const struct loaded *ld,
		      const struct sim_variant_cfg *cfg, const struct ext4_toggle *t, bool on)
{
	struct sim_variant_cfg v = *cfg;
	struct sim_variant_result r;
	char err[SCN_ERR_MAX], repro[2048];

	ext4_toggle_set(&v.sem, t, on);
	report_reproduce(repro, sizeof(repro), &ld->s, &c->ov, cfg->name, ld->nr_cfg > 1);
	SIM_ASSERT(sim_run_variant(&ld->s, &v, &c->o, NULL, NULL, &r, err, sizeof(err)) == 0);
	report_json_variant(f, &ld->s, &r, "");
	sim_variant_result_free(&r, ld->s.nr_steps);
}

/* The document of `diff --json`, each side with its per-step states. */
static void json_diff(FILE *f, struct cli *c, const struct loaded *ld, const char *patch)
{
	const struct ext4_toggle *t = ext4_toggle_find(patch);
	unsigned n = 0;

	fprintf(f, "{\"ext4sim\": \"%s\", \"json_version\": %d, \"scenario\": ", EXT4SIM_VERSION,
		SNAP_JSON_VERSION);
	json_string(f, ld->s.name);
	fputs(", \"file\": ", f);
	json_string(f, ld->s.path);
	fputs(", \"patch\": ", f);
	json_string(f, patch);
	fputs(", \"variants\": [", f);
	for (unsigned i = 0; i < ld->nr_cfg; i++) {
		if (c->o.variant && strcmp(ld->cfg[i].name, c->o.variant))
			continue;
		fprintf(f, "%s{\"variant\": ", n++ ? ", " : "");
		json_string(f, ld->cfg[i].name);
		fputs(", \"off\": ", f);
		json_side(f, c, ld, &ld->cfg[i], t, false);
		fputs(", \"on\": ", f);
		json_side(f, c, ld, &ld->cfg[i], t, true);
		fputc('}', f);
	}
	fputs("]}", f);
}

/*
 * The page: the head, the JSON with every '<' written as \u003c (only
 * strings can hold one, so the JSON stays the same; no "</script>" can end
 * the element early), the tail.
 */
static int put_page(FILE *f, const char *json, size_t len)
{
	fputs(html_page_head, f);
	for (size_t i = 0; i < len; i++) {
		if (json[i] == '<')
			fputs("\\u003c", f);
		else
			fputc(json[i], f);
	}
	fputs(html_page_tail, f);
	return ferror(f) ? -1 : 0;
}

/* Run the scenario and write the page to the open temporary file @f. */
static int build_page(FILE *f, struct cli *c, struct loaded *ld, const struct html_args *h)
{
	char *json = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&json, &len);
	int rc;

	SIM_ASSERT(m != NULL);
	if (h->patch)
		json_diff(m, c, ld, h->patch);
	else
		json_run(m, c, ld);
	SIM_ASSERT(fclose(m) == 0);
	rc = put_page(f, json, len);
	free(json);
	return rc;
}

static int write_page(struct cli *c, struct loaded *ld, const struct html_args *h,
		      const char *path)
{
	char err[OUTFILE_PATH_MAX + 128];
	struct outfile o;

	if (outfile_open(&o, path, false, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (build_page(o.f, c, ld, h) != 0) {
		outfile_abort(&o);
		fprintf(stderr, "ext4sim: cannot write %s\n", path);
		return 2;
	}
	if (outfile_commit(&o, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	return 0;
}

int cmd_html(int argc, struct cmd_opt *opts)
{
	struct cli *c = calloc(1, sizeof(*c));
	struct loaded *ld = calloc(1, sizeof(*ld));
	struct html_args h = { 0 };
	char out[4096];
	int rc;

	SIM_ASSERT(c != NULL && ld != NULL);
	c->o.crash_bound = CS_BOUND_DEFAULT;
	c->o.json = true;
	c->o.json_state = true;         /* each step's state (docs/json.md) */
	c->o.record_events = true;      /* each step's events and the why of its sizes */
	c->o.timeline = true;           /* each step's block timeline */
	c->o.name_writes = true;        /* crash states name their pending writes */
	c->o.crash_digest = true;
	c->o.quiet = true;
	if ((rc = take_html_flags(&argc, opts, &h)))
		goto out_free;
	if (argc == 0 || (rc = parse_run_args(c, argc, opts)) || c->nr_inputs != 1 || c->nr_cmds) {
		rc = rc ? rc : bad_usage("html takes one scenario file%s", "");
		goto out_free;
	}
	if (c->o.only_point || c->o.has_keep || c->o.dump_file) {
		rc = bad_usage("--point, --keep and --dump-file are not flags of html%s", "");
		goto out_free;
	}
	if ((rc = load_one(c, c->inputs[0], ld)))
		goto out_free;
	if (!h.out)
		default_out(c->inputs[0], out, sizeof(out));
	rc = write_page(c, ld, &h, h.out ? h.out : out);
out_free:
	scn_free(&ld->s);
	free(ld);
	free(c);
	return rc;
}
