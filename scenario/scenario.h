/*
 * scenario.h - the scenario file: YAML loader and xfs_io-style step parser.
 *
 * A scenario is one YAML document (see docs/scenario-format.md).  scn_load() reads it with libyaml's event parser, checks every
 * key, type, limit and step, and fills a struct scenario.  Every error is
 * reported once, as "FILE:LINE:COL: message" (1-based), into a caller buffer;
 * the caller prints it and exits 2.  Nothing here touches the model.
 *
 * The same step parser serves `ext4sim run -c CMD`: scn_parse_step() turns
 * one line of xfs_io syntax into a struct scn_step.
 */
#ifndef EXT4SIM_SCENARIO_H
#define EXT4SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nsnap.h"

/* Hard limits; each is checked with a clear error. */
#define SCN_FILE_BYTES_MAX (1u << 20)    /* scenario file size */
#define SCN_DEPTH_MAX 8                  /* YAML nesting depth */
#define SCN_STEPS_MAX 100000             /* steps in one scenario */
#define SCN_VARIANTS_MAX 16              /* variants in one scenario */
#define SCN_PATCHES_MAX 64               /* patch settings per config/variant */
#define SCN_EXPECT_MAX 16                /* invariant names per expect entry */
#define SCN_NAME_MAX 64                  /* name, variant and patch names */
#define SCN_TEXT_MAX 4096                /* description / source */
#define SCN_STEP_TEXT_MAX 1024           /* one step line (two paths of SCN_PATH_MAX fit) */
#define SCN_OFFSET_MAX (1LL << 44)       /* 16 TiB: offsets, lengths, sizes */
/*
 * mke2fs makes no journal below 2048 blocks (e2fs/mke2fs.h, E2FS_MIN_BLOCKS),
 * and the model's device starts as mke2fs's file system with one.
 */
#define SCN_DISK_BLOCKS_MIN 2048
#define SCN_DISK_BLOCKS_WHY "mke2fs makes no journal below 2048 blocks"
#define SCN_DISK_BLOCKS_MAX (1u << 24)
#define SCN_ERR_MAX 512                  /* error message buffer */
#define SCN_CS_EXPECT_MAX 16             /* crash_states: entries per variant */
#define SCN_PERSIST_MAX 32               /* write ranges named by crash --keep */
#define SCN_PERSIST_INDEX_MAX 65535      /* largest index crash --keep takes */
#define SCN_RUN_BYTES_DEFAULT (1LL << 30) /* bytes a run's steps may write and read */
#define SCN_RUN_BYTES_MAX (1LL << 34)     /* the most --max-bytes raises that to */
/*
 * The paths of the namespace steps (docs/scenario-format.md, "Namespace
 * steps"): at most SCN_PATH_MAX bytes with the NUL, a leading '/' counted
 * (written or not), as lib/nsnap.h names a path; at most SCN_PATH_DEPTH
 * components; a component at most SCN_NAME_LEN bytes (fs/ext4/ext4.h's
 * EXT4_NAME_LEN); bytes 0x21-0x7e only.  A symbolic link's target takes the
 * same bytes and length, and no other rule.
 */
#define SCN_PATH_MAX NSNAP_PATH_MAX
#define SCN_PATH_DEPTH 16
#define SCN_NAME_LEN 255
#define SCN_XATTR_NAME_MAX 300          /* an xattr NAME's bytes (past XATTR_NAME_MAX: ERANGE) */
#define SCN_XATTR_VALUE_MAX 255         /* an xattr VALUE's bytes (kept in s_path2) */

