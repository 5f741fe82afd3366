/*
 * world.h - one variant's simulated machine, as the step interpreter
 * (run.c) drives it and the crash policy (crash/crashpoint.c) judges it:
 * the device, the mounted file system, the run's counters and checker, and
 * what the last mount's recovery did.  A world belongs to one variant and
 * one run; nothing in it is shared between worlds.
 */
#ifndef EXT4SIM_WORLD_H
#define EXT4SIM_WORLD_H

#include "run.h"

struct world {
	const struct sim_variant_cfg *cfg;
	const struct sim_options *o;
	struct sim_variant_result *r;
	struct blkdev *bd;
	struct ext4_fs fs;
	struct sim_counters *c;
	struct chk_state *chk;
	struct chk_ns *ns;              /* the namespace reference (NULL: a scenario of one file) */
	struct nsnap *ns_view;          /* with a trace or run --json: the namespace after the
					 * last step, to print what changed and to name writes */
	bool ns_fresh;                  /* ns_view was read after the step just run */
	bool ns_changed;                /* ... and differs from the one before */
	struct jbd2_recovery_info *rec;
	uint32_t points_seen;           /* crash points met so far (enumerated or not) */
	bool mapped;                    /* an explicit mmap step's mapping is current */
	uint8_t map_prot;               /* its protection: 1 read, 2 write, 4 exec */
	int64_t map_off, map_len;       /* its file range */
	unsigned f_flags;               /* the current file's open flags as kiocb flags: open -d
					 * IOCB_DIRECT, open -s IOCB_DSYNC | IOCB_SYNC (iomap.h) */
};

/* Mount @w's device with its variant's options and semantics (recovery included). */
int world_mount(struct world *w);

/* Record the model's events into the run's log from now on (mounts included). */
void world_attach_events(struct world *w);

/* The world's state key between two steps (statekey.c): 128 bits. */
void world_key(const struct world *w, uint64_t key[2]);
/*
 * The key of a crash point of @w judged against checker @chk (statekey.c): what
 * crash-state enumeration reads, and the step, the enumeration's flags and its bound.
 */
void world_crash_key(const struct world *w, const struct chk_state *chk, uint32_t step,
		     uint32_t flags, uint64_t bound, uint64_t key[2]);

/* Print a step's result: its error, its sentences, its writes (run.c). */
void trace_step_result(FILE *trace, const struct sim_step_result *sr);

/* mmap, mwrite, mread, mremap, msync, madvise, munmap (mapping.c). */
void sim_step_mapping(struct world *w, const struct scn_step *st, struct sim_step_result *sr,
		      FILE *trace);

/*
 * The namespace steps (nsstep.c): open, creat, mkdir, rmdir, link, unlink,
 * rename, symlink, fsync and fdatasync of a path; each the kernel's call,
 * its errno the step's result, the reference told what it did.
 */
void sim_step_namespace(struct world *w, const struct scn_step *st, uint32_t idx,
			struct sim_step_result *sr);
/* Does step kind @op work on the current file (its notes are that file's)? */
bool sim_step_on_file(enum scn_op op);
/* After any step of a namespace scenario: the reference's content and commit notes. */
void sim_ns_after_step(struct world *w, const struct scn_step *st, uint32_t idx,
		       const struct sim_step_result *sr, uint32_t ino);
/* Start the namespace reference of @w (a scenario with a namespace step). */
void sim_ns_start(struct world *w);
/* sim_ns_start when scenario @s has a namespace step. */
void sim_ns_start_for(struct world *w, const struct scenario *s);
/* After a crash's recovery: the reference becomes what the mount found. */
void sim_ns_rebase(struct world *w);
/*
 * The scenario's file made current for the single-file checker's calls
 * (when in core); returns the current inode, for the caller to put back.
 */
struct ext4_inode_info *sim_file_view(struct world *w);
/* Drop @w's namespace reference. */
void sim_ns_free(struct world *w);

/* fadvise (mapping.c). */
void sim_step_fadvise(struct world *w, const struct scn_step *st, struct sim_step_result *sr);

/* Set the step's trace sentence (printf format). */
void note(struct sim_step_result *sr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
