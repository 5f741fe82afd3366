/*
 * test_blkdev.c - model/block/blkdev.c against a naive reference kept here: per
 * block the durable version and the list of completed-but-unflushed
 * versions in completion order, plus the list of writes in flight.  A read
 * must return the newest completed version, else the durable one, else the
 * sentinel 0xee; a flush or a crash leaves each block at its newest
 * completed version, and a crash forgets what was in flight.
 *
 * Seeded random sequences of submit (plain and FUA), complete, complete_all,
 * flush, crash, read, read_durable, in_flight and write_durable over a
 * 64-block device of 1 KiB blocks; targeted tests for FUA, completion order,
 * crash, copy-on-submit and sparse storage; a shared base image (reads
 * through it, zero blocks without memory, clones and overlays share it,
 * the sum of blocks that differ from it).  The device as an image file
 * (sim/blkimage.c): holes exactly where blocks were never written or are
 * zeros, read back as zero blocks; the size checked; the bound; and the
 * directory of crash-state images, committed, abandoned or cut by SIGINT.
 */
#define _GNU_SOURCE                     /* SEEK_DATA, SEEK_HOLE */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blkdev.h"
#include "blkimage.h"
#include "outfile.h"
#include "prng.h"

#define NBLK 64u
#define BS 1024u
#define SEEDS 20
#define STEPS 600
#define SWEEP_EVERY 50
#define NO_VERSION 0u           /* never written: the sentinel */

/*
 * Block contents are named by a version id: every byte depends on the id
 * and the offset, so two versions differ almost everywhere.  Id 1 is all
 * sentinel bytes, to check the device gives the byte no meaning.
 */
static void make_block(uint32_t id, uint8_t *out)
{
	if (id == NO_VERSION || id == 1) {
		memset(out, BLKDEV_SENTINEL, BS);
		return;
	}
	for (uint32_t i = 0; i < BS; i++)
		out[i] = (uint8_t)((id * 2654435761u + i * 40503u) >> 13);
}

struct ref_bio {
	uint64_t seq;
	uint32_t blk;
	uint32_t id;
	bool fua;
};

struct ref {
	uint32_t durable[NBLK];
	uint32_t cache[NBLK][STEPS];    /* completed, unflushed; oldest first */
	uint32_t nr_cache[NBLK];
	struct ref_bio flight[STEPS];   /* in flight, by seq */
	uint32_t nr_flight;
	uint64_t next_seq;
	uint64_t flushes;
};

static struct ref *ref_create(void)
{
	struct ref *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->next_seq = 1;
	return r;
}

static uint32_t ref_read(const struct ref *r, uint32_t blk)
{
	if (r->nr_cache[blk])
		return r->cache[blk][r->nr_cache[blk] - 1];
	return r->durable[blk];
}

static void ref_complete(struct ref *r, uint32_t i)
{
	struct ref_bio b = r->flight[i];

	memmove(&r->flight[i], &r->flight[i + 1], (r->nr_flight - i - 1) * sizeof(b));
	r->nr_flight--;
	if (b.fua) {            /* on media; every cached copy is older */
		r->durable[b.blk] = b.id;
		r->nr_cache[b.blk] = 0;
	} else {
		r->cache[b.blk][r->nr_cache[b.blk]++] = b.id;
	}
}

static void ref_flush(struct ref *r)
{
	for (uint32_t blk = 0; blk < NBLK; blk++) {
		if (r->nr_cache[blk])
			r->durable[blk] = r->cache[blk][r->nr_cache[blk] - 1];
		r->nr_cache[blk] = 0;
	}
}

static void expect_block(const uint8_t *got, uint32_t id, uint64_t seed, int step,
			 uint32_t blk, const char *what)
{
	uint8_t want[BS];

	make_block(id, want);
	if (memcmp(got, want, BS) != 0)
		fail_msg("seed=%llu step=%d: %s of block %u differs from version %u",
			 (unsigned long long)seed, step, what, blk, id);
}

