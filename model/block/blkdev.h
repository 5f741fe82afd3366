/*
 * blkdev.h - the block device and its volatile write cache.
 *
 * Every block starts filled with a sentinel byte standing for a previous
 * owner's data.  A write goes through three stages, kept apart so that the
 * crash code can enumerate what a power cut may leave:
 *
 *     blkdev_submit()        blkdev_complete()        blkdev_flush() / FUA
 *   ------------------> SUBMITTED -------------> COMPLETED ---------------> DURABLE
 *                       (in flight)              (in the volatile cache)     (on media)
 *
 * Invariants:
 *   (1) a read returns the newest completed write to the block, else the
 *       durable contents, else the sentinel; in-flight writes are invisible;
 *   (2) a flush makes every write completed before it durable, in completion
 *       order; a FUA write is durable when it completes;
 *   (3) blkdev_crash() keeps every completed write and drops every in-flight
 *       one: what a shutdown of a real machine with a write-back cache that
 *       still has power leaves (the crash-state issue enumerates the rest);
 *   (4) a base (below) never changes: every device over it holds a
 *       reference and has its geometry, and the shared zero block stays
 *       zero.
 * Storage is sparse: memory follows the blocks written, not the device size.
 * An overlay (blkdev_overlay) is a device whose durable contents start as
 * another device's and which stores only the blocks written to it: a crash
 * state costs the blocks it differs in, not a copy of the device.
 *
 * A base (struct blkdev_base) is an immutable image shared by every device
 * made over it (blkdev_create_on: the file system mkfs made, once per
 * geometry): a block the device holds no copy of reads as the base's, and a
 * block the base holds none of either reads as the sentinel.  A clone or an
 * overlay shares its source's base; none copies it.  Zero blocks
 * (blkdev_zeroout_durable, mkfs's zeroed inode tables and journal) cost no
 * memory: they all point at one zero block.
 *
 * bd_durable_sum: the sum (mod 2^64, each half) of a 128-bit hash of the
 * number and bytes of every block whose durable bytes differ from the base's
 * (the sentinel where there is no base or the base holds no copy).  A block
 * written back with its base bytes counts as unchanged, so two devices over
 * one base with the same durable bytes have the same sum, whatever wrote
 * them.
 */
#ifndef EXT4SIM_BLKDEV_H
#define EXT4SIM_BLKDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"

#define BLKDEV_SENTINEL 0xee
#define BLKDEV_CHUNK_SHIFT 7
#define BLKDEV_FILTER_BITS 4096

enum bio_state { BIO_SUBMITTED, BIO_COMPLETED };

/* The moments the media changes: a flush, or a FUA write completing. */
enum bd_point { BD_BEFORE_FLUSH = 1, BD_BEFORE_FUA };

/* What issued a write; used by traces and by crash-state reports. */
enum bio_kind { BIO_DATA, BIO_JOURNAL, BIO_COMMIT, BIO_JSB, BIO_META };

/* What a write holds, finer than enum bio_kind (for events and crash states). */
enum bio_what {
	BW_DATA,                /* file data, home location */
	BW_ZEROOUT,             /* zeroes written over newly allocated file blocks */
	BW_JDESC,               /* a journal descriptor block */
	BW_JCOPY,               /* a metadata block's copy in the log */
	BW_JDATA,               /* a file data block's copy in the log (data=journal) */
	BW_JREVOKE,             /* a journal revoke block */
	BW_JCOMMIT,             /* a journal commit block */
	BW_JSB,                 /* the journal superblock */
	BW_HOME,                /* a metadata block written home by a checkpoint */
	BW_REPLAY,              /* a block written home by recovery */
	BW_COUNT
};

/* Who wrote a block, and what it is; set by the submitter. */
struct bio_info {
	const char *bi_func;    /* the submitting function (a string literal) */
	int64_t bi_lblk;        /* file block (BW_DATA, BW_ZEROOUT, BW_JDATA), else -1 */
	uint32_t bi_tid;        /* journal blocks: the transaction; 0 otherwise */
	uint32_t bi_home;       /* BW_JCOPY, BW_JDATA: the block it stands for */
	uint32_t bi_event;      /* the submit event's number (events.h); 0 without a log */
	uint8_t bi_what;        /* enum bio_what */
	uint8_t bi_cause;       /* enum ev_cause in force at submission */
};

