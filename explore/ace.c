/*
 * ace.c - CrashMonkey ACE's workload spaces (ace.h): the bounds of B3's
 * generators (ace/specific_generator_scripts/seq1generator.py,
 * seq2generator.py, seq3generator.py; docs/ace.md) walked in their order.
 *
 * A workload is a skeleton (every sequence of N operations of the space's
 * operation set, itertools.product order), a parameter combination (the
 * product of each operation's buildTuple list) and a persistence choice
 * per operation (fsync of each file of the persistence set, sync, none;
 * never none after the last; seq-1: fsync or sync, and only none after an
 * fdatasync).  The persistence set is the related files of the names the
 * parameters use (seq-1, seq-2: each name, its sibling and its parent) or
 * the names alone (seq-3); its order here is buildTuple('fsync')'s (files,
 * directory, test, second files, second directory) where ACE's is a Python
 * set's: the same workloads, numbered in another order within one
 * parameter combination.  After an fdatasync or mmapwrite the choice is
 * not written but still counted, as ACE counts it (its duplicates).
 *
 * The dependency pass is satisfyDep's (open, mkdir, close, unlink, an
 * append write before a write that is not one, fsetxattr before
 * removexattr), with the generator's own quirks kept: an mmapwrite is
 * never counted an append, every write that is not an append gets an
 * append first when the file has no length, seq-1 does not close a file
 * before renaming it.  The closes ACE appends at the end come after the
 * last checkpoint, where import leaves them out; here they are in name
 * order (ACE's: a Python dict's).
 */
#include "ace.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

enum aop { O_CREAT, O_MKDIR, O_MKNOD, O_FALLOC, O_WRITE, O_DWRITE, O_LINK, O_UNLINK,
	   O_REMOVE, O_RENAME, O_SYMLINK, O_REMOVEXATTR, O_FDATASYNC, O_FSETXATTR,
	   O_TRUNCATE, O_MMAPWRITE, O_NR };

static const char *const op_names[O_NR] = {
	"creat", "mkdir", "mknod", "falloc", "write", "dwrite", "link", "unlink", "remove",
	"rename", "symlink", "removexattr", "fdatasync", "fsetxattr", "truncate", "mmapwrite"
};

static const char *const falloc_modes[] = {
	"FALLOC_FL_ZERO_RANGE", "FALLOC_FL_ZERO_RANGE|FALLOC_FL_KEEP_SIZE",
	"FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE", "FALLOC_FL_KEEP_SIZE", "0"
};

/* Ranges: WriteOptions, dWriteOptions, TruncateOptions by index. */
enum { R_APPEND, R_ALIGNED, R_UNALIGNED };
enum { T_ALIGNED, T_UNALIGNED };        /* truncate's: to 0, to 2500 */

/* Names: 0, 1 files; 2, 3 second files; 4 directory; 5 second directory; 6 test. */
enum { N_F0, N_F1, N_S0, N_S1, N_D, N_SD, N_TEST, N_NR };
static const unsigned fsync_order[N_NR] = { N_F0, N_F1, N_D, N_TEST, N_S0, N_S1, N_SD };

#define ACE_OPS_MAX 14
#define ACE_PARAMS_MAX 32
#define ACE_SLOTS 3
#define ACE_LINES_MAX 64

struct space {
	const char *name;
	const char *names[N_NR];
	unsigned nr_ops;
	enum aop ops[ACE_OPS_MAX];
	unsigned slots;
	bool seq1;              /* seq1generator.py: no none, fewer dependencies */
	bool named;             /* persistence set: the names used (seq-3), not related */
	bool skip_www;          /* seq-3 metadata: no write, write, write */
};