static void check_block(const struct blkdev *bd, const struct ref *r, uint32_t blk,
			uint64_t seed, int step)
{
	uint8_t got[BS];

	blkdev_read(bd, blk, got);
	expect_block(got, ref_read(r, blk), seed, step, blk, "read");
	blkdev_read_durable(bd, blk, got);
	expect_block(got, r->durable[blk], seed, step, blk, "read_durable");
}

static void check_all(const struct blkdev *bd, const struct ref *r, uint64_t seed, int step)
{
	for (uint32_t blk = 0; blk < NBLK; blk++)
		check_block(bd, r, blk, seed, step);
	for (uint32_t i = 0; i < r->nr_flight; i++)
		if (!blkdev_in_flight(bd, r->flight[i].seq))
			fail_msg("seed=%llu step=%d: seq %llu is not in flight",
				 (unsigned long long)seed, step,
				 (unsigned long long)r->flight[i].seq);
	if (bd->bd_flushes != r->flushes)
		fail_msg("seed=%llu step=%d: %llu flushes counted, want %llu",
			 (unsigned long long)seed, step, (unsigned long long)bd->bd_flushes,
			 (unsigned long long)r->flushes);
}

/* A sequence number that is not in flight: completed, dropped or unissued. */
static void check_not_in_flight(struct prng *p, const struct blkdev *bd,
				const struct ref *r, uint64_t seed, int step)
{
	uint64_t seq = 1 + prng_below(p, r->next_seq + 2);

	for (uint32_t i = 0; i < r->nr_flight; i++)
		if (r->flight[i].seq == seq)
			return;
	if (blkdev_in_flight(bd, seq))
		fail_msg("seed=%llu step=%d: seq %llu reported in flight",
			 (unsigned long long)seed, step, (unsigned long long)seq);
}

static void do_submit(struct prng *p, struct blkdev *bd, struct ref *r, uint32_t *next_id,
		      uint64_t seed, int step)
{
	uint8_t data[BS];
	struct ref_bio b;

	/* one call per statement: initializer lists are unsequenced */
	b.blk = (uint32_t)prng_below(p, NBLK);
	b.id = prng_below(p, 16) == 0 ? 1 : (*next_id)++;
	b.fua = prng_below(p, 5) == 0;
	make_block(b.id, data);
	b.seq = blkdev_submit(bd, b.blk, data, BIO_DATA, b.fua);
	if (b.seq != r->next_seq)
		fail_msg("seed=%llu step=%d: submit returned seq %llu, want %llu",
			 (unsigned long long)seed, step, (unsigned long long)b.seq,
			 (unsigned long long)r->next_seq);
	r->next_seq++;
	memset(data, 0x5a, BS);         /* the device kept its own copy */
	r->flight[r->nr_flight++] = b;
}

static void run_seed(uint64_t seed)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	struct ref *r = ref_create();
	uint32_t next_id = 2;
	struct prng p;

	prng_seed(&p, seed);
	for (int step = 0; step < STEPS; step++) {
		uint64_t op = prng_below(&p, 100);
		uint32_t blk = (uint32_t)prng_below(&p, NBLK);

		if (op < 40) {
			do_submit(&p, bd, r, &next_id, seed, step);
		} else if (op < 70) {
			if (r->nr_flight) {
				uint32_t i = (uint32_t)prng_below(&p, r->nr_flight);

				blkdev_complete(bd, r->flight[i].seq);
				ref_complete(r, i);
			}
		} else if (op < 74) {
			blkdev_complete_all(bd);
			while (r->nr_flight)
				ref_complete(r, 0);
		} else if (op < 82) {
			blkdev_flush(bd, "blkdev_issue_flush");
			ref_flush(r);
			r->flushes++;
		} else if (op < 85) {
			blkdev_crash(bd);
			r->nr_flight = 0;
			ref_flush(r);
			if (bd->bd_nr_bios != 0)
				fail_msg("seed=%llu step=%d: %u writes left after crash",
					 (unsigned long long)seed, step, bd->bd_nr_bios);
			check_all(bd, r, seed, step);
		} else if (op < 87) {
			uint8_t data[BS];

			make_block(next_id, data);
			blkdev_write_durable(bd, blk, data);
			r->durable[blk] = next_id++;
		} else {
			check_block(bd, r, blk, seed, step);
		}
		check_not_in_flight(&p, bd, r, seed, step);
		if (step % SWEEP_EVERY == SWEEP_EVERY - 1)
			check_all(bd, r, seed, step);
	}
	check_all(bd, r, seed, STEPS);
	/* and what a power cut now leaves */
	blkdev_crash(bd);
	r->nr_flight = 0;
	ref_flush(r);
	check_all(bd, r, seed, STEPS + 1);
	free(r);
	blkdev_destroy(bd);
}

