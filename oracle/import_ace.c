/*
 * import_ace.c - ext4sim import --from ace: a workload of CrashMonkey's ACE
 * generator, the j-lang file it writes (ace/ace.py's buildJlang, read by
 * ace/cmAdapter.py), as a namespace scenario (docs/ace.md, "Import").
 *
 * A j-lang file has sections: `# define` (one path a line, relative to the
 * mount point: `A/foo`; its name in the operations is the path without the
 * slashes, `Afoo`; `test` is the mount point itself), `# declare` (C
 * variables of the generated test: ignored), `# setup` (operations run
 * before CrashMonkey's snapshot: a remount follows them here) and `# run`
 * (the workload).  Each operation becomes the model's steps:
 *
 *   open N FLAGS MODE     open [-f] [-t] [-d] [-s] /P (O_CREAT, O_TRUNC, O_DIRECT,
 *                         O_SYNC; MODE ignored)
 *   opendir N MODE        nothing (fsync N takes the path)
 *   mkdir N MODE          mkdir /P
 *   falloc N MODE OFF LEN falloc [-k], fzero [-k], fpunch, fcollapse, finsert
 *   write N OFF LEN       pwrite of one fill byte, split as WriteData splits it
 *   dwrite N OFF LEN      close, open -d -s /P, pwrite OFF LEN (direct), close
 *   mmapwrite N OFF LEN   falloc OFF LEN, mmap -rw 0 OFF+LEN, mwrite, msync -s OFF
 *                         min(8192, LEN), munmap (cmAdapter's fallocate, memcpy,
 *                         msync of 8 KiB, of which the kernel syncs what is mapped)
 *   link, rename, symlink link /P /Q, rename /P /Q, symlink /P /Q
 *   unlink, remove, rmdir unlink /P (remove of a directory: rmdir), rmdir /P
 *   close N               close, once for each open of N (none for a directory)
 *   fsync N, fdatasync N  fsync /P, fdatasync /P (the root for `test`)
 *   sync                  sync
 *   fsetxattr N           setxattr /P user.xattr1 val1
 *   removexattr N         removexattr /P user.xattr1
 *   truncate N LEN        truncate LEN of /P
 *   none                  nothing
 *   checkpoint [K]        a crash point: the last is a crash step, and an
 *                         earlier one makes the scenario crash_everywhere
 *
 * The model has one current file: a data operation on another file opens it
 * (another open description), and its close closes each.  Refused, at the
 * word, as FILE:LINE:COL: mknod, open flags the model
 * has not, an operation after the last checkpoint other than close, names
 * not defined, and malformed lines.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import_ace.h"
#include "sim.h"

#define ACE_LINE_MAX 4096               /* bytes in one line, the newline aside */
#define ACE_BYTES_MAX (16u << 20)       /* bytes of input read in all */
#define ACE_ID_MAX 64                   /* bytes of a name (the path without '/') */
#define ACE_PAGE 4096u                  /* WriteData's data block */
#define ACE_MSYNC_LEN 8192              /* cmAdapter's msync length */

enum ace_section { AS_NONE, AS_DEFINE, AS_DECLARE, AS_SETUP, AS_RUN };

struct ace_name {
	char id[ACE_ID_MAX];
	char path[SCN_PATH_MAX];        /* from the root: "/A/foo", "/" for test */
	bool dir;                       /* made by mkdir or opendir, or test */
	bool dir_open;                  /* opendir'ed, not closed */
	bool dwrite_closed;             /* closed by a dwrite: ACE's close of it is EBADF */
	unsigned opened;                /* open descriptions the steps made */
};

struct ace {
	const char *path;
	struct ace_result *r;
	enum ace_section sec;
	struct ace_name names[ACE_NAMES_MAX];
	unsigned nr_names;
	int current;                    /* the model's current file: a name, or -1 */
	unsigned nr_fills;
	unsigned line;
	unsigned ck_step;               /* steps before the last checkpoint so far */
	unsigned ck_line, ck_col;
	unsigned after_line, after_col; /* the first operation after it, not a close */
	bool setup_ops;
};

struct atok {
	char *t;
	unsigned col;
};

