/*
 * export_steps.c - the steps of an exported scenario as shell text (both
 * script formats): each run of steps up to a close, evict, chattr, commit,
 * remount or crash is one xfs_io process on the file, its -c commands the
 * model's steps mapped to xfs_io's (writeback = sync_range -w then -a, sync
 * = syncfs, an mwrite, mread or madvise under one mmap of the process; a
 * direct pwrite in a process with the file opened O_DIRECT, xfs_io -d or
 * the open's -d); what runs outside a process is the format's own
 * (xp_emit_steps' callback).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "export.h"

/* The xfs_io commands of one model step (in a process on the file). */
static unsigned io_commands(const struct emitter *e, const struct scn_step *st,
			    char cmds[2][SCN_STEP_TEXT_MAX + 64])
{
	long long off = (long long)st->s_off, len = (long long)st->s_len;

	switch (st->s_op) {
	case SCN_COPY_RANGE:
		/* the file by name: `-f 0` would close xfs_io's own descriptor of it */
		orc_step_text(st, cmds[0], sizeof(cmds[0]));
		strcat(cmds[0], e->fmt == XF_FSTESTS ? " $file" : " f");
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
	case SCN_PWRITE: {
		/* O_DIRECT is the process's (xfs_io -d): xfs_io's pwrite -d is its -i file's */
		struct scn_step plain = *st;

		SIM_ASSERT(!st->s_aio && (!st->s_direct || e->direct));
		plain.s_direct = false;
		orc_step_text(&plain, cmds[0], sizeof(cmds[0]));
		return 1;
	}
	default:
		orc_step_text(st, cmds[0], sizeof(cmds[0]));
		return 1;
	}
}

/* The mapping a process's stores need: 1 MiB, or up to the last store's page. */
static long long map_length(const struct scenario *s, uint32_t from)
{
	long long len = 1 << 20;

	for (uint32_t i = from; i < s->nr_steps && orc_step_in_process(&s->steps[i]); i++) {
		const struct scn_step *st = &s->steps[i];
		long long end = (long long)(st->s_off + st->s_len + 4095) / 4096 * 4096;

		if (orc_maps_implicitly(st) && end > len)
			len = end;
	}
	return len;
}

/*
 * Write @n bytes of the command line at @c, wrapping before a -c once the
 * line would pass column 78; *col is the column.  Returns the bytes taken.
 */
static size_t emit_chunk(struct emitter *e, const char *c, size_t n, size_t *col)
{
	size_t taken = n;

	if (*col > 8 && *col + n > 78) {
		fputs(" \\\n\t", e->out);
		*col = 8;
		c++;            /* the blank before -c */
		n--;
	}
	fwrite(c, 1, n, e->out);
	*col += n;
	return taken;
}

/* The process's command line, a -c per line once it gets long. */
static void emit_flush(struct emitter *e)
{
	size_t col = 2;

	if (!e->line[0] && !e->open_step)
		return;
	fputs(e->steps, e->out);
	if (e->open_step && e->fmt == XF_FSTESTS)       /* the test's $file (open PATH) */
		xp_emit_file(e->out, &e->s->steps[e->open_step - 1]);
	else if (e->open_step)  /* the namespace script's file of the process (open PATH) */
		xp_emit_use(e->out, &e->s->steps[e->open_step - 1]);
	if (!e->line[0])        /* the process opens the file and does nothing else */
		snprintf(e->line, sizeof(e->line), " -c quit");
	fputs("io", e->out);    /* each format's shell function running xfs_io on the file */
	if (e->open_step && e->fmt == XF_FSTESTS) {     /* the open's flags, this process's */
		const struct scn_step *op = &e->s->steps[e->open_step - 1];

		fprintf(e->out, "%s%s%s%s", op->s_creat ? " -f" : "", op->s_trunc ? " -t" : "",
			op->s_direct ? " -d" : "", op->s_osync ? " -s" : "");
	}
	if (e->direct && !e->open_step)         /* a direct pwrite's process: O_DIRECT */
		fputs(" -d", e->out);
	for (const char *c = e->line; *c;) {
		const char *next = strstr(c + 1, " -c ");

		c += emit_chunk(e, c, next ? (size_t)(next - c) : strlen(c), &col);
	}
	fputc('\n', e->out);
	if (e->flushed)
		e->flushed(e, e->first, e->end, e->flush_arg);
	e->line[0] = e->steps[0] = '\0';
	e->mapped = false;
	e->direct = false;
	e->open_step = 0;
}

/* printf to the end of the string in @buf (of @cap bytes). */
static void append(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
}

/* Step @i as a "# [N] text" comment line, pending until the process is written. */
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

/* One step inside an xfs_io process: its -c commands, after the mmap the first store needs. */
static void emit_io_step(struct emitter *e, uint32_t i)
{
	const struct scn_step *st = &e->s->steps[i];
	const char *q = e->fmt == XF_FSTESTS ? "\"" : "'";
	char cmds[2][SCN_STEP_TEXT_MAX + 64];
	unsigned n;

	if (!e->line[0])
		e->first = i;
	e->end = i + 1;
	emit_step_comment(e, i);
	if (st->s_op == SCN_OPEN) {     /* the first step of its process (orc_as_run) */
		SIM_ASSERT(!e->line[0] && !e->open_step);
		e->open_step = i + 1;
		e->direct = st->s_direct;
		return;
	}
	/* a direct pwrite starts its process, or is in an O_DIRECT one (orc_as_run) */
	if (st->s_op == SCN_PWRITE && st->s_direct && !e->line[0] && !e->open_step)
		e->direct = true;
	if (st->s_op == SCN_MMAP || st->s_op == SCN_MUNMAP)
		e->mapped = st->s_op == SCN_MMAP;
	if (orc_maps_implicitly(st) && !e->mapped) {
		append(e->line, sizeof(e->line), " -c %smmap -rw 0 %lld%s", q,
		       map_length(e->s, i), q);
		e->mapped = true;
	}
	n = io_commands(e, st, cmds);
	for (unsigned k = 0; k < n; k++)
		append(e->line, sizeof(e->line), " -c %s%s%s", q, cmds[k], q);
}