static const struct space spaces[ACE_SPACE_COUNT] = {
	[ACE_B3_SEQ1] = { "b3-seq1", { "foo", "A/foo", "bar", "A/bar", "A", "B", "test" }, 14,
			  { O_CREAT, O_MKDIR, O_MKNOD, O_FALLOC, O_WRITE, O_DWRITE, O_LINK,
			    O_UNLINK, O_REMOVE, O_RENAME, O_SYMLINK, O_REMOVEXATTR, O_FDATASYNC,
			    O_FSETXATTR }, 1, true, false, false },
	[ACE_B3_SEQ2] = { "b3-seq2", { "foo", "A/foo", "bar", "A/bar", "A", "B", "test" }, 14,
			  { O_CREAT, O_MKDIR, O_FALLOC, O_WRITE, O_DWRITE, O_LINK, O_UNLINK,
			    O_REMOVE, O_RENAME, O_REMOVEXATTR, O_FDATASYNC, O_FSETXATTR,
			    O_TRUNCATE, O_MMAPWRITE }, 2, false, false, false },
	[ACE_B3_SEQ3_META] = { "b3-seq3-meta",
			       { "B/foo", "A/foo", "B/bar", "A/bar", "A", "B", "test" }, 5,
			       { O_WRITE, O_LINK, O_UNLINK, O_RENAME, O_TRUNCATE }, 3, false,
			       true, true },
};

/* One parameter of buildTuple's lists: names a, b (-1: none), falloc mode, range. */
struct prm {
	int p_a, p_b;
	int p_mode, p_range;
};

struct plist {
	unsigned nr;
	struct prm p[ACE_PARAMS_MAX];
};

enum ace_space ace_space_lookup(const char *name)
{
	for (int s = 1; s < ACE_SPACE_COUNT; s++)
		if (strcmp(spaces[s].name, name) == 0)
			return (enum ace_space)s;
	return ACE_SPACE_NONE;
}

const char *ace_space_name(enum ace_space sp)
{
	SIM_ASSERT(sp > ACE_SPACE_NONE && sp < ACE_SPACE_COUNT);
	return spaces[sp].name;
}

static void add(struct plist *l, int a, int b, int mode, int range)
{
	SIM_ASSERT(l->nr < ACE_PARAMS_MAX);
	l->p[l->nr++] = (struct prm){ a, b, mode, range };
}

/* Pairs X x Y of the name lists, X != Y, in product order. */
static void pairs(struct plist *l, const int *x, unsigned nx, const int *y, unsigned ny)
{
	for (unsigned i = 0; i < nx; i++)
		for (unsigned j = 0; j < ny; j++)
			if (x[i] != y[j])
				add(l, x[i], y[j], -1, -1);
}

/* The files by themselves, or with ranges 0..@nr_ranges-1 (@first: the first). */
static void files(struct plist *l, int first, unsigned nr_ranges)
{
	for (int f = N_F0; f <= N_F1; f++)
		for (unsigned r = 0; r < (nr_ranges ? nr_ranges : 1); r++)
			add(l, f, -1, -1, nr_ranges ? first + (int)r : -1);
}

/* buildTuple(@op) of space @s. */
static void build_tuple(const struct space *s, enum aop op, struct plist *l)
{
	static const int F[] = { N_F0, N_F1 }, S[] = { N_S0, N_S1 };
	static const int FS[] = { N_F0, N_F1, N_S0, N_S1 }, SF[] = { N_S0, N_S1, N_F0, N_F1 };
	static const int DS[] = { N_D, N_SD }, SD[] = { N_SD };
	bool seq3 = s->skip_www;

	memset(l, 0, sizeof(*l));
	switch (op) {
	case O_CREAT: case O_MKNOD: case O_FDATASYNC: case O_FSETXATTR: case O_REMOVEXATTR:
		files(l, 0, 0);
		break;
	case O_MKDIR: add(l, N_D, -1, -1, -1); break;
	case O_FALLOC:
		for (int f = N_F0; f <= N_F1; f++)
			for (int m = 0; m < 5; m++)
				for (int r = R_APPEND; r <= R_UNALIGNED; r++)
					add(l, f, -1, m, r);
		break;
	case O_WRITE:
		if (seq3) {
			for (int f = N_F0; f <= N_F1; f++) {
				add(l, f, -1, -1, R_APPEND);
				add(l, f, -1, -1, R_UNALIGNED);
			}
		} else {
			files(l, R_APPEND, 3);
		}
		break;
	case O_DWRITE: case O_MMAPWRITE: files(l, R_APPEND, 2); break;
	case O_TRUNCATE: files(l, seq3 ? T_UNALIGNED : T_ALIGNED, seq3 ? 1 : 2); break;
	case O_LINK: case O_SYMLINK:
		if (seq3)
			pairs(l, F, 2, SF, 4);
		else
			pairs(l, s->seq1 ? F : FS, s->seq1 ? 2 : 4, S, 2);
		break;
	case O_RENAME:
		pairs(l, s->seq1 ? F : FS, s->seq1 ? 2 : 4, S, 2);
		pairs(l, DS, s->seq1 ? 1 : 2, SD, 1);
		break;
	case O_UNLINK: case O_REMOVE:
		for (unsigned i = 0; i < 4; i++)
			add(l, FS[i], -1, -1, -1);
		break;
	default: SIM_ASSERT(0);
	}
}