enum scn_op {
	SCN_PWRITE,
	SCN_PREAD,
	SCN_TRUNCATE,
	SCN_FALLOC,
	SCN_FZERO,
	SCN_FPUNCH,
	SCN_FCOLLAPSE,
	SCN_FINSERT,
	SCN_MWRITE,
	SCN_FSYNC,
	SCN_FDATASYNC,
	SCN_SYNC_RANGE,
	SCN_SYNC,
	SCN_CHATTR,
	SCN_CLOSE,
	SCN_SHUTDOWN,
	SCN_WRITEBACK,
	SCN_COMMIT,
	SCN_CHECKPOINT,
	SCN_CRASH,
	SCN_REMOUNT,
	SCN_EVICT,
	SCN_DIO_READ,
	SCN_COPY_RANGE,          /* copy_range -s SRC -d DST -l LEN: same-file copy_file_range */
	SCN_MMAP,                /* mmap [-rwx] OFF LEN: an explicit shared mapping */
	SCN_MSYNC,               /* msync [-ais] [OFF LEN] */
	SCN_MUNMAP,              /* munmap */
	SCN_INJECT,              /* inject enospc [--after N] | nonda | clear: model-only faults */
	SCN_FUNSHARE,            /* funshare OFF LEN: fallocate(FALLOC_FL_UNSHARE_RANGE) */
	SCN_MREAD,               /* mread [-r] [-v|-f] [OFF LEN]: loads through the mapping */
	SCN_MREMAP,              /* mremap [-m] [-f ADDR] NEWSIZE: resize the mapping */
	SCN_MADVISE,             /* madvise [-d|-r|-s|-w|-R|-W] [OFF LEN] */
	SCN_FADVISE,             /* fadvise [-d|-n|-r|-s|-w] [OFF LEN] */
	SCN_AIO_WAIT,            /* aio_wait: io_getevents for every submitted direct write */
	/* The namespace steps; fsync [PATH] and fdatasync [PATH] keep their values. */
	SCN_OPEN,                /* open [-f] [-t] PATH: the data steps' file becomes PATH */
	SCN_CREAT,               /* creat PATH: O_CREAT|O_WRONLY|O_TRUNC, then close */
	SCN_MKDIR,               /* mkdir PATH */
	SCN_RMDIR,               /* rmdir PATH */
	SCN_LINK,                /* link OLD NEW */
	SCN_UNLINK,              /* unlink PATH */
	SCN_RENAME,              /* rename [-n|-x] OLD NEW: renameat2(2) */
	SCN_SYMLINK,             /* symlink TARGET PATH */
	SCN_SETXATTR,            /* setxattr PATH NAME [VALUE]: setxattr(2) */
	SCN_REMOVEXATTR,         /* removexattr PATH NAME: removexattr(2) */
	SCN_OP_COUNT
};

/* What an inject step arms (docs/scenario-format.md, "Faults"). */
enum scn_fault {
	SCN_FAULT_ENOSPC,         /* one block allocation fails with ENOSPC after N blocks */
	SCN_FAULT_NONDA,          /* ext4_nonda_switch() reports too little free space */
	SCN_FAULT_CLEAR,          /* disarm both */
};

#define SCN_FAULT_AFTER_MAX 0xffffffffLL  /* inject enospc --after: blocks, at most */

/* rename's flags, s_rename_flags: renameat2(2)'s, the uapi values (include/uapi/linux/fs.h). */
#define SCN_RENAME_NOREPLACE 1u   /* rename -n */
#define SCN_RENAME_EXCHANGE 2u    /* rename -x */

/* sync_range flags: exactly one per step, as xfs_io keeps only the last. */
enum scn_sync_range_flag {
	SCN_SR_WRITE = 'w',       /* SYNC_FILE_RANGE_WRITE */
	SCN_SR_WAIT_AFTER = 'a',  /* SYNC_FILE_RANGE_WAIT_AFTER */
	SCN_SR_WAIT_BEFORE = 'b', /* SYNC_FILE_RANGE_WAIT_BEFORE */
};

