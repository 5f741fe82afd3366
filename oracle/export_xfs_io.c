/*
 * export_xfs_io.c - export --format xfs_io: a bash script that runs the
 * scenario with xfs_io on a file of a mounted ext4 and prints the size and
 * SHA-256 of the file at each read-back point ("pre N", "post N", "final"),
 * with the model's predictions as "# model:" comment lines, which
 * kernel-check compares with what the script prints.
 */
#include <stdio.h>
#include <stdlib.h>

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

		if (p->kind == XP_FINAL)
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

/* The script's command for step @i, which runs outside an xfs_io process. */
static void outside_step(struct emitter *e, uint32_t i, void *arg)
{
	const struct scn_step *st = &e->s->steps[i];
	unsigned n;

	(void)arg;
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
		fprintf(e->out, "point \"pre %u\" pre%u\n%s\npoint \"post %u\" post%u\n"
			"drop_caches\n", n, n, st->s_logflush ? "xfs_io -x -r -c 'shutdown -f' "
			"\"$MNT\" >> \"$LOG\" 2>&1 || die \"shutdown -f failed\"\nremount" : "crash",
			n, n);
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
	xp_fill(out, xp_xfs_io_preamble, vars, sizeof(vars) / sizeof(vars[0]), x);
	e->out = out;
	e->fmt = XF_XFS_IO;
	e->s = &x->run;
	xp_emit_steps(e, outside_step, NULL);
	if (x->nr_pts && x->pts[x->nr_pts - 1].kind == XP_FINAL)
		fprintf(out, "point final final\n");
	fprintf(out, "exit 0\n");
	free(e);
}
