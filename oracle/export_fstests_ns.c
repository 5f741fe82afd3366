/*
 * export_fstests_ns.c - the parts of export --format fstests that only a
 * namespace scenario has (docs/real-kernel.md, "The fstests test of
 * several files"): each namespace step as the shell command fstests tests
 * write (mkdir, rmdir, rm, ln, ln -s, mv -T, fstests' src/renameat2 where
 * mv cannot say it, xfs_io for creat and fsync PATH), run through the
 * test's `ns` helper, which prints a failure; and each read-back point as
 * the tree the golden output lists, or, after a crash the model is not
 * sure of, a check that the tree is one of the states it lists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* One line of nsnap_text as its parts; false for a line that is not a name's. */
struct ns_line {
	char path[SCN_PATH_MAX + 1];
	char type[8];
	unsigned ino, nlink;
	long long size;
	char hash[33];
	const char *rest;               /* " -> TARGET", " xattrs N H", or "" (to the newline) */
	size_t rest_len;
};

/* Line @l (up to its newline) into @nl: false for an unreachable or orphans line. */
static bool parse_line(const char *l, struct ns_line *nl)
{
	int n = 0;
	const char *end = strchr(l, '\n');

	SIM_ASSERT(end != NULL);
	if (*l != '/' || sscanf(l, "%256s %7s ino %u nlink %u size %lld %32s%n", nl->path,
				nl->type, &nl->ino, &nl->nlink, &nl->size, nl->hash, &n) != 6)
		return false;
	nl->rest = l + n;
	nl->rest_len = (size_t)(end - nl->rest);
	return true;
}

/* The rank of inode @ino among @seen (its first appearance; added if new). */
static unsigned ino_rank(unsigned *seen, unsigned *nr, unsigned ino)
{
	for (unsigned k = 0; k < *nr; k++)
		if (seen[k] == ino)
			return k + 1;
	seen[(*nr)++] = ino;
	return *nr;
}

char *xp_ns_check_form(const char *ns)
{
	size_t cap = strlen(ns) + 1, used = 0;
	unsigned *seen = sim_zalloc((cap / 8 + 1) * sizeof(*seen)), nr = 0;
	char *out = sim_zalloc(cap + 1);
	struct ns_line nl;

	for (const char *l = ns; *l; l = strchr(l, '\n') + 1) {
		if (!parse_line(l, &nl))
			continue;
		/* "#RANK" is no longer than "ino N" */
		used += (size_t)snprintf(out + used, cap - used, "%s%s %s #%u nlink %u size %lld %s%.*s",
					 used ? "\n" : "", nl.path, nl.type,
					 ino_rank(seen, &nr, nl.ino), nl.nlink, nl.size, nl.hash,
					 (int)nl.rest_len, nl.rest);
		SIM_ASSERT(used < cap);
	}
	free(seen);
	return out;
}

/* The MD5 of regular file @path in @md5s ("PATH MD5" lines); a bug if missing. */
static void md5_of(const char *md5s, const char *path, char md5[33])
{
	char p[SCN_PATH_MAX + 1];

	for (const char *l = md5s; *l; l = strchr(l, '\n') + 1)
		if (sscanf(l, "%256s %32s", p, md5) == 2 && strcmp(p, path) == 0)
			return;
	SIM_ASSERT(!"a regular file without its MD5");
}

void xp_ns_golden_tree(FILE *out, const char *ns, const char *md5s)
{
	size_t cap = strlen(ns) / 8 + 1;
	unsigned *ino = sim_zalloc(cap * sizeof(*ino)), nr = 0;
	char (*first)[SCN_PATH_MAX + 1] = sim_zalloc(cap * sizeof(*first));
	struct ns_line nl;
	char md5[33];

	for (const char *l = ns; *l; l = strchr(l, '\n') + 1) {
		unsigned r, before;

		if (!parse_line(l, &nl))
			continue;
		fprintf(out, "%s %s nlink %u size %lld", nl.path, nl.type, nl.nlink, nl.size);
		if (strcmp(nl.type, "reg") == 0) {
			md5_of(md5s, nl.path, md5);
			fprintf(out, " md5 %s", md5);
		}
		fprintf(out, "%.*s", (int)nl.rest_len, nl.rest);
		before = nr;
		r = ino_rank(ino, &nr, nl.ino);
		if (nr == before && strcmp(nl.type, "dir"))     /* seen before: a hard link */
			fprintf(out, " link of %s", first[r - 1]);
		fputc('\n', out);
		if (nr > before)
			snprintf(first[r - 1], sizeof(first[r - 1]), "%s", nl.path);
	}
	free(ino);
	free(first);
}

