/*
 * jbd2_journal.c - the journal superblock and the journal's life across
 * mount and unmount.  Mirrors fs/jbd2/journal.c: journal_reset,
 * jbd2_journal_load, jbd2_journal_destroy, jbd2_mark_journal_empty; and
 * jbd2_check(), the invariants of jbd2.h between two steps.
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "jbd2.h"
#include "sim.h"

/* Journal superblock fields after the 12-byte header. */
#define JSB_BLOCKSIZE 12
#define JSB_MAXLEN 16
#define JSB_FIRST 20
#define JSB_SEQUENCE 24
#define JSB_START 28

void jbd2_journal_init(journal_t *j, struct blkdev *dev, uint32_t blk_offset,
		       uint32_t total_len, void *priv, const struct jbd2_fs_ops *ops,
		       struct sim_counters *counters)
{
	memset(j, 0, sizeof(*j));
	SIM_ASSERT(total_len >= 64);
	j->j_dev = dev;
	j->j_private = priv;
	j->j_ops = ops;
	j->j_counters = counters;
	j->j_blk_offset = blk_offset;
	j->j_total_len = total_len;
	j->j_first = 1;
	j->j_last = total_len;
	/* jbd2_journal_get_max_txn_bufs(): a quarter of the log */
	j->j_max_transaction_buffers = (total_len - 1) / 4;
}

uint32_t jbd2_log_block(const journal_t *j, uint32_t logblk)
{
	SIM_ASSERT(logblk < j->j_total_len);
	return j->j_blk_offset + logblk;
}

/* Write the journal superblock with REQ_FUA (durable when it completes). */
void jbd2_write_superblock(journal_t *j, uint32_t start, uint32_t sequence)
{
	uint8_t *b = sim_zalloc(j->j_dev->bd_block_size);
	uint64_t seq;

	put_le32(b, JBD2_MAGIC_NUMBER);
	put_le32(b + 4, JBD2_SUPERBLOCK_V2);
	put_le32(b + 8, 0);
	put_le32(b + JSB_BLOCKSIZE, j->j_dev->bd_block_size);
	put_le32(b + JSB_MAXLEN, j->j_total_len);
	put_le32(b + JSB_FIRST, j->j_first);
	put_le32(b + JSB_SEQUENCE, sequence);
	put_le32(b + JSB_START, start);
	seq = blkdev_submit_bio(j->j_dev, jbd2_log_block(j, 0), b, BIO_JSB, true,
				&(struct bio_info){ .bi_func = "jbd2_write_superblock",
				.bi_what = BW_JSB, .bi_lblk = -1, .bi_tid = sequence });
	blkdev_complete(j->j_dev, seq);
	free(b);
}

/* mkfs: an empty journal (s_start == 0), first tid 1. */
void jbd2_journal_create(journal_t *j)
{
	jbd2_write_superblock(j, 0, 1);
	blkdev_flush(j->j_dev, "jbd2_journal_create");
}

/* journal_reset(): an empty log starting at j_first with the next tid. */
static void journal_reset(journal_t *j, uint32_t next_tid)
{
	j->j_head = j->j_first;
	j->j_tail = j->j_first;
	j->j_free = j->j_last - j->j_first;
	j->j_tail_sequence = next_tid;
	j->j_transaction_sequence = next_tid;
	j->j_commit_sequence = next_tid - 1;
	j->j_nr_logged = 0;
	jbd2_write_superblock(j, j->j_tail, j->j_tail_sequence);
}

static int read_superblock(journal_t *j, uint32_t *start, uint32_t *sequence)
{
	uint8_t *b = sim_zalloc(j->j_dev->bd_block_size);
	int err = 0;

	blkdev_read(j->j_dev, jbd2_log_block(j, 0), b);
	if (get_le32(b) != JBD2_MAGIC_NUMBER || get_le32(b + 4) != JBD2_SUPERBLOCK_V2 ||
	    get_le32(b + JSB_MAXLEN) != j->j_total_len)
		err = -EINVAL;
	*start = get_le32(b + JSB_START);
	*sequence = get_le32(b + JSB_SEQUENCE);
	free(b);
	return err;
}