struct bio_rec {
	uint64_t b_seq;         /* submission sequence number, from 1 */
	uint64_t b_done_seq;    /* completion order, 0 while in flight */
	uint32_t b_blocknr;
	uint8_t b_state;        /* enum bio_state */
	uint8_t b_kind;         /* enum bio_kind */
	bool b_fua;
	uint8_t *b_data;        /* a private copy of the block */
	struct bio_info b_info;
};

/*
 * An immutable image: per block a copy, the shared zero block, or nothing
 * (the sentinel).  Reference-counted: each device over it holds one.
 */
struct blkdev_base {
	uint32_t bb_block_size;
	uint32_t bb_nr_blocks;
	uint8_t ***bb_chunks;   /* [blk >> shift][blk & mask], as bd_chunks */
	uint32_t bb_nr_chunks;
	uint32_t *bb_slots;     /* the blocks it holds, in order of first write */
	uint32_t bb_nr_slots;
	uint32_t bb_refs;
};

struct blkdev {
	uint32_t bd_block_size;
	uint32_t bd_nr_blocks;
	uint8_t ***bd_chunks;   /* durable blocks: [blk >> shift][blk & mask] */
	uint32_t bd_nr_chunks;
	uint32_t *bd_slots;     /* the blocks with a durable copy, in order of first write */
	uint32_t bd_nr_slots;
	uint32_t bd_cap_slots;
	/*
	 * The sum of the hashes of the blocks that differ from the base (the
	 * rule above), kept as copies change: a state key reads it instead of
	 * every block (sim/statekey.c).  Not kept for an overlay.
	 */
	uint64_t bd_durable_sum[2];
	/*
	 * No sum kept (left 0): a scratch device that is frozen into a base
	 * (mkfs), where hashing every zeroed block would be most of the cost.
	 */
	bool bd_no_sum;
	struct blkdev_base *bd_base;    /* the image under it (a reference), or NULL */
	struct bio_rec *bd_bios;/* in flight and completed-unflushed, by b_seq */
	uint32_t bd_nr_bios;
	/*
	 * A bit per block number modulo BLKDEV_FILTER_BITS, set for the block of
	 * every write added to bd_bios and cleared only when bd_bios is empty: a
	 * read of a block whose bit is clear has no write to look for there and
	 * skips the list (recovery's reads of the log while its replay writes
	 * pile up, which made each mount quadratic in the log's length).
	 */
	uint64_t bd_bio_filter[BLKDEV_FILTER_BITS / 64];
	uint32_t bd_cap_bios;
	uint64_t bd_next_seq;
	uint64_t bd_next_done;
	uint64_t bd_flushes;
	const struct blkdev *bd_parent; /* overlay: durable blocks not written here */
	/*
	 * Called just before the media changes while other writes are still
	 * pending (a crash there leaves states no later point shows); the
	 * simulator's crash-state enumeration hooks in here.
	 */
	void (*bd_durable_hook)(void *ctx, enum bd_point what, const struct bio_rec *fua);
	void *bd_hook_ctx;
	struct ev_log *bd_events;       /* the run's event log (events.h), or NULL */
};

struct blkdev *blkdev_create(uint32_t nr_blocks, uint32_t block_size);
/*
 * A device whose durable contents start as @base's (its geometry), taking a
 * reference; nothing of the base is copied.
 */
struct blkdev *blkdev_create_on(struct blkdev_base *base);
/*
 * Turn @bd (no parent, no base, no pending write, no hook) into a base with
 * one reference, which the caller holds; @bd is consumed.
 */