static void test_blkdev__random_vs_reference(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		run_seed(seed);
}

static void assert_block(const struct blkdev *bd, uint32_t blk, uint32_t id, bool durable)
{
	uint8_t got[BS];
	uint8_t want[BS];

	if (durable)
		blkdev_read_durable(bd, blk, got);
	else
		blkdev_read(bd, blk, got);
	make_block(id, want);
	assert_memory_equal(got, want, BS);
}

static void test_blkdev__fresh_device_reads_sentinel(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);

	(void)state;
	for (uint32_t blk = 0; blk < NBLK; blk++) {
		assert_block(bd, blk, NO_VERSION, false);
		assert_block(bd, blk, NO_VERSION, true);
	}
	assert_false(blkdev_in_flight(bd, 1));
	blkdev_destroy(bd);
}

/* In flight: invisible to reads; completed: visible, not yet durable. */
static void test_blkdev__write_stages(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	uint8_t data[BS];
	uint64_t seq;

	(void)state;
	make_block(7, data);
	seq = blkdev_submit(bd, 3, data, BIO_META, false);
	assert_int_equal(seq, 1);
	assert_true(blkdev_in_flight(bd, seq));
	assert_true(blkdev_in_flight_to(bd, seq, 3));
	assert_false(blkdev_in_flight_to(bd, seq, 4));
	assert_block(bd, 3, NO_VERSION, false);
	blkdev_complete(bd, seq);
	assert_false(blkdev_in_flight(bd, seq));
	assert_false(blkdev_in_flight_to(bd, seq, 3));
	assert_block(bd, 3, 7, false);
	assert_block(bd, 3, NO_VERSION, true);
	blkdev_flush(bd, "blkdev_issue_flush");
	assert_block(bd, 3, 7, true);
	assert_int_equal(bd->bd_nr_bios, 0);
	assert_int_equal(bd->bd_flushes, 1);
	blkdev_destroy(bd);
}

/* The device copies the data at submission. */
static void test_blkdev__submit_copies_data(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	uint8_t data[BS];
	uint64_t seq;

	(void)state;
	make_block(9, data);
	seq = blkdev_submit(bd, 0, data, BIO_DATA, false);
	memset(data, 0, BS);
	blkdev_complete(bd, seq);
	assert_block(bd, 0, 9, false);
	blkdev_destroy(bd);
}

/* A FUA write is durable when it completes, and supersedes cached copies. */
static void test_blkdev__fua_durable_at_completion(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	uint8_t data[BS];
	uint64_t a, b;

	(void)state;
	make_block(10, data);
	a = blkdev_submit(bd, 5, data, BIO_DATA, false);
	blkdev_complete(bd, a);                 /* cached, not durable */
	make_block(11, data);
	b = blkdev_submit(bd, 5, data, BIO_COMMIT, true);
	assert_block(bd, 5, NO_VERSION, true);
	assert_block(bd, 5, 10, false);
	blkdev_complete(bd, b);
	assert_block(bd, 5, 11, true);
	assert_block(bd, 5, 11, false);
	assert_int_equal(bd->bd_flushes, 0);
	/* the older cached copy must not land over the FUA write */
	blkdev_flush(bd, "blkdev_issue_flush");
	assert_block(bd, 5, 11, true);
	blkdev_crash(bd);
	assert_block(bd, 5, 11, true);
	blkdev_destroy(bd);
}

