/*
 * runs.h - a file's content as sorted runs of one repeated byte; bytes no
 * run covers are zero.  Every write a scenario can issue fills a range with
 * one byte, so this naive reference stays as small as the scenario and
 * handles sparse files at any offset.  The checker's POSIX reference
 * ("what a read must return") and its durable snapshots are runs.
 */
#ifndef EXT4SIM_RUNS_H
#define EXT4SIM_RUNS_H

#include <stdint.h>

struct run {
	int64_t r_off;
	int64_t r_len;
	uint8_t r_byte;
};

struct runs {
	struct run *r;
	uint32_t nr;
	uint32_t cap;
	int64_t size;           /* file size */
};

void runs_init(struct runs *rs);
void runs_destroy(struct runs *rs);
void runs_copy(struct runs *dst, const struct runs *src);
/* Write @len bytes of @byte at @off (zero bytes leave no run); grows size. */
void runs_fill(struct runs *rs, int64_t off, int64_t len, uint8_t byte);
/* ftruncate: drop everything past @size, set the size. */
void runs_truncate(struct runs *rs, int64_t size);
/* Drop [off, off+len) and move what follows down by @len (collapse range). */
void runs_collapse(struct runs *rs, int64_t off, int64_t len);
/* Move [off, size) up by @len, leaving zeros in [off, off+len) (insert range). */
void runs_insert(struct runs *rs, int64_t off, int64_t len);
/* The byte at @off (0 past the runs). */
uint8_t runs_byte_at(const struct runs *rs, int64_t off);
/* Copy [off, off+len) into @out. */
void runs_read(const struct runs *rs, int64_t off, int64_t len, uint8_t *out);

#endif
