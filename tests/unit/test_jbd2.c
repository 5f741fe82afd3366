/*
 * test_jbd2.c - unit tests for the journal (model/jbd2_*.c), without ext4.
 *
 * A fake file system ("fx") owns an in-memory copy of every block (its
 * buffers) and hands it to the journal through struct jbd2_fs_ops.  The
 * journal lives on a 1 KiB-block device at blocks J_START.., home blocks are
 * META_FIRST.. (metadata) and DATA_FIRST.. (journaled data, lblk = blocknr -
 * DATA_FIRST).
 *
 * The reference ("ref") is deliberately naive: a list of committed
 * transactions, each the final contents of every block it carried (or a
 * revoke of the block), replayed in order onto the home contents at mkfs.
 * After a crash and recovery every block outside the journal must equal that
 * replay, except a block whose last committed operation is a revoke: its
 * older journaled copies are dead, so recovery must leave it as it was on
 * the device at the crash.  Uncommitted changes never appear in the replay.
 *
 * Seeded tests print "seed N (phase)" in their failure messages.
 *
 * Two tests are regression tests for model bugs they found (see their
 * comments): test_jbd2__revoke_then_redirty_same_transaction_is_replayed and
 * test_jbd2__forget_in_running_then_checkpoint_keeps_committed_copy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkdev.h"
#include "crc32c.h"
#include "jbd2.h"
#include "jbd2_disk.h"
#include "prng.h"
#include "sim.h"

#define BS 1024u
#define NR_BLOCKS 1024u
#define J_START 16u
#define J_LEN 256u
#define J_LEN_SMALL 64u
#define META_FIRST 1u
#define META_NR 15u
#define DATA_FIRST 512u
#define DATA_NR 64u
#define NR_HOME (META_NR + DATA_NR)
#define NR_SEEDS 50u
#define MAX_CREDITS 8u

/* ------------------------------------------------------------------ */
/* seeded failure messages                                             */

static uint32_t g_seed;
/* features every mount sets (as ext4_fill_super does), 0: none */
static uint32_t g_incompat;
/* the journal inode's extents; NULL: one extent at J_START */
static const struct jbd2_extent *g_map;
static uint32_t g_nr_map;
/* the file system's UUID, the journal superblock's s_uuid */
static const uint8_t fx_uuid[16] = {
	0x0b, 0x7d, 0x3c, 0x2e, 0x1f, 0x2a, 0x4b, 0x5c,
	0x8d, 0x9e, 0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f,
};
static const char *g_phase = "";

#define CHECK(cond, fmt, ...)                                                 \
	do {                                                                  \
		if (!(cond))                                                  \
			fail_msg("seed %u (%s): " fmt, g_seed, g_phase,       \
				 __VA_ARGS__);                                \
	} while (0)

/* ------------------------------------------------------------------ */
/* the naive reference                                                 */

enum { RS_NONE, RS_DIRTY, RS_REVOKED };

struct ref_entry {
	uint32_t blocknr;
	bool revoke;
	uint8_t *data;          /* final contents, NULL for a revoke */
};

struct ref_tx {
	uint32_t tid;
	uint32_t n;
	struct ref_entry *e;
};

struct ref {
	struct ref_tx *tx;      /* committed, in commit order */
	uint32_t nr;
	uint32_t cap;
	uint8_t running[NR_BLOCKS];     /* RS_* in the running transaction */
};

/* ------------------------------------------------------------------ */
/* the fake file system                                                */

struct freed_rec {
	uint32_t tid;
	uint32_t start;
	uint32_t len;
};

struct fx {
	struct blkdev *bd;
	journal_t j;
	struct sim_counters ctr;
	uint32_t jlen;
	bool live;              /* journal initialised (destroy in teardown) */
	uint8_t *mem;           /* the fs's buffers, NR_BLOCKS * BS */
	uint8_t *initial;       /* contents at mkfs */
	uint8_t *pre;           /* device contents just before the last crash */
	uint8_t *exp;           /* expected contents (scratch) */
	int64_t *exp_src;       /* where exp came from: tid, -1 mkfs, -2 pre-crash */
	struct ref ref;
	/* what the callbacks saw */
	struct freed_rec *freed;
	uint32_t nr_freed;
	uint32_t cap_freed;
	uint32_t nr_callbacks;
	uint32_t last_callback_tid;
	uint32_t bad_lblk;
	uint32_t nr_get_block;
	uint32_t nr_buffer_committed;
	uint32_t nr_submit_data;
	uint32_t nr_finish_data;
	/* log statistics for the wrap tests */
	uint32_t wraps;
	uint32_t explicit_checkpoints;
};

static uint8_t *blk(uint8_t *img, uint32_t b)
{
	return img + (size_t)b * BS;
}

static uint32_t home_block(uint32_t i)
{
	return i < META_NR ? META_FIRST + i : DATA_FIRST + (i - META_NR);
}

static bool is_data_block(uint32_t b)
{
	return b >= DATA_FIRST && b < DATA_FIRST + DATA_NR;
}

static void fx_submit_inode_data(void *fs, uint32_t ino, int64_t start, int64_t end)
{
	struct fx *f = fs;

	(void)ino;
	(void)start;
	(void)end;
	f->nr_submit_data++;
}

static void fx_finish_inode_data(void *fs, uint32_t ino, int64_t start, int64_t end)
{
	struct fx *f = fs;

	(void)ino;
	(void)start;
	(void)end;
	f->nr_finish_data++;
}

static void fx_get_block(void *fs, const struct jbd2_buf *b, uint8_t *out)
{
	struct fx *f = fs;

	if (b->jb_lblk >= 0 && (int64_t)b->jb_blocknr != (int64_t)DATA_FIRST + b->jb_lblk)
		f->bad_lblk++;
	if (b->jb_blocknr >= NR_BLOCKS) {
		f->bad_lblk++;
		memset(out, 0, BS);
		return;
	}
	memcpy(out, blk(f->mem, b->jb_blocknr), BS);
	f->nr_get_block++;
}

static void fx_commit_callback(void *fs, transaction_t *t)
{
	struct fx *f = fs;

	f->nr_callbacks++;
	f->last_callback_tid = t->t_tid;
	for (uint32_t i = 0; i < t->t_nr_freed; i++) {
		if (f->nr_freed == f->cap_freed) {
			f->cap_freed = f->cap_freed ? 2 * f->cap_freed : 16;
			f->freed = realloc(f->freed, f->cap_freed * sizeof(*f->freed));
			assert_non_null(f->freed);
		}
		f->freed[f->nr_freed].tid = t->t_tid;
		f->freed[f->nr_freed].start = t->t_freed[i].start;
		f->freed[f->nr_freed].len = t->t_freed[i].len;
		f->nr_freed++;
	}
}

static void fx_buffer_committed(void *fs, const struct jbd2_buf *b)
{
	struct fx *f = fs;

	(void)b;
	f->nr_buffer_committed++;
}

static const struct jbd2_fs_ops fx_ops = {
	.submit_inode_data = fx_submit_inode_data,
	.finish_inode_data = fx_finish_inode_data,
	.get_block = fx_get_block,
	.commit_callback = fx_commit_callback,
	.buffer_committed = fx_buffer_committed,
};

/* ---- reference operations ---- */

static void ref_clear_running(struct ref *ref)
{
	memset(ref->running, RS_NONE, sizeof(ref->running));
}

/* The running transaction committed as @tid: its blocks as they are now. */
static void ref_commit(struct fx *f, uint32_t tid)
{
	struct ref *ref = &f->ref;
	struct ref_tx *tx;
	uint32_t n = 0;

	if (ref->nr == ref->cap) {
		ref->cap = ref->cap ? 2 * ref->cap : 64;
		ref->tx = realloc(ref->tx, ref->cap * sizeof(*ref->tx));
		assert_non_null(ref->tx);
	}
	tx = &ref->tx[ref->nr++];
	tx->tid = tid;
	for (uint32_t b = 0; b < NR_BLOCKS; b++)
		n += ref->running[b] != RS_NONE;
	tx->n = n;
	tx->e = calloc(n ? n : 1, sizeof(*tx->e));
	assert_non_null(tx->e);
	n = 0;
	for (uint32_t b = 0; b < NR_BLOCKS; b++) {
		if (ref->running[b] == RS_NONE)
			continue;
		tx->e[n].blocknr = b;
		tx->e[n].revoke = ref->running[b] == RS_REVOKED;
		if (!tx->e[n].revoke) {
			tx->e[n].data = malloc(BS);
			assert_non_null(tx->e[n].data);
			memcpy(tx->e[n].data, blk(f->mem, b), BS);
		}
		n++;
	}
	ref_clear_running(ref);
}

/* Forget committed transactions from @tid on (their commit block is lost). */
static void ref_drop_from(struct fx *f, uint32_t tid)
{
	struct ref *ref = &f->ref;

	while (ref->nr > 0 && (int32_t)(ref->tx[ref->nr - 1].tid - tid) >= 0) {
		struct ref_tx *tx = &ref->tx[--ref->nr];

		for (uint32_t i = 0; i < tx->n; i++)
			free(tx->e[i].data);
		free(tx->e);
	}
}

static void ref_free(struct ref *ref)
{
	for (uint32_t t = 0; t < ref->nr; t++) {
		for (uint32_t i = 0; i < ref->tx[t].n; i++)
			free(ref->tx[t].e[i].data);
		free(ref->tx[t].e);
	}
	free(ref->tx);
	memset(ref, 0, sizeof(*ref));
}

/* exp = mkfs contents + every committed transaction, in order. */
static void ref_expected(struct fx *f)
{
	static bool revoked[NR_BLOCKS];

	memcpy(f->exp, f->initial, (size_t)NR_BLOCKS * BS);
	memset(revoked, 0, sizeof(revoked));
	for (uint32_t b = 0; b < NR_BLOCKS; b++)
		f->exp_src[b] = -1;
	for (uint32_t t = 0; t < f->ref.nr; t++) {
		const struct ref_tx *tx = &f->ref.tx[t];

		for (uint32_t i = 0; i < tx->n; i++) {
			uint32_t b = tx->e[i].blocknr;

			revoked[b] = tx->e[i].revoke;
			if (!tx->e[i].revoke)
				memcpy(blk(f->exp, b), tx->e[i].data, BS);
			f->exp_src[b] = tx->tid;
		}
	}
	for (uint32_t b = 0; b < NR_BLOCKS; b++) {
		if (!revoked[b])
			continue;
		memcpy(blk(f->exp, b), blk(f->pre, b), BS);
		f->exp_src[b] = -2;
	}
}

/* ---- fixture ---- */

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->mem = calloc(NR_BLOCKS, BS);
	f->initial = calloc(NR_BLOCKS, BS);
	f->pre = calloc(NR_BLOCKS, BS);
	f->exp = calloc(NR_BLOCKS, BS);
	f->exp_src = calloc(NR_BLOCKS, sizeof(*f->exp_src));
	if (!f->mem || !f->initial || !f->pre || !f->exp || !f->exp_src)
		return -1;
	*state = f;
	g_seed = 0;
	g_phase = "";
	return 0;
}

/* Tear the journal and device down (end of a seed, or of a test). */
static void fx_unformat(struct fx *f)
{
	if (f->live)
		jbd2_journal_destroy(&f->j);
	f->live = false;
	blkdev_destroy(f->bd);
	f->bd = NULL;
	ref_free(&f->ref);
	free(f->freed);
	f->freed = NULL;
	f->nr_freed = f->cap_freed = 0;
	f->nr_callbacks = f->last_callback_tid = 0;
	f->bad_lblk = f->nr_get_block = f->nr_buffer_committed = 0;
	f->nr_submit_data = f->nr_finish_data = 0;
	f->wraps = f->explicit_checkpoints = 0;
	memset(&f->ctr, 0, sizeof(f->ctr));
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	fx_unformat(f);
	g_incompat = 0;
	g_map = NULL;
	g_nr_map = 0;
	free(f->mem);
	free(f->initial);
	free(f->pre);
	free(f->exp);
	free(f->exp_src);
	free(f);
	return 0;
}

