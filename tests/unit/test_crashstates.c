/*
 * test_crashstates.c - crash-state enumeration (crash/crashstates.c) on small
 * hand-computed cases: unflushed overwrites of blocks already on disk, as
 * writeback leaves them (written and completed, not flushed).  Counts are
 * worked out by hand in each test's comment; contents are checked through
 * the SHA-256 of what each state's file holds.  Also the device overlay the
 * enumeration runs on (model/block/blkdev.c blkdev_overlay).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "blkdev.h"
#include "checker.h"
#include "crashstates.h"
#include "fixture.h"
#include "sha256.h"
#include "txlost.h"

/* The world of every test but the overlay's: 4 KiB blocks, a 4096-block device. */
static int setup(void **state)
{
	struct ext4_mount_opts o = fx_opts(4096, DATA_ORDERED, true, 4096);

	*state = fx_world_new(&o);
	return 0;
}

/* write(2) + the checker's note of it */
static void write_fill(struct fx_world *w, int64_t off, int64_t len, uint8_t byte)
{
	int64_t done;

	assert_int_equal(ext4_file_write(&w->fs, off, len, byte, len, &done), 0);
	assert_int_equal(done, len);
	chk_note_write(&w->chk, off, len, byte);
}

static void fsync_file(struct fx_world *w)
{
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	chk_note_durable(&w->chk);
}

/* Write back and wait: completed, in the volatile cache, not flushed. */
static void writeback_wait(struct fx_world *w)
{
	assert_int_equal(ext4_writepages(&w->fs, 0, INT64_MAX, WB_SYNC_NONE, true), 0);
	ext4_wait_io_range(&w->fs, 0, INT64_MAX);
}

static void sha_of_fill(uint8_t a, uint8_t b, char out[65])
{
	uint8_t buf[8192], d[32];
	struct sha256 s;

	memset(buf, a, 4096);
	memset(buf + 4096, b, 4096);
	sha256_init(&s);
	sha256_update(&s, buf, sizeof(buf));
	sha256_final(&s, d);
	sha256_hex(d, out);
}

static const struct cs_state *find_state(const struct cs_point *p, const char *sha)
{
	for (uint32_t i = 0; i < p->nr_states; i++)
		if (strcmp(p->states[i].sha256, sha) == 0)
			return &p->states[i];
	return NULL;
}

/* Two unflushed overwrites of two blocks: 2 x 2 = 4 raw states, all distinct. */
static void test_crashstates__two_blocks_four_states(void **state)
{
	struct fx_world *w = *state;
	const uint8_t pairs[4][2] = { { 0xaa, 0xaa }, { 0xbb, 0xaa }, { 0xaa, 0xbb }, { 0xbb, 0xbb } };
	struct cs_point p;

	write_fill(w, 0, 8192, 0xaa);
	fsync_file(w);
	write_fill(w, 0, 8192, 0xbb);
	writeback_wait(w);
	cs_enumerate(&w->fs, w->bd, &w->chk, 9, 4096, CS_DIGEST, &p);
	assert_int_equal(p.nr_pending, 2);
	assert_int_equal(p.nr_blocks, 2);
	assert_true(p.raw_states == 4.0);
	assert_true(p.exhaustive);
	assert_int_equal(p.evaluated, 4);
	assert_int_equal(p.nr_states, 4);
	for (int i = 0; i < 4; i++) {
		char sha[65];
		const struct cs_state *st;

		sha_of_fill(pairs[i][0], pairs[i][1], sha);
		st = find_state(&p, sha);
		assert_non_null(st);
		assert_int_equal(st->size, 8192);
		assert_int_equal(st->raw_states, 1);
		for (int inv = 0; inv < INV_COUNT; inv++)
			assert_false(st->violated[inv]);
		/* the bytes as runs: one run when both blocks hold the same byte */
		if (pairs[i][0] == pairs[i][1])
			snprintf(sha, sizeof(sha), "0-8191: 0x%02x", pairs[i][0]);
		else
			snprintf(sha, sizeof(sha), "0-4095: 0x%02x, 4096-8191: 0x%02x", pairs[i][0],
				 pairs[i][1]);
		assert_string_equal(st->runs, sha);
	}
	cs_point_free(&p);
}

/* One block written twice since the flush: none, first or second: 3 states. */
static void test_crashstates__one_block_two_versions(void **state)
{
	struct fx_world *w = *state;
	struct cs_point p;

	write_fill(w, 0, 4096, 0xaa);
	fsync_file(w);
	write_fill(w, 0, 4096, 0xbb);
	writeback_wait(w);
	write_fill(w, 0, 4096, 0xcc);
	writeback_wait(w);
	cs_enumerate(&w->fs, w->bd, &w->chk, 9, 4096, CS_DIGEST, &p);
	assert_int_equal(p.nr_pending, 2);
	assert_int_equal(p.nr_blocks, 1);
	assert_true(p.raw_states == 3.0);
	assert_int_equal(p.nr_states, 3);
	cs_point_free(&p);
}

