/*
 * oracle.h - what export, import and gen share (docs/real-kernel.md): a
 * step's canonical text, a scenario written back as YAML, and the real
 * mount options of a model configuration.
 */
#ifndef EXT4SIM_ORACLE_H
#define EXT4SIM_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"

/* A configuration as written to a scenario's config: (all keys explicit). */
struct orc_config {
	uint32_t block_size;
	enum scn_data_mode data;
	bool delalloc;
	bool dioread_nolock;
	bool noauto_da_alloc;           /* noauto_da_alloc (false: the default, auto_da_alloc) */
	uint32_t disk_blocks;           /* 0: not written (the default) */
	char kernel[SCN_NAME_MAX];      /* "": not written */
	unsigned nr_patches;
	struct scn_patch_setting patches[SCN_PATCHES_MAX];
	struct scn_run_config judging;  /* crash_bound and fail_on, each written where set;
					 * crash_everywhere only by import --from ace (export
					 * never sets it: it is model only) */
};

/* A scenario to write: the keys import, gen and export --format yaml fill. */
struct orc_yaml {
	const char *name;               /* [a-z0-9._-]+ */
	const char *description;        /* NULL: none; folded at 88 columns */
	const char *source;             /* NULL: none */
	const struct orc_config *config;/* NULL: no config: */
	const struct scn_step *steps;
	unsigned nr_steps;
};

/* A step that maps the file when no mmap step did: mwrite, mread and madvise with a range. */
bool orc_maps_implicitly(const struct scn_step *st);

/* Does the step run inside an xfs_io process on the file (not close, evict,
 * chattr, remount, crash, shutdown, commit, nor dio_read, which is a process of
 * its own with the file opened O_DIRECT: xfs_io -d -c "pread OFF LEN")?  xfs_io applies every -c command
 * to every file it has open, so the commit's fsync of another file cannot
 * share a process with the file. */
bool orc_in_process(enum scn_op op);
/*
 * Does step @st run inside an xfs_io process on the current file?  As
 * orc_in_process, and a namespace step does not (mkdir, link, rename, ...,
 * fsync PATH: a command of the script's own, outside any process), but for
 * open, which starts the process on the file it names.
 */
bool orc_step_in_process(const struct scn_step *st);
/*
 * Does step @st need a process whose file is not O_DIRECT: a buffered
 * pwrite, pread, copy_range or a mapping step (xfs_io -d would make the
 * write direct, the read direct: EINVAL unaligned)?
 */
bool orc_needs_buffered_fd(const struct scn_step *st);
/*
 * The steps "as run" on a real ext4.  A close is inserted before an evict,
 * chattr, remount, commit or crash, and at the end, wherever an xfs_io
 * process is open (and before a dio_read): the process ends there, and closing the file is not free
 * (auto_da_alloc, munmap).  A write the model would leave in flight cannot
 * stay in flight on a real device, which completes it (and its unwritten
 * conversion) at once: so sync_range -w OFF LEN is followed by sync_range -a
 * OFF LEN, and a close after a truncate to 0 (which may start writeback) by
 * sync_range -a 0 0 and another close.  A namespace step ends the process
 * before it (orc_step_in_process), and so does an open, which starts the
 * next one on its file.  A direct pwrite runs in a process whose file is
 * O_DIRECT (xfs_io -d, or one an open -d started), a step that needs a
 * buffered file (orc_needs_buffered_fd) in one whose file is not: a close
 * is inserted where the kind changes.  @out has room for 6 * @n + 3 steps;
 * returns how many it holds.  Applied to its own output it changes nothing.
 */
unsigned orc_as_run(const struct scn_step *in, unsigned n, struct scn_step *out);
/* The step in the syntax scn_parse_step() reads, numbers in decimal, -S always given. */
void orc_step_text(const struct scn_step *st, char *buf, size_t cap);
/* Parse a step this program built; a failure is a bug. */
void orc_make_step(struct scn_step *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void orc_write_yaml(FILE *out, const struct orc_yaml *y);
/*
 * The year of an exported fstests test's copyright line without
 * --copyright-year: a constant of the release (the year it was made), never
 * the clock, so an export gives the same bytes on any day.
 */
#define ORC_COPYRIGHT_YEAR "2026"
/* A scenario name from a file name: its base name without extension, lower
 * case, other bytes as '-', at most SCN_NAME_MAX - 1 bytes; "imported" if empty. */
void orc_name_from_path(const char *path, char *out, size_t cap);
/*
 * import --from fstests (import_fstests.c): the steps of the fstests test
 * in @buf (@len bytes, read from @path) into a new array *@steps of *@nr;
 * 0, or -1 with "FILE:LINE:COL: message" in @err.
 */
int orc_import_fstests(const char *path, const char *buf, size_t len, struct scn_step **steps,
		       unsigned *nr, char *err, size_t errlen);
/*
 * The real mount options of a configuration, with commit=600,noatime, every
 * option the model tells apart written out, defaults included (delalloc,
 * dioread_nolock, auto_da_alloc): mounted after options of someone else's
 * (fstests' MOUNT_OPTIONS, or a mount the xfs_io script is handed), it
 * overrides any of them.  Both exported scripts mount with it.
 */
void orc_mount_options_all(const struct orc_config *c, char *buf, size_t cap);
/* "4096 ordered delalloc" (plus " dioread_lock", " noauto_da_alloc" when off): a table key. */
void orc_config_key(const struct orc_config *c, char *buf, size_t cap);
const char *orc_data_name(enum scn_data_mode d);

#endif
