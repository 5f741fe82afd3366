/*
 * mballoc.c - block allocation, freeing and delalloc reservations.
 * Mirrors the decisions of fs/ext4/mballoc.c and balloc.c that a crash or a
 * read can observe, not mballoc's buddy machinery:
 *   - goal-based: the first free run at or after the goal, wrapping to the
 *     start of the data area (ext4_ext_find_goal supplies the goal; with no
 *     extent to follow, the goal is where the last allocation ended, a
 *     next-fit stand-in for locality-group preallocation);
 *   - freed blocks keep their old bytes on the device, and in data=ordered
 *     and data=journal become allocatable only when the freeing transaction
 *     commits (ext4_mb_free_metadata); data=writeback frees them at once;
 *   - ext4_has_free_clusters() root-user accounting: r_blocks 5% plus
 *     s_resv_clusters (min(2%, 4096)) held back from delalloc reservations.
 *   - the model-only faults of `inject` steps: an ENOSPC after N more
 *     blocks (the request crossing the limit trimmed to it), and a low-space
 *     answer from ext4_nonda_switch(); a mount clears them.
 * Not modelled: preallocation (inode/group PAs), stream allocation, groups.
 */
#include "bitmap.h"
#include "ext4.h"

/* One CPU, as in the qemu oracle: 4 * percpu_counter_batch(32) * 1. */
#define EXT4_FREECLUSTERS_WATERMARK 128u

static uint64_t resv_clusters(const struct ext4_fs *fs)
{
	return SIM_MIN((uint64_t)fs->lay.nr_blocks / 50, (uint64_t)4096);
}

/* ext4_has_free_clusters() for a root caller. */
static bool ext4_has_free_clusters(const struct ext4_fs *fs, uint64_t n, bool use_reserved)
{
	uint64_t free = fs->s_freeclusters, dirty = fs->s_dirtyclusters;

	if (free >= resv_clusters(fs) + n + dirty)
		return true;
	return use_reserved && free >= n + dirty;
}

/*
 * The armed ENOSPC (inject enospc --after N): once N blocks are allocated
 * the next request fails, once; a request crossing the limit gets only the
 * blocks left, as mballoc returns a shorter extent when free space is
 * fragmented.  Free clusters remain, so writeback retries after a commit.
 */
static int mb_fault(struct ext4_fs *fs, uint32_t *len)
{
	if (fs->s_fault_enospc_after == 0) {
		fs->s_fault_enospc = false;
		fs->s_fault_fired = true;
		EV_RECORD(fs->bdev->bd_events, EV_FAULT, "ext4_mb_new_blocks", EXT4_FAULT_ENOSPC,
			  *len, 0, 0);
		return -ENOSPC;
	}
	if (*len > fs->s_fault_enospc_after) {
		EV_RECORD(fs->bdev->bd_events, EV_FAULT, "ext4_mb_new_blocks", EXT4_FAULT_ENOSPC,
			  *len, fs->s_fault_enospc_after, 0);
		*len = fs->s_fault_enospc_after;
	}
	return 0;
}

/*
 * ext4_mb_new_blocks(): up to @len blocks at or after @goal.  A request for
 * delayed blocks (@reserved) spends their reservation; any other request
 * must leave the delalloc reservations and the reserved pool alone
 * (ext4_claim_free_clusters), and is trimmed to what that leaves.
 */
/* Data blocks [@start, @start + @len) are no longer named as the extent blocks they were. */
static void forget_leaves_seen(struct ext4_layout *lay, uint32_t start, uint32_t len)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < lay->nr_leaves_seen; i++)
		if (lay->leaves_seen[i] < start || lay->leaves_seen[i] - start >= len)
			lay->leaves_seen[k++] = lay->leaves_seen[i];
	lay->nr_leaves_seen = k;
}

int ext4_mb_new_blocks(struct ext4_fs *fs, handle_t *h, uint32_t goal, uint32_t len,
		       bool reserved, uint32_t *pblk, uint32_t *got)
{
	uint32_t start;

	SIM_ASSERT(h != NULL);
	SIM_ASSERT(len > 0);
	if (fs->s_fault_enospc && mb_fault(fs, &len) < 0)
		return -ENOSPC;
	if (!reserved) {
		uint64_t held = fs->s_dirtyclusters + resv_clusters(fs);

		if (!ext4_has_free_clusters(fs, 1, false))
			return -ENOSPC;
		len = (uint32_t)SIM_MIN((uint64_t)len, fs->s_freeclusters - held);
	}
	if (goal < fs->lay.data_start || goal >= fs->lay.nr_blocks)
		goal = fs->lay.data_start;
	if (!bitmap_next_set(fs->free_map, goal, &start) &&
	    !bitmap_next_set(fs->free_map, fs->lay.data_start, &start))
		return -ENOSPC;
	*got = bitmap_run_length(fs->free_map, start, len);
	*pblk = start;
	SIM_ASSERT(*got > 0);
	bitmap_remove_range(fs->free_map, start, (uint64_t)start + *got);
	SIM_ASSERT(fs->s_freeclusters >= *got);
	fs->s_freeclusters -= *got;
	if (fs->s_fault_enospc)
		fs->s_fault_enospc_after -= *got;
	ext4_bitmap_dirty(fs, h, start, *got, true);
	forget_leaves_seen(&fs->lay, start, *got);
	fs->s_mb_last_block = start + *got;
	return 0;
}

