/*
 * export.c - ext4sim export: a scenario as a test of a real ext4
 * (docs/real-kernel.md).
 *
 *   ext4sim export [FLAGS] FILE.yaml [--format xfs_io|fstests|yaml] [-o DIR]
 *                  [--model-dir DIR] [--test-number NNN]
 *
 * The steps run with xfs_io on a file of a mounted ext4; a crash is
 * `xfs_io -x -c shutdown` (no log flush), unmount and mount.  What is read
 * back is what the model's verdicts are about: the size and bytes of the file
 * as a reader sees them before each crash, after its remount, and at the end.
 *
 * Each run of steps up to a close, evict, chattr, commit, remount or crash
 * is one xfs_io process, and closing the file is not free (auto_da_alloc,
 * munmap); a real device completes every write at once.  So the model is
 * run on the scenario "as run" (orc_as_run): with a close inserted where
 * an xfs_io process ends, and a wait after each write the model would
 * otherwise leave in flight.  Model-only steps map to the nearest real
 * mechanism (writeback, commit, remount, evict) or are refused with exit 2
 * (pwrite --short, checkpoint, crash --keep); so are steps whose outcome a
 * real ext4 cannot reproduce: an mmap store past the EOF page (SIGBUS ends
 * xfs_io), a step that runs out of space on the model's disk (a real
 * layout differs), and files too large to read back at every point.
 *
 * The model's predictions come from one run of the as-run scenario (crash
 * states with their SHA-256) and one run per read-back point of the steps
 * up to it (its bytes, for the SHA-256 and MD5, and kept under --model-dir
 * for byte-level comparison).
 *
 * This file is the command: its flags, the variant exported, the refusal
 * of model-only steps, and where the outputs go.  The model's run is in
 * export_model.c, the steps as xfs_io commands in export_steps.c, what
 * xfs_io prints for them (the fstests golden output) in export_output.c,
 * each format in export_<format>.c, the scripts' fixed shell text in
 * preambles.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "outfile.h"

/* ------------------------------------------------------------------ */
/* Messages and refusals                                              */
/* ------------------------------------------------------------------ */

/* "FILE:LINE:COL: export: ..." for a step of a file, or the -c form; returns 2. */
int xp_refuse(const struct xctx *x, const struct scn_step *st, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (st && st->s_line)
		fprintf(stderr, "%s:%u:%u: export: %s\n", x->ld->s.path, st->s_line, st->s_col, msg);
	else if (st)
		fprintf(stderr, "ext4sim: export: step '%s': %s\n", st->s_text, msg);
	else
		fprintf(stderr, "%s: export: %s\n", x->ld->s.path, msg);
	return 2;
}

/*
 * xfs_io (6.1's xfsprogs) has no command that submits an AIO and waits for
 * it later: its pwrite is pwrite(2) or pwritev2(2), each waited for.
 */
#define AIO_NOT_EXPORTED(what) \
	what " is model only: xfs_io has no asynchronous write (no io_submit(2) " \
	"command; its pwrite waits for each call), so a real run cannot leave an AIO " \
	"in flight; run the scenario in the model (ext4sim run), or write pwrite -d " \
	"without --aio"

/* Steps no real mechanism reproduces; NULL if @st is fine. */
static const char *model_only(const struct scn_step *st)
{
	switch (st->s_op) {
	case SCN_PWRITE:
		if (st->s_short_copy >= 0)
			return "pwrite --short is model only: no real write(2) can be made to "
			       "fault in its user buffer at a chosen byte";
		if (st->s_aio)
			return AIO_NOT_EXPORTED("pwrite --aio");
		return NULL;
	case SCN_AIO_WAIT:
		return AIO_NOT_EXPORTED("aio_wait");
	case SCN_CHECKPOINT:
		return "checkpoint is model only: the kernel writes the journal home only "
		       "inside a journal flush (unmount, freeze, EXT4_IOC_CHECKPOINT), which "
		       "also commits and writes back, and xfs_io has no command for it; use "
		       "remount";
	case SCN_CRASH:
	case SCN_SHUTDOWN:
		if (st->s_has_persist)
			return "crash --keep picks one crash state, which is model only: a real "
			       "shutdown lets the device finish every write (use crash; "
			       "kernel-check compares the kernel's state with every state the "
			       "model lists)";
		return NULL;
	case SCN_INJECT:
		return "inject is model only: a fault the model arms in its own allocator "
		       "(enospc) or low-space check (nonda); a real kernel has no switch that "
		       "fails the Nth block allocation of one file or takes the nodelalloc "
		       "fallback on a file system with room (fail_make_request fails I/O, not "
		       "allocations); run the scenario in the model (ext4sim run)";
	default:
		return NULL;
	}
}

