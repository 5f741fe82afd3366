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
 * The checksums (csum v2/v3), as 6.1 checks them:
 *   - a descriptor or revoke block that fails in PASS_SCAN marks the
 *     transaction (need_check_commit_time); at its commit block a commit
 *     time not older than the last one ends recovery with -EFSBADCRC, an
 *     older one (a stale block) ends the scan there with success; a
 *     descriptor failing in PASS_REVOKE or PASS_REPLAY is -EFSBADCRC;
 *   - a commit block that fails in PASS_SCAN ends the log at its tid
 *     (info->end_transaction) and sets j_failed_commit (jbd2_journal_load
 *     then returns -EFSCORRUPTED), unless its commit time is older than the
 *     last (then ignored as stale);
 *   - a data block whose tag checksum fails is not written home in
 *     PASS_REPLAY; the replay goes on and ends with -EFSBADCRC.
 * Older kernels (before 5.10's need_check_commit_time, e.g. 5.4): a
 * descriptor failing in any pass was -EFSBADCRC at once, a revoke block was
 * checked in PASS_REVOKE (scan_revoke_records: -EFSBADCRC), and a failing
 * commit block was never taken for a stale one.  The v1 transaction checksum
 * (JBD2_FEATURE_COMPAT_CHECKSUM, calc_chksums) is not modelled.
 *
 * jbd2_recovery_prefix() runs the same passes once on a device and keeps
 * where they stopped (jbd2.h, struct jbd2_recovery_base): the crash states of
 * one crash point share the log up to the last commit before it, and each
 * recovers only the rest on an overlay of the replayed prefix, the same
 * writes in the same order as the kernel's passes over the whole log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "jbd2.h"
#include "jbd2_disk.h"
#include "sim.h"

enum pass { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

struct recovery {
	journal_t *j;
	uint8_t *buf;
	uint8_t *data;
	uint32_t start;         /* where the passes begin ... */
	uint32_t start_tid;     /* ... and with which tid */
	uint32_t end_tid;       /* first tid without a commit block (after scan) */
	bool end_set;           /* info->end_transaction set during the scan */
	bool need_check_commit_time;
	uint64_t last_trans_commit_time;
	int err;                /* the pass's error: it ends the passes */
	int success;            /* PASS_REPLAY's error: the replay goes on */
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

/* scan_revoke_records(): 4- or 8-byte records up to r_count. */
static int scan_revoke_records(struct recovery *r, uint32_t tid)
{
	const journal_t *j = r->j;
	uint32_t rcount = be32_to_cpu(((const jbd2_journal_revoke_header_t *)r->buf)->r_count);
	uint32_t csum_size = jbd2_journal_has_csum_v2or3(j) ? 4 : 0;
	uint32_t len = jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT) ? 8 : 4;

	if (rcount > j->j_dev->bd_block_size - csum_size)
		return -EINVAL;
	for (uint32_t off = sizeof(jbd2_journal_revoke_header_t); off + len <= rcount; off += len) {
		uint64_t blocknr = get_be32(r->buf + off + len - 4);

		if (len == 8)
			blocknr |= (uint64_t)get_be32(r->buf + off) << 32;
		if (blocknr <= UINT32_MAX)      /* the model's blocks are 32-bit */
			set_revoke(r, (uint32_t)blocknr, tid);
	}
	return 0;
}

/* count_tags(): the tags of the descriptor in r->buf. */
static uint32_t count_tags(const struct recovery *r)
{
	uint32_t size = r->j->j_dev->bd_block_size, tb = journal_tag_bytes(r->j), nr = 0;
	const uint8_t *tagp = r->buf + sizeof(journal_header_t);

	if (jbd2_journal_has_csum_v2or3(r->j))
		size -= sizeof(struct jbd2_journal_block_tail);
	while ((uint32_t)(tagp - r->buf) + tb <= size) {
		uint16_t flags = jbd2_tag_flags(tagp);

		nr++;
		tagp += tb + (flags & JBD2_FLAG_SAME_UUID ? 0 : 16);
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return nr;
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

/* @n log blocks on from @pos, wrapping as wrap() does. */
static uint32_t advance(const journal_t *j, uint32_t pos, uint32_t n)
{
	while (n--)
		pos = next_log(j, pos);
	return pos;
}

/*
 * One tag of PASS_REPLAY: unless revoked, the log block at @pos, its tag
 * checksum checked (a failure skips it: -EFSBADCRC at the end), unescaped
 * and written home.
 */
static void replay_tag(struct recovery *r, const uint8_t *tag, uint32_t pos, uint32_t tid)
{
	uint64_t blocknr = jbd2_read_tag_block(r->j, tag);
	struct bio_info bi = { .bi_func = "do_one_pass", .bi_what = BW_REPLAY, .bi_lblk = -1,
			       .bi_tid = tid };

	if (blocknr <= UINT32_MAX && test_revoke(r, (uint32_t)blocknr, tid)) {
		r->info->nr_revoke_hits++;
		return;
	}
	if (blocknr >= r->j->j_dev->bd_nr_blocks)
		return;
	read_log(r, pos, r->data);
	if (!jbd2_block_tag_csum_verify(r->j, tag, r->data, tid)) {
		r->success = -EFSBADCRC;        /* "Invalid checksum recovering data block" */
		return;
	}
	if (jbd2_tag_flags(tag) & JBD2_FLAG_ESCAPE)
		put_be32(r->data, JBD2_MAGIC_NUMBER);
	bi.bi_home = (uint32_t)blocknr;
	blkdev_submit_bio(r->j->j_dev, (uint32_t)blocknr, r->data, BIO_META, false, &bi);
	r->info->nr_replayed++;
	r->info->nr_blocks++;
	note_wrote(r, (uint32_t)blocknr);
}

/*
 * A descriptor at @pos: its checksum; in PASS_SCAN and PASS_REVOKE skip the
 * blocks it tags, in PASS_REPLAY write each home.  Returns the next position.
 */
static uint32_t do_descriptor(struct recovery *r, enum pass pass, uint32_t pos,
			      uint32_t tid)
{
	uint32_t bs = r->j->j_dev->bd_block_size, tb = journal_tag_bytes(r->j);
	uint32_t size = bs - (jbd2_journal_has_csum_v2or3(r->j) ? 4 : 0);
	uint8_t *desc;

	if (!jbd2_descriptor_block_csum_verify(r->j, r->buf)) {
		if (pass != PASS_SCAN) {
			r->err = -EFSBADCRC;    /* "Invalid checksum recovering block" */
			return pos;
		}
		r->need_check_commit_time = true;       /* maybe a stale block */
	}
	pos = next_log(r->j, pos);
	if (pass != PASS_REPLAY)
		return advance(r->j, pos, count_tags(r));
	desc = sim_realloc_array(NULL, 1, bs);
	memcpy(desc, r->buf, bs);
	for (uint8_t *tagp = desc + sizeof(journal_header_t);
	     (uint32_t)(tagp - desc) + tb <= size;) {
		uint16_t flags = jbd2_tag_flags(tagp);

		replay_tag(r, tagp, pos, tid);
		pos = next_log(r->j, pos);
		tagp += tb + (flags & JBD2_FLAG_SAME_UUID ? 0 : 16);
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	free(desc);
	return pos;
}

/*
 * A commit block of @*tid: in PASS_SCAN its checksum and commit time
 * (the file's opening comment).  Returns false when the pass ends here.
 */
static bool do_commit(struct recovery *r, enum pass pass, uint32_t *tid)
{
	uint64_t commit_time = be64_to_cpu(((const struct commit_header *)r->buf)->h_commit_sec);

	if (r->need_check_commit_time) {
		if (commit_time >= r->last_trans_commit_time)
			r->err = -EFSBADCRC;    /* "Invalid checksum found in transaction" */
		return false;                   /* else: stale, recovery ends with success */
	}
	if (pass == PASS_SCAN && !jbd2_commit_block_csum_verify(r->j, r->buf) &&
	    commit_time >= r->last_trans_commit_time) {
		r->end_tid = *tid;
		r->end_set = true;
		r->j->j_failed_commit = *tid;   /* not async_commit: corrupt */
		return true;                    /* the kernel's break: the scan reads on */
	}
	if (pass == PASS_SCAN)
		r->last_trans_commit_time = commit_time;
	++*tid;
	return true;
}

/* Is the block at @pos, just read, a log block of @tid the pass goes on with? */
static bool log_block_of(struct recovery *r, enum pass pass, uint32_t tid)
{
	const journal_header_t *h = (const journal_header_t *)r->buf;

	return be32_to_cpu(h->h_magic) == JBD2_MAGIC_NUMBER &&
	       be32_to_cpu(h->h_sequence) == tid &&
	       (pass == PASS_SCAN || (int32_t)(tid - r->end_tid) < 0);
}

/* do_one_pass(): one pass over the log; returns the tid it ended at. */
static uint32_t do_one_pass(struct recovery *r, enum pass pass)
{
	uint32_t pos = r->start, tid = r->start_tid;
	bool go = true;

	r->stop_pos = 0;        /* 0: stopped by the step bound or an unknown block */
	r->need_check_commit_time = false;
	r->last_trans_commit_time = 0;
	for (uint32_t steps = 0; go && !r->err && steps < r->j->j_total_len * 2; steps++) {
		read_log(r, pos, r->buf);
		if (!log_block_of(r, pass, tid)) {
			r->stop_pos = pos;
			break;
		}
		switch (be32_to_cpu(((const journal_header_t *)r->buf)->h_blocktype)) {
		case JBD2_DESCRIPTOR_BLOCK:
			pos = do_descriptor(r, pass, pos, tid);
			continue;
		case JBD2_REVOKE_BLOCK:
			if (pass == PASS_SCAN && !jbd2_descriptor_block_csum_verify(r->j, r->buf))
				r->need_check_commit_time = true;
			if (pass == PASS_REVOKE)
				r->err = scan_revoke_records(r, tid);
			break;
		case JBD2_COMMIT_BLOCK:
			go = do_commit(r, pass, &tid);
			break;
		default:
			return tid;
		}
		pos = next_log(r->j, pos);
	}
	return tid;
}

/*
 * Allocate the buffers and read the superblock (checked as
 * journal_get_superblock does when the journal is not loaded); false if the
 * log is empty or the superblock is not valid.
 */
static bool recovery_begin(struct recovery *r)
{
	uint32_t bs = r->j->j_dev->bd_block_size;
	const journal_superblock_t *sb = (const journal_superblock_t *)r->j->j_superblock;

	r->buf = sim_realloc_array(NULL, 1, bs);       /* each read whole before use */
	r->data = sim_realloc_array(NULL, 1, bs);
	r->j->j_failed_commit = 0;
	read_log(r, 0, r->buf);
	if (r->j->j_format_version == 0 && jbd2_journal_get_superblock(r->j) < 0)
		return false;
	r->start = be32_to_cpu(sb->s_start);
	r->start_tid = be32_to_cpu(sb->s_sequence);
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

	tid = do_one_pass(r, PASS_SCAN);
	if (!r->end_set)
		r->end_tid = tid;
	/* (3) both passes walk, in tid order from the tail, every committed transaction */
	if (!r->err) {
		tid = do_one_pass(r, PASS_REVOKE);
		SIM_ASSERT(r->err || tid == r->end_tid);        /* (3) */
	}
	r->info->end_transaction = r->end_tid;
	if (r->refused)
		return;
	cause = ev_cause_push(j->j_dev->bd_events, EVC_RECOVERY);
	if (!r->err) {
		tid = do_one_pass(r, PASS_REPLAY);
		SIM_ASSERT(r->err || tid == r->end_tid);        /* (3) */
	}
	if (!r->err)
		r->err = r->success;
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
	return r.err;
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
		/* stopped at a block, not at the bound, and no checksum failed */
		ok = r.stop_pos != 0 && !r.err && !j->j_failed_commit;
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

	if (jbd2_journal_owns(j, blk, &l)) {
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
