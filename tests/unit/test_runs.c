/*
 * test_runs.c - checker/runs.c (a file as runs of one repeated byte)
 * against a plain byte array and a size.
 *
 * Seeded random runs_fill (byte 0 included, overlapping fills, fills past
 * the size, empty fills), runs_truncate (shrinking and growing),
 * runs_collapse and runs_insert (shifts at any offset below the size), runs_copy,
 * checked after every step through runs_byte_at at every offset, runs_read
 * of random ranges (also past the size), the size, and the run list's own
 * shape (sorted, disjoint, non-empty, non-zero bytes, inside the size).  A
 * second pass puts the file at a 2^42 offset, to check large offsets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runs.h"
#include "prng.h"

#define SPAN 4096               /* offsets [base, base + SPAN) */
#define SEEDS 20
#define STEPS 400

struct ref {
	int64_t base;           /* every offset the test uses is >= base */
	uint8_t bytes[SPAN + 64];
	int64_t size;
};

/* Bytes past the size are zero in the reference, as runs.h promises. */
static uint8_t ref_byte(const struct ref *r, int64_t off)
{
	if (off < r->base || off >= r->base + SPAN + 64)
		return 0;
	return r->bytes[off - r->base];
}

static void check_shape(const struct runs *rs, uint64_t seed, int step)
{
	for (uint32_t i = 0; i < rs->nr; i++) {
		const struct run *x = &rs->r[i];

		if (x->r_len <= 0 || x->r_byte == 0 || x->r_off < 0 ||
		    x->r_off + x->r_len > rs->size)
			fail_msg("seed=%llu step=%d: run %u [%lld, +%lld) byte %u, size %lld",
				 (unsigned long long)seed, step, i, (long long)x->r_off,
				 (long long)x->r_len, x->r_byte, (long long)rs->size);
		if (i > 0 && rs->r[i - 1].r_off + rs->r[i - 1].r_len > x->r_off)
			fail_msg("seed=%llu step=%d: runs %u and %u overlap or are unsorted",
				 (unsigned long long)seed, step, i - 1, i);
	}
}

static void check_all(const struct runs *rs, const struct ref *r, uint64_t seed, int step)
{
	if (rs->size != r->size)
		fail_msg("seed=%llu step=%d: size %lld, want %lld", (unsigned long long)seed,
			 step, (long long)rs->size, (long long)r->size);
	check_shape(rs, seed, step);
	if (r->base > 0 && (runs_byte_at(rs, 0) != 0 || runs_byte_at(rs, r->base - 1) != 0))
		fail_msg("seed=%llu step=%d: a byte below the base is not zero",
			 (unsigned long long)seed, step);
	for (int64_t off = r->base; off < r->base + SPAN + 64; off++)
		if (runs_byte_at(rs, off) != ref_byte(r, off))
			fail_msg("seed=%llu step=%d: byte_at(%lld) = %u, want %u",
				 (unsigned long long)seed, step, (long long)off,
				 runs_byte_at(rs, off), ref_byte(r, off));
}

static void check_read(struct prng *p, const struct runs *rs, const struct ref *r,
		       uint64_t seed, int step)
{
	uint8_t got[SPAN + 64];
	int64_t off = r->base + (int64_t)prng_below(p, SPAN + 32);
	int64_t len = (int64_t)prng_below(p, (uint64_t)(r->base + SPAN + 64 - off) + 1);

	memset(got, 0xa5, sizeof(got));
	runs_read(rs, off, len, got);
	for (int64_t i = 0; i < len; i++)
		if (got[i] != ref_byte(r, off + i))
			fail_msg("seed=%llu step=%d: read(%lld, %lld)[%lld] = %u, want %u",
				 (unsigned long long)seed, step, (long long)off, (long long)len,
				 (long long)i, got[i], ref_byte(r, off + i));
	if (len < (int64_t)sizeof(got) && got[len] != 0xa5)
		fail_msg("seed=%llu step=%d: read(%lld, %lld) wrote past its end",
			 (unsigned long long)seed, step, (long long)off, (long long)len);
}

