/*
 * test_mballoc.c - block allocation and freeing (model/ext4/mballoc.c:
 * ext4_mb_new_blocks, ext4_free_blocks, and ext4_mb_release_freed through
 * the jbd2 commit callback) on mke2fs's 4096-block, 1 KiB file system
 * (e2fs/mke2fs.h), freshly mounted, against a reference array with one
 * state per block: metadata (every block the layout names: superblock,
 * descriptors, bitmaps, inode table, journal, directories; block 0 below
 * s_first_data_block), free, owned by the test, or freed-but-uncommitted.
 *
 * The reference predicts every allocation exactly, as mballoc.c documents
 * it: the first free block at or after the goal (a goal past the device
 * means s_first_data_block), else the first free block of the device, then
 * as many free blocks after it as asked for; -ENOSPC when nothing is free.
 * A freed block is free again at once in data=writeback and only after
 * the freeing transaction commits in data=ordered and data=journal.  After
 * every step: s_freeclusters counts free plus freed-uncommitted blocks, the
 * in-memory free map holds exactly the free blocks, and the block bitmap
 * buffer has a bit set exactly for the owned blocks and the metadata, and at
 * mount it is mke2fs's: the metadata blocks used, every other block free.
 * Targeted tests cover goals, ENOSPC, reuse before and after commit, and a
 * crash after commit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "blkdev.h"
#include "ext4.h"
#include "mke2fs.h"
#include "prng.h"

/* The default profile's semantics. */
static const struct ext4_semantics *default_sem(void)
{
	static struct ext4_semantics sem;

	ext4_profile_semantics(ext4_profile_default(), &sem);
	return &sem;
}


#define NR_BLOCKS 4096u
#define BS 1024u
#define SEEDS 20
#define STEPS 400
#define CREDITS 8

enum { B_FREE, B_OWNED, B_PENDING, B_META };     /* reference block states */

struct fixture {
	struct blkdev *bd;
	struct ext4_mount_opts o;
	struct sim_counters c;
	struct jbd2_recovery_info ri;
	struct ext4_fs fs;
	handle_t *h;                    /* open handle, or NULL */
	uint32_t seen_commit;           /* j_commit_sequence last looked at */
	uint8_t ref[NR_BLOCKS];         /* B_* for data blocks */
};

static void mount_fs(struct fixture *f)
{
	int err = ext4_fill_super(&f->fs, f->bd, &f->o, default_sem(), &f->c,
				  &f->ri);

	assert_int_equal(err, 0);
	f->seen_commit = f->fs.journal.j_commit_sequence;
}

/* Block @b's bit in its group's bitmap buffer; the boot block (below s_first_data_block) as used. */
static bool bitmap_buffer_bit(const struct ext4_fs *fs, uint32_t b)
{
	return b < fs->lay.first_data_block || ext4_bitmap_bit(fs, b);
}

static struct fixture *setup_fs(enum ext4_data_mode mode)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *why = NULL;

	assert_non_null(f);
	f->bd = mke2fs_device(NR_BLOCKS, BS, &why);
	assert_non_null(f->bd);
	f->o = (struct ext4_mount_opts){
		.block_size = BS,
		.data = mode,
		.delalloc = mode != DATA_JOURNAL,
		.dioread_nolock = mode != DATA_JOURNAL,
		.auto_da_alloc = true,
		.disk_blocks = NR_BLOCKS,
	};
	mount_fs(f);
	assert_true(f->fs.lay.data_start < f->fs.lay.nr_blocks);
	assert_int_equal(f->fs.lay.nr_blocks, NR_BLOCKS);
	/* mke2fs's image: every block of the layout's metadata in use, every other free */
	for (uint32_t b = 0; b < NR_BLOCKS; b++) {
		f->ref[b] = ext4_is_data_block(&f->fs, b) ? B_FREE : B_META;
		if (bitmap_buffer_bit(&f->fs, b) != (f->ref[b] == B_META))
			fail_msg("mke2fs's bitmap: block %u (%s) in use %d", b,
				 ext4_block_role(&f->fs.lay, b), bitmap_buffer_bit(&f->fs, b));
	}
	return f;
}