/* A crash of the file system: a crash or a shutdown step. */
bool xp_is_crash(enum scn_op op)
{
	return op == SCN_CRASH || op == SCN_SHUTDOWN;
}

/* ------------------------------------------------------------------ */
/* The configuration                                                  */
/* ------------------------------------------------------------------ */

/* Set each patch of @p in @oc, a later setting of a name replacing an earlier one. */
static void add_patches(struct orc_config *oc, const struct scn_patch_setting *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;

		while (k < oc->nr_patches && strcmp(oc->patches[k].p_name, p[i].p_name))
			k++;
		if (k == oc->nr_patches) {
			if (oc->nr_patches == SCN_PATCHES_MAX)
				continue;
			oc->nr_patches++;
		}
		oc->patches[k] = p[i];
	}
}

/*
 * The judging keys of the exported YAML: the crash bound where it is not the
 * default and the informational invariants counted, as the export judged
 * the scenario (its config: keys with the flags over them).  A
 * crash_everywhere is not written: the exported test crashes at the crash
 * steps alone (note_judging), and so does the YAML of what it runs.
 */
static void fill_judging(struct scn_run_config *rc, const struct sim_options *o)
{
	rc->rc_set_crash_bound = o->crash_bound != CS_BOUND_DEFAULT;
	rc->rc_crash_bound = o->crash_bound;
	for (int inv = 0; inv < INV_COUNT; inv++) {
		if (!o->fail_on[inv])
			continue;
		SIM_ASSERT(rc->rc_nr_fail_on < SCN_EXPECT_MAX);
		snprintf(rc->rc_fail_on[rc->rc_nr_fail_on++], SCN_NAME_MAX, "%s",
			 chk_inv_info(inv)->name);
	}
}

/*
 * The configuration written to the exported YAML and to the mount options:
 * the variant's mount options and profile, and every patch setting (the
 * scenario's, the variant's, the command line's, each over the last).
 */
static void fill_config(struct xctx *x, const struct scn_variant *v)
{
	const struct ext4_mount_opts *o = &x->cfg->opts;
	struct orc_config *oc = &x->oc;

	memset(oc, 0, sizeof(*oc));
	oc->block_size = o->block_size;
	oc->data = (enum scn_data_mode)o->data;
	oc->delalloc = o->delalloc;
	oc->dioread_nolock = o->dioread_nolock;
	oc->noauto_da_alloc = !o->auto_da_alloc;
	if (o->disk_blocks != 16384)     /* the default is not written */
		oc->disk_blocks = o->disk_blocks;
	snprintf(oc->kernel, sizeof(oc->kernel), "%s", x->cfg->profile->name);
	add_patches(oc, x->ld->s.config.c_patches, x->ld->s.config.c_nr_patches);
	if (v)
		add_patches(oc, v->v_patches, v->v_nr_patches);
	add_patches(oc, x->c->ov.patches, x->c->ov.nr_patches);
	fill_judging(&oc->judging, &x->c->o);
}

/* The number of invariants variant @name is expected to violate, or -1 without an entry. */
static int expected_count(const struct scenario *s, const char *name)
{
	for (unsigned i = 0; i < s->nr_expect; i++)
		if (strcmp(s->expect[i].e_variant, name) == 0)
			return (int)s->expect[i].e_nr;
	return -1;
}

/* The toggles set differently in @a and @b, either way. */
static unsigned toggle_distance(const struct sim_variant_cfg *a, const struct sim_variant_cfg *b)
{
	unsigned n = 0;

	for (unsigned t = 0; t < ext4_toggle_count(); t++)
		n += ext4_toggle_get(&a->sem, ext4_toggle_at(t)) !=
		     ext4_toggle_get(&b->sem, ext4_toggle_at(t));
	return n;
}

