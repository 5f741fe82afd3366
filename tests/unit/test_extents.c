/*
 * test_extents.c - model/ext4/extents.c (the block map) against a naive
 * reference: one {state, physical block} entry per logical block, over
 * [0, 4096) and [2^32 - 256, 2^32); blocks between the two are holes.
 *
 * Seeded random es_insert (written / unwritten / delayed, physical blocks
 * often contiguous with the neighbours so extents merge) and es_remove
 * (counting delayed blocks, comparing the freed physical ranges block by
 * block).  After every step: the documented invariants (checked here with
 * the seed in the message, then by es_check()), es_lookup of every block
 * (state, physical block, and len: the rest of the extent, which below the
 * length limits is the rest of the maximal run of same-state, physically
 * contiguous blocks; for a hole, the distance to the next extent), es_count
 * and es_nr_disk_extents.  A second random test uses extents longer than
 * the 32768 / 32767 limits and checks the extent list itself: each extent
 * matches the reference and respects its limit; a third (a regression
 * test, see its note) adds that no extent can merge with its neighbour.
 * Targeted tests cover the limits, 2^32 and es_copy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "extents.h"
#include "prng.h"

#define LIMIT (UINT64_C(1) << 32)
#define LOW_LEN 4096u
#define HIGH_LEN 256u
#define HIGH_BASE (LIMIT - HIGH_LEN)
#define NR_REF (LOW_LEN + HIGH_LEN)
#define SEEDS 20
#define STEPS 300
#define FREED_MAX (NR_REF + 1)

#define LONG_LEN 200000u        /* the long-extent test's logical range */
#define LONG_SEEDS 10
#define LONG_STEPS 150

struct ref_blk {
	uint8_t state;          /* enum es_state */
	uint32_t pblk;          /* 0 for holes and delayed blocks */
};

/* Reference index of @lblk, or -1 for the gap (always a hole). */
static int64_t ref_index(uint64_t lblk)
{
	if (lblk < LOW_LEN)
		return (int64_t)lblk;
	if (lblk >= HIGH_BASE && lblk < LIMIT)
		return (int64_t)(LOW_LEN + (lblk - HIGH_BASE));
	return -1;
}

static uint64_t ref_lblk(uint32_t i)
{
	return i < LOW_LEN ? i : HIGH_BASE + (i - LOW_LEN);
}

/* Blocks @a and @a + 1 lie in one extent (below the length limits). */
static bool ref_joined(const struct ref_blk *a, const struct ref_blk *b)
{
	if (a->state == ES_HOLE || a->state != b->state)
		return false;
	return a->state == ES_DELAYED || (uint64_t)a->pblk + 1 == b->pblk;
}

/*
 * What es_lookup must answer for every reference block, in one backward
 * pass: run_end[i] is one past the last logical block of i's extent (or,
 * for a hole, the first logical block of the next extent).
 */
static void ref_run_ends(const struct ref_blk *r, uint64_t *run_end)
{
	uint64_t next_extent = LIMIT;

	for (uint32_t k = NR_REF; k-- > 0;) {
		uint64_t lblk = ref_lblk(k);
		bool contiguous = k + 1 < NR_REF && ref_lblk(k + 1) == lblk + 1;

		if (r[k].state == ES_HOLE)
			run_end[k] = next_extent;
		else if (contiguous && ref_joined(&r[k], &r[k + 1]))
			run_end[k] = run_end[k + 1];
		else
			run_end[k] = lblk + 1;
		if (r[k].state != ES_HOLE)
			next_extent = lblk;
	}
}

/* Number of maximal runs (extents) in state @state, or on disk if ES_HOLE. */
static uint32_t ref_nr_runs(const struct ref_blk *r, uint8_t state)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < NR_REF; k++) {
		bool wanted = state == ES_HOLE ? (r[k].state == ES_WRITTEN ||
						  r[k].state == ES_UNWRITTEN)
					       : r[k].state == state;
		bool starts = k == 0 || ref_lblk(k - 1) + 1 != ref_lblk(k) ||
			      !ref_joined(&r[k - 1], &r[k]);

		n += wanted && starts;
	}
	return n;
}

static uint64_t ref_count(const struct ref_blk *r, uint32_t nr, uint8_t state)
{
	uint64_t n = 0;

	for (uint32_t k = 0; k < nr; k++)
		n += r[k].state == state;
	return n;
}

static uint32_t max_len(uint8_t state)
{
	if (state == ES_WRITTEN)
		return EXT_INIT_MAX_LEN;
	if (state == ES_UNWRITTEN)
		return EXT_UNWRITTEN_MAX_LEN;
	return EXT_MAX_LBLK;
}

