/*
 * e2ref.c - the libext2fs side of the on-disk tests (e2ref.h): e2fsprogs'
 * own readers and checksum functions over the model's device.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/types.h>
#include <et/com_err.h>
#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2fs_io.h"
#include "e2ref.h"
#include "mke2fs.h"

struct e2ref {
	ext2_filsys fs;
};

struct e2ref *e2ref_open(struct blkdev *bd, bool ignore_csum, long *err)
{
	struct e2ref *r = calloc(1, sizeof(*r));
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_RW | (ignore_csum ? EXT2_FLAG_IGNORE_CSUM_ERRORS : 0);

	assert_non_null(r);
	e2fs_io_attach(bd);
	*err = ext2fs_open("blkdev", flags, 0, 0, e2fs_io_manager, &r->fs);
	if (*err) {
		free(r);
		return NULL;
	}
	r->fs->now = E2FS_MKFS_TIME;    /* no clock in what a flush writes */
	return r;
}

struct e2ref *e2ref_open_ok(struct blkdev *bd)
{
	long err = -1;
	struct e2ref *r = e2ref_open(bd, false, &err);

	if (!r)
		fail_msg("ext2fs_open: error %ld (%s)", err, error_message(err));
	return r;
}

void e2ref_free(struct e2ref *r)
{
	ext2fs_free(r->fs);
	free(r);
}

void e2ref_close_write(struct e2ref *r)
{
	assert_int_equal(ext2fs_close_free(&r->fs), 0);
	free(r);
}

void e2ref_geom(const struct e2ref *r, struct e2ref_geom *g)
{
	struct ext2_super_block *sb = r->fs->super;

	g->blocks_count = ext2fs_blocks_count(sb);
	g->first_data_block = sb->s_first_data_block;
	g->blocks_per_group = sb->s_blocks_per_group;
	g->inodes_per_group = sb->s_inodes_per_group;
	g->inode_size = EXT2_INODE_SIZE(sb);
	g->desc_size = EXT2_DESC_SIZE(sb);
	g->groups = r->fs->group_desc_count;
	g->gdt_blocks = (uint32_t)r->fs->desc_blocks;
	g->reserved_gdt_blocks = sb->s_reserved_gdt_blocks;
	g->inode_table_blocks = r->fs->inode_blocks_per_group;
	g->feature_incompat = sb->s_feature_incompat;
	g->last_orphan = sb->s_last_orphan;
}

void e2ref_group(const struct e2ref *r, uint32_t group, struct e2ref_group *out)
{
	assert_true(group < r->fs->group_desc_count);
	out->block_bitmap = ext2fs_block_bitmap_loc(r->fs, group);
	out->inode_bitmap = ext2fs_inode_bitmap_loc(r->fs, group);
	out->inode_table = ext2fs_inode_table_loc(r->fs, group);
	out->flags = ext2fs_bg_flags(r->fs, group);
	out->checksum = ext2fs_bg_checksum(r->fs, group);
}

bool e2ref_group_super(struct e2ref *r, uint32_t group, uint64_t *sb, uint64_t *gdt)
{
	blk64_t super = 0, old_desc = 0, new_desc = 0;
	blk_t used = 0;

	assert_int_equal(ext2fs_super_and_bgd_loc2(r->fs, group, &super, &old_desc, &new_desc,
						   &used), 0);
	assert_int_equal(new_desc, 0);          /* no meta_bg */
	*sb = super;
	*gdt = old_desc;
	return ext2fs_bg_has_super(r->fs, group);
}

uint64_t e2ref_resize_dind(struct e2ref *r)
{
	struct ext2_inode in;

	assert_int_equal(ext2fs_read_inode(r->fs, EXT2_RESIZE_INO, &in), 0);
	return in.i_block[EXT2_DIND_BLOCK];
}

uint64_t e2ref_bmap(struct e2ref *r, uint32_t ino, uint64_t lblk)
{
	blk64_t pblk = 0;

	assert_int_equal(ext2fs_bmap2(r->fs, ino, NULL, NULL, 0, lblk, NULL, &pblk), 0);
	return pblk;
}

