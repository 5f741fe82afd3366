/*
 * extents.c - the on-disk extent tree of the file: the root in i_block,
 * then extent blocks.  Mirrors fs/ext4/extents.c's tree half: the header
 * and entries of ext4_extents.h, ext4_ext_check (what a tree may hold),
 * ext4_ext_grow_indepth (the root's entries moved into a new block),
 * ext4_ext_split's choice of border (a new extent at a full leaf's end
 * starts a new leaf; one inside moves the extents after it), ext4_ext_rm_idx
 * (an emptied leaf freed), ext4_extent_block_csum_set, and ext4_ext_dirty.
 *
 * The block map itself is extents_status.c's sorted array (written,
 * unwritten and delayed extents in one); ext4_ext_dirty() lays its written
 * and unwritten extents out in the tree the file already has: each into the
 * leaf whose index covers it, an overflowing leaf split as ext4_ext_split
 * splits it, an emptied leaf freed, and writes the blocks (and the inode)
 * whose bytes changed.
 *
 * Not modelled: depth 2 (a fifth leaf): the tree holds at most four leaves,
 * ext4_ext_has_room() says ENOSPC past that (the model's capacity, far past
 * any scenario); where a split would need a fifth leaf before the extents
 * outgrow four, the leaves are repacked evenly (docs/architecture.md).
 */
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "ext4.h"

#define EH_SIZE sizeof(struct ext4_extent_header)
#define EX_SIZE sizeof(struct ext4_extent)

/* The written and unwritten extents of the block map, in lblk order. */
struct disk_ext {
	uint32_t lblk, len, pblk;
	bool unwritten;
};

static uint32_t leaf_max(const struct ext4_fs *fs)
{
	return fs->lay.extents_per_block;
}

bool ext4_ext_is_leaf(const struct ext4_fs *fs, uint32_t blk)
{
	for (uint32_t k = 0; k < fs->s_nr_inodes; k++) {
		const struct ext4_inode_info *ei = fs->s_inodes[k];

		for (uint32_t i = 0; i < ei->i_ext_nr_leaves; i++)
			if (ei->i_ext_leaves[i].el_pblk == blk)
				return true;
	}
	return false;
}

bool ext4_is_dir_block(const struct ext4_fs *fs, uint32_t blk)
{
	for (uint32_t k = 0; k < fs->s_nr_inodes; k++) {
		const struct ext4_inode_info *ei = fs->s_inodes[k];
		const struct ext4_es_tree *t = &ei->i_es;

		if (S_ISREG(ei->i_mode) || ei->i_fast_symlink)
			continue;
		for (uint32_t i = 0; i < t->es_nr; i++)
			if (t->es[i].es_state == ES_WRITTEN && blk >= t->es[i].es_pblk &&
			    blk - t->es[i].es_pblk < t->es[i].es_len)
				return true;
	}
	return false;
}

bool ext4_is_xattr_block(const struct ext4_fs *fs, uint32_t blk)
{
	for (uint32_t k = 0; k < fs->s_nr_inodes; k++)
		if (fs->s_inodes[k]->i_file_acl == blk && blk != 0)
			return true;
	return false;
}

uint32_t ext4_ext_meta_blocks(const struct ext4_fs *fs)
{
	return fs->inode->i_ext_nr_leaves;
}

uint32_t ext4_ext_capacity(const struct ext4_fs *fs)
{
	return EXT4_EXT_MAX_LEAVES * leaf_max(fs);
}

static struct disk_ext *collect(const struct ext4_fs *fs, uint32_t *n)
{
	const struct ext4_es_tree *t = &fs->inode->i_es;
	struct disk_ext *x = sim_realloc_array(NULL, t->es_nr + 1, sizeof(*x));

	*n = 0;
	for (uint32_t i = 0; i < t->es_nr; i++) {
		const struct extent_status *e = &t->es[i];

		if (e->es_state == ES_DELAYED)
			continue;
		SIM_ASSERT(e->es_len <= (e->es_state == ES_UNWRITTEN ? EXT_UNWRITTEN_MAX_LEN
								      : EXT_INIT_MAX_LEN));
		x[(*n)++] = (struct disk_ext){ e->es_lblk, e->es_len, e->es_pblk,
					       e->es_state == ES_UNWRITTEN };
	}
	return x;
}