/*
 * The invariants extents.h documents, reported with the seed (es_check()
 * asserts the same ones, but an assertion aborts without naming the seed).
 * With !@merged, skip "neighbours that could merge are merged" and so
 * es_check() too (see test_extents__trimmed_extent_remerges).
 */
static void check_invariants(const struct ext4_es_tree *t, bool merged, uint64_t seed,
			     int step)
{
	for (uint32_t i = 0; i < t->es_nr; i++) {
		const struct extent_status *e = &t->es[i];
		const struct extent_status *prev = i ? &t->es[i - 1] : NULL;
		uint64_t prev_end = prev ? (uint64_t)prev->es_lblk + prev->es_len : 0;

		if (e->es_len == 0 || e->es_state == ES_HOLE || e->es_state > ES_DELAYED ||
		    e->es_len > max_len(e->es_state) ||
		    (uint64_t)e->es_lblk + e->es_len > LIMIT ||
		    (e->es_state != ES_DELAYED && e->es_pblk == 0))
			fail_msg("seed=%llu step=%d: bad extent %u: lblk %u len %u pblk %u %s",
				 (unsigned long long)seed, step, i, e->es_lblk, e->es_len,
				 e->es_pblk, es_state_name((enum es_state)e->es_state));
		if (!prev)
			continue;
		if (prev_end > e->es_lblk)
			fail_msg("seed=%llu step=%d: extents %u and %u overlap or are unsorted",
				 (unsigned long long)seed, step, i - 1, i);
		if (merged && prev_end == e->es_lblk && prev->es_state == e->es_state &&
		    (uint64_t)prev->es_len + e->es_len <= max_len(e->es_state) &&
		    (e->es_state == ES_DELAYED ||
		     (uint64_t)prev->es_pblk + prev->es_len == e->es_pblk))
			fail_msg("seed=%llu step=%d: extents %u and %u should have merged",
				 (unsigned long long)seed, step, i - 1, i);
	}
	if (merged)
		es_check(t);
}

static void check_lookup(const struct ext4_es_tree *t, uint64_t lblk, uint8_t want_state,
			 uint32_t want_pblk, uint64_t want_end, uint64_t seed, int step)
{
	uint32_t pblk = 0xdeadbeef, len = 0xdeadbeef;
	enum es_state s = es_lookup(t, (uint32_t)lblk, &pblk, &len);
	uint64_t want_len = want_end - lblk;

	if (want_state == ES_HOLE && want_len > EXT_MAX_LBLK)
		want_len = EXT_MAX_LBLK;        /* len is 32 bits */
	if (s != want_state || pblk != want_pblk || len != want_len)
		fail_msg("seed=%llu step=%d: lookup(%llu) = %s pblk %u len %u, "
			 "want %s pblk %u len %llu",
			 (unsigned long long)seed, step, (unsigned long long)lblk,
			 es_state_name(s), pblk, len,
			 es_state_name((enum es_state)want_state), want_pblk,
			 (unsigned long long)want_len);
}

static void check_all(const struct ext4_es_tree *t, const struct ref_blk *r,
		      uint64_t *run_end, uint64_t seed, int step)
{
	static const uint64_t gap[] = { LOW_LEN, LOW_LEN + 1, UINT64_C(1) << 31,
					HIGH_BASE - 1 };

	check_invariants(t, true, seed, step);
	ref_run_ends(r, run_end);
	for (uint32_t k = 0; k < NR_REF; k++)
		check_lookup(t, ref_lblk(k), r[k].state, r[k].pblk, run_end[k], seed, step);
	/* a gap block's hole runs to the first extent of the high window */
	for (size_t i = 0; i < sizeof(gap) / sizeof(gap[0]); i++)
		check_lookup(t, gap[i], ES_HOLE, 0, r[LOW_LEN].state == ES_HOLE ?
			     run_end[LOW_LEN] : HIGH_BASE, seed, step);
	for (uint8_t s = ES_WRITTEN; s <= ES_DELAYED; s++)
		if (es_count(t, (enum es_state)s) != ref_count(r, NR_REF, s))
			fail_msg("seed=%llu step=%d: es_count(%s) = %llu, want %llu",
				 (unsigned long long)seed, step, es_state_name((enum es_state)s),
				 (unsigned long long)es_count(t, (enum es_state)s),
				 (unsigned long long)ref_count(r, NR_REF, s));
	if (es_nr_disk_extents(t) != ref_nr_runs(r, ES_HOLE))
		fail_msg("seed=%llu step=%d: es_nr_disk_extents = %u, want %u",
			 (unsigned long long)seed, step, es_nr_disk_extents(t),
			 ref_nr_runs(r, ES_HOLE));
	if (t->es_nr != ref_nr_runs(r, ES_WRITTEN) + ref_nr_runs(r, ES_UNWRITTEN) +
			ref_nr_runs(r, ES_DELAYED))
		fail_msg("seed=%llu step=%d: %u extents, want the %u maximal runs",
			 (unsigned long long)seed, step, t->es_nr,
			 ref_nr_runs(r, ES_WRITTEN) + ref_nr_runs(r, ES_UNWRITTEN) +
			 ref_nr_runs(r, ES_DELAYED));
}

