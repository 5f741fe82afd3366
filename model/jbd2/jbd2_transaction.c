/*
 * jbd2_transaction.c - handles and the running transaction.  Mirrors
 * fs/jbd2/transaction.c (start_this_handle, jbd2_journal_stop,
 * jbd2_journal_dirty_metadata, jbd2_journal_forget) and the revoke and
 * jbd2_inode bookkeeping of revoke.c and journal.c.
 *
 * The model runs one task, so "current->journal_info" is j_current_handle
 * and a nested start only raises h_ref.  A start that would overflow the
 * running transaction, or the log, first commits or checkpoints, as
 * start_this_handle() waits for them.
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "jbd2.h"
#include "jbd2_disk.h"
#include "sim.h"

static transaction_t *jbd2_get_transaction(journal_t *j)
{
	transaction_t *t = sim_zalloc(sizeof(*t));

	t->t_tid = j->j_transaction_sequence++;
	t->t_state = T_RUNNING;
	j->j_running_transaction = t;
	EV_RECORD(j->j_dev->bd_events, EV_TX_STATE, "jbd2_get_transaction", t->t_tid,
		  T_RUNNING, 0, 0);
	return t;
}

void jbd2_transaction_free(transaction_t *t)
{
	free(t->t_buffers);
	free(t->t_forget);
	free(t->t_revoke);
	free(t->t_freed);
	free(t->t_inodes);
	free(t);
}

/* Log blocks a commit of the running transaction would need, at most. */
static uint32_t running_log_estimate(const journal_t *j, uint32_t extra)
{
	const transaction_t *t = j->j_running_transaction;
	uint32_t bufs = extra + (t ? t->t_nr_buffers + t->t_outstanding_credits : 0);
	uint32_t revokes = t ? t->t_nr_revoke : 0;
	uint32_t per_desc = jbd2_tags_per_descriptor(j);

	return bufs + bufs / per_desc + 1 + revokes + 2;
}

handle_t *jbd2_journal_start(journal_t *j, uint32_t credits, int type)
{
	handle_t *h = j->j_current_handle;

	if (h) {                /* nested start: same handle, same transaction */
		SIM_ASSERT(h->h_ref > 0);
		h->h_ref++;
		return h;
	}
	j->j_counters->j_state_lock_reads++;   /* start_this_handle: read_lock */
	if (j->j_running_transaction &&
	    j->j_running_transaction->t_nr_buffers +
	    j->j_running_transaction->t_outstanding_credits + credits >
	    j->j_max_transaction_buffers)
		jbd2_journal_commit_transaction(j);
	if (j->j_free < running_log_estimate(j, credits))
		jbd2_log_make_space(j, running_log_estimate(j, credits));
	if (!j->j_running_transaction)
		jbd2_get_transaction(j);
	h = sim_zalloc(sizeof(*h));
	h->h_journal = j;
	h->h_transaction = j->j_running_transaction;
	h->h_ref = 1;
	h->h_total_credits = credits;
	h->h_type = type;
	h->h_transaction->t_updates++;
	h->h_transaction->t_outstanding_credits += credits;
	j->j_current_handle = h;
	j->j_counters->handles_started++;
	return h;
}

/*
 * Drop a reference; the last one detaches the handle from its transaction,
 * and a synchronous handle then commits the transaction and waits.
 */
int jbd2_journal_stop(handle_t *h)
{
	transaction_t *t = h->h_transaction;
	journal_t *j;
	bool sync;

	SIM_ASSERT(h->h_ref > 0);
	SIM_ASSERT(t->t_state == T_RUNNING);
	if (--h->h_ref > 0)
		return 0;
	SIM_ASSERT(t->t_updates > 0);
	t->t_updates--;
	t->t_outstanding_credits -= h->h_total_credits;
	sync = h->h_sync;
	if (sync)
		t->t_synchronous_commit = true;
	j = h->h_journal;
	j->j_current_handle = NULL;
	free(h);
	if (sync && j->j_running_transaction == t)
		jbd2_journal_commit_transaction(j);
	return 0;
}

