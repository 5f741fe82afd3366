/*
 * oracle.c - helpers of export, import and gen (see oracle.h).
 */
#include "oracle.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "scnwrite.h"
#include "sim.h"

const char *orc_data_name(enum scn_data_mode d)
{
	static const char *const names[] = { "ordered", "writeback", "journal" };

	return names[d];
}

static void range(char *buf, size_t cap, const char *op, const char *opt,
		  const struct scn_step *st)
{
	snprintf(buf, cap, "%s%s %lld %lld", op, opt, (long long)st->s_off, (long long)st->s_len);
}

static void persist_list(char *buf, size_t cap, const struct scn_step *st)
{
	size_t n = strlen(buf);

	if (!st->s_has_persist)
		return;
	n += (size_t)snprintf(buf + n, cap - n, " --keep %s", st->s_nr_persist ? "" : "none");
	for (uint16_t k = 0; k < st->s_nr_persist && n < cap; k++) {
		if (st->s_persist[k][0] == st->s_persist[k][1])
			n += (size_t)snprintf(buf + n, cap - n, "%s%u", k ? "," : "",
					      st->s_persist[k][0]);
		else
			n += (size_t)snprintf(buf + n, cap - n, "%s%u-%u", k ? "," : "",
					      st->s_persist[k][0], st->s_persist[k][1]);
	}
}

/* pwrite's options: -d and --aio; --short, or -b, -V and the syncs; then -S. */
static void pwrite_options(const struct scn_step *st, char *opt, size_t cap)
{
	snprintf(opt, cap, "%s%s", st->s_direct ? " -d" : "", st->s_aio ? " --aio" : "");
	if (st->s_short_copy >= 0)
		snprintf(opt + strlen(opt), cap - strlen(opt), " --short %lld",
			 (long long)st->s_short_copy);
	if (st->s_bsize)
		snprintf(opt + strlen(opt), cap - strlen(opt), " -b %u", st->s_bsize);
	if (st->s_vectors)
		snprintf(opt + strlen(opt), cap - strlen(opt), " -V %u", st->s_vectors);
	if (st->s_random)
		snprintf(opt + strlen(opt), cap - strlen(opt), " -R -Z %u", st->s_zeed);
	snprintf(opt + strlen(opt), cap - strlen(opt), "%s%s%s%s -S 0x%02x",
		 st->s_dsync ? " -D" : "", st->s_atomic ? " -A" : "",
		 st->s_fsync_after ? " -W" : "", st->s_fdatasync_after ? " -w" : "", st->s_fill);
}

/* An optional range, as the steps whose operands are [OFF LEN] take it. */
static void opt_range(char *buf, size_t cap, const char *op, const char *opt,
		      const struct scn_step *st)
{
	if (st->s_has_range)
		range(buf, cap, op, opt, st);
	else
		snprintf(buf, cap, "%s%s", op, opt);
}

/* The steps of a mapping added with mread: mread, mremap, madvise; and fadvise. */
static bool advice_text(const struct scn_step *st, char *buf, size_t cap)
{
	char opt[16] = "";

	if (st->s_advice)
		snprintf(opt, sizeof(opt), " -%c", st->s_advice);
	switch (st->s_op) {
	case SCN_MREAD:
		snprintf(opt, sizeof(opt), "%s%s", st->s_reverse ? " -r" : "",
			 st->s_file_offsets ? " -f" : st->s_verbose ? " -v" : "");
		opt_range(buf, cap, "mread", opt, st);
		return true;
	case SCN_MREMAP:
		snprintf(buf, cap, "mremap -m %lld", (long long)st->s_len);
		return true;
	case SCN_MADVISE: case SCN_FADVISE:
		opt_range(buf, cap, scn_op_name(st->s_op), opt, st);
		return true;
	default:
		return false;
	}
}

