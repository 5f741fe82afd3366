/*
 * scnwrite.h - a scenario written back as YAML (see scnwrite.c), and the
 * YAML scalars every scenario writer uses (explore, minimize, import,
 * export, gen), so that scn_load() reads back what was written.
 */
#ifndef EXT4SIM_SCNWRITE_H
#define EXT4SIM_SCNWRITE_H

#include <stdio.h>

#include "run.h"

/* How scn_yaml_scalar() writes a string. */
enum scn_yaml_style {
	SCN_YAML_PLAIN,         /* plain where that reads back the same, else quoted */
	SCN_YAML_QUOTED,        /* double-quoted, with escapes */
	SCN_YAML_FOLDED,        /* scn_yaml_line(): a folded block of prose, else quoted */
};

/*
 * @s as a YAML scalar in @style (SCN_YAML_FOLDED is quoted here).  A quoted
 * scalar escapes '"', '\\', control characters, C1 controls and the Unicode
 * line separators, and keeps other UTF-8 as is; it reads back as @s, but
 * for bytes that are not UTF-8, written as '?'.
 */
void scn_yaml_scalar(FILE *f, const char *s, enum scn_yaml_style style);
/*
 * "INDENTkey: VALUE\n".  SCN_YAML_FOLDED writes a folded block of VALUE's
 * words (wrapped before column 88), which reads back as the words one blank
 * apart with a final line break; it is quoted instead if VALUE has no word
 * or a character a block cannot hold unescaped.
 */
void scn_yaml_line(FILE *f, const char *indent, const char *key, const char *value,
		   enum scn_yaml_style style);
/* "INDENT- VALUE\n": an entry of a block sequence. */
void scn_yaml_item(FILE *f, const char *indent, const char *value, enum scn_yaml_style style);

struct scn_write {
	const struct scenario *w_scn;           /* name and steps */
	const char *w_description;
	const struct sim_variant_cfg *w_cfg;    /* mount options (and semantics alone) */
	const struct sim_variant_cfg *w_variants;       /* NULL: one variant, "default" */
	unsigned w_nr_variants;
	const bool (*w_expect)[INV_COUNT];      /* per variant: what it must violate */
	const struct sim_options *w_judging;    /* how it was judged (config: keys), or NULL */
};

/* Write @w to @path (temporary name, then rename); -1 with a message in @err. */
int scn_write_yaml(const struct scn_write *w, const char *path, char *err, size_t errlen);

#endif