/* A range [*lblk, *lblk + *len) inside the low or the high window. */
static void pick_range(struct prng *p, uint64_t *lblk, uint64_t *len)
{
	bool high = prng_below(p, 7) == 0;
	uint64_t base = high ? HIGH_BASE : 0, size = high ? HIGH_LEN : LOW_LEN;
	uint64_t off = prng_below(p, size), room;

	if (prng_below(p, 8) == 0)
		off = prng_below(p, 2) ? 0 : size - 1 - prng_below(p, 3);
	room = size - off;
	switch (prng_below(p, 6)) {
	case 0:
		*len = room;                            /* to the window's end */
		break;
	case 1:
		*len = 1 + prng_below(p, room);
		break;
	default:
		*len = 1 + prng_below(p, room < 40 ? room : 40);
		break;
	}
	*lblk = base + off;
}

/*
 * A physical start for [lblk, ...): mostly a fixed offset from the logical
 * block, so neighbouring inserts are contiguous and merge; sometimes the
 * block after the left neighbour's; sometimes anywhere.
 */
static uint32_t pick_pblk(struct prng *p, const struct ref_blk *r, uint64_t lblk)
{
	int64_t left = ref_index(lblk - 1);

	switch (prng_below(p, 5)) {
	case 0:
		return 1 + (uint32_t)prng_below(p, UINT32_C(1) << 24);
	case 1:
		if (lblk > 0 && left >= 0 && r[left].pblk)
			return r[left].pblk + 1;
		/* fall through */
	default:
		return 100000 + (uint32_t)(lblk & 0xfffff);
	}
}

static void do_insert(struct prng *p, struct ext4_es_tree *t, struct ref_blk *r)
{
	uint64_t lblk, len;
	uint8_t state = (uint8_t)(ES_WRITTEN + prng_below(p, 3));
	uint32_t pblk;

	pick_range(p, &lblk, &len);
	pblk = state == ES_DELAYED ? 0 : pick_pblk(p, r, lblk);
	es_insert(t, (uint32_t)lblk, (uint32_t)len, pblk, (enum es_state)state);
	for (uint64_t i = 0; i < len; i++) {
		int64_t k = ref_index(lblk + i);

		r[k].state = state;
		r[k].pblk = state == ES_DELAYED ? 0 : pblk + (uint32_t)i;
	}
}

static void do_remove(struct prng *p, struct ext4_es_tree *t, struct ref_blk *r,
		      struct es_freed *freed, uint64_t seed, int step)
{
	uint64_t lblk, len, end, got_nr_blocks = 0, want_nr_blocks = 0;
	uint32_t delayed = 0, nr_freed = 0xdeadbeef, want_ranges = 0, f = 0, f_off = 0;
	uint32_t got_delayed;

