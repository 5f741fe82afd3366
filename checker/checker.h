/*
 * checker.h - the invariants of docs/invariants.md, judged against the model.
 *
 * The checker never changes the model: it reads the page cache through
 * ext4_peek(), the block map and the device.  It keeps its own naive POSIX
 * reference of the file (runs.h) built from what each step did, a durable
 * baseline (the reference at the last fsync, fdatasync, sync, clean
 * remount or crash) with the mutations since, and the size extensions
 * since the last crash.
 *
 * The namespace (every file, directory and link, their link counts, what
 * fsync, sync and rename promise about names) has its own reference,
 * checker/namespace.h, and its own invariants (INV_NS_*, replace_via_rename).
 *
 * What it does not verify here: timestamps; the content of blocks outside the file;
 * that metadata not written by the journal (none, in this model) is sane;
 * no_stale_data is judged by value (the sentinel byte), so a scenario that
 * writes the sentinel itself turns that check off.
 */
#ifndef EXT4SIM_CHECKER_H
#define EXT4SIM_CHECKER_H

#include <stdbool.h>
#include <stdint.h>

#include "ext4.h"
#include "runs.h"

enum chk_inv {
	INV_DISKSIZE_LE_SIZE,
	INV_DISKSIZE_PENDING,
	INV_GAP_ZERO_ON_EXTEND,
	INV_NO_STALE_DATA,
	INV_ALLOC_CONSISTENT,
	INV_READ_POSIX,
	INV_FSYNC_DURABLE,
	INV_GAP_ZERO_DURABLE,
	INV_JOURNAL_PREFIX,
	INV_POST_EOF_ZERO_STRICT,
	INV_NO_FOLIO_LOCK_UNDER_HANDLE,
	INV_PREALLOC_DURABLE,
	INV_REPLACE_VIA_TRUNCATE,
	/* the namespace's (checker/namespace.h), judged on a recovered crash state */
	INV_NS_LINK_COUNT,
	INV_NS_NO_ORPHAN,
	INV_NS_FILE_FSYNC,
	INV_NS_DIR_FSYNC,
	INV_NS_RENAME_ATOMIC,
	INV_NS_NEW_FILE_FSYNC,
	INV_NS_OP_ORDER,
	INV_REPLACE_VIA_RENAME,
	INV_DIO_SYNC_DURABLE,           /* the scenario's file again (after the namespace's) */
	INV_COUNT
};
_Static_assert(INV_COUNT <= 32, "crash-state masks hold one bit per invariant");

struct chk_inv_info {
	const char *name;
	bool informational;     /* reported, fails only where expected */
	const char *when;
	const char *definition;
	const char *plain;      /* what a violation means, in a student's words */
};

const struct chk_inv_info *chk_inv_info(enum chk_inv inv);
/*
 * What a violation of @inv with message @msg means, in a student's words:
 * the words of the case the message names (alloc_consistent tells four
 * apart), else the invariant's own (chk_inv_info()->plain).
 */
const char *chk_what_happened(enum chk_inv inv, const char *msg);
/* The invariant named @name, or -1. */
int chk_inv_lookup(const char *name);
bool chk_is_invariant_name(const char *name);

#define CHK_MSG_MAX 384

struct chk_violation {
	enum chk_inv inv;
	uint32_t step;          /* 1-based step index */
	char msg[CHK_MSG_MAX];
};

/*
 * What a step did to the file, for the post-crash checks: a fill (every
 * write and store; zero range and punch fill with 0), a size set
 * (truncate, an extending fallocate), or a shift of everything from @off
 * on by @len (collapse: down, the range gone; insert: up, a hole left).
 */
enum chk_mut_kind { MUT_FILL, MUT_TRUNC, MUT_COLLAPSE, MUT_INSERT };

struct chk_mut {
	uint8_t kind;
	uint8_t byte;
	int64_t off;            /* fill, shifts: offset; trunc: the new size */
	int64_t len;
};

/* A durable point since the last crash: the size then, and where the log was. */
struct chk_durable_point {
	int64_t size;
	uint32_t mut_index;     /* mutations from here on came after it */
};

/*
 * How the checker keeps its logs (docs/invariants.md, "The checker's log"):
 * CHK_LOG_SUMMARY (the default) summarises each stretch of fills and size sets
 * between two shifts or durable points once it has doubled (the judgments
 * read only which byte values each offset may hold there), and keeps only the
 * durable points no later one dominates (with their part of the log); CHK_LOG_FULL keeps every change, as the definition reads;
 * CHK_LOG_EAGER summarises after every change (for the tests that compare the
 * three).  Every judgment is the same whichever is used.
 */
enum chk_log_mode { CHK_LOG_SUMMARY, CHK_LOG_FULL, CHK_LOG_EAGER };

