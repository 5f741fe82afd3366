/*
 * jbd2_journal.c - the journal superblock and the journal's life across
 * mount and unmount.  Mirrors fs/jbd2/journal.c: journal_reset,
 * jbd2_journal_load, jbd2_journal_destroy, jbd2_mark_journal_empty; and
 * jbd2_check(), the invariants of jbd2.h between two steps.
 */
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "crc32c.h"
#include "jbd2.h"
#include "jbd2_disk.h"
#include "sim.h"

/* The journal superblock in memory, j_sb_buffer as journal_superblock_t. */
static journal_superblock_t *jsb(journal_t *j)
{
	return (journal_superblock_t *)j->j_superblock;
}

/* The map covers journal blocks 0..n-1 once, inside the device. */
static int check_map(const struct blkdev *dev, const struct jbd2_extent *map, uint32_t nr,
		     uint32_t *total)
{
	uint32_t next = 0;

	for (uint32_t i = 0; i < nr; i++) {
		if (map[i].je_lblk != next || map[i].je_len == 0 ||
		    map[i].je_len > UINT32_MAX - next ||
		    map[i].je_pblk >= dev->bd_nr_blocks ||
		    map[i].je_len > dev->bd_nr_blocks - map[i].je_pblk)
			return -EINVAL;
		next += map[i].je_len;
	}
	*total = next;
	return next >= 64 ? 0 : -EINVAL;
}

int jbd2_journal_init(journal_t *j, struct blkdev *dev, const struct jbd2_extent *map,
		      uint32_t nr, void *priv, const struct jbd2_fs_ops *ops,
		      struct sim_counters *counters)
{
	uint32_t total_len;

	memset(j, 0, sizeof(*j));
	SIM_ASSERT(dev->bd_block_size >= sizeof(journal_superblock_t));
	if (check_map(dev, map, nr, &total_len) < 0)
		return -EINVAL;
	j->j_dev = dev;
	j->j_private = priv;
	j->j_ops = ops;
	j->j_counters = counters;
	j->j_map = sim_dup_array(map, nr, nr, sizeof(*map));
	j->j_nr_map = nr;
	j->j_sb_buffer = sim_zalloc(dev->bd_block_size);
	j->j_superblock = (struct journal_superblock_s *)j->j_sb_buffer;
	j->j_total_len = total_len;
	j->j_first = 1;
	j->j_last = total_len;
	/* jbd2_journal_get_max_txn_bufs(): a quarter of the log */
	j->j_max_transaction_buffers = (total_len - 1) / 4;
	return 0;
}

/* jbd2_journal_bmap(): bmap() of the journal inode, through its extents. */
uint32_t jbd2_journal_bmap(const journal_t *j, uint32_t logblk)
{
	uint32_t lo = 0, hi = j->j_nr_map;

	SIM_ASSERT(logblk < j->j_total_len);
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (j->j_map[mid].je_lblk <= logblk)
			lo = mid;
		else
			hi = mid;
	}
	SIM_ASSERT(logblk - j->j_map[lo].je_lblk < j->j_map[lo].je_len);
	return j->j_map[lo].je_pblk + (logblk - j->j_map[lo].je_lblk);
}

/* The device block of journal block @logblk (jbd2_journal_bmap()). */
uint32_t jbd2_log_block(const journal_t *j, uint32_t logblk)
{
	return jbd2_journal_bmap(j, logblk);
}

/* Is device block @blk one of the journal's mapped blocks?  Which one, in @logblk. */
bool jbd2_journal_owns(const journal_t *j, uint32_t blk, uint32_t *logblk)
{
	for (uint32_t i = 0; i < j->j_nr_map; i++) {
		const struct jbd2_extent *e = &j->j_map[i];

		if (blk >= e->je_pblk && blk - e->je_pblk < e->je_len &&
		    e->je_lblk + (blk - e->je_pblk) < j->j_total_len) {
			*logblk = e->je_lblk + (blk - e->je_pblk);
			return true;
		}
	}
	return false;
}

/* Submit the superblock buffer (@fua: REQ_FUA) and wait for it. */
static void write_sb_buffer(journal_t *j, bool fua, uint32_t tid)
{
	uint64_t seq;

	if (jbd2_journal_has_csum_v2or3(j))
		jsb(j)->s_checksum = jbd2_superblock_csum(jsb(j));
	seq = blkdev_submit_bio(j->j_dev, jbd2_log_block(j, 0), j->j_sb_buffer, BIO_JSB, fua,
				&(struct bio_info){ .bi_func = "jbd2_write_superblock",
				.bi_what = BW_JSB, .bi_lblk = -1, .bi_tid = tid });
	blkdev_complete(j->j_dev, seq);
}