static int sibling_of(int n)
{
	static const int sib[N_NR] = { N_S0, N_S1, N_F0, N_F1, N_SD, N_D, N_TEST };

	return sib[n];
}

static int parent_of(const struct space *s, int n)
{
	const char *p = s->names[n];

	if (n == N_D || n == N_SD || n == N_TEST || !strchr(p, '/'))
		return N_TEST;
	return p[0] == 'A' ? N_D : N_SD;
}

/* The walk's state: the space, the combination, the persistence choices. */
struct walk {
	const struct space *s;
	enum aop ops[ACE_SLOTS];
	const struct prm *prm[ACE_SLOTS];
	int targets[N_NR + 2];  /* fsync names in order, then -1 sync, -2 none */
	unsigned nr_targets;    /* without none */
	unsigned choice[ACE_SLOTS];
};

/* The persistence set of the combination: names in fsync order. */
static void persist_set(struct walk *w)
{
	bool in[N_NR] = { false };

	for (unsigned i = 0; i < w->s->slots; i++) {
		int nm[2] = { w->prm[i]->p_a, w->prm[i]->p_b };

		for (unsigned j = 0; j < 2; j++) {
			if (nm[j] < 0)
				continue;
			in[nm[j]] = true;
			if (!w->s->named) {
				in[sibling_of(nm[j])] = true;
				in[parent_of(w->s, nm[j])] = true;
			}
		}
	}
	w->nr_targets = 0;
	for (unsigned i = 0; i < N_NR; i++)
		if (in[fsync_order[i]])
			w->targets[w->nr_targets++] = (int)fsync_order[i];
	w->targets[w->nr_targets++] = -1;
	w->targets[w->nr_targets] = -2;
}

/* The dependency pass's state (satisfyDep's maps) and the j-lang built. */
struct dep {
	const struct space *s;
	int file_open[N_NR];    /* open_file_map: -1 absent, 0 closed, 1 open */
	int dir_open[N_NR];     /* open_dir_map */
	bool has_len[N_NR];     /* file_length_map has it */
	int length[N_NR];       /* buildJlang's length_map, -1 absent */
	char *out;
	size_t len, cap;
};

static void emit(struct dep *d, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(d->out + d->len, d->cap - d->len, fmt, ap);
	va_end(ap);
	SIM_ASSERT(n >= 0 && (size_t)n < d->cap - d->len);
	d->len += (size_t)n;
}

/* The j-lang name of @n: the path without its slashes. */
static const char *jid(const struct dep *d, int n, char buf[16])
{
	const char *p = d->s->names[n];
	unsigned k = 0;

	for (; *p; p++)
		if (*p != '/')
			buf[k++] = *p;
	buf[k] = '\0';
	return buf;
}

static bool is_dir(int n)
{
	return n == N_D || n == N_SD || n == N_TEST;
}

static void ins_open(struct dep *d, int n)
{
	char b[16];

	if (is_dir(n)) {
		d->dir_open[n] = 1;
		emit(d, "opendir %s 0777\n", jid(d, n, b));
	} else {
		d->file_open[n] = 1;
		emit(d, "open %s O_RDWR|O_CREAT 0777\n", jid(d, n, b));
	}
}

static void ins_close(struct dep *d, int n)
{
	char b[16];

	if (is_dir(n))
		d->dir_open[n] = 0;
	else
		d->file_open[n] = 0;
	emit(d, "close %s\n", jid(d, n, b));
}

static void ins_simple(struct dep *d, const char *op, int n)
{
	char b[16];

	emit(d, "%s %s\n", op, jid(d, n, b));
}

static void emit_mkdir(struct dep *d, int n)
{
	char b[16];

	emit(d, "mkdir %s 0777\n", jid(d, n, b));
}

