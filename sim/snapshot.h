/*
 * snapshot.h - the whole state of a mounted world as one JSON object, the
 * "state" of each step in `ext4sim run --json` (docs/json.md).
 *
 * What it captures, read only (the run is not disturbed):
 *   - i_size, i_disksize, the orphan mark, and the durable size: the i_size
 *     a mount finds on the durable blocks alone (journal recovery and orphan
 *     cleanup included), from a mount of an overlay of the device that is
 *     freed at once;
 *   - the block map: every extent, written, unwritten or delayed;
 *   - every folio of the page cache with its PG_* bits, and its buffers'
 *     BH_* bits and mapped disk blocks;
 *   - the journal: the running and committing transactions (the blocks each
 *     carries, named by the model's layout; revokes; freed ranges; the
 *     ordered-data range), the committed transactions still in the log, the
 *     checkpoint list, head, tail, free blocks and sequence numbers;
 *   - the device: every write not yet durable, numbered as `crash --keep`
 *     counts them, the flush count, and for the file's mapped blocks whether
 *     their newest contents are durable, in the volatile cache or in flight;
 *   - the file's bytes as a reader sees them (ext4_peek), as runs of equal
 *     bytes, at most SNAP_BYTE_RUNS_MAX of them;
 *   - the run's counters.
 * What it does not capture: the contents of metadata and journal blocks,
 * the data of pending writes, io_ends, the allocator's free map and
 * reservations beyond what the extents show, the checker's reference, and
 * the crash states the device could be left in (crash points list those).
 * Deterministic: every array is walked in its sorted order.
 */
#ifndef EXT4SIM_SNAPSHOT_H
#define EXT4SIM_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ext4.h"

/* The version of the `run --json` document; changes whenever its shape does. */
#define SNAP_JSON_VERSION 5

/* Runs of equal bytes listed per state; past it, "truncated": true. */
#define SNAP_BYTE_RUNS_MAX 256

/* Write the state of @fs (its device and counters included) as a JSON object. */
void snap_json(FILE *out, const struct ext4_fs *fs);
/* The same, in an allocated string (the caller frees it). */
char *snap_json_string(const struct ext4_fs *fs);
/*
 * The i_size a mount of @fs's durable blocks finds (recovery included);
 * false when that mount fails.
 */
bool snap_durable_size(const struct ext4_fs *fs, int64_t *size);

#endif