static void teardown_fs(struct fixture *f)
{
	if (f->h)
		assert_int_equal(ext4_journal_stop(&f->fs, "ext4_mb_new_blocks", f->h), 0);
	ext4_free_fs(&f->fs);
	blkdev_destroy(f->bd);
	free(f);
}

static void start_handle(struct fixture *f)
{
	if (!f->h)
		f->h = ext4_journal_start(&f->fs, "ext4_mb_new_blocks", HT_MISC, CREDITS);
	assert_non_null(f->h);
}

static void stop_handle(struct fixture *f)
{
	if (f->h)
		assert_int_equal(ext4_journal_stop(&f->fs, "ext4_mb_new_blocks", f->h), 0);
	f->h = NULL;
}

/* Commit the running transaction, if any (no handle may be open). */
static void commit(struct fixture *f)
{
	stop_handle(f);
	if (f->fs.journal.j_running_transaction)
		jbd2_journal_commit_transaction(&f->fs.journal);
}

/*
 * Any commit, asked for or done by jbd2 on its own (a full transaction),
 * releases every freed-uncommitted block: all of them are in the one
 * transaction that was running.
 */
static void note_commits(struct fixture *f)
{
	if (f->fs.journal.j_commit_sequence == f->seen_commit)
		return;
	f->seen_commit = f->fs.journal.j_commit_sequence;
	for (uint32_t b = 0; b < NR_BLOCKS; b++)
		if (f->ref[b] == B_PENDING)
			f->ref[b] = B_FREE;
}

static bool ref_first_free(const struct fixture *f, uint32_t from, uint32_t *out)
{
	for (uint32_t b = from; b < NR_BLOCKS; b++) {
		if (f->ref[b] == B_FREE) {
			*out = b;
			return true;
		}
	}
	return false;
}

static uint32_t count_state(const struct fixture *f, uint8_t state)
{
	uint32_t n = 0;

	for (uint32_t b = f->fs.lay.data_start; b < NR_BLOCKS; b++)
		n += f->ref[b] == state;
	return n;
}

static void check_state(struct fixture *f, uint64_t seed, int step)
{
	uint64_t want_free;

	note_commits(f);
	want_free = (uint64_t)count_state(f, B_FREE) + count_state(f, B_PENDING);
	if (f->fs.s_freeclusters != want_free)
		fail_msg("seed=%llu step=%d: s_freeclusters %llu, want %llu",
			 (unsigned long long)seed, step,
			 (unsigned long long)f->fs.s_freeclusters, (unsigned long long)want_free);
	for (uint32_t b = 0; b < NR_BLOCKS; b++) {
		bool allocatable = bitmap_contains(f->fs.free_map, b);

		if (allocatable != (f->ref[b] == B_FREE))
			fail_msg("seed=%llu step=%d: block %u allocatable=%d, reference state %u",
				 (unsigned long long)seed, step, b, allocatable, f->ref[b]);
		if (bitmap_buffer_bit(&f->fs, b) != (f->ref[b] == B_OWNED || f->ref[b] == B_META))
			fail_msg("seed=%llu step=%d: bitmap buffer bit %u = %d, reference state %u",
				 (unsigned long long)seed, step, b, bitmap_buffer_bit(&f->fs, b),
				 f->ref[b]);
	}
}

/* Allocate and compare with the reference's prediction. */
static void alloc_expect(struct fixture *f, uint32_t goal, uint32_t len, uint64_t seed,
			 int step)
{
	uint32_t from = goal >= f->fs.lay.data_start && goal < NR_BLOCKS ? goal
									  : f->fs.lay.data_start;
	uint32_t want = 0, want_got = 0, pblk = 0, got = 0;
	bool any = ref_first_free(f, from, &want) ||
		   ref_first_free(f, f->fs.lay.data_start, &want);
	int err;

	start_handle(f);
	err = ext4_mb_new_blocks(&f->fs, f->h, goal, len, true, &pblk, &got);
	if (!any) {
		if (err != -ENOSPC)
			fail_msg("seed=%llu step=%d: alloc(goal %u, len %u) = %d, want -ENOSPC",
				 (unsigned long long)seed, step, goal, len, err);
		return;
	}
	while (want_got < len && want + want_got < NR_BLOCKS &&
	       f->ref[want + want_got] == B_FREE)
		want_got++;
	if (err != 0 || pblk != want || got != want_got)
		fail_msg("seed=%llu step=%d: alloc(goal %u, len %u) = %d: %u+%u, want %u+%u",
			 (unsigned long long)seed, step, goal, len, err, pblk, got, want,
			 want_got);
	for (uint32_t b = pblk; b < pblk + got; b++)
		f->ref[b] = B_OWNED;
}