long e2ref_read_inode(struct e2ref *r, uint32_t ino, uint64_t *size, uint64_t *i_blocks)
{
	struct ext2_inode_large in;
	long err;

	memset(&in, 0, sizeof(in));
	err = ext2fs_read_inode_full(r->fs, ino, (struct ext2_inode *)&in, sizeof(in));
	*size = EXT2_I_SIZE(&in);
	*i_blocks = in.i_blocks | (uint64_t)in.osd2.linux2.l_i_blocks_hi << 32;
	return err;
}

long e2ref_read_bitmaps(struct e2ref *r)
{
	return ext2fs_read_block_bitmap(r->fs);
}

bool e2ref_block_in_use(const struct e2ref *r, uint64_t blk)
{
	assert_non_null(r->fs->block_map);
	return ext2fs_test_block_bitmap2(r->fs->block_map, blk);
}

void e2ref_set_block(struct e2ref *r, uint64_t blk, bool used)
{
	dgrp_t g = ext2fs_group_of_blk2(r->fs, blk);

	if (used)
		ext2fs_mark_block_bitmap2(r->fs->block_map, blk);
	else
		ext2fs_unmark_block_bitmap2(r->fs->block_map, blk);
	ext2fs_bg_flags_clear(r->fs, g, EXT2_BG_BLOCK_UNINIT);
	ext2fs_group_desc_csum_set(r->fs, g);
	ext2fs_mark_bb_dirty(r->fs);
	ext2fs_mark_super_dirty(r->fs);
}

bool e2ref_group_desc_csum_ok(const struct e2ref *r, uint32_t group)
{
	assert_true(group < r->fs->group_desc_count);
	return ext2fs_group_desc_csum_verify(r->fs, group);
}

/* Put @desc (the model's bytes) in libext2fs's table as group @group's. */
static void load_desc(struct e2ref *r, uint32_t group, const void *desc)
{
	assert_true(group < r->fs->group_desc_count);
	memcpy(ext2fs_group_desc(r->fs, r->fs->group_desc, group), desc, EXT2_DESC_SIZE(r->fs->super));
}

uint16_t e2ref_group_desc_csum(struct e2ref *r, uint32_t group, const void *desc)
{
	load_desc(r, group, desc);
	return ext2fs_group_desc_csum(r->fs, group);
}

bool e2ref_block_bitmap_csum_ok(struct e2ref *r, uint32_t group, const void *desc,
				const void *bitmap)
{
	load_desc(r, group, desc);
	return ext2fs_block_bitmap_csum_verify(r->fs, group, (char *)bitmap,
					       EXT2_CLUSTERS_PER_GROUP(r->fs->super) / 8);
}

bool e2ref_superblock_csum_ok(const struct e2ref *r, const void *sb)
{
	struct ext2_super_block copy;

	memcpy(&copy, sb, sizeof(copy));
	return ext2fs_superblock_csum_verify(r->fs, &copy);
}

void e2ref_superblock_csum_set(const struct e2ref *r, void *sb)
{
	struct ext2_super_block copy;

	memcpy(&copy, sb, sizeof(copy));
	assert_int_equal(ext2fs_superblock_csum_set(r->fs, &copy), 0);
	memcpy(sb, &copy, sizeof(copy));
}

bool e2ref_inode_csum_ok(const struct e2ref *r, uint32_t ino, const void *raw)
{
	uint8_t buf[4096];

	assert_true(EXT2_INODE_SIZE(r->fs->super) <= sizeof(buf));
	memcpy(buf, raw, EXT2_INODE_SIZE(r->fs->super));
	return ext2fs_inode_csum_verify(r->fs, ino, (struct ext2_inode_large *)buf);
}

bool e2ref_extent_block_csum_ok(const struct e2ref *r, uint32_t ino, const void *block)
{
	void *copy = malloc(r->fs->blocksize);
	bool ok;

	assert_non_null(copy);
	memcpy(copy, block, r->fs->blocksize);
	ok = ext2fs_extent_block_csum_verify(r->fs, ino, copy);
	free(copy);
	return ok;
}

/* One entry of the walk into @out and @t. */
static void walk_entry(ext2_extent_handle_t h, const struct ext2fs_extent *ex,
		       struct e2ref_extent *out, uint32_t cap, struct e2ref_tree *t)
{
	struct ext2_extent_info info;

