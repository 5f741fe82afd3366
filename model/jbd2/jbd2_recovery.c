/*
 * jbd2_recovery.c - replaying the log after a crash (fs/jbd2/recovery.c).
 *
 * Three passes over the log from the superblock's s_start, each a call of
 * do_one_pass() as in the kernel, split here into one helper per block type:
 *   PASS_SCAN    find the end: the first block that is not a log block of the
 *                expected sequence; a transaction counts only once its commit
 *                block is seen;
 *   PASS_REVOKE  collect revoke records (block -> newest revoking tid);
 *   PASS_REPLAY  write every tagged block of a complete transaction home,
 *                unless a transaction at or after it revoked the block.
 * Then the device is flushed (sync_blockdev + flush).
 *
 * jbd2_recovery_prefix() runs the same passes once on a device and keeps
 * where they stopped (jbd2.h, struct jbd2_recovery_base): the crash states of
 * one crash point share the log up to the last commit before it, and each
 * recovers only the rest on an overlay of the replayed prefix, the same
 * writes in the same order as the kernel's passes over the whole log.
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "jbd2.h"
#include "sim.h"

enum pass { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

struct recovery {
	journal_t *j;
	uint8_t *buf;
	uint8_t *data;
	uint32_t start;         /* where the passes begin ... */
	uint32_t start_tid;     /* ... and with which tid */
	uint32_t end_tid;       /* first tid without a commit block (after scan) */
	uint32_t stop_pos;      /* where the last pass stopped */
	uint32_t base_tid;      /* revokes from this tid on may not hit ... */
	const uint32_t *base_wrote;     /* ... these blocks (sorted) */
	uint32_t nr_base_wrote;
	bool refused;
	struct jbd2_revoke_rec *rv;
	uint32_t nr_rv;
	uint32_t cap_rv;
	uint32_t *wrote;        /* with record: the blocks written home */
	uint32_t nr_wrote;
	uint32_t cap_wrote;
	bool record;
	struct jbd2_recovery_info *info;
};

static uint32_t next_log(const journal_t *j, uint32_t blk)
{
	return blk + 1 == j->j_last ? j->j_first : blk + 1;
}

