/*
 * memo.h - equal states share their future: the results of the subtrees
 * the tree walk (tree.c) ran, by the state key of their root (the worlds'
 * keys, sim/statekey.c, the depth, and the last step when it is a
 * persistence step, as pruning reads it), so that a node whose key was met
 * before at the same depth replays the kept results instead of running
 * its subtree again.
 *
 * A subtree's results are the masks of the steps that violated something
 * (a mark: the step's place in walk order under the root, its masks per
 * side); every other step violated nothing.  What a sequence under the
 * node violates is the prefix's masks plus its own steps', so the results
 * hold for any prefix that reaches the state.  Only roots with 1 to
 * MEMO_LEFT_MAX steps left below them are kept, up to MEMO_ENTRIES_MAX
 * roots and MEMO_MARKS_MAX marks (beyond that, subtrees are run, not kept).
 */
#ifndef EXT4SIM_MEMO_H
#define EXT4SIM_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#define MEMO_LEFT_MAX 4
#define MEMO_ENTRIES_MAX (1u << 20)
#define MEMO_MARKS_MAX (1u << 22)

struct memo_key {
	uint64_t k[2][2];               /* per side: the world's 128-bit key */
	uint32_t depth;
	uint32_t last;                  /* the last step + 1 if a persistence step, else 0 */
	bool valid;
};

struct memo_entry {
	struct memo_key key;
	uint32_t first, nr;             /* its marks in the pool */
};

struct memo;

struct memo *memo_create(unsigned steps, unsigned split);
void memo_destroy(struct memo *m);
uint64_t memo_entries(const struct memo *m);
/* Are subtrees with @left steps below their root kept? */
bool memo_depth(const struct memo *m, unsigned left);
/* The entry of @k, or NULL. */
const struct memo_entry *memo_find(const struct memo *m, const struct memo_key *k);
/* A subtree is being run (memo_begin) and will be kept (memo_end, @start: walk order at its root). */
void memo_begin(struct memo *m, unsigned depth);
void memo_end(struct memo *m, const struct memo_key *k, uint64_t start, unsigned depth);
/* Are marks being recorded (a subtree being run is kept)? */
bool memo_recording(const struct memo *m, unsigned depth);
/* The step at walk position @at violated @mask (per side). */
void memo_mark(struct memo *m, uint64_t at, const uint32_t *mask);
/* The masks of the step at @local under @me's root (0 when unmarked); *next: the cursor. */
void memo_step_masks(const struct memo *m, const struct memo_entry *me, uint32_t *next,
		     uint64_t local, uint32_t *mask);

#endif