/*
 * jbd2_journal_update_sb_log_tail() / jbd2_mark_journal_empty(): s_start
 * and s_sequence into the superblock, its checksum, written REQ_FUA (durable
 * when it completes).
 */
void jbd2_write_superblock(journal_t *j, uint32_t start, uint32_t sequence)
{
	jsb(j)->s_sequence = cpu_to_be32(sequence);
	jsb(j)->s_start = cpu_to_be32(start);
	write_sb_buffer(j, true, sequence);
	j->j_flushed = start == 0;      /* mark_journal_empty sets JBD2_FLUSHED, a tail clears it */
}

/*
 * The first commit after a mount that found the log empty (JBD2_FLUSHED)
 * writes the superblock (REQ_SYNC, made durable by the commit's flush):
 * the log's tail, and the features the file system set since the mount
 * (jbd2_journal_set_features), before any log block that uses them.
 */
void jbd2_commit_flushed_sb(journal_t *j, uint32_t tid)
{
	if (!j->j_flushed)
		return;
	j->j_flushed = false;
	jsb(j)->s_sequence = cpu_to_be32(j->j_tail_sequence);
	jsb(j)->s_start = cpu_to_be32(j->j_tail);
	write_sb_buffer(j, false, tid);
}

/*
 * mkfs: ext2fs_create_journal_superblock2() of e2fsprogs: a zeroed block,
 * V2, s_maxlen the journal's blocks, s_first 1, s_sequence 1, s_start 0 (an
 * empty log), one user, no feature, the file system's @uuid.
 */
void jbd2_journal_create(journal_t *j, const uint8_t uuid[16])
{
	journal_superblock_t *sb = jsb(j);

	memset(j->j_sb_buffer, 0, j->j_dev->bd_block_size);
	sb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	sb->s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V2);
	sb->s_blocksize = cpu_to_be32(j->j_dev->bd_block_size);
	sb->s_maxlen = cpu_to_be32(j->j_total_len);
	sb->s_nr_users = cpu_to_be32(1);
	sb->s_first = cpu_to_be32(1);
	memcpy(sb->s_uuid, uuid, sizeof(sb->s_uuid));
	j->j_format_version = 2;
	jbd2_write_superblock(j, 0, 1);
	blkdev_flush(j->j_dev, "jbd2_journal_create");
}

/*
 * journal_reset(): an empty log starting at j_first with the next tid.  A
 * superblock that already says the log is empty is not written: the first
 * commit writes it (JBD2_FLUSHED, jbd2_commit_flushed_sb); after a recovery
 * it is written now (REQ_FUA), naming the new tail.
 */
static void journal_reset(journal_t *j, uint32_t next_tid)
{
	bool was_empty = jsb(j)->s_start == 0;

	j->j_head = j->j_first;
	j->j_tail = j->j_first;
	j->j_free = j->j_last - j->j_first;
	j->j_tail_sequence = next_tid;
	j->j_transaction_sequence = next_tid;
	j->j_commit_sequence = next_tid - 1;
	j->j_nr_logged = 0;
	if (was_empty) {        /* JBD2_FLUSHED: written by the first commit */
		j->j_flushed = true;
		return;
	}
	jbd2_write_superblock(j, j->j_tail, j->j_tail_sequence);
}

/* The format checks of journal_get_superblock() on the buffer read. */
static int check_superblock(journal_t *j)
{
	const journal_superblock_t *sb = jsb(j);
	uint32_t maxlen = be32_to_cpu(sb->s_maxlen), first = be32_to_cpu(sb->s_first);

	if (be32_to_cpu(sb->s_header.h_magic) != JBD2_MAGIC_NUMBER ||
	    be32_to_cpu(sb->s_blocksize) != j->j_dev->bd_block_size)
		return -EINVAL;         /* "no valid journal superblock found" */
	switch (be32_to_cpu(sb->s_header.h_blocktype)) {
	case JBD2_SUPERBLOCK_V1:
		j->j_format_version = 1;
		break;
	case JBD2_SUPERBLOCK_V2:
		j->j_format_version = 2;
		break;
	default:
		return -EINVAL;         /* "unrecognised superblock format ID" */
	}
	if (maxlen > j->j_total_len)
		return -EINVAL;         /* "journal file too short" */
	j->j_total_len = maxlen;
	if (first == 0 || first >= j->j_total_len)
		return -EINVAL;         /* "Invalid start block of journal" */
	return 0;
}