	pick_range(p, &lblk, &len);
	if (prng_below(p, 6) == 0)
		len = LIMIT - lblk;             /* everything from lblk on */
	end = lblk + len;
	got_delayed = es_remove(t, (uint32_t)lblk, len, freed, FREED_MAX, &nr_freed);
	if (nr_freed > FREED_MAX)
		fail_msg("seed=%llu step=%d: nr_freed %u", (unsigned long long)seed, step,
			 nr_freed);
	for (uint32_t i = 0; i < nr_freed; i++)
		got_nr_blocks += freed[i].len;
	/*
	 * Walk the removed reference blocks in order against the freed list
	 * (and clear them afterwards: a range start looks at its left block).
	 */
	for (uint32_t k = 0; k < NR_REF; k++) {
		uint64_t b = ref_lblk(k);

		if (b < lblk || b >= end || r[k].state == ES_HOLE)
			continue;
		if (r[k].state == ES_DELAYED) {
			delayed++;
		} else {
			bool starts = b == lblk || k == 0 || ref_lblk(k - 1) + 1 != b ||
				      !ref_joined(&r[k - 1], &r[k]);

			want_ranges += starts;
			want_nr_blocks++;
			if (f < nr_freed && f_off == freed[f].len) {
				f++;
				f_off = 0;
			}
			if (f >= nr_freed || freed[f].pblk + f_off != r[k].pblk)
				fail_msg("seed=%llu step=%d: remove(%llu, %llu): logical %llu "
					 "(pblk %u) missing from the freed list",
					 (unsigned long long)seed, step, (unsigned long long)lblk,
					 (unsigned long long)len, (unsigned long long)b, r[k].pblk);
			f_off++;
		}
	}
	for (uint32_t k = 0; k < NR_REF; k++) {
		if (ref_lblk(k) >= lblk && ref_lblk(k) < end) {
			r[k].state = ES_HOLE;
			r[k].pblk = 0;
		}
	}
	if (got_delayed != delayed || got_nr_blocks != want_nr_blocks ||
	    nr_freed != want_ranges)
		fail_msg("seed=%llu step=%d: remove(%llu, %llu) = %u delayed, %u ranges of "
			 "%llu blocks; want %u, %u, %llu",
			 (unsigned long long)seed, step, (unsigned long long)lblk,
			 (unsigned long long)len, got_delayed, nr_freed,
			 (unsigned long long)got_nr_blocks, delayed, want_ranges,
			 (unsigned long long)want_nr_blocks);
}

static void run_seed(uint64_t seed, struct ref_blk *r, uint64_t *run_end,
		     struct es_freed *freed)
{
	struct ext4_es_tree t;
	struct prng p;

	prng_seed(&p, seed);
	es_init(&t);
	memset(r, 0, NR_REF * sizeof(*r));
	for (int step = 0; step < STEPS; step++) {
		if (prng_below(&p, 3) != 0)
			do_insert(&p, &t, r);
		else
			do_remove(&p, &t, r, freed, seed, step);
		check_all(&t, r, run_end, seed, step);
	}
	es_destroy(&t);
}

static void test_extents__random_vs_block_array(void **state)
{
	struct ref_blk *r = calloc(NR_REF, sizeof(*r));
	uint64_t *run_end = calloc(NR_REF, sizeof(*run_end));
	struct es_freed *freed = calloc(FREED_MAX, sizeof(*freed));

	(void)state;
	assert_non_null(r);
	assert_non_null(run_end);
	assert_non_null(freed);
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		run_seed(seed, r, run_end, freed);
	free(r);
	free(run_end);
	free(freed);
}

/* --- extents longer than the length limits: [0, LONG_LEN) --- */

/*
 * Walk the map with es_lookup from 0 (each answer's len jumps to the next
 * extent or hole) and check every extent against the reference: one state,
 * contiguous physical blocks, within its limit, not mergeable with the
 * extent before it.
 */
static void check_long(const struct ext4_es_tree *t, const struct ref_blk *r, bool merged,
		       uint64_t seed, int step)
{
	uint64_t lblk = 0;
	uint8_t prev_state = ES_HOLE;
	uint32_t prev_pblk = 0, prev_len = 0;

	check_invariants(t, merged, seed, step);
	while (lblk < LONG_LEN) {
		uint32_t pblk, len;
		enum es_state s = es_lookup(t, (uint32_t)lblk, &pblk, &len);
		uint64_t end = lblk + len;

		if (len == 0 || (s != ES_HOLE && len > max_len(s)))
			fail_msg("seed=%llu step=%d: lookup(%llu) len %u", (unsigned long long)seed,
				 step, (unsigned long long)lblk, len);
		for (uint64_t b = lblk; b < end && b < LONG_LEN; b++) {
			uint32_t want_pblk = s == ES_WRITTEN || s == ES_UNWRITTEN ?
					     pblk + (uint32_t)(b - lblk) : 0;

			if (r[b].state != s || r[b].pblk != want_pblk)
				fail_msg("seed=%llu step=%d: block %llu in the %s extent at %llu "
					 "is %s pblk %u in the reference",
					 (unsigned long long)seed, step, (unsigned long long)b,
					 es_state_name(s), (unsigned long long)lblk,
					 es_state_name((enum es_state)r[b].state), r[b].pblk);
		}
		if (s == ES_HOLE && prev_state == ES_HOLE && lblk > 0)
			fail_msg("seed=%llu step=%d: the hole before %llu stopped short",
				 (unsigned long long)seed, step, (unsigned long long)lblk);
		if (merged && s != ES_HOLE && s == prev_state &&
		    prev_len + (uint64_t)len <= max_len(s) &&
		    (s == ES_DELAYED || prev_pblk + prev_len == pblk))
			fail_msg("seed=%llu step=%d: the extent at %llu should have merged "
				 "with the one before", (unsigned long long)seed, step,
				 (unsigned long long)lblk);
		prev_state = (uint8_t)s;
		prev_pblk = pblk;
		prev_len = len;
		lblk = end;
	}
	for (uint8_t s = ES_WRITTEN; s <= ES_DELAYED; s++)
		if (es_count(t, (enum es_state)s) != ref_count(r, LONG_LEN, s))
			fail_msg("seed=%llu step=%d: es_count(%s) = %llu, want %llu",
				 (unsigned long long)seed, step, es_state_name((enum es_state)s),
				 (unsigned long long)es_count(t, (enum es_state)s),
				 (unsigned long long)ref_count(r, LONG_LEN, s));
}

