/*
 * export_model.c - what export predicts (docs/real-kernel.md): the model is
 * run on the scenario "as run" (orc_as_run), and once more per read-back
 * point on the steps up to it, for the size and digests of the file a
 * reader sees there.  Outcomes a real ext4 cannot reproduce are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "md5.h"
#include "sha256.h"

/* The steps with a close where an xfs_io process ends (orc_as_run). */
void xp_build_as_run(struct xctx *x)
{
	const struct scenario *s = &x->ld->s;
	struct scn_step *out = sim_zalloc((6 * (size_t)s->nr_steps + 3) * sizeof(*out));

	x->run = *s;
	x->run.steps = out;
	x->run.nr_steps = orc_as_run(s->steps, s->nr_steps, out);
	x->run.nr_expect = 0;
	x->run.has_expect = false;
	x->run.nr_cs_expect = 0;
}

/* The size, SHA-256 and MD5 of the file at @path (which must exist). */
static void digest_file(const char *path, int64_t *size, char sha[65], char md5[33])
{
	uint8_t buf[65536], d[32];
	struct sha256 s;
	struct md5 m;
	FILE *f = fopen(path, "rb");
	size_t n;

	SIM_ASSERT(f != NULL);
	sha256_init(&s);
	md5_init(&m);
	*size = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		sha256_update(&s, buf, n);
		md5_update(&m, buf, n);
		*size += (int64_t)n;
	}
	fclose(f);
	sha256_final(&s, d);
	sha256_hex(d, sha);
	md5_final(&m, d);
	md5_hex(d, md5);
}

/* The bytes of the file after the first @upto steps, into @path. */
static int model_dump(struct xctx *x, uint32_t upto, const char *path)
{
	struct scenario pre = x->run;
	struct sim_options o = { .crash_bound = 0, .quiet = true };
	struct sim_variant_result r;
	char err[SCN_ERR_MAX];
	int rc;

	pre.nr_steps = upto;
	rc = sim_run_variant(&pre, x->cfg, &o, NULL, path, &r, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "%s\n", err);
	sim_variant_result_free(&r, pre.nr_steps);
	return rc;
}

/* The real (not hypothetical) crash point after @step, or NULL. */
static const struct cs_point *crash_point(const struct sim_variant_result *r, uint32_t step)
{
	for (uint32_t i = 0; i < r->nr_points; i++)
		if (r->points[i].step == step && !r->points[i].hypothetical)
			return &r->points[i];
	return NULL;
}

/*
 * Refuse the outcomes a real ext4 cannot show: an mmap store that faults
 * (SIGBUS ends xfs_io), a copy_range or mapping step that fails with more
 * steps after it in its process (xfs_io stops there: checked on 6.18.44)
 * and a step that runs out of space or leaves the delalloc path for want
 * of it (a real layout differs).  Returns 0, or 2 after the message; *crashes counts the crashes.
 */
static int refuse_outcomes(const struct xctx *x, unsigned *crashes)
{
	const struct scenario *s = &x->run;

	*crashes = 0;
	for (uint32_t i = 0; i < s->nr_steps; i++) {
		const struct scn_step *st = &s->steps[i];
		int e = x->r.steps[i].err;

		if ((st->s_op == SCN_MWRITE || st->s_op == SCN_MREAD) && e == -EFAULT)
			return xp_refuse(x, st, "%s (step %u) %s a page past the one holding "
					 "EOF: the kernel sends SIGBUS, which ends xfs_io; keep "
					 "mapped accesses inside the EOF page", scn_op_name(st->s_op),
					 i + 1, st->s_op == SCN_MWRITE ? "stores to" : "loads from");
		if (e && (st->s_op == SCN_COPY_RANGE || st->s_op == SCN_MSYNC ||
			  st->s_op == SCN_MUNMAP || (st->s_op == SCN_MWRITE && x->r.steps[i].bytes == 0)) &&
		    i + 1 < s->nr_steps && orc_in_process(s->steps[i + 1].s_op))
			return xp_refuse(x, st, "%s (step %u) fails (%s) and xfs_io stops at a "
					 "command that fails, skipping the rest of its -c commands; "
					 "end the process after it (close)", scn_op_name(st->s_op),
					 i + 1, strerror(-e));
		if (x->r.steps[i].nonda)
			return xp_refuse(x, st, "step %u leaves the delalloc path because the "
					 "model's %u-block disk is nearly full (ext4_nonda_switch); "
					 "a real ext4 lays blocks out differently, so whether it "
					 "switches cannot be compared", i + 1, x->cfg->opts.disk_blocks);
		if (e == -ENOSPC)
			return xp_refuse(x, st, "step %u runs out of space on the model's %u-block "
					 "disk; a real ext4 lays blocks out differently, so its "
					 "outcome cannot be compared", i + 1, x->cfg->opts.disk_blocks);
		*crashes += xp_is_crash(st->s_op);
	}
	return 0;
}