/* ext4_free_blocks(): the bitmap buffer now, the allocator at commit. */
void ext4_free_blocks(struct ext4_fs *fs, handle_t *h, uint32_t pblk, uint32_t len)
{
	SIM_ASSERT((uint64_t)pblk + len <= fs->lay.nr_blocks);
	ext4_bitmap_dirty(fs, h, pblk, len, false);
	EV_RECORD(fs->bdev->bd_events, EV_FREE, "ext4_free_blocks", pblk, len, 0,
		  fs->opts.data != DATA_WRITEBACK);
	fs->s_freeclusters += len;
	if (!S_ISREG(fs->inode->i_mode)) {
		for (uint32_t b = pblk; b < pblk + len; b++) {
			ext4_meta_forget(fs, b);        /* EXT4_FREE_BLOCKS_METADATA | FORGET */
			jbd2_journal_revoke(h, b);
		}
	} else if (ext4_should_journal_data(fs)) {
		for (uint32_t b = pblk; b < pblk + len; b++)
			jbd2_journal_forget(h, b);      /* __ext4_forget, data=journal */
	}
	if (fs->opts.data == DATA_WRITEBACK)
		bitmap_add_range(fs->free_map, pblk, (uint64_t)pblk + len);
	else
		jbd2_journal_free_blocks(h, pblk, len);
}

/* The freeing transaction committed (ext4_free_data_in_buddy). */
/*
 * ext4_new_meta_blocks() for one extent block near @goal: not the data
 * path's reservations nor its injected faults, and the root-reserved blocks
 * usable (an extent block must not fail where its data did not).
 */
int ext4_mb_new_meta_block(struct ext4_fs *fs, handle_t *h, uint32_t goal, uint32_t *pblk)
{
	uint32_t start;

	SIM_ASSERT(h != NULL);
	if (fs->s_freeclusters == 0)
		return -ENOSPC;
	if (goal < fs->lay.data_start || goal >= fs->lay.nr_blocks)
		goal = fs->lay.data_start;
	if (!bitmap_next_set(fs->free_map, goal, &start) &&
	    !bitmap_next_set(fs->free_map, fs->lay.data_start, &start))
		return -ENOSPC;
	bitmap_remove_range(fs->free_map, start, (uint64_t)start + 1);
	fs->s_freeclusters--;
	ext4_bitmap_dirty(fs, h, start, 1, true);
	*pblk = start;
	return 0;
}

/*
 * ext4_free_blocks(EXT4_FREE_BLOCKS_METADATA | EXT4_FREE_BLOCKS_FORGET) of
 * an extent block: revoked (ext4_forget), its checkpoint copy dropped, and
 * reusable only after the transaction commits, in every data mode.
 */
void ext4_free_meta_block(struct ext4_fs *fs, handle_t *h, uint32_t pblk)
{
	ext4_bitmap_dirty(fs, h, pblk, 1, false);
	EV_RECORD(fs->bdev->bd_events, EV_FREE, "ext4_free_blocks", pblk, 1, 0, 1);
	fs->s_freeclusters++;
	jbd2_journal_revoke(h, pblk);
	jbd2_journal_free_blocks(h, pblk, 1);
}

void ext4_mb_release_freed(struct ext4_fs *fs, uint32_t pblk, uint32_t len)
{
	SIM_ASSERT(bitmap_range_cardinality(fs->free_map, pblk, (uint64_t)pblk + len) == 0);
	EV_RECORD(fs->bdev->bd_events, EV_FREE_RELEASED, "ext4_mb_release_freed", pblk, len, 0, 0);
	bitmap_add_range(fs->free_map, pblk, (uint64_t)pblk + len);
}

/* ext4_da_reserve_space(): one block for a new delayed block. */
int ext4_da_reserve_space(struct ext4_fs *fs)
{
	if (!ext4_has_free_clusters(fs, 1, false))
		return -ENOSPC;
	fs->s_dirtyclusters++;
	fs->inode->i_reserved_data_blocks++;
	EV_RECORD(fs->bdev->bd_events, EV_RESERVE, "ext4_da_reserve_space", 1, 0, 0, 0);
	return 0;
}

/* ext4_da_release_space(): delayed blocks went away or got allocated. */
void ext4_da_release_space(struct ext4_fs *fs, uint32_t nr)
{
	SIM_ASSERT(fs->inode->i_reserved_data_blocks >= nr);
	SIM_ASSERT(fs->s_dirtyclusters >= nr);
	fs->inode->i_reserved_data_blocks -= nr;
	fs->s_dirtyclusters -= nr;
	if (nr)
		EV_RECORD(fs->bdev->bd_events, EV_RELEASE, "ext4_da_release_space", nr, 0, 0, 0);
}

/*
 * ext4_nonda_switch(): too little free space left for delalloc (or the
 * model-only fault `inject nonda` says so), so the caller (a delalloc write
 * or page fault) takes the non-delalloc path; each such answer is counted
 * (nonda_switches).
 */
bool ext4_nonda_switch(struct ext4_fs *fs)
{
	uint64_t free = fs->s_freeclusters, dirty = fs->s_dirtyclusters;
	bool sw = 2 * free < 3 * dirty || free < dirty + EXT4_FREECLUSTERS_WATERMARK;

	if (fs->s_fault_nonda) {
		EV_RECORD(fs->bdev->bd_events, EV_FAULT, "ext4_nonda_switch", EXT4_FAULT_NONDA,
			  0, 0, 0);
		sw = true;
	}
	fs->counters->nonda_switches += sw;
	return sw;
}

/* The inject step: arm a fault, or clear every armed one. */
void ext4_fault_inject(struct ext4_fs *fs, enum ext4_fault fault, uint32_t after)
{
	switch (fault) {
	case EXT4_FAULT_ENOSPC:
		fs->s_fault_enospc = true;
		fs->s_fault_enospc_after = after;
		break;
	case EXT4_FAULT_NONDA:
		fs->s_fault_nonda = true;
		break;
	default:
		fs->s_fault_enospc = fs->s_fault_nonda = false;
		fs->s_fault_enospc_after = 0;
		break;
	}
}
