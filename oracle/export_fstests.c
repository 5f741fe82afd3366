/*
 * export_fstests.c - export --format fstests: an fstests test (tests/ext4
 * style, scratch device, the layout of fstests' `new` script) that runs the
 * scenario with $XFS_IO_PROG and a golden output holding the model's
 * prediction: what xfs_io prints, its errors included (export_output.c),
 * and at each read-back point the size and MD5 of the file, or, after a
 * crash where the model lists several states, that the file is one of them.
 * The header says what the test checks; the test defines only the helpers
 * its steps call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

static bool uses(const struct scenario *s, enum scn_op op)
{
	for (uint32_t i = 0; i < s->nr_steps; i++)
		if (s->steps[i].s_op == op)
			return true;
	return false;
}

/* An extended-attribute step among the steps. */
static bool uses_xattrs(const struct scenario *s)
{
	return uses(s, SCN_SETXATTR) || uses(s, SCN_REMOVEXATTR);
}

/* A crash of the file system among the steps (a shutdown without or with a log flush). */
static bool crashes(const struct scenario *s)
{
	return uses(s, SCN_CRASH) || uses(s, SCN_SHUTDOWN);
}

/*
 * fstests groups (doc/group-names.txt): auto quick rw; shutdown and log
 * with a crash; one per kind of operation used (copy_range for
 * copy_file_range, mmap for every mapping step, remount).
 */
static void print_groups(FILE *out, const struct xctx *x)
{
	static const struct { enum scn_op op; const char *group; } g[] = {
		{ SCN_FALLOC, "prealloc" }, { SCN_FPUNCH, "punch" }, { SCN_FZERO, "zero" },
		{ SCN_FCOLLAPSE, "collapse" }, { SCN_FINSERT, "insert" }, { SCN_MWRITE, "mmap" },
		{ SCN_MMAP, "mmap" }, { SCN_MSYNC, "mmap" }, { SCN_MUNMAP, "mmap" },
		{ SCN_COPY_RANGE, "copy_range" }, { SCN_REMOUNT, "remount" },
	};
	const struct scenario *s = &x->run;
	const char *done[sizeof(g) / sizeof(g[0])];
	unsigned nd = 0;

	fprintf(out, "_begin_fstest auto quick%s rw", crashes(s) ? " shutdown log" : "");
	if (x->ns)      /* a namespace test: metadata; dir, rename for those steps */
		fprintf(out, " metadata%s%s%s", uses(s, SCN_MKDIR) || uses(s, SCN_RMDIR) ? " dir" : "",
			uses(s, SCN_RENAME) ? " rename" : "", uses_xattrs(s) ? " attr" : "");
	for (unsigned k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		bool seen = false;

		for (unsigned j = 0; j < nd; j++)
			seen |= strcmp(done[j], g[k].group) == 0;
		if (seen || !uses(s, g[k].op))
			continue;
		done[nd++] = g[k].group;
		fprintf(out, " %s", g[k].group);
	}
	fputc('\n', out);
}

/* _require_xfs_io_command with the flags: falloc -k, fzero -k, copy_range. */
static void print_flag_requires(FILE *out, const struct scenario *s)
{
	bool fk = false, zk = false, cr = false;

	for (uint32_t i = 0; i < s->nr_steps; i++) {
		fk |= s->steps[i].s_op == SCN_FALLOC && s->steps[i].s_keep_size;
		zk |= s->steps[i].s_op == SCN_FZERO && s->steps[i].s_keep_size;
		cr |= s->steps[i].s_op == SCN_COPY_RANGE;
	}
	if (fk)
		fputs("_require_xfs_io_command \"falloc\" \"-k\"\n", out);
	if (zk)
		fputs("_require_xfs_io_command \"fzero\" \"-k\"\n", out);
	if (cr)
		fputs("_require_xfs_io_command \"copy_range\"\n", out);
}