/* The append write insertWrite makes (and buildJlang writes). */
static void ins_write(struct dep *d, int n)
{
	char b[16];

	d->has_len[n] = true;
	if (d->length[n] < 0)
		d->length[n] = 0;
	emit(d, "write %s %d 4096\n", jid(d, n, b), d->length[n]);
	d->length[n] += 4096;
}

/* checkParentExistsDep: mkdir the parent of each name that has no parent yet. */
static void dep_parent(struct dep *d, const struct prm *p)
{
	int nm[2] = { p->p_a, p->p_b };

	for (unsigned j = 0; j < 2; j++) {
		int par = nm[j] < 0 ? N_TEST : parent_of(d->s, nm[j]);

		if (par != N_TEST && d->dir_open[par] < 0) {
			d->dir_open[par] = 0;
			emit_mkdir(d, par);
		}
	}
}

/* checkExistsDep: the first name exists and is open. */
static void dep_exists(struct dep *d, int n)
{
	if (is_dir(n)) {
		if (d->dir_open[n] < 0) {
			d->dir_open[n] = 0;
			emit_mkdir(d, n);
		}
		/* seq-1's and seq-3's test looks for a directory among the files: always */
		if (d->dir_open[n] == 0 || d->s->seq1 || d->s->skip_www)
			ins_open(d, n);
		return;
	}
	if (d->file_open[n] != 1)
		ins_open(d, n);
}

/* checkClosed: the first name closed. */
static void dep_closed(struct dep *d, int n)
{
	if (d->file_open[n] == 1)
		ins_close(d, n);
	if (d->dir_open[n] == 1)
		ins_close(d, n);
}

static void dep_length(struct dep *d, int n)
{
	if (!d->has_len[n])
		ins_write(d, n);
}

/* mkdir D: an existing D emptied (its files closed and unlinked) and removed. */
static void dep_mkdir(struct dep *d, int n)
{
	if (d->dir_open[n] >= 0) {
		for (int f = N_F0; f <= N_S1 && n == N_D; f++) {
			if (parent_of(d->s, f) != N_D || d->file_open[f] < 0)
				continue;
			if (d->file_open[f] == 1)
				ins_close(d, f);
			d->file_open[f] = -1;
			ins_simple(d, "unlink", f);
		}
		d->dir_open[n] = -1;
		ins_simple(d, "rmdir", n);
	}
	d->dir_open[n] = 0;
}

/* The byte range buildJlang writes for a write-like operation on @n. */
static void range_of(struct dep *d, int n, int r, bool mmap_or_d, int *off, int *len)
{
	*len = 4096;
	if (r == R_APPEND) {
		if (d->length[n] < 0)
			d->length[n] = 0;
		*off = d->length[n];
		d->length[n] += 4096;
	} else if (r == R_ALIGNED || mmap_or_d) {
		*off = 0;
	} else {
		*off = 1000;
		*len = 3000;
	}
}

/* The dependencies of a data operation (falloc, write, dwrite, mmapwrite, truncate). */
static void dep_data(struct dep *d, enum aop op, const struct prm *p)
{
	int n = p->p_a;

	dep_parent(d, p);
	dep_exists(d, n);
	if (op == O_WRITE || op == O_DWRITE) {
		if (p->p_range == R_APPEND)
			d->has_len[n] = true;
		else
			dep_length(d, n);
	} else {
		dep_length(d, n);       /* falloc, truncate; mmapwrite never an append */
	}
	if (op == O_DWRITE && !d->s->seq1)
		d->file_open[n] = 0;
}

/* The line of data operation @op (buildJlang). */
static void line_data(struct dep *d, enum aop op, const struct prm *p, bool last)
{
	char b[16];
	int n = p->p_a, off, len;

	if (op == O_TRUNCATE) {
		int to = p->p_range == T_UNALIGNED ? 2500 : 0;

		if (to == 0)
			d->length[n] = 0;
		emit(d, "truncate %s %d\n", jid(d, n, b), to);
		return;
	}
	range_of(d, n, p->p_range, op == O_DWRITE || op == O_MMAPWRITE, &off, &len);
	if (op == O_FALLOC)
		emit(d, "falloc %s %s %d %d\n", jid(d, n, b), falloc_modes[p->p_mode], off, len);
	else if (op == O_MMAPWRITE)
		emit(d, "mmapwrite %s %d %d\ncheckpoint %d\n", jid(d, n, b), off, len, last);
	else
		emit(d, "%s %s %d %d\n", op_names[op], jid(d, n, b), off, len);
}