/* A namespace step's command line: the program, then its words. */
#define NS_WORDS_MAX 6
struct ns_cmd {
	const char *prog;               /* as the test writes it: mkdir, $XFS_IO_PROG */
	const char *shown;              /* as the ns helper prints it (its basename) */
	unsigned nr;
	const char *word[NS_WORDS_MAX];
	bool scratch[NS_WORDS_MAX];     /* a path under the scratch mount */
	char hex[2 * SCN_XATTR_VALUE_MAX + 3];  /* setfattr's -v 0xHEX */
};

/* Append word @w (a path under the scratch mount when @scratch) to @c. */
static void add_word(struct ns_cmd *c, const char *w, bool scratch)
{
	SIM_ASSERT(c->nr < NS_WORDS_MAX);
	c->word[c->nr] = w;
	c->scratch[c->nr++] = scratch;
}

/* Bytes a shell word needs no quotes for. */
static bool bare(const char *w)
{
	return strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-") ==
	       strlen(w);
}

/* The inode @path names in namespace @ns (nsnap_text), or 0. */
static unsigned ino_of(const char *ns, const char *path)
{
	struct ns_line nl;

	for (const char *l = ns; *l; l = strchr(l, '\n') + 1)
		if (parse_line(l, &nl) && strcmp(nl.path, path) == 0)
			return nl.ino;
	return 0;
}

/* A path with a "." or ".." component (mv would resolve it itself). */
static bool has_dots(const char *p)
{
	size_t n = strlen(p);

	return strstr(p, "/./") || strstr(p, "/../") || (n >= 2 && strcmp(p + n - 2, "/.") == 0) ||
	       (n >= 3 && strcmp(p + n - 3, "/..") == 0);
}

/*
 * rename: `mv -T OLD NEW` (rename(2); -T: NEW is never a directory to move
 * into), except where mv would not make the one rename(2) the step is: OLD
 * and NEW names of one inode (mv refuses "the same file", rename(2) does
 * nothing and succeeds), a "." or ".." component, and the flags, for which
 * mv has no option: fstests' src/renameat2 (-n RENAME_NOREPLACE, -x
 * RENAME_EXCHANGE) calls renameat2(2) with them.  @ns: the model's
 * namespace before the step.
 */
static void rename_cmd(struct ns_cmd *c, const struct scn_step *st, const char *ns)
{
	unsigned a = ino_of(ns, st->s_path), b = ino_of(ns, st->s_path2);

	if (st->s_rename_flags || (a && a == b) || has_dots(st->s_path) || has_dots(st->s_path2)) {
		c->prog = "$here/src/renameat2";
		c->shown = "renameat2";
		if (st->s_rename_flags & SCN_RENAME_NOREPLACE)
			add_word(c, "-n", false);
		if (st->s_rename_flags & SCN_RENAME_EXCHANGE)
			add_word(c, "-x", false);
	} else {
		c->prog = c->shown = "mv";
		add_word(c, "-T", false);
	}
	add_word(c, st->s_path, true);
	add_word(c, st->s_path2, true);
}

/* xfs_io for fsync PATH, fdatasync PATH (-r: a directory too) and creat (-f -t, quit). */
static void xfs_io_cmd(struct ns_cmd *c, const struct scn_step *st)
{
	c->prog = "$XFS_IO_PROG";
	c->shown = "xfs_io";
	if (st->s_op == SCN_CREAT) {    /* open(O_CREAT|O_TRUNC) and close, as creat(2) */
		add_word(c, "-f", false);
		add_word(c, "-t", false);
		add_word(c, "-c", false);
		add_word(c, "quit", false);
	} else {
		add_word(c, "-r", false);
		add_word(c, "-c", false);
		add_word(c, scn_op_name(st->s_op), false);
	}
	add_word(c, st->s_path, true);
}

/*
 * setxattr PATH NAME [VALUE]: `setfattr -n NAME -v 0xHEX PATH` (the value in
 * hex, which setfattr decodes byte for byte; no -v for the empty value);
 * removexattr PATH NAME: `setfattr -x NAME PATH`.  setfattr follows a
 * symbolic link, as setxattr(2) does.
 */