static void long_step(struct prng *p, struct ext4_es_tree *t, struct ref_blk *r,
		      struct es_freed *freed, uint64_t seed, int step)
{
	uint64_t lblk = prng_below(p, LONG_LEN);
	uint64_t len = 1 + prng_below(p, prng_below(p, 2) ? 70000 : 100);

	if (lblk + len > LONG_LEN)
		len = LONG_LEN - lblk;
	if (prng_below(p, 4) != 0) {
		uint8_t state = (uint8_t)(ES_WRITTEN + prng_below(p, 3));
		uint32_t pblk = 0;

		if (state != ES_DELAYED)
			pblk = prng_below(p, 4) ? 1000 + (uint32_t)lblk
						: 1 + (uint32_t)prng_below(p, 1u << 24);
		es_insert(t, (uint32_t)lblk, (uint32_t)len, pblk, (enum es_state)state);
		for (uint64_t i = 0; i < len; i++) {
			r[lblk + i].state = state;
			r[lblk + i].pblk = pblk ? pblk + (uint32_t)i : 0;
		}
	} else {
		uint32_t nr_freed = 0, f = 0, f_off = 0, delayed = 0, got;

		got = es_remove(t, (uint32_t)lblk, len, freed, FREED_MAX, &nr_freed);
		for (uint64_t b = lblk; b < lblk + len; b++) {
			if (r[b].state == ES_DELAYED)
				delayed++;
			if (r[b].state == ES_WRITTEN || r[b].state == ES_UNWRITTEN) {
				if (f < nr_freed && f_off == freed[f].len) {
					f++;
					f_off = 0;
				}
				if (f >= nr_freed || freed[f].pblk + f_off != r[b].pblk ||
				    freed[f].len > max_len(r[b].state))
					fail_msg("seed=%llu step=%d: block %llu (pblk %u) not "
						 "freed in order", (unsigned long long)seed, step,
						 (unsigned long long)b, r[b].pblk);
				f_off++;
			}
			r[b].state = ES_HOLE;
			r[b].pblk = 0;
		}
		if (got != delayed || (nr_freed && (f != nr_freed - 1 || f_off != freed[f].len)))
			fail_msg("seed=%llu step=%d: remove(%llu, %llu): %u delayed, want %u; "
				 "or extra freed ranges", (unsigned long long)seed, step,
				 (unsigned long long)lblk, (unsigned long long)len, got, delayed);
	}
}

static void run_long(bool merged)
{
	struct ref_blk *r = calloc(LONG_LEN, sizeof(*r));
	struct es_freed *freed = calloc(FREED_MAX, sizeof(*freed));

	assert_non_null(r);
	assert_non_null(freed);
	for (uint64_t seed = 1; seed <= LONG_SEEDS; seed++) {
		struct ext4_es_tree t;
		struct prng p;

		prng_seed(&p, seed);
		es_init(&t);
		memset(r, 0, LONG_LEN * sizeof(*r));
		for (int step = 0; step < LONG_STEPS; step++) {
			long_step(&p, &t, r, freed, seed, step);
			check_long(&t, r, merged, seed, step);
		}
		es_destroy(&t);
	}
	free(r);
	free(freed);
}

/*
 * Contents, limits, counts and freed ranges with extents past the length
 * limits; merging is left to the next test.
 */
static void test_extents__random_long_extents(void **state)
{
	(void)state;
	run_long(false);
}

/*
 * Regression test: model/ext4/extents.c es_remove() (and so es_insert(), which
 * starts with it) once trimmed an extent at its edges without
 * merging the trimmed piece with its neighbour.  Two contiguous written
 * extents that could not merge because together they exceeded 32768 blocks
 * can merge once one is trimmed, and stay apart: the "neighbours that could
 * merge are merged" invariant breaks and es_check() aborts the program
 * (SIM_ASSERT(!can_merge(...)), extents.c es_check).  Minimal case:
 * es_insert(0, 40000, pblk 1000, written) gives [0,32768) [32768,40000);
 * es_remove(0, 10000) leaves [10000,32768) pblk 11000 (22768 blocks) next
 * to [32768,40000) pblk 33768 (7232 blocks): 30000 <= 32768, mergeable.
 * Any scenario that truncates, punches or overwrites the start of a file
 * region mapped by a full-length extent hits it.  The test checks the pair
 * itself first so the binary survives to report.
 */
