/*
 * test_ondisk.c - the blocks the model writes are ext4's on-disk format as
 * e2fsprogs reads it (tests/unit/ext4/e2ref.h: libext2fs over the model's
 * device).
 *
 * Checksums: every group descriptor's, every block bitmap's, the
 * superblock's, the file's inode's and every extent block's, as the model
 * holds them in its buffers after a workload that grows the extent tree,
 * equal what libext2fs computes over the same bytes (and a changed byte
 * changes them); after a clean unmount libext2fs opens the image, reads its
 * bitmaps, the inode and the whole extent tree with every checksum
 * verified, and finds the model's extents and sizes.
 * The extent tree (1 KiB blocks, 84 extents a leaf): four extents stay in
 * i_block, a fifth grows the tree to depth 1; the 85th, appended to a full
 * leaf, starts a new leaf holding it alone; one inserted inside a full leaf
 * moves the extents after it to a new leaf (ext4_ext_split's border); a
 * punch that empties a leaf frees its block, revoked in the running
 * transaction and allocatable only after the commit; truncate to 0 leaves
 * depth 0, no leaf and no block.
 * The superblock's state: needs_recovery set on the device while mounted,
 * cleared by a clean unmount, left by a crash; a tree recovered from the
 * log reads back through libext2fs; an orphan left by a crash is truncated
 * at mount and the list (s_last_orphan) is empty again.
 * Mount refuses, naming the reason: a feature the model does not handle
 * (inline_data, orphan_file, bigalloc: set in a superblock whose checksum
 * libext2fs recomputed), a superblock whose checksum fails, a group
 * descriptor whose checksum fails; the same image unchanged mounts.  A
 * block bitmap whose checksum fails mounts, its group left out of the
 * allocator.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../fixture.h"
#include "bitmap.h"
#include "blkdev.h"
#include "e2ref.h"
#include "ext4.h"

#define DISK_BLOCKS 16384u
#define MAX_EXT 400u

/* One block of @fill at file block @lblk, through the page cache. */
static void write_block(struct fx_world *w, uint32_t lblk, uint8_t fill)
{
	int64_t bs = w->o.block_size, done = -1;

	assert_int_equal(ext4_file_write(&w->fs, lblk * bs, bs, fill, bs, &done), 0);
	assert_int_equal(done, bs);
}

static void fsync_ok(struct fx_world *w)
{
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	fx_world_check(w);
}

/* Blocks 0, 2, 4, ... below 2 * @n, one extent each, made durable by fsync. */
static void write_every_other(struct fx_world *w, uint32_t from, uint32_t n)
{
	for (uint32_t i = from; i < n; i++)
		write_block(w, 2 * i, (uint8_t)(0x40 + i % 64));
	fsync_ok(w);
}

/* ---- checksums ---- */

/* The model's group descriptors and block bitmaps against libext2fs's checksums. */
static void check_group_csums(struct fx_world *w, struct e2ref *r)
{
	for (uint32_t g = 0; g < w->fs.lay.groups_count; g++) {
		struct ext4_group_desc gd;
		const uint8_t *bm;

		ext4_get_group_desc(&w->fs, g, &gd);
		assert_int_equal(gd.bg_checksum, e2ref_group_desc_csum(r, g, &gd));
		bm = ext4_meta_peek(&w->fs, ext4_block_bitmap(&w->fs, g));
		if (!(gd.bg_flags & EXT4_BG_BLOCK_UNINIT)) {
			assert_non_null(bm);
			assert_true(e2ref_block_bitmap_csum_ok(r, g, &gd, bm));
		}
		gd.bg_free_blocks_count_lo ^= 1;       /* a changed byte: another checksum */
		assert_int_not_equal(gd.bg_checksum, e2ref_group_desc_csum(r, g, &gd));
	}
}