struct scn_step {
	enum scn_op s_op;
	int64_t s_off;          /* byte offset (pwrite, pread, falloc..., sync_range, writeback) */
	int64_t s_len;          /* byte length; truncate: the new size */
	uint8_t s_fill;         /* -S byte for pwrite (default 0xcd) and mwrite (0x58) */
	bool s_has_range;       /* writeback OFF LEN given (otherwise: whole file) */
	bool s_keep_size;       /* falloc -k / fzero -k */
	bool s_verbose;         /* pread -v */
	bool s_sync_flag;       /* chattr: true for +S, false for -S */
	char s_sr_flag;         /* sync_range: 'w', 'a' or 'b' */
	int64_t s_short_copy;   /* pwrite --short N: bytes the user copy delivers; -1 if not short */
	bool s_has_persist;     /* crash --keep LIST given */
	uint16_t s_nr_persist;  /* crash --keep: ranges of unflushed writes that persist */
	uint16_t s_persist[SCN_PERSIST_MAX][2]; /* first, last (1-based, inclusive) */
	int64_t s_src;          /* copy_range -s: source offset */
	bool s_has_len;         /* copy_range -l given (else: source size - SRC) */
	uint32_t s_bsize;       /* pwrite/pread -b: bytes per call (0: xfs_io's 4096) */
	uint16_t s_vectors;     /* pwrite -V N: pwritev with N buffers of -b bytes (0: none) */
	bool s_fsync_after;     /* pwrite -W */
	bool s_fdatasync_after; /* pwrite -w */
	bool s_dsync;           /* pwrite -D: RWF_DSYNC on every call (with -V only) */
	bool s_atomic;          /* pwrite -A: RWF_ATOMIC on every call (with -V only) */
	bool s_direct;          /* pwrite -d: O_DIRECT for the write; open -d: the file O_DIRECT */
	bool s_osync;           /* open -s: the file O_SYNC */
	bool s_aio;             /* pwrite -d --aio: each call submitted asynchronously (io_submit) */
	bool s_random;          /* pwrite -R: -b sized writes at random(3) offsets */
	uint32_t s_zeed;        /* pwrite -Z N: the srandom(3) seed of -R (0: none given) */
	char s_advice;          /* madvise/fadvise: the advice letter (0: NORMAL) */
	bool s_map_sync;        /* mmap -S: MAP_SHARED_VALIDATE | MAP_SYNC */
	bool s_file_offsets;    /* mread -f: dump offsets from the start of the file */
	bool s_reverse;         /* mwrite -r: stores from the end of the range; pwrite -B */
	bool s_logflush;        /* shutdown -f: the log is flushed first */
	uint8_t s_prot;         /* mmap: 1 read, 2 write, 4 exec (none given: all) */
	char s_msync_flag;      /* msync: 0 (none: a no-op), 'a', 'i' or 's' */
	uint8_t s_fault;        /* inject: enum scn_fault */
	int64_t s_after;        /* inject enospc --after N: blocks allocated first (-1: not given) */
	/*
	 * The namespace steps.  A path is kept as written, but for a leading
	 * '/', which it always has (a path without one means the same); "."
	 * and ".." stay, for the model to resolve.
	 */
	char s_path[SCN_PATH_MAX];  /* PATH of open, creat, mkdir, rmdir, unlink, fsync and
				     * fdatasync; symlink's PATH; link's and rename's OLD */
	char s_path2[SCN_PATH_MAX]; /* link's and rename's NEW; symlink's TARGET (as written);
				     * setxattr's VALUE */
	char s_xattr_name[SCN_XATTR_NAME_MAX + 1]; /* setxattr's and removexattr's NAME */
	bool s_has_path;        /* fsync/fdatasync given a PATH (else: the current file) */
	bool s_creat, s_trunc;  /* open -f (O_CREAT), -t (O_TRUNC) */
	uint8_t s_rename_flags; /* SCN_RENAME_NOREPLACE (-n) | SCN_RENAME_EXCHANGE (-x) */
	uint32_t s_line;        /* 1-based position of the step in the file (0 for -c) */
	uint32_t s_col;
	char s_text[SCN_STEP_TEXT_MAX]; /* the step as written, for traces and reports */
};

enum scn_data_mode { SCN_DATA_ORDERED, SCN_DATA_WRITEBACK, SCN_DATA_JOURNAL };

struct scn_patch_setting {
	char p_name[SCN_NAME_MAX];
	bool p_on;
	uint32_t p_line, p_col;         /* position of the name, 1-based */
};

/*
 * How the scenario's outcome is judged, beyond its mount options: the
 * options of run and explore that change a verdict (config: keys
 * crash_everywhere, crash_bound, fail_on; scenario/runcfg.c), so that a
 * file replays its finding by itself.  rc_set_* record which were written;
 * the command line layers over them (cli.c, docs/scenario-format.md).
 */
