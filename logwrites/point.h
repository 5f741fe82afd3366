/*
 * point.h - a crash point in a write log: which entries came before it,
 * which of those a flush made durable, and which writes were still volatile
 * (the ones a power cut may lose, in any combination).
 *
 * Semantics, as a device with a volatile write cache honours them: a flush
 * entry makes every entry before it durable; a FUA write is durable once it
 * completes (whatever came before it is not); every other write after the
 * last flush may or may not be on the media after a power cut, independently
 * of the others.  A flush entry that also carries data (a pre-flush) flushes
 * what came before, then writes.  Writes wholly past the device's end are
 * left out and counted (the crash-point marks of the power-cut guest live
 * there); a write that straddles the end is an error.
 *
 * The unit a power cut keeps or loses is a logged write (a request as the
 * device received it), or with @split a piece of @split sectors of one: a
 * device that guarantees only smaller atomic units may tear a request.
 */
#ifndef EXT4SIM_POINT_H
#define EXT4SIM_POINT_H

#include <stddef.h>
#include <stdint.h>

#include "logfmt.h"

struct lw_unit {
	uint64_t lu_entry;              /* the log entry */
	uint64_t lu_first;              /* its first sector in the unit, from the entry's start */
	uint64_t lu_count;              /* sectors */
};

struct lw_point {
	uint64_t lp_end;                /* entries [0, lp_end) came before the crash */
	uint64_t lp_flush;              /* entries [0, lp_flush) are durable */
	uint64_t lp_nr_pending;         /* units of the writes (and discards) after them */
	struct lw_unit *lp_pending;     /* in log order */
	uint8_t *lp_forced;             /* per unit: 1 if FUA (always lands) */
	uint64_t lp_outside;            /* writes before the crash past the device's end */
	uint64_t lp_dev_bytes;
};

/*
 * Split @log at entry @end for a device of @dev_bytes (a multiple of the
 * log's sector size), the pending writes in units of @split sectors (0:
 * whole writes).  0, or -1 with a message in @err.
 */
int lw_point_init(struct lw_point *p, const struct lw_log *log, uint64_t end, uint64_t dev_bytes,
		  uint64_t split, char *err, size_t errlen);
void lw_point_free(struct lw_point *p);

/* Whether entry @e changes the device's contents inside @p's device (0 or 1). */
int lw_point_inside(const struct lw_point *p, const struct lw_log *log, const struct lw_entry *e);

#endif