/* link X Y, rename X Y, symlink X Y with their dependencies. */
static void op_pair(struct dep *d, enum aop op, const struct prm *p)
{
	char b[16], c[16];
	int x = p->p_a, y = p->p_b;

	dep_parent(d, p);
	if (op != O_SYMLINK)
		dep_exists(d, x);
	if (op == O_RENAME && !d->s->seq1)
		dep_closed(d, x);
	if (op != O_SYMLINK && !d->s->seq1) {
		if (d->file_open[y] == 1)
			ins_close(d, y);
		if (op == O_LINK && d->file_open[y] == 0) {
			d->file_open[y] = -1;
			ins_simple(d, "unlink", y);
		}
	}
	if (op == O_LINK) {
		d->file_open[y] = 0;
	} else if (op == O_RENAME && !is_dir(x)) {
		d->file_open[x] = -1;
		d->file_open[y] = 0;
	} else if (op == O_RENAME) {
		d->dir_open[x] = -1;
		d->dir_open[y] = 0;
	}
	emit(d, "%s %s %s\n", op_names[op], jid(d, x, b), jid(d, y, c));
}

/* One core operation, its dependencies first. */
static void core_op(struct dep *d, enum aop op, const struct prm *p, bool last)
{
	int n = p->p_a;

	switch (op) {
	case O_CREAT: case O_MKNOD:
		dep_parent(d, p);
		if (d->file_open[n] >= 0) {
			d->file_open[n] = -1;
			ins_simple(d, "unlink", n);
		}
		d->file_open[n] = 1;
		if (op == O_CREAT) {
			ins_open(d, n);
		} else {
			char b[16];

			emit(d, "mknod %s TEST_FILE_PERMS|S_IFCHR|S_IFBLK 0\n", jid(d, n, b));
		}
		break;
	case O_MKDIR:
		dep_mkdir(d, n);
		emit_mkdir(d, n);
		break;
	case O_LINK: case O_RENAME: case O_SYMLINK: op_pair(d, op, p); break;
	case O_UNLINK: case O_REMOVE:
		dep_parent(d, p);
		dep_exists(d, n);
		dep_closed(d, n);
		if (!d->s->seq1)
			d->file_open[n] = -1;
		ins_simple(d, op_names[op], n);
		break;
	case O_REMOVEXATTR: case O_FDATASYNC: case O_FSETXATTR:
		dep_parent(d, p);
		dep_exists(d, n);
		if (op == O_REMOVEXATTR && d->file_open[n] == 1)
			ins_simple(d, "fsetxattr", n);
		ins_simple(d, op_names[op], n);
		if (op == O_FDATASYNC && d->s->seq1)
			emit(d, "checkpoint\n");
		else if (op == O_FDATASYNC)
			emit(d, "checkpoint %d\n", last);
		break;
	default:
		dep_data(d, op, p);
		line_data(d, op, p, last);
	}
}

/* The persistence operation @t (a name, -1 sync, -2 none) after a core operation. */
static void persist_op(struct dep *d, int t, bool last)
{
	char ck[16];

	snprintf(ck, sizeof(ck), d->s->seq1 ? "checkpoint\n" : "checkpoint %d\n", last);
	if (t == -2) {
		emit(d, "none\n");
	} else if (t == -1) {
		emit(d, "sync\n%s", ck);
	} else {
		struct prm p = { t, -1, -1, -1 };

		dep_parent(d, &p);
		dep_exists(d, t);
		ins_simple(d, "fsync", t);
		emit(d, "%s", ck);
	}
}

