/*
 * crashstates.h - every device state a crash can leave, recovered and judged.
 *
 * At a crash point the device holds its durable blocks plus the writes made
 * since the last flush: in flight, or completed into the volatile cache.
 * Each of those may or may not be on the media; writes are atomic per block,
 * and a block written several times since the flush may hold any one of its
 * versions or none (a cache can destage an older copy before a newer one
 * replaces it).  There is no other ordering to respect: a flush made every
 * earlier completed write durable, and a FUA write is durable once done.
 * So the raw states are the product over blocks of (1 + versions).
 *
 * Reduction before enumeration: a version whose bytes equal the durable
 * block or an earlier alternative is folded into it (counted as pruned).
 * Up to a bound the reduced states are enumerated exhaustively; past it a
 * deterministic sample (seeded by the crash step) is evaluated and the
 * coverage reported.  Each state is the device with its versions, mounted
 * (jbd2 recovery, orphan cleanup) and judged by the checker's post-crash
 * checks, by parts (crashstates.c); states with the same size, content and
 * violations are one distinct state.
 *
 * Where the crash points lie (after steps, before flushes and FUA writes
 * inside them) is the caller's business (crash/crashpoint.c).  Not covered: torn
 * writes inside a block.
 */
#ifndef EXT4SIM_CRASHSTATES_H
#define EXT4SIM_CRASHSTATES_H

#include <stdbool.h>
#include <stdint.h>

#include "checker.h"
#include "ext4.h"
#include "pending.h"

#define CS_BOUND_DEFAULT 4096u          /* states evaluated per crash point */
#define CS_EXAMPLE_MAX 512
#define CS_RUNS_SHOWN 8                 /* runs of equal bytes a state's text lists */
#define CS_RUNS_TEXT 256

/* cs_enumerate() flags */
#define CS_DIGEST 1u                    /* the SHA-256 of every distinct state */
#define CS_REFERENCE 2u                 /* judge every state whole (slow; for tests) */
#define CS_WRITES 4u                    /* keep what each pending write is (pending.h) */

/* One distinct post-recovery state. */
struct cs_state {
	int64_t size;
	uint64_t h[2];                  /* content hash (grouping only) */
	uint32_t mask;                  /* violated, as bits */
	char sha256[65];                /* with CS_DIGEST, else empty */
	char runs[CS_RUNS_TEXT];        /* with CS_DIGEST: the bytes as runs (cs_runs_text) */
	bool violated[INV_COUNT];
	char first_msg[CHK_MSG_MAX];    /* the first violation's message, if any */
	uint64_t raw_states;            /* raw states that lead here */
	char example[CS_EXAMPLE_MAX];   /* "crash --keep N,M" of one such raw state */
	uint32_t replay_first;          /* the example's recovery replayed tids */
	uint32_t replay_end;            /* [replay_first, replay_end); equal: none */
	char *detail;                   /* cs_evaluate_kept: every violation message */
	char *tx_kept;                  /* violating: the recovered size and extents ... */
	char *tx_lost;                  /* ... and what was lost, by transaction (txlost.h);
					 * NULL when nothing was */
	char *image;                    /* with an image sink: the file its device went to */
	uint64_t ns_key[2];             /* a namespace scenario: the recovered namespace's key */
	char *ns;                       /* ... and its text (nsnap_text), with CS_DIGEST */
	struct nsnap *ns_snap;          /* ... and the snapshot itself, with ns */
};