/* jbd2_journal_init_inode() over g_map, or one extent at J_START. */
static void fx_init_journal(struct fx *f)
{
	struct jbd2_extent one = { 0, J_START, f->jlen };

	assert_int_equal(jbd2_journal_init(&f->j, f->bd, g_map ? g_map : &one,
					   g_map ? g_nr_map : 1, f, &fx_ops, &f->ctr), 0);
}

/* After a successful load: the features ext4's mount asks for. */
static void fx_set_features(struct fx *f)
{
	if (g_incompat)
		assert_int_equal(jbd2_journal_set_features(&f->j, 0, 0, g_incompat), 1);
}

static void reload_mem(struct fx *f)
{
	for (uint32_t b = 0; b < NR_BLOCKS; b++)
		blkdev_read(f->bd, b, blk(f->mem, b));
}

/* mkfs: home blocks get a pattern (block 7 looks like a log block), an empty
 * journal of @jlen blocks, then mount. */
static void fx_format(struct fx *f, uint32_t jlen)
{
	struct jbd2_recovery_info info;

	f->jlen = jlen;
	f->bd = blkdev_create(NR_BLOCKS, BS);
	memset(f->initial, BLKDEV_SENTINEL, (size_t)NR_BLOCKS * BS);
	for (uint32_t i = 0; i < NR_HOME; i++) {
		uint32_t b = home_block(i);
		uint8_t *p = blk(f->initial, b);

		for (uint32_t k = 0; k < BS; k++)
			p[k] = (uint8_t)(b * 7u + k * 13u + 1u);
		if (b == 7) {
			put_be32(p, JBD2_MAGIC_NUMBER);
			put_be32(p + 4, JBD2_COMMIT_BLOCK);
			put_be32(p + 8, 1);
		}
		blkdev_write_durable(f->bd, b, p);
	}
	memcpy(f->mem, f->initial, (size_t)NR_BLOCKS * BS);
	ref_clear_running(&f->ref);
	fx_init_journal(f);
	f->live = true;
	jbd2_journal_create(&f->j, fx_uuid);
	assert_int_equal(jbd2_journal_load(&f->j, &info), 0);
	assert_int_equal(info.nr_replayed, 0);
	fx_set_features(f);
}

static void snapshot_pre(struct fx *f)
{
	for (uint32_t b = 0; b < NR_BLOCKS; b++)
		blkdev_read(f->bd, b, blk(f->pre, b));
}

/* Power cut, memory lost, mount again (which recovers). */
static void fx_crash(struct fx *f, struct jbd2_recovery_info *info)
{
	snapshot_pre(f);
	blkdev_crash(f->bd);
	jbd2_journal_destroy(&f->j);
	ref_clear_running(&f->ref);
	fx_init_journal(f);
	CHECK(jbd2_journal_load(&f->j, info) == 0, "%s", "jbd2_journal_load failed");
	fx_set_features(f);
	reload_mem(f);
}

/* Every block outside the journal equals the reference replay. */
static void fx_verify(struct fx *f)
{
	uint8_t buf[BS];

	ref_expected(f);
	for (uint32_t b = 0; b < NR_BLOCKS; b++) {
		if (b >= J_START && b < J_START + f->jlen)
			continue;
		blkdev_read(f->bd, b, buf);
		if (memcmp(buf, blk(f->exp, b), BS) == 0)
			continue;
		for (uint32_t k = 0; k < BS; k++) {
			char src[48];

			if (buf[k] == blk(f->exp, b)[k])
				continue;
			if (f->exp_src[b] == -1)
				snprintf(src, sizeof(src), "mkfs contents");
			else if (f->exp_src[b] == -2)
				snprintf(src, sizeof(src), "revoked: contents at crash");
			else
				snprintf(src, sizeof(src), "committed in tid %lld",
					 (long long)f->exp_src[b]);
			CHECK(false, "block %u byte %u: got 0x%02x, expected 0x%02x (%s)",
			      b, k, buf[k], blk(f->exp, b)[k], src);
		}
	}
	CHECK(f->bad_lblk == 0, "get_block saw %u bad jb_lblk values", f->bad_lblk);
}

/*
 * Crash, recover and compare; recovery must end right after the last commit,
 * or, for a log the superblock calls empty (s_start 0: no scan, as
 * jbd2_journal_recover), the next tid must be the one after it.
 */
static void fx_crash_verify(struct fx *f, struct jbd2_recovery_info *info)
{
	uint32_t last = f->j.j_commit_sequence;

	fx_crash(f, info);
	CHECK(info->end_transaction == last + 1 ||
	      (info->end_transaction == 0 && f->j.j_transaction_sequence == last + 1),
	      "recovery ended at tid %u (next tid %u), last committed tid was %u",
	      info->end_transaction, f->j.j_transaction_sequence, last);
	fx_verify(f);
}

/* ---- handle helpers that keep the reference in step ---- */

static void note_wrap(struct fx *f, uint32_t head_before)
{
	if (f->j.j_head < head_before)
		f->wraps++;
}

/* Any commit that happened inside a call is a commit of the ref's running tx. */
static void note_commits(struct fx *f, uint64_t commits_before)
{
	uint64_t d = f->ctr.commits - commits_before;

	CHECK(d <= 1, "%llu commits in one call", (unsigned long long)d);
	if (d == 1)
		ref_commit(f, f->j.j_commit_sequence);
}

static handle_t *fx_start(struct fx *f, uint32_t credits)
{
	uint64_t c = f->ctr.commits;
	uint32_t head = f->j.j_head;
	handle_t *h = jbd2_journal_start(&f->j, credits, 1);

	note_commits(f, c);
	note_wrap(f, head);
	return h;
}

static void fx_stop(struct fx *f, handle_t *h)
{
	uint64_t c = f->ctr.commits;
	uint32_t head = f->j.j_head;

	jbd2_journal_stop(h);
	note_commits(f, c);
	note_wrap(f, head);
}

static void fx_commit(struct fx *f)
{
	uint64_t c = f->ctr.commits;
	uint32_t head = f->j.j_head;

	jbd2_journal_commit_transaction(&f->j);
	CHECK(f->ctr.commits == c + 1, "%s", "commit not counted");
	note_commits(f, c);
	note_wrap(f, head);
}

static void fx_checkpoint(struct fx *f)
{
	uint64_t c = f->ctr.checkpoints;

	jbd2_log_do_checkpoint(&f->j);
	f->explicit_checkpoints++;
	CHECK(f->ctr.checkpoints == c + 1, "%s", "checkpoint not counted");
}

/* Set a block's buffer to a fixed byte pattern. */
static void fx_set(struct fx *f, uint32_t b, uint8_t v)
{
	memset(blk(f->mem, b), v, BS);
}

/* The buffer changes under @h and joins the running transaction. */
static void fx_dirty(struct fx *f, handle_t *h, uint32_t b)
{
	if (is_data_block(b))
		jbd2_journal_dirty_data(h, b, 12, (int64_t)(b - DATA_FIRST));
	else
		jbd2_journal_dirty_metadata(h, b);
	f->ref.running[b] = RS_DIRTY;
}

static void fx_revoke(struct fx *f, handle_t *h, uint32_t b)
{
	jbd2_journal_revoke(h, b);
	f->ref.running[b] = RS_REVOKED;
}

/* One handle dirtying @n blocks with the given patterns, then a commit. */
static void fx_tx(struct fx *f, const uint32_t *blocks, const uint8_t *vals, uint32_t n)
{
	handle_t *h = fx_start(f, n ? n : 1);

	for (uint32_t i = 0; i < n; i++) {
		fx_set(f, blocks[i], vals[i]);
		fx_dirty(f, h, blocks[i]);
	}
	fx_stop(f, h);
	fx_commit(f);
}

static void read_dev(struct fx *f, uint32_t b, uint8_t *out)
{
	blkdev_read(f->bd, b, out);
}

static bool dev_is(struct fx *f, uint32_t b, const uint8_t *want)
{
	uint8_t buf[BS];

	read_dev(f, b, buf);
	return memcmp(buf, want, BS) == 0;
}

static bool dev_is_fill(struct fx *f, uint32_t b, uint8_t v)
{
	uint8_t want[BS];

	memset(want, v, BS);
	return dev_is(f, b, want);
}

/* ------------------------------------------------------------------ */
/* random driver                                                       */

static uint32_t pick_block(struct prng *r)
{
	return home_block((uint32_t)prng_mod(r, NR_HOME));
}

/* Random contents; one block in four looks like a journal block (escape). */
static void fill_random(struct fx *f, struct prng *r, uint32_t b)
{
	uint8_t *p = blk(f->mem, b);
	static const uint32_t types[] = {
		JBD2_DESCRIPTOR_BLOCK, JBD2_COMMIT_BLOCK, JBD2_REVOKE_BLOCK,
		JBD2_SUPERBLOCK_V2,
	};

	for (uint32_t k = 0; k < BS; k += 8)
		put_le64(p + k, prng_next(r));
	switch ((uint32_t)prng_mod(r, 8)) {
	case 0:
		put_be32(p, JBD2_MAGIC_NUMBER);
		break;
	case 1:
		/* a plausible header for the running or the next tid */
		put_be32(p, JBD2_MAGIC_NUMBER);
		put_be32(p + 4, types[(uint32_t)prng_mod(r, 4)]);
		put_be32(p + 8, f->j.j_transaction_sequence - (uint32_t)prng_mod(r, 2));
		put_be32(p + 12, pick_block(r));
		put_be32(p + 16, JBD2_FLAG_LAST_TAG);
		break;
	default:
		break;
	}
}

/* A handle dirtying up to its credits, sometimes nested, sometimes sync. */
static void op_handle(struct fx *f, struct prng *r, bool leave_open)
{
	uint32_t credits = 1 + (uint32_t)prng_mod(r, MAX_CREDITS);
	uint64_t started = f->ctr.handles_started;
	handle_t *h = fx_start(f, credits);
	uint32_t n = (uint32_t)prng_mod(r, credits + 1);
	bool nested = false;

	CHECK(f->ctr.handles_started == started + 1, "%s", "top-level start not counted");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b;

		if (!nested && (uint32_t)prng_mod(r, 4) == 0) {
			handle_t *h2 = jbd2_journal_start(&f->j, 1, 2);

			CHECK(h2 == h, "%s", "nested start returned another handle");
			nested = true;
		}
		b = pick_block(r);
		fill_random(f, r, b);
		if (is_data_block(b) && (uint32_t)prng_mod(r, 3) == 0)
			jbd2_journal_dirty_metadata(h, b);  /* data block as metadata */
		else
			fx_dirty(f, h, b);
		f->ref.running[b] = RS_DIRTY;
		if (nested && (uint32_t)prng_mod(r, 2) == 0) {
			jbd2_journal_stop(h);
			nested = false;
		}
	}
	if (nested)
		jbd2_journal_stop(h);
	CHECK(f->ctr.handles_started == started + 1, "%s", "nested start counted");
	if (leave_open)
		return;
	if ((uint32_t)prng_mod(r, 10) == 0)
		h->h_sync = true;
	fx_stop(f, h);
}

/* Revoke a few blocks (freed metadata) and commit at once. */
static void op_revoke(struct fx *f, struct prng *r)
{
	uint32_t n = 1 + (uint32_t)prng_mod(r, 3);
	handle_t *h = fx_start(f, 1);

	for (uint32_t i = 0; i < n; i++)
		fx_revoke(f, h, pick_block(r));
	fx_stop(f, h);
	fx_commit(f);
}