/* The message "FILE:LINE:COL: ..." of the line being read, in r->err; returns -1. */
__attribute__((format(printf, 3, 4)))
static int ace_err(struct ace *a, unsigned col, const char *fmt, ...)
{
	char msg[SCN_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(a->r->err, sizeof(a->r->err), "%s:%u:%u: %s", a->path, a->line, col, msg);
	scn_clean_message(a->r->err);
	return -1;
}

/* Append the step @fmt builds; one the step parser refuses is the input's error. */
__attribute__((format(printf, 3, 4)))
static int add(struct ace *a, unsigned col, const char *fmt, ...)
{
	struct ace_result *r = a->r;
	char text[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	unsigned c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (r->nr == SCN_STEPS_MAX)
		return ace_err(a, col, "more than %u steps, the most a scenario holds",
			       SCN_STEPS_MAX);
	if (r->nr == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->steps = realloc(r->steps, r->cap * sizeof(*r->steps));
		SIM_ASSERT(r->steps != NULL);
	}
	if (scn_parse_step(text, &r->steps[r->nr], err, sizeof(err), &c) != 0)
		return ace_err(a, col, "this operation gives '%s': %s", text, err);
	r->steps[r->nr].s_line = a->line;
	r->steps[r->nr].s_col = col;
	r->nr++;
	return 0;
}

/* A fill byte per write: 0x01 .. 0xfe, never 0xee (the device's sentinel). */
static unsigned next_fill(struct ace *a)
{
	unsigned b = 1 + a->nr_fills++ % 0xfd;

	return b >= 0xee ? b + 1 : b;
}

/* A byte that separates words: blank, tab, and the CR of a CRLF line. */
static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Split @s at blanks (a CR too), with 1-based columns; ACE_TOK_MAX + 1 when there are more. */
static unsigned split(char *s, struct atok *t)
{
	unsigned n = 0;
	char *p = s;

	while (*p) {
		while (blank(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (n == ACE_TOK_MAX)
			return ACE_TOK_MAX + 1;
		t[n].t = p;
		t[n++].col = (unsigned)(p - s) + 1;
		while (*p && !blank(*p))
			p++;
	}
	return n;
}

/* A decimal number of at most SCN_OFFSET_MAX: 0, or -1. */
static int number(const char *s, long long *out)
{
	char *end;

	if (!(s[0] >= '0' && s[0] <= '9'))
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || *end || *out > SCN_OFFSET_MAX ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Names                                                              */
/* ------------------------------------------------------------------ */

/* The index of the defined name @id, or -1. */
static int find_name(const struct ace *a, const char *id)
{
	for (unsigned i = 0; i < a->nr_names; i++)
		if (strcmp(a->names[i].id, id) == 0)
			return (int)i;
	return -1;
}

/* The name word @t of an operation: its index, or -1 after the message. */
static int name_of(struct ace *a, const struct atok *t)
{
	int i = find_name(a, t->t);

	if (i < 0)
		return ace_err(a, t->col, "'%s' is not a name of the define section", t->t);
	return i;
}

/* A component of a defined path: letters, digits, '.', '_', '-'. */
static bool path_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* A line of the define section: a path, named by it without its slashes. */
static int define_line(struct ace *a, const struct atok *t, unsigned n)
{
	struct ace_name *nm = &a->names[a->nr_names];
	const char *p = t[0].t;
	size_t k = 0, len = strlen(p);

	if (n != 1)
		return ace_err(a, t[n > 1].col, "a define line is one path");
	if (a->nr_names == ACE_NAMES_MAX)
		return ace_err(a, t[0].col, "more than %u names", ACE_NAMES_MAX);
	if (len + 2 > SCN_PATH_MAX || len >= ACE_ID_MAX)
		return ace_err(a, t[0].col, "a path longer than %u bytes", ACE_ID_MAX - 1);
	for (size_t i = 0; i < len; i++) {
		bool slash = p[i] == '/';

		if (!slash && !path_byte(p[i]))
			return ace_err(a, t[0].col + (unsigned)i, "a path takes letters, digits, "
				       "'.', '_' and '-' between single slashes");
		if (slash && (i == 0 || i + 1 == len || p[i + 1] == '/'))
			return ace_err(a, t[0].col + (unsigned)i, "an empty path component");
		if (!slash)
			nm->id[k++] = p[i];
	}
	nm->id[k] = '\0';
	if (find_name(a, nm->id) >= 0)
		return ace_err(a, t[0].col, "'%s' is defined twice", nm->id);
	nm->dir = strcmp(p, "test") == 0;
	snprintf(nm->path, sizeof(nm->path), "/%s", nm->dir ? "" : p);
	a->nr_names++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The current file and its open descriptions                         */
/* ------------------------------------------------------------------ */

/* Make name @i the model's current file: an open of it unless it is already. */
static int make_current(struct ace *a, int i, unsigned col)
{
	struct ace_name *nm = &a->names[i];

	if (nm->dir)
		return ace_err(a, col, "'%s' is a directory: a data operation needs a file",
			       nm->id);
	if (a->current == i)
		return 0;
	if (add(a, col, "open %s", nm->path))
		return -1;
	nm->opened++;
	nm->dwrite_closed = false;
	a->current = i;
	return 0;
}

/* open N FLAGS MODE: the flags the model has (O_RDWR, O_WRONLY, O_CREAT, O_TRUNC, O_DIRECT, O_SYNC). */
static int op_open(struct ace *a, struct atok *t, int i)
{
	bool creat = false, trunc = false, direct = false, osync = false;
	char *save = NULL, *f;
	unsigned col = t[2].col;

	if (a->names[i].dir)
		return ace_err(a, t[1].col, "'%s' is a directory: open it with opendir",
			       t[1].t);
	for (f = strtok_r(t[2].t, "|", &save); f; f = strtok_r(NULL, "|", &save)) {
		col = t[2].col + (unsigned)(f - t[2].t);
		if (strcmp(f, "O_CREAT") == 0)
			creat = true;
		else if (strcmp(f, "O_TRUNC") == 0)
			trunc = true;
		else if (strcmp(f, "O_DIRECT") == 0)
			direct = true;
		else if (strcmp(f, "O_SYNC") == 0)
			osync = true;
		else if (strcmp(f, "O_RDWR") && strcmp(f, "O_WRONLY"))
			return ace_err(a, col, "open flag '%s': the model opens O_RDWR, with "
				       "O_CREAT, O_TRUNC, O_DIRECT and O_SYNC only", f);
	}
	if (add(a, t[0].col, "open%s%s%s%s %s", creat ? " -f" : "", trunc ? " -t" : "",
		direct ? " -d" : "", osync ? " -s" : "", a->names[i].path))
		return -1;
	a->names[i].opened++;
	a->names[i].dwrite_closed = false;
	a->current = i;
	return 0;
}

/* close N: every open description of a file made; nothing for a directory. */
static int op_close(struct ace *a, const struct atok *t, int i)
{
	struct ace_name *nm = &a->names[i];
	unsigned n;

	if (nm->dir) {
		if (!nm->dir_open)
			return ace_err(a, t[1].col, "'%s' is not open", nm->id);
		nm->dir_open = false;
		return 0;
	}
	if (!nm->opened && nm->dwrite_closed)
		return 0;               /* close(2) of a closed descriptor: EBADF, no step */
	if (!nm->opened)
		return ace_err(a, t[1].col, "'%s' is not open", nm->id);
	if (make_current(a, i, t[0].col))
		return -1;
	for (n = nm->opened; n; n--)
		if (add(a, t[0].col, "close"))
			return -1;
	nm->opened = 0;
	a->current = -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Data operations                                                    */
/* ------------------------------------------------------------------ */

/* write N OFF LEN: WriteData's pwrite calls, up to the next data block, then 4 KiB each. */
static int op_write(struct ace *a, const struct atok *t, int i, long long off, long long len)
{
	long long up = (off + ACE_PAGE - 1) / ACE_PAGE * ACE_PAGE, head = up - off;
	unsigned fill = next_fill(a);

	if (make_current(a, i, t[0].col))
		return -1;
	if (head > len)
		head = len;
	if (head && add(a, t[0].col, "pwrite -S 0x%02x %lld %lld", fill, off, head))
		return -1;
	if (len > head && add(a, t[0].col, "pwrite -S 0x%02x %lld %lld", fill, off + head,
			      len - head))
		return -1;
	return 0;
}

/*
 * dwrite N OFF LEN: cmAdapter closes fd_N, opens the file again
 * O_RDWR|O_DIRECT|O_SYNC, writes LEN bytes at OFF from an aligned buffer in
 * one pwrite and closes it: every description of N closed (the lowering's
 * own too, as close N does), open -d -s, one pwrite (a direct write, synced
 * as O_SYNC syncs: EINVAL when OFF or LEN is not a multiple of 512, as
 * ext4 says; CrashMonkey's workload then returns, the model goes on), close.
 */
static int op_dwrite(struct ace *a, const struct atok *t, int i, long long off, long long len)
{
	struct ace_name *nm = &a->names[i];

	if (nm->dir)
		return ace_err(a, t[0].col, "'%s' is a directory: a data operation needs a file",
			       nm->id);
	if (nm->opened && make_current(a, i, t[0].col))
		return -1;
	for (unsigned n = nm->opened; n; n--)
		if (add(a, t[0].col, "close"))
			return -1;
	nm->opened = 0;
	if (add(a, t[0].col, "open -d -s %s", nm->path) ||
	    add(a, t[0].col, "pwrite -S 0x%02x %lld %lld", next_fill(a), off, len) ||
	    add(a, t[0].col, "close"))
		return -1;
	nm->dwrite_closed = true;
	a->current = -1;
	return 0;
}

/*
 * mmapwrite N OFF LEN: cmAdapter's fallocate, mmap of OFF + LEN bytes, the
 * stores, msync(MS_SYNC) of 8 KiB from OFF, munmap.  Past the mapping's end
 * (LEN < 8 KiB) the kernel's msync syncs the part mapped, then fails with
 * ENOMEM (mm/msync.c): the step syncs that part.
 */
static int op_mmapwrite(struct ace *a, const struct atok *t, int i, long long off,
			long long len)
{
	unsigned col = t[0].col;

	if (make_current(a, i, col))
		return -1;
	if (len == 0)
		return ace_err(a, t[3].col, "an mmapwrite of 0 bytes (mmap of nothing fails)");
	return add(a, col, "falloc %lld %lld", off, len) ||
	       add(a, col, "mmap -rw 0 %lld", off + len) ||
	       add(a, col, "mwrite -S 0x%02x %lld %lld", next_fill(a), off, len) ||
	       add(a, col, "msync -s %lld %lld", off, len < ACE_MSYNC_LEN ? len : ACE_MSYNC_LEN) ||
	       add(a, col, "munmap") ? -1 : 0;
}

static const struct {
	const char *flags;              /* FALLOC_FL_* joined by '|', in ACE's order */
	const char *step;
} ace_falloc[] = {
	{ "0", "falloc" },
	{ "FALLOC_FL_KEEP_SIZE", "falloc -k" },
	{ "FALLOC_FL_ZERO_RANGE", "fzero" },
	{ "FALLOC_FL_ZERO_RANGE|FALLOC_FL_KEEP_SIZE", "fzero -k" },
	{ "FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE", "fpunch" },
	{ "FALLOC_FL_COLLAPSE_RANGE", "fcollapse" },
	{ "FALLOC_FL_INSERT_RANGE", "finsert" },
};

/* falloc N MODE OFF LEN. */
static int op_falloc(struct ace *a, const struct atok *t, int i, long long off, long long len)
{
	for (unsigned k = 0; k < sizeof(ace_falloc) / sizeof(ace_falloc[0]); k++)
		if (strcmp(t[2].t, ace_falloc[k].flags) == 0)
			return make_current(a, i, t[0].col) ||
			       add(a, t[0].col, "%s %lld %lld", ace_falloc[k].step, off, len);
	if (strcmp(t[2].t, "FALLOC_FL_PUNCH_HOLE") == 0)
		return ace_err(a, t[2].col, "FALLOC_FL_PUNCH_HOLE without FALLOC_FL_KEEP_SIZE "
			       "(fallocate's EOPNOTSUPP, which the model has no step for)");
	return ace_err(a, t[2].col, "fallocate mode '%s': the model takes 0, "
		       "FALLOC_FL_KEEP_SIZE, FALLOC_FL_ZERO_RANGE[|FALLOC_FL_KEEP_SIZE], "
		       "FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE, COLLAPSE_RANGE, INSERT_RANGE",
		       t[2].t);
}

/* write, mmapwrite, falloc and truncate: their numbers, then the steps. */
static int op_data(struct ace *a, struct atok *t, unsigned n, int i)
{
	unsigned k = strcmp(t[0].t, "falloc") == 0 ? 3 : 2;
	long long off = 0, len = 0;

	if (number(t[k].t, &off))
		return ace_err(a, t[k].col, "'%s' is not a number of at most %lld", t[k].t,
			       (long long)SCN_OFFSET_MAX);
	if (strcmp(t[0].t, "truncate") == 0)
		return make_current(a, i, t[0].col) || add(a, t[0].col, "truncate %lld", off);
	if (k + 1 >= n || number(t[k + 1].t, &len) || off + len > SCN_OFFSET_MAX)
		return ace_err(a, k + 1 < n ? t[k + 1].col : t[k].col, "a length such that "
			       "the range ends by %lld", (long long)SCN_OFFSET_MAX);
	if (t[0].t[0] == 'w')
		return op_write(a, t, i, off, len);
	if (t[0].t[0] == 'd')
		return op_dwrite(a, t, i, off, len);
	if (t[0].t[0] == 'm')
		return op_mmapwrite(a, t, i, off, len);
	return op_falloc(a, t, i, off, len);
}

/* ------------------------------------------------------------------ */
/* Namespace operations                                               */
/* ------------------------------------------------------------------ */

/* rename N M: the names' state moves with it (the current file is the inode). */
static void moved(struct ace *a, int from, int to)
{
	struct ace_name *f = &a->names[from], *t = &a->names[to];

	if (from == to)
		return;
	t->dir = f->dir;
	t->dir_open = f->dir_open;
	t->opened = f->opened;
	f->dir_open = false;
	f->opened = 0;
	if (a->current == from)
		a->current = to;
	else if (a->current == to)
		a->current = -1;
}

/* link, rename, symlink N M. */
static int op_two(struct ace *a, const struct atok *t, int i)
{
	int j = name_of(a, &t[2]);
	const char *p = a->names[i].path, *q;

	if (j < 0)
		return -1;
	q = a->names[j].path;
	if (strcmp(t[0].t, "symlink") == 0)
		return add(a, t[0].col, "symlink %s %s", p, q);
	if (add(a, t[0].col, "%s %s %s", t[0].t, p, q))
		return -1;
	if (t[0].t[0] == 'r')
		moved(a, i, j);
	return 0;
}

/* mkdir, rmdir, unlink, remove, opendir, fsync, fdatasync, fsetxattr, removexattr N. */
static int op_one(struct ace *a, const struct atok *t, int i)
{
	struct ace_name *nm = &a->names[i];
	const char *op = t[0].t;

	if (strcmp(op, "mkdir") == 0) {
		nm->dir = true;
		return add(a, t[0].col, "mkdir %s", nm->path);
	}
	if (strcmp(op, "opendir") == 0) {
		nm->dir = nm->dir_open = true;
		return 0;
	}
	if (strcmp(op, "fsync") == 0 || strcmp(op, "fdatasync") == 0)
		return add(a, t[0].col, "%s %s", op, nm->path);
	if (strcmp(op, "fsetxattr") == 0)
		return add(a, t[0].col, "setxattr %s user.xattr1 val1", nm->path);
	if (strcmp(op, "removexattr") == 0)
		return add(a, t[0].col, "removexattr %s user.xattr1", nm->path);
	if (strcmp(op, "rmdir") == 0 || (strcmp(op, "remove") == 0 && nm->dir)) {
		nm->dir = nm->dir_open = false;
		return add(a, t[0].col, "rmdir %s", nm->path);
	}
	if (a->current == i)
		a->current = -1;
	return add(a, t[0].col, "unlink %s", nm->path);
}

/* ------------------------------------------------------------------ */
/* Lines                                                              */
/* ------------------------------------------------------------------ */

/* How a j-lang operation becomes steps (op_line dispatches on it). */
enum ace_kind { AK_OPEN, AK_DATA, AK_TWO, AK_ONE, AK_CLOSE, AK_SYNC, AK_NONE, AK_CHECKPOINT,
		AK_REFUSED };

static const struct {
	const char *name;
	enum ace_kind kind;
	unsigned nargs;                 /* words after the name */
	const char *why;                /* AK_REFUSED: the reason */
} ace_ops[] = {
	{ "open", AK_OPEN, 3, NULL }, { "opendir", AK_ONE, 2, NULL },
	{ "mkdir", AK_ONE, 2, NULL }, { "falloc", AK_DATA, 4, NULL },
	{ "write", AK_DATA, 3, NULL }, { "mmapwrite", AK_DATA, 3, NULL },
	{ "truncate", AK_DATA, 2, NULL }, { "link", AK_TWO, 2, NULL },
	{ "rename", AK_TWO, 2, NULL }, { "symlink", AK_TWO, 2, NULL },
	{ "unlink", AK_ONE, 1, NULL }, { "remove", AK_ONE, 1, NULL },
	{ "rmdir", AK_ONE, 1, NULL }, { "close", AK_CLOSE, 1, NULL },
	{ "fsync", AK_ONE, 1, NULL }, { "fdatasync", AK_ONE, 1, NULL },
	{ "fsetxattr", AK_ONE, 1, NULL }, { "removexattr", AK_ONE, 1, NULL },
	{ "sync", AK_SYNC, 0, NULL }, { "none", AK_NONE, 0, NULL },
	{ "checkpoint", AK_CHECKPOINT, 1, NULL },
	{ "dwrite", AK_DATA, 3, NULL },
	{ "mknod", AK_REFUSED, 3, "mknod makes a device node, which the model does not have" },
};

/* checkpoint [K]: where the last one is, so far. */
static int op_checkpoint(struct ace *a, const struct atok *t, unsigned n)
{
	long long k;

	if (n == 2 && number(t[1].t, &k))
		return ace_err(a, t[1].col, "checkpoint takes a number (ACE's 0, or 1 at the "
			       "last), not '%s'", t[1].t);
	if (a->sec != AS_RUN)
		return ace_err(a, t[0].col, "a checkpoint in setup: CrashMonkey crashes in the "
			       "run only");
	a->r->nr_checkpoints++;
	a->r->everywhere = a->r->nr_checkpoints > 1;
	a->ck_step = a->r->nr;
	a->ck_line = a->line;
	a->ck_col = t[0].col;
	a->after_line = 0;
	a->r->nr_after = 0;
	return 0;
}

/* One operation: its name and count of words checked, then its steps. */
static int op_line(struct ace *a, struct atok *t, unsigned n)
{
	unsigned k = 0, nops = sizeof(ace_ops) / sizeof(ace_ops[0]);
	enum ace_kind kind;
	int i = -1;

	while (k < nops && strcmp(ace_ops[k].name, t[0].t))
		k++;
	if (k == nops)
		return ace_err(a, t[0].col, "unknown j-lang operation '%s'", t[0].t);
	if ((kind = ace_ops[k].kind) == AK_REFUSED)
		return ace_err(a, t[0].col, "%s", ace_ops[k].why);
	if (kind == AK_CHECKPOINT && n <= 2)
		return op_checkpoint(a, t, n);  /* B3's generators write no number */
	if (n != ace_ops[k].nargs + 1)
		return ace_err(a, n > ace_ops[k].nargs + 1 ? t[ace_ops[k].nargs + 1].col
			       : t[n - 1].col, "%s takes %u word(s) after it", t[0].t,
			       ace_ops[k].nargs);
	a->r->nr_ops++;
	a->setup_ops |= a->sec == AS_SETUP;
	if (a->r->nr_checkpoints && kind == AK_CLOSE)
		a->r->nr_after++;
	else if (a->r->nr_checkpoints && !a->after_line && kind != AK_NONE)
		a->after_line = a->line, a->after_col = t[0].col;
	if (ace_ops[k].nargs && (i = name_of(a, &t[1])) < 0)
		return -1;
	switch (kind) {
	case AK_OPEN: return op_open(a, t, i);
	case AK_DATA: return op_data(a, t, n, i);
	case AK_TWO: return op_two(a, t, i);
	case AK_ONE: return op_one(a, t, i);
	case AK_CLOSE: return op_close(a, t, i);
	case AK_SYNC: return add(a, t[0].col, "sync");
	default: return 0;              /* none */
	}
}

/* The end of the setup section: CrashMonkey unmounts and snapshots the device. */
static int end_setup(struct ace *a, unsigned col)
{
	if (!a->setup_ops)
		return 0;
	a->setup_ops = false;
	for (unsigned i = 0; i < a->nr_names; i++)
		a->names[i].opened = 0, a->names[i].dir_open = false;
	a->current = -1;
	return add(a, col, "remount");
}

/* "# NAME": the section the lines after it fill. */
static int section_line(struct ace *a, const struct atok *t, unsigned n)
{
	static const char *const names[] = { "define", "declare", "setup", "run" };

	if (n != 2 || strcmp(t[0].t, "#"))
		return ace_err(a, t[0].col, "a section line is '# define', '# declare', "
			       "'# setup' or '# run'");
	for (unsigned k = 0; k < 4; k++) {
		if (strcmp(t[1].t, names[k]))
			continue;
		if ((enum ace_section)(k + 1) <= a->sec)
			return ace_err(a, t[1].col, "section '%s' after section '%s'", t[1].t,
				       names[a->sec - 1]);
		a->sec = (enum ace_section)(k + 1);
		return a->sec == AS_RUN ? end_setup(a, t[0].col) : 0;
	}
	return ace_err(a, t[1].col, "unknown section '%s' (define, declare, setup, run)",
		       t[1].t);
}

/* One input line (its newline gone): a section line, or a line of the section it is in. */
static int one_line(struct ace *a, char *s)
{
	struct atok t[ACE_TOK_MAX];
	unsigned n = split(s, t);

	if (n == 0)
		return 0;
	if (n > ACE_TOK_MAX)
		return ace_err(a, 1, "more than %u words: not a j-lang line", ACE_TOK_MAX);
	if (t[0].t[0] == '#')
		return section_line(a, t, n);
	switch (a->sec) {
	case AS_NONE:
		return ace_err(a, t[0].col, "a line before the first section (# define)");
	case AS_DEFINE:
		return define_line(a, t, n);
	case AS_DECLARE:
		return n == 1 ? 0 : ace_err(a, t[1].col, "a declare line is one name");
	default:
		return op_line(a, t, n);
	}
}

/* ------------------------------------------------------------------ */
/* The file                                                           */
/* ------------------------------------------------------------------ */

/* One line into @buf: its length, 0 at the end; -1 too long, -2 too much in all, -3 NUL. */
static long get_line(FILE *f, char *buf, size_t *total)
{
	long n = 0;
	int ch;

	while ((ch = getc(f)) != EOF) {
		if (++*total > ACE_BYTES_MAX)
			return -2;
		if (ch == 0)
			return -3;
		if (ch == '\n')
			return n + 1;
		if (n == ACE_LINE_MAX)
			return -1;
		buf[n++] = (char)ch;
		buf[n] = '\0';
	}
	return n;
}

/* The end: a crash step at the last checkpoint, nothing but closes after it. */
static int finish(struct ace *a)
{
	struct ace_result *r = a->r;

	a->line = r->nr_lines + 1;
	if (a->sec != AS_RUN)
		return ace_err(a, 1, "no '# run' section");
	if (!r->nr_checkpoints)
		return ace_err(a, 1, "no checkpoint: ACE's workload crashes at its checkpoints, "
			       "and this one has none");
	if (a->after_line) {
		a->line = a->after_line;
		return ace_err(a, a->after_col, "an operation after the last checkpoint (line "
			       "%u): no crash of ACE's sees it", a->ck_line);
	}
	r->nr = a->ck_step;
	a->line = a->ck_line;
	return add(a, a->ck_col, "crash");
}

/* Every line of @f, then the end (finish); the first refusal stops it. */
int ace_parse(const char *path, FILE *f, struct ace_result *r)
{
	struct ace *a = sim_zalloc(sizeof(*a));
	char *buf = sim_zalloc(ACE_LINE_MAX + 1);
	size_t total = 0;
	long got;
	int rc = 0;

	*a = (struct ace){ .path = path, .r = r, .current = -1 };
	while (rc == 0 && (got = get_line(f, buf, &total)) != 0) {
		a->line = ++r->nr_lines;
		if (got == -1)
			rc = ace_err(a, ACE_LINE_MAX + 1, "a line longer than %u bytes",
				     ACE_LINE_MAX);
		else if (got < 0)
			rc = ace_err(a, 1, "%s", got == -2 ? "the input passes 16 MiB, the most "
				     "import reads" : "a NUL byte");
		else
			rc = one_line(a, buf);
		buf[0] = '\0';
	}
	if (rc == 0 && ferror(f))
		rc = ace_err(a, 1, "cannot read: %s", strerror(errno ? errno : EIO));
	if (rc == 0)
		rc = finish(a);
	free(buf);
	free(a);
	return rc;
}

/* The steps freed; @r can be parsed into again. */
void ace_result_free(struct ace_result *r)
{
	free(r->steps);
	r->steps = NULL;
	r->nr = r->cap = 0;
}

/* ------------------------------------------------------------------ */
/* The command                                                        */
/* ------------------------------------------------------------------ */

/*
 * The j-lang file at @path into @r, the loader's words for a missing file or
 * a directory, and the work budget run checks: 0, or -1 with r->err.
 */
static int read_file(const char *path, struct ace_result *r)
{
	FILE *f = scn_open_read(path);
	struct stat st;
	int64_t sum;
	int rc;

	if (!f || (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))) {
		snprintf(r->err, sizeof(r->err), "%s:1:1: %s: %s", path,
			 f ? "cannot read" : "cannot open", strerror(f ? EISDIR : errno));
		if (f)
			fclose(f);
		return -1;
	}
	rc = ace_parse(path, f, r);
	fclose(f);
	if (rc == 0 && scn_budget_step(r->steps, r->nr, SCN_RUN_BYTES_DEFAULT, &sum) >= 0)
		snprintf(r->err, sizeof(r->err), "%s:1:1: the steps write and read more than "
			 "the %lld bytes run takes", path, (long long)SCN_RUN_BYTES_DEFAULT);
	return rc || r->err[0] ? -1 : 0;
}

/* The command: the scenario on stdout, crash_everywhere when a checkpoint precedes the last. */
int orc_import_ace(const char *path, const char *name, const struct orc_config *cfg,
		   bool has_config)
{
	struct ace_result r = { 0 };
	struct orc_config c = *cfg;
	char desc[1024], *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (read_file(path, &r) < 0) {
		fprintf(stderr, "%s\n", r.err);
		ace_result_free(&r);
		return 2;
	}
	c.judging.rc_set_crash_everywhere = c.judging.rc_crash_everywhere = r.everywhere;
	snprintf(desc, sizeof(desc), "Imported from a CrashMonkey ACE workload (j-lang): %u "
		 "operation(s), %u checkpoint(s); the crash step is its last checkpoint%s, and "
		 "%u close(s) after it are left out (docs/ace.md).", r.nr_ops,
		 r.nr_checkpoints, r.everywhere ? ", and a crash is judged after every step "
		 "(crash_everywhere) for the checkpoints before it" : "", r.nr_after);
	mem = open_memstream(&buf, &len);
	SIM_ASSERT(mem != NULL);
	orc_write_yaml(mem, &(struct orc_yaml){
		.name = name, .description = desc, .source = path,
		.config = has_config || r.everywhere ? &c : NULL, .steps = r.steps,
		.nr_steps = r.nr });
	SIM_ASSERT(fclose(mem) == 0);
	if (len > SCN_FILE_BYTES_MAX)
		fprintf(stderr, "%s: import: the scenario would be %zu bytes, more than the %u a "
			"scenario file may hold\n", path, len, SCN_FILE_BYTES_MAX);
	else
		fwrite(buf, 1, len, stdout);
	free(buf);
	ace_result_free(&r);
	return len > SCN_FILE_BYTES_MAX ? 2 : 0;
}