/* The superblock, the inode and the extent blocks in the model's buffers. */
static void check_meta_csums(struct fx_world *w, struct e2ref *r)
{
	const struct ext4_layout *lay = &w->fs.lay;
	uint8_t sb[1024], ino[EXT4_INODE_MAX_SIZE], *leaf = malloc(lay->block_size);

	assert_non_null(leaf);
	memcpy(sb, ext4_meta_peek(&w->fs, lay->sb_blk) + lay->sb_off, sizeof(sb));
	assert_true(e2ref_superblock_csum_ok(r, sb));
	sb[offsetof(struct ext4_super_block, s_volume_name)] ^= 1;
	assert_false(e2ref_superblock_csum_ok(r, sb));
	memcpy(ino, ext4_meta_peek(&w->fs, lay->inode_blk) + lay->inode_off, lay->inode_size);
	assert_true(e2ref_inode_csum_ok(r, EXT4_FILE_INO, ino));
	ino[offsetof(struct ext4_inode, i_size_lo)] ^= 1;
	assert_false(e2ref_inode_csum_ok(r, EXT4_FILE_INO, ino));
	for (uint32_t k = 0; k < w->fs.inode->i_ext_nr_leaves; k++) {
		memcpy(leaf, ext4_meta_peek(&w->fs, w->fs.inode->i_ext_leaves[k].el_pblk),
		       lay->block_size);
		assert_true(e2ref_extent_block_csum_ok(r, EXT4_FILE_INO, leaf));
		leaf[sizeof(struct ext4_extent_header) + 1] ^= 1;
		assert_false(e2ref_extent_block_csum_ok(r, EXT4_FILE_INO, leaf));
	}
	free(leaf);
}

/* The model's written and unwritten extents, in lblk order, into @x. */
static uint32_t model_extents(const struct ext4_fs *fs, struct e2ref_extent *x)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < fs->inode->i_es.es_nr; i++) {
		const struct extent_status *e = &fs->inode->i_es.es[i];

		if (e->es_state == ES_DELAYED)
			continue;
		assert_true(n < MAX_EXT);
		x[n++] = (struct e2ref_extent){ e->es_lblk, e->es_pblk, e->es_len,
						e->es_state == ES_UNWRITTEN };
	}
	return n;
}

/*
 * Unmount cleanly, then libext2fs reads the image with every checksum
 * verified: descriptors, bitmaps, the inode (size and i_blocks) and the
 * tree, whose extents and leaves must be the model's; mounted again.
 * Returns the tree's shape.
 */
static struct e2ref_tree unmount_and_read(struct fx_world *w)
{
	static struct e2ref_extent want[MAX_EXT], got[MAX_EXT];
	uint32_t n = model_extents(&w->fs, want), bs = w->o.block_size, nr_leaves;
	uint64_t size = 0, i_blocks = 0, blocks = w->fs.inode->i_ext_nr_leaves;
	int64_t i_size = w->fs.inode->i_size;
	uint32_t leaves[EXT4_EXT_MAX_LEAVES];
	struct e2ref_tree t;
	struct e2ref *r;

	nr_leaves = w->fs.inode->i_ext_nr_leaves;
	for (uint32_t k = 0; k < nr_leaves; k++)
		leaves[k] = w->fs.inode->i_ext_leaves[k].el_pblk;
	for (uint32_t i = 0; i < n; i++)
		blocks += want[i].len;
	fx_world_unmount(w);
	r = e2ref_open_ok(w->bd);
	for (uint32_t g = 0; g < w->fs.lay.groups_count; g++)
		assert_true(e2ref_group_desc_csum_ok(r, g));
	assert_int_equal(e2ref_read_bitmaps(r), 0);
	assert_int_equal(e2ref_read_inode(r, EXT4_FILE_INO, &size, &i_blocks), 0);
	assert_int_equal(size, i_size);
	assert_int_equal(i_blocks, blocks * (bs / 512));
	assert_int_equal(e2ref_extents(r, EXT4_FILE_INO, got, MAX_EXT, &t), 0);
	assert_int_equal(t.nr_extents, n);
	assert_memory_equal(got, want, n * sizeof(want[0]));
	assert_int_equal(t.nr_leaves, nr_leaves);
	for (uint32_t k = 0; k < nr_leaves; k++) {
		assert_int_equal(t.leaf_blk[k], leaves[k]);
		assert_true(e2ref_block_in_use(r, leaves[k]));
	}
	e2ref_free(r);
	fx_world_mount(w);
	return t;
}

/*
 * Every checksum of what the model holds after a tree of two leaves grew,
 * at 1, 2 and 4 KiB, equals libext2fs's; the unmounted image reads back.
 */
