/*
 * jbd2.h - the journal: handles, transactions, commit, checkpoint, recovery.
 *
 * Mirrors fs/jbd2 (transaction.c, commit.c, checkpoint.c, recovery.c,
 * revoke.c) at the level a crash can observe: which metadata blocks (and, in
 * data=journal, which data blocks) a transaction carries, in which order its
 * blocks reach the device, and what recovery replays.
 *
 * Transaction life (state -> function that moves it on):
 *
 *   (none) --start_this_handle--> T_RUNNING --jbd2_journal_commit_transaction-->
 *   T_LOCKED (no new handle; wait for t_updates == 0) --> T_SWITCH (updates
 *   done) --> T_FLUSH (committing; ordered data submitted, revoke records
 *   written) --> T_COMMIT (descriptors and copies written to the log, ordered
 *   data waited) --> T_COMMIT_DFLUSH (log writes waited) --> T_COMMIT_JFLUSH
 *   (flush, commit block FUA; buffers on the checkpoint list) -->
 *   T_COMMIT_CALLBACK (committed: j_commit_sequence, freed blocks released)
 *   --> T_FINISHED --jbd2_log_do_checkpoint--> written home, log tail moved.
 *
 * Invariants (jbd2_check after every step; (3) also in jbd2_journal_recover,
 * (4) in ext4_check_state, which sees the allocator):
 *   (1) at most one running transaction; handles join it; a commit starts
 *       only when no handle of the transaction is open (single task model);
 *   (2) a committed transaction's blocks are in the log, followed by a
 *       commit block made durable after a flush;
 *   (3) recovery replays, in tid order, every transaction from the log tail
 *       whose commit block is present, skipping revoked blocks;
 *   (4) a block freed through a transaction (jbd2_journal_free_blocks) is
 *       reused only after it commits.  data=writeback frees data blocks
 *       outside it, reusable at once, as ext4 does (mballoc.c).
 *
 * On-disk format: jbd2's own (jbd2_disk.h, include/linux/jbd2.h), in the
 * journal inode's blocks (a block map, struct jbd2_extent): block 0 is the
 * journal superblock; descriptor blocks with journal_block_tag_t or
 * journal_block_tag3_t tags, revoke blocks, commit blocks; csum v2/v3 and
 * 64bit when the file system sets them (jbd2_journal_set_features).  Not
 * modelled: async commit, fast commit, barriers off, the v1 transaction
 * checksum (JBD2_FEATURE_COMPAT_CHECKSUM) when writing, the REVOKE feature
 * jbd2_journal_revoke() sets (recovery reads revoke blocks without it).
 */
#ifndef EXT4SIM_JBD2_H
#define EXT4SIM_JBD2_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

/* include/linux/jbd2.h's names of the errnos jbd2 returns */
#define EFSBADCRC EBADMSG               /* bad CRC detected */
#define EFSCORRUPTED EUCLEAN            /* file system is corrupted */

/* jbd2_inode flags: what commit must do with the inode's dirty range. */
#define JI_WRITE_DATA 1u        /* submit the range's dirty data */
#define JI_WAIT_DATA 2u         /* wait for the range's data I/O */

/* include/linux/jbd2.h's states, in the order jbd2_journal_commit_transaction sets them. */
enum t_state {
	T_RUNNING, T_LOCKED, T_SWITCH, T_FLUSH, T_COMMIT, T_COMMIT_DFLUSH, T_COMMIT_JFLUSH,
	T_COMMIT_CALLBACK, T_FINISHED, T_STATE_COUNT
};

/* A block a transaction carries: metadata, or file data in data=journal. */
struct jbd2_buf {
	uint32_t jb_blocknr;
	uint32_t jb_ino;        /* journaled data: the inode whose block it is */
	int64_t jb_lblk;        /* file block for journaled data, -1 for metadata */
};

/*
 * A jbd2_inode of a transaction's inode list: the inode's number, what
 * commit must do with its data, and its dirty range (bytes, inclusive).
 */
struct jbd2_inode {
	uint32_t i_ino;
	uint32_t i_flags;               /* JI_* */
	int64_t i_dirty_start;
	int64_t i_dirty_end;
};