/* The j-lang file of the walk's current workload into @out. */
static void build_jlang(const struct walk *w, char *out, size_t cap)
{
	struct dep d = { .s = w->s, .out = out, .cap = cap };

	for (unsigned i = 0; i < N_NR; i++) {
		d.file_open[i] = d.dir_open[i] = d.length[i] = -1;
	}
	d.dir_open[N_TEST] = 0;
	emit(&d, "# define\ntest\nA\nA/C\nB\nfoo\nbar\nA/foo\nA/bar\nB/foo\nB/bar\nA/C/foo\n"
	     "A/C/bar\n\n# declare\nlocal_checkpoint\n\n# setup\n\n\n# run\n");
	for (unsigned i = 0; i < w->s->slots; i++) {
		bool last = i + 1 == w->s->slots;
		enum aop op = w->ops[i];

		core_op(&d, op, w->prm[i], last);
		if (w->s->seq1 || (op != O_FDATASYNC && op != O_MMAPWRITE))
			persist_op(&d, w->targets[w->choice[i]], last);
	}
	for (unsigned i = 0; i < N_NR; i++)
		if (d.file_open[i] == 1)
			ins_close(&d, (int)i);
	for (unsigned i = 0; i < N_NR; i++)
		if (d.dir_open[i] == 1)
			ins_close(&d, (int)i);
}

/* The persistence choices of slot @i: k + 2 (k + 1 at the last; seq-1: k + 1, 1). */
static unsigned choices(const struct walk *w, unsigned i)
{
	if (w->s->seq1)
		return w->ops[i] == O_FDATASYNC ? 1 : w->nr_targets;
	return i + 1 == w->s->slots ? w->nr_targets : w->nr_targets + 1;
}

struct walker {
	struct walk w;
	struct plist pl[ACE_SLOTS];
	uint64_t n;
	uint64_t first, last;           /* the workloads handed to fn */
	ace_fn fn;
	void *arg;
	bool stop;
	char jlang[ACE_JLANG_MAX];
};

/* Every persistence choice of the current combination (the last slot fastest). */
static void walk_persist(struct walker *k)
{
	struct walk *w = &k->w;
	unsigned nr = w->s->slots;
	uint64_t total = 1;

	for (unsigned i = 0; i < nr; i++)
		total *= choices(w, i);
	if (!k->fn) {
		k->n += total;
		return;
	}
	for (uint64_t c = 0; c < total && !k->stop; c++) {
		uint64_t r = c;

		for (unsigned i = nr; i-- > 0;) {
			unsigned m = choices(w, i);

			w->choice[i] = w->s->seq1 && w->ops[i] == O_FDATASYNC ? w->nr_targets
					: (unsigned)(r % m);
			r /= m;
		}
		if (k->n == k->last) {
			k->stop = true;
			break;
		}
		if (++k->n < k->first)
			continue;
		build_jlang(w, k->jlang, sizeof(k->jlang));
		if (k->fn(k->arg, k->n, k->jlang))
			k->stop = true;
	}
}

/* Every parameter combination from slot @i on. */
static void walk_params(struct walker *k, unsigned i)
{
	struct walk *w = &k->w;

	if (i == w->s->slots) {
		persist_set(w);
		walk_persist(k);
		return;
	}
	for (unsigned p = 0; p < k->pl[i].nr && !k->stop; p++) {
		w->prm[i] = &k->pl[i].p[p];
		walk_params(k, i + 1);
	}
}

/* Every skeleton of the space (the last slot fastest), less the pruned. */
static void walk_skeletons(struct walker *k)
{
	const struct space *s = k->w.s;
	uint64_t sk = 1;

	for (unsigned i = 0; i < s->slots; i++)
		sk *= s->nr_ops;
	for (uint64_t c = 0; c < sk && !k->stop; c++) {
		uint64_t r = c;
		unsigned writes = 0;

		for (unsigned i = s->slots; i-- > 0;) {
			k->w.ops[i] = s->ops[r % s->nr_ops];
			writes += k->w.ops[i] == O_WRITE;
			r /= s->nr_ops;
			build_tuple(s, k->w.ops[i], &k->pl[i]);
		}
		if (s->skip_www && writes == s->slots)
			continue;
		walk_params(k, 0);
	}
}

uint64_t ace_walk(enum ace_space sp, uint64_t first, uint64_t last, ace_fn fn, void *arg)
{
	struct walker *k;
	uint64_t n;

	SIM_ASSERT(sp > ACE_SPACE_NONE && sp < ACE_SPACE_COUNT && (!fn || first >= 1));
	k = sim_zalloc(sizeof(*k));
	k->w.s = &spaces[sp];
	k->first = first;
	k->last = last;
	k->fn = fn;
	k->arg = arg;
	walk_skeletons(k);
	n = k->n;
	free(k);
	return n;
}
