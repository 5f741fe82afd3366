/*
 * extents.h - the inode's block map: the extent tree and the extent status
 * tree in one sorted array.
 *
 * ext4 keeps written and unwritten extents on disk (fs/ext4/extents.c) and
 * delayed extents only in memory (fs/ext4/extents_status.c).  The model keeps
 * all three in one array of non-overlapping extents sorted by logical block;
 * a logical block that no extent covers is a hole.  Only written and
 * unwritten extents are serialized to disk (super.c).
 *
 * Invariants (es_check): sorted, non-overlapping, non-empty; written and
 * unwritten extents have a physical block and respect ext4's length limits
 * (32768 written, 32767 unwritten); neighbours that could merge are merged.
 */
#ifndef EXT4SIM_EXTENTS_H
#define EXT4SIM_EXTENTS_H

#include <stdbool.h>
#include <stdint.h>

#define EXT_INIT_MAX_LEN 32768u
#define EXT_UNWRITTEN_MAX_LEN 32767u
#define EXT_MAX_LBLK 0xffffffffu

enum es_state { ES_HOLE, ES_WRITTEN, ES_UNWRITTEN, ES_DELAYED };

struct extent_status {
	uint32_t es_lblk;
	uint32_t es_len;
	uint32_t es_pblk;       /* 0 for delayed */
	uint8_t es_state;       /* enum es_state, never ES_HOLE */
};

struct ext4_es_tree {
	struct extent_status *es;
	uint32_t es_nr;
	uint32_t es_cap;
};

/* A physical range released by es_remove(). */
struct es_freed {
	uint32_t pblk;
	uint32_t len;
};

void es_init(struct ext4_es_tree *t);
void es_destroy(struct ext4_es_tree *t);
void es_copy(struct ext4_es_tree *dst, const struct ext4_es_tree *src);

/*
 * Look up @lblk.  Returns its state; *pblk gets its physical block (written
 * or unwritten) and *len the number of blocks from @lblk on with the same
 * state and contiguous physical blocks (for a hole: up to the next extent).
 */
enum es_state es_lookup(const struct ext4_es_tree *t, uint32_t lblk,
			uint32_t *pblk, uint32_t *len);

/*
 * ext4_es_lookup_extent(): the read-only lookup.  The extent holding @lblk
 * goes to *es; false for a hole.  Never allocates or changes the map.
 */
bool ext4_es_lookup_extent(const struct ext4_es_tree *t, uint32_t lblk,
			   struct extent_status *es);

/* Map [lblk, lblk+len) to @state (physical blocks from @pblk on). */
void es_insert(struct ext4_es_tree *t, uint32_t lblk, uint32_t len,
	       uint32_t pblk, enum es_state state);

/*
 * Remove [lblk, lblk+len), len up to 2^32 - lblk.  Physical ranges of written and unwritten
 * extents go to @freed (capacity @freed_max, count returned in *nr_freed);
 * returns the number of delayed blocks removed.
 */
uint32_t es_remove(struct ext4_es_tree *t, uint32_t lblk, uint64_t len,
		   struct es_freed *freed, uint32_t freed_max, uint32_t *nr_freed);

/*
 * Move every extent at or after @start by @shift blocks, towards 0 (@left,
 * collapse: nothing may lie in [start - shift, start)) or away from it
 * (insert: nothing may pass EXT_MAX_LBLK).  An extent across @start is
 * split there first; extents that meet after a left shift merge.
 */
void es_shift(struct ext4_es_tree *t, uint32_t start, uint32_t shift, bool left);

/* Count blocks in a given state. */
uint64_t es_count(const struct ext4_es_tree *t, enum es_state state);

/* Number of on-disk (written + unwritten) extents. */
uint32_t es_nr_disk_extents(const struct ext4_es_tree *t);

/* Assert the invariants above. */
void es_check(const struct ext4_es_tree *t);

const char *es_state_name(enum es_state s);

#endif