static void read_log(struct recovery *r, uint32_t logblk, uint8_t *out)
{
	blkdev_read(r->j->j_dev, jbd2_log_block(r->j, logblk), out);
	r->info->nr_blocks++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static bool base_wrote(const struct recovery *r, uint32_t blocknr)
{
	return r->nr_base_wrote &&
	       bsearch(&blocknr, r->base_wrote, r->nr_base_wrote, sizeof(blocknr), cmp_u32);
}

static void set_revoke(struct recovery *r, uint32_t blocknr, uint32_t tid)
{
	if ((int32_t)(tid - r->base_tid) >= 0 && base_wrote(r, blocknr))
		r->refused = true;      /* the base replayed a block this revokes */
	for (uint32_t i = 0; i < r->nr_rv; i++) {
		if (r->rv[i].blocknr == blocknr) {
			if ((int32_t)(tid - r->rv[i].tid) > 0)
				r->rv[i].tid = tid;
			return;
		}
	}
	if (r->nr_rv == r->cap_rv) {
		r->cap_rv = r->cap_rv ? 2 * r->cap_rv : 16;
		r->rv = sim_realloc_array(r->rv, r->cap_rv, sizeof(*r->rv));
	}
	r->rv[r->nr_rv].blocknr = blocknr;
	r->rv[r->nr_rv].tid = tid;
	r->nr_rv++;
	r->info->nr_revokes++;
}

/* jbd2_journal_test_revoke(): revoked in @tid or a later transaction? */
static bool test_revoke(const struct recovery *r, uint32_t blocknr, uint32_t tid)
{
	for (uint32_t i = 0; i < r->nr_rv; i++)
		if (r->rv[i].blocknr == blocknr)
			return (int32_t)(tid - r->rv[i].tid) <= 0;
	return false;
}

static void scan_revoke_block(struct recovery *r, uint32_t tid)
{
	uint32_t bs = r->j->j_dev->bd_block_size;
	uint32_t used = get_le32(r->buf + JBD2_HEADER_SIZE);

	if (used > bs)
		used = bs;
	for (uint32_t off = JBD2_HEADER_SIZE + 4; off + 4 <= used; off += 4)
		set_revoke(r, get_le32(r->buf + off), tid);
}

static void note_wrote(struct recovery *r, uint32_t blocknr)
{
	if (!r->record)
		return;
	if (r->nr_wrote == r->cap_wrote) {
		r->cap_wrote = r->cap_wrote ? 2 * r->cap_wrote : 16;
		r->wrote = sim_realloc_array(r->wrote, r->cap_wrote, sizeof(*r->wrote));
	}
	r->wrote[r->nr_wrote++] = blocknr;
}

/* A descriptor: walk its tags; in PASS_REPLAY write each block home. */
static uint32_t do_descriptor(struct recovery *r, enum pass pass, uint32_t pos,
			      uint32_t tid)
{
	uint32_t bs = r->j->j_dev->bd_block_size;
	uint8_t *desc = sim_zalloc(bs);

	memcpy(desc, r->buf, bs);
	for (uint32_t off = JBD2_HEADER_SIZE; off + JBD2_TAG_SIZE <= bs; off += JBD2_TAG_SIZE) {
		uint32_t blocknr = get_le32(desc + off), flags = get_le32(desc + off + 4);

		pos = next_log(r->j, pos);
		if (pass == PASS_REPLAY) {
			if (test_revoke(r, blocknr, tid)) {
				r->info->nr_revoke_hits++;
			} else if (blocknr < r->j->j_dev->bd_nr_blocks) {
				read_log(r, pos, r->data);
				if (flags & JBD2_FLAG_ESCAPE)
					put_le32(r->data, JBD2_MAGIC_NUMBER);
				struct bio_info bi = { .bi_func = "do_one_pass",
						       .bi_what = BW_REPLAY, .bi_lblk = -1,
						       .bi_tid = tid, .bi_home = blocknr };

				blkdev_submit_bio(r->j->j_dev, blocknr, r->data, BIO_META,
						  false, &bi);
				r->info->nr_replayed++;
				r->info->nr_blocks++;
				note_wrote(r, blocknr);
			}
		}
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	free(desc);
	return next_log(r->j, pos);
}

/* One pass over the log; returns the first tid that has no commit block. */
static uint32_t do_one_pass(struct recovery *r, enum pass pass)
{
	uint32_t pos = r->start, tid = r->start_tid;

	r->stop_pos = 0;        /* 0: stopped by the step bound or an unknown block */
	for (uint32_t steps = 0; steps < r->j->j_total_len * 2; steps++) {
		read_log(r, pos, r->buf);
		if (get_le32(r->buf) != JBD2_MAGIC_NUMBER || get_le32(r->buf + 8) != tid ||
		    (pass != PASS_SCAN && (int32_t)(tid - r->end_tid) >= 0)) {
			r->stop_pos = pos;
			break;
		}
		switch (get_le32(r->buf + 4)) {
		case JBD2_DESCRIPTOR_BLOCK:
			pos = do_descriptor(r, pass, pos, tid);
			continue;
		case JBD2_REVOKE_BLOCK:
			if (pass == PASS_REVOKE)
				scan_revoke_block(r, tid);
			break;
		case JBD2_COMMIT_BLOCK:
			tid++;
			break;
		default:
			return tid;
		}
		pos = next_log(r->j, pos);
	}
	return tid;
}

/* Allocate the buffers and read the superblock; false if the log is empty. */
static bool recovery_begin(struct recovery *r)
{
	uint32_t bs = r->j->j_dev->bd_block_size;

	r->buf = sim_zalloc(bs);
	r->data = sim_zalloc(bs);
	read_log(r, 0, r->buf);
	r->start = get_le32(r->buf + 28);
	r->start_tid = get_le32(r->buf + 24);
	r->info->start_transaction = r->start_tid;
	r->info->end_transaction = r->start_tid;
	return r->start != 0 && r->start < r->j->j_last;
}

static void recovery_end(struct recovery *r)
{
	free(r->rv);
	free(r->wrote);
	free(r->data);
	free(r->buf);
}

/*
 * The three passes from (r->start, r->start_tid), then sync_blockdev and the
 * flush; no replay when a revoke hits a block the base wrote (r->refused).
 */
static void run_passes(struct recovery *r, uint32_t first_tid)
{
	journal_t *j = r->j;
	uint32_t tid;
	uint8_t cause;

	r->end_tid = do_one_pass(r, PASS_SCAN);
	/* (3) both passes walk, in tid order from the tail, every committed transaction */
	tid = do_one_pass(r, PASS_REVOKE);
	SIM_ASSERT(tid == r->end_tid);          /* (3) */
	r->info->end_transaction = r->end_tid;
	if (r->refused)
		return;
	cause = ev_cause_push(j->j_dev->bd_events, EVC_RECOVERY);
	tid = do_one_pass(r, PASS_REPLAY);
	SIM_ASSERT(tid == r->end_tid);          /* (3) */
	blkdev_complete_all(j->j_dev);
	blkdev_flush(j->j_dev, "jbd2_journal_recover");
	EV_RECORD(j->j_dev->bd_events, EV_RECOVERY, "jbd2_journal_recover", first_tid, r->end_tid,
		  r->info->nr_replayed, 0);
	ev_cause_pop(j->j_dev->bd_events, cause);
}

/* Start where @b's passes stopped, with its records and counts. */
static void resume_from_base(struct recovery *r, const struct jbd2_recovery_base *b)
{
	SIM_ASSERT(r->start == b->rb_start && r->start_tid == b->rb_start_tid);
	r->start = b->rb_pos;
	r->start_tid = b->rb_end_tid;
	r->base_tid = b->rb_end_tid;
	r->base_wrote = b->rb_wrote;
	r->nr_base_wrote = b->rb_nr_wrote;
	r->cap_rv = r->nr_rv = b->rb_nr_rv;
	r->rv = sim_zalloc((r->cap_rv + 1) * sizeof(*r->rv));
	if (r->nr_rv)           /* rb_rv is NULL when the base saw no revoke */
		memcpy(r->rv, b->rb_rv, r->nr_rv * sizeof(*r->rv));
	r->info->nr_replayed = b->rb_info.nr_replayed;
	r->info->nr_revoke_hits = b->rb_info.nr_revoke_hits;
	r->info->nr_revokes = b->rb_info.nr_revokes;
}

int jbd2_journal_recover(journal_t *j, struct jbd2_recovery_info *info)
{
	return jbd2_journal_recover_base(j, info, NULL);
}

int jbd2_journal_recover_base(journal_t *j, struct jbd2_recovery_info *info,
			      const struct jbd2_recovery_base *b)
{
	struct recovery r = { .j = j, .info = info };
	uint32_t first_tid;

	memset(info, 0, sizeof(*info));
	if (recovery_begin(&r)) {
		first_tid = r.start_tid;
		if (b)
			resume_from_base(&r, b);
		run_passes(&r, first_tid);
		info->base_refused = r.refused;
	}
	recovery_end(&r);
	return 0;
}

bool jbd2_recovery_prefix(journal_t *j, struct jbd2_recovery_base *b)
{
	struct recovery r = { .j = j, .record = true };
	bool ok;

	memset(b, 0, sizeof(*b));
	r.info = &b->rb_info;
	ok = recovery_begin(&r);
	if (ok) {
		b->rb_start = r.start;
		b->rb_start_tid = r.start_tid;
		run_passes(&r, r.start_tid);
		ok = r.stop_pos != 0;   /* stopped at a block, not at the bound */
		b->rb_pos = r.stop_pos;
		b->rb_end_tid = r.end_tid;
		if (r.nr_wrote)         /* r.wrote is NULL when nothing was written home */
			qsort(r.wrote, r.nr_wrote, sizeof(*r.wrote), cmp_u32);
		for (uint32_t i = 0; i < r.nr_wrote; i++)
			if (!b->rb_nr_wrote || r.wrote[b->rb_nr_wrote - 1] != r.wrote[i])
				r.wrote[b->rb_nr_wrote++] = r.wrote[i];
		b->rb_wrote = r.wrote;
		b->rb_rv = r.rv;
		b->rb_nr_rv = r.nr_rv;
		r.wrote = NULL;
		r.rv = NULL;
	}
	recovery_end(&r);
	if (!ok)
		jbd2_recovery_base_free(b);
	return ok;
}

bool jbd2_recovery_base_touches(const journal_t *j, const struct jbd2_recovery_base *b,
				uint32_t blk)
{
	uint32_t l;

	if (blk >= j->j_blk_offset && blk - j->j_blk_offset < j->j_total_len) {
		l = blk - j->j_blk_offset;
		if (l == 0)
			return true;    /* the superblock */
		return b->rb_pos >= b->rb_start ? l >= b->rb_start && l < b->rb_pos :
						  l >= b->rb_start || l < b->rb_pos;
	}
	return b->rb_nr_wrote &&
	       bsearch(&blk, b->rb_wrote, b->rb_nr_wrote, sizeof(blk), cmp_u32);
}

void jbd2_recovery_base_free(struct jbd2_recovery_base *b)
{
	free(b->rb_rv);
	free(b->rb_wrote);
	memset(b, 0, sizeof(*b));
}