/* A non-FUA write completed after a FUA write to the block is newer. */
static void test_blkdev__write_after_fua_is_newer(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	uint8_t data[BS];
	uint64_t a, b;

	(void)state;
	make_block(20, data);
	a = blkdev_submit(bd, 8, data, BIO_DATA, false);
	make_block(21, data);
	b = blkdev_submit(bd, 8, data, BIO_COMMIT, true);
	blkdev_complete(bd, b);
	blkdev_complete(bd, a);                 /* completes last: wins */
	assert_block(bd, 8, 20, false);
	assert_block(bd, 8, 21, true);
	blkdev_crash(bd);
	assert_block(bd, 8, 20, true);
	blkdev_destroy(bd);
}

/* Flush applies completed writes in completion order, not submission order. */
static void test_blkdev__flush_orders_by_completion(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	uint8_t data[BS];
	uint64_t a, b;

	(void)state;
	make_block(30, data);
	a = blkdev_submit(bd, 2, data, BIO_DATA, false);
	make_block(31, data);
	b = blkdev_submit(bd, 2, data, BIO_DATA, false);
	blkdev_complete(bd, b);
	blkdev_complete(bd, a);
	assert_block(bd, 2, 30, false);
	blkdev_flush(bd, "blkdev_issue_flush");
	assert_block(bd, 2, 30, true);
	assert_block(bd, 2, 30, false);
	blkdev_destroy(bd);
}

/* complete_all completes in submission order: the last submitted wins. */
static void test_blkdev__complete_all_in_submission_order(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	uint8_t data[BS];

	(void)state;
	for (uint32_t id = 40; id < 45; id++) {
		make_block(id, data);
		blkdev_submit(bd, 1, data, BIO_DATA, id == 42);
	}
	blkdev_complete_all(bd);
	assert_block(bd, 1, 44, false);
	assert_block(bd, 1, 42, true);
	for (uint64_t seq = 1; seq <= 5; seq++)
		assert_false(blkdev_in_flight(bd, seq));
	blkdev_flush(bd, "blkdev_issue_flush");
	assert_block(bd, 1, 44, true);
	blkdev_destroy(bd);
}

/* A crash keeps completed writes and drops in-flight ones. */
static void test_blkdev__crash_drops_in_flight(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	uint8_t data[BS];
	uint64_t a, b, c;

	(void)state;
	make_block(50, data);
	a = blkdev_submit(bd, 4, data, BIO_DATA, false);
	make_block(51, data);
	b = blkdev_submit(bd, 4, data, BIO_DATA, false);
	make_block(52, data);
	c = blkdev_submit(bd, 6, data, BIO_JOURNAL, false);
	blkdev_complete(bd, a);
	blkdev_crash(bd);
	assert_false(blkdev_in_flight(bd, b));
	assert_false(blkdev_in_flight(bd, c));
	assert_int_equal(bd->bd_nr_bios, 0);
	assert_int_equal(bd->bd_flushes, 0);
	assert_block(bd, 4, 50, true);
	assert_block(bd, 4, 50, false);
	assert_block(bd, 6, NO_VERSION, true);
	blkdev_destroy(bd);
}

/* Memory follows the blocks written: a 2^24-block device with two writes. */
static void test_blkdev__sparse_storage(void **state)
{
	const uint32_t nr = UINT32_C(1) << 24;
	struct blkdev *bd = blkdev_create(nr, BS);
	uint32_t chunks = 0;
	uint8_t data[BS];
	uint64_t seq;

	(void)state;
	make_block(60, data);
	seq = blkdev_submit(bd, nr - 1, data, BIO_DATA, false);
	blkdev_complete(bd, seq);
	blkdev_flush(bd, "blkdev_issue_flush");
	make_block(61, data);
	blkdev_write_durable(bd, nr - 2, data);
	assert_block(bd, nr - 1, 60, true);
	assert_block(bd, nr - 2, 61, true);
	assert_block(bd, nr - 3, NO_VERSION, false);
	assert_block(bd, 0, NO_VERSION, false);
	assert_block(bd, nr / 2, NO_VERSION, true);
	for (uint32_t c = 0; c < bd->bd_nr_chunks; c++)
		chunks += bd->bd_chunks[c] != NULL;
	assert_int_equal(chunks, 1);
	blkdev_destroy(bd);
}

