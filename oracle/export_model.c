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

/* The namespace (nsnap_text) after the first @upto steps, in a new string. */
char *xp_model_namespace(const struct xctx *x, uint32_t upto)
{
	struct scenario pre = x->run;
	struct sim_options o = { .crash_bound = 0, .quiet = true, .final_ns = true };
	struct sim_variant_result r;
	char err[SCN_ERR_MAX], *ns;

	pre.nr_steps = upto;
	SIM_ASSERT(sim_run_variant(&pre, x->cfg, &o, NULL, NULL, &r, err, sizeof(err)) == 0);
	ns = r.final_ns;
	r.final_ns = NULL;
	SIM_ASSERT(ns != NULL);
	sim_variant_result_free(&r, pre.nr_steps);
	return ns;
}

/*
 * The MD5 of the regular file at @path after the first @upto steps: the
 * steps, then a close and an open of @path (the model's current file is
 * what it dumps), dumped to @tmp.  Returns 0, or -1 after a message.
 */
static int model_md5_of(struct xctx *x, uint32_t upto, const char *path, const char *tmp,
			char md5[33])
{
	struct scenario pre = x->run;
	struct sim_options o = { .crash_bound = 0, .quiet = true };
	struct sim_variant_result r;
	char err[SCN_ERR_MAX], sha[65];
	int64_t size;
	int rc;

	pre.steps = sim_zalloc((upto + 2) * sizeof(*pre.steps));
	memcpy(pre.steps, x->run.steps, upto * sizeof(*pre.steps));
	orc_make_step(&pre.steps[upto], "close");
	orc_make_step(&pre.steps[upto + 1], "open %s", path);
	pre.nr_steps = upto + 2;
	rc = sim_run_variant(&pre, x->cfg, &o, NULL, tmp, &r, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "%s\n", err);
	else
		digest_file(tmp, &size, sha, md5);
	unlink(tmp);
	sim_variant_result_free(&r, pre.nr_steps);
	free(pre.steps);
	return rc;
}

/*
 * Each regular file's "PATH MD5" line of namespace @ns (nsnap_text) after
 * the first @upto steps, in a new string (*@out); 0, or 2 after a message.
 */
static int model_md5s(struct xctx *x, uint32_t upto, const char *ns, char **out)
{
	size_t cap = strlen(ns) + 1, used = 0;
	char path[4096], name[SCN_PATH_MAX + 1], type[8], md5[33];

	*out = sim_zalloc(cap);
	snprintf(path, sizeof(path), "%s/md5", x->model_dir ? x->model_dir : x->tmp_dir);
	for (const char *l = ns; *l; l = strchr(l, '\n') + 1) {
		SIM_ASSERT(strchr(l, '\n') != NULL);
		if (*l != '/' || sscanf(l, "%256s %7s", name, type) != 2 || strcmp(type, "reg"))
			continue;
		if (model_md5_of(x, upto, name, path, md5) < 0)
			return 2;
		/* "PATH MD5\n" is shorter than the line it comes from (ino, nlink, size, hash) */
		used += (size_t)snprintf(*out + used, cap - used, "%s %s\n", name, md5);
		SIM_ASSERT(used < cap);
	}
	return 0;
}

/*
 * fstests, namespace: every point's tree, and the MD5s of the points the
 * golden output lists (before a crash, at the end, and after a crash whose
 * one state is the tree the run continues from).  Returns 0 or 2.
 */
static int read_ns_points(struct xctx *x)
{
	for (unsigned k = 0; k < x->nr_pts; k++) {
		struct xpoint *p = &x->pts[k];
		bool listed = p->kind != XP_POST;

		if (!p->ns)
			p->ns = xp_model_namespace(x, p->upto);
		if (!listed && p->cp && p->cp->nr_states == 1 && p->cp->states[0].ns) {
			char *a = xp_ns_check_form(p->ns), *b = xp_ns_check_form(p->cp->states[0].ns);

			listed = strcmp(a, b) == 0;
			free(a);
			free(b);
		}
		if (listed && model_md5s(x, p->upto, p->ns, &p->md5s))
			return 2;
	}
	return 0;
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
		    i + 1 < s->nr_steps && orc_step_in_process(&s->steps[i + 1]))
			return xp_refuse(x, st, "%s (step %u) fails (%s) and xfs_io stops at a "
					 "command that fails, skipping the rest of its -c commands; "
					 "end the process after it (close)", scn_op_name(st->s_op),
					 i + 1, strerror(-e));
		if (x->r.steps[i].nonda)
			return xp_refuse(x, st, "step %u leaves the delalloc path because the "
					 "model's %u-block disk is nearly full (ext4_nonda_switch); "
					 "a real ext4 lays blocks out differently, so whether it "
					 "switches cannot be compared", i + 1, x->cfg->opts.disk_blocks);
		/* a setxattr's ENOSPC is its inode's attribute space (the inode's body
		 * and one block), the same on any layout */
		if (e == -ENOSPC && st->s_op != SCN_SETXATTR)
			return xp_refuse(x, st, "step %u runs out of space on the model's %u-block "
					 "disk; a real ext4 lays blocks out differently, so its "
					 "outcome cannot be compared", i + 1, x->cfg->opts.disk_blocks);
		*crashes += xp_is_crash(st->s_op);
	}
	return 0;
}