/* A rewrite of the same bytes folds into the durable block: 2 raw, 1 state. */
static void test_crashstates__equal_write_folds(void **state)
{
	struct fx_world *w = *state;
	struct cs_point p;

	write_fill(w, 0, 4096, 0xaa);
	fsync_file(w);
	write_fill(w, 0, 4096, 0xaa);
	writeback_wait(w);
	cs_enumerate(&w->fs, w->bd, &w->chk, 9, 4096, CS_DIGEST, &p);
	assert_true(p.raw_states == 2.0);
	assert_true(p.reduced_states == 1.0);
	assert_int_equal(p.evaluated, 1);
	assert_int_equal(p.nr_states, 1);
	assert_int_equal(p.states[0].raw_states, 2);
	cs_point_free(&p);
}

/* Past the bound the states are sampled, deterministically. */
static void test_crashstates__bound_samples(void **state)
{
	struct fx_world *w = *state;
	struct cs_point p, q;

	write_fill(w, 0, 8 * 4096, 0xaa);
	fsync_file(w);
	write_fill(w, 0, 8 * 4096, 0xbb);
	writeback_wait(w);
	cs_enumerate(&w->fs, w->bd, &w->chk, 9, 16, CS_DIGEST, &p);
	cs_enumerate(&w->fs, w->bd, &w->chk, 9, 16, CS_DIGEST, &q);
	assert_true(p.raw_states == 256.0);
	assert_false(p.exhaustive);
	assert_int_equal(p.evaluated, 16);
	assert_int_equal(p.nr_states, q.nr_states);
	for (uint32_t i = 0; i < p.nr_states; i++)
		assert_string_equal(p.states[i].sha256, q.states[i].sha256);
	cs_point_free(&p);
	cs_point_free(&q);
}

struct hook_result {
	struct fx_world *w;
	struct cs_point p;
	uint32_t calls;
	uint32_t tid;
};

/* The device's hook: enumerate at the flush inside a commit. */
static void before_durable(void *ctx, enum bd_point what, const struct bio_rec *fua)
{
	struct hook_result *hr = ctx;
	const transaction_t *t = hr->w->fs.journal.j_committing_transaction;

	(void)fua;
	if (what != BD_BEFORE_FLUSH || !t)
		return;
	hr->calls++;
	hr->tid = t->t_tid;
	cs_enumerate(&hr->w->fs, hr->w->bd, &hr->w->chk,
		     2, 4096, CS_DIGEST, &hr->p);
	assert_int_equal(hr->p.in_commit, t->t_tid);
}

/*
 * A crash inside a commit, after the log blocks and before the commit block:
 * recovery ignores the transaction, so every state shows the metadata from
 * before it: the first fsync of a new file recovers an empty file, whatever
 * of its data and log blocks reached the media.
 */
static void test_crashstates__commit_without_commit_block(void **state)
{
	struct fx_world *w = *state;
	struct hook_result hr = { .w = w };

	write_fill(w, 0, 8192, 0xaa);
	w->bd->bd_durable_hook = before_durable;
	w->bd->bd_hook_ctx = &hr;
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	w->bd->bd_durable_hook = NULL;
	assert_int_equal(hr.calls, 1);
	assert_true(hr.p.nr_pending > 2);       /* data, descriptor, metadata copies */
	assert_true(hr.p.nr_states >= 1);
	for (uint32_t i = 0; i < hr.p.nr_states; i++) {
		char where[CS_EXAMPLE_MAX + 256];

		assert_int_equal(hr.p.states[i].size, 0);
		assert_int_equal(hr.p.states[i].replay_end, 0);        /* nothing replayed */
		cs_describe_state(&hr.p, &hr.p.states[i], where, sizeof(where));
		assert_non_null(strstr(where, "did not land"));
		for (int inv = 0; inv < INV_COUNT; inv++)
			if (!chk_inv_info(inv)->informational)
				assert_false(hr.p.states[i].violated[inv]);
	}
	cs_point_free(&hr.p);
}