/* replace_via_truncate's states (struct chk_state's rt_state), in order. */
enum chk_rt_state { RT_NONE, RT_TRUNCATED, RT_REWRITTEN, RT_CLOSED, RT_ARMED };

struct chk_ns;

struct chk_state {
	/*
	 * In a scenario with several files these judgments are the scenario's
	 * file's (inode 12, /f): c_mute while a step works on another file (its
	 * notes and live checks are not this file's), c_detached once no name
	 * holds inode 12 (nothing of it is judged from then on).  c_ns: the
	 * namespace reference the crash states are judged against too (the
	 * world's, not owned; NULL in a scenario of one file).
	 */
	bool c_mute;
	bool c_detached;
	const struct chk_ns *c_ns;
	uint32_t block_size;
	struct runs posix;              /* what a read must return now */
	struct runs durable;            /* the baseline */
	uint8_t log_mode;               /* enum chk_log_mode */
	struct chk_mut *muts;           /* since the baseline */
	uint32_t nr_muts;
	uint32_t cap_muts;
	uint32_t muts_tail;             /* muts[muts_tail..]: fills and size sets only */
	uint32_t muts_next;             /* summarise that tail when it is this long */
	int64_t size_lo, size_hi;       /* the sizes the file had since the baseline */
	struct chk_durable_point *dps;  /* durable points since the last crash */
	uint32_t nr_dps;
	uint32_t cap_dps;
	uint32_t all_muts;              /* mutations since the last crash */
	struct chk_mut *crash_muts;     /* every mutation since the last crash */
	uint32_t cap_crash_muts;
	uint32_t crash_tail;            /* as muts_tail, past the last durable point too */
	uint32_t crash_next;
	uint32_t crash_full_next;       /* summarise all of crash_muts when this long */
	bool sentinel_written;
	/*
	 * prealloc_durable: the blocks fallocate allocated (byte ranges of whole
	 * blocks, byte 1) that no step since may have freed, and those of them
	 * the last durable point made durable.
	 */
	struct runs falloc;
	struct runs falloc_durable;
	/*
	 * dio_sync_durable: the bytes an O_SYNC / O_DSYNC direct write wrote and
	 * no later step changed (byte 1; their values are posix's), and the
	 * size those writes reached, less what later steps cut.
	 */
	struct runs dsync;
	int64_t dsync_size;
	/*
	 * replace_via_truncate: truncated to 0 (RT_TRUNCATED), rewritten
	 * (RT_REWRITTEN), closed (RT_CLOSED: the file then in @rt_data, the
	 * journal's commit sequence in @rt_close_seq), a commit since (RT_ARMED).
	 */
	uint8_t rt_state;               /* enum chk_rt_state */
	uint32_t rt_close_seq;
	struct runs rt_data;
	uint64_t locks_before[SITE_COUNT];
	uint64_t disksize_over_before;  /* counters->disksize_over_size at step begin */
	/* this step's extension, for gap_zero_on_extend */
	bool step_extended;
	int64_t step_old_size;
	int64_t step_new_size;
	int64_t step_wr_off;
	int64_t step_wr_len;
	struct chk_violation *v;
	uint32_t nr_v;
	uint32_t cap_v;
};

void chk_init(struct chk_state *c, uint32_t block_size);
/* How the logs are kept, right after chk_init (CHK_LOG_SUMMARY by default). */
void chk_set_log_mode(struct chk_state *c, enum chk_log_mode mode);
/* The entries the logs hold (mutations and durable points), what memory grows with. */
uint32_t chk_log_entries(const struct chk_state *c);
/* A deep copy (a crash state is judged on a copy; the run goes on with @src). */
void chk_copy(struct chk_state *dst, const struct chk_state *src);
void chk_destroy(struct chk_state *c);

/* Before a step: remember the counters the step may raise. */
void chk_step_begin(struct chk_state *c, const struct ext4_fs *fs);
/* The step wrote @len bytes of @byte at @off. */
void chk_note_write(struct chk_state *c, int64_t off, int64_t len, uint8_t byte);
/* The step set the size (truncate). */
void chk_note_truncate(struct chk_state *c, int64_t size);
/*
 * The step grew the file to @size, the new bytes zero (fallocate mode 0
 * past EOF); nothing when @size is not larger.  A size extension for
 * gap_zero_on_extend.
 */
void chk_note_extend(struct chk_state *c, int64_t size);
/*
 * The step made [off, off+len) read zero (zero range, punch hole).  With
 * @extend the size grows to off+len when smaller (zero range without
 * KEEP_SIZE); without, only the bytes below the size change.
 */
void chk_note_zero(struct chk_state *c, int64_t off, int64_t len, bool extend);
/*
 * The step allocated the blocks of [off, off+len) (fallocate mode 0 or
 * KEEP_SIZE, zero range): once a durable point follows, a crash must keep
 * them (prealloc_durable), until a step may free them.
 */
