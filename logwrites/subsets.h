/*
 * subsets.h - the states a power cut can leave at a crash point, as
 * CrashMonkey enumerates them: each subset of the volatile writes (every FUA
 * write always in) applied on the device at the last flush.  Exhaustive when
 * there are at most @bound subsets, else @bound draws with lib/prng.h from
 * @seed (the empty and the full set first, then each write in or out with
 * even odds; a subset drawn twice is evaluated once), so the same log,
 * point, bound and seed give the same sample; how many subsets were
 * skipped is reported.
 *
 * Subsets that leave the same bytes on the device are one state: each
 * subset's device is summarised by a SHA-256 over the sectors whose final
 * writer differs from the device at the last flush (a pending write whose
 * bytes equal what is there changes nothing), and states are grouped by it.
 */
#ifndef EXT4SIM_SUBSETS_H
#define EXT4SIM_SUBSETS_H

#include <stddef.h>
#include <stdint.h>

#include "logfmt.h"
#include "point.h"

#define LW_BOUND_MAX 1000000u

struct lw_state {
	uint8_t ls_digest[32];
	uint64_t ls_first;              /* its first subset, in enumeration order */
	uint64_t ls_count;              /* subsets that leave it */
};

struct lw_states {
	uint64_t ls_free;               /* pending writes a power cut may drop (not FUA) */
	int ls_exhaustive;
	uint64_t ls_evaluated;          /* distinct subsets evaluated */
	uint8_t *ls_keep;               /* ls_evaluated rows of lp_nr_pending bytes */
	uint64_t ls_nr;                 /* distinct states */
	struct lw_state *ls_states;     /* ordered by ls_first */
};

/*
 * Enumerate @p's subsets (@flushed: the device at the last flush, from
 * lw_apply_durable) and group them into states.  0, or -1 with @err.
 */
int lw_states_build(struct lw_states *s, const struct lw_log *log, const struct lw_point *p,
		    const uint8_t *flushed, uint64_t bound, uint64_t seed, char *err, size_t errlen);
void lw_states_free(struct lw_states *s);

/* Subset @i's keep bytes (lp_nr_pending of them, FUA writes set). */
const uint8_t *lw_states_keep(const struct lw_states *s, const struct lw_point *p, uint64_t i);

#endif
