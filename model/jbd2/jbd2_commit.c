/*
 * jbd2_commit.c - committing the running transaction, in the order of
 * fs/jbd2/commit.c jbd2_journal_commit_transaction() with barriers on and
 * async_commit off, each state set where the kernel sets it:
 *
 *   1. T_LOCKED: no new handle joins; jbd2_journal_wait_updates() waits for
 *      the open ones (none is open here: single task);
 *   2. T_SWITCH: the updates are done; unused reserved buffers go back and
 *      the revoke table is switched (nothing to model);
 *   3. T_FLUSH: the transaction becomes the committing one and a new running
 *      transaction may start; submit the ordered data (JI_WRITE_DATA,
 *      journal_submit_data_buffers) and write the revoke records;
 *   4. T_COMMIT: write the descriptor blocks and block copies to the log,
 *      then wait for the ordered data (JI_WAIT_DATA,
 *      journal_finish_inode_data_buffers);
 *   5. T_COMMIT_DFLUSH: flush the file system device if the journal is on
 *      another one (never here: the journal is internal), wait for the log
 *      writes;
 *   6. T_COMMIT_JFLUSH: the commit block, REQ_PREFLUSH | REQ_FUA (a flush,
 *      then the block with FUA), waited for; the copies go to the checkpoint
 *      list;
 *   7. T_COMMIT_CALLBACK: j_commit_sequence moves to the tid; the file
 *      system's j_commit_callback (freed blocks return to the allocator);
 *   8. T_FINISHED.
 * T_SWITCH exists since 96f1e0974575 ("jbd2: avoid long hold times of
 * j_state_lock while committing a transaction", v5.2), before every
 * profile's kernel; the other states are older.
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "jbd2.h"
#include "jbd2_disk.h"
#include "sim.h"

struct log_writer {
	journal_t *j;
	uint64_t *seqs;         /* bios to wait for */
	uint32_t nr;
	uint32_t cap;
	uint32_t written;       /* log blocks used */
};

static uint32_t div_round_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

/* Log blocks a commit of @t takes, commit block included. */
static uint32_t commit_log_blocks(const journal_t *j, const transaction_t *t)
{
	return div_round_up(t->t_nr_revoke, journal_revoke_records_per_block(j)) +
	       div_round_up(t->t_nr_buffers, jbd2_tags_per_descriptor(j)) +
	       t->t_nr_buffers + 1;
}

/* One log block at the head; @what, @tid and @home say what it is (struct bio_info). */
static void log_write(struct log_writer *w, const uint8_t *data, enum bio_kind kind,
		      enum bio_what what, uint32_t tid, const struct jbd2_buf *home)
{
	journal_t *j = w->j;
	struct bio_info bi = { .bi_func = "jbd2_journal_commit_transaction", .bi_what = what,
			       .bi_lblk = home ? home->jb_lblk : -1, .bi_tid = tid,
			       .bi_home = home ? home->jb_blocknr : 0 };

	if (w->nr == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 32;
		w->seqs = sim_realloc_array(w->seqs, w->cap, sizeof(*w->seqs));
	}
	w->seqs[w->nr++] = blkdev_submit_bio(j->j_dev, jbd2_log_block(j, j->j_head), data,
					     kind, false, &bi);
	j->j_counters->bios_submitted++;
	w->written++;
	if (++j->j_head == j->j_last)
		j->j_head = j->j_first;
}

/* jbd2_journal_get_descriptor_buffer(): a zeroed block with a journal_header_t. */
static void put_header(uint8_t *b, uint32_t bs, uint32_t type, uint32_t tid)
{
	journal_header_t *h = (journal_header_t *)b;

	memset(b, 0, bs);
	h->h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	h->h_blocktype = cpu_to_be32(type);
	h->h_sequence = cpu_to_be32(tid);
}

/*
 * jbd2_journal_write_revoke_records() / write_one_revoke_record() /
 * flush_descriptor(): records of 8 bytes (64bit) or 4 after the revoke
 * header, r_count the bytes used, the block tail checksum (csum v2/v3).
 */