/* The renameat2 flags the steps use, as a mask. */
static unsigned rename_flags(const struct scenario *s)
{
	unsigned f = 0;

	for (uint32_t i = 0; i < s->nr_steps; i++)
		if (s->steps[i].s_op == SCN_RENAME)
			f |= s->steps[i].s_rename_flags;
	return f;
}

/* _require_renameat2 per flag used (src/renameat2 makes those renames). */
static void print_rename_requires(FILE *out, const struct scenario *s)
{
	unsigned f = rename_flags(s);

	if (f & SCN_RENAME_NOREPLACE)
		fputs("_require_renameat2 noreplace\n", out);
	if (f & SCN_RENAME_EXCHANGE)
		fputs("_require_renameat2 exchange\n", out);
}

/* One _require_xfs_io_command per xfs_io command the steps need, then chattr's. */
static void print_requires(FILE *out, const struct xctx *x)
{
	static const struct { enum scn_op op; const char *cmd; } r[] = {
		{ SCN_FALLOC, "falloc" }, { SCN_FZERO, "fzero" }, { SCN_FPUNCH, "fpunch" },
		{ SCN_FCOLLAPSE, "fcollapse" }, { SCN_FINSERT, "finsert" },
		{ SCN_SYNC_RANGE, "sync_range" }, { SCN_WRITEBACK, "sync_range" },
		{ SCN_SYNC, "syncfs" }, { SCN_COMMIT, "utimes" },
	};
	const struct scenario *s = &x->run;
	const char *done[16];
	unsigned nd = 0;

	for (unsigned k = 0; k < sizeof(r) / sizeof(r[0]); k++) {
		bool seen = false;

		if (!uses(s, r[k].op))
			continue;
		for (unsigned j = 0; j < nd; j++)
			seen |= strcmp(done[j], r[k].cmd) == 0;
		if (seen)
			continue;
		done[nd++] = r[k].cmd;
		fprintf(out, "_require_xfs_io_command \"%s\"\n", r[k].cmd);
	}
	print_flag_requires(out, s);
	if (uses(s, SCN_CHATTR))
		fputs("_require_xfs_io_command \"chattr\" \"s\"\n", out);
	print_rename_requires(out, s);
	if (uses_xattrs(s))     /* setfattr, and getfattr in the tree lister (ns_tree) */
		fputs("_require_attrs\nexport NS_GETFATTR=$GETFATTR_PROG\n", out);
	if (crashes(s))
		fputs("_require_scratch_shutdown\n", out);
}

/* One _fixed_by_kernel_commit per "ID subject" of @commit (parts joined by " + "). */
static void print_commits(FILE *out, const char *commit)
{
	while (*commit) {
		size_t id = strspn(commit, "0123456789abcdef");
		const char *end = strstr(commit, " + ");
		size_t len = end ? (size_t)(end - commit) : strlen(commit);
		const char *paren = memchr(commit, '(', len);

		if (id < 12 || commit[id] != ' ')
			return;
		if (paren && paren > commit + id + 1)
			len = (size_t)(paren - commit) - 1;     /* a trailing "(...)" note */
		fprintf(out, "_fixed_by_kernel_commit %.*s \\\n\t\"%.*s\"\n", (int)id, commit,
			(int)(len - id - 1), commit + id + 1);
		commit = end ? end + 3 : commit + strlen(commit);
	}
}

/* The fix's commits: toggles the exported (fixed) side has on and the failing side not. */
static void print_fixed_by(FILE *out, const struct xctx *x)
{
	for (unsigned t = 0; x->bug_cfg && t < ext4_toggle_count(); t++) {
		const struct ext4_toggle *tg = ext4_toggle_at(t);

		if (ext4_toggle_get(&x->cfg->sem, tg) && !ext4_toggle_get(&x->bug_cfg->sem, tg))
			print_commits(out, tg->commit);
	}
}