#define JBD2_MAX_INODES 256u            /* inodes on one transaction's list */

struct jbd2_range {
	uint32_t start;
	uint32_t len;
};

typedef struct transaction_s {
	uint32_t t_tid;
	enum t_state t_state;
	int t_updates;                  /* open handles */
	uint32_t t_outstanding_credits;
	struct jbd2_buf *t_buffers;     /* sorted by jb_blocknr, unique */
	uint32_t t_nr_buffers;
	uint32_t t_cap_buffers;
	uint32_t *t_revoke;             /* revoked block numbers, sorted */
	uint32_t t_nr_revoke;
	uint32_t t_cap_revoke;
	uint32_t *t_forget;             /* freed blocks: drop their checkpoint copies at commit */
	uint32_t t_nr_forget;
	uint32_t t_cap_forget;
	struct jbd2_range *t_freed;     /* released to the allocator at commit */
	uint32_t t_nr_freed;
	uint32_t t_cap_freed;
	/*
	 * t_inode_list: the inodes whose data commit writes or waits for, the
	 * last added first (list_add at the head, as jbd2_journal_file_inode).
	 */
	struct jbd2_inode *t_inodes;
	uint32_t t_nr_inodes;
	uint32_t t_cap_inodes;
	bool t_synchronous_commit;
} transaction_t;

typedef struct handle_s {
	struct journal_s *h_journal;
	transaction_t *h_transaction;
	int h_ref;                      /* nesting depth */
	uint32_t h_total_credits;
	bool h_sync;
	int h_type;
} handle_t;

/* A committed transaction whose log blocks are not yet released. */
struct jbd2_logged_tx {
	uint32_t lt_tid;
	uint32_t lt_start;              /* first log block (journal-relative) */
	uint32_t lt_nr_blocks;
};

/* The newest committed copy of a block, waiting for checkpoint. */
struct jbd2_cp_buf {
	uint32_t cp_blocknr;
	uint32_t cp_tid;
	uint8_t *cp_data;
};

struct blkdev;
struct sim_counters;

/* What the file system provides to the journal (j_private and callbacks). */
struct jbd2_fs_ops {
	/* ext4_journal_submit_inode_data_buffers */
	void (*submit_inode_data)(void *fs, uint32_t ino, int64_t start, int64_t end);
	/* ext4_journal_finish_inode_data_buffers */
	void (*finish_inode_data)(void *fs, uint32_t ino, int64_t start, int64_t end);
	/* current contents of a metadata block or journaled data block */
	void (*get_block)(void *fs, const struct jbd2_buf *b, uint8_t *out);
	/* j_commit_callback: release blocks freed by the transaction */
	void (*commit_callback)(void *fs, transaction_t *t);
	/* a block the transaction carried is now committed (refile) */
	void (*buffer_committed)(void *fs, const struct jbd2_buf *b);
};

/*
 * One extent of the journal inode: journal blocks [je_lblk, je_lblk + je_len)
 * are device blocks [je_pblk, je_pblk + je_len).
 */
struct jbd2_extent {
	uint32_t je_lblk;
	uint32_t je_pblk;
	uint32_t je_len;
};

struct journal_superblock_s;

typedef struct journal_s {
	struct blkdev *j_dev;
	void *j_private;
	const struct jbd2_fs_ops *j_ops;
	struct sim_counters *j_counters;
	struct jbd2_extent *j_map;      /* the journal inode's blocks (jbd2_journal_bmap) */
	uint32_t j_nr_map;
	uint32_t j_total_len;           /* journal blocks incl. the superblock */
	uint8_t *j_sb_buffer;           /* the journal superblock's block ... */
	struct journal_superblock_s *j_superblock;      /* ... as journal_superblock_t */
	int j_format_version;           /* 1 or 2 (JBD2_SUPERBLOCK_V1 / _V2) */
	uint32_t j_csum_seed;           /* crc32c(~0, s_uuid) with csum v2/v3 */
	uint32_t j_failed_commit;       /* tid whose commit block failed its checksum */
	bool j_flushed;                 /* JBD2_FLUSHED: the first commit writes the sb */
	uint32_t j_first;               /* first log block (1) */
	uint32_t j_last;                /* one past the last log block */
	uint32_t j_head;                /* next log block to write */
	uint32_t j_tail;                /* oldest log block still needed */
	uint32_t j_tail_sequence;       /* tid at j_tail */
	uint32_t j_free;                /* free log blocks */
	uint32_t j_transaction_sequence;/* tid of the next transaction */
	uint32_t j_commit_sequence;     /* last committed tid */
	uint32_t j_max_transaction_buffers;
	transaction_t *j_running_transaction;
	transaction_t *j_committing_transaction;        /* while it is being written */
	uint8_t **j_commit_copies;      /* its logged copies, by t_buffers index, once written */
	handle_t *j_current_handle;     /* current->journal_info */
	struct jbd2_logged_tx *j_logged;/* committed, not checkpointed */
	uint32_t j_nr_logged;
	uint32_t j_cap_logged;
	struct jbd2_cp_buf *j_cp;       /* checkpoint list, sorted by blocknr */
	uint32_t j_nr_cp;
	uint32_t j_cap_cp;
	bool j_aborted;
} journal_t;