/* journal_get_superblock()'s checksum checks; j_csum_seed. */
static int check_superblock_csum(journal_t *j)
{
	const journal_superblock_t *sb = jsb(j);

	if (jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V2) &&
	    jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V3))
		return -EINVAL;         /* "Can't enable checksumming v2 and v3" */
	if (jbd2_journal_has_csum_v2or3(j) && jbd2_has_compat(j, JBD2_FEATURE_COMPAT_CHECKSUM))
		return -EINVAL;         /* "Can't enable checksumming v1 and v2/3" */
	if (!jbd2_journal_has_csum_v2or3(j))
		return 0;
	if (sb->s_checksum_type != JBD2_CRC32C_CHKSUM)
		return -EINVAL;         /* jbd2_verify_csum_type(): "Unknown checksum type" */
	if (sb->s_checksum != jbd2_superblock_csum(sb))
		return -EFSBADCRC;      /* "journal checksum error" */
	j->j_csum_seed = crc32c(~0u, sb->s_uuid, sizeof(sb->s_uuid));
	return 0;
}

/*
 * journal_get_superblock(): read journal block 0 into j_sb_buffer and check
 * it (magic, block size, V1/V2, s_maxlen against the mapped length, which
 * shrinks to it, s_first, the checksum features and the checksum).
 */
int jbd2_journal_get_superblock(journal_t *j)
{
	int err;

	blkdev_read(j->j_dev, jbd2_log_block(j, 0), j->j_sb_buffer);
	j->j_format_version = 0;
	if ((err = check_superblock(j)) < 0 || (err = check_superblock_csum(j)) < 0) {
		j->j_format_version = 0;
		return err;
	}
	return 0;
}

/* load_superblock(), then jbd2_journal_load()'s feature check. */
static int load_superblock(journal_t *j)
{
	const journal_superblock_t *sb = jsb(j);
	int err = jbd2_journal_get_superblock(j);

	if (err < 0)
		return err;
	j->j_first = be32_to_cpu(sb->s_first);
	j->j_last = be32_to_cpu(sb->s_maxlen);
	j->j_max_transaction_buffers = (j->j_total_len - 1) / 4;
	if (j->j_format_version >= 2 &&
	    ((be32_to_cpu(sb->s_feature_ro_compat) & ~JBD2_KNOWN_ROCOMPAT_FEATURES) ||
	     (be32_to_cpu(sb->s_feature_incompat) & ~JBD2_KNOWN_INCOMPAT_FEATURES)))
		return -EINVAL;         /* "Unrecognised features on journal" */
	return 0;
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
	uint32_t sequence;
	int err;

	memset(info, 0, sizeof(*info));
	if ((err = load_superblock(j)) < 0)
		return err;
	/*
	 * An empty log: 6.1's jbd2_journal_recover() starts it at s_sequence + 1;
	 * the model at s_sequence, so that its tids count from 1 after mkfs.
	 */
	sequence = be32_to_cpu(jsb(j)->s_sequence);
	if (jsb(j)->s_start != 0) {
		if (jbd2_journal_recover_base(j, info, base) < 0)
			return -EIO;    /* "recovery failed" */
		if (j->j_failed_commit)
			return -EFSCORRUPTED;   /* "journal transaction %u is corrupt" */
		/* jbd2 skips one tid past the last one found */
		sequence = info->end_transaction + 1;
	}
	journal_reset(j, sequence);
	return 0;
}

/* jbd2_journal_check_used_features(): are all of these set already? */
static bool features_used(journal_t *j, uint32_t compat, uint32_t ro, uint32_t incompat)
{
	const journal_superblock_t *sb = jsb(j);

	if (!compat && !ro && !incompat)
		return true;
	return j->j_format_version >= 2 &&
	       (be32_to_cpu(sb->s_feature_compat) & compat) == compat &&
	       (be32_to_cpu(sb->s_feature_ro_compat) & ro) == ro &&
	       (be32_to_cpu(sb->s_feature_incompat) & incompat) == incompat;
}

/* jbd2_journal_check_available_features(): a V2 superblock, known features. */
static bool features_available(journal_t *j, uint32_t compat, uint32_t ro, uint32_t incompat)
{
	if (!compat && !ro && !incompat)
		return true;
	return j->j_format_version == 2 && (compat & ~JBD2_KNOWN_COMPAT_FEATURES) == 0 &&
	       (ro & ~JBD2_KNOWN_ROCOMPAT_FEATURES) == 0 &&
	       (incompat & ~JBD2_KNOWN_INCOMPAT_FEATURES) == 0;
}