/* The extents of leaf @k: [first, end) of @x by the leaves' index keys. */
static void leaf_span(const struct ext4_inode_info *ei, const struct disk_ext *x, uint32_t n,
		      uint32_t k, uint32_t *first, uint32_t *end)
{
	uint32_t i = 0;

	if (k > 0)
		while (i < n && x[i].lblk < ei->i_ext_leaves[k].el_lblk)
			i++;
	*first = i;
	if (k + 1 < ei->i_ext_nr_leaves)
		while (i < n && x[i].lblk < ei->i_ext_leaves[k + 1].el_lblk)
			i++;
	else
		i = n;
	*end = i;
}

bool ext4_ext_has_room(const struct ext4_fs *fs, uint32_t extra)
{
	const struct ext4_inode_info *ei = fs->inode;
	uint32_t n, first, end;
	struct disk_ext *x = collect(fs, &n);
	bool room = true;

	if (ei->i_ext_depth == 0)
		room = n + extra <= EXT4_EXT_ROOT_MAX || fs->s_freeclusters > 0;
	for (uint32_t k = 0; ei->i_ext_depth == 1 && k < ei->i_ext_nr_leaves; k++) {
		leaf_span(ei, x, n, k, &first, &end);
		if (end - first + extra > leaf_max(fs))
			room = room && fs->s_freeclusters > 0 &&
			       ei->i_ext_nr_leaves < EXT4_EXT_MAX_LEAVES;
	}
	free(x);
	return room && n + extra <= ext4_ext_capacity(fs);
}

/* ext4_extent_block_csum(): crc32c of the block up to its tail, seeded by the inode's. */
static uint32_t ext4_extent_block_csum(const struct ext4_fs *fs, const uint8_t *b)
{
	return crc32c(fs->inode->i_csum_seed, b, EH_SIZE + EX_SIZE * leaf_max(fs));
}

/* Write @cnt extents of @x as a tree node with @max entries at @out (header first). */
static void put_extents(uint8_t *out, const struct disk_ext *x, uint32_t cnt, uint32_t max)
{
	struct ext4_extent_header eh = { EXT4_EXT_MAGIC, (uint16_t)cnt, (uint16_t)max, 0, 0 };

	memset(out, 0, EH_SIZE + EX_SIZE * max);
	memcpy(out, &eh, EH_SIZE);
	for (uint32_t i = 0; i < cnt; i++) {
		struct ext4_extent ex = {
			.ee_block = x[i].lblk,
			.ee_len = (uint16_t)(x[i].len + (x[i].unwritten ? EXT_INIT_MAX_LEN : 0)),
			.ee_start_lo = x[i].pblk,
		};

		memcpy(out + EH_SIZE + i * EX_SIZE, &ex, EX_SIZE);
	}
}

/* The root as i_block holds it: the extents (depth 0) or the leaves' index. */
void ext4_ext_root(const struct ext4_fs *fs, uint8_t root[60])
{
	const struct ext4_inode_info *ei = fs->inode;
	uint32_t n;
	struct disk_ext *x = collect(fs, &n);

	if (ei->i_ext_depth == 0) {
		SIM_ASSERT(n <= EXT4_EXT_ROOT_MAX);
		put_extents(root, x, n, EXT4_EXT_ROOT_MAX);
	} else {
		struct ext4_extent_header eh = { EXT4_EXT_MAGIC, (uint16_t)ei->i_ext_nr_leaves,
						 EXT4_EXT_ROOT_MAX, 1, 0 };

		memset(root, 0, 60);
		memcpy(root, &eh, EH_SIZE);
		for (uint32_t k = 0; k < ei->i_ext_nr_leaves; k++) {
			struct ext4_extent_idx ix = { .ei_block = ei->i_ext_leaves[k].el_lblk,
						      .ei_leaf_lo = ei->i_ext_leaves[k].el_pblk };

			memcpy(root + EH_SIZE + k * EX_SIZE, &ix, EX_SIZE);
		}
	}
	free(x);
}