static uint32_t find_buffer(const transaction_t *t, uint32_t blocknr)
{
	uint32_t lo = 0, hi = t->t_nr_buffers;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->t_buffers[mid].jb_blocknr < blocknr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* jbd2_journal_cancel_revoke(): a block journaled again is not revoked. */
static void cancel_revoke(transaction_t *t, uint32_t blocknr)
{
	for (uint32_t i = 0; i < t->t_nr_revoke; i++) {
		if (t->t_revoke[i] != blocknr)
			continue;
		memmove(&t->t_revoke[i], &t->t_revoke[i + 1],
			(t->t_nr_revoke - i - 1) * sizeof(*t->t_revoke));
		t->t_nr_revoke--;
		return;
	}
}

static void add_buffer(handle_t *h, uint32_t blocknr, uint32_t ino, int64_t lblk)
{
	transaction_t *t = h->h_transaction;
	uint32_t i = find_buffer(t, blocknr);

	SIM_ASSERT(h->h_ref > 0);
	cancel_revoke(t, blocknr);
	if (i < t->t_nr_buffers && t->t_buffers[i].jb_blocknr == blocknr) {
		t->t_buffers[i].jb_lblk = lblk;
		t->t_buffers[i].jb_ino = ino;
		return;
	}
	if (t->t_nr_buffers == t->t_cap_buffers) {
		t->t_cap_buffers = t->t_cap_buffers ? 2 * t->t_cap_buffers : 16;
		t->t_buffers = sim_realloc_array(t->t_buffers, t->t_cap_buffers,
						 sizeof(*t->t_buffers));
	}
	memmove(&t->t_buffers[i + 1], &t->t_buffers[i],
		(t->t_nr_buffers - i) * sizeof(*t->t_buffers));
	t->t_buffers[i].jb_blocknr = blocknr;
	t->t_buffers[i].jb_ino = ino;
	t->t_buffers[i].jb_lblk = lblk;
	t->t_nr_buffers++;
}

/* jbd2_journal_dirty_metadata(): the block joins the running transaction. */
void jbd2_journal_dirty_metadata(handle_t *h, uint32_t blocknr)
{
	add_buffer(h, blocknr, 0, -1);
}

/* Journaled file data (data=journal): ext4_dirty_journalled_data(). */
void jbd2_journal_dirty_data(handle_t *h, uint32_t blocknr, uint32_t ino, int64_t lblk)
{
	SIM_ASSERT(lblk >= 0 && ino != 0);
	add_buffer(h, blocknr, ino, lblk);
}

/*
 * jbd2_journal_forget(): the block leaves the transaction.  An older
 * committed copy stays on the checkpoint list until this transaction
 * commits (the kernel files the buffer on the transaction's forget list):
 * until then the free is not durable and the copy may still be needed.
 */
void jbd2_journal_forget(handle_t *h, uint32_t blocknr)
{
	transaction_t *t = h->h_transaction;
	uint32_t i = find_buffer(t, blocknr);

	if (i < t->t_nr_buffers && t->t_buffers[i].jb_blocknr == blocknr) {
		memmove(&t->t_buffers[i], &t->t_buffers[i + 1],
			(t->t_nr_buffers - i - 1) * sizeof(*t->t_buffers));
		t->t_nr_buffers--;
	}
	if (t->t_nr_forget == t->t_cap_forget) {
		t->t_cap_forget = t->t_cap_forget ? 2 * t->t_cap_forget : 16;
		t->t_forget = sim_realloc_array(t->t_forget, t->t_cap_forget,
						sizeof(*t->t_forget));
	}
	t->t_forget[t->t_nr_forget++] = blocknr;
}

/*
 * journal_unmap_buffer() for a truncated buffer of the running transaction:
 * it leaves the transaction (the truncate frees its block).
 */
void jbd2_journal_unmap_buffer(journal_t *j, uint32_t blocknr)
{
	transaction_t *t = j->j_running_transaction;
	uint32_t i;

	if (!t)
		return;
	i = find_buffer(t, blocknr);
	if (i < t->t_nr_buffers && t->t_buffers[i].jb_blocknr == blocknr) {
		memmove(&t->t_buffers[i], &t->t_buffers[i + 1],
			(t->t_nr_buffers - i - 1) * sizeof(*t->t_buffers));
		t->t_nr_buffers--;
	}
}

/* jbd2_journal_revoke(): recovery must not replay older copies of @blocknr. */
void jbd2_journal_revoke(handle_t *h, uint32_t blocknr)
{
	transaction_t *t = h->h_transaction;
	uint32_t i = 0;

	jbd2_journal_forget(h, blocknr);
	EV_RECORD(h->h_journal->j_dev->bd_events, EV_REVOKE, "jbd2_journal_revoke", blocknr,
		  t->t_tid, 0, 0);
	while (i < t->t_nr_revoke && t->t_revoke[i] < blocknr)
		i++;
	if (i < t->t_nr_revoke && t->t_revoke[i] == blocknr)
		return;
	if (t->t_nr_revoke == t->t_cap_revoke) {
		t->t_cap_revoke = t->t_cap_revoke ? 2 * t->t_cap_revoke : 16;
		t->t_revoke = sim_realloc_array(t->t_revoke, t->t_cap_revoke,
						sizeof(*t->t_revoke));
	}
	memmove(&t->t_revoke[i + 1], &t->t_revoke[i],
		(t->t_nr_revoke - i) * sizeof(*t->t_revoke));
	t->t_revoke[i] = blocknr;
	t->t_nr_revoke++;
}

/* Blocks freed under this handle become allocatable after the commit. */
void jbd2_journal_free_blocks(handle_t *h, uint32_t start, uint32_t len)
{
	transaction_t *t = h->h_transaction;

	if (t->t_nr_freed == t->t_cap_freed) {
		t->t_cap_freed = t->t_cap_freed ? 2 * t->t_cap_freed : 16;
		t->t_freed = sim_realloc_array(t->t_freed, t->t_cap_freed,
					       sizeof(*t->t_freed));
	}
	t->t_freed[t->t_nr_freed].start = start;
	t->t_freed[t->t_nr_freed].len = len;
	t->t_nr_freed++;
}

const struct jbd2_inode *jbd2_transaction_inode(const transaction_t *t, uint32_t ino)
{
	for (uint32_t i = 0; i < t->t_nr_inodes; i++)
		if (t->t_inodes[i].i_ino == ino)
			return &t->t_inodes[i];
	return NULL;
}

/* Remove inode @ino's entry from @t's inode list, if there. */
static void release_from(transaction_t *t, uint32_t ino)
{
	for (uint32_t i = 0; t && i < t->t_nr_inodes; i++) {
		if (t->t_inodes[i].i_ino != ino)
			continue;
		memmove(t->t_inodes + i, t->t_inodes + i + 1,
			(t->t_nr_inodes - i - 1) * sizeof(*t->t_inodes));
		t->t_nr_inodes--;
		return;
	}
}

void jbd2_journal_release_jbd_inode(journal_t *j, uint32_t ino)
{
	release_from(j->j_running_transaction, ino);
	release_from(j->j_committing_transaction, ino);
}

uint32_t jbd2_transaction_inode_flags(const transaction_t *t)
{
	uint32_t flags = 0;

	for (uint32_t i = 0; i < t->t_nr_inodes; i++)
		flags |= t->t_inodes[i].i_flags;
	return flags;
}

/*
 * jbd2_journal_inode_ranged_write/_wait(): inode @ino joins the
 * transaction's inode list (at its head, as jbd2_journal_file_inode's
 * list_add), or its entry's dirty range grows to cover [start, start+len).
 */
void jbd2_journal_inode_ranged(handle_t *h, uint32_t ino, uint32_t flags, int64_t start,
			       int64_t len)
{
	transaction_t *t = h->h_transaction;
	struct jbd2_inode *ji = (struct jbd2_inode *)jbd2_transaction_inode(t, ino);
	int64_t end = start + len - 1;

	SIM_ASSERT(len > 0);
	SIM_ASSERT(flags & JI_WAIT_DATA);
	if (!ji) {
		SIM_ASSERT(t->t_nr_inodes < JBD2_MAX_INODES);
		if (t->t_nr_inodes == t->t_cap_inodes) {
			t->t_cap_inodes = t->t_cap_inodes ? 2 * t->t_cap_inodes : 4;
			t->t_inodes = sim_realloc_array(t->t_inodes, t->t_cap_inodes,
							sizeof(*t->t_inodes));
		}
		memmove(t->t_inodes + 1, t->t_inodes, t->t_nr_inodes * sizeof(*t->t_inodes));
		t->t_nr_inodes++;
		ji = &t->t_inodes[0];
		*ji = (struct jbd2_inode){ ino, 0, start, end };
	} else {
		ji->i_dirty_start = SIM_MIN(ji->i_dirty_start, start);
		ji->i_dirty_end = SIM_MAX(ji->i_dirty_end, end);
	}
	ji->i_flags |= flags;
}

bool jbd2_transaction_committed(journal_t *j, uint32_t tid)
{
	j->j_counters->j_state_lock_reads++;
	return (int32_t)(j->j_commit_sequence - tid) >= 0;
}
