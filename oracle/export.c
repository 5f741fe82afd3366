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
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "md5.h"
#include "oracle.h"
#include "sha256.h"

#define EXPORT_READ_MAX (64LL << 20)    /* largest file read back at a point */

enum xformat { XF_XFS_IO, XF_FSTESTS, XF_YAML };

enum xkind { XP_PRE, XP_POST, XP_FINAL };

/* One read-back point: before crash N, after it, or the end. */
struct xpoint {
	enum xkind kind;
	unsigned crash_no;              /* 1-based (pre, post) */
	uint32_t upto;                  /* steps of the as-run scenario run before reading */
	int64_t size;
	char sha[65];
	char md5[33];
	char file[16];                  /* pre1, post1, ..., final */
	const struct cs_point *cp;      /* post: the crash point's states */
	bool cont_listed;               /* post: the continuing state is among them */
};

struct xctx {
	struct cli *c;
	struct loaded *ld;
	const struct sim_variant_cfg *cfg;
	struct scenario run;            /* the as-run scenario (own step array) */
	struct sim_variant_result r;    /* its full run */
	bool have_r;
	struct xpoint *pts;
	unsigned nr_pts;
	struct orc_config oc;
	enum xformat fmt;
	const char *out_dir;
	const char *model_dir;
	const char *test_number;
	char tmp_dir[256];              /* for dumps without --model-dir */
};

/* ------------------------------------------------------------------ */
/* Messages                                                           */
/* ------------------------------------------------------------------ */

/* "FILE:LINE:COL: export: ..." for a step of a file, or the -c form; returns 2. */
__attribute__((format(printf, 3, 4)))
static int refuse(const struct xctx *x, const struct scn_step *st, const char *fmt, ...)
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

/* Steps no real mechanism reproduces; NULL if @st is fine. */
static const char *model_only(const struct scn_step *st)
{
	switch (st->s_op) {
	case SCN_PWRITE:
		if (st->s_short_copy >= 0)
			return "pwrite --short is model only: no real write(2) can be made to "
			       "fault in its user buffer at a chosen byte";
		return NULL;
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
	default:
		return NULL;
	}
}

/* ------------------------------------------------------------------ */
/* The scenario as run                                                */
/* ------------------------------------------------------------------ */

static bool in_process(enum scn_op op)
{
	return orc_in_process(op);
}

static bool is_crash(enum scn_op op)
{
	return op == SCN_CRASH || op == SCN_SHUTDOWN;
}

/* The steps with a close where an xfs_io process ends (orc_as_run). */
static void build_as_run(struct xctx *x)
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

/* ------------------------------------------------------------------ */
/* The model                                                          */
/* ------------------------------------------------------------------ */

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

static const struct cs_point *crash_point(const struct sim_variant_result *r, uint32_t step)
{
	for (uint32_t i = 0; i < r->nr_points; i++)
		if (r->points[i].step == step && !r->points[i].hypothetical)
			return &r->points[i];
	return NULL;
}