static void test_extents__trimmed_extent_remerges(void **state)
{
	struct ext4_es_tree t;
	struct extent_status a = { 0 }, b = { 0 };

	(void)state;
	es_init(&t);
	es_insert(&t, 0, 40000, 1000, ES_WRITTEN);
	es_remove(&t, 0, 10000, NULL, 0, NULL);
	assert_int_equal(es_count(&t, ES_WRITTEN), 30000);
	if (t.es_nr == 2) {
		a = t.es[0];
		b = t.es[1];
	}
	es_destroy(&t);
	if (a.es_len && a.es_lblk + a.es_len == b.es_lblk &&
	    a.es_pblk + a.es_len == b.es_pblk && a.es_len + b.es_len <= EXT_INIT_MAX_LEN)
		fail_msg("after insert(0, 40000) and remove(0, 10000): written "
			 "[%u, +%u) pblk %u and [%u, +%u) pblk %u should have merged",
			 a.es_lblk, a.es_len, a.es_pblk, b.es_lblk, b.es_len, b.es_pblk);
	run_long(true);
}

/* --- targeted tests --- */

static void assert_lookup(const struct ext4_es_tree *t, uint32_t lblk, enum es_state state,
			  uint32_t pblk, uint32_t len)
{
	uint32_t got_pblk, got_len;

	assert_int_equal(es_lookup(t, lblk, &got_pblk, &got_len), state);
	assert_int_equal(got_pblk, pblk);
	assert_int_equal(got_len, len);
}

static void test_extents__empty_map_is_one_hole(void **state)
{
	struct ext4_es_tree t;

	(void)state;
	es_init(&t);
	assert_lookup(&t, 0, ES_HOLE, 0, EXT_MAX_LBLK);   /* 2^32 does not fit */
	assert_lookup(&t, 5, ES_HOLE, 0, (uint32_t)(LIMIT - 5));
	assert_lookup(&t, EXT_MAX_LBLK, ES_HOLE, 0, 1);
	assert_int_equal(es_nr_disk_extents(&t), 0);
	assert_int_equal(es_count(&t, ES_WRITTEN), 0);
	assert_int_equal(es_remove(&t, 0, LIMIT, NULL, 0, NULL), 0);
	es_check(&t);
	es_destroy(&t);
}

/* Written extents merge up to 32768 blocks, and no further. */
static void test_extents__written_merge_limit(void **state)
{
	struct ext4_es_tree t;

	(void)state;
	es_init(&t);
	es_insert(&t, 0, 16000, 100, ES_WRITTEN);
	es_insert(&t, 16000, 16768, 16100, ES_WRITTEN);
	assert_int_equal(t.es_nr, 1);
	assert_lookup(&t, 0, ES_WRITTEN, 100, EXT_INIT_MAX_LEN);
	es_insert(&t, 32768, 1, 32868, ES_WRITTEN);
	assert_int_equal(t.es_nr, 2);
	assert_lookup(&t, 32767, ES_WRITTEN, 32867, 1);
	assert_lookup(&t, 32768, ES_WRITTEN, 32868, 1);
	assert_int_equal(es_nr_disk_extents(&t), 2);
	es_check(&t);
	es_destroy(&t);
}

/* Unwritten extents merge up to 32767 blocks. */
static void test_extents__unwritten_merge_limit(void **state)
{
	struct ext4_es_tree t;

	(void)state;
	es_init(&t);
	es_insert(&t, 10, EXT_UNWRITTEN_MAX_LEN - 1, 500, ES_UNWRITTEN);
	es_insert(&t, 10 + EXT_UNWRITTEN_MAX_LEN - 1, 1, 500 + EXT_UNWRITTEN_MAX_LEN - 1,
		  ES_UNWRITTEN);
	assert_int_equal(t.es_nr, 1);
	assert_lookup(&t, 10, ES_UNWRITTEN, 500, EXT_UNWRITTEN_MAX_LEN);
	es_insert(&t, 10 + EXT_UNWRITTEN_MAX_LEN, 1, 500 + EXT_UNWRITTEN_MAX_LEN,
		  ES_UNWRITTEN);
	assert_int_equal(t.es_nr, 2);
	es_check(&t);
	es_destroy(&t);
}