static void free_blocks(struct fixture *f, uint32_t pblk, uint32_t len)
{
	start_handle(f);
	ext4_free_blocks(&f->fs, f->h, pblk, len);
	for (uint32_t b = pblk; b < pblk + len; b++)
		f->ref[b] = f->o.data == DATA_WRITEBACK ? B_FREE : B_PENDING;
}

/* A block in @state, picked at random, or false. */
static bool pick_block(struct prng *p, const struct fixture *f, uint8_t state, uint32_t *out)
{
	uint32_t n = count_state(f, state), k;

	if (n == 0)
		return false;
	k = (uint32_t)prng_below(p, n);
	for (uint32_t b = f->fs.lay.data_start; b < NR_BLOCKS; b++) {
		if (f->ref[b] == state && k-- == 0) {
			*out = b;
			return true;
		}
	}
	return false;
}

static uint32_t pick_goal(struct prng *p, const struct fixture *f)
{
	static const uint32_t outside[] = { 0, 1, UINT32_MAX, NR_BLOCKS };
	uint32_t ds = f->fs.lay.data_start, b;

	switch (prng_below(p, 10)) {
	case 0:
		if (prng_below(p, 2) && pick_block(p, f, B_META, &b))
			return b;               /* a metadata block: the next free after it */
		return outside[prng_below(p, 4)];
	case 1:
	case 2:
		if (pick_block(p, f, B_PENDING, &b))
			return b;               /* must not be handed out yet */
		/* fall through */
	case 3:
	case 4:
	case 5:
		if (pick_block(p, f, B_FREE, &b))
			return b;               /* must be honoured */
		/* fall through */
	default:
		return ds + (uint32_t)prng_below(p, NR_BLOCKS - ds);
	}
}

static void run_seed(enum ext4_data_mode mode, uint64_t seed)
{
	struct fixture *f = setup_fs(mode);
	bool fill = seed % 2 == 0;      /* even seeds start nearly full */
	struct prng p;

	prng_seed(&p, seed);
	check_state(f, seed, -1);
	while (fill && count_state(f, B_FREE) > 100)
		alloc_expect(f, f->fs.lay.data_start + 7, 500, seed, -1);
	for (int step = 0; step < STEPS; step++) {
		uint64_t op = prng_below(&p, 100);
		uint32_t b;

		if (op < (fill ? 60 : 45)) {
			uint32_t len = 1 + (uint32_t)prng_below(&p, prng_below(&p, 4) ? 8 :
								 fill ? 200 : 64);

			alloc_expect(f, pick_goal(&p, f), len, seed, step);
		} else if (op < 75) {
			if (pick_block(&p, f, B_OWNED, &b)) {
				uint32_t len = 1, max = 1 + (uint32_t)prng_below(&p, 40);

				while (len < max && b + len < NR_BLOCKS && f->ref[b + len] == B_OWNED)
					len++;
				free_blocks(f, b, len);
			}
		} else if (op < 85) {
			stop_handle(f);
		} else if (op < 92) {
			start_handle(f);
		} else {
			commit(f);
		}
		check_state(f, seed, step);
	}
	commit(f);
	check_state(f, seed, STEPS);
	if (count_state(f, B_PENDING) != 0)
		fail_msg("seed=%llu: freed blocks still pending after the final commit",
			 (unsigned long long)seed);
	ext4_check_state(&f->fs);
	teardown_fs(f);
}

static void test_mballoc__random_ordered(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		run_seed(DATA_ORDERED, seed);
}

