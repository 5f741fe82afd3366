/*
 * events.h - the model's event log: what the model went through, in order,
 * each event stamped with the model function, and so the kernel function,
 * that caused it.  The kernel's counterpart is its tracepoints
 * (include/trace/events/ext4.h, jbd2.h, block.h, writeback.h): an event here
 * is a tracepoint that fired.
 *
 * A log is attached to a world's block device (blkdev.bd_events); every model
 * file reaches it through the device it already holds (fs->bdev, j->j_dev,
 * the mapping's a_events copy).  Without a log (explore, crashstates, the
 * overlays crash-state enumeration mounts) each event site costs one test of
 * a NULL pointer and records nothing.
 *
 * Events are numbered from 1 in the order they happen over a whole run,
 * crashes included; a write's submit event number is kept with the write
 * (bio_info.bi_event), so a pending write, a crash state and `crash --keep`
 * name the same event.  The numbering depends on the steps alone.
 *
 * Causes: a few callers that start I/O on behalf of someone else (the
 * commit's ordered-data flush, a checkpoint, recovery) set the log's cause
 * for the duration (ev_cause_push / ev_cause_pop), so that a data write says
 * whether writeback, an fsync or a commit sent it.
 */
#ifndef EXT4SIM_EVENTS_H
#define EXT4SIM_EVENTS_H

#include <stdint.h>

enum ev_type {
	/* block layer */
	EV_BIO_SUBMIT,          /* a = disk block, b = enum bio_what, c = file block or the
				 * home block (bio_info), d = tid, e = FUA */
	EV_BIO_COMPLETE,        /* the same, but c = the submit event's number */
	EV_FLUSH,               /* a = writes made durable */
	/* jbd2 */
	EV_HANDLE_START,        /* a = credits, b = handle type, c = tid, d = nested */
	EV_HANDLE_STOP,         /* a = tid, d = nested */
	EV_TX_STATE,            /* a = tid, b = enum t_state */
	EV_ORDERED_WAIT,        /* a = tid, b = data writes waited for */
	EV_CHECKPOINT,          /* a = blocks written home, b = new tail tid */
	EV_REVOKE,              /* a = disk block, b = tid */
	EV_RECOVERY,            /* a = first tid replayed, b = first not replayed, c = blocks */
	/* page cache */
	EV_FOLIO_CREATE,        /* a = folio index */
	EV_FOLIO_DIRTY,         /* a = folio index */
	EV_FOLIO_WRITEBACK,     /* a = folio index: under writeback */
	EV_FOLIO_WB_END,        /* a = folio index: writeback ended */
	EV_FOLIO_CLEAN,         /* a = folio index: no longer dirty */
	EV_FOLIO_DROP,          /* a = folio index: removed from the cache */
	/* allocator and block map */
	EV_RESERVE,             /* a = clusters reserved (delalloc) */
	EV_RELEASE,             /* a = clusters released */
	EV_ALLOC,               /* a = file block, b = disk block, c = blocks, d = unwritten */
	EV_FREE,                /* a = disk block, b = blocks, d = deferred to commit */
	EV_FREE_RELEASED,       /* a = disk block, b = blocks: a deferred free, now reusable */
	EV_CONVERT,             /* a = file block, b = blocks: unwritten -> written */
	/* inode sizes */
	EV_I_SIZE,              /* a = old, b = new */
	EV_I_DISKSIZE,          /* a = old, b = new */
	/* model-only faults (inject steps) */
	EV_FAULT,               /* a = enum ext4_fault, b = blocks asked, c = blocks given */
	EV_TYPE_COUNT
};

/* Who a write or a wait is done for (the path), when not the step itself. */
enum ev_cause {
	EVC_STEP,               /* the step's own call (write, fsync, writeback, ...) */
	EVC_ORDERED,            /* a commit's ordered-data flush (data=ordered) */
	EVC_COMMIT,             /* a commit writing the log */
	EVC_CHECKPOINT,         /* a checkpoint writing home */
	EVC_RECOVERY,           /* recovery replaying the log */
	EVC_COUNT
};

struct ext4_size_rule;           /* model/ext4/ext4.h */

struct sim_event {
	uint32_t ev_no;         /* 1-based, over the whole run */
	uint8_t ev_type;        /* enum ev_type */
	uint8_t ev_cause;       /* enum ev_cause */
	const char *ev_func;    /* the kernel function, named at the site; a string literal */
	const struct ext4_size_rule *ev_rule;   /* EV_I_SIZE, EV_I_DISKSIZE: the rule; or NULL */
	int64_t ev_a, ev_b, ev_c, ev_d, ev_e;
};

#define EV_LOG_MAX (1u << 24)   /* events kept per run; past it they are counted only */

struct ev_log {
	struct sim_event *l_ev;
	uint32_t l_nr;
	uint32_t l_cap;
	uint32_t l_next_no;     /* the next event's number */
	uint32_t l_dropped;     /* events past EV_LOG_MAX */
	uint8_t l_cause;        /* enum ev_cause in force */
	/*
	 * Called after each event is kept, or NULL: a reader above the model
	 * (the block timeline, sim/timeline.h) that looks at the state the
	 * event left.  It must only read.
	 */
	void (*l_observe)(void *ctx, const struct sim_event *e);
	void *l_observe_ctx;
};

/* Append an event (numbered); @log may be NULL (then nothing happens). */
void ev_record(struct ev_log *log, enum ev_type type, const char *func, int64_t a, int64_t b,
	       int64_t c, int64_t d);
/* The same with the fifth argument (block I/O events). */
void ev_record5(struct ev_log *log, enum ev_type type, const char *func, int64_t a, int64_t b,
		int64_t c, int64_t d, int64_t e);

/* A size event (EV_I_SIZE, EV_I_DISKSIZE), old -> new, with the rule that moved it. */
void ev_record_size(struct ev_log *log, enum ev_type type, const char *func,
		    const struct ext4_size_rule *rule, int64_t old_size, int64_t new_size);

/* The number the next event will get (0 without a log). */
uint32_t ev_next_no(const struct ev_log *log);

/* Set the cause in force and return the previous one, for ev_cause_pop. */
uint8_t ev_cause_push(struct ev_log *log, enum ev_cause cause);
void ev_cause_pop(struct ev_log *log, uint8_t previous);

void ev_log_free(struct ev_log *log);

const char *ev_type_name(enum ev_type type);
const char *ev_cause_name(enum ev_cause cause);

/*
 * Record at a model site; @func is the kernel function the event stands
 * for, a string literal written at the site (never the C function's name, so that
 * renaming or splitting a model helper does not change a trace).
 */
#define EV_RECORD(log, type, func, a, b, c, d) \
	do { \
		if (log) \
			ev_record((log), (type), (func), (a), (b), (c), (d)); \
	} while (0)

#endif
