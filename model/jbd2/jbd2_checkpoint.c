/*
 * jbd2_checkpoint.c - writing committed blocks to their home locations and
 * moving the log tail (fs/jbd2/checkpoint.c, jbd2_cleanup_journal_tail).
 *
 * The model checkpoints everything at once, whenever log space is needed, at
 * a `checkpoint` step and at unmount; the kernel checkpoints the oldest
 * transactions first.  Each home write carries the newest committed copy.
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "jbd2.h"
#include "sim.h"

static void cleanup_journal_tail(journal_t *j)
{
	/* the home writes must be durable before the tail moves past them */
	blkdev_flush(j->j_dev, "jbd2_cleanup_journal_tail");
	j->j_counters->flushes++;
	j->j_tail = j->j_head;
	j->j_tail_sequence = j->j_running_transaction ?
		j->j_running_transaction->t_tid : j->j_transaction_sequence;
	j->j_free = j->j_last - j->j_first;
	j->j_nr_logged = 0;
	jbd2_write_superblock(j, j->j_tail, j->j_tail_sequence);
}

void jbd2_log_do_checkpoint(journal_t *j)
{
	uint64_t *seqs = sim_zalloc((j->j_nr_cp + 1) * sizeof(*seqs));
	uint8_t cause = ev_cause_push(j->j_dev->bd_events, EVC_CHECKPOINT);

	for (uint32_t i = 0; i < j->j_nr_cp; i++) {
		struct bio_info bi = { .bi_func = "jbd2_log_do_checkpoint", .bi_what = BW_HOME,
				       .bi_lblk = -1, .bi_tid = j->j_cp[i].cp_tid, .bi_home = j->j_cp[i].cp_blocknr };

		seqs[i] = blkdev_submit_bio(j->j_dev, j->j_cp[i].cp_blocknr,
					    j->j_cp[i].cp_data, BIO_META, false, &bi);
		j->j_counters->bios_submitted++;
	}
	for (uint32_t i = 0; i < j->j_nr_cp; i++)
		blkdev_complete(j->j_dev, seqs[i]);
	free(seqs);
	j->j_counters->checkpoints++;
	/* the copies stay listed until the log no longer holds them */
	if (j->j_nr_logged > 0 || j->j_tail != j->j_head)
		cleanup_journal_tail(j);
	EV_RECORD(j->j_dev->bd_events, EV_CHECKPOINT, "jbd2_log_do_checkpoint", j->j_nr_cp,
		  j->j_tail_sequence, 0, 0);
	ev_cause_pop(j->j_dev->bd_events, cause);
	for (uint32_t i = 0; i < j->j_nr_cp; i++)
		free(j->j_cp[i].cp_data);
	j->j_nr_cp = 0;
}

/* __jbd2_log_wait_for_space(): checkpoint until @needed log blocks are free. */
void jbd2_log_make_space(journal_t *j, uint32_t needed)
{
	SIM_ASSERT(needed <= j->j_last - j->j_first);
	jbd2_log_do_checkpoint(j);
	SIM_ASSERT(j->j_free >= needed);
}

/* A freed block must not be written home from an old journaled copy. */
void jbd2_journal_forget_checkpoint(journal_t *j, uint32_t blocknr)
{
	for (uint32_t i = 0; i < j->j_nr_cp; i++) {
		if (j->j_cp[i].cp_blocknr != blocknr)
			continue;
		free(j->j_cp[i].cp_data);
		memmove(&j->j_cp[i], &j->j_cp[i + 1],
			(j->j_nr_cp - i - 1) * sizeof(*j->j_cp));
		j->j_nr_cp--;
		return;
	}
}
