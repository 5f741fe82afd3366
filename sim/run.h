/*
 * run.h - replaying a scenario against the model: one "world" (device,
 * mounted file system, counters, checker) per variant, the step
 * interpreter, and the per-variant result the reports print.
 */
#ifndef EXT4SIM_RUN_H
#define EXT4SIM_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "checker.h"
#include "content.h"
#include "crashstates.h"
#include "ext4.h"
#include "scenario.h"

/* Command-line settings layered over a scenario's config:. */
struct sim_overrides {
	bool has_block_size;
	uint32_t block_size;
	bool has_data;
	enum scn_data_mode data;
	bool has_delalloc;
	bool delalloc;
	bool has_dioread_nolock;        /* --dioread-nolock / --dioread-lock */
	bool dioread_nolock;
	bool has_auto_da_alloc;         /* --auto-da-alloc / --noauto-da-alloc */
	bool auto_da_alloc;
	bool has_disk_blocks;
	uint32_t disk_blocks;
	bool has_kernel;
	char kernel[SCN_NAME_MAX];
	unsigned nr_patches;
	struct scn_patch_setting patches[SCN_PATCHES_MAX];
	char argv_text[1024];           /* these flags as typed, for reproduce lines */
};

struct cp_memo;

struct sim_options {
	bool json;
	bool json_state;                /* each step's state_json (run --json) */
	bool summary;                   /* one line per variant, no trace */
	bool record_events;             /* keep the model's events (--json, --events, --explain) */
	bool events;                    /* the trace lists each step's events (--events) */
	bool explain;                   /* the trace gives the rule behind each size change */
	bool timeline;                  /* each step's block timeline (timeline.h; trace and JSON) */
	bool name_writes;               /* crash points keep what each pending write is */
	bool notes;                     /* print informational notes (--notes) */
	bool quiet;                     /* no step trace */
	bool quiz_lines;                /* run --quiz: the lines whose values it blanks, changed
					 * or not (trace.h) */
	const char *dump_file;
	const char *variant;            /* run only this variant */
	bool fail_on[INV_COUNT];
	uint64_t crash_bound;           /* crash states evaluated per crash point; 0: none */
	bool crash_everywhere;          /* also a hypothetical crash after every step */
	bool crash_digest;              /* the SHA-256 of every distinct crash state */
	bool crash_reference;           /* judge every crash state whole (CS_REFERENCE) */
	uint32_t only_point;            /* crashstates --point: only this crash point (1-based) */
	uint16_t nr_keep;               /* with --keep: its ranges of pending writes */
	uint16_t keep[SCN_PERSIST_MAX][2];
	bool has_keep;
	bool final_digest;              /* the final content's SHA-256 (final_content.sha256) */
	bool final_bytes;               /* and its pages, to show differing bytes (content.h) */
	bool final_ns;                  /* the final namespace (final_ns) */
	int64_t max_bytes;              /* bytes the steps may write and read; 0: the default */
	uint8_t checker_log;            /* enum chk_log_mode (--checker-log) */
	struct cp_memo *crash_memo;     /* crash points' results to share (explore), or NULL */
	struct cs_image_sink *image_sink;       /* crashstates --images (sim/blkimage.h), or NULL */
	const struct blkdev *from_image;        /* run --from-image: the device each world starts
						 * from (a copy), not mkfs; NULL: mkfs */
	const char *image;              /* run --image: the device after the last step and a
					 * clean unmount goes there (sim/blkimage.h) */
	int64_t max_image_bytes;        /* --max-image-bytes: the images' data; 0: the default */
};

/* The effective settings of one variant. */
struct sim_variant_cfg {
	char name[SCN_NAME_MAX];
	const struct ext4_profile *profile;
	struct ext4_mount_opts opts;
	struct ext4_semantics sem;
};