/*
 * jbd2_journal_load(): read the superblock, recover the log if it is not
 * empty (what was found goes to @info), then reset it.
 */
int jbd2_journal_load(journal_t *j, struct jbd2_recovery_info *info)
{
	return jbd2_journal_load_base(j, info, NULL);
}

int jbd2_journal_load_base(journal_t *j, struct jbd2_recovery_info *info,
			   const struct jbd2_recovery_base *base)
{
	uint32_t start, sequence;
	int err = read_superblock(j, &start, &sequence);

	memset(info, 0, sizeof(*info));
	if (err < 0)
		return err;
	if (start != 0) {
		err = jbd2_journal_recover_base(j, info, base);
		if (err < 0)
			return err;
		/* jbd2 skips one tid past the last one found */
		sequence = info->end_transaction + 1;
	}
	journal_reset(j, sequence);
	return 0;
}

/* jbd2_journal_destroy() at unmount: commit, checkpoint, mark empty. */
void jbd2_journal_release(journal_t *j)
{
	SIM_ASSERT(j->j_current_handle == NULL);
	if (j->j_running_transaction)
		jbd2_journal_commit_transaction(j);
	jbd2_log_do_checkpoint(j);
	SIM_ASSERT(j->j_nr_logged == 0);
	/* jbd2_mark_journal_empty() */
	jbd2_write_superblock(j, 0, j->j_tail_sequence);
	blkdev_flush(j->j_dev, "jbd2_journal_release");
}

/* Free the journal's memory (the in-memory state a crash loses). */
void jbd2_journal_destroy(journal_t *j)
{
	if (j->j_running_transaction)
		jbd2_transaction_free(j->j_running_transaction);
	j->j_running_transaction = NULL;
	if (j->j_current_handle)
		free(j->j_current_handle);
	j->j_current_handle = NULL;
	for (uint32_t i = 0; i < j->j_nr_cp; i++)
		free(j->j_cp[i].cp_data);
	free(j->j_cp);
	free(j->j_logged);
	j->j_cp = NULL;
	j->j_logged = NULL;
	j->j_nr_cp = j->j_cap_cp = 0;
	j->j_nr_logged = j->j_cap_logged = 0;
}

/* A deep copy of transaction @t. */
static transaction_t *transaction_clone(const transaction_t *t)
{
	transaction_t *n = sim_zalloc(sizeof(*n));

	*n = *t;
	n->t_buffers = sim_dup_array(t->t_buffers, t->t_nr_buffers, t->t_cap_buffers,
				     sizeof(*t->t_buffers));
	n->t_revoke = sim_dup_array(t->t_revoke, t->t_nr_revoke, t->t_cap_revoke,
				    sizeof(*t->t_revoke));
	n->t_forget = sim_dup_array(t->t_forget, t->t_nr_forget, t->t_cap_forget,
				    sizeof(*t->t_forget));
	n->t_freed = sim_dup_array(t->t_freed, t->t_nr_freed, t->t_cap_freed,
				   sizeof(*t->t_freed));
	return n;
}

void jbd2_journal_clone(journal_t *dst, const journal_t *src, struct blkdev *dev, void *priv,
			struct sim_counters *counters)
{
	uint32_t bs;

	SIM_ASSERT(src->j_current_handle == NULL && src->j_committing_transaction == NULL);
	SIM_ASSERT(src->j_commit_copies == NULL);
	*dst = *src;
	dst->j_dev = dev;
	dst->j_private = priv;
	dst->j_counters = counters;
	bs = dev->bd_block_size;
	if (src->j_running_transaction)
		dst->j_running_transaction = transaction_clone(src->j_running_transaction);
	dst->j_logged = sim_dup_array(src->j_logged, src->j_nr_logged, src->j_cap_logged,
				      sizeof(*src->j_logged));
	dst->j_cp = sim_dup_array(src->j_cp, src->j_nr_cp, src->j_cap_cp, sizeof(*src->j_cp));
	for (uint32_t i = 0; i < dst->j_nr_cp; i++)
		dst->j_cp[i].cp_data = sim_dup_array(src->j_cp[i].cp_data, bs, bs, 1);
}