static void write_revoke_records(struct log_writer *w, const transaction_t *t)
{
	journal_t *j = w->j;
	uint32_t bs = j->j_dev->bd_block_size, per = journal_revoke_records_per_block(j);
	uint32_t sz = jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	uint8_t *b = sim_zalloc(bs);

	for (uint32_t i = 0; i < t->t_nr_revoke; i += per) {
		uint32_t n = SIM_MIN(per, t->t_nr_revoke - i);
		uint32_t off = sizeof(jbd2_journal_revoke_header_t);

		put_header(b, bs, JBD2_REVOKE_BLOCK, t->t_tid);
		for (uint32_t k = 0; k < n; k++, off += sz) {
			if (sz == 8)
				put_be32(b + off, 0);   /* high word: block numbers are 32-bit here */
			put_be32(b + off + sz - 4, t->t_revoke[i + k]);
		}
		((jbd2_journal_revoke_header_t *)b)->r_count = cpu_to_be32(off);
		jbd2_descriptor_block_csum_set(j, b);
		log_write(w, b, BIO_JOURNAL, BW_JREVOKE, t->t_tid, NULL);
	}
	free(b);
}

/*
 * A buffer's copy as jbd2_journal_write_metadata_buffer() logs it: one that
 * starts with the magic number has its first word zeroed (*escaped true).
 */
static void escape_copy(uint8_t *out, const uint8_t *data, uint32_t bs, bool *escaped)
{
	memcpy(out, data, bs);
	*escaped = get_be32(out) == JBD2_MAGIC_NUMBER;
	if (*escaped)
		put_be32(out, 0);
}

/*
 * The descriptor's tags as jbd2_journal_commit_transaction() writes them:
 * write_tag_block(), t_flags (ESCAPE; SAME_UUID after the first, which is
 * followed by the 16 bytes of j_uuid: nothing sets it, so zeros), the tag
 * checksum over the escaped copy, LAST_TAG on the last, the tail checksum.
 */
static void fill_descriptor(journal_t *j, uint8_t *d, const transaction_t *t, uint32_t first,
			    uint32_t n, uint8_t **copies, uint8_t **esc)
{
	uint32_t bs = j->j_dev->bd_block_size, tb = journal_tag_bytes(j);
	uint8_t *tagp = d + sizeof(journal_header_t), *tag = tagp;
	bool escaped;

	put_header(d, bs, JBD2_DESCRIPTOR_BLOCK, t->t_tid);
	for (uint32_t k = 0; k < n; k++) {
		uint16_t flags = k ? JBD2_FLAG_SAME_UUID : 0;

		escape_copy(esc[k], copies[first + k], bs, &escaped);
		if (escaped)
			flags |= JBD2_FLAG_ESCAPE;
		if (k + 1 == n)
			flags |= JBD2_FLAG_LAST_TAG;
		tag = tagp;
		jbd2_write_tag_block(j, tag, t->t_buffers[first + k].jb_blocknr);
		jbd2_set_tag_flags(tag, flags);
		jbd2_block_tag_csum_set(j, tag, esc[k], t->t_tid);
		tagp += tb + (k ? 0 : 16);
		SIM_ASSERT(tagp <= d + bs - (jbd2_journal_has_csum_v2or3(j) ? 4 : 0));
	}
	jbd2_descriptor_block_csum_set(j, d);
}

/* One descriptor block and the copies of up to a descriptor's worth of buffers. */
static void write_descriptor_group(struct log_writer *w, const transaction_t *t,
				   uint32_t first, uint32_t n, uint8_t **copies)
{
	uint32_t bs = w->j->j_dev->bd_block_size;
	uint8_t *d = sim_zalloc(bs);
	uint8_t **esc = sim_zalloc(n * sizeof(*esc));

	for (uint32_t k = 0; k < n; k++)
		esc[k] = sim_zalloc(bs);
	fill_descriptor(w->j, d, t, first, n, copies, esc);
	log_write(w, d, BIO_JOURNAL, BW_JDESC, t->t_tid, NULL);
	for (uint32_t k = 0; k < n; k++) {
		const struct jbd2_buf *jb = &t->t_buffers[first + k];

		log_write(w, esc[k], BIO_JOURNAL, jb->jb_lblk >= 0 ? BW_JDATA : BW_JCOPY,
			  t->t_tid, jb);
		free(esc[k]);
	}
	free(esc);
	free(d);
}

