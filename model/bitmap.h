/*
 * bitmap.h - a set of 32-bit block numbers (CRoaring behind a thin wrapper).
 *
 * The allocator's free-space map and the page cache's dirty ranges use this.
 * Ranges are half-open [start, end).  The wrapper clamps and asserts the
 * bounds CRoaring 0.2.66 silently truncates, and hides its iterator API so a
 * library upgrade touches one file.  Iteration is always ascending.
 */
#ifndef EXT4SIM_BITMAP_H
#define EXT4SIM_BITMAP_H

#include <stdbool.h>
#include <stdint.h>

struct sim_bitmap;

struct sim_bitmap *bitmap_create(void);
struct sim_bitmap *bitmap_copy(const struct sim_bitmap *b);
void bitmap_free(struct sim_bitmap *b);
void bitmap_add_range(struct sim_bitmap *b, uint64_t start, uint64_t end);
void bitmap_remove_range(struct sim_bitmap *b, uint64_t start, uint64_t end);
bool bitmap_contains(const struct sim_bitmap *b, uint32_t x);
bool bitmap_contains_range(const struct sim_bitmap *b, uint64_t start, uint64_t end);
uint64_t bitmap_cardinality(const struct sim_bitmap *b);
uint64_t bitmap_range_cardinality(const struct sim_bitmap *b, uint64_t start, uint64_t end);
bool bitmap_equals(const struct sim_bitmap *a, const struct sim_bitmap *b);

/*
 * First member >= @from; false if none.  Used for goal-based allocation.
 */
bool bitmap_next_set(const struct sim_bitmap *b, uint32_t from, uint32_t *out);

/* Length of the run of members starting at @start, at most @max. */
uint32_t bitmap_run_length(const struct sim_bitmap *b, uint32_t start, uint32_t max);

#endif