static void do_fill(struct prng *p, struct runs *rs, struct ref *r)
{
	int64_t off = (int64_t)prng_below(p, SPAN);
	int64_t len;
	uint8_t byte;

	switch (prng_below(p, 4)) {
	case 0:
		len = 0;
		break;
	case 1:
		len = (int64_t)prng_below(p, SPAN - off) + 1;
		break;
	default:
		len = (int64_t)prng_below(p, off + 64 < SPAN ? 64 : SPAN - off) + 1;
		break;
	}
	byte = prng_below(p, 4) == 0 ? 0 : (uint8_t)(1 + prng_below(p, 3));
	runs_fill(rs, r->base + off, len, byte);
	memset(r->bytes + off, byte, (size_t)len);
	if (len > 0 && r->base + off + len > r->size)
		r->size = r->base + off + len;
}

static void do_truncate(struct prng *p, struct runs *rs, struct ref *r)
{
	int64_t size = r->base + (int64_t)prng_below(p, SPAN + 1);

	if (prng_below(p, 8) == 0)
		size = 0;
	runs_truncate(rs, size);
	for (int64_t off = size > r->base ? size : r->base; off < r->size; off++)
		r->bytes[off - r->base] = 0;
	r->size = size;
}

/* Collapse or insert range at a random offset below the size. */
static void do_shift(struct prng *p, struct runs *rs, struct ref *r)
{
	int64_t size = r->size - r->base, off, len;

	if (size <= 0)
		return;
	off = (int64_t)prng_below(p, (uint64_t)size);
	if (prng_below(p, 2)) {
		len = (int64_t)prng_below(p, (uint64_t)(size - off) + 1);
		runs_collapse(rs, r->base + off, len);
		memmove(r->bytes + off, r->bytes + off + len, (size_t)(size - off - len));
		memset(r->bytes + size - len, 0, (size_t)len);
		r->size -= len;
		return;
	}
	len = (int64_t)prng_below(p, (uint64_t)(SPAN + 64 - size) + 1);
	runs_insert(rs, r->base + off, len);
	memmove(r->bytes + off + len, r->bytes + off, (size_t)(size - off));
	memset(r->bytes + off, 0, (size_t)len);
	r->size += len;
}

/* A copy reads the same, and changes to the source do not reach it. */
static void check_copy(struct prng *p, const struct runs *rs, const struct ref *r,
		       uint64_t seed, int step)
{
	struct runs c;
	struct ref *saved = malloc(sizeof(*saved));

	assert_non_null(saved);
	runs_copy(&c, rs);
	check_all(&c, r, seed, step);
	memcpy(saved, r, sizeof(*saved));
	do_fill(p, &c, saved);
	do_truncate(p, &c, saved);
	check_all(&c, saved, seed, step);
	check_all(rs, r, seed, step);
	runs_destroy(&c);
	free(saved);
}

static void run_seed(uint64_t seed, int64_t base)
{
	struct ref *r = calloc(1, sizeof(*r));
	struct runs rs;
	struct prng p;

	assert_non_null(r);
	r->base = base;
	prng_seed(&p, seed);
	runs_init(&rs);
	for (int step = 0; step < STEPS; step++) {
		uint64_t op = prng_below(&p, 20);

		if (op < 13)
			do_fill(&p, &rs, r);
		else if (op < 16)
			do_truncate(&p, &rs, r);
		else if (op < 18)
			do_shift(&p, &rs, r);
		else
			check_copy(&p, &rs, r, seed, step);
		check_all(&rs, r, seed, step);
		check_read(&p, &rs, r, seed, step);
	}
	runs_destroy(&rs);
	free(r);
}

static void test_runs__random_vs_byte_array(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		run_seed(seed, 0);
}