/* copy_range, and the steps an explicit mapping brings: mmap, msync. */
static bool mapping_text(const struct scn_step *st, char *buf, size_t cap)
{
	char opt[64];

	switch (st->s_op) {
	case SCN_COPY_RANGE:
		snprintf(buf, cap, "copy_range -s %lld -d %lld", (long long)st->s_src,
			 (long long)st->s_off);
		if (st->s_has_len)
			snprintf(buf + strlen(buf), cap - strlen(buf), " -l %lld",
				 (long long)st->s_len);
		return true;
	case SCN_MMAP:
		snprintf(opt, sizeof(opt), " -%s%s%s%s", st->s_prot & 1 ? "r" : "",
			 st->s_prot & 2 ? "w" : "", st->s_prot & 4 ? "x" : "",
			 st->s_map_sync ? "S" : "");
		range(buf, cap, "mmap", opt, st);
		return true;
	case SCN_MSYNC:
		snprintf(opt, sizeof(opt), "%s%c", st->s_msync_flag ? " -" : "",
			 st->s_msync_flag);
		if (st->s_has_range)
			range(buf, cap, "msync", opt, st);
		else
			snprintf(buf, cap, "msync%s", opt);
		return true;
	default:
		return false;
	}
}

/* The namespace steps, their paths as the step holds them (with the leading '/'). */
static bool namespace_text(const struct scn_step *st, char *buf, size_t cap)
{
	const char *name = scn_op_name(st->s_op);

	switch (st->s_op) {
	case SCN_FSYNC: case SCN_FDATASYNC:
		if (!st->s_has_path)
			return false;
		snprintf(buf, cap, "%s %s", name, st->s_path);
		return true;
	case SCN_OPEN:
		snprintf(buf, cap, "open%s%s%s%s %s", st->s_creat ? " -f" : "",
			 st->s_trunc ? " -t" : "", st->s_direct ? " -d" : "",
			 st->s_osync ? " -s" : "", st->s_path);
		return true;
	case SCN_CREAT: case SCN_MKDIR: case SCN_RMDIR: case SCN_UNLINK:
		snprintf(buf, cap, "%s %s", name, st->s_path);
		return true;
	case SCN_LINK: case SCN_RENAME:
		snprintf(buf, cap, "%s%s%s %s %s", name,
			 st->s_rename_flags & SCN_RENAME_NOREPLACE ? " -n" : "",
			 st->s_rename_flags & SCN_RENAME_EXCHANGE ? " -x" : "", st->s_path, st->s_path2);
		return true;
	case SCN_SETXATTR: case SCN_REMOVEXATTR:
		snprintf(buf, cap, "%s %s%s %s%s%s", name, st->s_xattr_name[0] == '-' ||
			 st->s_path2[0] == '-' ? "-- " : "", st->s_path, st->s_xattr_name,
			 st->s_path2[0] ? " " : "", st->s_path2);
		return true;
	case SCN_SYMLINK:     /* a target that looks like an option needs the "--" */
		snprintf(buf, cap, "symlink %s%s %s", st->s_path2[0] == '-' ? "-- " : "",
			 st->s_path2, st->s_path);
		return true;
	default:
		return false;
	}
}