/* @text as comment lines, words wrapped before column 76. */
static void print_wrapped(FILE *out, const char *text)
{
	char *d = strdup(text);
	size_t col = 0;

	SIM_ASSERT(d != NULL);
	fputs("#", out);
	for (char *w = strtok(d, " \n\t"); w; w = strtok(NULL, " \n\t")) {
		if (col && col + strlen(w) > 74) {
			fputs("\n#", out);
			col = 0;
		}
		fprintf(out, " %s", w);
		col += strlen(w) + 1;
	}
	free(d);
	fputc('\n', out);
}

/* Whether print_fixed_by() names a commit (a toggle of the fix with a kernel commit). */
static bool has_fixed_by(const struct xctx *x)
{
	for (unsigned t = 0; x->bug_cfg && t < ext4_toggle_count(); t++) {
		const struct ext4_toggle *tg = ext4_toggle_at(t);
		size_t id = strspn(tg->commit, "0123456789abcdef");

		if (ext4_toggle_get(&x->cfg->sem, tg) && !ext4_toggle_get(&x->bug_cfg->sem, tg) &&
		    id >= 12 && tg->commit[id] == ' ')
			return true;
	}
	return false;
}

/* A namespace test's print_what: what it runs and checks. */
static void print_what_ns(FILE *out, const struct xctx *x, unsigned n)
{
	char text[2048];

	snprintf(text, sizeof(text), "Crash consistency of ext4's namespace and buffered I/O: "
		 "run the steps of ext4sim scenario %s (%s) on the scratch file system, its "
		 "namespace steps with the shell's mkdir, rmdir, rm, ln, ln -s and mv (fstests' "
		 "renameat2 where mv cannot make the rename) and its data steps and fsyncs with "
		 "xfs_io,%s and check the namespace (names, types, link counts, sizes, MD5s) %s, "
		 "and the commands' output with their errors, against what the model predicts.%s",
		 x->ld->s.name, x->ld->s.path, n ? " at each crash shutting the file system down "
		 "and mounting it again (journal recovery), then checking it with fsck," : "",
		 n ? "before each crash, after its recovery and at the end" : "at the end",
		 has_fixed_by(x) ? "  A regression test for the fix named by "
		 "_fixed_by_kernel_commit below: the model without it predicts another outcome." :
		 "");
	print_wrapped(out, text);
}

/* What the test checks, then the scenario it comes from. */
static void print_what(FILE *out, const struct xctx *x)
{
	unsigned n = 0, flush = 0;
	char text[2048];

	for (uint32_t i = 0; i < x->run.nr_steps; i++) {
		n += xp_is_crash(x->run.steps[i].s_op);
		flush += xp_is_crash(x->run.steps[i].s_op) && x->run.steps[i].s_logflush;
	}
	if (x->ns) {
		print_what_ns(out, x, n);
		return;
	}
	snprintf(text, sizeof(text), "Crash consistency of ext4's buffered I/O: run the steps "
		 "of ext4sim scenario %s (%s) with xfs_io on a file of the scratch file system%s%s%s, "
		 "and check the file's size and MD5 %s, and xfs_io's output with its errors, "
		 "against what the model predicts.%s", x->ld->s.name, x->ld->s.path, n ?
		 ", at each crash shutting the file system down " : "", !n ? "" : flush ?
		 "(without a log flush; shutdown -f with one)" : "without a log flush", n ?
		 " and mounting it again (journal recovery)" : "", n ? "before each crash, "
		 "after its recovery and at the end" : "at the end", has_fixed_by(x) ? "  A "
		 "regression test for the fix named by _fixed_by_kernel_commit below: the model "
		 "without it predicts another outcome." : "");
	print_wrapped(out, text);
}

/* The scenario's description, a paragraph of its own. */
static void print_description(FILE *out, const struct xctx *x)
{
	if (!x->ld->s.description[0])
		return;
	fputs("#\n", out);
	print_wrapped(out, x->ld->s.description);
}

/* A post-crash point checked against several states (check_state). */
static bool point_checks_states(const struct xpoint *p)
{
	return p->kind == XP_POST && !(p->cp && p->cp->nr_states == 1 && p->cont_listed);
}

