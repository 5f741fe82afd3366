/*
 * profile.h - named kernel semantics.
 *
 * Every behavioural decision the model makes differently across kernel
 * versions reads one field of struct ext4_semantics.  Each field is a patch
 * toggle (struct ext4_toggle: its upstream commit, first release, the rule
 * before and after, and the kernel functions it switches); a kernel profile
 * (struct ext4_profile) is a named set of toggles that are on.  A run takes a
 * profile, then `patches:` of the scenario's config, then of the variant,
 * then --patch flags, each overriding the one before.
 *
 * Where the model cannot show a toggle's difference, the toggle says so in
 * `unmodelled`.  Changes the model does not have at all (inline data,
 * DAX) are listed by `ext4sim patches` as not modelled, without a toggle.
 *
 * Toggles come in three classes: mainline (a merged commit; profiles carry
 * them), unmerged (a posted patch no kernel took) and experimental (an
 * idea under test, not a kernel change at all).  Mainline and unmerged
 * toggles are rows of the upstream table (profile.c, enum ext4_toggle_id);
 * experimental ones are rows of their own table (experimental.c) that no
 * profile includes: a patch author adds one there without touching the
 * upstream table (docs/writing-a-toggle.md).  The toggles are numbered
 * 0 .. ext4_toggle_count() - 1, the upstream ones first; there is no fixed
 * limit on how many there are.
 */
#ifndef EXT4SIM_PROFILE_H
#define EXT4SIM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ext4_semantics {
	bool da_disksize_vs_isize;      /* 4df031ff5876 (5.15) */
	bool da_write_no_handle;        /* cc883236b792 (5.15) */
	bool short_copy_zero;           /* 1dedde690303 (6.4) */
	bool jdata_dirty_folio;         /* Jan Kara's data=journal rework (6.5) */
	bool da_end_skip_dirty;         /* 03de20bed203 (6.6) */
	bool dioread_nolock_subpage;    /* e89fdcc425b6 (6.8) */
	bool eof_zero_fs;               /* c7fc0366c656 (6.13) */
	bool eof_zero_dirty_folio_mm;   /* 52aecaee1c26 (6.13) */
	bool punch_zero_refactor;       /* Zhang Yi's fallocate refactor (6.14) */
	bool disksize_before_punch_partial;     /* 9d80eaa1a1d3 (6.18) */
	bool zero_ordered_written_only; /* 154922b34da9 (7.0) */
	bool zero_order_eof_only;       /* 2026 series patch 05 (7.1) */
	bool zero_outside_handle;       /* 2026 series patches 06+08 (7.1) */
	bool sync_persist_zero;         /* 2026 series patch 09 (7.1) */
	bool unified_sync_check;        /* 2026 series patch 10 (7.1) */
	bool isize_ext_outside_handle;  /* 2026 series patch 12 (7.1) */
	bool zero_eof_in_write_checks;  /* 2026 series patch 13 (7.1) */
	bool jbd2_lockless_committed;   /* 7c73ddb7589f (6.12) */
	bool punch_end_eof_block;       /* in 7.2.13's source, commit unidentified (7.2) */
	bool ordered_data_shutdown_check;       /* commit unidentified; in 6.16.12, not 6.12.117 */
	bool logflush_commit_first;     /* commit unidentified; 6.18.44 has it, 6.17.13 not */
	bool iomap_dirty_write_only;    /* unmerged 2021 read-path patch */
	bool get_block_unwritten_new;   /* 2cd8bdb5efc1 (6.7) */
	bool wb_submit_partial_folio;   /* ded2d726a304 (6.17) */
	bool shutdown_ioctl;            /* 783d94854499 (4.11) */
	bool ordered_writeout_do_writepages;    /* 59205c8d4eae (6.2) */
	bool copy_file_range_syscall;   /* 29732938a628 (4.5) */
	bool pwritev2_syscall;          /* f17d8b35452c (4.6), RWF_DSYNC e864f39569f4 (4.7) */
	bool madv_populate;             /* 4ca9b3859dac (5.14) */
	bool map_shared_validate;       /* 1c9725974074 (4.15) */
	bool falloc_disksize;           /* 51e3ae81ec58 (4.15) */
	bool zeroout_disksize;          /* 801674f34ecf (5.7) */
	bool ordered_delalloc_alloc;    /* 06bd3c36a733 (4.7) */
	bool disksize_before_punch;     /* 011278485ecc (4.5) */
	bool dioread_nolock_default;    /* 244adf6426ee (5.6) */
	bool fdatasync_extent_ops;      /* 67a7d5f561f4 (4.12) */
	bool fdatasync_fallocate;       /* c894aa97577e (4.15) */
	bool insert_shift_start_block;  /* 14d981f468a1 (4.10; in 4.4 and 4.9 stable) */
	bool jdata_write_end_copied;    /* 3b136499e906 (4.12; in 4.4 and 4.9 stable) */
	bool rename_flush_data;         /* unmerged 2022 rename patch (ext4_flush_data) */
	bool fsync_nonreg_force_commit; /* 1077b2d53ef5 (6.4) */
	bool dio_iomap;                 /* 378f32bab371 (5.5) */
	bool dio_disksize_inside_isize; /* 45d8ec4d9fd5 (4.16) */
	bool dio_extension_in_end_io;   /* 91562895f803 (6.7; in 5.10 and 6.1 stable) */
	bool dio_read_iomap;            /* b1b4705d54ab (5.5) */
	bool dio_unaligned_aio_eof_block; /* 372a03e01853 (5.1; in 4.4 to 4.19 stable) */
	bool dio_unaligned_aio_wait;    /* 57a0da28ced8 (5.2; in 4.9 to 4.19 stable) */
	/* experimental (experimental.c): ideas under test, in no profile */
	bool exp_grow_zero_written_only;        /* truncate up zeroes a written EOF block only */
};