/* Does path @p name @cur or a directory above it (textually)? */
static bool names_path(const char *cur, const char *p)
{
	size_t n = strlen(p);

	return strncmp(cur, p, n) == 0 && (cur[n] == '\0' || cur[n] == '/');
}

/* Did step @st (which succeeded) take the name @cur away from its inode? */
static bool moves_name(const struct scn_step *st, const char *cur)
{
	switch (st->s_op) {
	case SCN_UNLINK: case SCN_RMDIR:
		return names_path(cur, st->s_path);
	case SCN_RENAME:
		return names_path(cur, st->s_path) || names_path(cur, st->s_path2);
	default:
		return false;
	}
}

/*
 * Refuse what the namespace script cannot run as the model does: each
 * xfs_io process opens the current file by the name its open step gave
 * (/f at first), so an open that fails in the model (whose data steps then
 * stay on the file before) and a step on the current file after a step
 * took that name from it (unlink, rmdir, rename of it or of a directory
 * above it) cannot be compared.  Returns 0, or 2 after the message.
 */
static int refuse_ns_outcomes(const struct xctx *x)
{
	const struct scenario *s = &x->run;
	const char *cur = "/f";
	uint32_t moved = 0;

	for (uint32_t i = 0; x->ns && i < s->nr_steps; i++) {
		const struct scn_step *st = &s->steps[i];
		int e = x->r.steps[i].err;

		if (st->s_op == SCN_OPEN && e)
			return xp_refuse(x, st, "open (step %u) fails (%s) in the model, whose data "
					 "steps stay on the file before; the script's next xfs_io "
					 "process would have none", i + 1, strerror(-e));
		if (st->s_op == SCN_OPEN) {
			cur = st->s_path;
			moved = 0;
		} else if (!e && scn_step_is_namespace(st) && moves_name(st, cur)) {
			moved = i + 1;
		} else if (moved && orc_step_in_process(st) && st->s_op != SCN_CLOSE) {
			return xp_refuse(x, st, "%s (step %u) works on the current file, whose name "
					 "%s step %u took: the script opens the current file by "
					 "name in each xfs_io process; open it again first (open "
					 "PATH)", scn_op_name(st->s_op), i + 1, cur, moved);
		}
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
		if (x->ns && p->kind != XP_POST) {
			p->ns = xp_model_namespace(x, p->upto);
			continue;
		}
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
	if ((rc = refuse_outcomes(x, &crashes)) || (rc = refuse_ns_outcomes(x)))
		return rc;
	plan_points(x, crashes);
	if ((rc = name_points(x)) || (rc = read_points(x)))
		return rc;
	return x->ns && x->fmt == XF_FSTESTS ? read_ns_points(x) : 0;
}

/*
 * The content digest (content.h) of the file after the first @upto steps of
 * the as-run scenario under @cfg: what a read-back point of the exported
 * test would see there, in a form two configurations compare by.
 */
static void point_digest(const struct xctx *x, const struct sim_variant_cfg *cfg, uint32_t upto,
			 char out[65])
{
	struct scenario pre = x->run;
	struct sim_options o = { .crash_bound = 0, .quiet = true, .final_digest = true };
	struct sim_variant_result r;
	char err[SCN_ERR_MAX];

	pre.nr_steps = upto;
	SIM_ASSERT(sim_run_variant(&pre, cfg, &o, NULL, NULL, &r, err, sizeof(err)) == 0);
	memcpy(out, r.final_content.sha256, 65);
	sim_variant_result_free(&r, pre.nr_steps);
}

/* Does every read-back point read the same under @a and @b? */
static bool same_read_back(const struct xctx *x, const struct sim_variant_cfg *a,
			   const struct sim_variant_cfg *b)
{
	for (unsigned k = 0; k < x->nr_pts; k++) {
		char da[65], db[65];

		point_digest(x, a, x->pts[k].upto, da);
		point_digest(x, b, x->pts[k].upto, db);
		if (strcmp(da, db))
			return false;
	}
	return true;
}

/* The toggles set differently in @a and @b, "NAME on|off" as @a has it, into @out. */
static void toggles_apart(const struct sim_variant_cfg *a, const struct sim_variant_cfg *b,
			  char *out, size_t cap)
{
	size_t n = 0;

	out[0] = 0;
	for (unsigned t = 0; t < ext4_toggle_count() && n < cap; t++) {
		const struct ext4_toggle *tg = ext4_toggle_at(t);
		bool on = ext4_toggle_get(&a->sem, tg);

		if (on != ext4_toggle_get(&b->sem, tg))
			n += (size_t)snprintf(out + n, cap - n, "%s%s %s", n ? ", " : "", tg->name,
					      on ? "on" : "off");
	}
}

/* The number of toggles set differently in @a and @b. */
static unsigned toggles_distance(const struct sim_variant_cfg *a, const struct sim_variant_cfg *b)
{
	unsigned n = 0;

	for (unsigned t = 0; t < ext4_toggle_count(); t++)
		n += ext4_toggle_get(&a->sem, ext4_toggle_at(t)) !=
		     ext4_toggle_get(&b->sem, ext4_toggle_at(t));
	return n;
}

/*
 * The other side of the test: the failing variant a bug scenario's fixed
 * side is exported against, else the variant nearest the exported one
 * (fewest toggles set differently, at least one; the earlier at equal
 * distance); NULL when every variant has the exported toggles.
 */
static const struct sim_variant_cfg *other_side(const struct xctx *x)
{
	const struct sim_variant_cfg *best = x->bug_cfg;
	unsigned dist = ~0u;

	for (unsigned v = 0; !x->bug_cfg && v < x->ld->nr_cfg; v++) {
		unsigned n = toggles_distance(&x->ld->cfg[v], x->cfg);

		if (n > 0 && n < dist) {
			dist = n;
			best = &x->ld->cfg[v];
		}
	}
	return best;
}

/* Does @p list every state of @q (size and SHA-256)? */
static bool states_within(const struct cs_point *p, const struct cs_point *q)
{
	for (uint32_t i = 0; i < q->nr_states; i++) {
		bool found = false;

		for (uint32_t j = 0; j < p->nr_states && !found; j++)
			found = p->states[j].size == q->states[i].size &&
				strcmp(p->states[j].sha256, q->states[i].sha256) == 0;
		if (!found)
			return false;
	}
	return true;
}

/* The as-run scenario's crash states under @cfg, with @everywhere a crash judged at every place. */
static void run_states(const struct xctx *x, const struct sim_variant_cfg *cfg, bool everywhere,
		       struct sim_variant_result *r)
{
	struct sim_options o = { .crash_bound = x->c->o.crash_bound, .crash_digest = true,
				 .quiet = true, .crash_everywhere = everywhere };
	char err[SCN_ERR_MAX];

	SIM_ASSERT(sim_run_variant(&x->run, cfg, &o, NULL, NULL, r, err, sizeof(err)) == 0);
}

/*
 * Do the crash states of the as-run scenario under @a and @b differ: at
 * its crash steps (@everywhere false), or at any place a crash can be
 * judged, after or inside a step (true)?
 */
static bool crash_states_differ(const struct xctx *x, const struct sim_variant_cfg *a,
				const struct sim_variant_cfg *b, bool everywhere)
{
	struct sim_variant_result ra, rb;
	bool same;

	run_states(x, a, everywhere, &ra);
	run_states(x, b, everywhere, &rb);
	same = ra.nr_points == rb.nr_points;
	for (uint32_t i = 0; same && i < ra.nr_points; i++)
		same = ra.points[i].step == rb.points[i].step &&
		       ra.points[i].within == rb.points[i].within &&
		       states_within(&ra.points[i], &rb.points[i]) &&
		       states_within(&rb.points[i], &ra.points[i]);
	sim_variant_result_free(&ra, x->run.nr_steps);
	sim_variant_result_free(&rb, x->run.nr_steps);
	return !same;
}

/* What would tell the two apart, ending the warning's line. */
static void print_what_would(const struct xctx *x, const struct sim_variant_cfg *other)
{
	const char *path = strcmp(x->ld->s.path, "-c") ? x->ld->s.path : "FILE.yaml";

	if (crash_states_differ(x, x->cfg, other, false))
		fprintf(stderr, "a power-cut test can, as their crash states differ: "
			"scripts/kernel-powercut %s (the write-log campaign, make "
			"kernel-check-powercut; docs/real-kernel.md, \"Power cuts\")\n", path);
	else if (crash_states_differ(x, x->cfg, other, true))
		fprintf(stderr, "their crash states differ only where the scenario has no crash "
			"step (after or inside a step: ext4sim diff --crash-everywhere %s shows "
			"where), and the write-log campaign cuts power at crash steps: a power-cut "
			"test of the scenario with a crash step there can (scripts/kernel-powercut, "
			"make kernel-check-powercut; docs/real-kernel.md, \"Power cuts\")\n", path);
	else
		fprintf(stderr, "nor would a power cut: the crash states the model lists are the "
			"same too, after and inside every step (ext4sim diff shows what differs)\n");
}

void xp_warn_indistinct(const struct xctx *x)
{
	const struct sim_variant_cfg *them = other_side(x);
	struct sim_variant_cfg other;
	char apart[2048];

	if (!them)
		return;
	other = *x->cfg;
	other.sem = them->sem;                  /* its toggles on the exported mount options */
	if (!same_read_back(x, x->cfg, &other))
		return;
	toggles_apart(them, x->cfg, apart, sizeof(apart));
	fprintf(stderr, "ext4sim: export: warning: variant %s's toggles (%s) give the same output "
		"as the exported variant %s's at every read-back point: the test cannot tell them "
		"apart (a shutdown completes every write, so a change in what reaches the disk "
		"when, as an ordering change, leaves the same file); ", them->name, apart,
		x->cfg->name);
	print_what_would(x, &other);
}