/* Keep the newest committed copy of each block for checkpoint. */
static void checkpoint_add(journal_t *j, uint32_t blocknr, uint32_t tid,
			   const uint8_t *data)
{
	uint32_t bs = j->j_dev->bd_block_size, i = 0;

	while (i < j->j_nr_cp && j->j_cp[i].cp_blocknr < blocknr)
		i++;
	if (i < j->j_nr_cp && j->j_cp[i].cp_blocknr == blocknr) {
		memcpy(j->j_cp[i].cp_data, data, bs);
		j->j_cp[i].cp_tid = tid;
		return;
	}
	if (j->j_nr_cp == j->j_cap_cp) {
		j->j_cap_cp = j->j_cap_cp ? 2 * j->j_cap_cp : 16;
		j->j_cp = sim_realloc_array(j->j_cp, j->j_cap_cp, sizeof(*j->j_cp));
	}
	memmove(&j->j_cp[i + 1], &j->j_cp[i], (j->j_nr_cp - i) * sizeof(*j->j_cp));
	j->j_cp[i].cp_blocknr = blocknr;
	j->j_cp[i].cp_tid = tid;
	j->j_cp[i].cp_data = sim_zalloc(bs);
	memcpy(j->j_cp[i].cp_data, data, bs);
	j->j_nr_cp++;
}

/* Copies of every buffer as it is now (jbd2 freezes them at T_FLUSH). */
static uint8_t **snapshot_buffers(journal_t *j, const transaction_t *t)
{
	uint8_t **copies = sim_zalloc((t->t_nr_buffers + 1) * sizeof(*copies));

	for (uint32_t i = 0; i < t->t_nr_buffers; i++) {
		copies[i] = sim_zalloc(j->j_dev->bd_block_size);
		j->j_ops->get_block(j->j_private, &t->t_buffers[i], copies[i]);
	}
	return copies;
}

/* Descriptors and copies to the log; returns the copies for the checkpoint list. */
static uint8_t **write_metadata(struct log_writer *w, const transaction_t *t)
{
	uint32_t per = jbd2_tags_per_descriptor(w->j);
	uint8_t **copies = snapshot_buffers(w->j, t);

	for (uint32_t i = 0; i < t->t_nr_buffers; i += per)
		write_descriptor_group(w, t, i, SIM_MIN(per, t->t_nr_buffers - i), copies);
	return copies;
}

/* The transaction is committed: its copies wait for checkpoint. */
static void checkpoint_copies(journal_t *j, const transaction_t *t, uint8_t **copies)
{
	for (uint32_t i = 0; i < t->t_nr_buffers; i++) {
		checkpoint_add(j, t->t_buffers[i].jb_blocknr, t->t_tid, copies[i]);
		free(copies[i]);
	}
	free(copies);
}

/* T_COMMIT_DFLUSH: wait for the revoke, descriptor and copy writes of the log. */
static void wait_log_writes(struct log_writer *w)
{
	journal_t *j = w->j;

	for (uint32_t i = 0; i < w->nr; i++)
		if (blkdev_in_flight(j->j_dev, w->seqs[i]))
			blkdev_complete(j->j_dev, w->seqs[i]);
}

/*
 * journal_submit_commit_record()'s block: the header, the commit time (the
 * model's fixed JBD2_MODEL_COMMIT_SEC: it has no clock), the checksum of
 * jbd2_commit_block_csum_set() with csum v2/v3 (h_chksum_type and
 * h_chksum_size 0, h_chksum[0] the block's crc32c).
 */
