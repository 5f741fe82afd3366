/*
 * timeline.h - the block timeline of a step: where each version of each
 * block is after each of the step's events (docs/events.md, "The block
 * timeline"), the picture of the journaling chapter of Operating Systems:
 * Three Easy Pieces (a transaction's TxB, its copies, TxE, then the
 * checkpoint) drawn from the model itself.
 *
 * Rows are blocks: the file's data blocks (the first TL_DATA_ROWS of them),
 * the metadata blocks (block bitmap, inode table, extent block, and any
 * other the step touches) and the journal's own blocks of the step's
 * commits (descriptor, revoke, commit).  For each row, five places:
 *   cache          the page cache (a data block's buffer) or the metadata
 *                  buffer in memory; '*' marks a dirty data buffer
 *   log_pending    the block's copy in the journal, written but not durable
 *   log_media      the copy on the media in the log
 *   home_pending   a write to the block's own location, not durable
 *   home_media     the block's own location on the media
 * A pending cell is "~V" while the write is in flight and "V" once it is in
 * the device's volatile write cache.  A version V is the block's bytes: a
 * data block's byte when all are equal ("aa"), two bytes for two runs
 * ("aa/00"), else vN (its bytes as runs go with the row); a metadata block's
 * vN counts its contents in order of first sight over the run (v0: what the
 * first step found); the journal's blocks are TxB (descriptor), R (revoke)
 * and TxE (commit).
 *
 * Columns: 0 is before the step, N the state right after event eN, -1 after
 * the step when it differs from the last event's.  The tracker samples the
 * model from the event log's observer (events.h) and reads only.
 */
#ifndef EXT4SIM_TIMELINE_H
#define EXT4SIM_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#define TL_DATA_ROWS 16u        /* file blocks shown */
#define TL_ROWS_MAX 48u
#define TL_COLS_MAX 512u        /* columns kept per step; past it: truncated */
#define TL_LOG_MAX 256u         /* journal blocks followed */
#define TL_LABEL 12u

enum tl_place { TL_CACHE, TL_LOG_PENDING, TL_LOG_MEDIA, TL_HOME_PENDING, TL_HOME_MEDIA,
		TL_PLACES };

struct world;
struct tl_tracker;
struct ext4_layout;
struct ev_log;

/* A tracker for world @w; attaches itself as the observer of @w's event log. */
struct tl_tracker *tl_create(struct world *w);
void tl_destroy(struct tl_tracker *t);
/* The step starts: column 0. */
void tl_step_begin(struct tl_tracker *t);
/* The step ended: the last column; returns the step's timeline as JSON (malloc'd). */
char *tl_step_end(struct tl_tracker *t);
/*
 * The step's timeline as text (run --timeline): only the columns where a
 * cell changed, in chunks of at most 100 characters, then those events.
 */
void tl_print(FILE *out, const struct tl_tracker *t, const struct ext4_layout *lay,
	      const struct ev_log *log, uint32_t first, uint32_t end);

const char *tl_place_name(enum tl_place p);

#endif