static void test_runs__random_at_large_offset(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS / 4; seed++)
		run_seed(seed, INT64_C(1) << 42);
}

static void test_runs__empty(void **state)
{
	struct runs rs, c;
	uint8_t buf[8];

	(void)state;
	runs_init(&rs);
	assert_int_equal(rs.size, 0);
	assert_int_equal(runs_byte_at(&rs, 0), 0);
	assert_int_equal(runs_byte_at(&rs, INT64_C(1) << 50), 0);
	memset(buf, 0xff, sizeof(buf));
	runs_read(&rs, 100, 8, buf);
	for (int i = 0; i < 8; i++)
		assert_int_equal(buf[i], 0);
	runs_read(&rs, 0, 0, buf);
	runs_copy(&c, &rs);
	assert_int_equal(c.nr, 0);
	assert_int_equal(c.size, 0);
	runs_destroy(&c);
	runs_destroy(&rs);
}

/* Zero bytes leave no run but still grow the size; empty fills do neither. */
static void test_runs__zero_fill_grows_size(void **state)
{
	struct runs rs;

	(void)state;
	runs_init(&rs);
	runs_fill(&rs, 100, 0, 7);
	assert_int_equal(rs.size, 0);
	runs_fill(&rs, 100, 50, 0);
	assert_int_equal(rs.size, 150);
	assert_int_equal(rs.nr, 0);
	runs_fill(&rs, 0, 10, 9);
	assert_int_equal(rs.size, 150);
	runs_fill(&rs, 2, 3, 0);                /* punches a hole in the run */
	assert_int_equal(rs.nr, 2);
	assert_int_equal(runs_byte_at(&rs, 1), 9);
	assert_int_equal(runs_byte_at(&rs, 2), 0);
	assert_int_equal(runs_byte_at(&rs, 4), 0);
	assert_int_equal(runs_byte_at(&rs, 5), 9);
	runs_destroy(&rs);
}

/* A fill inside a run splits it in three. */
static void test_runs__fill_inside_run_splits(void **state)
{
	struct runs rs;
	uint8_t buf[12];
	static const uint8_t want[12] = { 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 0, 0 };

	(void)state;
	runs_init(&rs);
	runs_fill(&rs, 0, 10, 1);
	runs_fill(&rs, 4, 2, 2);
	assert_int_equal(rs.nr, 3);
	runs_read(&rs, 0, 12, buf);
	assert_memory_equal(buf, want, 12);
	runs_destroy(&rs);
}

/* Truncating down drops bytes for good; growing back reads zeros. */
static void test_runs__truncate_shrink_then_grow(void **state)
{
	struct runs rs;

	(void)state;
	runs_init(&rs);
	runs_fill(&rs, 0, 100, 5);
	runs_truncate(&rs, 40);
	assert_int_equal(rs.size, 40);
	assert_int_equal(runs_byte_at(&rs, 39), 5);
	assert_int_equal(runs_byte_at(&rs, 40), 0);
	runs_truncate(&rs, 200);
	assert_int_equal(rs.size, 200);
	assert_int_equal(runs_byte_at(&rs, 39), 5);
	assert_int_equal(runs_byte_at(&rs, 40), 0);
	assert_int_equal(runs_byte_at(&rs, 99), 0);
	runs_truncate(&rs, 0);
	assert_int_equal(rs.nr, 0);
	assert_int_equal(runs_byte_at(&rs, 0), 0);
	runs_destroy(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs__random_vs_byte_array),
		cmocka_unit_test(test_runs__random_at_large_offset),
		cmocka_unit_test(test_runs__empty),
		cmocka_unit_test(test_runs__zero_fill_grows_size),
		cmocka_unit_test(test_runs__fill_inside_run_splits),
		cmocka_unit_test(test_runs__truncate_shrink_then_grow),
	};

	return cmocka_run_group_tests_name("runs", tests, NULL, NULL);
}