void xp_emit_steps(struct emitter *e, xp_outside_fn outside, void *arg)
{
	for (uint32_t i = 0; i < e->s->nr_steps; i++) {
		if (orc_step_in_process(&e->s->steps[i])) {
			emit_io_step(e, i);
			continue;
		}
		emit_outside_process(e, i);
		outside(e, i, arg);
	}
	emit_flush(e);
}

void xp_shell_word(FILE *out, const char *prefix, const char *word)
{
	fputc('\'', out);
	fputs(prefix, out);
	for (const char *c = word; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", out);
		else
			fputc(*c, out);
	}
	fputc('\'', out);
}

void xp_emit_use(FILE *out, const struct scn_step *st)
{
	SIM_ASSERT(st->s_op == SCN_OPEN && st->s_path[0] == '/');
	fputs("use ", out);
	xp_shell_word(out, ".", st->s_path);
	fprintf(out, "%s%s%s%s\n", st->s_creat ? " -f" : "", st->s_trunc ? " -t" : "",
		st->s_direct ? " -d" : "", st->s_osync ? " -s" : "");
}

void xp_emit_file(FILE *out, const struct scn_step *st)
{
	SIM_ASSERT(st->s_op == SCN_OPEN && st->s_path[0] == '/');
	if (strspn(st->s_path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-")
	    == strlen(st->s_path)) {
		fprintf(out, "file=$SCRATCH_MNT%s\n", st->s_path);
		return;
	}
	fputs("file=$SCRATCH_MNT", out);
	xp_shell_word(out, "", st->s_path);
	fputc('\n', out);
}

/* Every step of @s as "PREFIX[N] text" lines. */
void xp_print_step_list(FILE *out, const struct scenario *s, const char *prefix)
{
	char text[SCN_STEP_TEXT_MAX];

	for (uint32_t i = 0; i < s->nr_steps; i++) {
		orc_step_text(&s->steps[i], text, sizeof(text));
		fprintf(out, "%s[%u] %s\n", prefix, i + 1, text);
	}
}

/*
 * The exported mount options: the configuration's, with dioread_nolock as
 * the model mounts it under the variant's kernel (ext4_set_def_opts): the
 * config's dioread_nolock stands for the kernel's default, which before 6.8
 * is dioread_lock for blocks smaller than a page and before 5.6 for every
 * block, while a kernel given `dioread_nolock` by name honours it (5.10,
 * 6.1) or refuses to mount at those block sizes (4.4 to 5.4).
 */
void xp_mount_options(const struct xctx *x, char *buf, size_t cap)
{
	struct orc_config m = x->oc;

	m.dioread_nolock = ext4_set_def_opts(&x->cfg->opts, &x->cfg->sem).dioread_nolock;
	orc_mount_options_all(&m, buf, cap);
}

/* The model's configuration as two comment lines. */
void xp_print_config_line(FILE *out, const struct xctx *x, const char *prefix)
{
	const struct ext4_mount_opts o_mount = ext4_set_def_opts(&x->cfg->opts, &x->cfg->sem);
	const struct ext4_mount_opts *o = &o_mount;
	bool dio = o->delalloc && o->data != DATA_JOURNAL && o->dioread_nolock;

	fprintf(out, "%sModel: kernel profile %s, variant %s;\n%sblock size %u, data=%s, %s%s.\n",
		prefix, x->cfg->profile->name, x->cfg->name, prefix, o->block_size,
		orc_data_name(x->oc.data), o->delalloc ? "delalloc" : "nodelalloc",
		dio ? ", dioread_nolock" : "");
}

static const char *const mapping_doc =
	"How the steps map (docs/real-kernel.md): each run of steps up to a\n"
	"close, evict, chattr, commit, remount or crash is one xfs_io process\n"
	"(the model's steps have a close there); crash = shutdown without a log\n"
	"flush, unmount, mount; evict = echo 1 > /proc/sys/vm/drop_caches;\n"
	"chattr = xfs_io's chattr +s or -s, a process of its own; writeback =\n"
	"sync_range -w then -a; commit = a timestamp change and fsync of another\n"
	"file, ext4sim-commit (xfs_io runs every command on every file it has\n"
	"open, hence the close before it); sync = syncfs; remount = unmount,\n"
	"mount.  A direct write (pwrite -d) runs in an xfs_io -d process, the\n"
	"file opened O_DIRECT (xfs_io's own pwrite -d is O_DIRECT for its -i\n"
	"input file), with a close where a step needs the other kind; open -d\n"
	"and -s are the process's -d and -s.  A real device completes a write\n"
	"at once, so sync_range -w is followed by sync_range -a, and a close\n"
	"after a truncate to 0 (auto_da_alloc) by a wait.  After the remount\n"
	"that follows a crash the page cache is dropped, as the model's is\n"
	"empty.\n";

/* How the steps map to a real ext4, each line after @prefix. */
void xp_print_mapping_doc(FILE *out, const char *prefix)
{
	const char *text = mapping_doc;

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);

		fprintf(out, "%s%.*s\n", prefix, (int)n, text);
		text += n + (nl != NULL);
	}
}