void chk_note_falloc(struct chk_state *c, int64_t off, int64_t len);
/* The step punched [off, off+len): it reads zero and its blocks may be gone. */
void chk_note_punch(struct chk_state *c, int64_t off, int64_t len);
/*
 * The step may have freed every block from the one holding @off on (a short
 * or failed write past EOF trims what it allocated: ext4_truncate_failed_write).
 */
void chk_note_free_from(struct chk_state *c, int64_t off);
/* The file was closed (ext4_release_file: the auto_da_alloc heuristic). */
void chk_note_close(struct chk_state *c, const struct ext4_fs *fs);
/* The step removed [off, off+len) and moved what follows down (collapse range). */
void chk_note_collapse(struct chk_state *c, int64_t off, int64_t len);
/* The step moved [off, size) up by @len, leaving zeros (insert range); not an extension. */
void chk_note_insert(struct chk_state *c, int64_t off, int64_t len);
/*
 * The step's direct write of [off, off+len) (noted with chk_note_write
 * first) returned with O_SYNC, O_DSYNC or RWF_DSYNC: a crash must keep
 * those bytes and a size reaching their end (dio_sync_durable), until a
 * later step changes them.
 */
void chk_note_dsync(struct chk_state *c, int64_t off, int64_t len, uint8_t byte);
/*
 * The step submitted an asynchronous write of [off, off+len) inside the
 * size (an AIO direct write): until its completion is noted with
 * chk_note_write, a read returns the old bytes, and a crash may keep the old
 * or the new ones (a mutation of the post-crash checks, not of the reference).
 */
void chk_note_write_submitted(struct chk_state *c, int64_t off, int64_t len, uint8_t byte);
/* The whole file is durable now (fsync, fdatasync, sync, remount, crash). */
void chk_note_durable(struct chk_state *c);
/* After a step: the in-memory invariants. */
void chk_step_end(struct chk_state *c, const struct ext4_fs *fs, uint32_t step);

/* Expected metadata after replay: committed copies over the durable home. */
/*
 * With @with_committing, as if the transaction being committed (if its log
 * copies are written) lands too: its copies and revokes on top.
 */
uint64_t chk_expected_meta_hash(const struct ext4_fs *fs, bool with_committing);
/*
 * The same two hashes over the blocks of @set (@n, sorted): a crash's
 * judgment takes the set of the file system before the crash for both, as
 * the mount after it holds other inodes in core.
 */
uint64_t chk_expected_meta_hash_set(const struct ext4_fs *fs, bool with_committing,
				    const uint32_t *set, uint32_t n);
uint64_t chk_device_meta_hash_set(const struct ext4_fs *fs, const uint32_t *set, uint32_t n);
uint64_t chk_device_meta_hash(const struct ext4_fs *fs);
/*
 * Is the metadata of @rec, mounted on an overlay of @fs's device (blocks the
 * overlay does not hold read @fs's durable ones), what recovery must leave:
 * what chk_expected_meta_hash(@fs, @with_committing) hashes?  Compares only
 * the blocks that can differ (those the overlay holds or has writes for, and
 * those the journal has copies of), byte for byte: the answer of comparing the
 * two hashes, without their chance of a collision.
 */
bool chk_meta_as_expected(const struct ext4_fs *fs, bool with_committing,
			  const struct ext4_fs *rec);
/*
 * After a crash, recovery and mount: the post-crash invariants; then the
 * recovered file becomes the new reference and baseline.
 */
void chk_after_recovery(struct chk_state *c, const struct ext4_fs *fs, uint32_t step,
			uint64_t expected_meta, uint64_t replayed_meta);

/*
 * Crash-state enumeration judges a recovered state in parts (crash/crashstates.c):
 * the byte ranges whose content differs between the states it groups, and the
 * rest.  chk_judge_recovered_except() makes chk_after_recovery()'s checks,
 * reported into @c, for everything but the sorted, disjoint byte ranges @skip
 * (post_eof_zero_strict included only if the EOF block's in-file part is not in
 * them), and does not rebase.  chk_recovered_range_mask() returns, as bits
 * (1 << inv), the byte-level invariants (fsync_durable, no_stale_data,
 * gap_zero_durable; post_eof_zero_strict if the EOF block's last in-file byte
 * is in the window) that the bytes in [@lo, @hi) violate; it reports nothing.
 * The union of the parts is exactly what chk_after_recovery() finds.
 */
void chk_judge_recovered_except(struct chk_state *c, const struct ext4_fs *fs, uint32_t step,
				uint64_t expected_meta, uint64_t replayed_meta,
				const int64_t (*skip)[2], uint32_t nr_skip);
uint32_t chk_recovered_range_mask(const struct chk_state *c, const struct ext4_fs *fs,
				  int64_t lo, int64_t hi);

void chk_report(struct chk_state *c, enum chk_inv inv, uint32_t step, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
