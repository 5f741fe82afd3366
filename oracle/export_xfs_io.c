/*
 * export_xfs_io.c - export --format xfs_io: a bash script that runs the
 * scenario with xfs_io on a file of a mounted ext4 and prints the size and
 * SHA-256 of the file at each read-back point ("pre N", "post N", "final"),
 * with the model's predictions as "# model:" comment lines, which
 * kernel-check compares with what the script prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* One "# model:" line per prediction of a crash's post point. */
static void print_post_lines(FILE *out, const struct xpoint *p)
{
	fprintf(out, "# model: post %u continue size %lld sha256 %s\n", p->crash_no,
		(long long)p->size, p->sha);
	if (!p->cp) {
		fprintf(out, "# model: post %u states 0 not-enumerated\n", p->crash_no);
		return;
	}
	fprintf(out, "# model: post %u states %u %s %llu of %.0f\n", p->crash_no,
		p->cp->nr_states, p->cp->exhaustive ? "exhaustive" : "sampled",
		(unsigned long long)p->cp->evaluated, p->cp->reduced_states);
	for (uint32_t j = 0; j < p->cp->nr_states; j++)
		fprintf(out, "# model: post %u state size %lld sha256 %s\n", p->crash_no,
			(long long)p->cp->states[j].size, p->cp->states[j].sha256);
}

/* A namespace's lines (nsnap_text), each as "# model: ns WHAT LINE". */
static void print_ns_lines(FILE *out, const char *what, const char *ns)
{
	while (ns && *ns) {
		const char *nl = strchr(ns, '\n');
		size_t n = nl ? (size_t)(nl - ns) : strlen(ns);

		fprintf(out, "# model: ns %s %.*s\n", what, (int)n, ns);
		ns += n + (nl != NULL);
	}
}

/*
 * A namespace scenario's point: "# model: pre N namespace" (final, post N
 * states ...) and the namespace's lines, per state at a crash point.
 */
static void print_ns_point(FILE *out, const struct xpoint *p)
{
	char what[64];

	if (p->kind != XP_POST) {
		snprintf(what, sizeof(what), p->kind == XP_FINAL ? "final" : "pre %u", p->crash_no);
		fprintf(out, "# model: %s namespace\n", what);
		print_ns_lines(out, what, p->ns);
		return;
	}
	if (!p->cp) {
		fprintf(out, "# model: post %u states 0 not-enumerated\n", p->crash_no);
		return;
	}
	fprintf(out, "# model: post %u states %u %s %llu of %.0f\n", p->crash_no,
		p->cp->nr_states, p->cp->exhaustive ? "exhaustive" : "sampled",
		(unsigned long long)p->cp->evaluated, p->cp->reduced_states);
	for (uint32_t j = 0; j < p->cp->nr_states; j++) {
		snprintf(what, sizeof(what), "post %u state %u", p->crash_no, j + 1);
		print_ns_lines(out, what, p->cp->states[j].ns);
	}
}