/* One insert longer than the limit becomes several extents. */
static void test_extents__long_insert_splits(void **state)
{
	struct ext4_es_tree t;
	struct es_freed freed[4];
	uint32_t nr = 0;

	(void)state;
	es_init(&t);
	es_insert(&t, 0, 70000, 1000, ES_WRITTEN);
	assert_int_equal(es_nr_disk_extents(&t), 3);
	assert_lookup(&t, 0, ES_WRITTEN, 1000, 32768);
	assert_lookup(&t, 32768, ES_WRITTEN, 33768, 32768);
	assert_lookup(&t, 65536, ES_WRITTEN, 66536, 70000 - 65536);
	assert_int_equal(es_count(&t, ES_WRITTEN), 70000);
	assert_int_equal(es_remove(&t, 0, 70000, freed, 4, &nr), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(freed[0].pblk, 1000);
	assert_int_equal(freed[0].len, 32768);
	assert_int_equal(freed[2].pblk, 66536);
	assert_int_equal(freed[2].len, 70000 - 65536);
	assert_int_equal(t.es_nr, 0);
	es_destroy(&t);
}

/* Delayed extents have no length limit and no physical block. */
static void test_extents__delayed_merge_unbounded(void **state)
{
	struct ext4_es_tree t;

	(void)state;
	es_init(&t);
	es_insert(&t, 0, 60000, 0, ES_DELAYED);
	es_insert(&t, 60000, 60000, 0, ES_DELAYED);
	assert_int_equal(t.es_nr, 1);
	assert_lookup(&t, 0, ES_DELAYED, 0, 120000);
	assert_int_equal(es_nr_disk_extents(&t), 0);
	assert_int_equal(es_remove(&t, 100, 50, NULL, 0, NULL), 50);
	assert_int_equal(es_count(&t, ES_DELAYED), 120000 - 50);
	es_check(&t);
	es_destroy(&t);
}

/* Neighbours of different state, or not physically contiguous, stay apart. */
static void test_extents__no_merge_across_state_or_gap(void **state)
{
	struct ext4_es_tree t;

	(void)state;
	es_init(&t);
	es_insert(&t, 0, 10, 100, ES_WRITTEN);
	es_insert(&t, 10, 10, 110, ES_UNWRITTEN);
	es_insert(&t, 20, 10, 121, ES_UNWRITTEN);
	es_insert(&t, 30, 10, 0, ES_DELAYED);
	assert_int_equal(t.es_nr, 4);
	assert_lookup(&t, 5, ES_WRITTEN, 105, 5);
	assert_lookup(&t, 10, ES_UNWRITTEN, 110, 10);
	assert_lookup(&t, 20, ES_UNWRITTEN, 121, 10);
	assert_lookup(&t, 35, ES_DELAYED, 0, 5);
	/* converting the middle makes one written run of 0..20 */
	es_insert(&t, 10, 10, 110, ES_WRITTEN);
	assert_int_equal(t.es_nr, 3);
	assert_lookup(&t, 0, ES_WRITTEN, 100, 20);
	es_check(&t);
	es_destroy(&t);
}

/* An insert in the middle of an extent splits it into three. */
static void test_extents__insert_splits_middle(void **state)
{
	struct ext4_es_tree t;
	struct es_freed freed[2];
	uint32_t nr = 0;

	(void)state;
	es_init(&t);
	es_insert(&t, 0, 100, 1000, ES_WRITTEN);
	es_insert(&t, 40, 20, 0, ES_DELAYED);
	assert_int_equal(t.es_nr, 3);
	assert_lookup(&t, 0, ES_WRITTEN, 1000, 40);
	assert_lookup(&t, 45, ES_DELAYED, 0, 15);
	assert_lookup(&t, 60, ES_WRITTEN, 1060, 40);
	assert_int_equal(es_remove(&t, 30, 40, freed, 2, &nr), 20);
	assert_int_equal(nr, 2);
	assert_int_equal(freed[0].pblk, 1030);
	assert_int_equal(freed[0].len, 10);
	assert_int_equal(freed[1].pblk, 1060);
	assert_int_equal(freed[1].len, 10);
	assert_lookup(&t, 30, ES_HOLE, 0, 40);
	es_check(&t);
	es_destroy(&t);
}

/*
 * es_shift: an insert splits the extent across its start and leaves a
 * hole; the collapse that undoes it merges the two halves again.
 */
static void test_extents__shift_right_then_left(void **state)
{
	struct ext4_es_tree t;

	(void)state;
	es_init(&t);
	es_insert(&t, 0, 100, 1000, ES_WRITTEN);
	es_insert(&t, 200, 10, 5000, ES_UNWRITTEN);
	es_shift(&t, 40, 16, false);
	es_check(&t);
	assert_int_equal(t.es_nr, 3);
	assert_lookup(&t, 0, ES_WRITTEN, 1000, 40);
	assert_lookup(&t, 40, ES_HOLE, 0, 16);
	assert_lookup(&t, 56, ES_WRITTEN, 1040, 60);
	assert_lookup(&t, 216, ES_UNWRITTEN, 5000, 10);
	es_shift(&t, 56, 16, true);
	es_check(&t);
	assert_int_equal(t.es_nr, 2);
	assert_lookup(&t, 0, ES_WRITTEN, 1000, 100);
	assert_lookup(&t, 200, ES_UNWRITTEN, 5000, 10);
	es_shift(&t, 300, 5, true);     /* nothing at or after it */
	assert_int_equal(t.es_nr, 2);
	es_destroy(&t);
}

/* Extents may end exactly at 2^32; es_remove takes a 64-bit length. */
static void test_extents__end_of_logical_range(void **state)
{
	struct ext4_es_tree t;
	struct es_freed freed[2];
	uint32_t nr = 0;

	(void)state;
	es_init(&t);
	es_insert(&t, (uint32_t)(LIMIT - 10), 10, 5, ES_WRITTEN);
	assert_lookup(&t, EXT_MAX_LBLK, ES_WRITTEN, 14, 1);
	assert_lookup(&t, (uint32_t)(LIMIT - 10), ES_WRITTEN, 5, 10);
	assert_lookup(&t, 0, ES_HOLE, 0, (uint32_t)(LIMIT - 10));
	assert_int_equal(es_remove(&t, (uint32_t)(LIMIT - 5), 5, freed, 2, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(freed[0].pblk, 10);
	assert_int_equal(freed[0].len, 5);
	assert_lookup(&t, EXT_MAX_LBLK, ES_HOLE, 0, 1);
	es_insert(&t, 7, 3, 0, ES_DELAYED);
	assert_int_equal(es_remove(&t, 0, LIMIT, freed, 2, &nr), 3);
	assert_int_equal(nr, 1);
	assert_int_equal(freed[0].len, 5);
	assert_int_equal(t.es_nr, 0);
	es_destroy(&t);
}

/* es_copy makes an independent copy. */
static void test_extents__copy_is_independent(void **state)
{
	struct ext4_es_tree t, c, empty, empty_copy;

	(void)state;
	es_init(&t);
	es_insert(&t, 0, 10, 100, ES_WRITTEN);
	es_insert(&t, 20, 10, 0, ES_DELAYED);
	es_copy(&c, &t);
	es_remove(&t, 0, 30, NULL, 0, NULL);
	es_insert(&t, 5, 1, 7, ES_UNWRITTEN);
	assert_int_equal(c.es_nr, 2);
	assert_lookup(&c, 3, ES_WRITTEN, 103, 7);
	assert_lookup(&c, 20, ES_DELAYED, 0, 10);
	es_insert(&c, 10, 10, 110, ES_WRITTEN);         /* the copy can grow */
	assert_lookup(&c, 0, ES_WRITTEN, 100, 20);
	es_check(&c);
	es_init(&empty);
	es_copy(&empty_copy, &empty);
	assert_int_equal(empty_copy.es_nr, 0);
	es_insert(&empty_copy, 1, 1, 1, ES_WRITTEN);
	assert_int_equal(empty_copy.es_nr, 1);
	es_destroy(&empty_copy);
	es_destroy(&empty);
	es_destroy(&c);
	es_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extents__random_vs_block_array),
		cmocka_unit_test(test_extents__random_long_extents),
		cmocka_unit_test(test_extents__trimmed_extent_remerges),
		cmocka_unit_test(test_extents__empty_map_is_one_hole),
		cmocka_unit_test(test_extents__written_merge_limit),
		cmocka_unit_test(test_extents__unwritten_merge_limit),
		cmocka_unit_test(test_extents__long_insert_splits),
		cmocka_unit_test(test_extents__delayed_merge_unbounded),
		cmocka_unit_test(test_extents__no_merge_across_state_or_gap),
		cmocka_unit_test(test_extents__insert_splits_middle),
		cmocka_unit_test(test_extents__shift_right_then_left),
		cmocka_unit_test(test_extents__end_of_logical_range),
		cmocka_unit_test(test_extents__copy_is_independent),
	};

	return cmocka_run_group_tests_name("extents", tests, NULL, NULL);
}