static void test_mballoc__random_writeback(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		run_seed(DATA_WRITEBACK, seed);
}

static void test_mballoc__random_journal(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		run_seed(DATA_JOURNAL, seed);
}

/* --- targeted tests --- */

static uint32_t alloc_one(struct fixture *f, uint32_t goal)
{
	uint32_t pblk = 0, got = 0;

	start_handle(f);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, goal, 1, true, &pblk, &got), 0);
	assert_int_equal(got, 1);
	f->ref[pblk] = B_OWNED;
	return pblk;
}

/* The reference's first free block at or after @from (it must exist). */
static uint32_t ref_free_from(const struct fixture *f, uint32_t from)
{
	uint32_t b = 0;

	assert_true(ref_first_free(f, from, &b));
	return b;
}

/* The start of the first run of @len free blocks after a metadata block. */
static uint32_t ref_free_run(const struct fixture *f, uint32_t len)
{
	for (uint32_t b = f->fs.lay.first_data_block; b + len <= NR_BLOCKS; b++) {
		uint32_t n = 0;

		while (n < len && f->ref[b + n] == B_FREE)
			n++;
		if (n == len && f->ref[b - 1] == B_META)
			return b;
	}
	fail_msg("no run of %u free blocks", len);
	return 0;
}

/*
 * A free goal is honoured; a goal in metadata gives the next free block; a
 * goal below s_first_data_block or past the device means the first free.
 */
static void test_mballoc__goal(void **state)
{
	struct fixture *f = setup_fs(DATA_ORDERED);
	uint32_t r = ref_free_run(f, 600), last = NR_BLOCKS - 1;

	(void)state;
	assert_int_equal(alloc_one(f, r + 500), r + 500);
	assert_int_equal(alloc_one(f, r + 500), r + 501);       /* next at or after */
	assert_int_equal(f->ref[r - 1], B_META);
	assert_int_equal(alloc_one(f, r - 1), r);               /* in metadata: the next free */
	assert_int_equal(alloc_one(f, 0), ref_free_from(f, 0));
	assert_int_equal(alloc_one(f, NR_BLOCKS), ref_free_from(f, 0));
	assert_int_equal(alloc_one(f, UINT32_MAX), ref_free_from(f, 0));
	while (f->ref[last] != B_FREE)
		last--;
	assert_int_equal(alloc_one(f, last), last);
	/* past the last free block: wrap to the first free block of the device */
	assert_int_equal(alloc_one(f, last), ref_free_from(f, 0));
	teardown_fs(f);
}

/* A multi-block request stops at the first used block: got < len. */
static void test_mballoc__short_run(void **state)
{
	struct fixture *f = setup_fs(DATA_ORDERED);
	uint32_t ds = ref_free_run(f, 120), pblk = 0, got = 0;

	(void)state;
	assert_int_equal(alloc_one(f, ds + 10), ds + 10);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds + 4, 100, true, &pblk, &got), 0);
	assert_int_equal(pblk, ds + 4);
	assert_int_equal(got, 6);
	/* and the end of the device */
	assert_int_equal(f->ref[NR_BLOCKS - 3], B_FREE);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, NR_BLOCKS - 3, 100, true, &pblk, &got), 0);
	assert_int_equal(pblk, NR_BLOCKS - 3);
	assert_int_equal(got, 3);
	teardown_fs(f);
}