static void test_ondisk__checksums_equal_libext2fs(void **state)
{
	static const uint32_t bss[] = { 1024, 2048, 4096 };

	(void)state;
	for (unsigned s = 0; s < sizeof(bss) / sizeof(bss[0]); s++) {
		struct ext4_mount_opts o = fx_opts(bss[s], DATA_ORDERED, true, DISK_BLOCKS);
		struct fx_world *w = fx_world_new(&o);
		struct e2ref *r = e2ref_open_ok(w->bd);
		struct e2ref_tree t;

		write_every_other(w, 0, w->fs.lay.extents_per_block + 1);
		assert_int_equal(w->fs.inode->i_ext_nr_leaves, 2);
		check_group_csums(w, r);
		check_meta_csums(w, r);
		e2ref_free(r);
		t = unmount_and_read(w);
		assert_int_equal(t.depth, 1);
		assert_int_equal(t.leaf_entries[0], w->fs.lay.extents_per_block);
		assert_int_equal(t.leaf_entries[1], 1);
		fx_world_free(w);
	}
}

/* ---- the extent tree ---- */

/* Is @blk in the running transaction's revoke table? */
static bool revoked_now(const struct ext4_fs *fs, uint32_t blk)
{
	const transaction_t *t = fs->journal.j_running_transaction;

	for (uint32_t i = 0; t && i < t->t_nr_revoke; i++)
		if (t->t_revoke[i] == blk)
			return true;
	return false;
}

/* 4 extents in i_block; the 5th grows depth 1; the 85th starts a leaf of its own. */
static void grow_to_two_leaves(struct fx_world *w, struct e2ref_tree *t)
{
	assert_int_equal(w->fs.lay.extents_per_block, 84);
	write_every_other(w, 0, EXT4_EXT_ROOT_MAX);
	assert_int_equal(w->fs.inode->i_ext_depth, 0);
	assert_int_equal(w->fs.inode->i_ext_nr_leaves, 0);
	*t = unmount_and_read(w);
	assert_int_equal(t->depth, 0);
	write_every_other(w, EXT4_EXT_ROOT_MAX, 5);
	assert_int_equal(w->fs.inode->i_ext_depth, 1);
	assert_int_equal(w->fs.inode->i_ext_nr_leaves, 1);
	*t = unmount_and_read(w);
	assert_int_equal(t->depth, 1);
	assert_int_equal(t->leaf_entries[0], 5);
	write_every_other(w, 5, 84);
	assert_int_equal(w->fs.inode->i_ext_nr_leaves, 1);
	write_every_other(w, 84, 85);           /* appended to a full leaf */
	assert_int_equal(w->fs.inode->i_ext_nr_leaves, 2);
	assert_int_equal(w->fs.inode->i_ext_leaves[1].el_lblk, 2 * 84);
	*t = unmount_and_read(w);
	assert_int_equal(t->leaf_entries[0], 84);
	assert_int_equal(t->leaf_entries[1], 1);
}

/*
 * The growth, the two kinds of split, a leaf emptied by a punch and a
 * truncate to 0, each read back through libext2fs.
 */