/* An overlay reads its parent's durable blocks and keeps its own writes. */
static void test_crashstates__overlay(void **state)
{
	struct blkdev *parent = blkdev_create(64, 1024), *child;
	uint8_t a[1024], b[1024], out[1024];

	(void)state;
	memset(a, 0x11, sizeof(a));
	memset(b, 0x22, sizeof(b));
	blkdev_write_durable(parent, 3, a);
	blkdev_submit(parent, 4, a, BIO_DATA, false);   /* not durable: not inherited */
	child = blkdev_overlay(parent);
	blkdev_read(child, 3, out);
	assert_memory_equal(out, a, sizeof(a));
	blkdev_read(child, 4, out);
	assert_int_equal(out[0], BLKDEV_SENTINEL);
	blkdev_write_durable(child, 3, b);
	blkdev_read(child, 3, out);
	assert_memory_equal(out, b, sizeof(b));
	blkdev_read(parent, 3, out);
	assert_memory_equal(out, a, sizeof(a));
	blkdev_destroy(child);
	blkdev_destroy(parent);
}

/*
 * What a recovered inode kept and lost of the in-memory one (txlost.c):
 * block 0 made durable by fsync, then blocks 1-2 written back into the
 * running transaction; the durable device alone, mounted on an overlay, is
 * the crash state that lost them.
 */
static void test_crashstates__lost_changes_named_by_transaction(void **state)
{
	struct fx_world *w = *state;
	struct sim_counters counters = { 0 };
	struct jbd2_recovery_info ri;
	char kept[CS_CHANGES_MAX], lost[CS_CHANGES_MAX], want[96];
	struct blkdev *child;
	struct ext4_fs rec;
	const transaction_t *t;

	write_fill(w, 0, 4096, 0x11);
	fsync_file(w);
	write_fill(w, 4096, 8192, 0x22);
	writeback_wait(w);
	t = w->fs.journal.j_running_transaction;
	assert_non_null(t);
	child = blkdev_overlay(w->bd);
	assert_int_equal(ext4_fill_super(&rec, child, &w->o, &w->sem, &counters, &ri), 0);
	cs_tx_changes(&w->fs, &rec, 0, false, kept, lost, sizeof(kept));
	assert_non_null(strstr(kept, "i_disksize 4096, extents 0 written@"));
	snprintf(want, sizeof(want), "with tid %u (running): i_disksize 4096 -> 12288, extents "
		 "1-2 written@", t->t_tid);
	assert_non_null(strstr(lost, want));
	cs_tx_changes(&w->fs, &rec, 7, false, kept, lost, sizeof(kept));
	snprintf(want, sizeof(want), "with tid 7 (its commit block not on the media) and tid %u "
		 "(running): ", t->t_tid);
	assert_non_null(strstr(lost, want));
	cs_tx_changes(&rec, &rec, 0, false, kept, lost, sizeof(kept));
	assert_string_equal(lost, "");                  /* nothing lost */
	ext4_free_fs(&rec);
	blkdev_destroy(child);
}

/*
 * An image sink that checks each device it is given against the crash
 * device: every block is the durable one or one of its pending versions
 * (never what recovery writes home), and counts them.
 */
struct check_sink {
	struct cs_image_sink sink;
	const struct blkdev *crash;
	uint32_t calls, foreign, pending;
};

static char *check_device(struct cs_image_sink *sink, const struct cs_point *p,
			  const struct blkdev *dev)
{
	struct check_sink *c = (struct check_sink *)sink;
	uint32_t bs = dev->bd_block_size;
	char name[32];

	(void)p;
	for (uint32_t b = 0; b < dev->bd_nr_blocks; b++) {
		const uint8_t *got = blkdev_peek(dev, b), *durable = blkdev_peek_durable(c->crash, b);
		bool ok = got == durable || (got && durable && memcmp(got, durable, bs) == 0);

		for (uint32_t i = 0; i < c->crash->bd_nr_bios && !ok; i++)
			if (c->crash->bd_bios[i].b_blocknr == b && got &&
			    memcmp(got, c->crash->bd_bios[i].b_data, bs) == 0) {
				ok = true;
				c->pending++;
			}
		c->foreign += !ok;
	}
	snprintf(name, sizeof(name), "state-%u", ++c->calls);
	return strdup(name);
}

/*
 * The device of each distinct state as the power cut left it: a committed
 * transaction in the log not yet checkpointed (every mount replays it: its
 * home blocks change) and two unflushed data overwrites.  The sink gets one
 * device per distinct state, holding only durable blocks and pending
 * versions, none of recovery's writes; each state names its image.
 */