static void random_phase(struct fx *f, struct prng *r, uint32_t steps, uint32_t ckpt_weight)
{
	for (uint32_t s = 0; s < steps; s++) {
		uint32_t x = (uint32_t)prng_mod(r, 100);

		if (x < 55) {
			op_handle(f, r, false);
		} else if (x < 75) {
			if (f->j.j_running_transaction)
				fx_commit(f);
		} else if (x < 75 + ckpt_weight) {
			fx_checkpoint(f);
		} else if (x < 88) {
			op_revoke(f, r);
		} else if (x < 92) {
			uint64_t c = f->ctr.commits;
			bool running = f->j.j_running_transaction != NULL;

			jbd2_journal_force_commit(&f->j);       /* maybe nothing */
			CHECK(f->ctr.commits == c + running, "%s",
			      "force_commit did not commit exactly the running transaction");
			note_commits(f, c);
		} else {
			/* an empty handle */
			fx_stop(f, fx_start(f, 1));
		}
	}
}

/* Half the time the crash hits with a handle open and blocks changed. */
static void maybe_open_handle(struct fx *f, struct prng *r)
{
	if ((uint32_t)prng_mod(r, 2) == 0)
		op_handle(f, r, true);
}

/*
 * Unmount cleanly (commit, checkpoint, empty log), mount: nothing to
 * recover, and every block is the reference replay.
 */
static void fx_remount_clean(struct fx *f)
{
	struct jbd2_recovery_info info;
	uint64_t c = f->ctr.commits;

	snapshot_pre(f);
	jbd2_journal_release(&f->j);
	note_commits(f, c);
	jbd2_journal_destroy(&f->j);
	fx_init_journal(f);
	CHECK(jbd2_journal_load(&f->j, &info) == 0, "%s", "load after release failed");
	fx_set_features(f);
	CHECK(info.nr_replayed == 0, "clean mount replayed %u blocks", info.nr_replayed);
	reload_mem(f);
	fx_verify(f);
}

static void run_random_seed(struct fx *f, uint32_t seed, uint32_t jlen, bool wrap)
{
	struct prng r;
	struct jbd2_recovery_info info;
	uint32_t base = wrap ? 300 : 30, span = wrap ? 300 : 400;
	uint32_t ckw = wrap ? 1 : 2;

	prng_seed(&r, 0x5eed0000ull + seed);
	g_seed = seed;
	fx_format(f, jlen);

	g_phase = "phase 1";
	random_phase(f, &r, base + (uint32_t)prng_mod(&r, span), ckw);
	maybe_open_handle(f, &r);
	g_phase = "crash 1";
	fx_crash_verify(f, &info);

	g_phase = "crash 2, right after recovery";
	fx_crash_verify(f, &info);
	CHECK(info.nr_replayed == 0, "second recovery replayed %u blocks", info.nr_replayed);

	g_phase = "phase 2";
	random_phase(f, &r, base + (uint32_t)prng_mod(&r, span), ckw);
	maybe_open_handle(f, &r);
	g_phase = "crash 3";
	fx_crash_verify(f, &info);

	g_phase = "phase 3";
	random_phase(f, &r, base + (uint32_t)prng_mod(&r, span), ckw);
	g_phase = "clean unmount";
	fx_remount_clean(f);

	if (wrap) {
		g_phase = "wrap statistics";
		CHECK(f->wraps >= 5, "log wrapped only %u times", f->wraps);
		CHECK(f->ctr.checkpoints > f->explicit_checkpoints + 5,
		      "only %llu checkpoints for lack of space",
		      (unsigned long long)(f->ctr.checkpoints - f->explicit_checkpoints));
	}
	fx_unformat(f);
}

/* ------------------------------------------------------------------ */
/* tests                                                               */

/*
 * Test 1: seeded random handles, commits, checkpoints and revokes, blocks
 * that look like journal blocks, crashes at random points (sometimes with a
 * handle open), a second crash right after recovery, and a clean unmount.
 */
static void test_jbd2__random_crash_recovers_committed_transactions(void **state)
{
	struct fx *f = *state;

	for (uint32_t seed = 1; seed <= NR_SEEDS; seed++)
		run_random_seed(f, seed, J_LEN, false);
}

/* Test 3: the same on a 64-block journal, which wraps many times. */
static void test_jbd2__random_small_journal_wraps(void **state)
{
	struct fx *f = *state;

	for (uint32_t seed = 1; seed <= NR_SEEDS; seed++)
		run_random_seed(f, seed, J_LEN_SMALL, true);
}

/*
 * Test 3: the live log (tail .. head) crosses the end of the journal area,
 * and one transaction's blocks straddle it.
 */
static void test_jbd2__wrap_live_log_straddles_end(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint32_t blocks[6];
	uint8_t vals[6];

	fx_format(f, J_LEN_SMALL);      /* log blocks 1..63 */
	/* 7 transactions of 6 blocks = 7 x 8 log blocks: head at 57 */
	for (uint32_t t = 0; t < 7; t++) {
		for (uint32_t i = 0; i < 6; i++) {
			blocks[i] = home_block((t * 6 + i) % NR_HOME);
			vals[i] = (uint8_t)(0x10 + t);
		}
		fx_tx(f, blocks, vals, 6);
	}
	assert_int_equal(f->j.j_head, 57);
	fx_checkpoint(f);
	assert_int_equal(f->j.j_tail, 57);
	/* two more: the first one wraps inside its data blocks */
	for (uint32_t t = 0; t < 2; t++) {
		for (uint32_t i = 0; i < 6; i++) {
			blocks[i] = home_block((t * 11 + i * 3) % NR_HOME);
			vals[i] = (uint8_t)(0xa0 + t);
		}
		fx_tx(f, blocks, vals, 6);
	}
	{
		handle_t *h = fx_start(f, 2);

		put_be32(blk(f->mem, META_FIRST), JBD2_MAGIC_NUMBER);
		fx_dirty(f, h, META_FIRST);
		fx_dirty(f, h, home_block(20));
		fx_stop(f, h);
		fx_commit(f);
	}
	assert_int_equal(f->explicit_checkpoints, 1);
	assert_int_equal(f->ctr.checkpoints, 1);        /* no forced checkpoint */
	assert_true(f->j.j_head < f->j.j_tail);
	assert_int_equal(f->j.j_nr_logged, 3);
	fx_crash_verify(f, &info);
	assert_int_equal(info.end_transaction - info.start_transaction, 3);
	assert_int_equal(info.nr_replayed, 6 + 6 + 2);
}

/*
 * Test 2a: a block journaled in A and revoked in B (both committed, not
 * checkpointed): recovery must not write A's copy.
 */
static void test_jbd2__revoke_skips_older_copies(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	const uint32_t x = 5, y = 6;
	handle_t *h;

	fx_format(f, J_LEN);
	h = fx_start(f, 2);
	fx_set(f, x, 0xa1);
	fx_dirty(f, h, x);
	fx_set(f, y, 0xa2);
	fx_dirty(f, h, y);
	fx_stop(f, h);
	fx_commit(f);                           /* A */
	h = fx_start(f, 1);
	fx_revoke(f, h, x);
	fx_stop(f, h);
	fx_commit(f);                           /* B */

	fx_crash_verify(f, &info);
	assert_true(dev_is(f, x, blk(f->initial, x)));   /* not A's copy */
	assert_true(dev_is_fill(f, y, 0xa2));
	assert_int_equal(info.nr_replayed, 1);
	assert_int_equal(info.nr_revoke_hits, 1);
	assert_int_equal(info.nr_revokes, 1);

	/* A checkpointed copy stays; a later journaled copy revoked in C is skipped. */
	fx_tx(f, (uint32_t[]){ x }, (uint8_t[]){ 0xb1 }, 1);
	fx_checkpoint(f);                       /* home x = b1 */
	fx_tx(f, (uint32_t[]){ x }, (uint8_t[]){ 0xb2 }, 1);
	h = fx_start(f, 1);
	fx_revoke(f, h, x);
	fx_stop(f, h);
	fx_commit(f);
	fx_crash_verify(f, &info);
	assert_true(dev_is_fill(f, x, 0xb1));
	assert_int_equal(info.nr_revoke_hits, 1);

	/* Revoked in the running transaction, which the crash loses: replayed. */
	fx_tx(f, (uint32_t[]){ y }, (uint8_t[]){ 0xc1 }, 1);
	h = fx_start(f, 1);
	fx_revoke(f, h, y);
	fx_stop(f, h);
	fx_crash_verify(f, &info);
	assert_true(dev_is_fill(f, y, 0xc1));
}

/*
 * Recovery from a shared prefix (jbd2_recovery_prefix): A committed when the
 * prefix is taken on an overlay; then B is committed on the device.  An
 * overlay of the prefix recovered from where it stopped ends with the same
 * blocks and counts as an overlay of the device recovered whole; with B
 * revoking a block A's replay wrote, it refuses (and writes nothing).
 */
static void base_case(struct fx *f, bool revoke)
{
	struct jbd2_recovery_info whole, part;
	struct jbd2_recovery_base rb;
	struct blkdev *base, *c1, *c2;
	journal_t jb, j1, j2;
	const uint32_t x = 5, y = 6, z = 4;
	uint8_t b1[BS], b2[BS];
	handle_t *h;

	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ x, y }, (uint8_t[]){ 0xa1, 0xa2 }, 2);     /* A */
	base = blkdev_overlay(f->bd);
	jbd2_journal_init(&jb, base, &(struct jbd2_extent){ 0, J_START, J_LEN }, 1, NULL, NULL, &f->ctr);
	assert_true(jbd2_recovery_prefix(&jb, &rb));
	assert_int_equal(rb.rb_nr_wrote, 2);
	assert_true(jbd2_recovery_base_touches(&jb, &rb, x));
	assert_false(jbd2_recovery_base_touches(&jb, &rb, z));
	assert_true(jbd2_recovery_base_touches(&jb, &rb, J_START));        /* superblock */
	assert_false(jbd2_recovery_base_touches(&jb, &rb, J_START + rb.rb_pos));
	h = fx_start(f, 1);
	if (revoke) {
		fx_revoke(f, h, x);
	} else {
		fx_set(f, z, 0xb1);
		fx_dirty(f, h, z);
	}
	fx_stop(f, h);
	fx_commit(f);                                                    /* B */
	c1 = blkdev_overlay(f->bd);
	c2 = blkdev_overlay(base);
	jbd2_journal_init(&j1, c1, &(struct jbd2_extent){ 0, J_START, J_LEN }, 1, NULL, NULL, &f->ctr);
	jbd2_journal_init(&j2, c2, &(struct jbd2_extent){ 0, J_START, J_LEN }, 1, NULL, NULL, &f->ctr);
	assert_int_equal(jbd2_journal_recover(&j1, &whole), 0);
	assert_int_equal(jbd2_journal_recover_base(&j2, &part, &rb), 0);
	assert_int_equal(part.base_refused, revoke);
	assert_false(whole.base_refused);
	for (uint32_t b = 0; !revoke && b < NR_BLOCKS; b++) {
		blkdev_read(c1, b, b1);
		blkdev_read(c2, b, b2);
		assert_memory_equal(b1, b2, BS);
	}
	if (!revoke) {
		assert_int_equal(part.nr_replayed, whole.nr_replayed);
		assert_int_equal(part.nr_revokes, whole.nr_revokes);
		assert_int_equal(part.nr_revoke_hits, whole.nr_revoke_hits);
		assert_int_equal(part.end_transaction, whole.end_transaction);
		assert_int_equal(part.start_transaction, whole.start_transaction);
		assert_true(part.nr_blocks < whole.nr_blocks);  /* only B read again */
	}
	jbd2_journal_destroy(&j1);
	jbd2_journal_destroy(&j2);
	jbd2_journal_destroy(&jb);
	jbd2_recovery_base_free(&rb);
	blkdev_destroy(c2);
	blkdev_destroy(c1);
	blkdev_destroy(base);
}

static void test_jbd2__recovery_base_matches_whole_log(void **state)
{
	base_case(*state, false);
}