static void test_ondisk__extent_tree_grows_splits_and_shrinks(void **state)
{
	struct ext4_mount_opts o = fx_opts(1024, DATA_ORDERED, true, DISK_BLOCKS);
	struct fx_world *w = fx_world_new(&o);
	uint32_t last_leaf, leaves[EXT4_EXT_MAX_LEAVES];
	struct e2ref_tree t;

	(void)state;
	grow_to_two_leaves(w, &t);
	/* unwritten block 21 inside the full first leaf: extents 22.. move on */
	assert_int_equal(ext4_fallocate(&w->fs, 0, 21 * 1024, 1024), 0);
	fsync_ok(w);
	assert_int_equal(w->fs.inode->i_ext_nr_leaves, 3);
	assert_int_equal(w->fs.inode->i_ext_leaves[1].el_lblk, 22);
	t = unmount_and_read(w);
	assert_int_equal(t.leaf_entries[0], 12);        /* 0, 2, ..., 20 and 21 */
	assert_int_equal(t.leaf_entries[1], 73);        /* 22, ..., 166 */
	assert_int_equal(t.leaf_entries[2], 1);         /* 168 */
	/* punch 168: its leaf is empty, freed and revoked; reusable after the commit */
	last_leaf = w->fs.inode->i_ext_leaves[2].el_pblk;
	assert_int_equal(ext4_fallocate(&w->fs, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					168 * 1024, 1024), 0);
	fx_world_check(w);
	assert_int_equal(w->fs.inode->i_ext_nr_leaves, 2);
	assert_false(ext4_ext_is_leaf(&w->fs, last_leaf));
	assert_false(ext4_bitmap_bit(&w->fs, last_leaf));
	assert_true(revoked_now(&w->fs, last_leaf));
	assert_false(bitmap_contains(w->fs.free_map, last_leaf));
	fsync_ok(w);
	assert_true(bitmap_contains(w->fs.free_map, last_leaf));
	t = unmount_and_read(w);
	assert_int_equal(t.nr_leaves, 2);
	assert_int_equal(t.nr_extents, 85);
	/* truncate to 0: depth 0 again, no leaf, every block free */
	leaves[0] = w->fs.inode->i_ext_leaves[0].el_pblk;
	leaves[1] = w->fs.inode->i_ext_leaves[1].el_pblk;
	assert_int_equal(ext4_setattr_size(&w->fs, 0), 0);
	fsync_ok(w);
	assert_int_equal(w->fs.inode->i_ext_depth, 0);
	assert_int_equal(w->fs.inode->i_ext_nr_leaves, 0);
	assert_false(ext4_bitmap_bit(&w->fs, leaves[0]) || ext4_bitmap_bit(&w->fs, leaves[1]));
	t = unmount_and_read(w);
	assert_int_equal(t.depth, 0);
	assert_int_equal(t.nr_extents, 0);
	fx_world_free(w);
}

/*
 * The extent the pre-14d981f468a1 right shift forgot (ext4_ext_leaf_ends_at):
 * the one-block extent at the start when it ends its leaf and the next leaf
 * starts right after it; not when it is longer, not last, a hole, or the
 * tree has one level.
 */
static void test_ondisk__leaf_ends_at(void **state)
{
	struct ext4_mount_opts o = fx_opts(1024, DATA_ORDERED, true, DISK_BLOCKS);
	struct fx_world *w = fx_world_new(&o);
	struct ext4_inode_info *ei = w->fs.inode;

	(void)state;
	es_insert(&ei->i_es, 0, 1, 3000, ES_WRITTEN);
	es_insert(&ei->i_es, 2, 1, 3002, ES_WRITTEN);
	es_insert(&ei->i_es, 4, 1, 3004, ES_WRITTEN);   /* last of leaf 0 */
	es_insert(&ei->i_es, 5, 1, 3100, ES_UNWRITTEN); /* first of leaf 1 */
	es_insert(&ei->i_es, 7, 2, 3200, ES_WRITTEN);
	assert_false(ext4_ext_leaf_ends_at(&w->fs, 4));         /* depth 0 */
	ei->i_ext_depth = 1;
	ei->i_ext_nr_leaves = 2;
	ei->i_ext_leaves[0] = (struct ext4_ext_leaf){ 0, 3500 };
	ei->i_ext_leaves[1] = (struct ext4_ext_leaf){ 5, 3501 };
	assert_true(ext4_ext_leaf_ends_at(&w->fs, 4));
	assert_false(ext4_ext_leaf_ends_at(&w->fs, 2));         /* not last */
	assert_false(ext4_ext_leaf_ends_at(&w->fs, 3));         /* a hole */
	assert_false(ext4_ext_leaf_ends_at(&w->fs, 7));         /* no next leaf */
	ei->i_ext_leaves[1].el_lblk = 7;                        /* leaf 1 starts at 7: 0-5 in leaf 0 */
	assert_false(ext4_ext_leaf_ends_at(&w->fs, 4));         /* not last */
	assert_false(ext4_ext_leaf_ends_at(&w->fs, 5));         /* the next leaf is not right after */
	ei->i_ext_leaves[1].el_lblk = 6;
	assert_true(ext4_ext_leaf_ends_at(&w->fs, 5));
	es_insert(&ei->i_es, 6, 1, 3101, ES_UNWRITTEN);         /* 5-6: two blocks */
	assert_false(ext4_ext_leaf_ends_at(&w->fs, 5));
	ei->i_ext_depth = 0;                                    /* as the world was */
	ei->i_ext_nr_leaves = 0;
	es_remove(&ei->i_es, 0, 9, NULL, 0, NULL);
	fx_world_free(w);
}

