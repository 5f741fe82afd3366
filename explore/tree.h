/*
 * tree.h - the bounded-exhaustive space walked as a tree (prefix sharing):
 * each prefix runs once, and each next step runs in a fork of the world the
 * prefix left (sim_stream_fork: device, file system, page cache, journal,
 * checker), so a sequence costs one step and its crash points, not a replay
 * from mkfs.  Which shard owns a sequence is decided here for both walks
 * (the tree's and the sequence-by-sequence one), by subtree: a shard owns
 * whole subtrees, so its prefixes are shared too.
 *
 * A grammar with namespace steps is walked twice, as a run of each sequence
 * judges it: the sequences without one on the one file's worlds (a
 * namespace step's subtree not entered), then those with one on worlds
 * judged as a namespace from mkfs (sim_stream_namespace), whose prefixes
 * without one run again there but count only as prefixes.
 */
#ifndef EXT4SIM_TREE_H
#define EXT4SIM_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "run.h"

struct tree_space {
	unsigned nr_g;                  /* grammar steps */
	unsigned steps;                 /* K: sequences of 1..K steps */
	const struct scn_step *st;      /* [K][nr_g]: step g at position i (its fill byte) */
	const bool *persist;            /* [nr_g]: a persistence step (pruned when repeated) */
	const bool *ns;                 /* [nr_g]: a namespace step; NULL: the grammar has none */
	unsigned shard, nr_shards;
	unsigned sides;                 /* 1, or 2 with --diff (off, on) */
	const struct sim_variant_cfg *cfg[2];
	const struct sim_options *o;    /* crash_everywhere: judged after and inside each step */
	bool share_states;              /* equal states at one depth share their subtree (memo.h) */
};

/* A sequence that is a finding: its number and what each side violated (1 << inv). */
struct tree_hit {
	uint64_t n;
	uint32_t mask[2];
};

struct tree_result {
	uint64_t run, pruned;
	uint64_t forks;                 /* worlds forked */
	uint64_t reused;                /* nodes whose state was met before: replayed, not run */
	uint64_t reused_seqs;           /* the sequences under them */
	uint64_t memo_entries;          /* subtrees kept */
	bool interrupted;               /* a signal stopped the walk (outfile_signal) */
	struct tree_hit *hits;          /* in ascending sequence number */
	uint64_t nr_hits, cap_hits;
};

/* The depth at which shards split the space: the first with nr_g^D >= 4 x shards (<= K). */
unsigned tree_split_depth(const struct tree_space *sp);
/* Does this shard own the sequence @idx[0..len-1]? */
bool tree_owns(const struct tree_space *sp, const unsigned *idx, unsigned len);
/* How many sequences of the space this shard owns. */
uint64_t tree_owned_total(const struct tree_space *sp);
/* Walk this shard's subtrees; hits are the sequences whose masks make a finding. */
void tree_explore(const struct tree_space *sp, struct tree_result *res);
void tree_result_free(struct tree_result *res);

#endif
