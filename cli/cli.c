/*
 * cli.c - flags, inputs and scenario loading for the ext4sim commands
 * (see cli.h).
 */
#include "cli.h"
#include "blkimage.h"
#include "suggest.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* One line: the message (control bytes in @arg as '?'), then where usage is. */
int bad_usage(const char *fmt, const char *arg)
{
	char safe[1024];
	size_t n = 0;

	for (; arg && *arg && n + 1 < sizeof(safe); arg++, n++)
		safe[n] = (unsigned char)*arg < 0x20 || *arg == 0x7f ? '?' : *arg;
	safe[n] = '\0';
	fputs("ext4sim: ", stderr);
	fprintf(stderr, fmt, safe);
	fputs(" (ext4sim --help for usage)\n", stderr);
	return 2;
}

void note_flag(struct sim_overrides *ov, const char *flag, const char *val)
{
	size_t used = strlen(ov->argv_text);

	snprintf(ov->argv_text + used, sizeof(ov->argv_text) - used, "%s%s%s%s",
		 used ? " " : "", flag, val ? " " : "", val ? val : "");
}

int parse_u32(const char *s, uint32_t *out)
{
	int64_t v;

	if (scn_parse_num(s, &v) < 0 || v <= 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int parse_block_size(const char *v, uint32_t *out)
{
	if (parse_u32(v, out) < 0 || (*out != 1024 && *out != 2048 && *out != 4096))
		return bad_usage("--block-size must be 1024, 2048 or 4096, not '%s'", v);
	return 0;
}

int parse_data_mode(const char *v, enum scn_data_mode *out)
{
	static const char *const modes[] = { "ordered", "writeback", "journal" };

	for (int i = 0; i < 3; i++) {
		if (strcmp(v, modes[i]) == 0) {
			*out = (enum scn_data_mode)i;
			return 0;
		}
	}
	return bad_usage("--data must be ordered, writeback or journal, not '%s'", v);
}

int parse_kernel_name(const char *v)
{
	if (!ext4_profile_find(v))
		return bad_usage("unknown kernel profile '%s' (ext4sim patches lists them)", v);
	return 0;
}

static int flag_block_size(struct cli *c, const char *v)
{
	if (parse_block_size(v, &c->ov.block_size))
		return 2;
	c->ov.has_block_size = true;
	return 0;
}

static int flag_data(struct cli *c, const char *v)
{
	if (parse_data_mode(v, &c->ov.data))
		return 2;
	c->ov.has_data = true;
	return 0;
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
	const char *names[INV_COUNT], *best;

	for (int i = 0; i < INV_COUNT; i++)
		names[i] = chk_inv_info(i)->name;
	best = suggest_closest(v, names, INV_COUNT);
	if (inv < 0 && best) {
		fprintf(stderr, "ext4sim: --fail-on: unknown invariant '%s' (did you mean '%s'?) "
			"(ext4sim --help for usage)\n", v, best);
		return 2;
	}
	if (inv < 0)
		return bad_usage("--fail-on: unknown invariant '%s' (docs/invariants.md lists them)", v);
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

/* --kernel, --disk-blocks and --point. */
static int flag_number_or_name(struct cli *c, enum cmd_flag_id id, const char *v)
{
	if (id == F_KERNEL) {
		if (strlen(v) >= SCN_NAME_MAX)
			return bad_usage("--kernel name too long: '%s'", v);
		c->ov.has_kernel = true;
		strcpy(c->ov.kernel, v);
		return 0;
	}
	if (id == F_DISK_BLOCKS) {
		if (parse_u32(v, &c->ov.disk_blocks) < 0 || c->ov.disk_blocks < SCN_DISK_BLOCKS_MIN ||
		    c->ov.disk_blocks > SCN_DISK_BLOCKS_MAX)
			return bad_usage("--disk-blocks out of range: '%s' (2048 .. 2^24: "
					 SCN_DISK_BLOCKS_WHY ")", v);
		c->ov.has_disk_blocks = true;
		return 0;
	}
	if (parse_u32(v, &c->o.only_point) < 0 || c->o.only_point == 0)
		return bad_usage("--point takes a crash point number from 1, not '%s'", v);
	return 0;
}

/* --crash-bound, --checker-log and --max-bytes. */
static int flag_limits(struct cli *c, enum cmd_flag_id id, const char *v)
{
	static const char *const modes[] = { "summary", "full", "eager" };
	int64_t n;

	if (id == F_CRASH_BOUND) {
		if (scn_parse_num(v, &n) < 0 || n > SCN_CRASH_BOUND_MAX)
			return bad_usage("--crash-bound takes 0 to 16777216, not '%s'", v);
		c->o.crash_bound = (uint64_t)n;
		c->judging.j_set_crash_bound = true;
		return 0;
	}
	if (id == F_CHECKER_LOG) {
		for (uint8_t i = 0; i < 3; i++)
			if (strcmp(v, modes[i]) == 0) {
				c->o.checker_log = i;
				return 0;
			}
		return bad_usage("--checker-log takes summary, full or eager, not '%s'", v);
	}
	if (scn_parse_num(v, &c->o.max_bytes) < 0 || c->o.max_bytes <= 0 ||
	    c->o.max_bytes > SCN_RUN_BYTES_MAX)
		return bad_usage("--max-bytes takes 1 to 16g, not '%s'", v);
	return 0;
}

/* --image, --from-image, --images and --max-image-bytes (sim/blkimage.h). */
static int flag_image(struct cli *c, enum cmd_flag_id id, const char *v)
{
	if (id == F_IMAGE)
		c->o.image = v;
	else if (id == F_FROM_IMAGE)
		c->from_image = v;
	else if (id == F_IMAGES)
		c->images = v;
	else if (scn_parse_num(v, &c->o.max_image_bytes) < 0 || c->o.max_image_bytes <= 0 ||
		 c->o.max_image_bytes > SIM_IMAGE_BYTES_MAX)
		return bad_usage("--max-image-bytes takes 1 to 1t, not '%s'", v);
	else
		c->has_max_image_bytes = true;
	if (!*v)
		return bad_usage("%s needs a file name", id == F_IMAGES ? "--images" : "--image");
	return 0;
}

/* A run flag with a value: 0, 2 after a message, or 1 when @o is none of them. */
static int value_flag(struct cli *c, const struct cmd_opt *o)
{
	switch (o->id) {
	case F_BLOCK_SIZE:
		return flag_block_size(c, o->val);
	case F_DATA:
		return flag_data(c, o->val);
	case F_PATCH:
		return flag_patch(c, o->val);
	case F_FAIL_ON:
		return flag_fail_on(c, o->val);
	case F_KERNEL: case F_DISK_BLOCKS: case F_POINT:
		return flag_number_or_name(c, o->id, o->val);
	case F_KEEP:
		return parse_keep(c, o->val);
	case F_CRASH_BOUND: case F_CHECKER_LOG: case F_MAX_BYTES:
		return flag_limits(c, o->id, o->val);
	case F_DUMP_FILE:
		c->o.dump_file = o->val;
		return 0;
	case F_VARIANT:
		c->o.variant = o->val;
		return 0;
	case F_IMAGE: case F_FROM_IMAGE: case F_IMAGES: case F_MAX_IMAGE_BYTES:
		return flag_image(c, o->id, o->val);
	default:
		return 1;
	}
}

/*
 * The valueless mount flags past --delalloc (dioread and auto_da_alloc, each
 * an on/off pair, the last one given winning) into @ov, noted for the
 * reproduce line; 1 when @o is not one of them (cli.h).
 */
int mount_flag(struct sim_overrides *ov, const struct cmd_opt *o)
{
	switch (o->id) {
	case F_DIOREAD_NOLOCK: case F_DIOREAD_LOCK:
		ov->has_dioread_nolock = true;
		ov->dioread_nolock = o->id == F_DIOREAD_NOLOCK;
		break;
	case F_AUTO_DA_ALLOC: case F_NOAUTO_DA_ALLOC:
		ov->has_auto_da_alloc = true;
		ov->auto_da_alloc = o->id == F_AUTO_DA_ALLOC;
		break;
	default:
		return 1;
	}
	note_flag(ov, o->name, NULL);
	return 0;
}

/* A run flag without a value: 0, or 1 when @o is none of them. */
static int bool_flag(struct cli *c, const struct cmd_opt *o)
{
	switch (o->id) {
	case F_JSON: c->o.json = true; break;
	case F_CRASH_EVERYWHERE: c->o.crash_everywhere = true; break;
	case F_CRASH_REFERENCE: c->o.crash_reference = true; break;
	case F_SUMMARY: c->o.summary = true; break;
	case F_QUIET: c->o.quiet = true; break;
	case F_EVENTS: c->o.events = true; break;
	case F_EXPLAIN: c->o.explain = true; break;
	case F_TIMELINE: c->o.timeline = true; break;
	case F_NOTES: c->o.notes = true; break;
	case F_DELALLOC: case F_NODELALLOC:
		c->ov.has_delalloc = true;
		c->ov.delalloc = o->id == F_DELALLOC;
		note_flag(&c->ov, o->name, NULL);
		break;
	default:
		return mount_flag(&c->ov, o);
	}
	return 0;
}

/* An input, or a -c step. */
static int run_input(struct cli *c, const struct cmd_opt *o)
{
	if (o->id == F_C) {
		if (c->nr_cmds == SCN_STEPS_MAX)
			return bad_usage("too many -c steps%s", "");
		c->cmds[c->nr_cmds++] = o->val;
		return 0;
	}
	if (c->nr_inputs == MAX_INPUTS)
		return bad_usage("too many inputs%s", "");
	c->inputs[c->nr_inputs++] = o->val;
	return 0;
}

int parse_run_args(struct cli *c, int argc, const struct cmd_opt *opts)
{
	for (int i = 0; i < argc; i++) {
		const struct cmd_opt *o = &opts[i];
		int rc;

		if (o->id == F_C || o->id == F_NONE) {
			if ((rc = run_input(c, o)))
				return rc;
			continue;
		}
		if (bool_flag(c, o) == 0)
			continue;
		if ((rc = value_flag(c, o)) == 1)
			return cmd_no_code("run", o);
		if (rc)
			return 2;
		if (o->id != F_DUMP_FILE && o->id != F_VARIANT && o->id != F_FAIL_ON &&
		    o->id != F_IMAGE && o->id != F_IMAGES && o->id != F_MAX_IMAGE_BYTES)
			note_flag(&c->ov, o->name, o->val);
	}
	if (c->has_max_image_bytes && !c->o.image && !c->images)
		return bad_usage("--max-image-bytes bounds the images of --image or --images%s", "");
	if (c->nr_cmds && c->nr_inputs)
		return bad_usage("give scenario files or -c steps, not both%s", "");
	if (!c->nr_cmds && !c->nr_inputs)
		return bad_usage("run needs a scenario file, a directory or -c steps%s", "");
	return 0;
}

int parse_run_argv(struct cli *c, int argc, char **argv)
{
	struct cmd_args a;
	int rc;

	if ((rc = cmd_parse(cmd_find("run"), argc, argv, &a)))
		return rc;
	rc = parse_run_args(c, a.argc, a.opts);
	free(a.opts);
	return rc;
}

/* --- inputs --- */


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

static void free_list(struct input_list *l)
{
	for (unsigned i = 0; i < l->nr; i++)
		free(l->paths[i]);
	free(l->paths);
	memset(l, 0, sizeof(*l));
}

/* The directories being expanded (a symlink back to one of them is a loop). */
struct dir_stack {
	dev_t dev[INPUT_DEPTH_MAX + 1];
	ino_t ino[INPUT_DEPTH_MAX + 1];
};

static int dir_problem(const char *dir, const char *why)
{
	fprintf(stderr, "%s: %s\n", dir, why);
	return 2;
}

/* Add the names in @dir (not hidden ones) to @here, in name order. */
static int read_dir(const char *dir, struct input_list *here)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "%s: cannot read the directory: %s\n", dir, strerror(errno));
		return 2;
	}
	while ((de = readdir(d)) != NULL) {
		char p[4096];

		if (de->d_name[0] == '.')
			continue;
		if (here->nr == INPUT_DIR_FILES_MAX) {
			closedir(d);
			return dir_problem(dir, "more than " STR(INPUT_DIR_FILES_MAX) " entries, the "
					   "most a scenario directory may hold");
		}
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		add_path(here, p);
	}
	closedir(d);
	if (here->nr)
		qsort(here->paths, here->nr, sizeof(*here->paths), cmp_str);
	return 0;
}