/* Run the as-run scenario, refuse what a real ext4 cannot show, read every point. */
static int run_model(struct xctx *x)
{
	struct sim_options o = { .crash_bound = x->c->o.crash_bound, .crash_digest = true,
				 .quiet = true };
	char err[SCN_ERR_MAX], path[4096];
	const struct scenario *s = &x->run;
	unsigned crashes = 0;

	if (sim_run_variant(s, x->cfg, &o, NULL, NULL, &x->r, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	x->have_r = true;
	for (uint32_t i = 0; i < s->nr_steps; i++) {
		const struct scn_step *st = &s->steps[i];
		int e = x->r.steps[i].err;

		if (st->s_op == SCN_MWRITE && e == -EFAULT)
			return refuse(x, st, "mwrite (step %u) stores to a page past the one holding "
				      "EOF: the kernel sends SIGBUS, which ends xfs_io; keep mmap "
				      "stores inside the EOF page", i + 1);
		if (e == -ENOSPC)
			return refuse(x, st, "step %u runs out of space on the model's %u-block "
				      "disk; a real ext4 lays blocks out differently, so its "
				      "outcome cannot be compared", i + 1, x->cfg->opts.disk_blocks);
		crashes += is_crash(st->s_op);
	}
	x->pts = sim_zalloc((2 * crashes + 1) * sizeof(*x->pts));
	crashes = 0;
	for (uint32_t i = 0; i <= s->nr_steps; i++) {
		bool end = i == s->nr_steps;

		if (end && i > 0 && is_crash(s->steps[i - 1].s_op))
			break;
		if (!end && !is_crash(s->steps[i].s_op))
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
	for (unsigned k = 0; k < x->nr_pts; k++) {
		struct xpoint *p = &x->pts[k];
		int64_t size = p->upto ? x->r.steps[p->upto - 1].i_size : 0;

		if (p->kind == XP_FINAL)
			snprintf(p->file, sizeof(p->file), "final");
		else
			snprintf(p->file, sizeof(p->file), "%s%u", p->kind == XP_PRE ? "pre" : "post",
				 p->crash_no);
		if (size > EXPORT_READ_MAX)
			return refuse(x, NULL, "the file is %lld bytes at read-back point %s (after step %u): "
				      "more than the %lld export reads back", (long long)size, p->file,
				      p->upto, (long long)EXPORT_READ_MAX);
	}
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

/* ------------------------------------------------------------------ */
/* The configuration                                                  */
/* ------------------------------------------------------------------ */

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

static void fill_config(struct xctx *x, const struct scn_variant *v)
{
	const struct ext4_mount_opts *o = &x->cfg->opts;
	struct orc_config *oc = &x->oc;

	memset(oc, 0, sizeof(*oc));
	oc->block_size = o->block_size;
	oc->data = (enum scn_data_mode)o->data;
	oc->delalloc = o->delalloc;
	oc->dioread_nolock = o->dioread_nolock;
	if (o->disk_blocks != 16384)     /* the default is not written */
		oc->disk_blocks = o->disk_blocks;
	snprintf(oc->kernel, sizeof(oc->kernel), "%s", x->cfg->profile->name);
	add_patches(oc, x->ld->s.config.c_patches, x->ld->s.config.c_nr_patches);
	if (v)
		add_patches(oc, v->v_patches, v->v_nr_patches);
	add_patches(oc, x->c->ov.patches, x->c->ov.nr_patches);
}

/* The variant to export: --variant, the only one, or the first without patches. */
static int choose_variant(struct xctx *x, const struct scn_variant **vout)
{
	const struct scenario *s = &x->ld->s;
	unsigned pick = 0;

	*vout = NULL;
	if (x->c->o.variant) {
		for (pick = 0; pick < x->ld->nr_cfg; pick++)
			if (strcmp(x->ld->cfg[pick].name, x->c->o.variant) == 0)
				break;
	} else if (s->nr_variants > 1) {
		while (pick < s->nr_variants && s->variants[pick].v_nr_patches)
			pick++;
		if (pick == s->nr_variants)
			pick = 0;
	}
	SIM_ASSERT(pick < x->ld->nr_cfg);
	x->cfg = &x->ld->cfg[pick];
	if (s->nr_variants)
		*vout = &s->variants[pick];
	return 0;
}

/* ------------------------------------------------------------------ */
/* Writing                                                            */
/* ------------------------------------------------------------------ */

/* The xfs_io commands of one model step (in a process on the file). */
static unsigned io_commands(const struct scn_step *st, char cmds[2][SCN_STEP_TEXT_MAX + 64])
{
	long long off = (long long)st->s_off, len = (long long)st->s_len;

	switch (st->s_op) {
	case SCN_PWRITE:
		snprintf(cmds[0], sizeof(cmds[0]), "pwrite -S 0x%02x %lld %lld", st->s_fill, off, len);
		return 1;
	case SCN_MWRITE:
		snprintf(cmds[0], sizeof(cmds[0]), "mwrite -S 0x%02x %lld %lld", st->s_fill, off, len);
		return 1;
	case SCN_PREAD:
		snprintf(cmds[0], sizeof(cmds[0]), "pread %lld %lld", off, len);
		return 1;
	case SCN_WRITEBACK:
		if (!st->s_has_range)
			off = len = 0;
		snprintf(cmds[0], sizeof(cmds[0]), "sync_range -w %lld %lld", off, len);
		snprintf(cmds[1], sizeof(cmds[1]), "sync_range -a %lld %lld", off, len);
		return 2;
	case SCN_SYNC:
		snprintf(cmds[0], sizeof(cmds[0]), "syncfs");
		return 1;
	default:
		orc_step_text(st, cmds[0], sizeof(cmds[0]));
		return 1;
	}
}

/* The mapping a process's stores need: 1 MiB, or up to the last store's page. */
static long long map_length(const struct scenario *s, uint32_t from)
{
	long long len = 1 << 20;

	for (uint32_t i = from; i < s->nr_steps && in_process(s->steps[i].s_op); i++) {
		const struct scn_step *st = &s->steps[i];
		long long end = (long long)(st->s_off + st->s_len + 4095) / 4096 * 4096;

		if (st->s_op == SCN_MWRITE && end > len)
			len = end;
	}
	return len;
}

struct emitter {
	FILE *out;
	enum xformat fmt;
	const struct scenario *s;
	char line[65536];               /* the process's command line being built */
	char steps[65536];              /* its steps, as comment lines */
	bool mapped;
};

/* The process's command line, a -c per line once it gets long. */
static void emit_flush(struct emitter *e)
{
	const char *head = e->fmt == XF_FSTESTS ? "$XFS_IO_PROG" : "io";
	const char *tail = e->fmt == XF_FSTESTS ? " $file >> $seqres.full 2>&1" : "";
	size_t col = strlen(head);

	if (!e->line[0])
		return;
	fputs(e->steps, e->out);
	fputs(head, e->out);
	for (char *c = e->line; *c;) {
		char *next = strstr(c + 1, " -c ");
		size_t n = next ? (size_t)(next - c) : strlen(c);

		if (col > 8 && col + n > 78) {
			fputs(" \\\n\t", e->out);
			col = 8;
			c++;            /* the blank before -c */
			n--;
		}
		fwrite(c, 1, n, e->out);
		col += n;
		c += n;
	}
	if (col + strlen(tail) > 78 && tail[0])
		fputs(" \\\n\t", e->out), tail++;
	fprintf(e->out, "%s\n", tail);
	e->line[0] = e->steps[0] = '\0';
	e->mapped = false;
}

static void append(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
}

static void emit_step_comment(struct emitter *e, uint32_t i)
{
	char text[SCN_STEP_TEXT_MAX];

	orc_step_text(&e->s->steps[i], text, sizeof(text));
	append(e->steps, sizeof(e->steps), "# [%u] %s\n", i + 1, text);
}

/*
 * A step that runs outside an xfs_io process: end the process the steps
 * before it were gathering in, then write out its comment and the pending
 * comments; the caller writes the step's own command.
 */
static void emit_outside_process(struct emitter *e, uint32_t i)
{
	emit_flush(e);
	emit_step_comment(e, i);
	fputs(e->steps, e->out);
	e->steps[0] = '\0';
}

/* One step inside an xfs_io process. */
static void emit_io_step(struct emitter *e, uint32_t i)
{
	const struct scn_step *st = &e->s->steps[i];
	const char *q = e->fmt == XF_FSTESTS ? "\"" : "'";
	char cmds[2][SCN_STEP_TEXT_MAX + 64];
	unsigned n;

	emit_step_comment(e, i);
	if (st->s_op == SCN_MWRITE && !e->mapped) {
		append(e->line, sizeof(e->line), " -c %smmap -rw 0 %lld%s", q,
		       map_length(e->s, i), q);
		e->mapped = true;
	}
	n = io_commands(st, cmds);
	for (unsigned k = 0; k < n; k++)
		append(e->line, sizeof(e->line), " -c %s%s%s", q, cmds[k], q);
}

static void print_step_list(FILE *out, const struct scenario *s, const char *prefix)
{
	char text[SCN_STEP_TEXT_MAX];

	for (uint32_t i = 0; i < s->nr_steps; i++) {
		orc_step_text(&s->steps[i], text, sizeof(text));
		fprintf(out, "%s[%u] %s\n", prefix, i + 1, text);
	}
}

static void print_config_line(FILE *out, const struct xctx *x, const char *prefix)
{
	const struct ext4_mount_opts *o = &x->cfg->opts;
	bool dio = o->delalloc && o->data != DATA_JOURNAL && o->dioread_nolock;

	fprintf(out, "%sModel: kernel profile %s, variant %s;\n%sblock size %u, data=%s, %s%s.\n",
		prefix, x->cfg->profile->name, x->cfg->name, prefix, o->block_size,
		orc_data_name(x->oc.data), o->delalloc ? "delalloc" : "nodelalloc",
		dio ? ", dioread_nolock" : "");
}

/* The model's predictions as "# model: ..." lines (kernel-check reads them). */
static void print_model_lines(FILE *out, const struct xctx *x)
{
	char opts[256], key[128];

	orc_mount_options(&x->oc, opts, sizeof(opts));
	orc_config_key(&x->oc, key, sizeof(key));
	fprintf(out, "# model: config block_size %u options %s kernel %s key %s\n",
		x->oc.block_size, opts, x->cfg->profile->name, key);
	for (unsigned k = 0; k < x->nr_pts; k++) {
		const struct xpoint *p = &x->pts[k];

		if (p->kind == XP_FINAL) {
			fprintf(out, "# model: final size %lld sha256 %s\n", (long long)p->size, p->sha);
			continue;
		}
		if (p->kind == XP_PRE) {
			fprintf(out, "# model: pre %u size %lld sha256 %s\n", p->crash_no,
				(long long)p->size, p->sha);
			continue;
		}
		fprintf(out, "# model: post %u continue size %lld sha256 %s\n", p->crash_no,
			(long long)p->size, p->sha);
		if (!p->cp) {
			fprintf(out, "# model: post %u states 0 not-enumerated\n", p->crash_no);
			continue;
		}
		fprintf(out, "# model: post %u states %u %s %llu of %.0f\n", p->crash_no,
			p->cp->nr_states, p->cp->exhaustive ? "exhaustive" : "sampled",
			(unsigned long long)p->cp->evaluated, p->cp->reduced_states);
		for (uint32_t j = 0; j < p->cp->nr_states; j++)
			fprintf(out, "# model: post %u state size %lld sha256 %s\n", p->crash_no,
				(long long)p->cp->states[j].size, p->cp->states[j].sha256);
	}
}

static const char *const mapping_doc =
	"How the steps map (docs/real-kernel.md): each run of steps up to a\n"
	"close, evict, chattr, commit, remount or crash is one xfs_io process\n"
	"(the model's steps have a close there); crash = shutdown without a log\n"
	"flush, unmount, mount; evict = echo 1 > /proc/sys/vm/drop_caches;\n"
	"chattr = e2fsprogs' chattr; writeback = sync_range -w then -a; commit =\n"
	"a timestamp change and fsync of another file, ext4sim-commit (xfs_io runs\n"
	"every command on every file it has open, hence the close before it);\n"
	"sync = syncfs; remount = unmount, mount.  A real device completes a\n"
	"write at once, so sync_range -w is followed by sync_range -a, and a close\n"
	"after a truncate to 0 (auto_da_alloc) by a wait.  After the remount that\n"
	"follows a crash the page cache is dropped, as the model's is empty.\n";

static void print_prefixed(FILE *out, const char *text, const char *prefix)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		fprintf(out, "%s%.*s\n", prefix, (int)n, text);
		text += n + (nl != NULL);
	}
}

static void write_xfs_io(FILE *out, const struct xctx *x)
{
	const struct scenario *s = &x->run;
	struct emitter *e = sim_zalloc(sizeof(*e));
	char opts[256];
	const char *nm = x->ld->s.name;

	orc_mount_options(&x->oc, opts, sizeof(opts));
	fprintf(out, "#!/bin/bash\n");
	fprintf(out, "# %s: ext4sim scenario %s, exported to run on a real ext4\n# (%s).\n",
		nm, nm, x->ld->s.path);
	print_config_line(out, x, "# ");
	fprintf(out,
		"#\n"
		"# usage: %s.sh MOUNTPOINT [SAVE_DIR]\n"
		"#\n"
		"# MOUNTPOINT is a mounted ext4 with %u-byte blocks, mounted with\n"
		"#   -o %s\n"
		"# (the remounts use these options; EXT4SIM_MOUNT_OPTIONS overrides them).\n"
		"# Run as root.  The script creates MOUNTPOINT/f, empty and synced (and\n"
		"# MOUNTPOINT/ext4sim-commit, whose fsync stands for the model's commit), runs\n"
		"# the steps with xfs_io and prints the size and SHA-256 of f as a reader sees\n"
		"# it before each crash (\"pre N\"), after its shutdown and remount (\"post N\")\n"
		"# and at the end (\"final\").  With SAVE_DIR the bytes of f at each point are\n"
		"# kept there (pre1, post1, ..., final), with xfs_io's output (xfs_io.log).\n"
		"#\n", nm, x->oc.block_size, opts);
	print_prefixed(out, mapping_doc, "# ");
	fprintf(out, "#\n# The steps as run (the model's step numbers):\n");
	print_step_list(out, s, "#   ");
	fprintf(out, "#\n# What the model predicts (state: a state the model lists for the "
		"crash point;\n# continue: the one its run continues from):\n");
	print_model_lines(out, x);
	fprintf(out,
		"set -u\n"
		"export LC_ALL=C\n"
		"die() { echo \"%s: $*\" >&2; exit 2; }\n"
		"[ $# -ge 1 ] && [ $# -le 2 ] || die \"usage: $0 MOUNTPOINT [SAVE_DIR]\"\n"
		"MNT=$1\n"
		"SAVE=${2:-}\n"
		"OPTS=${EXT4SIM_MOUNT_OPTIONS:-%s}\n"
		"LOG=/dev/null\n"
		"[ \"$(id -u)\" = 0 ] || die \"must run as root (shutdown, mount, drop_caches)\"\n"
		"for t in xfs_io findmnt stat sha256sum dd mount umount chattr; do\n"
		"\tcommand -v $t > /dev/null || die \"missing tool: $t\"\n"
		"done\n"
		"DEV=$(findmnt -n -o SOURCE --mountpoint \"$MNT\") || die \"$MNT is not a mount point\"\n"
		"[ \"$(findmnt -n -o FSTYPE --mountpoint \"$MNT\")\" = ext4 ] || die \"$MNT is not ext4\"\n"
		"[ \"$(stat -f -c %%S \"$MNT\")\" = %u ] ||\n"
		"\tdie \"$MNT has $(stat -f -c %%S \"$MNT\")-byte blocks; the scenario needs %u\"\n"
		"if [ -n \"$SAVE\" ]; then\n"
		"\tmkdir -p \"$SAVE\" || die \"cannot create $SAVE\"\n"
		"\tLOG=$SAVE/xfs_io.log\n"
		"\t: > \"$LOG\"\n"
		"fi\n"
		"\n"
		"# one xfs_io process on f, from the mount point (the commit file is relative)\n"
		"io() {\n"
		"\tlocal rc=0\n"
		"\t(cd \"$MNT\" && exec xfs_io \"$@\" f) >> \"$LOG\" 2>&1 || rc=$?\n"
		"\t[ $rc -lt 128 ] || echo \"%s: xfs_io $* ended by signal $((rc - 128))\" >&2\n"
		"}\n"
		"# the size and SHA-256 of f as a reader sees it (read(2) only: no hole skipping)\n"
		"point() {\n"
		"\tlocal size sum\n"
		"\tsize=$(stat -c %%s \"$MNT/f\") || die \"$1: cannot stat f\"\n"
		"\tif [ -n \"$SAVE\" ]; then\n"
		"\t\tdd if=\"$MNT/f\" of=\"$SAVE/$2\" bs=1M status=none || die \"$1: cannot read f\"\n"
		"\t\tsum=$(sha256sum < \"$SAVE/$2\")\n"
		"\telse\n"
		"\t\tsum=$(sha256sum < \"$MNT/f\") || die \"$1: cannot read f\"\n"
		"\tfi\n"
		"\techo \"$1 size $size sha256 ${sum%%%% *}\"\n"
		"}\n"
		"remount() {\n"
		"\tumount \"$MNT\" || die \"umount failed\"\n"
		"\tmount -t ext4 -o \"$OPTS\" \"$DEV\" \"$MNT\" || die \"mount -o $OPTS $DEV failed\"\n"
		"}\n"
		"# shutdown without a log flush, unmount, mount (journal recovery, orphan cleanup)\n"
		"crash() {\n"
		"\txfs_io -x -r -c shutdown \"$MNT\" >> \"$LOG\" 2>&1 || die \"shutdown failed\"\n"
		"\tremount\n"
		"}\n"
		"# a commit of the running transaction and nothing else: a timestamp change of\n"
		"# another file and its fsync (f's data is not written back, only what the\n"
		"# commit orders)\n"
		"commit() {\n"
		"\txfs_io -c 'utimes 0 0 0 0' -c fsync \"$MNT/ext4sim-commit\" >> \"$LOG\" 2>&1 ||\n"
		"\t\tdie \"commit failed\"\n"
		"}\n"
		"# clean page cache only: nothing is written back\n"
		"drop_caches() { echo 1 > /proc/sys/vm/drop_caches || die \"drop_caches failed\"; }\n"
		"\n"
		"rm -f \"$MNT/f\" \"$MNT/ext4sim-commit\"\n"
		": > \"$MNT/f\" && : > \"$MNT/ext4sim-commit\" || die \"cannot create f in $MNT\"\n"
		"sync\n"
		"\n", nm, opts, x->oc.block_size, x->oc.block_size, nm);
	e->out = out;
	e->fmt = XF_XFS_IO;
	e->s = s;
	for (uint32_t i = 0; i < s->nr_steps; i++) {
		const struct scn_step *st = &s->steps[i];

		if (in_process(st->s_op)) {
			emit_io_step(e, i);
			continue;
		}
		emit_outside_process(e, i);
		switch (st->s_op) {
		case SCN_EVICT:
			fprintf(out, "drop_caches\n");
			break;
		case SCN_CHATTR:
			fprintf(out, "chattr %cS \"$MNT/f\" || die \"chattr failed\"\n",
				st->s_sync_flag ? '+' : '-');
			break;
		case SCN_REMOUNT:
			fprintf(out, "remount\n");
			break;
		case SCN_COMMIT:
			fprintf(out, "commit\n");
			break;
		case SCN_CRASH:
		case SCN_SHUTDOWN: {
			unsigned n = 0;

			for (uint32_t k = 0; k <= i; k++)
				n += is_crash(s->steps[k].s_op);
			fprintf(out, "point \"pre %u\" pre%u\ncrash\npoint \"post %u\" post%u\n"
				"drop_caches\n", n, n, n, n);
			break;
		}
		default:
			break;
		}
	}
	emit_flush(e);
	if (x->nr_pts && x->pts[x->nr_pts - 1].kind == XP_FINAL)
		fprintf(out, "point final final\n");
	fprintf(out, "exit 0\n");
	free(e);
}

/* fstests groups: the usual ones plus one per kind of operation used. */
static void fstests_groups(FILE *out, const struct scenario *s)
{
	static const struct { enum scn_op op; const char *group; } g[] = {
		{ SCN_FALLOC, "prealloc" }, { SCN_FPUNCH, "punch" }, { SCN_FZERO, "zero" },
		{ SCN_FCOLLAPSE, "collapse" }, { SCN_FINSERT, "insert" }, { SCN_MWRITE, "mmap" },
	};

	fputs("_begin_fstest auto quick shutdown log rw", out);
	for (unsigned k = 0; k < sizeof(g) / sizeof(g[0]); k++)
		for (uint32_t i = 0; i < s->nr_steps; i++)
			if (s->steps[i].s_op == g[k].op) {
				fprintf(out, " %s", g[k].group);
				break;
			}
	fputc('\n', out);
}

static bool uses(const struct scenario *s, enum scn_op op)
{
	for (uint32_t i = 0; i < s->nr_steps; i++)
		if (s->steps[i].s_op == op)
			return true;
	return false;
}

static void fstests_requires(FILE *out, const struct scenario *s)
{
	static const struct { enum scn_op op; const char *cmd; } r[] = {
		{ SCN_FALLOC, "falloc" }, { SCN_FZERO, "fzero" }, { SCN_FPUNCH, "fpunch" },
		{ SCN_FCOLLAPSE, "fcollapse" }, { SCN_FINSERT, "finsert" },
		{ SCN_SYNC_RANGE, "sync_range" }, { SCN_WRITEBACK, "sync_range" },
		{ SCN_SYNC, "syncfs" }, { SCN_COMMIT, "utimes" },
	};
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
	if (uses(s, SCN_CHATTR))
		fputs("_require_chattr S\n", out);
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
	if (p->kind != XP_POST || (p->cp && p->cp->nr_states == 1 && p->cont_listed)) {
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

static void write_fstests(FILE *test, FILE *golden, const struct xctx *x)
{
	const struct scenario *s = &x->run;
	struct emitter *e = sim_zalloc(sizeof(*e));
	char opts[256];
	unsigned pt = 0;

	orc_mount_options(&x->oc, opts, sizeof(opts));
	fprintf(test,
		"#! /bin/bash\n"
		"# SPDX-License-Identifier: GPL-2.0\n"
		"#\n"
		"# FS QA Test No. %s\n"
		"#\n"
		"# ext4sim scenario %s, exported\n# (%s).\n", x->test_number, x->ld->s.name,
		x->ld->s.path);
	if (x->ld->s.description[0]) {
		char *d = strdup(x->ld->s.description);
		size_t col = 0;

		SIM_ASSERT(d != NULL);
		fputs("#", test);
		for (char *w = strtok(d, " \n\t"); w; w = strtok(NULL, " \n\t")) {
			if (col && col + strlen(w) > 74) {
				fputs("\n#", test);
				col = 0;
			}
			fprintf(test, " %s", w);
			col += strlen(w) + 1;
		}
		free(d);
		fputc('\n', test);
	}
	fputs("#\n", test);
	print_config_line(test, x, "# ");
	fprintf(test,
		"# The golden output is the model's prediction: the size and MD5 of the file\n"
		"# as a reader sees it before each crash, after it and at the end; where the\n"
		"# model lists several states a crash can leave, the state must be one of them.\n"
		"#\n");
	print_prefixed(test, mapping_doc, "# ");
	fprintf(test,
		"#\n"
		". ./common/preamble\n");
	fstests_groups(test, s);
	fprintf(test,
		"\n"
		"# Import common functions.\n"
		". ./common/filter\n"
		"\n"
		"# data=journal, nodelalloc, extents and the journal the model follows are ext4's\n"
		"_exclude_fs ext2\n"
		"_exclude_fs ext3\n"
		"_require_scratch_size $((64 * 1024))\n"
		"_require_scratch_shutdown\n");
	fstests_requires(test, s);
	fprintf(test,
		"\n"
		"# The model's device reads 0xee wherever nothing was written: so does the\n"
		"# scratch device (nodiscard keeps it), where stale blocks could show.\n"
		"$XFS_IO_PROG -d -c \"pwrite -S 0xee -b 1m 0 64m\" $SCRATCH_DEV >> $seqres.full 2>&1 ||\n"
		"\t_fail \"cannot fill $SCRATCH_DEV\"\n"
		"_scratch_mkfs_sized $((64 * 1024 * 1024)) %u \\\n"
		"\t-E nodiscard,lazy_itable_init=0,lazy_journal_init=0 >> $seqres.full 2>&1\n"
		"# a long commit interval: the model has no commit timer\n"
		"mount_opts=\"%s\"\n"
		"_scratch_mount \"-o $mount_opts\"\n"
		"\n"
		"file=$SCRATCH_MNT/f\n"
		"commit_file=$SCRATCH_MNT/ext4sim-commit\n"
		"touch $file $commit_file\n"
		"sync\n"
		"\n"
		"print_state()\n"
		"{\n"
		"\techo \"$1: size $(stat -c %%s $file) md5 $(_md5_checksum $file)\"\n"
		"}\n"
		"\n"
		"# the file must be one of the states (SIZE:SHA256) the model lists\n"
		"check_state()\n"
		"{\n"
		"\tlocal label=$1 state a\n"
		"\n"
		"\tshift\n"
		"\tstate=\"$(stat -c %%s $file):$(sha256sum < $file | cut -d' ' -f1)\"\n"
		"\techo \"$label: $state\" >> $seqres.full\n"
		"\tfor a in \"$@\"; do\n"
		"\t\tif [ \"$a\" = \"$state\" ]; then\n"
		"\t\t\techo \"$label: one of the model's $# states\"\n"
		"\t\t\treturn\n"
		"\t\tfi\n"
		"\tdone\n"
		"\techo \"$label: $state is not one of the model's $# states\"\n"
		"}\n"
		"\n"
		"# a commit of the running transaction and nothing else: a timestamp change of\n"
		"# another file and its fsync\n"
		"commit()\n"
		"{\n"
		"\t$XFS_IO_PROG -c \"utimes 0 0 0 0\" -c fsync $commit_file >> $seqres.full 2>&1\n"
		"}\n"
		"\n", x->oc.block_size, opts);
	fprintf(golden, "QA output created by %s\n", x->test_number);
	e->out = test;
	e->fmt = XF_FSTESTS;
	e->s = s;
	for (uint32_t i = 0; i < s->nr_steps; i++) {
		const struct scn_step *st = &s->steps[i];

		if (in_process(st->s_op)) {
			emit_io_step(e, i);
			continue;
		}
		emit_outside_process(e, i);
		switch (st->s_op) {
		case SCN_EVICT:
			fprintf(test, "echo 1 > /proc/sys/vm/drop_caches\n");
			break;
		case SCN_CHATTR:
			fprintf(test, "$CHATTR_PROG %cS $file\n", st->s_sync_flag ? '+' : '-');
			break;
		case SCN_REMOUNT:
			fprintf(test, "_scratch_cycle_mount \"$mount_opts\"\n");
			break;
		case SCN_COMMIT:
			fprintf(test, "commit\n");
			break;
		case SCN_CRASH:
		case SCN_SHUTDOWN:
			fstests_point(test, golden, &x->pts[pt++]);
			fprintf(test, "_scratch_shutdown\n_scratch_cycle_mount \"$mount_opts\"\n");
			fstests_point(test, golden, &x->pts[pt++]);
			fprintf(test, "echo 1 > /proc/sys/vm/drop_caches\n");
			break;
		default:
			break;
		}
	}
	emit_flush(e);
	if (pt < x->nr_pts)
		fstests_point(test, golden, &x->pts[pt]);
	fprintf(test, "\n# success, all done\nstatus=0\nexit\n");
	free(e);
}

static void write_yaml(FILE *out, const struct xctx *x)
{
	char desc[SCN_TEXT_MAX + 512];
	struct orc_yaml y = {
		.name = x->ld->s.name, .description = desc, .source = x->ld->s.path,
		.config = &x->oc, .steps = x->run.steps, .nr_steps = x->run.nr_steps,
	};

	snprintf(desc, sizeof(desc), "The steps of %s as export runs them on a real ext4 (a "
		 "close where the xfs_io process ends), in the configuration of variant %s.  %s",
		 x->ld->s.name, x->cfg->name, x->ld->s.description);
	orc_write_yaml(out, &y);
}

/* ------------------------------------------------------------------ */
/* The command                                                        */
/* ------------------------------------------------------------------ */

static FILE *open_out(const char *dir, const char *name, bool exec)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "ext4sim: export: cannot write %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (exec)
		chmod(path, 0755);
	return f;
}

static int write_outputs(struct xctx *x)
{
	char name[SCN_NAME_MAX + 16];
	FILE *a = stdout, *b = stdout;
	int rc = 0;

	if (x->out_dir) {
		if (x->fmt == XF_FSTESTS) {
			snprintf(name, sizeof(name), "%s.out", x->test_number);
			a = open_out(x->out_dir, x->test_number, true);
			b = a ? open_out(x->out_dir, name, false) : NULL;
		} else {
			snprintf(name, sizeof(name), "%s.%s", x->ld->s.name,
				 x->fmt == XF_YAML ? "yaml" : "sh");
			a = b = open_out(x->out_dir, name, x->fmt == XF_XFS_IO);
		}
		if (!a || !b) {
			if (a)
				fclose(a);
			return 2;
		}
	}
	switch (x->fmt) {
	case XF_XFS_IO:
		write_xfs_io(a, x);
		break;
	case XF_YAML:
		write_yaml(a, x);
		break;
	case XF_FSTESTS:
		if (!x->out_dir) {
			FILE *g = tmpfile();
			char buf[4096];
			size_t n;

			SIM_ASSERT(g != NULL);
			printf("==> %s <==\n", x->test_number);
			write_fstests(stdout, g, x);
			printf("==> %s.out <==\n", x->test_number);
			rewind(g);
			while ((n = fread(buf, 1, sizeof(buf), g)) > 0)
				fwrite(buf, 1, n, stdout);
			fclose(g);
		} else {
			write_fstests(a, b, x);
		}
		break;
	}
	if (x->out_dir) {
		if (ferror(a) || fclose(a) != 0)
			rc = 2;
		if (b != a && (ferror(b) || fclose(b) != 0))
			rc = 2;
		if (rc)
			fprintf(stderr, "ext4sim: export: writing to %s failed\n", x->out_dir);
	}
	if (x->model_dir && !rc) {
		FILE *y = open_out(x->model_dir, "scenario.yaml", false);

		if (!y)
			return 2;
		write_yaml(y, x);
		if (ferror(y) | fclose(y))
			rc = 2;
	}
	return rc;
}

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

/* export's own flags out of argv; the rest left for parse_run_args. */
static int export_flags(struct xctx *x, int argc, char **argv, char **rest, int *nrest)
{
	*nrest = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--format") && strcmp(a, "-o") && strcmp(a, "--model-dir") &&
		    strcmp(a, "--test-number")) {
			rest[(*nrest)++] = argv[i];
			continue;
		}
		if (!v)
			return bad_usage("%s needs a value", a);
		i++;
		if (strcmp(a, "--format") == 0) {
			if (strcmp(v, "xfs_io") == 0)
				x->fmt = XF_XFS_IO;
			else if (strcmp(v, "fstests") == 0)
				x->fmt = XF_FSTESTS;
			else if (strcmp(v, "yaml") == 0)
				x->fmt = XF_YAML;
			else
				return bad_usage("--format takes xfs_io, fstests or yaml, not '%s'", v);
		} else if (strcmp(a, "-o") == 0) {
			x->out_dir = v;
		} else if (strcmp(a, "--model-dir") == 0) {
			x->model_dir = v;
		} else if (!valid_test_number(v)) {
			return bad_usage("--test-number takes an fstests test name (NNN or "
					 "NNN-name), not '%s'", v);
		} else {
			x->test_number = v;
		}
	}
	return 0;
}

static int check_dir(const char *flag, const char *dir)
{
	struct stat st;

	if (!dir)
		return 0;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return bad_usage("%s: no such directory", flag);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct xctx *x = sim_zalloc(sizeof(*x));
	char **rest = sim_zalloc(((size_t)argc + 1) * sizeof(*rest));
	const struct scn_variant *v;
	int nrest, rc;

	x->c = sim_zalloc(sizeof(*x->c));
	x->ld = sim_zalloc(sizeof(*x->ld));
	x->c->o.crash_bound = CS_BOUND_DEFAULT;
	x->test_number = "999";
	if ((rc = export_flags(x, argc, argv, rest, &nrest)) ||
	    (rc = parse_run_args(x->c, nrest, rest)))
		goto out;
	if ((rc = check_dir("-o", x->out_dir)) || (rc = check_dir("--model-dir", x->model_dir)))
		goto out;
	if (x->c->nr_inputs > 1) {
		rc = bad_usage("export takes one scenario file or -c steps%s", "");
		goto out;
	}
	if (x->c->nr_cmds && (rc = inline_scenario(x->c, &x->ld->s)))
		goto out;
	if ((rc = load_one(x->c, x->c->nr_cmds ? NULL : x->c->inputs[0], x->ld)))
		goto out;
	choose_variant(x, &v);
	fill_config(x, v);
	for (uint32_t i = 0; i < x->ld->s.nr_steps; i++) {
		const char *why = model_only(&x->ld->s.steps[i]);

		if (why) {
			rc = refuse(x, &x->ld->s.steps[i], "%s", why);
			goto out;
		}
	}
	build_as_run(x);
	if (!x->model_dir) {
		const char *t = getenv("TMPDIR");

		snprintf(x->tmp_dir, sizeof(x->tmp_dir), "%s/ext4sim-export.XXXXXX",
			 t && t[0] ? t : "/tmp");
		if (!mkdtemp(x->tmp_dir)) {
			fprintf(stderr, "ext4sim: export: cannot create %s: %s\n", x->tmp_dir,
				strerror(errno));
			rc = 2;
			goto out;
		}
	}
	rc = run_model(x);
	if (!x->model_dir)
		rmdir(x->tmp_dir);
	if (!rc)
		rc = write_outputs(x);
out:
	if (x->have_r)
		sim_variant_result_free(&x->r, x->run.nr_steps);
	free(x->run.steps);
	free(x->pts);
	scn_free(&x->ld->s);
	free(x->ld);
	free(x->c);
	free(rest);
	free(x);
	return rc;
}