struct scn_run_config {
	bool rc_set_crash_everywhere;
	bool rc_crash_everywhere;       /* a crash judged after and inside every step */
	bool rc_set_crash_bound;
	uint64_t rc_crash_bound;        /* crash states evaluated per crash point; 0: none */
	unsigned rc_nr_fail_on;         /* informational invariants counted */
	char rc_fail_on[SCN_EXPECT_MAX][SCN_NAME_MAX];
};

#define SCN_CRASH_BOUND_MAX (1u << 24) /* the largest crash_bound / --crash-bound */

/*
 * Configuration.  c_set_* record which keys were written explicitly, so that
 * command-line flags and variants layer over the scenario's values.
 */
struct scn_config {
	uint32_t c_block_size;          /* 1024 | 2048 | 4096 */
	enum scn_data_mode c_data;
	bool c_delalloc;
	bool c_dioread_nolock;
	bool c_auto_da_alloc;           /* auto_da_alloc (default) or noauto_da_alloc */
	uint32_t c_disk_blocks;
	char c_kernel[SCN_NAME_MAX];    /* profile name, default "6.18" */
	uint32_t c_kernel_line, c_kernel_col;   /* 0 when not written */
	unsigned c_nr_patches;
	struct scn_patch_setting c_patches[SCN_PATCHES_MAX];
	bool c_set_delalloc;            /* delalloc given explicitly */
	struct scn_run_config c_run;    /* crash_everywhere, crash_bound, fail_on */
};

/*
 * The mount settings config: and a variant both take (the keys block_size,
 * data, delalloc, dioread_nolock, auto_da_alloc, disk_blocks): m_set has bit
 * 1 << SCN_MK_* for each one given.
 */
enum scn_mount_key { SCN_MK_BLOCK_SIZE, SCN_MK_DATA, SCN_MK_DELALLOC, SCN_MK_DIOREAD_NOLOCK,
		     SCN_MK_AUTO_DA_ALLOC, SCN_MK_DISK_BLOCKS, SCN_MK_NR };

struct scn_mount {
	uint32_t m_set;
	uint32_t m_block_size;
	enum scn_data_mode m_data;
	bool m_delalloc;
	bool m_dioread_nolock;
	bool m_auto_da_alloc;
	uint32_t m_disk_blocks;
	uint32_t m_delalloc_line, m_delalloc_col;       /* 0-based, of delalloc's value */
};

/* The key names of enum scn_mount_key, in its order. */
extern const char *const scn_mount_key_names[SCN_MK_NR];

struct scn_variant {
	char v_name[SCN_NAME_MAX];
	struct scn_mount v_mount;       /* the mount settings the variant sets over config: */
	bool v_has_kernel;
	char v_kernel[SCN_NAME_MAX];
	uint32_t v_kernel_line, v_kernel_col;
	unsigned v_nr_patches;
	struct scn_patch_setting v_patches[SCN_PATCHES_MAX];
	uint32_t v_line, v_col;
};

struct scn_expect {
	char e_variant[SCN_NAME_MAX];
	unsigned e_nr;
	char e_invariants[SCN_EXPECT_MAX][SCN_NAME_MAX];
	uint32_t e_line, e_col;
};

/* crash_states: what the crash point of one crash step must show (-1: any). */
struct scn_cs_expect {
	uint32_t x_step;                /* 1-based; a crash or shutdown step */
	int64_t x_raw;
	int64_t x_distinct;
	int64_t x_violating;
	uint32_t x_line, x_col;
};

struct scn_cs_expect_set {
	char xs_variant[SCN_NAME_MAX];
	unsigned xs_nr;
	struct scn_cs_expect xs[SCN_CS_EXPECT_MAX];
	uint32_t xs_line, xs_col;
};

struct scenario {
	char path[1024];                 /* file as given ("-c" for inline steps) */
	char name[SCN_NAME_MAX];
	char description[SCN_TEXT_MAX];
	char source[SCN_TEXT_MAX];
	struct scn_config config;
	unsigned nr_steps;
	struct scn_step *steps;          /* heap array of nr_steps */
	unsigned nr_variants;            /* 0: one implicit variant "default" */
	struct scn_variant variants[SCN_VARIANTS_MAX];
	bool has_expect;
	unsigned nr_expect;
	struct scn_expect expect[SCN_VARIANTS_MAX];
	unsigned nr_cs_expect;
	struct scn_cs_expect_set cs_expect[SCN_VARIANTS_MAX];
};