/* Fill the data area: -ENOSPC, and s_freeclusters reaches 0. */
static void check_enospc(enum ext4_data_mode mode)
{
	struct fixture *f = setup_fs(mode);
	uint32_t ds = f->fs.lay.data_start, total = 0, pblk = 0, got = 0;
	uint32_t nfree = count_state(f, B_FREE), r = ref_free_run(f, 110);

	start_handle(f);
	assert_int_equal(f->fs.s_freeclusters, nfree);
	while (ext4_mb_new_blocks(&f->fs, f->h, ds, 1000, true, &pblk, &got) == 0) {
		for (uint32_t b = pblk; b < pblk + got; b++) {
			assert_int_equal(f->ref[b], B_FREE);    /* no metadata handed out */
			f->ref[b] = B_OWNED;
		}
		total += got;
		assert_true(total <= nfree);
	}
	assert_int_equal(total, nfree);
	assert_int_equal(f->fs.s_freeclusters, 0);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 1, true, &pblk, &got), -ENOSPC);

	ext4_free_blocks(&f->fs, f->h, r + 100, 10);
	assert_int_equal(f->fs.s_freeclusters, 10);
	if (mode == DATA_WRITEBACK) {
		assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 50, true, &pblk, &got), 0);
	} else {
		/* ordered: still full until the freeing transaction commits */
		assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 50, true, &pblk, &got),
				 -ENOSPC);
		commit(f);
		start_handle(f);
		assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 50, true, &pblk, &got), 0);
	}
	assert_int_equal(pblk, r + 100);
	assert_int_equal(got, 10);
	assert_int_equal(f->fs.s_freeclusters, 0);
	teardown_fs(f);
}

/*
 * inject enospc --after N: N blocks allocate (a request crossing the limit
 * is trimmed to it), the next request fails once with ENOSPC, the one after
 * succeeds; the fault is gone at the next mount.
 */
static void test_mballoc__fault_enospc_after(void **state)
{
	struct fixture *f = setup_fs(DATA_ORDERED);
	uint32_t ds = f->fs.lay.data_start, pblk = 0, got = 0;
	uint64_t free0 = f->fs.s_freeclusters;

	(void)state;
	start_handle(f);
	ext4_fault_inject(&f->fs, EXT4_FAULT_ENOSPC, 5);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 3, true, &pblk, &got), 0);
	assert_int_equal(got, 3);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 8, true, &pblk, &got), 0);
	assert_int_equal(got, 2);                      /* trimmed to the limit */
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 8, true, &pblk, &got), -ENOSPC);
	assert_true(f->fs.s_fault_fired);
	assert_false(f->fs.s_fault_enospc);
	assert_int_equal(f->fs.s_freeclusters, free0 - 5);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 8, true, &pblk, &got), 0);
	assert_int_equal(got, 8);                      /* once only */
	ext4_fault_inject(&f->fs, EXT4_FAULT_ENOSPC, 0);
	ext4_fault_inject(&f->fs, EXT4_FAULT_NONDA, 0);
	assert_true(ext4_nonda_switch(&f->fs));
	commit(f);
	ext4_free_fs(&f->fs);
	mount_fs(f);
	assert_false(f->fs.s_fault_enospc || f->fs.s_fault_nonda || f->fs.s_fault_fired);
	assert_false(ext4_nonda_switch(&f->fs));
	start_handle(f);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 1, true, &pblk, &got), 0);
	teardown_fs(f);
}

static void test_mballoc__enospc_ordered(void **state)
{
	(void)state;
	check_enospc(DATA_ORDERED);
}

static void test_mballoc__enospc_writeback(void **state)
{
	(void)state;
	check_enospc(DATA_WRITEBACK);
}

/* Reuse of a freed block: after commit (ordered, journal), at once (writeback). */
static void check_reuse(enum ext4_data_mode mode)
{
	struct fixture *f = setup_fs(mode);
	uint32_t x = ref_free_run(f, 80) + 77;

	assert_int_equal(alloc_one(f, x), x);
	commit(f);                              /* the allocation is on disk */
	start_handle(f);
	ext4_free_blocks(&f->fs, f->h, x, 1);
	assert_false(bitmap_buffer_bit(&f->fs, x));
	if (mode == DATA_WRITEBACK) {
		assert_int_equal(alloc_one(f, x), x);
	} else {
		assert_int_equal(alloc_one(f, x), x + 1);
		stop_handle(f);
		/* a later handle in the same transaction: still not reusable */
		assert_int_equal(alloc_one(f, x), x + 2);
		commit(f);
		assert_int_equal(alloc_one(f, x), x);
	}
	teardown_fs(f);
}

static void test_mballoc__reuse_ordered_after_commit(void **state)
{
	(void)state;
	check_reuse(DATA_ORDERED);
}

static void test_mballoc__reuse_journal_after_commit(void **state)
{
	(void)state;
	check_reuse(DATA_JOURNAL);
}

