/*
 * content.h - a file's content as a reader sees it, kept sparse (the pages
 * that are not all zero), with its SHA-256: what `diff`, `matrix` and
 * `bisect` compare, and the byte ranges where two contents differ, in words.
 */
#ifndef EXT4SIM_CONTENT_H
#define EXT4SIM_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ext4.h"

#define CONTENT_PAGES_MAX 4096          /* pages kept for byte comparisons (16 MiB) */

struct content_page {
	int64_t index;                  /* page number: bytes [index * 4096, + 4096) */
	uint8_t *bytes;                 /* PAGE_SIZE bytes, zero past the size */
};

struct sim_content {
	int64_t size;
	char sha256[65];                /* of the size and every page that is not all zero */
	struct content_page *pages;     /* those pages, in order, at most CONTENT_PAGES_MAX */
	uint32_t nr;
	bool truncated;                 /* more pages than were kept */
};

/* The content of @fs's file; with @keep, its non-zero pages too (else only the digest). */
void sim_content_capture(const struct ext4_fs *fs, bool keep, struct sim_content *c);
void sim_content_free(struct sim_content *c);

/*
 * The byte ranges where @a and @b differ, one line each into @out (at most
 * @max_lines, then "... N more range(s)"): "[32, 64): 0x00 | 0x22", the
 * values as runs ("0x11 x16, 0x22 x16") when a range holds several; when
 * the sizes differ, first "size A | B", and the bytes past the shorter
 * side's EOF as one range, that side's "past EOF" ("[32, 64): past EOF |
 * 0x22"), never as zeros.
 * Returns the number of differing ranges (0: the same bytes and size).
 */
unsigned sim_content_diff(const struct sim_content *a, const struct sim_content *b,
			  unsigned max_lines, char *out, size_t cap);

#endif
