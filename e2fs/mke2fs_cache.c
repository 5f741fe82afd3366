/*
 * mke2fs_cache.c - one image per geometry per process: the first device
 * of a geometry runs mke2fs_make() on a scratch device and freezes it into
 * a base (blkdev_base_freeze); later ones are devices over that base.  The
 * cache is a short list searched in order of insertion (no hashing); past
 * E2FS_CACHE_MAX geometries the oldest entry is dropped (devices made over
 * it keep it alive through their reference).
 */
#include <stddef.h>

#include "mke2fs.h"
#include "blkdev.h"
#include "sim.h"

#define E2FS_CACHE_MAX 16

struct mke2fs_entry {
	uint32_t me_nr_blocks;
	uint32_t me_block_size;
	struct blkdev_base *me_base;
};

static struct mke2fs_entry mke2fs_cache[E2FS_CACHE_MAX];
static uint32_t mke2fs_cache_nr;

/* Remember @base for its geometry, dropping the oldest entry when full. */
static void cache_add(struct blkdev_base *base)
{
	if (mke2fs_cache_nr == E2FS_CACHE_MAX) {
		blkdev_base_put(mke2fs_cache[0].me_base);
		for (uint32_t i = 1; i < E2FS_CACHE_MAX; i++)
			mke2fs_cache[i - 1] = mke2fs_cache[i];
		mke2fs_cache_nr--;
	}
	mke2fs_cache[mke2fs_cache_nr++] = (struct mke2fs_entry){
		.me_nr_blocks = base->bb_nr_blocks,
		.me_block_size = base->bb_block_size,
		.me_base = base,
	};
}

struct blkdev_base *mke2fs_base(uint32_t nr_blocks, uint32_t block_size, const char **why)
{
	const char *no = mke2fs_refuses(nr_blocks, block_size);
	struct blkdev *bd;
	struct blkdev_base *base;

	if (no) {
		*why = no;
		return NULL;
	}
	for (uint32_t i = 0; i < mke2fs_cache_nr; i++)
		if (mke2fs_cache[i].me_nr_blocks == nr_blocks &&
		    mke2fs_cache[i].me_block_size == block_size)
			return mke2fs_cache[i].me_base;
	bd = blkdev_create(nr_blocks, block_size);
	bd->bd_no_sum = true;           /* frozen below: its sum is never read */
	if (mke2fs_make(bd, why)) {
		blkdev_destroy(bd);
		return NULL;
	}
	base = blkdev_base_freeze(bd);
	cache_add(base);
	return base;
}

struct blkdev *mke2fs_device(uint32_t nr_blocks, uint32_t block_size, const char **why)
{
	struct blkdev_base *base = mke2fs_base(nr_blocks, block_size, why);

	return base ? blkdev_create_on(base) : NULL;
}

void mke2fs_cache_drop(void)
{
	for (uint32_t i = 0; i < mke2fs_cache_nr; i++)
		blkdev_base_put(mke2fs_cache[i].me_base);
	mke2fs_cache_nr = 0;
}
