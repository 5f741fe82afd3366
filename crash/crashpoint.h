/*
 * crashpoint.h - where a run enumerates and judges crash states, and what
 * a crash step leaves (see crashpoint.c).
 */
#ifndef EXT4SIM_CRASHPOINT_H
#define EXT4SIM_CRASHPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "blkdev.h"
#include "scenario.h"

struct world;
struct sim_step_result;

/* The context the device's hook gets for crash points inside one step. */
struct crash_inside_ctx {
	struct world *w;
	const struct scn_step *st;
	uint32_t step;                  /* 1-based index of the step */
	int64_t size_before;            /* i_size when the step began */
};

/* Can a crash inside step @st be judged (its own change is known)? */
bool crash_judgeable_inside(const struct scn_step *st);

/*
 * Before step @st (number @idx) runs: arm the device's hook so that, when
 * @judge, each flush or FUA write with other writes pending is a crash point
 * (crash_inside); otherwise disarm it.  @ic->w must be set.
 */
void crash_arm_inside(struct crash_inside_ctx *ic, const struct scn_step *st, uint32_t idx,
		      bool judge);

/* The device's hook: a crash point just before the media changes. */
void crash_inside(void *ctx, enum bd_point what, const struct bio_rec *fua);

/* --crash-everywhere: judge a crash right after step @idx without taking it. */
void crash_here(struct world *w, const struct scn_step *st, uint32_t idx,
		struct sim_step_result *sr);

/*
 * The crash / shutdown step: enumerate and judge its states, then continue
 * from the state a real shutdown leaves (or the one crash --keep names):
 * the file system is freed and mounted again, recovery included.
 */
void crash_step(struct world *w, const struct scn_step *st, uint32_t idx,
		struct sim_step_result *sr);

#endif
