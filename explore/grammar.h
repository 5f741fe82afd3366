/*
 * grammar.h - the step kinds of ext4sim explore and the grammar file
 * (explore --grammar FILE.yaml; docs/explore.md, docs/scenario-format.md).
 *
 * A grammar is a list of step templates (gexpr.h: step lines whose numbers
 * may be written in terms of BS and PAGE), each of one kind; explore
 * expands them for the variant's block size.  grammar_load() reads a
 * grammar file with the scenario loader's machinery and limits (ldr.h) and
 * checks every template by expanding it for each block size the model
 * supports and parsing the result as a scenario step, so that a typo is
 * reported at load time as "FILE:LINE:COL: message".
 */
#ifndef EXT4SIM_GRAMMAR_H
#define EXT4SIM_GRAMMAR_H

#include <stdbool.h>
#include <stdint.h>

#include "ace.h"
#include "scenario.h"

#define GRAMMAR_MAX 128                  /* templates in one grammar */
#define GRAMMAR_STEPS_MAX 10000000u      /* steps: K, in random mode */

/*
 * The kinds: the one file's (write .. insert), then the namespace's (creat
 * .. xattr: their steps name paths, docs/scenario-format.md "Namespace
 * steps"; a sequence with one of them is judged as a namespace scenario).
 */
enum gkind {
	GK_WRITE, GK_TRUNCATE, GK_PERSIST, GK_CRASH, GK_FALLOC, GK_MWRITE, GK_SHORT,
	GK_CHATTR, GK_CLOSE, GK_REMOUNT, GK_EVICT, GK_COLLAPSE, GK_INSERT,
	GK_CREAT, GK_MKDIR, GK_RMDIR, GK_LINK, GK_UNLINK, GK_RENAME, GK_SYMLINK,
	GK_FSYNCPATH, GK_XATTR, GK_COUNT
};

/* "write, truncate, ..., xattr": every kind's name, for messages. */
#define GK_NAMES_TEXT "write, truncate, persist, crash, falloc, mwrite, short, chattr, " \
		      "close, remount, evict, collapse, insert, creat, mkdir, rmdir, link, " \
		      "unlink, rename, symlink, fsyncpath, xattr"

/* The kinds on by default (explore without --kinds, a file without kinds:). */
#define GK_DEFAULT ((1u << GK_WRITE) | (1u << GK_TRUNCATE) | (1u << GK_PERSIST) | \
		    (1u << GK_CRASH))

struct gtemplate {
	char t_text[SCN_STEP_TEXT_MAX];  /* as written */
	enum gkind t_kind;
	uint32_t t_line, t_col;          /* 1-based; 0 for the built-in grammar */
};

struct grammar_file {
	unsigned nr;
	struct gtemplate t[GRAMMAR_MAX]; /* in file order */
	unsigned have;                   /* kinds with templates, bit per enum gkind */
	bool has_kinds;
	unsigned kinds;                  /* kinds:, bit per enum gkind */
	bool has_steps;
	uint32_t steps;                  /* steps: 1..GRAMMAR_STEPS_MAX */
	uint32_t steps_line, steps_col;
	bool has_block_size;
	uint32_t block_size;
	enum ace_space space;            /* space: an ACE space (ace.h), or ACE_SPACE_NONE */
};

/* The name of kind @k; the kind named @name, or -1. */
const char *grammar_kind_name(enum gkind k);
int grammar_kind_lookup(const char *name);

/*
 * The built-in grammar (every kind's templates, in order); explore
 * without --grammar uses it, and docs/grammars/default.yaml spells out
 * its default kinds.
 */
void grammar_builtin(struct grammar_file *g);

/*
 * Load and check the grammar file @path into @g.  Returns 0, or -1 with
 * "PATH:LINE:COL: message" in @err.
 */
int grammar_load(const char *path, struct grammar_file *g, char *err, size_t errlen);

/*
 * Template @t expanded for block size @bs and page size 4096 into @out;
 * it must have been checked (grammar_builtin, grammar_load).
 */
void grammar_expand(const struct gtemplate *t, uint32_t bs, char out[SCN_STEP_TEXT_MAX]);

#endif