/*
 * jbd2_journal_set_features(): in the superblock in memory (it reaches the
 * device with the next superblock write); v2 asked for is v3, v3 drops v1;
 * turning v3 on sets s_checksum_type and j_csum_seed.  Fast commit is not
 * modelled (refused).
 */
int jbd2_journal_set_features(journal_t *j, uint32_t compat, uint32_t ro, uint32_t incompat)
{
	journal_superblock_t *sb = jsb(j);
	uint32_t old_incompat = be32_to_cpu(sb->s_feature_incompat);
	uint32_t old_compat = be32_to_cpu(sb->s_feature_compat);

	if (features_used(j, compat, ro, incompat))
		return 1;
	if (!features_available(j, compat, ro, incompat) ||
	    (incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT))
		return 0;
	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		incompat = (incompat & ~JBD2_FEATURE_INCOMPAT_CSUM_V2) | JBD2_FEATURE_INCOMPAT_CSUM_V3;
	if ((incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3) && (compat & JBD2_FEATURE_COMPAT_CHECKSUM))
		compat &= ~JBD2_FEATURE_COMPAT_CHECKSUM;
	if ((incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3) &&
	    !(old_incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		j->j_csum_seed = crc32c(~0u, sb->s_uuid, sizeof(sb->s_uuid));
		sb->s_checksum_type = JBD2_CRC32C_CHKSUM;
		old_compat &= ~JBD2_FEATURE_COMPAT_CHECKSUM;
	}
	if ((compat & JBD2_FEATURE_COMPAT_CHECKSUM) && !(old_compat & JBD2_FEATURE_COMPAT_CHECKSUM))
		old_incompat &= ~(JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3);
	sb->s_feature_compat = cpu_to_be32(old_compat | compat);
	sb->s_feature_ro_compat = cpu_to_be32(be32_to_cpu(sb->s_feature_ro_compat) | ro);
	sb->s_feature_incompat = cpu_to_be32(old_incompat | incompat);
	if (jbd2_journal_has_csum_v2or3(j))
		sb->s_checksum = jbd2_superblock_csum(sb);
	return 1;
}

/* jbd2_journal_clear_features(): in memory, as set_features (the checksum is
 * recomputed when the superblock is next written). */
void jbd2_journal_clear_features(journal_t *j, uint32_t compat, uint32_t ro, uint32_t incompat)
{
	journal_superblock_t *sb = jsb(j);
	uint32_t c = be32_to_cpu(sb->s_feature_compat), r = be32_to_cpu(sb->s_feature_ro_compat);
	uint32_t i = be32_to_cpu(sb->s_feature_incompat);

	sb->s_feature_compat = cpu_to_be32(c & ~compat);
	sb->s_feature_ro_compat = cpu_to_be32(r & ~ro);
	sb->s_feature_incompat = cpu_to_be32(i & ~incompat);
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
	free(j->j_map);
	free(j->j_sb_buffer);
	j->j_map = NULL;
	j->j_nr_map = 0;
	j->j_sb_buffer = NULL;
	j->j_superblock = NULL;
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
	n->t_inodes = sim_dup_array(t->t_inodes, t->t_nr_inodes, t->t_cap_inodes,
				    sizeof(*t->t_inodes));
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
	dst->j_map = sim_dup_array(src->j_map, src->j_nr_map, src->j_nr_map, sizeof(*src->j_map));
	dst->j_sb_buffer = sim_dup_array(src->j_sb_buffer, bs, bs, 1);
	dst->j_superblock = (struct journal_superblock_s *)dst->j_sb_buffer;
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

	if (!b || get_be32(b) != JBD2_MAGIC_NUMBER || get_be32(b + 8) != tid)
		return false;
	return type == 0 || get_be32(b + 4) == type;
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
	/*
	 * (3) recovery would start at the tail: the superblock names it, or,
	 * before the first commit of a mount that found the log empty
	 * (JBD2_FLUSHED), still says the log is empty
	 */
	SIM_ASSERT(sb != NULL);                                                 /* (3) */
	if (j->j_flushed) {
		SIM_ASSERT(get_be32(sb + offsetof(journal_superblock_t, s_start)) == 0); /* (3) */
		SIM_ASSERT(j->j_nr_logged == 0);                                /* (3) */
		return;
	}
	SIM_ASSERT(get_be32(sb + offsetof(journal_superblock_t, s_start)) == j->j_tail); /* (3) */
	SIM_ASSERT(get_be32(sb + offsetof(journal_superblock_t, s_sequence)) ==
		   j->j_tail_sequence);                                         /* (3) */
}