	assert_int_equal(ext2fs_extent_get_info(h, &info), 0);
	t->depth = (uint32_t)info.max_depth;
	if (!(ex->e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
		if (ex->e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			return;
		assert_true(t->nr_leaves < E2REF_MAX_LEAVES);
		t->leaf_blk[t->nr_leaves++] = ex->e_pblk;
		return;
	}
	if (info.curr_level > 0)
		t->leaf_entries[t->nr_leaves - 1] = (uint32_t)info.num_entries;
	if (t->nr_extents < cap)
		out[t->nr_extents] = (struct e2ref_extent){ ex->e_lblk, ex->e_pblk, ex->e_len,
			ex->e_flags & EXT2_EXTENT_FLAGS_UNINIT };
	t->nr_extents++;
}

long e2ref_extents(struct e2ref *r, uint32_t ino, struct e2ref_extent *out, uint32_t cap,
		   struct e2ref_tree *t)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent ex;
	long err;
	int op = EXT2_EXTENT_ROOT;

	memset(t, 0, sizeof(*t));
	if ((err = ext2fs_extent_open2(r->fs, ino, NULL, &h)))
		return err;
	while ((err = ext2fs_extent_get(h, op, &ex)) == 0) {
		walk_entry(h, &ex, out, cap, t);
		op = EXT2_EXTENT_NEXT;
	}
	ext2fs_extent_free(h);
	return err == EXT2_ET_EXTENT_NO_NEXT || err == EXT2_ET_EXTENT_NO_DOWN ? 0 : err;
}

/* ---- directories ---- */

uint32_t e2ref_block_size(const struct e2ref *r)
{
	return r->fs->blocksize;
}

uint32_t e2ref_inodes_count(const struct e2ref *r)
{
	return r->fs->super->s_inodes_count;
}

uint32_t e2ref_csum_seed(const struct e2ref *r)
{
	return r->fs->csum_seed;
}

uint32_t e2ref_generation(struct e2ref *r, uint32_t ino)
{
	struct ext2_inode in;

	assert_int_equal(ext2fs_read_inode(r->fs, ino, &in), 0);
	return in.i_generation;
}

uint64_t e2ref_dir_block_read(struct e2ref *r, uint32_t ino, uint64_t lblk, void *buf)
{
	uint64_t pblk = e2ref_bmap(r, ino, lblk);

	assert_true(pblk != 0);
	assert_int_equal(io_channel_read_blk64(r->fs->io, pblk, 1, buf), 0);
	return pblk;
}

void e2ref_block_write(struct e2ref *r, uint64_t pblk, const void *buf)
{
	assert_int_equal(io_channel_write_blk64(r->fs->io, pblk, 1, buf), 0);
}

bool e2ref_dir_block_csum_ok(struct e2ref *r, uint32_t ino, const void *block)
{
	void *copy = malloc(r->fs->blocksize);
	bool ok;

	assert_non_null(copy);
	memcpy(copy, block, r->fs->blocksize);
	ok = ext2fs_dir_block_csum_verify(r->fs, ino, copy);
	free(copy);
	return ok;
}

void e2ref_dir_block_csum_set(struct e2ref *r, uint32_t ino, void *block)
{
	assert_int_equal(ext2fs_dir_block_csum_set(r->fs, ino, block), 0);
}

struct dir_walk {
	struct e2ref_dirent *out;
	uint32_t cap, n;
};

/* ext2fs_dir_iterate2's callback: one live entry into the walk. */
static int dir_walk_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset,
			  int blocksize, char *buf, void *priv)
{
	struct dir_walk *w = priv;
	int len = ext2fs_dirent_name_len(de);

	(void)dir, (void)entry, (void)blocksize, (void)buf;
	if (w->n < w->cap) {
		struct e2ref_dirent *d = &w->out[w->n];

		d->off = (uint32_t)offset;
		d->ino = de->inode;
		d->type = (uint8_t)ext2fs_dirent_file_type(de);
		d->name_len = (uint8_t)len;
		memcpy(d->name, de->name, (size_t)len);
		d->name[len] = '\0';
	}
	w->n++;
	return 0;
}