/* How a variant was judged: the scenario's config: keys with the flags layered over them. */
struct sim_judging {
	bool j_crash_everywhere;        /* a crash judged after and inside every step */
	uint64_t j_crash_bound;         /* crash states evaluated per crash point; 0: none */
	bool j_fail_on[INV_COUNT];      /* informational invariants counted */
};

/* What one step did, for traces and JSON. */
struct sim_step_result {
	int err;                        /* 0 or -errno */
	int64_t bytes;                  /* bytes written or read */
	int64_t i_size;
	int64_t i_disksize;
	char note[256];                 /* a sentence for the trace */
	char note2[256];                /* a second one (crash states) */
	uint32_t ev_first;              /* the step's events: [ev_first, ev_end) of the log */
	uint32_t ev_end;
	char *state_json;
	char *timeline_json;            /* with o->timeline: the step's block timeline (timeline.h) */
	char *writes_note;              /* crash --keep: the writes kept and lost, named */
	uint32_t pending;               /* a crash step: the writes not yet durable */
	bool nonda;                     /* ext4_nonda_switch sent the step off the delalloc path */               /* with json_state: the state after the step (snapshot.h) */
};

struct sim_variant_result {
	struct sim_variant_cfg cfg;
	struct sim_judging judging;     /* as the options said (all off without options) */
	struct sim_step_result *steps;
	struct chk_state chk;           /* violations live here */
	struct sim_counters counters;
	struct jbd2_recovery_info last_recovery;
	struct cs_point *points;        /* one per crash step */
	uint32_t nr_points;
	uint32_t cap_points;
	int64_t final_size;
	int64_t final_disksize;
	bool has_expect;
	const struct scn_expect *expect;
	bool passed;
	char cs_mismatch[256];          /* crash_states: what differed (or was not checked) */
	bool violated[INV_COUNT];       /* counted toward the verdict */
	bool seen[INV_COUNT];           /* reported at all */
	struct ev_log events;           /* with o->record_events: every event of the run */
	bool show_notes;                /* --notes: print informational notes not counted */
	struct ext4_layout lay;         /* the file system's layout, to name blocks */
	struct sim_content final_content;       /* with final_digest or final_bytes */
	char *final_ns;                 /* with final_ns: the namespace after the last step
					 * as a reader sees it (nsnap_text) */
};

/* How @o judges a run (its crash_everywhere, crash_bound and fail_on). */
void sim_judging_of(struct sim_judging *j, const struct sim_options *o);

/*
 * Resolve every variant's settings; on an unknown kernel profile or patch
 * fill @err with "FILE:LINE:COL: message" and return -1.
 */
int sim_resolve_variants(const struct scenario *s, const struct sim_overrides *ov,
			 struct sim_variant_cfg *out, unsigned *nr, char *err, size_t errlen);

/*
 * Run one variant; the trace goes to @trace unless NULL.  With @dump_path
 * the final content is written there; returns -1 (message in @err) if that
 * fails, else 0.
 */
int sim_run_variant(const struct scenario *s, const struct sim_variant_cfg *cfg,
		    const struct sim_options *o, FILE *trace, const char *dump_path,
		    struct sim_variant_result *r, char *err, size_t errlen);
void sim_variant_result_free(struct sim_variant_result *r, unsigned nr_steps);

/*
 * Streaming: one variant's world fed one step at a time, keeping no
 * per-step records (long explore runs).  After each step the violations
 * it reported are folded into counts (with the first step and message of
 * each invariant) and its crash points are freed, so memory does not grow
 * with the number of steps (the checker's own log of mutations since the
 * last crash and the last durable point aside).  With @judge, a crash
 * inside the step (before each flush and FUA write) and right after it is
 * judged, as --crash-everywhere does for every step; crash steps judge
 * their own crash states whenever o->crash_bound is not 0.
 */
struct sim_stream;

/*
 * A streamed run stops (cut) before a step when the checker's logs hold this
 * many entries (chk_log_entries: changes since the last crash and durable
 * point, as summarised, and durable points; 32 bytes each at most: 64 MiB),
 * which bounds its memory whatever the number of steps (docs/performance.md).
 */