static void test_jbd2__recovery_base_refused_by_later_revoke(void **state)
{
	base_case(*state, true);
}

/* Test 2b: revoked in A, journaled again in B: replayed from B. */
static void test_jbd2__revoke_then_rejournal_replays_newer(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	const uint32_t x = 9, d = DATA_FIRST + 3;
	handle_t *h;

	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ x, d }, (uint8_t[]){ 0x11, 0x12 }, 2);    /* T0 */
	h = fx_start(f, 1);
	fx_revoke(f, h, x);
	fx_revoke(f, h, d);
	fx_stop(f, h);
	fx_commit(f);                                                   /* A */
	h = fx_start(f, 2);
	fx_set(f, x, 0x21);
	put_be32(blk(f->mem, x), JBD2_MAGIC_NUMBER);    /* escaped as well */
	fx_dirty(f, h, x);
	fx_set(f, d, 0x22);
	fx_dirty(f, h, d);                              /* journaled data */
	fx_stop(f, h);
	fx_commit(f);                                                   /* B */

	fx_crash_verify(f, &info);
	assert_true(dev_is(f, x, blk(f->exp, x)));
	assert_int_equal(get_be32(blk(f->exp, x)), JBD2_MAGIC_NUMBER);
	assert_true(dev_is_fill(f, d, 0x22));
	assert_int_equal(info.nr_revoke_hits, 2);       /* T0's copies */
	assert_int_equal(info.nr_replayed, 2);          /* B's copies */
}

/* Revoke records spread over two revoke blocks; the second one counts too. */
static void test_jbd2__revoke_records_span_blocks(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	const uint32_t x = 1000;        /* outside the home set: sentinel at mkfs */
	handle_t *h;

	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ x, 3 }, (uint8_t[]){ 0x31, 0x32 }, 2);
	h = fx_start(f, 1);
	for (uint32_t b = 600; b < 900; b++)    /* 300 records: 252 + 48 */
		fx_revoke(f, h, b);
	fx_revoke(f, h, x);                     /* sorted last: second block */
	fx_stop(f, h);
	fx_commit(f);
	fx_crash_verify(f, &info);
	assert_int_equal(info.nr_revokes, 301);
	assert_int_equal(info.nr_revoke_hits, 1);
	assert_true(dev_is_fill(f, x, BLKDEV_SENTINEL));
	assert_true(dev_is_fill(f, 3, 0x32));
}

/*
 * Regression test (the model once got this wrong):
 * a block revoked and then journaled again in the same transaction.
 *
 * fs/jbd2/revoke.c: "Block is revoked and then journaled: the desired end
 * result is the journaling of the new block, so we cancel the revoke before
 * the transaction commits" (jbd2_journal_cancel_revoke(), called from
 * do_get_write_access() / jbd2_journal_get_create_access()).  Before the fix, the model's
 * jbd2_journal_dirty_metadata() and jbd2_journal_dirty_data() (which stand
 * for get_write_access + dirty) did not remove the block from t_revoke, so
 * the commit writes both a revoke record and the copy with the same tid,
 * and recovery's test_revoke() (record tid >= copy tid) skips the copy:
 * the committed contents are lost after a crash.
 */
static void test_jbd2__revoke_then_redirty_same_transaction_is_replayed(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	const uint32_t x = 4;
	handle_t *h;

	fx_format(f, J_LEN);
	h = fx_start(f, 2);
	fx_revoke(f, h, x);
	fx_set(f, x, 0x44);
	fx_dirty(f, h, x);                      /* must cancel the revoke */
	fx_stop(f, h);
	fx_commit(f);
	fx_crash(f, &info);
	assert_int_equal(info.nr_revoke_hits, 0);
	assert_true(dev_is_fill(f, x, 0x44));
}

/*
 * Regression test (the model once got this wrong): forgetting (or revoking)
 * a block in the
 * running transaction drops the previous transaction's committed copy from
 * the checkpoint list at once (jbd2_journal_forget ->
 * jbd2_journal_forget_checkpoint).  A checkpoint before the running
 * transaction commits then writes nothing home for that block but still
 * moves the log tail past the transaction that carried the copy; a crash
 * before the running transaction commits leaves the block with its pre-A
 * contents although A is committed and the free never was.
 *
 * The kernel (jbd2_journal_forget, since "jbd2: fix data missing when
 * reusing bh which is ready to be checkpointed") files such a buffer on the
 * running transaction's BJ_Forget list instead, and jbd2_log_do_checkpoint()
 * forces that transaction to commit before it can release the old one.
 * Either outcome is accepted here: the forgetting transaction committed
 * during the checkpoint, or the block keeps A's contents.
 *
 * Reachable from ext4 in the model: data=journal, ext4_free_blocks ->
 * jbd2_journal_forget (mballoc.c), then a `checkpoint` step, then a crash.
 */
static void test_jbd2__forget_in_running_then_checkpoint_keeps_committed_copy(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	const uint32_t d = DATA_FIRST + 7, m = 11;
	uint32_t tid;
	handle_t *h;

	/* forget (data=journal truncate) */
	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ d }, (uint8_t[]){ 0x5d }, 1);     /* A */
	h = fx_start(f, 1);
	tid = h->h_transaction->t_tid;
	jbd2_journal_forget(h, d);
	jbd2_journal_free_blocks(h, d, 1);
	fx_stop(f, h);
	fx_checkpoint(f);
	if (!jbd2_transaction_committed(&f->j, tid)) {
		fx_crash(f, &info);
		assert_true(dev_is_fill(f, d, 0x5d));
	}
	fx_unformat(f);

	/* revoke (freed metadata) */
	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ m }, (uint8_t[]){ 0x6d }, 1);     /* A */
	h = fx_start(f, 1);
	tid = h->h_transaction->t_tid;
	jbd2_journal_revoke(h, m);
	fx_stop(f, h);
	fx_checkpoint(f);
	if (!jbd2_transaction_committed(&f->j, tid)) {
		fx_crash(f, &info);
		assert_true(dev_is_fill(f, m, 0x6d));
	}
}

/* Find the log block holding the commit block of @tid (journal-relative). */
static uint32_t find_commit_block(struct fx *f, uint32_t tid)
{
	uint8_t buf[BS];
	uint32_t found = 0, n = 0;

	for (uint32_t l = f->j.j_first; l < f->j.j_last; l++) {
		read_dev(f, jbd2_log_block(&f->j, l), buf);
		if (get_be32(buf) == JBD2_MAGIC_NUMBER &&
		    get_be32(buf + 4) == JBD2_COMMIT_BLOCK && get_be32(buf + 8) == tid) {
			found = l;
			n++;
		}
	}
	assert_int_equal(n, 1);
	return found;
}

/* The commit block never reached the media: write zeros over it (FUA). */
static void lose_commit_block(struct fx *f, uint32_t tid)
{
	uint8_t zero[BS];
	uint64_t seq;

	memset(zero, 0, BS);
	seq = blkdev_submit(f->bd, jbd2_log_block(&f->j, find_commit_block(f, tid)),
			    zero, BIO_COMMIT, true);
	blkdev_complete(f->bd, seq);
}

/* Test 4: the last transaction's commit block is missing. */
static void test_jbd2__missing_commit_block_not_replayed(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint32_t e;

	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ 1, 2 }, (uint8_t[]){ 0x71, 0x72 }, 2);
	fx_tx(f, (uint32_t[]){ 2, 3 }, (uint8_t[]){ 0x82, 0x83 }, 2);
	fx_tx(f, (uint32_t[]){ 3, 4, DATA_FIRST }, (uint8_t[]){ 0x93, 0x94, 0x95 }, 3);
	e = f->j.j_commit_sequence;
	lose_commit_block(f, e);
	ref_drop_from(f, e);

	fx_crash(f, &info);
	fx_verify(f);
	assert_int_equal(info.end_transaction, e);
	assert_int_equal(info.nr_replayed, 4);
	assert_true(dev_is_fill(f, 1, 0x71));
	assert_true(dev_is_fill(f, 2, 0x82));
	assert_true(dev_is_fill(f, 3, 0x83));
	assert_true(dev_is(f, 4, blk(f->initial, 4)));
	assert_true(dev_is(f, DATA_FIRST, blk(f->initial, DATA_FIRST)));
	/* the lost tid is never reused: its stale blocks stay dead */
	assert_true((int32_t)(f->j.j_transaction_sequence - e) > 0);

	/* new transactions after that recovery, crash again */
	fx_tx(f, (uint32_t[]){ 5 }, (uint8_t[]){ 0xa5 }, 1);
	fx_crash_verify(f, &info);
	assert_true(dev_is_fill(f, 5, 0xa5));
	assert_true(dev_is(f, 4, blk(f->initial, 4)));
}

/* Test 4: a missing commit block in the middle ends the replay there. */
static void test_jbd2__missing_middle_commit_block_ends_replay(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint32_t mid;

	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ 1 }, (uint8_t[]){ 0x11 }, 1);
	fx_tx(f, (uint32_t[]){ 2 }, (uint8_t[]){ 0x22 }, 1);
	mid = f->j.j_commit_sequence;
	fx_tx(f, (uint32_t[]){ 3 }, (uint8_t[]){ 0x33 }, 1);
	lose_commit_block(f, mid);
	ref_drop_from(f, mid);

	fx_crash(f, &info);
	fx_verify(f);
	assert_int_equal(info.end_transaction, mid);
	assert_true(dev_is_fill(f, 1, 0x11));
	assert_true(dev_is(f, 2, blk(f->initial, 2)));
	assert_true(dev_is(f, 3, blk(f->initial, 3)));
}

/* Test 5: a start that would overflow j_max_transaction_buffers commits first. */
static void test_jbd2__start_commits_when_transaction_full(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint32_t max, tid0, seq0, first;
	handle_t *h;

	fx_format(f, J_LEN);
	max = f->j.j_max_transaction_buffers;
	assert_int_equal(max, (J_LEN - 1) / 4);
	first = max - 23;                       /* 40 buffers */
	h = fx_start(f, first);
	tid0 = h->h_transaction->t_tid;
	for (uint32_t i = 0; i < first; i++) {
		fx_set(f, DATA_FIRST + i, (uint8_t)i);
		fx_dirty(f, h, DATA_FIRST + i);
	}
	fx_stop(f, h);
	seq0 = f->j.j_commit_sequence;

	/* exactly at the limit: joins the running transaction */
	h = fx_start(f, max - first);
	assert_int_equal(f->j.j_commit_sequence, seq0);
	assert_int_equal(h->h_transaction->t_tid, tid0);
	fx_set(f, 1, 0x01);
	fx_dirty(f, h, 1);
	fx_stop(f, h);
	assert_int_equal(f->j.j_running_transaction->t_nr_buffers, first + 1);

	/* one more credit than fits: the running transaction commits first */
	h = fx_start(f, max - first);
	assert_int_equal(f->j.j_commit_sequence, tid0);
	assert_int_equal(f->ctr.commits, 1);
	assert_int_equal(h->h_transaction->t_tid, tid0 + 1);
	assert_int_equal(h->h_transaction->t_nr_buffers, 0);
	fx_set(f, 2, 0x02);
	fx_dirty(f, h, 2);
	fx_stop(f, h);
	assert_int_equal(f->ref.nr, 1);
	assert_int_equal(f->ref.tx[0].n, first + 1);

	fx_crash_verify(f, &info);              /* block 2's change is lost */
	assert_int_equal(info.nr_replayed, first + 1);
	assert_true(dev_is(f, 2, blk(f->initial, 2)));
}

static uint32_t freed_for(const struct fx *f, uint32_t start, uint32_t len)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nr_freed; i++)
		n += f->freed[i].start == start && f->freed[i].len == len;
	return n;
}