struct cs_point {
	uint32_t step;                  /* 1-based crash step */
	uint32_t point_no;              /* 1-based position among the run's crash points */
	bool bad_keep;                  /* cs_evaluate_kept: no such pending write */
	bool hypothetical;              /* a crash the run does not take */
	uint32_t in_commit;             /* tid being committed at the point (0: none) */
	uint8_t within;                 /* inside the step: enum bd_point; 0: after it */
	uint8_t fua_kind;               /* BD_BEFORE_FUA: the write's enum bio_kind */
	uint32_t nr_pending;            /* writes not yet durable */
	uint32_t nr_blocks;             /* distinct blocks they touch */
	double raw_states;              /* product of (1 + versions); may exceed 2^64 */
	double reduced_states;          /* after folding equal versions */
	uint64_t evaluated;
	/*
	 * Recovery's work for the point: log blocks read plus blocks written home
	 * over its mounts, the replay of the log prefix they share counted once.
	 */
	uint64_t recovery_blocks;
	/*
	 * The fields of the semantics its mounts read (struct ext4_fs's
	 * s_sem_read): the point's result is the same under semantics equal in
	 * these (crash/cpmemo.c).
	 */
	uint64_t sem_read;
	bool exhaustive;
	struct cs_state *states;
	uint32_t nr_states;
	uint32_t cap_states;
	uint32_t nr_violating;          /* distinct states with a counted violation */
	struct cs_write *writes;        /* with CS_WRITES: the pending writes, by number */
	uint32_t nr_writes;
	struct cs_owner *owners;        /* cs_name_writes: the inodes the writes belong to */
	uint32_t nr_owners;
};

/*
 * Enumerate the crash states of the device @bd behind @fs (the file system
 * as it is at the crash, not yet torn down).  @chk is the run's checker.
 * Recovery must produce the durable metadata plus the committed
 * transactions, and plus the one being committed in the states where its
 * commit block landed.  At most @bound states are evaluated.
 */
void cs_enumerate(const struct ext4_fs *fs, struct blkdev *bd, const struct chk_state *chk,
		  uint32_t step, uint64_t bound, unsigned flags, struct cs_point *out);
void cs_point_free(struct cs_point *p);

/*
 * Where the device of each distinct state goes, as the power cut left it
 * (before recovery): called once per new distinct state, in the order the
 * states are found, with @dev an overlay of the crash device on which the
 * state's chosen pending writes are durable (the example's raw state: the
 * first one found that leads to it).  Returns the image's name (malloc'd,
 * kept in the state's image and freed with it) or NULL when none was
 * written (the sink keeps its own error).  Built only when a sink is given.
 */
struct cs_image_sink {
	char *(*cis_write)(struct cs_image_sink *sink, const struct cs_point *p,
			   const struct blkdev *dev);
};

/* cs_enumerate and cs_evaluate_kept with every new distinct state's device to @sink. */
void cs_enumerate_to(const struct ext4_fs *fs, struct blkdev *bd, const struct chk_state *chk,
		     uint32_t step, uint64_t bound, unsigned flags, struct cs_image_sink *sink,
		     struct cs_point *out);
void cs_evaluate_kept_to(const struct ext4_fs *fs, struct blkdev *bd,
			 const struct chk_state *chk, uint32_t step, const uint16_t (*keep)[2],
			 uint32_t nr_keep, struct cs_image_sink *sink, struct cs_point *out);

/*
 * Where in its step point @p lies, in words: "after it" (a crash judged
 * after the step), "the crash" (a crash step), "before a cache flush",
 * "before the FUA write of a commit block" (inside the step), with
 * ", committing tid N" while a commit runs.
 */
void cs_point_moment(const struct cs_point *p, char *out, size_t cap);

/*
 * Where state @st of point @p (the @point_no-th of its run, 1-based) lies
 * and how to see it again: "insert after step 4: crash --keep 1,3; replayed
 * tids 2-3", or for a point inside a step, the crashstates command that
 * shows exactly that state.
 */
void cs_describe_state(const struct cs_point *p, const struct cs_state *st, char *out,
		       size_t cap);

/*
 * Judge exactly one state: the pending writes in the 1-based inclusive
 * ranges @keep reach the media (the last kept write of a block wins), the
 * rest do not.  @out gets that one state with every violation message in
 * its detail; a write number past the pending ones gives no state and
 * out->bad_keep set.
 */
void cs_evaluate_kept(const struct ext4_fs *fs, struct blkdev *bd, const struct chk_state *chk,
		      uint32_t step, const uint16_t (*keep)[2], uint32_t nr_keep,
		      struct cs_point *out);


#endif