static void fill_commit_block(journal_t *j, uint8_t *b, uint32_t tid)
{
	struct commit_header *h = (struct commit_header *)b;

	put_header(b, j->j_dev->bd_block_size, JBD2_COMMIT_BLOCK, tid);
	h->h_commit_sec = cpu_to_be64(JBD2_MODEL_COMMIT_SEC);
	h->h_commit_nsec = cpu_to_be32(JBD2_MODEL_COMMIT_NSEC);
	jbd2_commit_block_csum_set(j, b);
}

/* T_COMMIT_JFLUSH: journal_submit_commit_record(): flush, commit block with FUA. */
static void write_commit_record(struct log_writer *w, const transaction_t *t)
{
	journal_t *j = w->j;
	uint8_t *b = sim_zalloc(j->j_dev->bd_block_size);
	uint64_t seq;

	__blkdev_flush(j->j_dev, "jbd2_journal_commit_transaction");
	j->j_counters->flushes++;
	fill_commit_block(j, b, t->t_tid);
	seq = blkdev_submit_bio(j->j_dev, jbd2_log_block(j, j->j_head), b, BIO_COMMIT, true,
				&(struct bio_info){ .bi_func = "jbd2_journal_commit_transaction",
				.bi_what = BW_JCOMMIT, .bi_lblk = -1, .bi_tid = t->t_tid });
	j->j_counters->bios_submitted++;
	w->written++;
	if (++j->j_head == j->j_last)
		j->j_head = j->j_first;
	blkdev_complete(j->j_dev, seq);
	free(b);
}

static void record_logged(journal_t *j, uint32_t tid, uint32_t start, uint32_t nr)
{
	if (j->j_nr_logged == j->j_cap_logged) {
		j->j_cap_logged = j->j_cap_logged ? 2 * j->j_cap_logged : 16;
		j->j_logged = sim_realloc_array(j->j_logged, j->j_cap_logged,
						sizeof(*j->j_logged));
	}
	j->j_logged[j->j_nr_logged].lt_tid = tid;
	j->j_logged[j->j_nr_logged].lt_start = start;
	j->j_logged[j->j_nr_logged].lt_nr_blocks = nr;
	j->j_nr_logged++;
	SIM_ASSERT(j->j_free >= nr);
	j->j_free -= nr;
}

/* Move @t to @state (the event log records each state a commit passes). */
static void commit_set_state(journal_t *j, transaction_t *t, enum t_state state)
{
	SIM_ASSERT(state > t->t_state);
	t->t_state = state;
	ev_record(j->j_dev->bd_events, EV_TX_STATE, "jbd2_journal_commit_transaction", t->t_tid,
		  state, 0, 0);
}

/*
 * T_FLUSH, data=ordered: journal_submit_data_buffers(): submit the inode's
 * dirty data in the ordered range.
 */
static void submit_ordered_data(journal_t *j, const transaction_t *t)
{
	for (uint32_t i = 0; i < t->t_nr_inodes; i++) {
		const struct jbd2_inode *ji = &t->t_inodes[i];
		uint8_t cause;

		if (!(ji->i_flags & JI_WRITE_DATA))
			continue;
		cause = ev_cause_push(j->j_dev->bd_events, EVC_ORDERED);
		j->j_ops->submit_inode_data(j->j_private, ji->i_ino, ji->i_dirty_start,
					    ji->i_dirty_end);
		ev_cause_pop(j->j_dev->bd_events, cause);
	}
}

/*
 * T_COMMIT: journal_finish_inode_data_buffers(): wait for the ordered data
 * before the commit block may be written.
 */
static void wait_ordered_data(journal_t *j, const transaction_t *t)
{
	for (uint32_t i = 0; i < t->t_nr_inodes; i++) {
		const struct jbd2_inode *ji = &t->t_inodes[i];
		uint8_t cause;

		if (!(ji->i_flags & JI_WAIT_DATA))
			continue;
		ev_record(j->j_dev->bd_events, EV_ORDERED_WAIT, "jbd2_journal_commit_transaction",
			  t->t_tid, ji->i_dirty_start, ji->i_dirty_end, 0);
		cause = ev_cause_push(j->j_dev->bd_events, EVC_ORDERED);
		j->j_ops->finish_inode_data(j->j_private, ji->i_ino, ji->i_dirty_start,
					    ji->i_dirty_end);
		ev_cause_pop(j->j_dev->bd_events, cause);
	}
}

