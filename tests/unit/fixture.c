/*
 * fixture.c - the unit tests' world (fixture.h): built as sim/run.c builds
 * it, checked with the model's own invariants when a test checks or frees it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "mke2fs.h"

/* The world not yet freed: what a failed test leaves for fx_world_leftover(). */
static struct fx_world *fx_live;

const struct ext4_semantics *fx_default_sem(void)
{
	static struct ext4_semantics sem;

	ext4_profile_semantics(ext4_profile_default(), &sem);
	return &sem;
}

struct ext4_mount_opts fx_opts(uint32_t bs, enum ext4_data_mode data, bool delalloc,
			       uint32_t disk_blocks)
{
	return (struct ext4_mount_opts){
		.block_size = bs,
		.data = data,
		.delalloc = delalloc && data != DATA_JOURNAL,
		.dioread_nolock = true,
		.auto_da_alloc = true,
		.disk_blocks = disk_blocks,
	};
}

struct fx_world *fx_world_format(const struct ext4_mount_opts *o)
{
	struct fx_world *w = calloc(1, sizeof(*w));
	const char *why = NULL;

	assert_non_null(w);
	assert_null(fx_live);           /* one world at a time */
	fx_live = w;
	w->o = *o;
	w->sem = *fx_default_sem();
	w->bd = mke2fs_device(o->disk_blocks, o->block_size, &why);      /* mke2fs's image */
	if (!w->bd)
		fail_msg("mke2fs_device(%u, %u): %s", o->disk_blocks, o->block_size, why);
	chk_init(&w->chk, o->block_size);
	return w;
}

void fx_world_mount(struct fx_world *w)
{
	assert_false(w->mounted);
	assert_int_equal(ext4_fill_super(&w->fs, w->bd, &w->o, &w->sem, &w->c, &w->ri), 0);
	w->mounted = true;
	fx_world_check(w);
}

struct fx_world *fx_world_new(const struct ext4_mount_opts *o)
{
	struct fx_world *w = fx_world_format(o);

	fx_world_mount(w);
	memset(&w->c, 0, sizeof(w->c));         /* count the test's work, not mkfs's */
	return w;
}

void fx_world_check(const struct fx_world *w)
{
	assert_true(w->mounted);
	ext4_check_state(&w->fs);
}

void fx_world_unmount(struct fx_world *w)
{
	fx_world_check(w);
	ext4_put_super(&w->fs);
	w->mounted = false;
}

void fx_world_crash(struct fx_world *w)
{
	assert_true(w->mounted);
	blkdev_crash(w->bd);
	ext4_free_fs(&w->fs);
	w->mounted = false;
}

static void world_release(struct fx_world *w)
{
	if (w->mounted)
		ext4_free_fs(&w->fs);
	blkdev_destroy(w->bd);
	chk_destroy(&w->chk);
	if (fx_live == w)
		fx_live = NULL;
	free(w);
}

void fx_world_free(struct fx_world *w)
{
	if (w->mounted)
		fx_world_check(w);
	world_release(w);
}

int fx_world_setup(void **state)
{
	struct ext4_mount_opts o = fx_opts(4096, DATA_ORDERED, true, FX_DISK_BLOCKS);

	*state = fx_world_new(&o);
	return 0;
}

int fx_world_teardown(void **state)
{
	if (*state)
		fx_world_free(*state);
	*state = NULL;
	return 0;
}

int fx_world_leftover(void **state)
{
	(void)state;
	if (fx_live)
		world_release(fx_live);
	return 0;
}