/*
 * The read-back points, in order: before and after each crash, and the end
 * unless the last step is a crash (its "post" point is the end).  @crashes
 * sizes the array.
 */
static void plan_points(struct xctx *x, unsigned crashes)
{
	const struct scenario *s = &x->run;

	x->pts = sim_zalloc((2 * crashes + 1) * sizeof(*x->pts));
	crashes = 0;
	for (uint32_t i = 0; i <= s->nr_steps; i++) {
		bool end = i == s->nr_steps;

		if (end && i > 0 && xp_is_crash(s->steps[i - 1].s_op))
			break;
		if (!end && !xp_is_crash(s->steps[i].s_op))
			continue;
		if (end) {
			x->pts[x->nr_pts++] = (struct xpoint){ .kind = XP_FINAL, .upto = i };
			break;
		}
		crashes++;
		x->pts[x->nr_pts++] = (struct xpoint){ .kind = XP_PRE, .crash_no = crashes,
						       .upto = i };
		x->pts[x->nr_pts++] = (struct xpoint){ .kind = XP_POST, .crash_no = crashes,
						       .upto = i + 1,
						       .cp = crash_point(&x->r, i + 1) };
	}
}

/*
 * Name each point's file (pre1, post1, ..., final) and refuse a file too
 * large to read back there.  Returns 0, or 2 after the message.
 */
static int name_points(struct xctx *x)
{
	for (unsigned k = 0; k < x->nr_pts; k++) {
		struct xpoint *p = &x->pts[k];
		int64_t size = p->upto ? x->r.steps[p->upto - 1].i_size : 0;

		if (p->kind == XP_FINAL)
			snprintf(p->file, sizeof(p->file), "final");
		else
			snprintf(p->file, sizeof(p->file), "%s%u", p->kind == XP_PRE ? "pre" : "post",
				 p->crash_no);
		if (size > EXPORT_READ_MAX)
			return xp_refuse(x, NULL, "the file is %lld bytes at read-back point %s "
					 "(after step %u): more than the %lld export reads back",
					 (long long)size, p->file, p->upto,
					 (long long)EXPORT_READ_MAX);
	}
	return 0;
}

/*
 * The model's bytes at each point: dumped (kept under --model-dir), their
 * size and digests taken, and for a post point whether the state the run
 * continues from is among the crash point's states.  Returns 0 or 2.
 */
static int read_points(struct xctx *x)
{
	char path[4096];

	for (unsigned k = 0; k < x->nr_pts; k++) {
		struct xpoint *p = &x->pts[k];

		snprintf(path, sizeof(path), "%s/%s", x->model_dir ? x->model_dir : x->tmp_dir,
			 p->file);
		if (model_dump(x, p->upto, path) < 0)
			return 2;
		digest_file(path, &p->size, p->sha, p->md5);
		if (!x->model_dir)
			unlink(path);
		for (uint32_t j = 0; p->cp && j < p->cp->nr_states; j++)
			if (p->cp->states[j].size == p->size &&
			    strcmp(p->cp->states[j].sha256, p->sha) == 0)
				p->cont_listed = true;
	}
	return 0;
}

/*
 * Run the as-run scenario (crash states with their SHA-256), refuse what a
 * real ext4 cannot show, and read every point.  Returns 0, or 2 after a
 * message.
 */
int xp_run_model(struct xctx *x)
{
	struct sim_options o = { .crash_bound = x->c->o.crash_bound, .crash_digest = true,
				 .quiet = true };
	char err[SCN_ERR_MAX];
	unsigned crashes;
	int rc;

	if (sim_run_variant(&x->run, x->cfg, &o, NULL, NULL, &x->r, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	x->have_r = true;
	if ((rc = refuse_outcomes(x, &crashes)))
		return rc;
	plan_points(x, crashes);
	if ((rc = name_points(x)))
		return rc;
	return read_points(x);
}