/* Test 6: freed ranges reach commit_callback exactly once, at their commit. */
static void test_jbd2__freed_ranges_released_once_at_commit(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint32_t tid, max;
	handle_t *h;

	fx_format(f, J_LEN);
	h = fx_start(f, 2);
	tid = h->h_transaction->t_tid;
	jbd2_journal_free_blocks(h, 100, 5);
	jbd2_journal_free_blocks(h, 200, 1);
	fx_stop(f, h);
	assert_int_equal(f->nr_freed, 0);               /* not before commit */
	assert_int_equal(f->nr_callbacks, 0);
	fx_commit(f);
	assert_int_equal(f->nr_callbacks, 1);
	assert_int_equal(f->last_callback_tid, tid);
	assert_int_equal(f->nr_freed, 2);
	assert_int_equal(f->freed[0].tid, tid);
	assert_int_equal(f->freed[0].start, 100);
	assert_int_equal(f->freed[0].len, 5);
	assert_int_equal(f->freed[1].start, 200);
	assert_int_equal(f->freed[1].len, 1);

	/* later commits and checkpoints do not hand them out again */
	fx_stop(f, fx_start(f, 1));
	fx_commit(f);
	fx_checkpoint(f);
	assert_int_equal(f->nr_callbacks, 2);
	assert_int_equal(f->nr_freed, 2);

	/* a sync handle: released when its stop commits */
	h = fx_start(f, 1);
	tid = h->h_transaction->t_tid;
	jbd2_journal_free_blocks(h, 300, 2);
	h->h_sync = true;
	fx_stop(f, h);
	assert_int_equal(freed_for(f, 300, 2), 1);
	assert_int_equal(f->freed[f->nr_freed - 1].tid, tid);

	/* the commit forced by a full transaction releases them too */
	max = f->j.j_max_transaction_buffers;
	h = fx_start(f, max);
	tid = h->h_transaction->t_tid;
	for (uint32_t i = 0; i < DATA_NR && i < max; i++) {
		fx_set(f, DATA_FIRST + i, 0x66);
		fx_dirty(f, h, DATA_FIRST + i);
	}
	jbd2_journal_free_blocks(h, 400, 3);
	fx_stop(f, h);
	assert_int_equal(freed_for(f, 400, 3), 0);
	fx_stop(f, fx_start(f, 1));             /* commits tid first */
	assert_int_equal(freed_for(f, 400, 3), 1);
	assert_int_equal(f->last_callback_tid, tid);

	/* freed in a transaction the crash loses: never released */
	h = fx_start(f, 1);
	jbd2_journal_free_blocks(h, 500, 4);
	fx_stop(f, h);
	fx_crash_verify(f, &info);
	assert_int_equal(freed_for(f, 500, 4), 0);
	fx_stop(f, fx_start(f, 1));
	fx_commit(f);
	assert_int_equal(freed_for(f, 500, 4), 0);
	assert_int_equal(freed_for(f, 100, 5), 1);
	assert_int_equal(freed_for(f, 300, 2), 1);
	assert_int_equal(freed_for(f, 400, 3), 1);
	assert_int_equal(f->nr_freed, 4);
}

/* Test 7, part 1: nested starts join the top-level handle and count once. */
static void counters_nested_handles(struct fx *f)
{
	handle_t *h, *h2, *h3;

	h = fx_start(f, 4);
	assert_int_equal(f->ctr.handles_started, 1);
	h2 = jbd2_journal_start(&f->j, 2, 1);
	h3 = jbd2_journal_start(&f->j, 1, 1);
	assert_ptr_equal(h2, h);
	assert_ptr_equal(h3, h);
	assert_int_equal(h->h_ref, 3);
	assert_int_equal(f->ctr.handles_started, 1);
	fx_set(f, 1, 0x01);
	fx_dirty(f, h3, 1);
	jbd2_journal_stop(h3);
	jbd2_journal_stop(h2);
	assert_ptr_equal(f->j.j_current_handle, h);
	assert_int_equal(f->j.j_running_transaction->t_updates, 1);
	fx_stop(f, h);
	assert_null(f->j.j_current_handle);
	assert_int_equal(f->j.j_running_transaction->t_updates, 0);
	assert_int_equal(f->ctr.handles_started, 1);
	assert_int_equal(f->ctr.commits, 0);
}

/* Test 7, part 2: a commit's bios and flush; force_commit with nothing running. */
static void counters_commit(struct fx *f)
{
	uint64_t bios, flushes;
	handle_t *h;

	/* a commit of 3 buffers and 2 revokes: revoke block, descriptor,
	 * 3 copies, commit block; one flush before the commit block */
	h = fx_start(f, 3);
	fx_set(f, 2, 0x02);
	fx_dirty(f, h, 2);
	fx_set(f, DATA_FIRST, 0x03);
	fx_dirty(f, h, DATA_FIRST);
	fx_revoke(f, h, 10);
	fx_revoke(f, h, 11);
	fx_stop(f, h);
	bios = f->ctr.bios_submitted;
	flushes = f->ctr.flushes;
	fx_commit(f);
	assert_int_equal(f->ctr.commits, 1);
	assert_int_equal(f->ctr.handles_started, 2);
	assert_int_equal(f->ctr.bios_submitted - bios, 1 + 1 + 3 + 1);
	assert_int_equal(f->ctr.flushes - flushes, 1);
	assert_int_equal(f->nr_buffer_committed, 3);
	assert_int_equal(f->nr_submit_data, 0); /* no jbd2_inode in it */

	/* nothing running: force_commit commits nothing */
	jbd2_journal_force_commit(&f->j);
	assert_int_equal(f->ctr.commits, 1);
}

/* Test 7, part 3: sync handles, jbd2_complete_transaction, jbd2_inode data, checkpoint. */
static void counters_sync_and_checkpoint(struct fx *f)
{
	handle_t *h;
	uint32_t tid;

	/* a sync handle commits at its stop */
	h = fx_start(f, 1);
	h->h_sync = true;
	fx_set(f, 3, 0x03);
	fx_dirty(f, h, 3);
	fx_stop(f, h);
	assert_int_equal(f->ctr.commits, 2);
	assert_int_equal(f->ctr.handles_started, 3);

	/* jbd2_complete_transaction: commits the running tid, once */
	h = fx_start(f, 1);
	tid = h->h_transaction->t_tid;
	fx_stop(f, h);
	assert_false(jbd2_transaction_committed(&f->j, tid));
	jbd2_complete_transaction(&f->j, tid);
	ref_commit(f, tid);
	assert_int_equal(f->ctr.commits, 3);
	assert_true(jbd2_transaction_committed(&f->j, tid));
	jbd2_complete_transaction(&f->j, tid);
	assert_int_equal(f->ctr.commits, 3);

	/* jbd2_inode data: submitted and waited for by the commit */
	h = fx_start(f, 1);
	jbd2_journal_inode_ranged(h, 12, JI_WRITE_DATA | JI_WAIT_DATA, 0, 4096);
	fx_stop(f, h);
	fx_commit(f);
	assert_int_equal(f->nr_submit_data, 1);
	assert_int_equal(f->nr_finish_data, 1);
	assert_int_equal(f->ctr.commits, 4);
	assert_int_equal(f->ctr.handles_started, 5);

	/* checkpoints */
	fx_checkpoint(f);
	assert_int_equal(f->ctr.checkpoints, 1);
	assert_int_equal(f->j.j_nr_cp, 0);
	assert_int_equal(f->j.j_nr_logged, 0);
	assert_int_equal(f->nr_callbacks, 4);
}

/* Test 7: counters - top-level starts only, every commit, checkpoint, bios. */
static void test_jbd2__counters_top_level_handles_and_commits(void **state)
{
	struct fx *f = *state;

	fx_format(f, J_LEN);
	assert_int_equal(f->ctr.handles_started, 0);
	assert_int_equal(f->ctr.commits, 0);
	counters_nested_handles(f);
	counters_commit(f);
	counters_sync_and_checkpoint(f);
}

/* A clean unmount empties the log: the next mount recovers nothing. */
static void test_jbd2__clean_release_needs_no_recovery(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	handle_t *h;

	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ 1, 2 }, (uint8_t[]){ 0x01, 0x02 }, 2);
	h = fx_start(f, 1);
	fx_set(f, 3, 0x03);
	fx_dirty(f, h, 3);
	fx_stop(f, h);                          /* running at unmount: committed */
	fx_remount_clean(f);
	assert_true(dev_is_fill(f, 3, 0x03));
	/* and a crash right after the clean mount */
	fx_crash_verify(f, &info);
	assert_int_equal(info.nr_replayed, 0);
	assert_true(dev_is_fill(f, 1, 0x01));
}

/* Blocks that start with the journal magic are escaped and restored. */
static void test_jbd2__escaped_blocks_replayed_with_magic(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint8_t buf[BS];
	uint32_t next;
	handle_t *h;

	fx_format(f, J_LEN);
	h = fx_start(f, 3);
	next = f->j.j_transaction_sequence;
	/* looks like the commit block of this very transaction */
	fx_set(f, 1, 0x00);
	put_be32(blk(f->mem, 1), JBD2_MAGIC_NUMBER);
	put_be32(blk(f->mem, 1) + 4, JBD2_COMMIT_BLOCK);
	put_be32(blk(f->mem, 1) + 8, h->h_transaction->t_tid);
	fx_dirty(f, h, 1);
	/* looks like the descriptor of the next one */
	fx_set(f, DATA_FIRST + 1, 0x00);
	put_be32(blk(f->mem, DATA_FIRST + 1), JBD2_MAGIC_NUMBER);
	put_be32(blk(f->mem, DATA_FIRST + 1) + 4, JBD2_DESCRIPTOR_BLOCK);
	put_be32(blk(f->mem, DATA_FIRST + 1) + 8, next);
	put_be32(blk(f->mem, DATA_FIRST + 1) + 12, 2);
	put_be32(blk(f->mem, DATA_FIRST + 1) + 16, JBD2_FLAG_LAST_TAG);
	fx_dirty(f, h, DATA_FIRST + 1);
	fx_set(f, 2, 0x22);
	fx_dirty(f, h, 2);
	fx_stop(f, h);
	fx_commit(f);

	/* in the log only the descriptor and the commit block start with the
	 * magic: the copies are escaped */
	assert_int_equal(f->j.j_head - f->j.j_first, 1 + 3 + 1);
	for (uint32_t l = f->j.j_first; l < f->j.j_head; l++) {
		read_dev(f, jbd2_log_block(&f->j, l), buf);
		if (l == f->j.j_first || l + 1 == f->j.j_head) {
			assert_int_equal(get_be32(buf), JBD2_MAGIC_NUMBER);
			assert_int_equal(get_be32(buf + 4), l == f->j.j_first ?
					 JBD2_DESCRIPTOR_BLOCK : JBD2_COMMIT_BLOCK);
		} else {
			assert_int_not_equal(get_be32(buf), JBD2_MAGIC_NUMBER);
		}
	}
	fx_crash_verify(f, &info);
	assert_int_equal(info.nr_replayed, 3);
	assert_int_equal(info.end_transaction, next);
	read_dev(f, 1, buf);
	assert_int_equal(get_be32(buf), JBD2_MAGIC_NUMBER);
}

/* ------------------------------------------------------------------ */
/* the on-disk format                                                  */

#define CSUM_V3_64BIT (JBD2_FEATURE_INCOMPAT_64BIT | JBD2_FEATURE_INCOMPAT_CSUM_V3)

/* CRC-32C bit by bit (not lib/crc32c's tables), no final inversion. */
static uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return crc;
}

/*
 * lib/crc32c's two paths (the SSE 4.2 instruction where the processor has it,
 * the tables otherwise) against the bit-by-bit CRC, at 8 alignments and
 * every length up to 100 bytes.
 */