/* A base of NBLK blocks: versions 70.. at blocks 0..3, zeroes at 8..15, nothing else. */
static struct blkdev_base *make_base(void)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	struct blkdev_base *base;
	uint8_t data[BS];

	for (uint32_t b = 0; b < 4; b++) {
		make_block(70 + b, data);
		blkdev_write_durable(bd, b, data);
	}
	make_block(80, data);
	blkdev_write_durable(bd, 9, data);      /* zeroout replaces a copy */
	blkdev_zeroout_durable(bd, 8, 8);
	base = blkdev_base_freeze(bd);
	assert_int_equal(base->bb_refs, 1);
	return base;
}

static void assert_zero_block(const struct blkdev *bd, uint32_t blk)
{
	uint8_t out[BS], zero[BS] = { 0 };

	assert_true(blkdev_is_zero_block(blkdev_peek(bd, blk)));
	blkdev_read(bd, blk, out);
	assert_memory_equal(out, zero, BS);
}

static void test_blkdev__base_reads_through(void **state)
{
	struct blkdev_base *base = make_base();
	struct blkdev *a = blkdev_create_on(base), *b = blkdev_create_on(base);
	uint8_t data[BS];

	(void)state;
	assert_int_equal(base->bb_refs, 3);
	assert_int_equal(a->bd_nr_slots, 0);            /* nothing of the base copied */
	for (uint32_t blk = 0; blk < 4; blk++)
		assert_block(a, blk, 70 + blk, true);
	for (uint32_t blk = 8; blk < 16; blk++)
		assert_zero_block(a, blk);
	assert_block(a, 4, NO_VERSION, true);           /* never written anywhere */
	assert_block(a, NBLK - 1, NO_VERSION, false);
	make_block(90, data);
	blkdev_write_durable(a, 1, data);
	blkdev_write_durable(a, 9, data);
	assert_block(a, 1, 90, true);
	assert_block(b, 1, 71, true);                   /* the base did not change */
	assert_zero_block(b, 9);
	assert_int_equal(a->bd_nr_slots, 2);
	blkdev_check(a);
	blkdev_check(b);
	blkdev_destroy(a);
	assert_int_equal(base->bb_refs, 2);
	blkdev_destroy(b);
	assert_int_equal(base->bb_refs, 1);
	blkdev_base_put(base);
}

static void test_blkdev__zeroout_costs_no_memory(void **state)
{
	struct blkdev *bd = blkdev_create(NBLK, BS);
	uint8_t data[BS];
	uint64_t seq;

	(void)state;
	blkdev_zeroout_durable(bd, 0, NBLK);
	for (uint32_t blk = 0; blk < NBLK; blk++)
		assert_zero_block(bd, blk);
	make_block(91, data);
	blkdev_write_durable(bd, 5, data);              /* a write gets its own copy */
	assert_block(bd, 5, 91, true);
	assert_zero_block(bd, 4);
	assert_zero_block(bd, 6);
	seq = blkdev_submit(bd, 7, data, BIO_DATA, false);
	blkdev_complete(bd, seq);
	blkdev_flush(bd, "blkdev_issue_flush");
	assert_block(bd, 7, 91, true);
	assert_zero_block(bd, 8);
	blkdev_destroy(bd);
}