/* The model's predictions as "# model: ..." lines (kernel-check reads them). */
static void print_model_lines(FILE *out, const struct xctx *x)
{
	char opts[256], key[128];

	xp_mount_options(x, opts, sizeof(opts));
	orc_config_key(&x->oc, key, sizeof(key));
	fprintf(out, "# model: config block_size %u options %s kernel %s key %s\n",
		x->oc.block_size, opts, x->cfg->profile->name, key);
	for (unsigned k = 0; k < x->nr_pts; k++) {
		const struct xpoint *p = &x->pts[k];

		if (x->ns)
			print_ns_point(out, p);
		else if (p->kind == XP_FINAL)
			fprintf(out, "# model: final size %lld sha256 %s\n", (long long)p->size,
				p->sha);
		else if (p->kind == XP_PRE)
			fprintf(out, "# model: pre %u size %lld sha256 %s\n", p->crash_no,
				(long long)p->size, p->sha);
		else
			print_post_lines(out, p);
	}
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

static void print_steps(FILE *out, const struct xctx *x)
{
	xp_print_step_list(out, &x->run, "#   ");
}

/* The crash's number among the crashes of @s, counting step @i. */
static unsigned crash_number(const struct scenario *s, uint32_t i)
{
	unsigned n = 0;

	for (uint32_t k = 0; k <= i; k++)
		n += xp_is_crash(s->steps[k].s_op);
	return n;
}

/*
 * The namespace script's command for namespace step @st: nsop with the
 * step's operation and its paths from the mount point (symlink's TARGET as
 * written), fsync_path for fsync PATH and fdatasync PATH.
 */
static void namespace_step(FILE *out, const struct scn_step *st)
{
	if (st->s_op == SCN_FSYNC || st->s_op == SCN_FDATASYNC) {
		fprintf(out, "fsync_path %s ", st->s_op == SCN_FSYNC ? "fsync" : "fdatasync");
		xp_shell_word(out, ".", st->s_path);
		fputc('\n', out);
		return;
	}
	fprintf(out, "nsop %s ", scn_op_name(st->s_op));
	if (st->s_op == SCN_SYMLINK) {
		xp_shell_word(out, "", st->s_path2);
		fputc(' ', out);
	}
	xp_shell_word(out, ".", st->s_path);
	if (st->s_op == SCN_LINK || st->s_op == SCN_RENAME) {
		fputc(' ', out);
		xp_shell_word(out, ".", st->s_path2);
	}
	if (st->s_op == SCN_RENAME)
		fprintf(out, " %u", st->s_rename_flags);
	fputc('\n', out);
}

/* The script's command for step @i, which runs outside an xfs_io process. */
static void outside_step(struct emitter *e, uint32_t i, void *arg)
{
	const struct scn_step *st = &e->s->steps[i];
	const struct xctx *x = arg;
	unsigned n;

	if (scn_step_is_namespace(st)) {
		namespace_step(e->out, st);
		return;
	}
	switch (st->s_op) {
	case SCN_EVICT:
		fprintf(e->out, "drop_caches\n");
		break;
	case SCN_DIO_READ:
		fprintf(e->out, "io -d -c 'pread %lld %lld'\n", (long long)st->s_off,
			(long long)st->s_len);
		break;
	case SCN_CHATTR:
		/* xfs_io's chattr +s (FS_IOC_FSSETXATTR) sets EXT4_SYNC_FL: 6.18.44 */
		fprintf(e->out, "xfs_io -c 'chattr %cs' \"$MNT/f\" >> \"$LOG\" 2>&1 || die \"chattr "
			"failed\"\n", st->s_sync_flag ? '+' : '-');
		break;
	case SCN_REMOUNT:
		fprintf(e->out, "remount\n");
		break;
	case SCN_COMMIT:
		fprintf(e->out, "commit\n");
		break;
	case SCN_CRASH:
	case SCN_SHUTDOWN:
		n = crash_number(e->s, i);
		fprintf(e->out, "point \"pre %u\" pre%u\n%s\npoint \"post %u\" post%u\n", n, n,
			st->s_logflush ? "xfs_io -x -r -c 'shutdown -f' \"$MNT\" >> \"$LOG\" 2>&1 || "
			"die \"shutdown -f failed\"\nremount" : "crash", n, n);
		if (x->ns)
			fprintf(e->out, "fsck_point \"post %u\"\n", n);
		fprintf(e->out, "drop_caches\n");
		break;
	default:
		break;
	}
}

void xp_write_xfs_io(FILE *out, const struct xctx *x)
{
	struct emitter *e = sim_zalloc(sizeof(*e));
	char opts[256], bs[16];
	const struct xp_var vars[] = {
		{ "name", x->ld->s.name, NULL }, { "path", x->ld->s.path, NULL },
		{ "block_size", bs, NULL }, { "options", opts, NULL },
		{ "config", NULL, print_config }, { "mapping", NULL, print_mapping },
		{ "steps", NULL, print_steps }, { "model", NULL, print_model_lines },
	};

	xp_mount_options(x, opts, sizeof(opts));
	snprintf(bs, sizeof(bs), "%u", x->oc.block_size);
	xp_fill(out, x->ns ? xp_xfs_io_ns_preamble : xp_xfs_io_preamble, vars,
		sizeof(vars) / sizeof(vars[0]), x);
	e->out = out;
	e->fmt = XF_XFS_IO;
	e->s = &x->run;
	xp_emit_steps(e, outside_step, (void *)x);
	if (x->nr_pts && x->pts[x->nr_pts - 1].kind == XP_FINAL)
		fprintf(out, "point final final\n");
	fprintf(out, "exit 0\n");
	free(e);
}