/* Serialize leaf @k from @x into its buffer; journal it when its bytes changed. */
static void write_leaf(struct ext4_fs *fs, handle_t *h, const struct disk_ext *x, uint32_t n,
		       uint32_t k)
{
	uint32_t bs = fs->opts.block_size, first, end, blk = fs->inode->i_ext_leaves[k].el_pblk;
	uint8_t *img = sim_zalloc(bs), *b = ext4_meta_bh(fs, blk);
	uint32_t csum;

	leaf_span(fs->inode, x, n, k, &first, &end);
	SIM_ASSERT(end - first <= leaf_max(fs));
	put_extents(img, x + first, end - first, leaf_max(fs));
	csum = ext4_extent_block_csum(fs, img);
	if (fs->lay.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		memcpy(img + EH_SIZE + EX_SIZE * leaf_max(fs), &csum, sizeof(csum));
	if (memcmp(img, b, bs) != 0) {
		memcpy(b, img, bs);
		jbd2_journal_dirty_metadata(h, blk);
	}
	free(img);
}

/* ext4_ext_new_meta_block(): one block near @goal for a new leaf (zeroed, held). */
static uint32_t new_leaf(struct ext4_fs *fs, handle_t *h, uint32_t goal, uint32_t lblk,
			 uint32_t at)
{
	struct ext4_inode_info *ei = fs->inode;
	uint32_t pblk;

	SIM_ASSERT(ei->i_ext_nr_leaves < EXT4_EXT_MAX_LEAVES);
	SIM_ASSERT(ext4_mb_new_meta_block(fs, h, goal, &pblk) == 0);    /* ext4_ext_has_room */
	ext4_meta_new(fs, pblk);
	memmove(ei->i_ext_leaves + at + 1, ei->i_ext_leaves + at,
		(ei->i_ext_nr_leaves - at) * sizeof(ei->i_ext_leaves[0]));
	ei->i_ext_leaves[at] = (struct ext4_ext_leaf){ lblk, pblk };
	ei->i_ext_nr_leaves++;
	if (fs->lay.nr_leaves_seen < EXT4_LAYOUT_MAX_LEAVES)
		fs->lay.leaves_seen[fs->lay.nr_leaves_seen++] = pblk;
	return pblk;
}

/* ext4_ext_rm_idx(): leaf @k is empty; its block is freed (revoked, reused after commit). */
static void free_leaf(struct ext4_fs *fs, handle_t *h, uint32_t k)
{
	struct ext4_inode_info *ei = fs->inode;
	uint32_t pblk = ei->i_ext_leaves[k].el_pblk;

	memmove(ei->i_ext_leaves + k, ei->i_ext_leaves + k + 1,
		(ei->i_ext_nr_leaves - k - 1) * sizeof(ei->i_ext_leaves[0]));
	ei->i_ext_nr_leaves--;
	ext4_meta_forget(fs, pblk);
	ext4_free_meta_block(fs, h, pblk);
}

/*
 * Where ext4_ext_split puts the border of overflowing leaf @k: after the
 * first extent the leaf's block does not hold yet (the one being inserted),
 * or at it when it is the leaf's last.
 */
static uint32_t split_border(const struct ext4_fs *fs, const struct disk_ext *x, uint32_t first,
			     uint32_t end, uint32_t k)
{
	const uint8_t *b = ext4_meta_peek(fs, fs->inode->i_ext_leaves[k].el_pblk);
	struct ext4_extent_header eh;
	uint32_t i;

	memcpy(&eh, b, EH_SIZE);
	for (i = first; i < end; i++) {
		struct ext4_extent ex;
		uint32_t j = i - first;

		if (j >= eh.eh_entries)
			break;
		memcpy(&ex, b + EH_SIZE + j * EX_SIZE, EX_SIZE);
		if (ex.ee_block != x[i].lblk || ex.ee_start_lo != x[i].pblk)
			break;
	}
	if (i >= end - 1)
		return end - 1;
	return i + 1;
}

/* Repack @n extents evenly over the leaves (no fifth leaf: see the header). */
static void repack(struct ext4_fs *fs, const struct disk_ext *x, uint32_t n)
{
	struct ext4_inode_info *ei = fs->inode;
	uint32_t per = (n + ei->i_ext_nr_leaves - 1) / ei->i_ext_nr_leaves;

	SIM_ASSERT(per <= leaf_max(fs));
	for (uint32_t k = 1; k < ei->i_ext_nr_leaves; k++)
		ei->i_ext_leaves[k].el_lblk = k * per < n ? x[k * per].lblk : x[n - 1].lblk + k;
}

/* Split overflowing leaves, free emptied ones, then key each leaf by its first extent. */
static void balance_leaves(struct ext4_fs *fs, handle_t *h, const struct disk_ext *x, uint32_t n)
{
	struct ext4_inode_info *ei = fs->inode;
	uint32_t first, end;

	for (uint32_t k = 0; k < ei->i_ext_nr_leaves;) {
		leaf_span(ei, x, n, k, &first, &end);
		if (end == first && ei->i_ext_nr_leaves > 1) {
			free_leaf(fs, h, k);
			continue;
		}
		if (end - first > leaf_max(fs)) {
			uint32_t at = split_border(fs, x, first, end, k);

			if (ei->i_ext_nr_leaves == EXT4_EXT_MAX_LEAVES) {
				repack(fs, x, n);
				continue;
			}
			new_leaf(fs, h, x[at].pblk, x[at].lblk, k + 1);
			continue;
		}
		k++;
	}
	for (uint32_t k = 0; k < ei->i_ext_nr_leaves; k++) {
		leaf_span(ei, x, n, k, &first, &end);
		if (end > first)
			ei->i_ext_leaves[k].el_lblk = x[first].lblk;    /* ext4_ext_correct_indexes */
	}
}

/*
 * ext4_ext_dirty(): the tree after the block map changed under @h.  The
 * root grows a level when it overflows (ext4_ext_grow_indepth), the whole
 * tree goes when no extent is left (depth 0 again, as ext4_ext_remove_space
 * leaves it), the leaves are balanced, each changed leaf journaled, and the
 * inode written when its root or block count changed.
 */
void ext4_ext_dirty(struct ext4_fs *fs, handle_t *h)
{
	struct ext4_inode_info *ei = fs->inode;
	uint32_t n;
	struct disk_ext *x = collect(fs, &n);
	uint8_t *raw = ext4_meta_bh(fs, fs->inode->i_loc_blk) + fs->inode->i_loc_off;
	uint8_t img[EXT4_INODE_MAX_SIZE];

	SIM_ASSERT(h != NULL);
	SIM_ASSERT(n <= ext4_ext_capacity(fs));
	if (ei->i_ext_depth == 0 && n > EXT4_EXT_ROOT_MAX) {
		ei->i_ext_depth = 1;
		new_leaf(fs, h, x[0].pblk, x[0].lblk, 0);
	}
	while (ei->i_ext_depth == 1 && n == 0 && ei->i_ext_nr_leaves > 0)
		free_leaf(fs, h, ei->i_ext_nr_leaves - 1);
	if (ei->i_ext_depth == 1 && n == 0)
		ei->i_ext_depth = 0;
	if (ei->i_ext_depth == 1)
		balance_leaves(fs, h, x, n);
	for (uint32_t k = 0; k < ei->i_ext_nr_leaves; k++)
		write_leaf(fs, h, x, n, k);
	free(x);
	memcpy(img, raw, fs->lay.inode_size);
	ext4_fill_raw_inode(fs, img);
	if (memcmp(img, raw, fs->lay.inode_size) != 0)
		ext4_mark_inode_dirty(fs, h);
}

/* ext4_ext_check(): a node's header against what this level may hold. */
static int check_header(const struct ext4_extent_header *eh, uint32_t max, uint32_t depth)
{
	if (eh->eh_magic != EXT4_EXT_MAGIC || eh->eh_entries > eh->eh_max || eh->eh_max > max ||
	    eh->eh_depth != depth)
		return -EUCLEAN;
	return 0;
}

/* Depth-0 entries of @node into the block map (@insert) and/or @map. */
static int parse_extents(struct ext4_fs *fs, const uint8_t *node, uint32_t cnt, bool insert,
			 struct jbd2_extent *map, uint32_t *nr_map, uint32_t cap_map,
			 uint32_t *next)
{
	for (uint32_t i = 0; i < cnt; i++) {
		struct ext4_extent ex;
		bool unwritten;
		uint32_t len;

		memcpy(&ex, node + EH_SIZE + i * EX_SIZE, EX_SIZE);
		unwritten = ex.ee_len > EXT_INIT_MAX_LEN;
		len = unwritten ? ex.ee_len - EXT_INIT_MAX_LEN : ex.ee_len;
		if (len == 0 || ex.ee_start_hi || ex.ee_block < *next ||
		    (uint64_t)ex.ee_start_lo + len > fs->lay.nr_blocks ||
		    (uint64_t)ex.ee_block + len > EXT_MAX_LBLK)
			return -EUCLEAN;
		*next = ex.ee_block + len;
		if (insert)
			es_insert(&fs->inode->i_es, ex.ee_block, len, ex.ee_start_lo,
				  unwritten ? ES_UNWRITTEN : ES_WRITTEN);
		if (map) {
			if (*nr_map == cap_map)
				return -EUCLEAN;
			map[(*nr_map)++] = (struct jbd2_extent){ ex.ee_block, ex.ee_start_lo, len };
		}
	}
	return 0;
}

/* A leaf block of the file's tree: held, its checksum checked, its extents read. */
static int load_leaf(struct ext4_fs *fs, uint32_t pblk, uint32_t *next)
{
	const uint8_t *b = ext4_meta_get(fs, pblk);
	struct ext4_extent_header eh;
	uint32_t csum;

	memcpy(&eh, b, EH_SIZE);
	memcpy(&csum, b + EH_SIZE + EX_SIZE * leaf_max(fs), sizeof(csum));
	if (check_header(&eh, leaf_max(fs), 0) < 0 || eh.eh_max != leaf_max(fs))
		return -EUCLEAN;
	if ((fs->lay.feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    csum != ext4_extent_block_csum(fs, b))
		return -EBADMSG;
	return parse_extents(fs, b, eh.eh_entries, true, NULL, NULL, 0, next);
}

/*
 * Parse the root (or a node) at @hdr holding at most @max entries: extents
 * into the block map (@insert: the file's, whose leaves are held and
 * recorded) and/or into @map; a depth-1 node's leaves are read (the
 * journal's through a scratch buffer).  Deeper trees are refused.
 */
int ext4_ext_parse_leaf(struct ext4_fs *fs, const uint8_t *hdr, uint32_t max, bool insert,
			struct jbd2_extent *map, uint32_t *nr_map, uint32_t cap_map)
{
	struct ext4_extent_header eh;
	uint32_t next = 0;
	int err = 0;

	memcpy(&eh, hdr, EH_SIZE);
	if (eh.eh_depth == 0)
		return check_header(&eh, max, 0) ? -EUCLEAN :
		       parse_extents(fs, hdr, eh.eh_entries, insert, map, nr_map, cap_map, &next);
	if (check_header(&eh, max, 1) < 0 || (insert && eh.eh_entries > EXT4_EXT_MAX_LEAVES))
		return -EUCLEAN;
	for (uint32_t i = 0; i < eh.eh_entries && err == 0; i++) {
		struct ext4_extent_idx ix;

		memcpy(&ix, hdr + EH_SIZE + i * EX_SIZE, EX_SIZE);
		if (ix.ei_leaf_hi || ix.ei_leaf_lo >= fs->lay.nr_blocks)
			return -EUCLEAN;
		if (insert) {
			fs->inode->i_ext_leaves[fs->inode->i_ext_nr_leaves++] =
				(struct ext4_ext_leaf){ ix.ei_block, ix.ei_leaf_lo };
			err = load_leaf(fs, ix.ei_leaf_lo, &next);
			continue;
		}
		uint8_t *b = sim_realloc_array(NULL, 1, fs->opts.block_size);
		struct ext4_extent_header lh;

		blkdev_read(fs->bdev, ix.ei_leaf_lo, b);
		memcpy(&lh, b, EH_SIZE);
		err = check_header(&lh, leaf_max(fs), 0) ? -EUCLEAN :
		      parse_extents(fs, b, lh.eh_entries, false, map, nr_map, cap_map, &next);
		free(b);
	}
	return err;
}

/* The file's tree from its inode's i_block (ext4_ext_check_inode, then the leaves). */
int ext4_ext_load(struct ext4_fs *fs)
{
	const uint8_t *raw = ext4_meta_bh(fs, fs->inode->i_loc_blk) + fs->inode->i_loc_off;
	struct ext4_extent_header eh;
	int err;

	memcpy(&eh, raw + offsetof(struct ext4_inode, i_block), EH_SIZE);
	fs->inode->i_ext_depth = eh.eh_depth;
	fs->inode->i_ext_nr_leaves = 0;
	err = ext4_ext_parse_leaf(fs, raw + offsetof(struct ext4_inode, i_block),
				  EXT4_EXT_ROOT_MAX, true, NULL, NULL, 0);
	if (err < 0)
		fs->s_mount_error = err == -EBADMSG ? "an extent block's checksum fails"
						    : "the file's extent tree is not one the "
						      "model reads (depth above 1, or corrupt)";
	return err;
}

bool ext4_ext_leaf_ends_at(const struct ext4_fs *fs, uint32_t start)
{
	const struct ext4_inode_info *ei = fs->inode;
	uint32_t n, first, end;
	struct disk_ext *x = collect(fs, &n);
	bool ends = false;

	for (uint32_t k = 0; ei->i_ext_depth == 1 && k + 1 < ei->i_ext_nr_leaves; k++) {
		leaf_span(ei, x, n, k, &first, &end);
		if (end > first && x[end - 1].lblk <= start &&
		    x[end - 1].lblk + x[end - 1].len == start + 1 &&
		    ei->i_ext_leaves[k + 1].el_lblk == start + 1)
			ends = true;
	}
	free(x);
	return ends;
}