long e2ref_dir_iterate(struct e2ref *r, uint32_t ino, struct e2ref_dirent *out, uint32_t cap,
		       uint32_t *n)
{
	struct dir_walk w = { out, cap, 0 };
	long err = ext2fs_dir_iterate2(r->fs, ino, 0, NULL, dir_walk_entry, &w);

	*n = w.n;
	return err;
}

long e2ref_lookup(struct e2ref *r, uint32_t dir, const char *name, uint32_t *ino)
{
	ext2_ino_t found = 0;
	long err = ext2fs_lookup(r->fs, dir, name, (int)strlen(name), NULL, &found);

	*ino = found;
	return err == EXT2_ET_FILE_NOT_FOUND ? 1 : err;
}

long e2ref_link(struct e2ref *r, uint32_t dir, const char *name, uint32_t ino, uint8_t type)
{
	return ext2fs_link(r->fs, dir, name, ino, type);
}

long e2ref_unlink(struct e2ref *r, uint32_t dir, const char *name)
{
	return ext2fs_unlink(r->fs, dir, name, 0, 0);
}

void e2ref_new_dir_block(struct e2ref *r, uint32_t dir_ino, uint32_t parent_ino, void *buf)
{
	char *block = NULL;

	assert_int_equal(ext2fs_new_dir_block(r->fs, dir_ino, parent_ino, &block), 0);
	memcpy(buf, block, r->fs->blocksize);
	ext2fs_free_mem(&block);
}

/* ---- extended attributes (test_xattr.c) ---- */

struct xattr_collect {
	struct e2ref_xattr *out;
	uint32_t cap, n;
};

static int collect_xattr(char *name, char *value, size_t value_len, void *data)
{
	struct xattr_collect *c = data;

	if (c->n < c->cap) {
		struct e2ref_xattr *x = &c->out[c->n];

		snprintf(x->name, sizeof(x->name), "%s", name);
		x->len = (uint32_t)value_len;
		assert_true(value_len <= sizeof(x->value));
		memcpy(x->value, value, value_len);
	}
	c->n++;
	return 0;
}

long e2ref_xattrs(struct e2ref *r, uint32_t ino, struct e2ref_xattr *out, uint32_t cap,
		  uint32_t *n)
{
	struct ext2_xattr_handle *h = NULL;
	struct xattr_collect c = { out, cap, 0 };
	long err = ext2fs_xattrs_open(r->fs, ino, &h);

	*n = 0;
	if (err)
		return err;
	if ((err = ext2fs_xattrs_read(h)) == 0)
		err = ext2fs_xattrs_iterate(h, collect_xattr, &c);
	*n = c.n;
	ext2fs_xattrs_close(&h);
	return err;
}

long e2ref_xattr_get(struct e2ref *r, uint32_t ino, const char *name, void *buf, size_t cap,
		     size_t *len)
{
	struct ext2_xattr_handle *h = NULL;
	void *value = NULL;
	long err = ext2fs_xattrs_open(r->fs, ino, &h);

	*len = 0;
	if (err)
		return err;
	if ((err = ext2fs_xattrs_read(h)) == 0 &&
	    (err = ext2fs_xattr_get(h, name, &value, len)) == 0) {
		assert_true(*len <= cap);
		memcpy(buf, value, *len);
		ext2fs_free_mem(&value);
	}
	ext2fs_xattrs_close(&h);
	return err;
}

long e2ref_xattr_set(struct e2ref *r, uint32_t ino, const char *name, const void *value,
		     size_t len)
{
	struct ext2_xattr_handle *h = NULL;
	long err = ext2fs_xattrs_open(r->fs, ino, &h);

	if (err)
		return err;
	if ((err = ext2fs_xattrs_read(h)) == 0)
		err = value ? ext2fs_xattr_set(h, name, value, len) : ext2fs_xattr_remove(h, name);
	ext2fs_xattrs_close(&h);        /* writes the handle's attributes back */
	return err;
}

uint64_t e2ref_file_acl(struct e2ref *r, uint32_t ino)
{
	struct ext2_inode in;

	assert_int_equal(ext2fs_read_inode(r->fs, ino, &in), 0);
	return ext2fs_file_acl_block(r->fs, &in);
}

long e2ref_xattr_block_read(struct e2ref *r, uint64_t blk, void *buf)
{
	return ext2fs_read_ext_attr3(r->fs, blk, buf, 0);
}