/* common/filter, for _filter_xfs_io, when the test runs xfs_io on the file. */
static void print_imports(FILE *out, const struct xctx *x)
{
	if (!xp_uses_io(x) && !x->ns)
		return;
	fputs("# Import common functions.\n. ./common/filter\n", out);
	if (rename_flags(&x->run))
		fputs(". ./common/renameat2\n", out);
	if (uses_xattrs(&x->run))
		fputs(". ./common/attr\n", out);
	fputc('\n', out);
}

/* A namespace test's shell functions, those its steps and points use. */
static void print_ns_helpers(FILE *out, const struct xctx *x)
{
	bool several = false, listed = false, nsstep = false;

	for (unsigned k = 0; k < x->nr_pts; k++) {
		several |= !xp_ns_point_listed(&x->pts[k]);
		listed |= xp_ns_point_listed(&x->pts[k]);
	}
	for (uint32_t i = 0; i < x->run.nr_steps; i++)
		nsstep |= scn_step_is_namespace(&x->run.steps[i]) && x->run.steps[i].s_op != SCN_OPEN;
	fputs(xp_fstests_ns_helpers, out);
	if (listed)
		fputs(xp_fstests_ns_print_helper, out);
	if (nsstep)
		fputs(xp_fstests_ns_step_helper, out);
	if (xp_uses_io(x))
		fputs(xp_fstests_ns_io_helper, out);
	if (crashes(&x->run))
		fputs(xp_fstests_ns_fsck_helper, out);
	if (several)
		fputs(xp_fstests_ns_check_helper, out);
	if (uses(&x->run, SCN_COMMIT))
		fputs(xp_fstests_commit_helper, out);
}

/* The shell functions the steps use: io, check_state, commit. */
static void print_helpers(FILE *out, const struct xctx *x)
{
	bool several = false;

	if (x->ns) {
		print_ns_helpers(out, x);
		return;
	}
	for (unsigned k = 0; k < x->nr_pts; k++)
		several |= point_checks_states(&x->pts[k]);
	if (xp_uses_io(x))
		fputs(xp_fstests_io_helper, out);
	if (several)
		fputs(xp_fstests_check_state_helper, out);
	if (uses(&x->run, SCN_COMMIT))
		fputs(xp_fstests_commit_helper, out);
}

static void print_config(FILE *out, const struct xctx *x)
{
	xp_print_config_line(out, x, "# ");
}

static void print_mapping(FILE *out, const struct xctx *x)
{
	(void)x;
	xp_print_mapping_doc(out, "# ");
}

/* The golden line of a point, and the test's command that prints it. */
static void fstests_point(FILE *test, FILE *golden, const struct xpoint *p)
{
	char label[32];

	if (p->kind == XP_FINAL)
		snprintf(label, sizeof(label), "final");
	else
		snprintf(label, sizeof(label), "%s-crash %u", p->kind == XP_PRE ? "pre" : "post",
			 p->crash_no);
	if (p->ns) {
		xp_fstests_ns_point(test, golden, p, label);
		return;
	}
	if (!point_checks_states(p)) {
		fprintf(test, "print_state \"%s\"\n", label);
		fprintf(golden, "%s: size %lld md5 %s\n", label, (long long)p->size, p->md5);
		return;
	}
	fprintf(test, "check_state \"%s\"", label);
	for (uint32_t j = 0; p->cp && j < p->cp->nr_states; j++)
		fprintf(test, " \\\n\t%lld:%s", (long long)p->cp->states[j].size,
			p->cp->states[j].sha256);
	fputc('\n', test);
	fprintf(golden, "%s: one of the model's %u states\n", label, p->cp ? p->cp->nr_states : 0);
}

/* Where the test's points go: the golden output and the next point. */
struct fst_points {
	FILE *golden;
	const struct xctx *x;
	unsigned next;
};