static void test_jbd2__crc32c_paths_agree(void **state)
{
	uint8_t buf[128];

	(void)state;
	for (uint32_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 151u + 7u);
	assert_int_equal(~crc32c(~0u, "123456789", 9), 0xe3069283u);
	for (uint32_t off = 0; off < 8; off++)
		for (uint32_t len = 0; len <= 100; len++) {
			uint32_t want = ref_crc32c(0x12345678u, buf + off, len);

			assert_int_equal(crc32c(0x12345678u, buf + off, len), want);
			assert_int_equal(crc32c_sw(0x12345678u, buf + off, len), want);
		}
}

/* crc32c(seed) over @b with the 4 bytes at @off read as zero. */
static uint32_t ref_csum_hole(uint32_t seed, const uint8_t *b, uint32_t len, uint32_t off)
{
	uint8_t copy[BS];

	memcpy(copy, b, len);
	memset(copy + off, 0, 4);
	return ref_crc32c(seed, copy, len);
}

static uint32_t ref_seed(void)
{
	return ref_crc32c(~0u, fx_uuid, 16);
}

static void read_log_block(struct fx *f, uint32_t l, uint8_t *out)
{
	read_dev(f, jbd2_log_block(&f->j, l), out);
}

/* The kernel's offsets (include/linux/jbd2.h, its 0x00NN comments). */
static void test_jbd2__structures_at_kernel_offsets(void **state)
{
	(void)state;
	assert_int_equal(offsetof(journal_superblock_t, s_blocksize), 0x0C);
	assert_int_equal(offsetof(journal_superblock_t, s_maxlen), 0x10);
	assert_int_equal(offsetof(journal_superblock_t, s_first), 0x14);
	assert_int_equal(offsetof(journal_superblock_t, s_sequence), 0x18);
	assert_int_equal(offsetof(journal_superblock_t, s_start), 0x1C);
	assert_int_equal(offsetof(journal_superblock_t, s_errno), 0x20);
	assert_int_equal(offsetof(journal_superblock_t, s_feature_compat), 0x24);
	assert_int_equal(offsetof(journal_superblock_t, s_feature_incompat), 0x28);
	assert_int_equal(offsetof(journal_superblock_t, s_feature_ro_compat), 0x2C);
	assert_int_equal(offsetof(journal_superblock_t, s_uuid), 0x30);
	assert_int_equal(offsetof(journal_superblock_t, s_nr_users), 0x40);
	assert_int_equal(offsetof(journal_superblock_t, s_max_transaction), 0x48);
	assert_int_equal(offsetof(journal_superblock_t, s_max_trans_data), 0x4C);
	assert_int_equal(offsetof(journal_superblock_t, s_checksum_type), 0x50);
	assert_int_equal(offsetof(journal_superblock_t, s_num_fc_blks), 0x54);
	assert_int_equal(offsetof(journal_superblock_t, s_checksum), 0xFC);
	assert_int_equal(offsetof(journal_superblock_t, s_users), 0x100);
	assert_int_equal(sizeof(journal_superblock_t), 1024);
	assert_int_equal(sizeof(journal_header_t), 12);
	assert_int_equal(offsetof(journal_block_tag3_t, t_flags), 4);
	assert_int_equal(offsetof(journal_block_tag3_t, t_blocknr_high), 8);
	assert_int_equal(offsetof(journal_block_tag3_t, t_checksum), 12);
	assert_int_equal(offsetof(journal_block_tag_t, t_checksum), 4);
	assert_int_equal(offsetof(journal_block_tag_t, t_flags), 6);
	assert_int_equal(offsetof(journal_block_tag_t, t_blocknr_high), 8);
	assert_int_equal(offsetof(struct commit_header, h_chksum_type), 12);
	assert_int_equal(offsetof(struct commit_header, h_chksum_size), 13);
	assert_int_equal(offsetof(struct commit_header, h_chksum), 16);
	assert_int_equal(offsetof(struct commit_header, h_commit_sec), 48);
	assert_int_equal(offsetof(struct commit_header, h_commit_nsec), 56);
	assert_int_equal(offsetof(jbd2_journal_revoke_header_t, r_count), 12);
	assert_int_equal(sizeof(struct jbd2_journal_block_tail), 4);
	/* the reference CRC itself: the check value of CRC-32C */
	assert_int_equal(ref_crc32c(~0u, (const uint8_t *)"123456789", 9) ^ ~0u, 0xe3069283u);
}

/* mkfs writes e2fsprogs' superblock; set_features reaches the device later. */
static void test_jbd2__superblock_as_e2fsprogs_then_features(void **state)
{
	struct fx *f = *state;
	uint8_t sb[BS];

	fx_format(f, J_LEN);
	read_log_block(f, 0, sb);
	assert_int_equal(get_be32(sb), JBD2_MAGIC_NUMBER);
	assert_int_equal(get_be32(sb + 4), JBD2_SUPERBLOCK_V2);
	assert_int_equal(get_be32(sb + 0x0C), BS);
	assert_int_equal(get_be32(sb + 0x10), J_LEN);
	assert_int_equal(get_be32(sb + 0x14), 1);
	assert_int_equal(get_be32(sb + 0x24), 0);
	assert_int_equal(get_be32(sb + 0x28), 0);
	assert_int_equal(get_be32(sb + 0x2C), 0);
	assert_memory_equal(sb + 0x30, fx_uuid, 16);
	assert_int_equal(get_be32(sb + 0x40), 1);
	assert_int_equal(sb[0x50], 0);
	assert_int_equal(get_be32(sb + 0xFC), 0);
	/* ext4's mount: 64bit, then csum v3; in memory only */
	assert_int_equal(jbd2_journal_set_features(&f->j, 0, 0, JBD2_FEATURE_INCOMPAT_64BIT), 1);
	assert_int_equal(jbd2_journal_set_features(&f->j, 0, 0, JBD2_FEATURE_INCOMPAT_CSUM_V2), 1);
	read_log_block(f, 0, sb);
	assert_int_equal(get_be32(sb + 0x28), 0);
	assert_int_equal(journal_tag_bytes(&f->j), 16);
	assert_int_equal(f->j.j_csum_seed, ref_seed());
	/* the first commit after mounting an empty log writes it (JBD2_FLUSHED) */
	fx_tx(f, (uint32_t[]){ 3 }, (uint8_t[]){ 0x33 }, 1);
	read_log_block(f, 0, sb);
	assert_int_equal(get_be32(sb + 0x28), CSUM_V3_64BIT);  /* v2 asked: v3 given */
	assert_int_equal(sb[0x50], JBD2_CRC32C_CHKSUM);
	assert_int_equal(get_be32(sb + 0xFC), ref_csum_hole(~0u, sb, 1024, 0xFC));
	/* already set: nothing changes, 1 */
	assert_int_equal(jbd2_journal_set_features(&f->j, 0, 0, CSUM_V3_64BIT), 1);
	/* refused: unknown, and fast commit (not modelled) */
	assert_int_equal(jbd2_journal_set_features(&f->j, 0, 0, 0x100), 0);
	assert_int_equal(jbd2_journal_set_features(&f->j, 0, 0,
						   JBD2_FEATURE_INCOMPAT_FAST_COMMIT), 0);
}

/* Rewrite journal block 0 through @edit, FUA. */
static void edit_sb(struct fx *f, void (*edit)(uint8_t *sb), bool fix_csum)
{
	uint8_t sb[BS];

	read_log_block(f, 0, sb);
	edit(sb);
	if (fix_csum)
		put_be32(sb + 0xFC, ref_csum_hole(~0u, sb, 1024, 0xFC));
	blkdev_write_durable(f->bd, jbd2_log_block(&f->j, 0), sb);
}

static void sb_bad_magic(uint8_t *sb) { sb[0] ^= 1; }
static void sb_v1(uint8_t *sb) { put_be32(sb + 4, JBD2_SUPERBLOCK_V1); }
static void sb_v3(uint8_t *sb) { put_be32(sb + 4, 7); }
static void sb_too_long(uint8_t *sb) { put_be32(sb + 0x10, J_LEN + 1); }
static void sb_shorter(uint8_t *sb) { put_be32(sb + 0x10, J_LEN - 8); }
static void sb_first_0(uint8_t *sb) { put_be32(sb + 0x14, 0); }
static void sb_bad_bs(uint8_t *sb) { put_be32(sb + 0x0C, 4096); }
static void sb_unknown(uint8_t *sb) { put_be32(sb + 0x28, get_be32(sb + 0x28) | 0x80); }
static void sb_ro_unknown(uint8_t *sb) { put_be32(sb + 0x2C, 1); }
static void sb_v2_and_v3(uint8_t *sb) { put_be32(sb + 0x28, get_be32(sb + 0x28) | 8); }
static void sb_seq(uint8_t *sb) { put_be32(sb + 0x18, get_be32(sb + 0x18) + 1); }

/* Load the journal again after editing its superblock: the kernel's errno. */
static int load_edited(struct fx *f, void (*edit)(uint8_t *sb), bool fix_csum)
{
	struct jbd2_recovery_info info;
	int err;

	jbd2_journal_release(&f->j);
	edit_sb(f, edit, fix_csum);
	jbd2_journal_destroy(&f->j);
	fx_init_journal(f);
	err = jbd2_journal_load(&f->j, &info);
	jbd2_journal_destroy(&f->j);
	fx_init_journal(f);
	return err;
}

static void sb_restore(struct fx *f, const uint8_t *good)
{
	blkdev_write_durable(f->bd, jbd2_log_block(&f->j, 0), good);
	assert_int_equal(jbd2_journal_load(&f->j, &(struct jbd2_recovery_info){ 0 }), 0);
}

/* journal_get_superblock / load_superblock / jbd2_journal_load's checks. */
static void test_jbd2__load_checks_superblock(void **state)
{
	static const struct { void (*edit)(uint8_t *); bool fix; int err; } cases[] = {
		{ sb_bad_magic, true, -EINVAL }, { sb_v3, true, -EINVAL },
		{ sb_too_long, true, -EINVAL }, { sb_first_0, true, -EINVAL },
		{ sb_bad_bs, true, -EINVAL }, { sb_unknown, true, -EINVAL },
		{ sb_ro_unknown, true, -EINVAL }, { sb_v2_and_v3, true, -EINVAL },
		{ sb_seq, false, -EFSBADCRC }, { sb_seq, true, 0 },
		{ sb_shorter, true, 0 }, { sb_v1, true, 0 },
	};
	struct fx *f = *state;
	uint8_t good[BS];

	g_incompat = CSUM_V3_64BIT;
	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ 3 }, (uint8_t[]){ 0x33 }, 1);
	jbd2_journal_release(&f->j);
	read_log_block(f, 0, good);
	assert_int_equal(get_be32(good + 0x28), CSUM_V3_64BIT);
	jbd2_journal_destroy(&f->j);
	fx_init_journal(f);
	assert_int_equal(jbd2_journal_load(&f->j, &(struct jbd2_recovery_info){ 0 }), 0);
	for (uint32_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(load_edited(f, cases[i].edit, cases[i].fix), cases[i].err);
		sb_restore(f, good);
	}
	/* s_maxlen below the mapped length: the log ends there */
	assert_int_equal(load_edited(f, sb_shorter, true), 0);
	assert_int_equal(jbd2_journal_load(&f->j, &(struct jbd2_recovery_info){ 0 }), 0);
	assert_int_equal(f->j.j_last, J_LEN - 8);
	/* a map with a hole, or too short, is refused */
	jbd2_journal_destroy(&f->j);
	assert_int_equal(jbd2_journal_init(&f->j, f->bd, (struct jbd2_extent[]){
		{ 0, J_START, 100 }, { 101, J_START + 101, 155 } }, 2, f, &fx_ops, &f->ctr), -EINVAL);
	assert_int_equal(jbd2_journal_init(&f->j, f->bd, &(struct jbd2_extent){ 0, J_START, 63 },
					   1, f, &fx_ops, &f->ctr), -EINVAL);
	fx_init_journal(f);
}