/* Does the durable log block @logblk carry a header of @tid (and @type, if not 0)? */
static bool durable_header(const journal_t *j, uint32_t logblk, uint32_t tid, uint32_t type)
{
	const uint8_t *b = blkdev_peek_durable(j->j_dev, jbd2_log_block(j, logblk));

	if (!b || get_le32(b) != JBD2_MAGIC_NUMBER || get_le32(b + 8) != tid)
		return false;
	return type == 0 || get_le32(b + 4) == type;
}

/*
 * (2) the committed transactions the log holds: consecutive tids up to
 * j_commit_sequence, end to end from j_tail to j_head, each opening with a
 * header block of its tid and closed by a durable commit block.
 */
static void check_logged(const journal_t *j)
{
	uint32_t pos = j->j_tail, used = 0, len = j->j_last - j->j_first;

	for (uint32_t i = 0; i < j->j_nr_logged; i++) {
		const struct jbd2_logged_tx *lt = &j->j_logged[i];
		uint32_t last = lt->lt_start + lt->lt_nr_blocks - 1;

		if (last >= j->j_last)
			last -= len;
		SIM_ASSERT(lt->lt_start == pos);                                /* (2) */
		SIM_ASSERT(lt->lt_nr_blocks > 0 && lt->lt_nr_blocks <= len);    /* (2) */
		SIM_ASSERT(lt->lt_tid == (i ? lt[-1].lt_tid + 1 : j->j_tail_sequence)); /* (2) */
		SIM_ASSERT(durable_header(j, lt->lt_start, lt->lt_tid, 0));     /* (2) */
		SIM_ASSERT(durable_header(j, last, lt->lt_tid, JBD2_COMMIT_BLOCK)); /* (2) */
		pos = last + 1 == j->j_last ? j->j_first : last + 1;
		used += lt->lt_nr_blocks;
	}
	SIM_ASSERT(pos == j->j_head);                                           /* (2) */
	SIM_ASSERT(j->j_free + used == len);                                    /* (2) */
	SIM_ASSERT(j->j_nr_logged == 0 ||
		   j->j_logged[j->j_nr_logged - 1].lt_tid == j->j_commit_sequence); /* (2) */
}

/*
 * The invariants of jbd2.h between two steps (no commit under way).  (3)
 * is asserted by jbd2_journal_recover(), (4) by ext4_check_state(), which
 * sees the allocator.
 */
void jbd2_check(const journal_t *j)
{
	const transaction_t *t = j->j_running_transaction;
	const handle_t *h = j->j_current_handle;
	const uint8_t *sb = blkdev_peek_durable(j->j_dev, jbd2_log_block(j, 0));

	/* (1) one running transaction, the newest tid; an open handle joins it */
	SIM_ASSERT(j->j_committing_transaction == NULL);                        /* (1) */
	SIM_ASSERT(j->j_commit_sequence + (t ? 2 : 1) == j->j_transaction_sequence); /* (1) */
	SIM_ASSERT(!t || (t->t_state == T_RUNNING && t->t_updates == (h ? 1 : 0))); /* (1) */
	SIM_ASSERT(!h || (h->h_journal == j && h->h_transaction == t && t));   /* (1) */
	check_logged(j);
	/* (3) recovery would start at the tail: the superblock names it */
	SIM_ASSERT(sb && get_le32(sb + JSB_START) == j->j_tail);                 /* (3) */
	SIM_ASSERT(get_le32(sb + JSB_SEQUENCE) == j->j_tail_sequence);           /* (3) */
}
