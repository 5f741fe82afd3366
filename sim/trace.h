/*
 * trace.h - the readable step trace: after each step, what changed in the
 * sizes, the block map, the page cache and the journal.
 */
#ifndef EXT4SIM_TRACE_H
#define EXT4SIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "ext4.h"

#define TRACE_LINE_MAX 512

struct trace_state {
	char sizes[TRACE_LINE_MAX];
	char extents[TRACE_LINE_MAX];
	char cache[TRACE_LINE_MAX];
	char journal[TRACE_LINE_MAX];
};

void trace_capture(const struct ext4_fs *fs, struct trace_state *ts);
/* Print the lines of @now that differ from @before. */
void trace_print_changes(FILE *out, const struct trace_state *before,
			 const struct trace_state *now);
/* xfs_io pread -v style: offset, 16 bytes in hex, then text. */
void trace_hexdump(FILE *out, int64_t off, const uint8_t *buf, int64_t len);

#endif
