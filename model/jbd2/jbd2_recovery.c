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
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "jbd2.h"
#include "sim.h"

enum pass { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

struct revoke_rec {
	uint32_t blocknr;
	uint32_t tid;
};

struct recovery {
	journal_t *j;
	uint8_t *buf;
	uint8_t *data;
	uint32_t start;
	uint32_t start_tid;
	uint32_t end_tid;       /* first tid without a commit block (after scan) */
	struct revoke_rec *rv;
	uint32_t nr_rv;
	uint32_t cap_rv;
	struct jbd2_recovery_info *info;
};

static uint32_t next_log(const journal_t *j, uint32_t blk)
{
	return blk + 1 == j->j_last ? j->j_first : blk + 1;
}

static void read_log(struct recovery *r, uint32_t logblk, uint8_t *out)
{
	blkdev_read(r->j->j_dev, jbd2_log_block(r->j, logblk), out);
}

static void set_revoke(struct recovery *r, uint32_t blocknr, uint32_t tid)
{
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

	for (uint32_t steps = 0; steps < r->j->j_total_len * 2; steps++) {
		read_log(r, pos, r->buf);
		if (get_le32(r->buf) != JBD2_MAGIC_NUMBER || get_le32(r->buf + 8) != tid)
			break;
		if (pass != PASS_SCAN && (int32_t)(tid - r->end_tid) >= 0)
			break;
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

int jbd2_journal_recover(journal_t *j, struct jbd2_recovery_info *info)
{
	struct recovery r = { .j = j, .info = info };
	uint32_t bs = j->j_dev->bd_block_size, tid;
	uint8_t cause;

	memset(info, 0, sizeof(*info));
	r.buf = sim_zalloc(bs);
	r.data = sim_zalloc(bs);
	read_log(&r, 0, r.buf);
	r.start = get_le32(r.buf + 28);
	r.start_tid = get_le32(r.buf + 24);
	info->start_transaction = r.start_tid;
	if (r.start == 0 || r.start >= j->j_last) {
		info->end_transaction = r.start_tid;
		goto out_free;
	}
	r.end_tid = do_one_pass(&r, PASS_SCAN);
	/* (3) both passes walk, in tid order from the tail, every committed transaction */
	tid = do_one_pass(&r, PASS_REVOKE);
	SIM_ASSERT(tid == r.end_tid);           /* (3) */
	cause = ev_cause_push(j->j_dev->bd_events, EVC_RECOVERY);
	tid = do_one_pass(&r, PASS_REPLAY);
	SIM_ASSERT(tid == r.end_tid);           /* (3) */
	info->end_transaction = r.end_tid;
	blkdev_complete_all(j->j_dev);
	blkdev_flush(j->j_dev, "jbd2_journal_recover");
	EV_RECORD(j->j_dev->bd_events, EV_RECOVERY, "jbd2_journal_recover", r.start_tid, r.end_tid,
		  info->nr_replayed, 0);
	ev_cause_pop(j->j_dev->bd_events, cause);
out_free:
	free(r.rv);
	free(r.data);
	free(r.buf);
	return 0;
}