void orc_step_text(const struct scn_step *st, char *buf, size_t cap)
{
	char opt[96];

	if (mapping_text(st, buf, cap) || advice_text(st, buf, cap) ||
	    namespace_text(st, buf, cap))
		return;
	switch (st->s_op) {
	case SCN_PWRITE:
		pwrite_options(st, opt, sizeof(opt));
		range(buf, cap, "pwrite", opt, st);
		break;
	case SCN_MWRITE:
		snprintf(opt, sizeof(opt), "%s -S 0x%02x", st->s_reverse ? " -r" : "", st->s_fill);
		range(buf, cap, "mwrite", opt, st);
		break;
	case SCN_PREAD:
	case SCN_DIO_READ:
		range(buf, cap, scn_op_name(st->s_op), st->s_verbose ? " -v" : "", st);
		break;
	case SCN_TRUNCATE:
		snprintf(buf, cap, "truncate %lld", (long long)st->s_len);
		break;
	case SCN_FALLOC:
	case SCN_FZERO:
		range(buf, cap, scn_op_name(st->s_op), st->s_keep_size ? " -k" : "", st);
		break;
	case SCN_FPUNCH:
	case SCN_FCOLLAPSE:
	case SCN_FINSERT:
	case SCN_FUNSHARE:
		range(buf, cap, scn_op_name(st->s_op), "", st);
		break;
	case SCN_SYNC_RANGE:
		snprintf(opt, sizeof(opt), " -%c", st->s_sr_flag);
		range(buf, cap, "sync_range", opt, st);
		break;
	case SCN_WRITEBACK:
		if (st->s_has_range)
			range(buf, cap, "writeback", "", st);
		else
			snprintf(buf, cap, "writeback");
		break;
	case SCN_CHATTR:
		snprintf(buf, cap, "chattr %cS", st->s_sync_flag ? '+' : '-');
		break;
	case SCN_CRASH:
	case SCN_SHUTDOWN:
		snprintf(buf, cap, "%s%s", scn_op_name(st->s_op), st->s_logflush ? " -f" : "");
		persist_list(buf, cap, st);
		break;
	case SCN_INJECT:
		snprintf(buf, cap, "inject %s", scn_fault_name(st->s_fault));
		if (st->s_fault == SCN_FAULT_ENOSPC)
			snprintf(buf + strlen(buf), cap - strlen(buf), " --after %lld",
				 (long long)(st->s_after < 0 ? 0 : st->s_after));
		break;
	default:
		snprintf(buf, cap, "%s", scn_op_name(st->s_op));
		break;
	}
}