static void test_blkdev__clone_and_overlay_share_base(void **state)
{
	struct blkdev_base *base = make_base();
	struct blkdev *bd = blkdev_create_on(base), *clone, *ov;
	uint8_t data[BS];

	(void)state;
	make_block(92, data);
	blkdev_write_durable(bd, 2, data);
	blkdev_zeroout_durable(bd, 3, 1);
	clone = blkdev_clone(bd);
	assert_ptr_equal(clone->bd_base, base);
	assert_int_equal(base->bb_refs, 3);
	assert_int_equal(clone->bd_nr_slots, 2);        /* its own blocks only */
	assert_block(clone, 0, 70, true);
	assert_block(clone, 2, 92, true);
	assert_zero_block(clone, 3);
	assert_zero_block(clone, 10);
	assert_block(clone, 20, NO_VERSION, true);
	assert_memory_equal(clone->bd_durable_sum, bd->bd_durable_sum, sizeof(bd->bd_durable_sum));
	blkdev_check(clone);
	ov = blkdev_overlay(clone);
	assert_block(ov, 1, 71, true);
	assert_block(ov, 2, 92, true);
	assert_zero_block(ov, 12);
	assert_block(ov, 30, NO_VERSION, true);
	blkdev_destroy(ov);
	blkdev_destroy(clone);
	blkdev_destroy(bd);
	assert_int_equal(base->bb_refs, 1);
	blkdev_base_put(base);
}

static bool sums_equal(const struct blkdev *a, const struct blkdev *b)
{
	return a->bd_durable_sum[0] == b->bd_durable_sum[0] &&
	       a->bd_durable_sum[1] == b->bd_durable_sum[1];
}

static void test_blkdev__sum_counts_blocks_that_differ_from_base(void **state)
{
	struct blkdev_base *base = make_base();
	struct blkdev *fresh = blkdev_create_on(base), *a = blkdev_create_on(base);
	struct blkdev *b = blkdev_create_on(base), *plain = blkdev_create(NBLK, BS);
	uint8_t x[BS], y[BS], orig[BS];

	(void)state;
	make_block(93, x);
	make_block(94, y);
	make_block(72, orig);                           /* block 2's base bytes */
	blkdev_write_durable(a, 2, x);
	assert_false(sums_equal(a, fresh));
	blkdev_write_durable(a, 2, orig);               /* back to the base's bytes */
	assert_true(sums_equal(a, fresh));
	blkdev_zeroout_durable(a, 12, 1);               /* zeroes over zeroes */
	assert_true(sums_equal(a, fresh));
	blkdev_write_durable(a, 5, x);                  /* the same bytes, other histories */
	blkdev_write_durable(a, 9, y);
	blkdev_write_durable(b, 9, x);
	blkdev_write_durable(b, 9, y);
	blkdev_zeroout_durable(b, 5, 1);
	blkdev_write_durable(b, 5, x);
	assert_true(sums_equal(a, b));
	assert_false(sums_equal(a, fresh));
	make_block(1, x);                               /* sentinel bytes on no base */
	blkdev_write_durable(plain, 3, x);
	assert_int_equal(plain->bd_durable_sum[0], 0);
	assert_int_equal(plain->bd_durable_sum[1], 0);
	plain->bd_no_sum = true;                        /* a scratch device keeps none */
	blkdev_write_durable(plain, 4, y);
	blkdev_zeroout_durable(plain, 5, 2);
	assert_int_equal(plain->bd_durable_sum[0], 0);
	assert_int_equal(plain->bd_durable_sum[1], 0);
	assert_block(plain, 4, 94, true);
	blkdev_destroy(fresh);
	blkdev_destroy(a);
	blkdev_destroy(b);
	blkdev_destroy(plain);
	blkdev_base_put(base);
}

/* --- the device as an image file --- */

#define IMG_BS 4096u
#define IMG_NBLK 16u

/* A scratch directory of its own under $TMPDIR (or /tmp), into @dir. */
static void scratch_dir(char *dir, size_t cap)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, cap, "%s/blkimg.XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(dir));
}

/* How many entries @dir holds ("." and ".." aside); -1 when it does not exist. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Blocks 3, 11 and 15 hold data, 10 zeros, 7 a completed write in the cache; the rest never written. */
static struct blkdev *image_device(void)
{
	struct blkdev *bd = blkdev_create(IMG_NBLK, IMG_BS);
	uint8_t data[IMG_BS];