enum ext4_toggle_id {
	T_DA_DISKSIZE_VS_ISIZE,
	T_DA_WRITE_NO_HANDLE,
	T_SHORT_COPY_ZERO,
	T_JDATA_DIRTY_FOLIO,
	T_DA_END_SKIP_DIRTY,
	T_DIOREAD_NOLOCK_SUBPAGE,
	T_EOF_ZERO_FS,
	T_EOF_ZERO_DIRTY_FOLIO_MM,
	T_PUNCH_ZERO_REFACTOR,
	T_DISKSIZE_BEFORE_PUNCH_PARTIAL,
	T_ZERO_ORDERED_WRITTEN_ONLY,
	T_ZERO_ORDER_EOF_ONLY,
	T_ZERO_OUTSIDE_HANDLE,
	T_SYNC_PERSIST_ZERO,
	T_UNIFIED_SYNC_CHECK,
	T_ISIZE_EXT_OUTSIDE_HANDLE,
	T_ZERO_EOF_IN_WRITE_CHECKS,
	T_JBD2_LOCKLESS_COMMITTED,
	T_PUNCH_END_EOF_BLOCK,
	T_ORDERED_DATA_SHUTDOWN_CHECK,
	T_LOGFLUSH_COMMIT_FIRST,
	T_IOMAP_DIRTY_WRITE_ONLY,
	T_GET_BLOCK_UNWRITTEN_NEW,
	T_WB_SUBMIT_PARTIAL_FOLIO,
	T_SHUTDOWN_IOCTL,
	T_ORDERED_WRITEOUT_DO_WRITEPAGES,
	T_COPY_FILE_RANGE_SYSCALL,
	T_PWRITEV2_SYSCALL,
	T_MADV_POPULATE,
	T_MAP_SHARED_VALIDATE,
	T_FALLOC_DISKSIZE,
	T_ZEROOUT_DISKSIZE,
	T_ORDERED_DELALLOC_ALLOC,
	T_DISKSIZE_BEFORE_PUNCH,
	T_DIOREAD_NOLOCK_DEFAULT,
	T_FDATASYNC_EXTENT_OPS,
	T_FDATASYNC_FALLOCATE,
	T_INSERT_SHIFT_START_BLOCK,
	T_JDATA_WRITE_END_COPIED,
	T_RENAME_FLUSH_DATA,
	T_FSYNC_NONREG_FORCE_COMMIT,
	T_DIO_IOMAP,
	T_DIO_DISKSIZE_INSIDE_ISIZE,
	T_DIO_EXTENSION_IN_END_IO,
	T_DIO_READ_IOMAP,
	T_DIO_UNALIGNED_AIO_EOF_BLOCK,
	T_DIO_UNALIGNED_AIO_WAIT,
	T_COUNT                         /* upstream toggles; experimental ones follow */
};

