/*
 * bitmap.c - the CRoaring wrapper.  roaring.h redefines feature macros, so
 * it is included first and in this file only.
 */
#include <roaring/roaring.h>

#include "bitmap.h"
#include "sim.h"

#define BITMAP_LIMIT (UINT64_C(1) << 32)

struct sim_bitmap {
	roaring_bitmap_t *r;
};

struct sim_bitmap *bitmap_create(void)
{
	struct sim_bitmap *b = sim_zalloc(sizeof(*b));

	b->r = roaring_bitmap_create();
	SIM_ASSERT(b->r != NULL);
	return b;
}

struct sim_bitmap *bitmap_copy(const struct sim_bitmap *src)
{
	struct sim_bitmap *b = sim_zalloc(sizeof(*b));

	b->r = roaring_bitmap_copy(src->r);
	SIM_ASSERT(b->r != NULL);
	return b;
}

void bitmap_free(struct sim_bitmap *b)
{
	if (!b)
		return;
	roaring_bitmap_free(b->r);
	free(b);
}

/* CRoaring truncates max-1 to 32 bits and ignores min > max: assert both. */
static void check_range(uint64_t start, uint64_t end)
{
	SIM_ASSERT(start <= end);
	SIM_ASSERT(end <= BITMAP_LIMIT);
}

void bitmap_add_range(struct sim_bitmap *b, uint64_t start, uint64_t end)
{
	check_range(start, end);
	if (start < end)
		roaring_bitmap_add_range(b->r, start, end);
	SIM_ASSERT(start == end || roaring_bitmap_contains((b)->r, (uint32_t)start));
}

void bitmap_remove_range(struct sim_bitmap *b, uint64_t start, uint64_t end)
{
	check_range(start, end);
	if (start < end)
		roaring_bitmap_remove_range(b->r, start, end);
	SIM_ASSERT(start == end || !roaring_bitmap_contains(b->r, (uint32_t)start));
}

bool bitmap_contains(const struct sim_bitmap *b, uint32_t x)
{
	return roaring_bitmap_contains(b->r, x);
}

bool bitmap_contains_range(const struct sim_bitmap *b, uint64_t start, uint64_t end)
{
	check_range(start, end);
	if (start == end)
		return true;
	/* 0.2.66's contains_range answers true across a missing container */
	return roaring_bitmap_range_cardinality(b->r, start, end) == end - start;
}

uint64_t bitmap_cardinality(const struct sim_bitmap *b)
{
	return roaring_bitmap_get_cardinality(b->r);
}

uint64_t bitmap_range_cardinality(const struct sim_bitmap *b, uint64_t start, uint64_t end)
{
	check_range(start, end);
	if (start == end)
		return 0;
	return roaring_bitmap_range_cardinality(b->r, start, end);
}

bool bitmap_equals(const struct sim_bitmap *a, const struct sim_bitmap *b)
{
	return roaring_bitmap_equals(a->r, b->r);
}

bool bitmap_next_set(const struct sim_bitmap *b, uint32_t from, uint32_t *out)
{
	roaring_uint32_iterator_t it;

	roaring_init_iterator(b->r, &it);
	if (!roaring_move_uint32_iterator_equalorlarger(&it, from))
		return false;
	SIM_ASSERT(it.current_value >= from);
	*out = it.current_value;
	return true;
}

/*
 * Gallop then bisect on whole ranges: [start, good) are members, [good, bad)
 * holds a non-member.  Each probe is a range count, so a run costs a few
 * dozen probes, not a visit of each member (the state key walks every run
 * of the free map at each node of an exploration).
 */
uint32_t bitmap_run_length(const struct sim_bitmap *b, uint32_t start, uint32_t max)
{
	uint64_t lim = SIM_MIN((uint64_t)start + max, BITMAP_LIMIT), good = (uint64_t)start + 1;
	uint64_t bad = lim + 1;         /* none known yet */

	if (max == 0 || !bitmap_contains(b, start))
		return 0;
	for (uint64_t step = 1; good < lim; step *= 2) {
		uint64_t e = SIM_MIN(good + step, lim);

		if (!bitmap_contains_range(b, good, e)) {
			bad = e;
			break;
		}
		good = e;
	}
	if (good == lim)
		return (uint32_t)(lim - start);
	while (bad - good > 1) {
		uint64_t mid = good + (bad - good) / 2;

		if (bitmap_contains_range(b, good, mid))
			good = mid;
		else
			bad = mid;
	}
	SIM_ASSERT(!bitmap_contains(b, (uint32_t)good) && good - start <= max);
	return (uint32_t)(good - start);
}