/* 1 when configuration @v is a variant with patches: of its own, else 0. */
static unsigned own_patches(const struct loaded *ld, unsigned v)
{
	return v < ld->s.nr_variants && ld->s.variants[v].v_nr_patches > 0;
}

/* The fewest violations a variant of @ld expects, and whether one expects more. */
static int fewest_expected(const struct loaded *ld, bool *more)
{
	int least = -1, most = -1;

	for (unsigned v = 0; v < ld->nr_cfg; v++) {
		int n = expected_count(&ld->s, ld->cfg[v].name);

		if (n < 0)
			continue;
		if (least < 0 || n < least)
			least = n;
		most = SIM_MAX(most, n);
	}
	*more = most > least;
	return least;
}

/*
 * The fixed side: of the variants expecting the fewest violations (none, in a
 * bug scenario), the one nearest (fewest toggles set differently) to a
 * variant expecting more, which goes in *bug; at equal distance a variant
 * without patches of its own, then the earlier.  -1 when no variant expects
 * more than another.
 */
static int fixed_side(const struct loaded *ld, unsigned *bug)
{
	unsigned best = ~0u;
	int pick = -1;
	bool more;
	int least = fewest_expected(ld, &more);

	if (!more)
		return -1;
	for (unsigned f = 0; f < ld->nr_cfg; f++) {
		if (expected_count(&ld->s, ld->cfg[f].name) != least)
			continue;
		for (unsigned b = 0; b < ld->nr_cfg; b++) {
			unsigned n;

			if (expected_count(&ld->s, ld->cfg[b].name) <= least)
				continue;
			n = 2 * toggle_distance(&ld->cfg[f], &ld->cfg[b]) + own_patches(ld, f);
			if (n < best) {
				best = n;
				pick = (int)f;
				*bug = b;
			}
		}
	}
	return pick;
}

/*
 * Without a fixed side: the variant nearest (fewest toggles set differently)
 * to the kernel the export is for (--kernel, else the default profile,
 * today's kernel), of those whose kernel is not newer than it when there are
 * any; at equal distance one without patches of its own, then the earlier.
 * (With --kernel every variant runs that profile, and a variant that turns
 * its toggles off would predict another kernel than the one under test.)
 */
static unsigned current_side(const struct loaded *ld, const struct sim_overrides *ov)
{
	const struct ext4_profile *dflt = ov->has_kernel ? ext4_profile_find(ov->kernel) : NULL;
	unsigned best = ~0u, pick = 0;

	if (!dflt)
		dflt = ext4_profile_default();

	for (unsigned v = 0; v < ld->nr_cfg; v++) {
		unsigned n = 0;

		for (unsigned t = 0; t < ext4_toggle_count(); t++)
			n += ext4_toggle_get(&ld->cfg[v].sem, ext4_toggle_at(t)) !=
			     ext4_profile_has(dflt, t);
		n = 2 * n + own_patches(ld, v) +
		    (ext4_profile_version(ld->cfg[v].profile) > ext4_profile_version(dflt)) * 4096;
		if (n < best) {
			best = n;
			pick = v;
		}
	}
	return pick;
}

/*
 * The variant to export: --variant; else the fixed side of a bug scenario
 * (its golden output then records the fix; x->bug_cfg is the failing
 * variant it is nearest to); else the one of today's kernel.
 */
static int choose_variant(struct xctx *x, const struct scn_variant **vout)
{
	const struct scenario *s = &x->ld->s;
	unsigned pick = 0, bug = 0;
	int fixed = fixed_side(x->ld, &bug);

	*vout = NULL;
	if (x->c->o.variant) {
		for (pick = 0; pick < x->ld->nr_cfg; pick++)
			if (strcmp(x->ld->cfg[pick].name, x->c->o.variant) == 0)
				break;
	} else if (s->nr_variants > 1 && fixed >= 0) {
		pick = (unsigned)fixed;
	} else if (s->nr_variants > 1) {
		pick = current_side(x->ld, &x->c->ov);
	}
	SIM_ASSERT(pick < x->ld->nr_cfg);
	x->cfg = &x->ld->cfg[pick];
	if (fixed >= 0 && pick == (unsigned)fixed)
		x->bug_cfg = &x->ld->cfg[bug];
	if (s->nr_variants)
		*vout = &s->variants[pick];
	return 0;
}