enum ext4_toggle_class {
	TC_MAINLINE,                    /* a merged commit: profiles carry it */
	TC_UNMERGED,                    /* posted, never merged: only by --patch */
	TC_EXPERIMENTAL,                /* an idea under test (experimental.c): only by --patch */
};

struct ext4_toggle {
	const char *name;
	const char *commit;             /* upstream id and subject */
	const char *release;            /* first release carrying it */
	const char *before;             /* the rule without it */
	const char *after;              /* the rule with it */
	const char *path;               /* the kernel functions it switches */
	const char *unmodelled;         /* what of it the model does not show, or NULL */
	size_t offset;                  /* its field in struct ext4_semantics */
	/* for docs/patches.md (scripts/patches-doc reads them from `ext4sim patches`) */
	const char *why;                /* why the change was made, or what the idea is */
	const char *shown_by;           /* "SCENARIO.yaml VARIANT": where `diff` shows it */
	enum ext4_toggle_class klass;
	/*
	 * The long-term series ("4.19 5.4 5.10") whose last stable release carries
	 * the commit as a backport, or NULL: the profile of that release (struct
	 * ext4_profile's @series with @backports) has the toggle.
	 */
	const char *stable;
};

/*
 * A kernel profile: the toggles of @base (another profile's name, or NULL)
 * and those of @on (ended by T_COUNT).  A series profile also names its
 * series in @series ("4.19"): it then has every mainline toggle whose release
 * is at or before that series (the series' x.y.0), and with @backports (the
 * series' last stable release, "4.19.325") also every toggle whose @stable
 * names the series, so a history toggle states its release and backports
 * once, in its own row.
 */
struct ext4_profile {
	const char *name;
	const char *description;
	const char *base;
	const enum ext4_toggle_id *on;
	const char *series;
	bool backports;
};

/* "x.y" as major * 100 + minor, or -1 when @release is not of that form. */
int ext4_release_version(const char *release);

/* The profile named @name, or NULL. */
const struct ext4_profile *ext4_profile_find(const char *name);
const struct ext4_profile *ext4_profile_default(void);
unsigned ext4_profile_count(void);
const struct ext4_profile *ext4_profile_at(unsigned i);

/* A mainline profile's version, major * 100 + minor ("6.13": 613); -1 for the others. */
int ext4_profile_version(const struct ext4_profile *p);
/* The mainline profiles in release order into @out (room for ext4_profile_count()); how many. */
unsigned ext4_profile_mainline(const struct ext4_profile **out);

/* Does profile @p have toggle @t (an index below ext4_toggle_count())? */
bool ext4_profile_has(const struct ext4_profile *p, unsigned t);

/* The toggle named @name (upstream or experimental), or NULL. */
const struct ext4_toggle *ext4_toggle_find(const char *name);
/* Every toggle: the upstream table (enum ext4_toggle_id), then the experimental one. */
unsigned ext4_toggle_count(void);
const struct ext4_toggle *ext4_toggle_at(unsigned i);
/* The experimental table (experimental.c). */
unsigned ext4_experimental_count(void);
const struct ext4_toggle *ext4_experimental_at(unsigned i);
bool ext4_toggle_get(const struct ext4_semantics *sem, const struct ext4_toggle *t);
void ext4_toggle_set(struct ext4_semantics *sem, const struct ext4_toggle *t, bool on);

/* The semantics of profile @p, before any patch setting. */
void ext4_profile_semantics(const struct ext4_profile *p, struct ext4_semantics *sem);

/* Changes the model has no code path for, one line each (NULL-terminated). */
extern const char *const ext4_not_modelled[];

#endif
