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
/* The lines trace_print_changes() prints even when unchanged (run --quiz). */
#define TRACE_SIZES (1u << 0)
#define TRACE_EXTENTS (1u << 1)
#define TRACE_CACHE (1u << 2)
#define TRACE_JOURNAL (1u << 3)

/*
 * Print the lines of @now that differ from @before, and those of @always
 * (TRACE_*) whether they differ or not: run --quiz asks for the lines whose
 * values it blanks, so that a line's absence does not tell that the value
 * stayed the same.
 */
void trace_print_changes(FILE *out, const struct trace_state *before,
			 const struct trace_state *now, unsigned always);
/* xfs_io pread -v style: offset, 16 bytes in hex, then text. */
void trace_hexdump(FILE *out, int64_t off, const uint8_t *buf, int64_t len);
/*
 * run --image: "  image PATH: i_size N, extents ...; extent blocks B, ..."
 * for the file as a mount of the image written reads it (what
 * `debugfs -R "stat f"` shows of the same image).
 */
void trace_image_line(FILE *out, const char *path, const struct ext4_fs *fs);

#endif