/* Add every regular *.yaml under @dir, recursively, in name order. */
static int expand_dir(struct input_list *l, const char *dir, int depth, struct dir_stack *ds)
{
	struct input_list here = { 0 };
	struct stat st;
	int rc = 0;

	if (stat(dir, &st) != 0)
		return dir_problem(dir, strerror(errno));
	for (int k = 0; k < depth; k++)
		if (ds->dev[k] == st.st_dev && ds->ino[k] == st.st_ino)
			return dir_problem(dir, "a directory loop (a symbolic link to a directory "
					   "that contains it)");
	if (depth > INPUT_DEPTH_MAX)
		return dir_problem(dir, "nested deeper than " STR(INPUT_DEPTH_MAX) " directories");
	ds->dev[depth] = st.st_dev;
	ds->ino[depth] = st.st_ino;
	if ((rc = read_dir(dir, &here)))
		goto out;
	for (unsigned i = 0; i < here.nr && rc == 0; i++) {
		if (stat(here.paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = expand_dir(l, here.paths[i], depth + 1, ds);
		else if (is_yaml(here.paths[i]) && l->nr == INPUT_FILES_MAX)
			rc = dir_problem(dir, "more than " STR(INPUT_FILES_MAX) " scenario files in "
					 "all, the most one command takes");
		else if (is_yaml(here.paths[i]))
			add_path(l, here.paths[i]);
	}
out:
	free_list(&here);
	return rc;
}

int expand_inputs(struct cli *c, struct input_list *l)
{
	for (unsigned i = 0; i < c->nr_inputs; i++) {
		struct dir_stack ds;
		struct stat st;
		unsigned before = l->nr;

		if (stat(c->inputs[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (expand_dir(l, c->inputs[i], 0, &ds))
				return 2;
			if (l->nr == before)
				return dir_problem(c->inputs[i], "no *.yaml scenario file in it");
		} else if (l->nr == INPUT_FILES_MAX) {
			return bad_usage("more than " STR(INPUT_FILES_MAX) " scenario files%s", "");
		} else {
			add_path(l, c->inputs[i]);
		}
	}
	return 0;
}

int inline_scenario(struct cli *c, struct scenario *s)
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
			char msg[SCN_ERR_MAX + SCN_STEP_TEXT_MAX + 64];

			snprintf(msg, sizeof(msg), "ext4sim: -c '%.*s': column %u: %s",
				 SCN_STEP_TEXT_MAX, c->cmds[i], col + 1, err);
			scn_clean_message(msg);
			fprintf(stderr, "%s\n", msg);
			return 2;
		}
	}
	s->nr_steps = c->nr_cmds;
	return 0;
}

/* --- running --- */


/*
 * A `crash --keep` step naming a write that is not pending is bad input,
 * known only by running: each variant of a scenario with such a step is
 * run once, quietly and without enumerating crash states, before anything
 * is printed.
 */
static int check_keeps(const struct loaded *ld)
{
	struct sim_options o = { .quiet = true };
	bool any = false;

	for (unsigned i = 0; i < ld->s.nr_steps; i++)
		any |= ld->s.steps[i].s_has_persist;
	for (unsigned v = 0; any && v < ld->nr_cfg; v++) {
		struct sim_variant_result r;
		char err[SCN_ERR_MAX];
		int bad = -1;

		sim_run_variant(&ld->s, &ld->cfg[v], &o, NULL, NULL, &r, err, sizeof(err));
		for (unsigned i = 0; i < ld->s.nr_steps && bad < 0; i++)
			if (ld->s.steps[i].s_has_persist && r.steps[i].err == -EINVAL)
				bad = (int)i;
		if (bad >= 0) {
			const struct scn_step *st = &ld->s.steps[bad];
			const char *k = strstr(st->s_text, "--keep");
			unsigned col = st->s_col + (unsigned)(k ? k - st->s_text : 0);

			if (st->s_line)
				fprintf(stderr, "%s:%u:%u: ", ld->s.path, st->s_line, col);
			else
				fprintf(stderr, "ext4sim: -c '%s': column %u: ", st->s_text, col + 1);
			fprintf(stderr, "crash --keep names a write that is not pending: %u write(s) "
				"are pending at this crash (variant %s)\n", r.steps[bad].pending,
				ld->cfg[v].name);
		}
		sim_variant_result_free(&r, ld->s.nr_steps);
		if (bad >= 0)
			return 2;
	}
	return 0;
}

/* "FILE:LINE:COL: " of step @i of @s, or "ext4sim: -c step N: " for a -c step. */
static void print_step_position(const struct scenario *s, unsigned i)
{
	const struct scn_step *st = &s->steps[i];

	if (st->s_line)
		fprintf(stderr, "%s:%u:%u: ", s->path, st->s_line, st->s_col);
	else
		fprintf(stderr, "ext4sim: -c step %u: ", i + 1);
}

/*
 * The memory this process may use: the physical memory, or less under an
 * address-space or data limit (ulimit -v, ulimit -d); in *@what, which.
 */
static int64_t memory_limit(const char **what)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	int64_t lim = pages > 0 && psize > 0 ? (int64_t)pages * psize : INT64_MAX;
	static const int res[2] = { RLIMIT_AS, RLIMIT_DATA };
	static const char *const names[2] = { "the address-space limit (ulimit -v)",
					      "the data-segment limit (ulimit -d)" };
	struct rlimit rl;

	*what = "the physical memory";
	for (int i = 0; i < 2; i++)
		if (getrlimit(res[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    (uint64_t)rl.rlim_cur < (uint64_t)lim) {
			lim = (int64_t)rl.rlim_cur;
			*what = names[i];
		}
	return lim;
}

/*
 * The memory the run needs (sim_mem_add_step's bound) against what the
 * process may use: refused at the step that passes it, before anything runs,
 * rather than a failed allocation in the middle of the run.
 */
static int check_memory(const struct scenario *s)
{
	struct sim_mem_estimate me = { 0 };
	const char *what;
	int64_t lim = memory_limit(&what), need = 0;

	for (unsigned i = 0; i < s->nr_steps; i++) {
		if ((need = sim_mem_add_step(&me, &s->steps[i])) <= lim)
			continue;
		print_step_position(s, i);
		fprintf(stderr, "this step brings the memory the run needs to about %lld MiB "
			"(%d.%d bytes a byte written), more than the %lld MiB of %s\n",
			(long long)(need >> 20), SIM_MEM_PER_BYTE_X10 / 10,
			SIM_MEM_PER_BYTE_X10 % 10, (long long)(lim >> 20), what);
		return 2;
	}
	return 0;
}

/*
 * The scenario's config: keys of how it is judged, layered under the
 * command line (docs/scenario-format.md, "The file"): --crash-everywhere
 * and --fail-on add to crash_everywhere and fail_on, an explicit
 * --crash-bound wins over crash_bound.  The flags are kept at the first
 * load, so each scenario of a run gets only its own keys.
 */
static void layer_judging(struct cli *c, const struct scn_run_config *rc)
{
	struct cli_judging *j = &c->judging;

	if (!j->j_saved) {
		j->j_saved = true;
		j->j_crash_everywhere = c->o.crash_everywhere;
		j->j_crash_bound = c->o.crash_bound;
		memcpy(j->j_fail_on, c->o.fail_on, sizeof(j->j_fail_on));
	}
	c->o.crash_everywhere = j->j_crash_everywhere ||
				(rc->rc_set_crash_everywhere && rc->rc_crash_everywhere);
	c->o.crash_bound = rc->rc_set_crash_bound && !j->j_set_crash_bound ? rc->rc_crash_bound
									   : j->j_crash_bound;
	memcpy(c->o.fail_on, j->j_fail_on, sizeof(c->o.fail_on));
	for (unsigned i = 0; i < rc->rc_nr_fail_on; i++) {
		int inv = chk_inv_lookup(rc->rc_fail_on[i]);

		SIM_ASSERT(inv >= 0);   /* the loader checked the name */
		c->o.fail_on[inv] = true;
	}
}

/*
 * The work budget: the bytes the steps write and read, summed over the
 * scenario, must stay within --max-bytes (default SCN_RUN_BYTES_DEFAULT),
 * as they bound what the page cache and the device hold; and the memory
 * that comes to must fit.  Refused at the step that passes either, before
 * anything runs.
 */
static int check_budget(const struct cli *c, const struct scenario *s)
{
	int64_t max = c->o.max_bytes ? c->o.max_bytes : SCN_RUN_BYTES_DEFAULT, sum;
	int bad = scn_budget_step(s->steps, s->nr_steps, max, &sum);
	char msg[256];

	if (bad < 0)
		return check_memory(s);
	print_step_position(s, (unsigned)bad);
	scn_budget_message(msg, sizeof(msg), sum, max);
	fprintf(stderr, "%s\n", msg);
	return 2;
}

int load_one(struct cli *c, const char *path, struct loaded *ld)
{
	char err[SCN_ERR_MAX];
	bool found = !c->o.variant;

	if (path && scn_load(path, &ld->s, chk_is_invariant_name, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	layer_judging(c, &ld->s.config.c_run);
	if (check_budget(c, &ld->s))
		return 2;
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
	return check_keeps(ld);
}