/* Recovery report (what jbd2_journal_recover found). */
struct jbd2_recovery_info {
	uint32_t start_transaction;
	uint32_t end_transaction;       /* first tid not replayed */
	uint32_t nr_replayed;           /* blocks written home */
	uint32_t nr_revoke_hits;        /* blocks skipped because revoked */
	uint32_t nr_revokes;
	uint64_t nr_blocks;             /* log blocks read plus blocks written home */
	bool base_refused;              /* a revoke hit a block the base wrote: no replay */
};

/*
 * The three passes over a log's first complete transactions, done once on a
 * device: where they stopped, the revoke records they collected and the
 * blocks they wrote home.  A device that is this one's overlay and differs
 * from it in no block the passes read (the superblock and the log from s_start
 * to rb_pos) nor wrote recovers as the whole log would from (rb_pos,
 * rb_end_tid): the same scan, the same records, and the same replay unless a
 * later transaction revokes a block the prefix wrote (then base_refused).
 */
struct jbd2_recovery_base {
	uint32_t rb_start;              /* the superblock's s_start ... */
	uint32_t rb_start_tid;          /* ... and s_sequence */
	uint32_t rb_pos;                /* first log block of tid rb_end_tid */
	uint32_t rb_end_tid;            /* first tid without a commit block */
	struct jbd2_revoke_rec *rb_rv;  /* revoke records: block -> newest revoking tid */
	uint32_t rb_nr_rv;
	uint32_t *rb_wrote;             /* blocks written home, sorted */
	uint32_t rb_nr_wrote;
	struct jbd2_recovery_info rb_info;
};

struct jbd2_revoke_rec {
	uint32_t blocknr;
	uint32_t tid;
};

/* journal superblock helpers (jbd2_journal.c) */
/*
 * jbd2_journal_init_inode(): a journal in the @nr extents of @map (copied),
 * which must cover journal blocks 0..n-1 without a hole or an overlap, n >=
 * 64, every device block below the device's size; -EINVAL otherwise.
 */
int jbd2_journal_init(journal_t *j, struct blkdev *dev, const struct jbd2_extent *map,
		      uint32_t nr, void *priv, const struct jbd2_fs_ops *ops,
		      struct sim_counters *counters);
/* mkfs (ext2fs_create_journal_superblock2): empty v2 journal, no feature, @uuid */
void jbd2_journal_create(journal_t *j, const uint8_t uuid[16]);
/*
 * mount: journal_get_superblock/load_superblock's checks, recovery, reset;
 * the kernel's errno (-EINVAL bad superblock or unknown feature, -EFSBADCRC
 * superblock checksum, -EIO recovery failed, -EFSCORRUPTED a commit block
 * failed its checksum).
 */
int jbd2_journal_load(journal_t *j, struct jbd2_recovery_info *info);
/* jbd2_journal_set_features(): 1 when set (or already set), 0 when refused */
int jbd2_journal_set_features(journal_t *j, uint32_t compat, uint32_t ro, uint32_t incompat);
/* jbd2_journal_clear_features() */
void jbd2_journal_clear_features(journal_t *j, uint32_t compat, uint32_t ro, uint32_t incompat);
/* The same, the device's parent holding @base's replay (NULL: none). */
int jbd2_journal_load_base(journal_t *j, struct jbd2_recovery_info *info,
			   const struct jbd2_recovery_base *base);