/* ---- the superblock's state, recovery and the orphan list ---- */

/* The superblock as the device durably holds it, through libext2fs. */
static void durable_super(struct fx_world *w, struct e2ref_geom *g)
{
	struct e2ref *r = e2ref_open_ok(w->bd);

	e2ref_geom(r, g);
	e2ref_free(r);
}

/*
 * needs_recovery is set on the device while the file system is mounted
 * (ext4_setup_super) and cleared by a clean unmount; a crash leaves it set.
 */
static void test_ondisk__needs_recovery_while_mounted(void **state)
{
	struct ext4_mount_opts o = fx_opts(4096, DATA_ORDERED, true, DISK_BLOCKS);
	struct fx_world *w = fx_world_format(&o);
	struct e2ref_geom g;

	(void)state;
	durable_super(w, &g);
	assert_false(g.feature_incompat & EXT4_FEATURE_INCOMPAT_RECOVER);      /* mke2fs's */
	fx_world_mount(w);
	durable_super(w, &g);
	assert_true(g.feature_incompat & EXT4_FEATURE_INCOMPAT_RECOVER);
	fx_world_unmount(w);
	durable_super(w, &g);
	assert_false(g.feature_incompat & EXT4_FEATURE_INCOMPAT_RECOVER);
	fx_world_mount(w);
	write_every_other(w, 0, 3);
	fx_world_crash(w);
	durable_super(w, &g);
	assert_true(g.feature_incompat & EXT4_FEATURE_INCOMPAT_RECOVER);
	fx_world_mount(w);
	fx_world_free(w);
}

/*
 * A tree of two leaves committed by fsync and lost from memory by a crash:
 * recovery writes the logged blocks home, and libext2fs reads the image
 * (every checksum verified) with the extents the model had before the crash.
 */
static void test_ondisk__recovered_tree_reads_back(void **state)
{
	static struct e2ref_extent before[MAX_EXT], after[MAX_EXT];
	struct ext4_mount_opts o = fx_opts(1024, DATA_ORDERED, true, DISK_BLOCKS);
	struct fx_world *w = fx_world_new(&o);
	uint32_t n;

	(void)state;
	write_every_other(w, 0, 85);
	n = model_extents(&w->fs, before);
	assert_int_equal(n, 85);
	fx_world_crash(w);
	fx_world_mount(w);
	assert_true(w->ri.nr_replayed > 0);     /* the homes were stale: the log had them */
	assert_int_equal(model_extents(&w->fs, after), n);
	assert_memory_equal(after, before, n * sizeof(before[0]));
	assert_int_equal(unmount_and_read(w).nr_leaves, 2);
	fx_world_free(w);
}

/*
 * The orphan list: an inode added (s_last_orphan = 12, committed) and lost
 * in a crash is truncated at the next mount to its size, the blocks a
 * KEEP_SIZE fallocate put past EOF freed, and the list is empty again, as
 * libext2fs reads the image.
 */
static void test_ondisk__orphan_cleanup_at_mount(void **state)
{
	struct ext4_mount_opts o = fx_opts(1024, DATA_ORDERED, true, DISK_BLOCKS);
	struct fx_world *w = fx_world_new(&o);
	struct e2ref_geom g;
	struct e2ref_tree t;
	handle_t *h;

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		write_block(w, i, 0x61);
	assert_int_equal(ext4_fallocate(&w->fs, FALLOC_FL_KEEP_SIZE, 3 * 1024, 10 * 1024), 0);
	fsync_ok(w);
	{
		static struct e2ref_extent x[MAX_EXT];

		assert_int_equal(model_extents(&w->fs, x), 2);  /* written 0-2, unwritten 3-12 */
	}
	h = ext4_journal_start(&w->fs, "ext4_truncate", HT_TRUNCATE, 8);
	assert_non_null(h);
	assert_int_equal(ext4_orphan_add(&w->fs, h), 0);
	assert_int_equal(ext4_journal_stop(&w->fs, "ext4_truncate", h), 0);
	jbd2_journal_commit_transaction(&w->fs.journal);
	fx_world_crash(w);
	fx_world_mount(w);                      /* recovery, then ext4_orphan_cleanup */
	assert_false(w->fs.inode->i_orphan);
	t = unmount_and_read(w);
	assert_int_equal(t.nr_extents, 1);      /* blocks 0-2 only */
	assert_int_equal(w->fs.inode->i_size, 3 * 1024);
	durable_super(w, &g);
	assert_int_equal(g.last_orphan, 0);
	fx_world_free(w);
}

