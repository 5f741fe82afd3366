/*
 * minimize.h - shrinking a scenario that shows a finding (see minimize.c).
 */
#ifndef EXT4SIM_MINIMIZE_H
#define EXT4SIM_MINIMIZE_H

#include "run.h"

/*
 * What a candidate must still show: invariant @inv counted as violated by
 * variant @cfg, or with @diff, violated with the toggle on and not off (or
 * the reverse, as the original showed).
 */
struct min_target {
	struct sim_variant_cfg cfg;
	int inv;
	const struct ext4_toggle *diff;
	bool diff_on_side;              /* with @diff: violated with the toggle on */
	char partner[SCN_NAME_MAX];     /* minimize: the variant on the other side of @diff */
	struct sim_options o;           /* crash enumeration settings */
	uint64_t runs;                  /* scenarios run so far */
};

/* Run the steps @texts under @t; does the finding still show? */
bool min_reproduces(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr);

/*
 * Shrink @texts in place (count in *@nr): delta debugging over the steps,
 * then each step's numbers towards block boundaries and small values, then
 * the mount options towards the defaults (t->cfg changes); every change
 * kept only if the finding still shows.
 */
void min_minimize(struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned *nr);

/* Build a scenario named @name from step lines (they must parse). */
void min_build(struct scenario *s, const char *name, char (*texts)[SCN_STEP_TEXT_MAX],
	       unsigned nr);

/*
 * ext4sim minimize, as the command line (cli/explore_cmd.c) asks it: a
 * scenario loaded with its variants resolved, the judging options, the
 * variant (o.variant) and invariant to keep (NULL: the first violated), and
 * where to write the result.
 */
struct min_request {
	const struct scenario *s;
	const struct sim_variant_cfg *cfg;
	unsigned nr_cfg;
	struct sim_options o;
	const char *invariant;
	const char *in_path;            /* the input, as the report line names it */
	const char *out;
};

/*
 * Minimize @rq's finding and write it to rq->out; the report line on
 * stdout.  0, or 2 after a message (nothing to minimize, a write error).
 */
int min_run(const struct min_request *rq);

#endif