/* Fill @cfg with the defaults of docs/scenario-format.md (4096, ordered, delalloc, ...). */
void scn_config_defaults(struct scn_config *cfg);

/*
 * Load and validate the scenario at @path.  Returns 0 and a filled @out
 * (free with scn_free), or -1 with "PATH:LINE:COL: message" in @err.
 * Checks: file size, YAML syntax, depth, aliases/anchors/tags, unknown and
 * duplicate keys, types, value ranges, names, steps, variant names
 * referenced by expect:, invariant names in expect: (via @is_invariant).
 * Patch and kernel names are checked later by the profile code.
 */
int scn_load(const char *path, struct scenario *out,
	     bool (*is_invariant)(const char *name), char *err, size_t errlen);

/*
 * Parse one step line (xfs_io syntax, docs/scenario-format.md "Steps").  Returns
 * 0, or -1 with a message (no position) in @err; @col_out gets the 0-based
 * byte offset in @text where the problem starts.
 */
int scn_parse_step(const char *text, struct scn_step *out, char *err,
		   size_t errlen, unsigned *col_out);

/*
 * Parse an xfs_io number: decimal, 0x hex, k/m/g/t suffixes (1024-based,
 * any case).  Returns 0, -EINVAL (empty, sign, trailing garbage, or a leading
 * zero, which xfs_io would read as octal) or -ERANGE (above SCN_OFFSET_MAX);
 * @out is written only on success.
 */
int scn_parse_num(const char *s, int64_t *out);
/* xfs_io's cvtnum (octal, k..e, b = 4096, s = 512), for step operands (cvtnum.c). */
int scn_parse_cvtnum(const char *s, int64_t *out);

/*
 * The bytes step @st writes or reads (pwrite, mwrite, pread, dio_read: its
 * length; 0 for the others): what a run's page cache and device can come
 * to hold, the budget --max-bytes bounds (docs/performance.md, "Limits").
 */
int64_t scn_step_bytes(const struct scn_step *st);

/*
 * The work budget, as run checks it and import with it: the index of the
 * first of @steps that brings the sum of their scn_step_bytes() past @max,
 * the sum up to it in *@sum; -1 when every step stays within @max.
 */
int scn_budget_step(const struct scn_step *steps, unsigned nr, int64_t max, int64_t *sum);
/* Its message (no position): "this step brings ... past the limit of @max (...)". */
void scn_budget_message(char *buf, size_t len, int64_t sum, int64_t max);

/*
 * Check the path @text of a namespace step (the limits above) and write it,
 * with its leading '/', into @out.  Returns 0, or -1 with a message (no
 * position) in @err and in *@col_out the 0-based offset in @text of the
 * problem.  @what names the operand in messages ("mkdir: path", ...).
 */
int scn_parse_path(const char *text, const char *what, char out[SCN_PATH_MAX], char *err,
		   size_t errlen, unsigned *col_out);
/* True for the steps of the namespace (open, creat, ..., and fsync/fdatasync PATH). */
bool scn_step_is_namespace(const struct scn_step *st);

/* Name of a step operation, e.g. "pwrite". */
const char *scn_op_name(enum scn_op op);
/* The name of an inject step's fault (enum scn_fault), or "?". */
const char *scn_fault_name(unsigned fault);

/* For messages: @src cut to SCN_QUOTE_MAX bytes, control bytes as '?'. */
#define SCN_QUOTE_MAX 48
#define SCN_QUOTE_BUF (SCN_QUOTE_MAX + 4)
const char *scn_quote(char dst[SCN_QUOTE_BUF], const char *src);

/* A message on one line: control bytes (a newline, an echoed input byte) as '?'. */
void scn_clean_message(char *msg);

/* Open @path to read it, not waiting for a FIFO's writer (which then reads as empty). */
FILE *scn_open_read(const char *path);

/* Release what scn_load allocated. */
void scn_free(struct scenario *s);

#endif