static void test_crashstates__images_before_recovery(void **state)
{
	struct fx_world *w = *state;
	struct check_sink c = { .sink.cis_write = check_device, .crash = w->bd };
	struct cs_point p;

	write_fill(w, 0, 8192, 0xaa);
	fsync_file(w);
	write_fill(w, 0, 8192, 0xbb);
	writeback_wait(w);
	cs_enumerate_to(&w->fs, w->bd, &w->chk, 9, 4096, CS_DIGEST, &c.sink, &p);
	assert_int_equal(p.nr_states, 4);
	assert_int_equal(c.calls, p.nr_states);
	assert_int_equal(c.foreign, 0);
	assert_int_equal(c.pending, 4);                 /* 0 + 1 + 1 + 2 blocks of 0xbb */
	assert_true(p.states[0].replay_end > p.states[0].replay_first);       /* it replays */
	{       /* and a recovered device would not pass: recovery writes blocks home */
		struct blkdev *child = blkdev_overlay(w->bd);
		struct sim_counters cnt = { 0 };
		struct jbd2_recovery_info ri;
		struct ext4_fs rec;
		uint32_t before = c.foreign;

		assert_int_equal(ext4_fill_super(&rec, child, &w->fs.opts, &w->fs.sem, &cnt, &ri), 0);
		free(check_device(&c.sink, &p, child));
		assert_true(c.foreign > before);
		c.calls--;
		ext4_free_fs(&rec);
		blkdev_destroy(child);
	}
	for (uint32_t i = 0; i < p.nr_states; i++) {
		char want[32];

		snprintf(want, sizeof(want), "state-%u", i + 1);
		assert_string_equal(p.states[i].image, want);
	}
	cs_point_free(&p);
}

/* A test on the world of setup(), checked and freed by fx_world_teardown(). */
/* Do @a and @b hold the same states, by size, content, verdict and weight? */
static bool same_point(const struct cs_point *a, const struct cs_point *b)
{
	if (a->nr_states != b->nr_states || a->evaluated != b->evaluated)
		return false;
	for (uint32_t i = 0; i < a->nr_states; i++) {
		const struct cs_state *x = &a->states[i], *y = &b->states[i];

		if (x->size != y->size || x->mask != y->mask || x->h[0] != y->h[0] ||
		    x->h[1] != y->h[1] || x->raw_states != y->raw_states ||
		    strcmp(x->sha256, y->sha256) || strcmp(x->first_msg, y->first_msg))
			return false;
	}
	return true;
}

/*
 * cs_point.sem_read names the semantics its mounts read (ext4_sem), so
 * that the crash-point memo may hand a point to semantics that differ
 * elsewhere (crash/cpmemo.c).  Here at three points (unflushed data; a
 * committed transaction not checkpointed and data behind it; the same with
 * a truncate down in the log), every field of the semantics the point did
 * not read is flipped in turn: the states stay the same, byte for byte.
 * The mount options' defaults are always read.
 */
static void test_crashstates__unread_semantics_change_nothing(void **state)
{
	struct fx_world *w = *state;
	uint8_t *sem = (uint8_t *)&w->fs.sem;

	for (int stage = 0; stage < 3; stage++) {
		struct cs_point p, q;
		unsigned flipped = 0;

		if (stage == 0) {
			write_fill(w, 0, 12288, 0x11);
			writeback_wait(w);
		} else if (stage == 1) {
			fsync_file(w);
			write_fill(w, 12288, 4096, 0x22);
			writeback_wait(w);
		} else {
			assert_int_equal(ext4_setattr_size(&w->fs, 5000), 0);
			chk_note_truncate(&w->chk, 5000);
			assert_int_equal(jbd2_journal_force_commit(&w->fs.journal), 0);
		}
		cs_enumerate(&w->fs, w->bd, &w->chk, 1, 4096, CS_DIGEST, &p);
		assert_true(p.sem_read & EXT4_SEM_BIT(dioread_nolock_default));
		for (unsigned off = 0; off < sizeof(w->fs.sem); off++) {
			if (p.sem_read & 1ull << off)
				continue;
			sem[off] = !sem[off];
			cs_enumerate(&w->fs, w->bd, &w->chk, 1, 4096, CS_DIGEST, &q);
			sem[off] = !sem[off];
			if (!same_point(&p, &q))
				fail_msg("stage %d: field %u of the semantics, not read, changed the "
					 "point", stage, off);
			cs_point_free(&q);
			flipped++;
		}
		assert_true(flipped > 0);
		cs_point_free(&p);
	}
}

#define W(fn) cmocka_unit_test_setup_teardown(fn, setup, fx_world_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		W(test_crashstates__two_blocks_four_states),
		W(test_crashstates__one_block_two_versions),
		W(test_crashstates__equal_write_folds),
		W(test_crashstates__bound_samples),
		cmocka_unit_test(test_crashstates__overlay),
		W(test_crashstates__unread_semantics_change_nothing),
		W(test_crashstates__commit_without_commit_block),
		W(test_crashstates__lost_changes_named_by_transaction),
		W(test_crashstates__images_before_recovery),
	};

	return cmocka_run_group_tests_name("crashstates", tests, NULL, NULL);
}