void orc_make_step(struct scn_step *st, const char *fmt, ...)
{
	char text[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	unsigned col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (scn_parse_step(text, st, err, sizeof(err), &col) != 0) {
		fprintf(stderr, "ext4sim: internal step '%s': %s\n", text, err);
		SIM_ASSERT(!"a step built by ext4sim does not parse");
	}
	snprintf(st->s_text, sizeof(st->s_text), "%s", text);
}

/* config: with every key explicit (but the defaults of disk_blocks and kernel, and the
 * judging keys: each only where set). */
static void write_config(FILE *out, const struct orc_config *c)
{
	fprintf(out, "config:\n  block_size: %u\n  data: %s\n  delalloc: %s\n",
		c->block_size, orc_data_name(c->data),
		c->delalloc && c->data != SCN_DATA_JOURNAL ? "true" : "false");
	fprintf(out, "  dioread_nolock: %s\n", c->dioread_nolock ? "true" : "false");
	if (c->noauto_da_alloc)
		fputs("  auto_da_alloc: false\n", out);
	if (c->disk_blocks)
		fprintf(out, "  disk_blocks: %u\n", c->disk_blocks);
	if (c->kernel[0])
		scn_yaml_line(out, "  ", "kernel", c->kernel, SCN_YAML_QUOTED);
	if (c->nr_patches) {
		fputs("  patches:\n", out);
		for (unsigned i = 0; i < c->nr_patches; i++)
			fprintf(out, "    %s: %s\n", c->patches[i].p_name,
				c->patches[i].p_on ? "on" : "off");
	}
	if (c->judging.rc_set_crash_everywhere && c->judging.rc_crash_everywhere)
		fputs("  crash_everywhere: true\n", out);    /* import --from ace's checkpoints */
	if (c->judging.rc_set_crash_bound)
		fprintf(out, "  crash_bound: %llu\n", (unsigned long long)c->judging.rc_crash_bound);
	for (unsigned i = 0; i < c->judging.rc_nr_fail_on; i++)
		fprintf(out, "%s%s%s", i ? ", " : "  fail_on: [", c->judging.rc_fail_on[i],
			i + 1 == c->judging.rc_nr_fail_on ? "]\n" : "");
}

void orc_write_yaml(FILE *out, const struct orc_yaml *y)
{
	const struct orc_config *c = y->config;
	char text[SCN_STEP_TEXT_MAX];

	scn_yaml_line(out, "", "name", y->name, SCN_YAML_PLAIN);
	if (y->description && y->description[0])
		scn_yaml_line(out, "", "description", y->description, SCN_YAML_FOLDED);
	if (y->source && y->source[0])
		scn_yaml_line(out, "", "source", y->source, SCN_YAML_QUOTED);
	if (c)
		write_config(out, c);
	fputs("steps:\n", out);
	for (unsigned i = 0; i < y->nr_steps; i++) {
		orc_step_text(&y->steps[i], text, sizeof(text));
		scn_yaml_item(out, "  ", text, SCN_YAML_PLAIN);
	}
}

void orc_name_from_path(const char *path, char *out, size_t cap)
{
	const char *base = strrchr(path, '/');
	size_t n = 0;

	base = base ? base + 1 : path;
	for (; *base && *base != '.' && n + 1 < cap && n + 1 < SCN_NAME_MAX; base++) {
		unsigned char c = (unsigned char)*base;

		out[n++] = isalnum(c) ? (char)tolower(c) : (c == '_' ? '_' : '-');
	}
	out[n] = '\0';
	if (!n)
		snprintf(out, cap, "imported");
}

void orc_mount_options_all(const struct orc_config *c, char *buf, size_t cap)
{
	bool journal = c->data == SCN_DATA_JOURNAL, dioread = c->delalloc && !journal;

	snprintf(buf, cap, "data=%s,%s%s,%s,commit=600,noatime", orc_data_name(c->data),
		 c->delalloc && !journal ? "delalloc" : "nodelalloc",
		 !dioread ? "" : c->dioread_nolock ? ",dioread_nolock" : ",dioread_lock",
		 c->noauto_da_alloc ? "noauto_da_alloc" : "auto_da_alloc");
}

void orc_config_key(const struct orc_config *c, char *buf, size_t cap)
{
	bool dioread = c->delalloc && c->data != SCN_DATA_JOURNAL;

	snprintf(buf, cap, "%u %s %s%s%s", c->block_size, orc_data_name(c->data),
		 c->delalloc && c->data != SCN_DATA_JOURNAL ? "delalloc" : "nodelalloc",
		 dioread && !c->dioread_nolock ? " dioread_lock" : "",
		 c->noauto_da_alloc ? " noauto_da_alloc" : "");
}

bool orc_maps_implicitly(const struct scn_step *st)
{
	return st->s_op == SCN_MWRITE ||
	       ((st->s_op == SCN_MREAD || st->s_op == SCN_MADVISE) && st->s_has_range);
}

bool orc_in_process(enum scn_op op)
{
	switch (op) {
	case SCN_CLOSE: case SCN_EVICT: case SCN_CHATTR: case SCN_REMOUNT:
	case SCN_CRASH: case SCN_SHUTDOWN: case SCN_COMMIT: case SCN_DIO_READ:
		return false;
	default:
		return true;
	}
}

bool orc_step_in_process(const struct scn_step *st)
{
	return orc_in_process(st->s_op) && (st->s_op == SCN_OPEN || !scn_step_is_namespace(st));
}

static bool is_wait_all(const struct scn_step *st)
{
	return st->s_op == SCN_SYNC_RANGE && st->s_sr_flag == 'a' && st->s_off == 0 &&
	       st->s_len == 0;
}

/* close, then (after a truncate to 0) wait for what auto_da_alloc started and close again */
static void close_after(const struct scn_step *in, unsigned n, unsigned next,
			struct scn_step *out, unsigned *k, bool *da_close)
{
	if (!*da_close)
		return;
	*da_close = false;
	if (next + 1 < n && is_wait_all(&in[next]) && in[next + 1].s_op == SCN_CLOSE)
		return;         /* already there (idempotence) */
	orc_make_step(&out[(*k)++], "sync_range -a 0 0");
	orc_make_step(&out[(*k)++], "close");
}

bool orc_needs_buffered_fd(const struct scn_step *st)
{
	switch (st->s_op) {
	case SCN_PWRITE:
		return !st->s_direct;
	case SCN_PREAD: case SCN_COPY_RANGE: case SCN_MMAP: case SCN_MWRITE: case SCN_MREAD:
	case SCN_MSYNC: case SCN_MUNMAP: case SCN_MREMAP: case SCN_MADVISE:
		return true;
	default:
		return false;
	}
}

/* The descriptor of the xfs_io process orc_as_run is in. */
struct as_run_fd {
	bool open;              /* a process is open */
	bool direct;            /* its file is O_DIRECT (xfs_io -d, or open -d) */
	bool by_open;           /* O_DIRECT by its open step: every pwrite is direct */
};

/*
 * Must the process end before step @st?  A step outside a process ends it,
 * and so does an open (it starts the next one on its file); a direct pwrite
 * needs a process whose file is O_DIRECT, and a read, a buffered write, a
 * copy or a mapping one whose file is not (a plain pwrite in an open -d
 * process is a direct write in the model too).
 */
static bool ends_process(const struct scn_step *st, const struct as_run_fd *fd)
{
	if (!fd->open || st->s_op == SCN_CLOSE)
		return false;
	if (!orc_step_in_process(st) || st->s_op == SCN_OPEN)
		return true;
	if (st->s_op == SCN_PWRITE && st->s_direct && !st->s_aio)
		return !fd->direct;
	if (st->s_op == SCN_PWRITE && fd->by_open)
		return false;
	return fd->direct && orc_needs_buffered_fd(st);
}

/* The process after step @st, which ran in the one @fd describes (or started it). */
static void track_fd(const struct scn_step *st, struct as_run_fd *fd)
{
	bool was_open = fd->open;

	fd->open = orc_step_in_process(st);
	if (!fd->open || was_open)
		return;
	fd->by_open = st->s_op == SCN_OPEN && st->s_direct;
	fd->direct = fd->by_open || (st->s_op == SCN_PWRITE && st->s_direct && !st->s_aio);
}

unsigned orc_as_run(const struct scn_step *in, unsigned n, struct scn_step *out)
{
	unsigned k = 0;
	bool da_close = false;
	struct as_run_fd fd = { false, false, false };

	for (unsigned i = 0; i < n; i++) {
		const struct scn_step *st = &in[i];

		if (ends_process(st, &fd)) {
			orc_make_step(&out[k++], "close");
			close_after(in, n, i, out, &k, &da_close);
			fd.open = false;
		}
		out[k++] = *st;
		if (st->s_op == SCN_CLOSE)
			close_after(in, n, i + 1, out, &k, &da_close);
		track_fd(st, &fd);
		if (st->s_op == SCN_TRUNCATE && st->s_len == 0)
			da_close = true;        /* EXT4_STATE_DA_ALLOC_CLOSE */
		/* a write sync_range -w starts completes at once on a real device */
		if (st->s_op == SCN_SYNC_RANGE && st->s_sr_flag == 'w' &&
		    !(i + 1 < n && in[i + 1].s_op == SCN_SYNC_RANGE && in[i + 1].s_sr_flag == 'a' &&
		      in[i + 1].s_off == st->s_off && in[i + 1].s_len == st->s_len))
			orc_make_step(&out[k++], "sync_range -a %lld %lld", (long long)st->s_off,
				      (long long)st->s_len);
	}
	if (fd.open) {
		orc_make_step(&out[k++], "close");
		close_after(in, n, n, out, &k, &da_close);
	}
	return k;
}