/* Log blocks [from, to) of the last transaction, as read back. */
static void check_descriptor(struct fx *f, const uint8_t *d, uint32_t tid, uint32_t n,
			     const uint32_t *blocks, uint32_t first_log)
{
	uint8_t copy[BS];
	uint32_t off = 12;

	assert_int_equal(get_be32(d + 4), JBD2_DESCRIPTOR_BLOCK);
	assert_int_equal(get_be32(d + 8), tid);
	for (uint32_t k = 0; k < n; k++) {
		uint16_t flags = (uint16_t)(d[off + 6] << 8 | d[off + 7]);

		assert_int_equal(get_be32(d + off), blocks[k]);
		assert_int_equal(get_be32(d + off + 8), 0);             /* t_blocknr_high */
		assert_int_equal(flags & (JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG),
				 (k ? JBD2_FLAG_SAME_UUID : 0) | (k + 1 == n ? JBD2_FLAG_LAST_TAG : 0));
		read_log_block(f, first_log + k, copy);
		/* jbd2_block_tag_csum_set: crc32c(seed, be32 tid) then the block */
		{
			uint8_t seq[4];

			put_be32(seq, tid);
			assert_int_equal(get_be32(d + off + 12),
					 ref_crc32c(ref_crc32c(ref_seed(), seq, 4), copy, BS));
		}
		off += 16;
		if (k == 0) {
			for (uint32_t u = 0; u < 16; u++)
				assert_int_equal(d[off + u], 0);        /* j_uuid: never set */
			off += 16;
		}
	}
	assert_int_equal(get_be32(d + BS - 4), ref_csum_hole(ref_seed(), d, BS, BS - 4));
}

/*
 * csum v3 + 64bit: 16-byte tags, 61 to a 1 KiB descriptor (the kernel's
 * loop: 12 + 16 + 16 bytes, then 16 a tag while 36 bytes are left), so 62
 * buffers take two descriptors; every checksum recomputed here.
 */
static void test_jbd2__csum_v3_descriptor_commit_and_tags(void **state)
{
	struct fx *f = *state;
	uint32_t blocks[62], start, tid;
	uint8_t d[BS], c[BS];
	handle_t *h;

	g_incompat = CSUM_V3_64BIT;
	fx_format(f, J_LEN);
	assert_int_equal(jbd2_tags_per_descriptor(&f->j), 61);
	h = fx_start(f, 62);
	for (uint32_t i = 0; i < 62; i++) {
		blocks[i] = DATA_FIRST + i;
		fx_set(f, blocks[i], (uint8_t)(0x40 + i));
		fx_dirty(f, h, blocks[i]);
	}
	tid = h->h_transaction->t_tid;
	fx_stop(f, h);
	start = f->j.j_head;
	fx_commit(f);
	assert_int_equal(f->j.j_head - start, 1 + 61 + 1 + 1 + 1);
	read_log_block(f, start, d);
	check_descriptor(f, d, tid, 61, blocks, start + 1);
	read_log_block(f, start + 62, d);
	check_descriptor(f, d, tid, 1, blocks + 61, start + 63);
	read_log_block(f, start + 64, c);
	assert_int_equal(get_be32(c + 4), JBD2_COMMIT_BLOCK);
	assert_int_equal(c[12], 0);
	assert_int_equal(c[13], 0);
	assert_int_equal(get_be32(c + 16), ref_csum_hole(ref_seed(), c, BS, 16));
	assert_int_equal(get_be32(c + 48), 0);
	assert_int_equal(get_be32(c + 52), (uint32_t)JBD2_MODEL_COMMIT_SEC);
	struct jbd2_recovery_info info;

	fx_crash_verify(f, &info);
	assert_int_equal(info.nr_replayed, 62);
}

/* Without csum: 8-byte tags (122 a descriptor), 12 with 64bit (81). */
static void test_jbd2__tag_sizes_without_csum(void **state)
{
	struct fx *f = *state;
	uint8_t d[BS];
	uint32_t start;

	fx_format(f, J_LEN);
	assert_int_equal(journal_tag_bytes(&f->j), 8);
	assert_int_equal(jbd2_tags_per_descriptor(&f->j), 122);
	assert_int_equal(journal_revoke_records_per_block(&f->j), (BS - 16) / 4);
	start = f->j.j_head;
	fx_tx(f, (uint32_t[]){ 5, 6 }, (uint8_t[]){ 0x55, 0x66 }, 2);
	read_log_block(f, start, d);
	assert_int_equal(get_be32(d + 12), 5);
	assert_int_equal(d[12 + 7], 0);                         /* first tag: no flag */
	assert_int_equal(get_be32(d + 12 + 8 + 16), 6);         /* after the UUID */
	assert_int_equal(d[12 + 8 + 16 + 7], JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG);
	assert_int_equal(jbd2_journal_set_features(&f->j, 0, 0, JBD2_FEATURE_INCOMPAT_64BIT), 1);
	assert_int_equal(journal_tag_bytes(&f->j), 12);
	assert_int_equal(jbd2_tags_per_descriptor(&f->j), 81);
	assert_int_equal(journal_revoke_records_per_block(&f->j), (BS - 16) / 8);
	start = f->j.j_head;
	fx_tx(f, (uint32_t[]){ 5, 6 }, (uint8_t[]){ 0x57, 0x68 }, 2);
	read_log_block(f, start, d);
	assert_int_equal(get_be32(d + 12 + 12 + 16), 6);
	assert_int_equal(d[12 + 12 + 16 + 7], JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG);
	assert_int_equal(get_be32(d + 12 + 12 + 16 + 8), 0);    /* t_blocknr_high */
}

/* Flip one byte of journal block @l (durably). */
static void corrupt_log_block(struct fx *f, uint32_t l, uint32_t byte)
{
	uint8_t b[BS];

	read_log_block(f, l, b);
	b[byte] ^= 0x5a;
	blkdev_write_durable(f->bd, jbd2_log_block(&f->j, l), b);
}

/* Crash and load without the fixture's success check: load's errno. */
static int crash_load(struct fx *f, struct jbd2_recovery_info *info)
{
	int err;

	snapshot_pre(f);
	blkdev_crash(f->bd);
	jbd2_journal_destroy(&f->j);
	ref_clear_running(&f->ref);
	fx_init_journal(f);
	err = jbd2_journal_load(&f->j, info);
	reload_mem(f);
	return err;
}

/*
 * A torn commit block (its checksum fails): the scan ends at its tid
 * (j_failed_commit), the transactions before it are replayed, and the load
 * fails with -EFSCORRUPTED as 6.1's jbd2_journal_load does.
 */
static void test_jbd2__torn_commit_block_ends_replay(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint32_t bad;

	g_incompat = CSUM_V3_64BIT;
	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ 1, 2 }, (uint8_t[]){ 0x71, 0x72 }, 2);
	fx_tx(f, (uint32_t[]){ 2, 3 }, (uint8_t[]){ 0x82, 0x83 }, 2);
	bad = f->j.j_commit_sequence;
	corrupt_log_block(f, find_commit_block(f, bad), 200);
	assert_int_equal(crash_load(f, &info), -EFSCORRUPTED);
	assert_int_equal(f->j.j_failed_commit, bad);
	assert_int_equal(info.end_transaction, bad);
	assert_int_equal(info.nr_replayed, 2);
	assert_true(dev_is_fill(f, 1, 0x71));
	assert_true(dev_is_fill(f, 2, 0x72));
	assert_true(dev_is(f, 3, blk(f->initial, 3)));
}

/* A data block whose tag checksum fails is not written home; the load fails. */
static void test_jbd2__csum_failing_data_block_skipped(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint32_t start;

	g_incompat = CSUM_V3_64BIT;
	fx_format(f, J_LEN);
	start = f->j.j_head;
	fx_tx(f, (uint32_t[]){ 4, 5, 6 }, (uint8_t[]){ 0x44, 0x55, 0x66 }, 3);
	corrupt_log_block(f, start + 2, 9);                     /* block 5's copy */
	assert_int_equal(crash_load(f, &info), -EIO);           /* recovery: -EFSBADCRC */
	assert_int_equal(info.nr_replayed, 2);
	assert_true(dev_is_fill(f, 4, 0x44));
	assert_true(dev_is(f, 5, blk(f->initial, 5)));
	assert_true(dev_is_fill(f, 6, 0x66));
}

/* A descriptor whose checksum fails: recovery fails (6.1: at its commit). */
static void test_jbd2__csum_failing_descriptor_fails_recovery(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint32_t start;

	g_incompat = CSUM_V3_64BIT;
	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ 4 }, (uint8_t[]){ 0x44 }, 1);
	start = f->j.j_head;
	fx_tx(f, (uint32_t[]){ 5 }, (uint8_t[]){ 0x55 }, 1);
	corrupt_log_block(f, start, 600);                       /* unused descriptor space */
	assert_int_equal(crash_load(f, &info), -EIO);
	assert_int_equal(info.nr_replayed, 0);
	assert_true(dev_is(f, 4, blk(f->initial, 4)));
}

/* Revoke records of 8 bytes (64bit) with the tail checksum are honoured. */
static void test_jbd2__csum_v3_revoke_honoured(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint8_t r[BS];
	uint32_t start;
	handle_t *h;

	g_incompat = CSUM_V3_64BIT;
	fx_format(f, J_LEN);
	fx_tx(f, (uint32_t[]){ 7, 8 }, (uint8_t[]){ 0x77, 0x88 }, 2);
	h = fx_start(f, 1);
	fx_revoke(f, h, 7);
	fx_revoke(f, h, 9);
	fx_stop(f, h);
	start = f->j.j_head;
	fx_commit(f);
	read_log_block(f, start, r);
	assert_int_equal(get_be32(r + 4), JBD2_REVOKE_BLOCK);
	assert_int_equal(get_be32(r + 12), 16 + 2 * 8);         /* r_count */
	assert_int_equal(get_be32(r + 16), 0);
	assert_int_equal(get_be32(r + 20), 7);
	assert_int_equal(get_be32(r + 28), 9);
	assert_int_equal(get_be32(r + BS - 4), ref_csum_hole(ref_seed(), r, BS, BS - 4));
	fx_crash_verify(f, &info);
	assert_int_equal(info.nr_revoke_hits, 1);
	assert_true(dev_is(f, 7, blk(f->initial, 7)));
	assert_true(dev_is_fill(f, 8, 0x88));
}

/* A block starting with the big-endian magic: escaped, checksummed, restored. */
static void test_jbd2__csum_v3_escape_round_trip(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint8_t d[BS], copy[BS];
	uint32_t start;
	handle_t *h;

	g_incompat = CSUM_V3_64BIT;
	fx_format(f, J_LEN);
	h = fx_start(f, 1);
	fx_set(f, 3, 0x3c);
	put_be32(blk(f->mem, 3), JBD2_MAGIC_NUMBER);
	fx_dirty(f, h, 3);
	fx_stop(f, h);
	start = f->j.j_head;
	fx_commit(f);
	read_log_block(f, start, d);
	assert_int_equal(d[12 + 7], JBD2_FLAG_ESCAPE | JBD2_FLAG_LAST_TAG);
	read_log_block(f, start + 1, copy);
	assert_int_equal(get_be32(copy), 0);
	check_descriptor(f, d, f->j.j_commit_sequence, 1, (uint32_t[]){ 3 }, start + 1);
	fx_crash_verify(f, &info);
	read_dev(f, 3, copy);
	assert_int_equal(get_be32(copy), JBD2_MAGIC_NUMBER);
	assert_int_equal(copy[4], 0x3c);
}

/*
 * Features set by the mount of an empty log (as ext4's mount sets them at
 * every mount): the superblock on disk does not name them until the first
 * commit writes it (JBD2_FLUSHED), before that commit's log blocks, so a
 * crash after it recovers the csum v3 log it wrote; after that recovery the
 * superblock written at once (a log that was not empty) still names them.
 */