static void test_mballoc__reuse_writeback_at_once(void **state)
{
	(void)state;
	check_reuse(DATA_WRITEBACK);
}

/*
 * The committed bitmap survives a crash: remount after recovery rebuilds a
 * free map with exactly the blocks the committed transactions left free.
 */
static void test_mballoc__committed_bitmap_survives_crash(void **state)
{
	struct fixture *f = setup_fs(DATA_ORDERED);
	uint32_t ds = ref_free_run(f, 110), pblk = 0, got = 0;
	uint64_t free0 = f->fs.s_freeclusters;

	(void)state;
	start_handle(f);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds + 10, 20, true, &pblk, &got), 0);
	assert_int_equal(got, 20);
	ext4_free_blocks(&f->fs, f->h, ds + 15, 5);
	commit(f);
	/* uncommitted: lost in the crash */
	start_handle(f);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds + 100, 5, true, &pblk, &got), 0);
	stop_handle(f);
	ext4_free_fs(&f->fs);
	blkdev_crash(f->bd);
	mount_fs(f);
	for (uint32_t b = 0; b < NR_BLOCKS; b++) {
		bool used = (b >= ds + 10 && b < ds + 15) || (b >= ds + 20 && b < ds + 30) ||
			    f->ref[b] == B_META;

		if (bitmap_contains(f->fs.free_map, b) == used)
			fail_msg("block %u: allocatable=%d after remount, want %d", b,
				 bitmap_contains(f->fs.free_map, b), !used);
	}
	assert_int_equal(f->fs.s_freeclusters, free0 - 15);
	teardown_fs(f);
}

/*
 * An allocation for blocks that hold no reservation (the nodelalloc write
 * path, ext4_claim_free_clusters) leaves the delalloc reservations and the
 * reserved pool (min(2%, 4096) blocks) untouched: it is trimmed to what
 * remains, then refused with -ENOSPC.
 */
static void test_mballoc__unreserved_respects_reservations(void **state)
{
	struct fixture *f = setup_fs(DATA_ORDERED);
	uint32_t ds = f->fs.lay.data_start, pblk = 0, got = 0;
	uint64_t resv = NR_BLOCKS / 50, free0 = f->fs.s_freeclusters, total = 0;

	(void)state;
	for (int i = 0; i < 100; i++)
		assert_int_equal(ext4_da_reserve_space(&f->fs), 0);
	start_handle(f);
	/* one run a call: mke2fs's tables and journal may split free space */
	while (f->fs.s_freeclusters > 100 + resv) {
		assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, NR_BLOCKS, false, &pblk,
						    &got), 0);
		total += got;
	}
	assert_int_equal(total, free0 - 100 - resv);
	assert_int_equal(f->fs.s_freeclusters, 100 + resv);
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 1, false, &pblk, &got), -ENOSPC);
	/* the reserved blocks are still there for the delayed allocations */
	assert_int_equal(ext4_mb_new_blocks(&f->fs, f->h, ds, 100, true, &pblk, &got), 0);
	assert_int_equal(got, 100);
	ext4_da_release_space(&f->fs, 100);
	stop_handle(f);
	teardown_fs(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mballoc__random_ordered),
		cmocka_unit_test(test_mballoc__random_writeback),
		cmocka_unit_test(test_mballoc__random_journal),
		cmocka_unit_test(test_mballoc__goal),
		cmocka_unit_test(test_mballoc__short_run),
		cmocka_unit_test(test_mballoc__fault_enospc_after),
		cmocka_unit_test(test_mballoc__enospc_ordered),
		cmocka_unit_test(test_mballoc__enospc_writeback),
		cmocka_unit_test(test_mballoc__reuse_ordered_after_commit),
		cmocka_unit_test(test_mballoc__reuse_journal_after_commit),
		cmocka_unit_test(test_mballoc__reuse_writeback_at_once),
		cmocka_unit_test(test_mballoc__committed_bitmap_survives_crash),
		cmocka_unit_test(test_mballoc__unreserved_respects_reservations),
	};

	return cmocka_run_group_tests_name("mballoc", tests, NULL, NULL);
}