struct blkdev_base *blkdev_base_freeze(struct blkdev *bd);
void blkdev_base_get(struct blkdev_base *base);
/* Drop a reference; the last one frees the image. */
void blkdev_base_put(struct blkdev_base *base);
/* The base's copy of @blk, or NULL (the sentinel). */
const uint8_t *blkdev_base_peek(const struct blkdev_base *base, uint32_t blk);
/* Is @p the shared zero block (a block zeroed without memory)? */
bool blkdev_is_zero_block(const uint8_t *p);
/*
 * A device whose durable contents are @parent's (its cache and in-flight
 * writes are not taken); @parent must not change while the overlay lives.
 */
struct blkdev *blkdev_overlay(const struct blkdev *parent);
/* Was block @blk written to @bd itself (not only inherited from a parent)? */
bool blkdev_overlay_has(const struct blkdev *bd, uint32_t blk);
void blkdev_destroy(struct blkdev *bd);
/*
 * A deep copy of @src (not an overlay: it owns a copy of every block @src
 * holds, and shares @src's base): the device of a forked world (explore's
 * prefix sharing).  @src has no parent and no hook.
 */
struct blkdev *blkdev_clone(const struct blkdev *src);
/* Queue a write of one block; returns its sequence number. */
uint64_t blkdev_submit(struct blkdev *bd, uint32_t blk, const uint8_t *data,
		       enum bio_kind kind, bool fua);
/*
 * The same, saying what the block is (@bi: bi_func, bi_what and the fields
 * its bi_what uses; the device fills bi_event and bi_cause) and recording
 * the submit event.
 */
uint64_t blkdev_submit_bio(struct blkdev *bd, uint32_t blk, const uint8_t *data,
			   enum bio_kind kind, bool fua, const struct bio_info *bi);
/* Complete an in-flight write (moves it into the cache, or to media if FUA). */
void blkdev_complete(struct blkdev *bd, uint64_t seq);
bool blkdev_in_flight(const struct blkdev *bd, uint64_t seq);
/* Is write @seq in flight, and to block @blk? */
bool blkdev_in_flight_to(const struct blkdev *bd, uint64_t seq, uint32_t blk);
/* Complete every in-flight write, in submission order. */
void blkdev_complete_all(struct blkdev *bd);
/*
 * REQ_PREFLUSH: every completed write becomes durable; @caller, the kernel
 * function that flushes, names the event (a string literal, never the C function's own name).
 */
void __blkdev_flush(struct blkdev *bd, const char *caller);
#define blkdev_flush(bd, caller) __blkdev_flush((bd), (caller))
void blkdev_read(const struct blkdev *bd, uint32_t blk, uint8_t *out);
/* The durable contents only (what survives a power cut with no cache). */
void blkdev_read_durable(const struct blkdev *bd, uint32_t blk, uint8_t *out);
/*
 * What blkdev_read() / blkdev_read_durable() would copy out, in place, or
 * NULL for a block that holds the sentinel; valid until @bd (or a parent)
 * changes.  For readers that only look (the checker's hashes).
 */
const uint8_t *blkdev_peek(const struct blkdev *bd, uint32_t blk);
const uint8_t *blkdev_peek_durable(const struct blkdev *bd, uint32_t blk);
/* Real-shutdown outcome: completed writes kept, in-flight ones lost. */
void blkdev_crash(struct blkdev *bd);
/*
 * One chosen crash state: of the writes not yet durable, exactly those in
 * the 1-based inclusive ranges @keep (submission order) reach the media, in
 * submission order; every other one is lost.
 */
void blkdev_crash_keep(struct blkdev *bd, const uint16_t (*keep)[2], uint32_t nr_keep);
/* Write durable contents directly (mkfs and tests). */
void blkdev_write_durable(struct blkdev *bd, uint32_t blk, const uint8_t *data);
/* Durable zeroes in @count blocks from @blk, without memory (mkfs's zeroout). */
void blkdev_zeroout_durable(struct blkdev *bd, uint32_t blk, uint32_t count);
/* The name of a enum bio_what ("data", "journal commit", ...). */
const char *blkdev_what_name(enum bio_what what);
/* Assert the invariants above that the device's state shows. */
void blkdev_check(const struct blkdev *bd);

#endif
