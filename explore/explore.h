/*
 * explore.h - the search for findings as a library (explore.c): the
 * command line (cli/explore_cmd.c) parses explore's and merge's flags into
 * struct explore_opts and calls these entry points, which judge, minimize,
 * write the findings' files and print the report; nothing here reads argv
 * or prints a usage error.
 */
#ifndef EXT4SIM_EXPLORE_H
#define EXT4SIM_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

#include "grammar.h"
#include "run.h"
#include "sweep.h"

#define EXPLORE_STEPS_MAX 8             /* K: exhaustive, and random runs judged whole */
#define EXPLORE_SPACE_DEFAULT 1000000000ull    /* sequences one exhaustive run takes unasked */

/* Where a long run judges crash states (--crash-at). */
enum crash_at { CA_EVERYWHERE, CA_EVERY_N, CA_PERSIST, CA_CRASH, CA_NONE };

/*
 * One search as the flags (and the grammar file) set it.  The caller owns
 * every pointer (the grammar, the strings) until explore_free.
 */
struct explore_opts {
	struct sim_overrides ov;        /* the run flags' settings; a sweep applies over them */
	struct sim_options o;           /* judging and output (--json, --crash-bound, ...) */
	const struct ext4_toggle *diff; /* --diff PATCH, or NULL */
	bool diff_states;               /* --diff-states: crash states that differ are findings */
	const struct grammar_file *gf;  /* the templates (built in or --grammar) */
	const char *grammar_path;       /* --grammar FILE, or NULL (reproduce lines name it) */
	unsigned kinds;                 /* bit per enum gkind */
	const char *kinds_arg;          /* --kinds as given */
	uint32_t steps;                 /* K */
	bool has_steps;                 /* --steps given */
	uint64_t seed, count, only_run;
	bool random, minimize, fixed_length, has_run;
	bool share;                     /* exhaustive: the tree walk (tree.c), not one run a sequence */
	bool share_states;              /* and equal states share their subtree (memo.h) */
	bool share_stats;               /* --share-stats: what sharing saved, on stderr */
	enum crash_at crash_at;
	uint32_t crash_every;           /* --crash-at N */
	const char *crash_at_arg;
	uint32_t shard, nr_shards;
	const char *out_dir;
	uint64_t max_space;             /* --max-space: the most sequences run here unasked */
	struct explore_sweep sweep;     /* the kernels, block sizes, mount modes swept (sweep.h) */
};

struct explore;

/* The defaults of a search: 3 steps, the default kinds, minimized, shared, shard 0/1. */
void explore_opts_init(struct explore_opts *op);
/* A search of @op (copied; its pointers must live until explore_free). */
struct explore *explore_new(const struct explore_opts *op);
/*
 * Resolve the variant of every configuration of the sweep and mark those
 * that mount as an earlier one; 0, or 2 after the one message (a setting
 * the scenario layer refuses).
 */
int explore_resolve(struct explore *e);
/*
 * Run the search: the space check, every configuration, the findings'
 * files, the report on stdout.  The exit status: 0, 2 (a space past
 * --max-space, a finding not written), 128 + N when stopped by signal N.
 */
int explore_run(struct explore *e);
void explore_free(struct explore *e);

/* ext4sim merge: the shards' --json reports, read one at a time. */
struct explore *explore_merge_new(void);
/*
 * Add report @path; 0, 2 after a FILE:LINE:COL message, or -1 when @path
 * cannot be opened (the caller's usage error).
 */
int explore_merge_file(struct explore *m, const char *path, bool first);
/*
 * The merged report (text, or @json): 0, or -1 when a shard is missing
 * (its "I/N" in @missing, nothing printed).
 */
int explore_merge_report(struct explore *m, bool json, char missing[32]);

#endif