/* ---- what mount refuses ---- */

/* Mount @w's device: it must fail, with a reason that contains @reason. */
static void mount_refused(struct fx_world *w, const char *reason)
{
	int err = ext4_fill_super(&w->fs, w->bd, &w->o, &w->sem, &w->c, &w->ri);
	const char *why = ext4_mount_error(&w->fs);

	assert_int_not_equal(err, 0);
	if (!why || !strstr(why, reason))
		fail_msg("mount refused with \"%s\", want \"%s\" in it", why ? why : "(none)",
			 reason);
	ext4_free_fs(&w->fs);                   /* what the failed mount had loaded */
}

/* The superblock's block, read and written whole on the device. */
static void sb_io(struct fx_world *w, uint8_t *blk, bool write)
{
	uint32_t sb_blk = EXT4_SB_OFFSET / w->o.block_size;

	if (write)
		blkdev_write_durable(w->bd, sb_blk, blk);
	else
		blkdev_read(w->bd, sb_blk, blk);
}

/* Set feature @mask in word @word (0 compat, 1 incompat, 2 ro_compat), checksum by libext2fs. */
static void set_feature(struct fx_world *w, struct e2ref *r, int word, uint32_t mask)
{
	uint8_t *blk = malloc(w->o.block_size);
	struct ext4_super_block es;
	uint32_t off = EXT4_SB_OFFSET % w->o.block_size;

	assert_non_null(blk);
	sb_io(w, blk, false);
	memcpy(&es, blk + off, sizeof(es));
	if (word == 0)
		es.s_feature_compat |= mask;
	else if (word == 1)
		es.s_feature_incompat |= mask;
	else
		es.s_feature_ro_compat |= mask;
	e2ref_superblock_csum_set(r, &es);
	assert_true(e2ref_superblock_csum_ok(r, &es));
	memcpy(blk + off, &es, sizeof(es));
	sb_io(w, blk, true);
	free(blk);
}

/*
 * A feature the model does not handle is refused by name, from a
 * superblock whose checksum is right; the untouched image mounts.
 */
static void test_ondisk__mount_refuses_unhandled_features(void **state)
{
	static const struct { int word; uint32_t mask; const char *name; } feats[] = {
		{ 1, EXT4_FEATURE_INCOMPAT_INLINE_DATA, "inline_data" },
		{ 0, EXT4_FEATURE_COMPAT_ORPHAN_FILE, "orphan_file" },
		{ 2, EXT4_FEATURE_RO_COMPAT_BIGALLOC, "bigalloc" },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		struct ext4_mount_opts o = fx_opts(1024u << i, DATA_ORDERED, true, DISK_BLOCKS);
		struct fx_world *w = fx_world_format(&o);
		uint8_t *orig = malloc(o.block_size);
		struct e2ref *r = e2ref_open_ok(w->bd);

		assert_non_null(orig);
		sb_io(w, orig, false);
		set_feature(w, r, feats[i].word, feats[i].mask);
		e2ref_free(r);
		mount_refused(w, feats[i].name);
		sb_io(w, orig, true);
		fx_world_mount(w);
		free(orig);
		fx_world_free(w);
	}
}

/*
 * A superblock whose checksum fails, and a group descriptor whose checksum
 * fails, are refused (as libext2fs refuses to open them); the image before
 * the change mounts.
 */