	memset(data, 0x5a, sizeof(data));
	blkdev_write_durable(bd, 3, data);
	data[100] = 1;
	blkdev_write_durable(bd, 11, data);
	memset(data, BLKDEV_SENTINEL, sizeof(data));
	blkdev_write_durable(bd, 15, data);         /* the sentinel's byte, written: data */
	memset(data, 0, sizeof(data));
	blkdev_write_durable(bd, 10, data);
	data[7] = 7;
	blkdev_complete(bd, blkdev_submit(bd, 7, data, BIO_DATA, false));
	return bd;
}

static void test_blkdev__image_holes_round_trip(void **state)
{
	static const uint32_t data_blocks[] = { 3, 7, 11, 15 };
	struct blkdev *bd = image_device(), *back;
	char dir[256], path[300], err[SIM_IMAGE_ERR_MAX];
	uint8_t want[IMG_BS], got[IMG_BS];
	off_t off = 0;
	unsigned k = 0;
	int fd;

	(void)state;
	scratch_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/a.img", dir);
	assert_int_equal(sim_image_data_bytes(bd), 4 * IMG_BS);
	assert_int_equal(sim_image_write(bd, path, 0, err, sizeof(err)), 0);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), (off_t)IMG_NBLK * IMG_BS);
	/* the data regions are exactly the data blocks, each one alone */
	while ((off = lseek(fd, off, SEEK_DATA)) >= 0) {
		assert_true(k < 4);
		assert_int_equal(off, (off_t)data_blocks[k] * IMG_BS);
		off = lseek(fd, off, SEEK_HOLE);
		assert_int_equal(off, (off_t)(data_blocks[k] + 1) * IMG_BS);
		k++;
	}
	assert_int_equal(k, 4);
	close(fd);
	back = sim_image_load(path, IMG_BS, IMG_NBLK, err, sizeof(err));
	assert_non_null(back);
	for (uint32_t b = 0; b < IMG_NBLK; b++) {
		blkdev_read(bd, b, want);
		if (!blkdev_peek(bd, b))
			memset(want, 0, sizeof(want));  /* never written: a hole, zeros */
		blkdev_read_durable(back, b, got);
		assert_memory_equal(got, want, IMG_BS);
	}
	blkdev_destroy(back);
	blkdev_destroy(bd);
	unlink(path);
	assert_int_equal(dir_entries(dir), 0);
	rmdir(dir);
}

