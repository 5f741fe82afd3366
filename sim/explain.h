/*
 * explain.h - the model's events and rules in words: one line per event
 * (`run --events`), the same events as JSON (`run --json`), and the rule behind
 * each size change (`run --explain`, `diff`): the kernel function, the
 * condition it applies, and the patch toggle that decides it where kernels
 * differ.
 *
 * Everything here reads events recorded by the model (model/events.h) and
 * the layout of the file system; nothing here changes the model.
 */
#ifndef EXT4SIM_EXPLAIN_H
#define EXT4SIM_EXPLAIN_H

#include <stddef.h>
#include <stdio.h>

#include "ext4.h"

#define EXPLAIN_LINE_MAX 400

/* One event in words, without its number: "ext4_bio_write_folio: submit data block ...". */
void explain_event(const struct ext4_layout *lay, const struct sim_event *e, char *out,
		   size_t cap);

/* The events [first, end) of @log, one "eN text" line each, indented for the trace. */
void explain_print_events(FILE *out, const struct ext4_layout *lay, const struct ev_log *log,
			  uint32_t first, uint32_t end);

/* The same events as a JSON array of objects (docs/json.md). */
void explain_json_events(FILE *out, const struct ext4_layout *lay, const struct ev_log *log,
			 uint32_t first, uint32_t end);

/*
 * The rule behind a size event (EV_I_SIZE or EV_I_DISKSIZE): "i_disksize
 * 0 -> 8192: mpage_map_and_submit_extent raises it to the end of the range
 * writeback just mapped (delalloc)".  @sem decides which toggle is named.
 */
void explain_size_event(const struct sim_event *e, const struct ext4_semantics *sem, char *out,
			size_t cap);

/*
 * The rule alone, without the sizes: "mpage_map_and_submit_extent (writeback
 * ...)".  The words and the toggle are those the model's call named with the
 * change (struct ext4_size_rule, model/ext4/ext4.h); nothing here lists rules.
 */
void explain_size_rule(const struct sim_event *e, const struct ext4_semantics *sem, char *out,
		       size_t cap);

/* Do size events @a and @b come from the same rule (the same call's rule, else function)? */
bool explain_same_rule(const struct sim_event *a, const struct sim_event *b);

/* The same as a JSON array of strings. */
void explain_json_sizes(FILE *out, const struct ev_log *log, uint32_t first, uint32_t end,
			const struct ext4_semantics *sem);

/*
 * `run --explain` for the trace's other lines: when the extents line changed,
 * each block-map event (allocate, convert, free) with its function; when the
 * cache line changed, the page-cache events counted by type and function.
 */
void explain_print_fields(FILE *out, const struct ext4_layout *lay, const struct ev_log *log,
			  uint32_t first, uint32_t end, bool extents, bool cache);

/* Print every size change of the events [first, end) with its rule (`run --explain`). */
void explain_print_sizes(FILE *out, const struct ev_log *log, uint32_t first, uint32_t end,
			 const struct ext4_semantics *sem);

#endif
