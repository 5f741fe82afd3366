/*
 * import_ace.h - ext4sim import --from ace: a workload of CrashMonkey's ACE
 * (its j-lang file) as a namespace scenario (docs/ace.md, "Import").
 */
#ifndef EXT4SIM_IMPORT_ACE_H
#define EXT4SIM_IMPORT_ACE_H

#include <stdbool.h>
#include <stdio.h>

#include "oracle.h"

#define ACE_NAMES_MAX 64                /* names in a j-lang file's define section */
#define ACE_TOK_MAX 8                   /* words on a j-lang line */

/* A j-lang file converted: the steps, or the message of the first thing refused. */
struct ace_result {
	struct scn_step *steps;
	unsigned nr, cap;
	unsigned nr_ops;                /* j-lang operations read (checkpoints aside) */
	unsigned nr_checkpoints;
	unsigned nr_after;              /* closes after the last checkpoint, left out */
	unsigned nr_lines;
	bool everywhere;                /* a checkpoint before the last: crash_everywhere */
	char err[SCN_ERR_MAX + 512];    /* "FILE:LINE:COL: message" */
};

/*
 * Read the j-lang text of @f (named @path in messages) into @r: 0, or -1
 * with the message in r->err.  The steps end with the crash step of the
 * last checkpoint.  r->steps is the caller's to free (ace_result_free).
 */
int ace_parse(const char *path, FILE *f, struct ace_result *r);
void ace_result_free(struct ace_result *r);
/*
 * The import command for --from ace: the scenario on stdout, or one message
 * on stderr.  @cfg is written as config: when @has_config or when the
 * workload needs crash_everywhere.  Returns the exit status (0 or 2).
 */
int orc_import_ace(const char *path, const char *name, const struct orc_config *cfg,
		   bool has_config);

#endif