void jbd2_journal_destroy(journal_t *j);        /* free memory only */
/*
 * A deep copy of @src, between two steps (no handle open, no commit under
 * way), journaling to @dev for @priv: a forked world's journal.
 */
void jbd2_journal_clone(journal_t *dst, const journal_t *src, struct blkdev *dev, void *priv,
			struct sim_counters *counters);
void jbd2_journal_release(journal_t *j);        /* unmount: commit, checkpoint, mark empty */
void jbd2_write_superblock(journal_t *j, uint32_t start, uint32_t sequence);
/* jbd2_journal_bmap(): the device block of journal block @logblk */
uint32_t jbd2_journal_bmap(const journal_t *j, uint32_t logblk);
uint32_t jbd2_log_block(const journal_t *j, uint32_t logblk);   /* the same */
/* Is device block @blk one of the journal's?  Its journal block in @logblk. */
bool jbd2_journal_owns(const journal_t *j, uint32_t blk, uint32_t *logblk);
void jbd2_check(const journal_t *j);            /* assert the invariants, between steps */

/* transaction.c */
handle_t *jbd2_journal_start(journal_t *j, uint32_t credits, int type);
int jbd2_journal_stop(handle_t *h);
void jbd2_journal_dirty_metadata(handle_t *h, uint32_t blocknr);
void jbd2_journal_dirty_data(handle_t *h, uint32_t blocknr, uint32_t ino, int64_t lblk);
void jbd2_journal_forget(handle_t *h, uint32_t blocknr);
void jbd2_journal_unmap_buffer(journal_t *j, uint32_t blocknr);
void jbd2_journal_revoke(handle_t *h, uint32_t blocknr);
void jbd2_journal_free_blocks(handle_t *h, uint32_t start, uint32_t len);
void jbd2_journal_inode_ranged(handle_t *h, uint32_t ino, uint32_t flags, int64_t start,
			       int64_t len);
/*
 * jbd2_journal_release_jbd_inode(): an inode that goes (ext4_clear_inode)
 * leaves the running and the committing transaction's inode lists; its
 * data was written and waited for before (truncate_inode_pages_final).
 */
void jbd2_journal_release_jbd_inode(journal_t *j, uint32_t ino);
/* Inode @ino's entry on @t's inode list, or NULL. */
const struct jbd2_inode *jbd2_transaction_inode(const transaction_t *t, uint32_t ino);
/* The flags of every entry of @t's inode list, or'ed. */
uint32_t jbd2_transaction_inode_flags(const transaction_t *t);
bool jbd2_transaction_committed(journal_t *j, uint32_t tid);
void jbd2_transaction_free(transaction_t *t);

/* commit.c */
void jbd2_journal_commit_transaction(journal_t *j);
int jbd2_complete_transaction(journal_t *j, uint32_t tid);
int jbd2_journal_force_commit(journal_t *j);
bool jbd2_trans_will_send_data_barrier(journal_t *j, uint32_t tid);

/* checkpoint.c */
void jbd2_log_do_checkpoint(journal_t *j);
void jbd2_log_make_space(journal_t *j, uint32_t needed);
void jbd2_journal_forget_checkpoint(journal_t *j, uint32_t blocknr);

/* recovery.c: replay a crashed log onto the device. */
int jbd2_journal_recover(journal_t *j, struct jbd2_recovery_info *info);
/* The same from where @base stopped, on an overlay of the device it replayed. */
int jbd2_journal_recover_base(journal_t *j, struct jbd2_recovery_info *info,
			      const struct jbd2_recovery_base *base);
/* Recover @j's log (not reset) into @b; false if the log is empty. */
bool jbd2_recovery_prefix(journal_t *j, struct jbd2_recovery_base *b);
/* Did the prefix read or write device block @blk? */
bool jbd2_recovery_base_touches(const journal_t *j, const struct jbd2_recovery_base *b,
				uint32_t blk);
void jbd2_recovery_base_free(struct jbd2_recovery_base *b);

#endif