/* ------------------------------------------------------------------ */
/* The command                                                        */
/* ------------------------------------------------------------------ */

/* Create DIR/NAME's temporary (executable for a script); 0, or 2 after a message. */
static int open_out(const char *dir, const char *name, bool exec, struct outfile *o)
{
	char path[OUTFILE_PATH_MAX], err[OUTFILE_PATH_MAX + 128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (outfile_open(o, path, exec, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "%s\n", err);
	return 2;
}

/*
 * Open where the outputs go under -o DIR: the test and its golden output
 * (fstests, two files), or one NAME.sh or NAME.yaml.  Returns how many, or
 * -1 after a message with nothing left behind.
 */
static int open_outputs(const struct xctx *x, struct outfile o[2])
{
	char name[SCN_NAME_MAX + 16];

	if (x->fmt != XF_FSTESTS) {
		snprintf(name, sizeof(name), "%s.%s", x->ld->s.name,
			 x->fmt == XF_YAML ? "yaml" : "sh");
		return open_out(x->out_dir, name, x->fmt == XF_XFS_IO, &o[0]) ? -1 : 1;
	}
	snprintf(name, sizeof(name), "%s.out", x->test_number);
	if (open_out(x->out_dir, x->test_number, true, &o[0]))
		return -1;
	if (open_out(x->out_dir, name, false, &o[1])) {
		outfile_abort(&o[0]);
		return -1;
	}
	return 2;
}

/* The fstests test and its golden output on stdout, each after a "==> NAME <==" line. */
static void fstests_to_stdout(const struct xctx *x)
{
	FILE *g = tmpfile();
	char buf[4096];
	size_t n;

	SIM_ASSERT(g != NULL);
	printf("==> %s <==\n", x->test_number);
	xp_write_fstests(stdout, g, x);
	printf("==> %s.out <==\n", x->test_number);
	rewind(g);
	while ((n = fread(buf, 1, sizeof(buf), g)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(g);
}

/* The chosen format into @a (and, for fstests, the golden output into @b). */
static void write_format(const struct xctx *x, FILE *a, FILE *b)
{
	switch (x->fmt) {
	case XF_XFS_IO:
		xp_write_xfs_io(a, x);
		break;
	case XF_YAML:
		xp_write_yaml(a, x);
		break;
	case XF_FSTESTS:
		if (!x->out_dir)
			fstests_to_stdout(x);
		else
			xp_write_fstests(a, b, x);
		break;
	}
}

/*
 * Rename the files under -o DIR into place, each only when all of them were
 * written: returns 2 after a message if a write failed (nothing is left).
 */
static int close_outputs(struct outfile *o, int n)
{
	char err[OUTFILE_PATH_MAX + 128];
	bool ok = true;

	for (int i = 0; i < n; i++)
		ok = ok && fflush(o[i].f) == 0 && !ferror(o[i].f);
	for (int i = 0; i < n; i++) {
		if (ok && outfile_commit(&o[i], err, sizeof(err)) == 0)
			continue;
		if (ok)
			fprintf(stderr, "%s\n", err);
		else if (i == 0)
			fprintf(stderr, "ext4sim: export: cannot write %s\n", o[i].path);
		if (ok && i == 1)
			unlink(o[0].path);
		if (!ok)
			outfile_abort(&o[i]);
		ok = false;
	}
	return ok ? 0 : 2;
}

/* --model-dir's scenario.yaml: the as-run steps the model's dumps come from. */
static int write_model_yaml(const struct xctx *x)
{
	struct outfile y;

	if (open_out(x->model_dir, "scenario.yaml", false, &y))
		return 2;
	xp_write_yaml(y.f, x);
	return close_outputs(&y, 1);
}

/* Every output: the format to -o DIR or stdout, then --model-dir's scenario. */
static int write_outputs(struct xctx *x)
{
	struct outfile o[2];
	int rc = 0, n = 0;

	if (x->out_dir && (n = open_outputs(x, o)) < 0)
		return 2;
	write_format(x, n ? o[0].f : stdout, n == 2 ? o[1].f : n ? o[0].f : stdout);
	if (n)
		rc = close_outputs(o, n);
	if (x->model_dir && !rc)
		rc = write_model_yaml(x);
	return rc;
}

/* An fstests test name: three digits, then optionally [a-z0-9-]. */
static bool valid_test_number(const char *t)
{
	size_t n = strlen(t);

	if (n < 3 || n >= SCN_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (i < 3 ? !(t[i] >= '0' && t[i] <= '9')
			  : !((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= '0' && t[i] <= '9') ||
			      t[i] == '-'))
			return false;
	return true;
}

/* --format's value into @x: 0, or 2 after the message. */
static int export_format(struct xctx *x, const char *v)
{
	if (strcmp(v, "xfs_io") == 0)
		x->fmt = XF_XFS_IO;
	else if (strcmp(v, "fstests") == 0)
		x->fmt = XF_FSTESTS;
	else if (strcmp(v, "yaml") == 0)
		x->fmt = XF_YAML;
	else
		return bad_usage("--format takes xfs_io, fstests or yaml, not '%s'", v);
	return 0;
}

/* export's own flags out of @opts (compacted to *@nrest); the rest left for parse_run_args. */
static int export_flags(struct xctx *x, int argc, struct cmd_opt *opts, int *nrest)
{
	int rc = 0;

	*nrest = 0;
	for (int i = 0; i < argc && rc == 0; i++) {
		const char *v = opts[i].val;

		switch (opts[i].id) {
		case F_FORMAT:
			rc = export_format(x, v);
			break;
		case F_O:
			x->out_dir = v;
			break;
		case F_MODEL_DIR:
			x->model_dir = v;
			break;
		case F_COPYRIGHT_YEAR:
			if (strlen(v) != 4 || strspn(v, "0123456789") != 4)
				return bad_usage("--copyright-year takes a year of four digits, "
						 "not '%s'", v);
			x->copyright_year = v;
			break;
		case F_TEST_NUMBER:
			if (!valid_test_number(v))
				return bad_usage("--test-number takes an fstests test name (NNN or "
						 "NNN-name), not '%s'", v);
			x->test_number = v;
			break;
		default:
			opts[(*nrest)++] = opts[i];
		}
	}
	return rc;
}

/* A directory given to @flag must exist: 0, or the usage error. */
static int check_dir(const char *flag, const char *dir)
{
	struct stat st;

	if (!dir)
		return 0;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return bad_usage("%s: no such directory", flag);
	return 0;
}

/*
 * Note whether the scenario has a namespace step (open, creat, mkdir, ...,
 * fsync PATH): its script and its fstests test then read the whole tree at
 * each point.  Extended attributes are refused but in the fstests test
 * (setfattr, and getfattr in its lister).
 * Returns 0, or 2 after the message.
 */
static int refuse_namespace(struct xctx *x)
{
	for (uint32_t i = 0; i < x->ld->s.nr_steps; i++) {
		const struct scn_step *st = &x->ld->s.steps[i];

		if (!scn_step_is_namespace(st))
			continue;
		x->ns = true;
		if ((st->s_op == SCN_SETXATTR || st->s_op == SCN_REMOVEXATTR) &&
		    x->fmt == XF_XFS_IO)
			return xp_refuse(x, st, "%s: export writes extended attributes in the "
					 "fstests test only (--format fstests: setfattr, getfattr); "
					 "the script's tree lister reads no attribute",
					 scn_op_name(st->s_op));
	}
	return 0;
}

/* Refuse the first model-only step of the scenario: returns 0, or 2 after the message. */
static int refuse_model_only(struct xctx *x)
{
	for (uint32_t i = 0; i < x->ld->s.nr_steps; i++) {
		const char *why = model_only(&x->ld->s.steps[i]);

		if (why)
			return xp_refuse(x, &x->ld->s.steps[i], "%s", why);
	}
	return refuse_namespace(x);
}

/*
 * Say (on stderr; the export goes on) what of the scenario's judging a real
 * kernel cannot do: a crash judged inside every step (config:
 * crash_everywhere, or --crash-everywhere) is the model's, for a real
 * kernel crashes only where the script stops it, at the crash steps.
 */
static void note_judging(const struct xctx *x)
{
	if (!x->c->o.crash_everywhere)
		return;
	fprintf(stderr, "%s: export: note: crash_everywhere is model only: a real kernel "
		"cannot be stopped before each flush and FUA write inside a step, so the "
		"exported test crashes at the scenario's crash steps alone, and a finding seen "
		"only at a crash inside a step is not in it (a crash step after the step tests "
		"the state it leaves)\n", x->c->nr_cmds ? "ext4sim" : x->ld->s.path);
}

/* A directory for the model's dumps when --model-dir keeps none; 0 or 2. */
static int make_tmp_dir(struct xctx *x)
{
	const char *t = getenv("TMPDIR");

	snprintf(x->tmp_dir, sizeof(x->tmp_dir), "%s/ext4sim-export.XXXXXX",
		 t && t[0] ? t : "/tmp");
	if (!mkdtemp(x->tmp_dir)) {
		fprintf(stderr, "ext4sim: export: cannot create %s: %s\n", x->tmp_dir,
			strerror(errno));
		return 2;
	}
	return 0;
}

/* The flags and arguments, and the scenario loaded: 0, or the exit code. */
static int export_setup(struct xctx *x, int argc, struct cmd_opt *opts)
{
	int nrest, rc;

	if ((rc = export_flags(x, argc, opts, &nrest)) ||
	    (rc = parse_run_args(x->c, nrest, opts)))
		return rc;
	if ((rc = check_dir("-o", x->out_dir)) || (rc = check_dir("--model-dir", x->model_dir)))
		return rc;
	if (x->c->nr_inputs > 1)
		return bad_usage("export takes one scenario file or -c steps%s", "");
	if (x->c->nr_cmds && (rc = inline_scenario(x->c, &x->ld->s)))
		return rc;
	return load_one(x->c, x->c->nr_cmds ? NULL : x->c->inputs[0], x->ld);
}

/*
 * The exported test crashes with xfs_io's `shutdown`; a kernel before
 * 783d94854499 (4.11, toggle shutdown_ioctl) has no such ioctl for ext4, so
 * the test cannot crash there: say so on stderr (the outputs are written).
 */
static void warn_no_shutdown(const struct xctx *x)
{
	bool crashes = false;

	for (uint32_t i = 0; i < x->run.nr_steps; i++)
		crashes |= xp_is_crash(x->run.steps[i].s_op);
	if (!crashes || x->cfg->sem.shutdown_ioctl)
		return;
	fprintf(stderr, "ext4sim: export: warning: variant %s's kernel (%s) has no shutdown "
		"ioctl for ext4 (toggle shutdown_ioctl, 4.11): the test's crashes are xfs_io "
		"`shutdown`, which that kernel refuses with ENOTTY; run it on 4.11 or later\n",
		x->cfg->name, x->cfg->profile->name);
}

/* Choose the variant, refuse model-only steps, run the model and write. */
static int export_run(struct xctx *x)
{
	const struct scn_variant *v;
	int rc;

	choose_variant(x, &v);
	fill_config(x, v);
	if ((rc = refuse_model_only(x)))
		return rc;
	note_judging(x);
	xp_build_as_run(x);
	if (!x->model_dir && (rc = make_tmp_dir(x)))
		return rc;
	rc = xp_run_model(x);
	if (!x->model_dir)
		rmdir(x->tmp_dir);
	if (!rc && x->fmt == XF_FSTESTS)
		rc = xp_check_io_output(x);
	if (!rc)
		rc = write_outputs(x);
	if (!rc && !x->ns)      /* the namespace script reads trees, not one file's bytes */
		xp_warn_indistinct(x);
	if (!rc)
		warn_no_shutdown(x);
	return rc;
}

int cmd_export(int argc, struct cmd_opt *opts)
{
	struct xctx *x = sim_zalloc(sizeof(*x));
	int rc;

	x->c = sim_zalloc(sizeof(*x->c));
	x->ld = sim_zalloc(sizeof(*x->ld));
	x->c->o.crash_bound = CS_BOUND_DEFAULT;
	x->test_number = "999";
	x->copyright_year = ORC_COPYRIGHT_YEAR;
	rc = export_setup(x, argc, opts);
	if (!rc)
		rc = export_run(x);
	if (x->have_r)
		sim_variant_result_free(&x->r, x->run.nr_steps);
	free(x->run.steps);
	for (unsigned k = 0; k < x->nr_pts; k++) {
		free(x->pts[k].ns);
		free(x->pts[k].md5s);
	}
	free(x->pts);
	scn_free(&x->ld->s);
	free(x->ld);
	free(x->c);
	free(x);
	return rc;
}