static void setfattr_cmd(struct ns_cmd *c, const struct scn_step *st)
{
	c->prog = "$SETFATTR_PROG";
	c->shown = "setfattr";
	add_word(c, st->s_op == SCN_SETXATTR ? "-n" : "-x", false);
	add_word(c, st->s_xattr_name, false);
	if (st->s_op == SCN_SETXATTR && st->s_path2[0]) {
		size_t n = 2;

		snprintf(c->hex, sizeof(c->hex), "0x");
		for (const char *v = st->s_path2; *v; v++)
			n += (size_t)snprintf(c->hex + n, sizeof(c->hex) - n, "%02x", (unsigned char)*v);
		add_word(c, "-v", false);
		add_word(c, c->hex, false);
	}
	add_word(c, st->s_path, true);
}

/* The command of namespace step @st (the model's namespace before it: @ns). */
static void ns_cmd_of(struct ns_cmd *c, const struct scn_step *st, const char *ns)
{
	memset(c, 0, sizeof(*c));
	switch (st->s_op) {
	case SCN_FSYNC: case SCN_FDATASYNC: case SCN_CREAT:
		xfs_io_cmd(c, st);
		return;
	case SCN_RENAME:
		rename_cmd(c, st, ns);
		return;
	case SCN_SETXATTR: case SCN_REMOVEXATTR:
		setfattr_cmd(c, st);
		return;
	case SCN_MKDIR: c->prog = "mkdir"; break;
	case SCN_RMDIR: c->prog = "rmdir"; break;
	case SCN_UNLINK: c->prog = "rm"; break;
	case SCN_LINK:          /* -T: NEW is never a directory to link into */
		c->prog = "ln";
		add_word(c, "-T", false);
		break;
	case SCN_SYMLINK:
		c->prog = "ln";
		add_word(c, "-s", false);
		add_word(c, "-T", false);
		if (st->s_path2[0] == '-')      /* a target that reads as an option */
			add_word(c, "--", false);
		add_word(c, st->s_path2, false);
		break;
	default:
		SIM_ASSERT(!"not a namespace step the test runs");
	}
	c->shown = c->prog;
	add_word(c, st->s_path, true);
	if (st->s_op == SCN_LINK)
		add_word(c, st->s_path2, true);
}

/* The test's line: `ns PROG WORD...`, a path as $SCRATCH_MNT/PATH (its part quoted if need be). */
static void write_cmd(FILE *out, const struct ns_cmd *c)
{
	fprintf(out, "ns %s", c->prog);
	for (unsigned k = 0; k < c->nr; k++) {
		fprintf(out, " %s", c->scratch[k] ? "$SCRATCH_MNT" : "");
		if (bare(c->word[k]))
			fputs(c->word[k], out);
		else
			xp_shell_word(out, "", c->word[k]);
	}
	fputc('\n', out);
}

void xp_fstests_ns_step(FILE *test, FILE *golden, const struct xctx *x, uint32_t i)
{
	const struct scn_step *st = &x->run.steps[i];
	char *ns = st->s_op == SCN_RENAME ? xp_model_namespace(x, i) : NULL;
	struct ns_cmd c;

	ns_cmd_of(&c, st, ns ? ns : "");
	write_cmd(test, &c);
	if (x->r.steps[i].err) {        /* what the ns helper prints, _filter_scratch'ed */
		fputs(c.shown, golden);
		for (unsigned k = 0; k < c.nr; k++)
			fprintf(golden, " %s%s", c.scratch[k] ? "SCRATCH_MNT" : "", c.word[k]);
		fputs(" failed\n", golden);
	}
	free(ns);
}

bool xp_ns_point_listed(const struct xpoint *p)
{
	return p->md5s != NULL;
}

void xp_fstests_ns_point(FILE *test, FILE *golden, const struct xpoint *p, const char *label)
{
	if (xp_ns_point_listed(p)) {
		fprintf(test, "print_ns \"%s\"\n", label);
		fprintf(golden, "%s:\n", label);
		xp_ns_golden_tree(golden, p->ns, p->md5s);
		return;
	}
	fprintf(test, "check_ns_state \"%s\"", label);
	for (uint32_t j = 0; p->cp && j < p->cp->nr_states; j++) {
		char *form = xp_ns_check_form(p->cp->states[j].ns);

		fputs(" \\\n\t", test);
		xp_shell_word(test, "", form);
		free(form);
	}
	fputc('\n', test);
	fprintf(golden, "%s: one of the model's %u states\n", label, p->cp ? p->cp->nr_states : 0);
}