static void test_ondisk__mount_refuses_bad_checksums(void **state)
{
	struct ext4_mount_opts o = fx_opts(4096, DATA_ORDERED, true, DISK_BLOCKS);
	struct fx_world *w = fx_world_format(&o);
	uint8_t *orig = malloc(o.block_size), *b = malloc(o.block_size);
	uint32_t off = EXT4_SB_OFFSET % o.block_size, gdt = EXT4_SB_OFFSET / o.block_size + 1;
	long err = 0;

	(void)state;
	assert_non_null(orig);
	assert_non_null(b);
	sb_io(w, orig, false);
	memcpy(b, orig, o.block_size);
	b[off + offsetof(struct ext4_super_block, s_volume_name)] ^= 0x20;
	sb_io(w, b, true);
	assert_null(e2ref_open(w->bd, false, &err));
	assert_int_not_equal(err, 0);
	mount_refused(w, "superblock's checksum");
	sb_io(w, orig, true);
	blkdev_read(w->bd, gdt, orig);          /* group 0's descriptor, first in the table */
	memcpy(b, orig, o.block_size);
	b[offsetof(struct ext4_group_desc, bg_free_inodes_count_lo)] ^= 1;
	blkdev_write_durable(w->bd, gdt, b);
	mount_refused(w, "descriptor's checksum");
	blkdev_write_durable(w->bd, gdt, orig);
	fx_world_mount(w);
	free(orig);
	free(b);
	fx_world_free(w);
}

/*
 * A block bitmap whose checksum fails does not stop the mount: its group
 * gives the allocator nothing (ext4_read_block_bitmap's
 * EXT4_GROUP_INFO_BBITMAP_CORRUPT), the other groups' free blocks stay.
 */
static void test_ondisk__corrupt_block_bitmap_leaves_its_group_out(void **state)
{
	struct ext4_mount_opts o = fx_opts(1024, DATA_ORDERED, true, DISK_BLOCKS);
	struct fx_world *w = fx_world_new(&o);
	uint32_t bb = ext4_block_bitmap(&w->fs, 1), first = ext4_group_first_block_no(&w->fs.lay, 1);
	uint32_t end = first + ext4_group_nr_blocks(&w->fs.lay, 1);
	uint64_t free0 = w->fs.s_freeclusters, free1;
	struct ext4_group_desc gd;
	uint8_t *b = malloc(o.block_size);
	uint32_t pblk = 0;

	(void)state;
	assert_non_null(b);
	assert_int_equal(w->fs.lay.groups_count, 2);
	ext4_get_group_desc(&w->fs, 1, &gd);
	assert_false(gd.bg_flags & EXT4_BG_BLOCK_UNINIT);      /* read from the device */
	free1 = bitmap_range_cardinality(w->fs.free_map, first, end);
	assert_true(free1 > 0 && free1 < free0);
	fx_world_unmount(w);
	blkdev_read(w->bd, bb, b);
	b[o.block_size - 1] ^= 0x80;            /* a bit past the group's last block */
	blkdev_write_durable(w->bd, bb, b);
	fx_world_mount(w);
	assert_int_equal(bitmap_range_cardinality(w->fs.free_map, first, end), 0);
	assert_int_equal(w->fs.s_freeclusters, free0 - free1);
	assert_true(bitmap_next_set(w->fs.free_map, w->fs.lay.data_start, &pblk));
	assert_true(pblk < first);
	free(b);
	fx_world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_ondisk__checksums_equal_libext2fs, fx_world_leftover),
		cmocka_unit_test_teardown(test_ondisk__extent_tree_grows_splits_and_shrinks,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_ondisk__leaf_ends_at, fx_world_leftover),
		cmocka_unit_test_teardown(test_ondisk__needs_recovery_while_mounted,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_ondisk__recovered_tree_reads_back, fx_world_leftover),
		cmocka_unit_test_teardown(test_ondisk__orphan_cleanup_at_mount, fx_world_leftover),
		cmocka_unit_test_teardown(test_ondisk__mount_refuses_unhandled_features,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_ondisk__mount_refuses_bad_checksums,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_ondisk__corrupt_block_bitmap_leaves_its_group_out,
					  fx_world_leftover),
	};

	return cmocka_run_group_tests_name("ondisk", tests, NULL, NULL);
}