/* The golden lines of the xfs_io process of steps [first, end). */
static void process_output(struct emitter *e, uint32_t first, uint32_t end, void *arg)
{
	struct fst_points *fp = arg;

	(void)e;
	xp_io_output(fp->golden, fp->x, first, end);
}

/* The test's command for step @i, which runs outside an xfs_io process. */
static void outside_step(struct emitter *e, uint32_t i, void *arg)
{
	const struct scn_step *st = &e->s->steps[i];
	struct fst_points *fp = arg;

	if (scn_step_is_namespace(st)) {
		xp_fstests_ns_step(e->out, fp->golden, fp->x, i);
		return;
	}
	switch (st->s_op) {
	case SCN_EVICT:
		fprintf(e->out, "echo 1 > /proc/sys/vm/drop_caches\n");
		break;
	case SCN_DIO_READ:
		fprintf(e->out, "io -d -c \"pread %lld %lld\"\n", (long long)st->s_off,
			(long long)st->s_len);
		xp_io_output(fp->golden, fp->x, i, i + 1);
		break;
	case SCN_CHATTR:
		/* xfs_io's chattr +s (FS_IOC_FSSETXATTR) sets EXT4_SYNC_FL: 6.18.44 */
		fprintf(e->out, "io -c \"chattr %cs\"\n", st->s_sync_flag ? '+' : '-');
		break;
	case SCN_REMOUNT:
		fprintf(e->out, "_scratch_cycle_mount \"$mount_opts\"\n");
		break;
	case SCN_COMMIT:
		fprintf(e->out, "commit\n");
		break;
	case SCN_CRASH:
	case SCN_SHUTDOWN:
		fstests_point(e->out, fp->golden, &fp->x->pts[fp->next++]);
		fprintf(e->out, "_scratch_shutdown%s\n_scratch_cycle_mount \"$mount_opts\"\n",
			st->s_logflush ? " -f" : "");
		fstests_point(e->out, fp->golden, &fp->x->pts[fp->next++]);
		/* the namespace test checks the recovered file system (its remount
		 * empties the page cache) */
		fprintf(e->out, "%s\n", fp->x->ns ? "check_fs" : "echo 1 > /proc/sys/vm/drop_caches");
		break;
	default:
		break;
	}
}

void xp_write_fstests(FILE *test, FILE *golden, const struct xctx *x)
{
	struct emitter *e = sim_zalloc(sizeof(*e));
	struct fst_points fp = { .golden = golden, .x = x };
	char opts[256], bs[16];
	const struct xp_var vars[] = {
		{ "year", x->copyright_year, NULL }, { "test", x->test_number, NULL },
		{ "block_size", bs, NULL }, { "options", opts, NULL },
		{ "what", NULL, print_what }, { "description", NULL, print_description },
		{ "config", NULL, print_config }, { "mapping", NULL, print_mapping },
		{ "groups", NULL, print_groups }, { "imports", NULL, print_imports },
		{ "requires", NULL, print_requires }, { "fixed_by", NULL, print_fixed_by },
		{ "helpers", NULL, print_helpers },
		{ "golden_doc", x->ns ? xp_fstests_ns_golden_doc : xp_fstests_golden_doc, NULL },
		{ "print_state", x->ns ? "" : xp_fstests_print_state, NULL },
	};

	xp_mount_options(x, opts, sizeof(opts));
	snprintf(bs, sizeof(bs), "%u", x->oc.block_size);
	xp_fill(test, xp_fstests_preamble, vars, sizeof(vars) / sizeof(vars[0]), x);
	fprintf(golden, "QA output created by %s\n", x->test_number);
	e->out = test;
	e->fmt = XF_FSTESTS;
	e->s = &x->run;
	e->flushed = process_output;
	e->flush_arg = &fp;
	xp_emit_steps(e, outside_step, &fp);
	if (fp.next < x->nr_pts)
		fstests_point(test, golden, &x->pts[fp.next]);
	fprintf(test, "\n# success, all done\n_exit 0\n");
	free(e);
}