static void test_jbd2__features_reach_disk_with_first_commit(void **state)
{
	struct fx *f = *state;
	struct jbd2_recovery_info info;
	uint8_t sb[BS];

	fx_format(f, J_LEN);
	g_incompat = CSUM_V3_64BIT;
	fx_set_features(f);
	read_log_block(f, 0, sb);
	assert_int_equal(get_be32(sb + 0x28), 0);               /* in memory only */
	assert_int_equal(get_be32(sb + 0x1c), 0);               /* s_start: still empty */
	fx_tx(f, (uint32_t[]){ 1 }, (uint8_t[]){ 0x11 }, 1);
	assert_int_equal(get_be32(blkdev_peek_durable(f->bd, jbd2_log_block(&f->j, 0)) + 0x28),
			 CSUM_V3_64BIT);
	fx_crash_verify(f, &info);
	assert_int_equal(info.nr_replayed, 1);
	fx_tx(f, (uint32_t[]){ 2, 3 }, (uint8_t[]){ 0x22, 0x33 }, 2);
	assert_int_equal(get_be32(blkdev_peek_durable(f->bd, jbd2_log_block(&f->j, 0)) + 0x28),
			 CSUM_V3_64BIT);
	fx_crash_verify(f, &info);
	assert_int_equal(info.nr_replayed, 2);
	assert_true(dev_is_fill(f, 2, 0x22));
	assert_true(dev_is_fill(f, 3, 0x33));
}

/* The journal in three extents out of order: random crashes, csum v3 + 64bit. */
static void test_jbd2__random_csum_v3_scattered_map(void **state)
{
	static const struct jbd2_extent map[] = {
		{ 0, J_START + 156, 100 }, { 100, J_START, 56 }, { 156, J_START + 56, 100 },
	};
	struct fx *f = *state;
	struct jbd2_recovery_base rb;

	g_incompat = CSUM_V3_64BIT;
	g_map = map;
	g_nr_map = 3;
	for (uint32_t seed = 1; seed <= NR_SEEDS / 5; seed++)
		run_random_seed(f, seed, J_LEN, false);
	fx_format(f, J_LEN);
	assert_int_equal(jbd2_log_block(&f->j, 0), J_START + 156);
	assert_int_equal(jbd2_log_block(&f->j, 100), J_START);
	assert_int_equal(jbd2_log_block(&f->j, 255), J_START + 155);
	fx_tx(f, (uint32_t[]){ 2 }, (uint8_t[]){ 0x22 }, 1);
	assert_true(jbd2_recovery_prefix(&f->j, &rb));
	assert_true(jbd2_recovery_base_touches(&f->j, &rb, J_START + 156));    /* the sb */
	assert_true(jbd2_recovery_base_touches(&f->j, &rb, J_START + 157));    /* log 1 */
	assert_false(jbd2_recovery_base_touches(&f->j, &rb, J_START + 1));     /* log 101 */
	jbd2_recovery_base_free(&rb);
}

/* ------------------------------------------------------------------ */
/* e2fsprogs reads the model's log (driven by tests/topics/unit.sh)    */

#define IMG_HOMES 70u

/* An mke2fs-made image in a device: the file system the log is written for. */
struct img {
	const char *path;
	struct blkdev *bd;
	uint32_t nr_blocks;
	struct jbd2_extent map[16];
	uint32_t nr_map;
	uint32_t home[IMG_HOMES];       /* free blocks the transactions journal */
	uint8_t val[IMG_HOMES];         /* their contents now: one byte value */
	struct sim_counters ctr;
};

static uint32_t img_index(const struct img *im, uint32_t blocknr)
{
	for (uint32_t i = 0; i < IMG_HOMES; i++)
		if (im->home[i] == blocknr)
			return i;
	fail_msg("block %u is not a home block", blocknr);
	return 0;
}

/* Home block i: its byte everywhere; block 1 starts with the magic (escaped). */
static void img_contents(const struct img *im, uint32_t i, uint8_t *out)
{
	memset(out, im->val[i], BS);
	if (i == 1)
		put_be32(out, JBD2_MAGIC_NUMBER);
}

static void img_get_block(void *fs, const struct jbd2_buf *b, uint8_t *out)
{
	const struct img *im = fs;

	img_contents(im, img_index(im, b->jb_blocknr), out);
}

static void img_commit_callback(void *fs, transaction_t *t)
{
	(void)fs;
	(void)t;
}

static const struct jbd2_fs_ops img_ops = {
	.get_block = img_get_block,
	.commit_callback = img_commit_callback,
};

/* One extent as debugfs's "stat <8>" prints it: "(A-B):C-D" or "(A):C". */
static void img_extent(struct jbd2_extent *e, const char *tok)
{
	uint32_t a, b, c, d;

	if (sscanf(tok, "(%u-%u):%u-%u", &a, &b, &c, &d) == 4) {
		assert_true(b >= a && d - c == b - a);
		*e = (struct jbd2_extent){ a, c, b - a + 1 };
	} else {
		assert_int_equal(sscanf(tok, "(%u):%u", &a, &c), 2);
		*e = (struct jbd2_extent){ a, c, 1 };
	}
}

/* The extents of debugfs's EXTENTS line, and "b b ..." from the environment. */
static bool img_parse(struct img *im)
{
	const char *m = getenv("EXT4SIM_JBD2_MAP"), *h = getenv("EXT4SIM_JBD2_HOME");
	int n = 0;

	im->path = getenv("EXT4SIM_JBD2_IMAGE");
	if (!im->path || !m || !h)
		return false;
	for (im->nr_map = 0; (m = strchr(m, '(')) != NULL; m++) {
		if (strncmp(m, "(ETB", 4) == 0)
			continue;                       /* an index block, not the journal's */
		assert_true(im->nr_map < 16);
		img_extent(&im->map[im->nr_map++], m);
	}
	for (uint32_t i = 0; i < IMG_HOMES; i++, h += n)
		assert_int_equal(sscanf(h, "%u%n", &im->home[i], &n), 1);
	return true;
}

static void img_load(struct img *im)
{
	uint8_t buf[BS];
	FILE *fp = fopen(im->path, "rb");

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	im->nr_blocks = (uint32_t)(ftell(fp) / BS);
	rewind(fp);
	im->bd = blkdev_create(im->nr_blocks, BS);
	for (uint32_t b = 0; b < im->nr_blocks; b++) {
		assert_int_equal(fread(buf, BS, 1, fp), 1);
		blkdev_write_durable(im->bd, b, buf);
	}
	fclose(fp);
}

static void img_store(struct img *im)
{
	uint8_t buf[BS];
	FILE *fp = fopen(im->path, "r+b");

	assert_non_null(fp);
	for (uint32_t b = 0; b < im->nr_blocks; b++) {
		blkdev_read(im->bd, b, buf);
		assert_int_equal(fwrite(buf, BS, 1, fp), 1);
	}
	assert_int_equal(fclose(fp), 0);
}

/* One handle: @n home blocks from @first get @v + i, @rv revoked; a commit. */
static void img_tx(struct img *im, journal_t *j, uint32_t first, uint32_t n, uint8_t v,
		   int rv)
{
	handle_t *h = jbd2_journal_start(j, n ? n : 1, 1);

	for (uint32_t i = first; i < first + n; i++) {
		im->val[i] = (uint8_t)(v + i);
		jbd2_journal_dirty_metadata(h, im->home[i]);
	}
	if (rv >= 0)
		jbd2_journal_revoke(h, im->home[rv]);
	jbd2_journal_stop(h);
	jbd2_journal_commit_transaction(j);
}

/*
 * With EXT4SIM_JBD2_IMAGE (an mke2fs image), _MAP (its inode 8's extents as
 * debugfs prints them) and _HOME (70 free blocks): mount its journal with 64bit and csum v3, as
 * ext4 does, commit three transactions (70 blocks in two descriptors, one
 * escaped; two rewritten; one revoked), cut the power and write the device
 * back, for debugfs's logdump and e2fsck's replay.  With _VERIFY set:
 * check the image after e2fsck replayed it.  Skipped without them.
 */
static void test_jbd2__e2fsprogs_image(void **state)
{
	static struct img im;
	struct jbd2_recovery_info info;
	journal_t j;
	uint8_t want[BS], got[BS];

	(void)state;
	if (!img_parse(&im))
		skip();
	img_load(&im);
	if (getenv("EXT4SIM_JBD2_VERIFY")) {
		for (uint32_t i = 0; i < IMG_HOMES; i++) {
			im.val[i] = i == 0 ? 0xa0 : i == 2 ? 0xa2 : i == 3 ? 0 : (uint8_t)(0x10 + i);
			img_contents(&im, i, want);
			if (i == 3)
				memset(want, 0, BS);            /* revoked: never written */
			blkdev_read(im.bd, im.home[i], got);
			assert_memory_equal(got, want, BS);
		}
		blkdev_destroy(im.bd);
		return;
	}
	assert_int_equal(jbd2_journal_init(&j, im.bd, im.map, im.nr_map, &im, &img_ops, &im.ctr), 0);
	assert_int_equal(jbd2_journal_load(&j, &info), 0);
	assert_int_equal(jbd2_journal_set_features(&j, 0, 0, CSUM_V3_64BIT), 1);
	img_tx(&im, &j, 0, IMG_HOMES, 0x10, -1);
	img_tx(&im, &j, 0, 1, 0xa0, -1);
	img_tx(&im, &j, 2, 1, 0xa0, 3);
	blkdev_crash(im.bd);
	img_store(&im);
	jbd2_journal_destroy(&j);
	blkdev_destroy(im.bd);
}

/* A SIM_ASSERT in the model aborts the binary: say which seed got there. */
static void on_abort(int sig)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg), "test_jbd2: aborted at seed %u (%s)\n",
			 g_seed, g_phase);

	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
		T(test_jbd2__random_crash_recovers_committed_transactions),
		T(test_jbd2__revoke_skips_older_copies),
		T(test_jbd2__revoke_then_rejournal_replays_newer),
		T(test_jbd2__recovery_base_matches_whole_log),
		T(test_jbd2__recovery_base_refused_by_later_revoke),
		T(test_jbd2__revoke_records_span_blocks),
		T(test_jbd2__revoke_then_redirty_same_transaction_is_replayed),
		T(test_jbd2__forget_in_running_then_checkpoint_keeps_committed_copy),
		T(test_jbd2__random_small_journal_wraps),
		T(test_jbd2__wrap_live_log_straddles_end),
		T(test_jbd2__missing_commit_block_not_replayed),
		T(test_jbd2__missing_middle_commit_block_ends_replay),
		T(test_jbd2__start_commits_when_transaction_full),
		T(test_jbd2__freed_ranges_released_once_at_commit),
		T(test_jbd2__counters_top_level_handles_and_commits),
		T(test_jbd2__clean_release_needs_no_recovery),
		T(test_jbd2__escaped_blocks_replayed_with_magic),
		T(test_jbd2__structures_at_kernel_offsets),
		T(test_jbd2__crc32c_paths_agree),
		T(test_jbd2__superblock_as_e2fsprogs_then_features),
		T(test_jbd2__load_checks_superblock),
		T(test_jbd2__csum_v3_descriptor_commit_and_tags),
		T(test_jbd2__tag_sizes_without_csum),
		T(test_jbd2__torn_commit_block_ends_replay),
		T(test_jbd2__csum_failing_data_block_skipped),
		T(test_jbd2__csum_failing_descriptor_fails_recovery),
		T(test_jbd2__csum_v3_revoke_honoured),
		T(test_jbd2__csum_v3_escape_round_trip),
		T(test_jbd2__random_csum_v3_scattered_map),
		T(test_jbd2__features_reach_disk_with_first_commit),
		T(test_jbd2__e2fsprogs_image),
#undef T
	};

	signal(SIGABRT, on_abort);

	return cmocka_run_group_tests_name("jbd2", tests, NULL, NULL);
}