static void test_blkdev__image_size_and_bound(void **state)
{
	struct blkdev *bd = image_device();
	char dir[256], path[300], err[SIM_IMAGE_ERR_MAX], want[600];

	(void)state;
	scratch_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/a.img", dir);
	assert_int_equal(sim_image_write(bd, path, 4 * IMG_BS - 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--max-image-bytes 16383: "));
	assert_int_equal(dir_entries(dir), 0);          /* neither the image nor a temporary */
	assert_int_equal(sim_image_write(bd, path, 4 * IMG_BS, err, sizeof(err)), 0);
	assert_null(sim_image_load(path, IMG_BS, 2 * IMG_NBLK, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: the image is 65536 bytes, the device 131072 (block size "
		 "4096 times disk_blocks 32)", path);
	assert_string_equal(err, want);
	assert_null(sim_image_load(dir, IMG_BS, IMG_NBLK, err, sizeof(err)));
	unlink(path);
	rmdir(dir);
	blkdev_destroy(bd);
}

/* Two images of step 3 and one of step 12 through the sink; their names. */
static void write_three(struct sim_image_dir *d, const struct blkdev *bd, char *names[3])
{
	struct cs_point p = { .step = 3 };

	names[0] = d->sink.cis_write(&d->sink, &p, bd);
	names[1] = d->sink.cis_write(&d->sink, &p, bd);
	p.step = 12;
	names[2] = d->sink.cis_write(&d->sink, &p, bd);
}

static void test_blkdev__image_dir_whole_or_nothing(void **state)
{
	struct blkdev *bd = image_device();
	struct sim_image_dir d;
	char dir[256], path[300], err[SIM_IMAGE_ERR_MAX], want[400], *names[3];

	(void)state;
	scratch_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/states", dir);
	assert_int_equal(sim_image_dir_open(&d, path, 0, 120, err, sizeof(err)), 0);
	write_three(&d, bd, names);
	assert_int_equal(dir_entries(dir), 1);          /* only the temporary so far */
	assert_int_equal(dir_entries(path), -1);
	assert_int_equal(sim_image_dir_close(&d, true, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/step-003-state-0002.img", path);
	assert_string_equal(names[1], want);
	snprintf(want, sizeof(want), "%s/step-012-state-0001.img", path);
	assert_string_equal(names[2], want);
	assert_int_equal(dir_entries(path), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(unlink(names[i]), 0);
		free(names[i]);
	}
	/* into the empty directory now there; abandoned: nothing changes */
	assert_int_equal(sim_image_dir_open(&d, path, 0, 9, err, sizeof(err)), 0);
	write_three(&d, bd, names);
	assert_int_equal(sim_image_dir_close(&d, false, err, sizeof(err)), -1);
	assert_int_equal(dir_entries(path), 0);
	assert_int_equal(dir_entries(dir), 1);
	/* a bound that only two images fit: the third fails the whole directory */
	rmdir(path);
	assert_int_equal(sim_image_dir_open(&d, path, 8 * IMG_BS, 9, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++)
		free(names[i]);
	write_three(&d, bd, names);
	assert_non_null(names[1]);
	assert_null(names[2]);
	assert_int_equal(sim_image_dir_close(&d, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the images through step-12-state-0001.img need 49152 bytes"));
	assert_int_equal(dir_entries(dir), 0);
	for (int i = 0; i < 3; i++)
		free(names[i]);
	rmdir(dir);
	blkdev_destroy(bd);
}

/* SIGINT while the directory is being written: neither it nor its temporary is left. */
static void test_blkdev__image_dir_sigint(void **state)
{
	char dir[256], path[300];
	int status;
	pid_t pid;

	(void)state;
	scratch_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/states", dir);
	fflush(NULL);
	if ((pid = fork()) == 0) {
		struct blkdev *bd = image_device();
		struct sim_image_dir d;
		char err[SIM_IMAGE_ERR_MAX], *names[3];

		outfile_catch_signals(false);
		if (sim_image_dir_open(&d, path, 0, 9, err, sizeof(err)) != 0)
			_exit(3);
		write_three(&d, bd, names);
		raise(SIGINT);
		_exit(4);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
	assert_int_equal(dir_entries(dir), 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blkdev__random_vs_reference),
		cmocka_unit_test(test_blkdev__fresh_device_reads_sentinel),
		cmocka_unit_test(test_blkdev__write_stages),
		cmocka_unit_test(test_blkdev__submit_copies_data),
		cmocka_unit_test(test_blkdev__fua_durable_at_completion),
		cmocka_unit_test(test_blkdev__write_after_fua_is_newer),
		cmocka_unit_test(test_blkdev__flush_orders_by_completion),
		cmocka_unit_test(test_blkdev__complete_all_in_submission_order),
		cmocka_unit_test(test_blkdev__crash_drops_in_flight),
		cmocka_unit_test(test_blkdev__sparse_storage),
		cmocka_unit_test(test_blkdev__base_reads_through),
		cmocka_unit_test(test_blkdev__zeroout_costs_no_memory),
		cmocka_unit_test(test_blkdev__clone_and_overlay_share_base),
		cmocka_unit_test(test_blkdev__sum_counts_blocks_that_differ_from_base),
		cmocka_unit_test(test_blkdev__image_holes_round_trip),
		cmocka_unit_test(test_blkdev__image_size_and_bound),
		cmocka_unit_test(test_blkdev__image_dir_whole_or_nothing),
		cmocka_unit_test(test_blkdev__image_dir_sigint),
	};

	return cmocka_run_group_tests_name("blkdev", tests, NULL, NULL);
}
