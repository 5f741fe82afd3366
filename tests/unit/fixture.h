/*
 * fixture.h - the world the unit tests build the way sim/run.c does: a
 * device holding mke2fs's image (e2fs/mke2fs.h), mount, run counters and the checker;
 * with the model's invariant checks (ext4_check_state, which runs the
 * journal's and the device's) wherever a world is checked or freed.
 *
 * As cmocka setup/teardown: fx_world_setup() puts a default world in
 * *state, fx_world_teardown() checks and frees it.  Tests that build their
 * own worlds free them with fx_world_free() and name fx_world_leftover() as
 * teardown, which frees (unchecked) a world a failed assertion left behind.
 */
#ifndef EXT4SIM_TEST_FIXTURE_H
#define EXT4SIM_TEST_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "blkdev.h"
#include "checker.h"
#include "ext4.h"

#define FX_DISK_BLOCKS 16384u

struct fx_world {
	struct ext4_mount_opts o;
	struct ext4_semantics sem;      /* the default profile's */
	struct blkdev *bd;
	struct sim_counters c;
	struct jbd2_recovery_info ri;
	struct ext4_fs fs;
	struct chk_state chk;
	uint32_t step;                  /* for tests that number their steps */
	bool mounted;
};

/* The default profile's semantics. */
const struct ext4_semantics *fx_default_sem(void);
/* Mount options as sim/run.c sets them (no delalloc in data=journal). */
struct ext4_mount_opts fx_opts(uint32_t bs, enum ext4_data_mode data, bool delalloc,
			       uint32_t disk_blocks);
/* The device as mke2fs made it, not mounted: a test may change the device before fx_world_mount(). */
struct fx_world *fx_world_format(const struct ext4_mount_opts *o);
void fx_world_mount(struct fx_world *w);
/* fx_world_format() + fx_world_mount(). */
struct fx_world *fx_world_new(const struct ext4_mount_opts *o);
/* The model's invariants: ext4.h's, jbd2.h's and blkdev.h's. */
void fx_world_check(const struct fx_world *w);
/* A clean unmount (ext4_put_super), after the invariant checks. */
void fx_world_unmount(struct fx_world *w);
/* A crash: the device keeps its completed writes, the in-memory state is lost. */
void fx_world_crash(struct fx_world *w);
/* Check (when mounted), unmount without writing, free. */
void fx_world_free(struct fx_world *w);

/* cmocka: a 4 KiB, data=ordered, delalloc world of FX_DISK_BLOCKS blocks. */
int fx_world_setup(void **state);
int fx_world_teardown(void **state);
/* cmocka teardown: free, unchecked, a world a failed test did not free. */
int fx_world_leftover(void **state);

#endif