#define SIM_STREAM_MUTS_MAX (2u << 20)

struct sim_stream_result {
	bool cut;                       /* stopped at SIM_STREAM_MUTS_MAX; steps: those run */
	uint32_t steps;
	uint64_t crash_points;          /* crash points judged */
	uint64_t reports[INV_COUNT];    /* violation reports per invariant */
	uint32_t first_step[INV_COUNT]; /* 1-based step of the first one; 0: none */
	bool violated[INV_COUNT];       /* counted toward the verdict (no expect:) */
	uint32_t step_mask;             /* the last step's invariants counted so, 1 << inv */
};

struct sim_stream *sim_stream_open(const struct sim_variant_cfg *cfg, const struct sim_options *o);
/*
 * Judge @ss (just opened, no step run) as a namespace scenario from its
 * first step, as a run of a scenario with a namespace step is (the
 * namespace reference, the clock that ticks): explore's walk of the
 * sequences that hold one.  Without it a stream starts the namespace at
 * its first namespace step.
 */
void sim_stream_namespace(struct sim_stream *ss);
/* Returns the step's counted invariants as bits, 1 << inv (also in step_mask). */
uint32_t sim_stream_step(struct sim_stream *ss, const struct scn_step *st, bool judge);
/*
 * A deep copy of @ss between two steps (device, file system, page cache,
 * journal, checker, counters): a forked world that runs on exactly as @ss
 * would, as a world replayed from mkfs through the same steps does
 * (explore's prefix sharing; docs/explore.md).
 */
struct sim_stream *sim_stream_fork(const struct sim_stream *ss);
/*
 * The key of @ss's world between two steps (sim/statekey.c says what it
 * covers): equal keys, equal futures.
 */
void sim_stream_key(const struct sim_stream *ss, uint64_t key[2]);
/* The stream's world (sim/world.h), for tests that change it. */
struct world;
struct world *sim_stream_world(struct sim_stream *ss);
/* The stream's checker, to read its reference between steps. */
const struct chk_state *sim_stream_checker(const struct sim_stream *ss);
/* Free @ss without a result. */
void sim_stream_free(struct sim_stream *ss);
/* The stream's mounted file system, to read the file between steps. */
const struct ext4_fs *sim_stream_fs(const struct sim_stream *ss);
/* The counts and verdict; frees @ss. */
void sim_stream_close(struct sim_stream *ss, struct sim_stream_result *out);

/*
 * The memory a run holds, an upper bound from its steps alone (measured,
 * docs/performance.md, "Limits"): SIM_MEM_PER_BYTE_X10 / 10 bytes a byte of
 * the file a write reaches (the page cache's copy, the device's and their
 * indexes), counting at most the bytes written and at most the furthest
 * write's end plus the bytes inserted; a quarter byte a byte read (a read
 * of a hole caches its pages); SIM_MEM_BASE for the rest.  Fed one step at a
 * time, so that the step that passes a limit can be named.
 */
#define SIM_MEM_PER_BYTE_X10 24
#define SIM_MEM_BASE ((int64_t)64 << 20)
struct sim_mem_estimate {
	int64_t me_written, me_end, me_inserted, me_read;
};
/* Add step @st; returns the estimate of the steps added so far, in bytes. */
int64_t sim_mem_add_step(struct sim_mem_estimate *me, const struct scn_step *st);

/*
 * run --from-image: would variant @cfg's mount take device @bd (its
 * recovery and orphan cleanup run on a copy)?  0, or -1 with the mount's
 * reason in @msg (the feature it does not handle, the superblock it finds).
 */
struct blkdev;
int sim_image_probe(const struct blkdev *bd, const struct sim_variant_cfg *cfg, char *msg,
		    size_t cap);

/* Write the final file content (as a reader sees it) to @path, atomically. */
int sim_dump_file(const struct ext4_fs *fs, const char *path, char *err, size_t errlen);

#endif