/*
 * The end of a commit: the forget list and the committed buffers (phase 7),
 * then T_COMMIT_CALLBACK (the tid is committed, the file system's callback
 * releases what it freed) and T_FINISHED.
 */
static void finish_commit(journal_t *j, transaction_t *t)
{
	for (uint32_t i = 0; i < t->t_nr_forget; i++)
		jbd2_journal_forget_checkpoint(j, t->t_forget[i]);
	for (uint32_t i = 0; i < t->t_nr_buffers; i++)
		if (j->j_ops->buffer_committed)
			j->j_ops->buffer_committed(j->j_private, &t->t_buffers[i]);
	commit_set_state(j, t, T_COMMIT_CALLBACK);
	j->j_commit_sequence = t->t_tid;
	j->j_committing_transaction = NULL;
	j->j_ops->commit_callback(j->j_private, t);
	commit_set_state(j, t, T_FINISHED);
	j->j_counters->commits++;
	jbd2_transaction_free(t);
}

void jbd2_journal_commit_transaction(journal_t *j)
{
	transaction_t *t = j->j_running_transaction;
	struct log_writer w = { .j = j };
	uint8_t **copies;
	uint32_t need, start;
	uint8_t cause;

	SIM_ASSERT(t != NULL);
	SIM_ASSERT(t->t_updates == 0);                  /* jbd2.h (1) */
	SIM_ASSERT(j->j_current_handle == NULL);        /* jbd2.h (1) */
	jbd2_commit_flushed_sb(j, t->t_tid);
	need = commit_log_blocks(j, t);
	SIM_ASSERT(need <= j->j_last - j->j_first);
	if (j->j_free < need)
		jbd2_log_make_space(j, need);
	commit_set_state(j, t, T_LOCKED);
	commit_set_state(j, t, T_SWITCH);       /* jbd2_journal_wait_updates(): none open */
	j->j_running_transaction = NULL;
	j->j_committing_transaction = t;
	commit_set_state(j, t, T_FLUSH);
	submit_ordered_data(j, t);
	start = j->j_head;
	cause = ev_cause_push(j->j_dev->bd_events, EVC_COMMIT);
	write_revoke_records(&w, t);
	commit_set_state(j, t, T_COMMIT);       /* before the log blocks are written */
	copies = write_metadata(&w, t);
	j->j_commit_copies = copies;
	wait_ordered_data(j, t);
	commit_set_state(j, t, T_COMMIT_DFLUSH);
	wait_log_writes(&w);
	commit_set_state(j, t, T_COMMIT_JFLUSH);
	write_commit_record(&w, t);
	ev_cause_pop(j->j_dev->bd_events, cause);
	j->j_commit_copies = NULL;
	checkpoint_copies(j, t, copies);
	SIM_ASSERT(w.written == need);
	record_logged(j, t->t_tid, start, need);
	free(w.seqs);
	finish_commit(j, t);
}

/* jbd2_complete_transaction(): commit @tid if it is still running. */
int jbd2_complete_transaction(journal_t *j, uint32_t tid)
{
	j->j_counters->j_state_lock_reads++;
	if (j->j_running_transaction && j->j_running_transaction->t_tid == tid) {
		jbd2_journal_commit_transaction(j);
		j->j_counters->sync_waits++;
	}
	return 0;
}

/* jbd2_journal_force_commit(): commit whatever is running. */
int jbd2_journal_force_commit(journal_t *j)
{
	if (j->j_running_transaction)
		jbd2_journal_commit_transaction(j);
	return 0;
}

/*
 * True when committing @tid will flush the device (so fsync need not):
 * false once @tid is already committed.
 */
bool jbd2_trans_will_send_data_barrier(journal_t *j, uint32_t tid)
{
	j->j_counters->j_state_lock_reads++;
	if ((int32_t)(j->j_commit_sequence - tid) >= 0)
		return false;
	return true;
}
