/*
 * test_super.c - mount reads the file system mke2fs made as e2fsprogs reads
 * it, and the word- and byte-at-a-time paths of mount and the metadata hash
 * give what the bit- and byte-at-a-time definitions give.
 *
 * The geometry mount takes from the superblock and the group descriptors
 * (groups, every group's block bitmap, inode bitmap and inode table, the
 * file's inode-table block, the journal inode's block map) is compared with
 * what libext2fs, the library dumpe2fs prints from, reads from the same
 * image, for block sizes 1, 2 and 4 KiB and device sizes that end a group
 * early, inside a byte and inside a word; mke2fs's block bitmap is
 * compared bit by bit with "every block the layout names used, every other
 * block free", and every block's role (ext4_block_role) with what
 * libext2fs says it is.  Mount's free-space map
 * is compared block by block with a bitmap of random runs libext2fs writes
 * (long runs of each value, single bits, and both at once, with the groups'
 * checksums), and its free count with the bitmap's zero bits.
 * chk_device_meta_hash() is compared with FNV-1a byte by byte over the
 * journaled metadata blocks as a reader sees them (the superblock without
 * the fields mount rewrites), with zero stretches of every length and
 * position.  The default mount's dioread_nolock follows the profile
 * (ext4_set_def_opts).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "blkdev.h"
#include "checker.h"
#include "ext4.h"
#include "ext4/e2ref.h"
#include "fixture.h"
#include "prng.h"
#include "profile.h"

/* The superblock and the groups' tables as mount read them, against libext2fs's. */
static void check_groups(const struct ext4_fs *fs, struct e2ref *r)
{
	const struct ext4_layout *lay = &fs->lay;
	uint32_t ino = EXT4_FILE_INO - 1, byte;
	struct e2ref_group it;
	struct e2ref_geom g;

	e2ref_geom(r, &g);
	assert_int_equal(lay->nr_blocks, g.blocks_count);
	assert_int_equal(lay->first_data_block, g.first_data_block);
	assert_int_equal(lay->blocks_per_group, g.blocks_per_group);
	assert_int_equal(lay->inodes_per_group, g.inodes_per_group);
	assert_int_equal(lay->inode_size, g.inode_size);
	assert_int_equal(lay->desc_size, g.desc_size);
	assert_int_equal(lay->groups_count, g.groups);
	for (uint32_t k = 0; k < g.groups; k++) {
		struct ext4_group_desc gd;
		struct e2ref_group eg;

		ext4_get_group_desc(fs, k, &gd);
		e2ref_group(r, k, &eg);
		assert_int_equal(ext4_block_bitmap(fs, k), eg.block_bitmap);
		assert_int_equal(gd.bg_inode_bitmap_lo, eg.inode_bitmap);
		assert_int_equal(gd.bg_inode_table_lo, eg.inode_table);
		assert_int_equal(gd.bg_checksum, eg.checksum);
	}
	byte = (ino % g.inodes_per_group) * g.inode_size;       /* inode 12 in its group's table */
	e2ref_group(r, ino / g.inodes_per_group, &it);
	assert_int_equal(lay->inode_blk, it.inode_table + byte / lay->block_size);
	assert_int_equal(lay->inode_off, byte % lay->block_size);
}

/* The journal inode's blocks as mount mapped them, block by block. */
static void check_journal_map(const struct ext4_fs *fs, struct e2ref *r)
{
	const struct ext4_layout *lay = &fs->lay;
	uint64_t size = 0, i_blocks = 0;
	uint32_t lblk = 0;

	assert_int_equal(e2ref_read_inode(r, EXT4_JOURNAL_INO, &size, &i_blocks), 0);
	assert_int_equal(lay->journal_blocks, size / lay->block_size);
	for (uint32_t i = 0; i < lay->nr_jmap; i++) {
		assert_int_equal(lay->jmap[i].je_lblk, lblk);
		for (uint32_t k = 0; k < lay->jmap[i].je_len; k++, lblk++)
			if (e2ref_bmap(r, EXT4_JOURNAL_INO, lblk) != lay->jmap[i].je_pblk + k)
				fail_msg("journal block %u: model %u, libext2fs %llu", lblk,
					 lay->jmap[i].je_pblk + k,
					 (unsigned long long)e2ref_bmap(r, EXT4_JOURNAL_INO, lblk));
	}
	assert_int_equal(lblk, lay->journal_blocks);
}

/*
 * mke2fs's bitmap, bit by bit: used exactly where the layout names a block
 * (ext4_is_data_block false), as libext2fs reads it; each block has a role;
 * the last group's bits past the device are set (ext4_mark_bitmap_end).
 */
static void check_bitmap(const struct ext4_fs *fs, struct e2ref *r)
{
	const struct ext4_layout *lay = &fs->lay;
	uint32_t last = lay->groups_count - 1, bits = lay->block_size * 8;
	const uint8_t *b = ext4_meta_peek(fs, ext4_block_bitmap(fs, last));

	assert_int_equal(e2ref_read_bitmaps(r), 0);
	for (uint32_t blk = 0; blk < lay->nr_blocks; blk++) {
		if (!ext4_block_role(lay, blk))
			fail_msg("%u blocks of %u: block %u has no role", lay->nr_blocks,
				 lay->block_size, blk);
		if (blk < lay->first_data_block)
			continue;
		if (ext4_bitmap_bit(fs, blk) != e2ref_block_in_use(r, blk) ||
		    ext4_bitmap_bit(fs, blk) == ext4_is_data_block(fs, blk))
			fail_msg("%u blocks of %u: block %u (%s): bit %d, libext2fs %d",
				 lay->nr_blocks, lay->block_size, blk, ext4_block_role(lay, blk),
				 ext4_bitmap_bit(fs, blk), e2ref_block_in_use(r, blk));
	}
	assert_non_null(b);
	for (uint32_t i = ext4_group_nr_blocks(lay, last); i < bits; i++)
		assert_true(b[i / 8] & (1u << (i % 8)));
}

/* Name [@start, @start + @len) @role in @want (every block of it inside the device). */
static void name_range(const char **want, uint64_t nr, uint64_t start, uint64_t len,
		       const char *role)
{
	assert_true(start + len <= nr);
	for (uint64_t b = start; b < start + len; b++)
		want[b] = role;
}

/* The blocks of inode @ino (a directory or the journal), named @role. */
static void name_inode(const char **want, uint64_t nr, struct e2ref *r, uint32_t ino,
		       uint32_t bs, const char *role)
{
	uint64_t size = 0, i_blocks = 0;

	assert_int_equal(e2ref_read_inode(r, ino, &size, &i_blocks), 0);
	for (uint64_t l = 0; l < size / bs; l++)
		name_range(want, nr, e2ref_bmap(r, ino, l), 1, role);
}

/*
 * The role ext4_block_role() gives every block is what libext2fs says the
 * block is: each group's superblock copy, descriptor table and reserved GDT
 * blocks, bitmaps and inode table, the journal's, the root directory's and
 * lost+found's blocks, the resize inode's block, and data for the rest.
 */
static void check_roles(const struct ext4_fs *fs, struct e2ref *r)
{
	const struct ext4_layout *lay = &fs->lay;
	const char **want = calloc(lay->nr_blocks, sizeof(*want));
	struct e2ref_geom g;

	assert_non_null(want);
	e2ref_geom(r, &g);
	for (uint32_t b = 0; b < lay->nr_blocks; b++)
		want[b] = b < g.first_data_block ? "boot block" : "data";
	for (uint32_t k = 0; k < g.groups; k++) {
		struct e2ref_group eg;
		uint64_t sb, gdt;

		if (e2ref_group_super(r, k, &sb, &gdt)) {
			name_range(want, lay->nr_blocks, sb, 1, k ? "superblock backup" : "superblock");
			name_range(want, lay->nr_blocks, gdt, g.gdt_blocks,
				   k ? "group descriptor backup" : "group descriptors");
			name_range(want, lay->nr_blocks, gdt + g.gdt_blocks, g.reserved_gdt_blocks,
				   "reserved GDT block");
		}
		e2ref_group(r, k, &eg);
		name_range(want, lay->nr_blocks, eg.block_bitmap, 1, "block bitmap");
		name_range(want, lay->nr_blocks, eg.inode_bitmap, 1, "inode bitmap");
		name_range(want, lay->nr_blocks, eg.inode_table, g.inode_table_blocks, "inode table");
	}
	name_inode(want, lay->nr_blocks, r, EXT4_JOURNAL_INO, lay->block_size, "journal");
	name_inode(want, lay->nr_blocks, r, EXT4_ROOT_INO, lay->block_size, "root directory");
	name_inode(want, lay->nr_blocks, r, EXT4_LOST_FOUND_INO, lay->block_size, "lost+found");
	name_range(want, lay->nr_blocks, e2ref_resize_dind(r), 1, "resize inode");
	for (uint32_t b = 0; b < lay->nr_blocks; b++) {
		const char *got = ext4_block_role(lay, b);

		if (!got || strcmp(got, want[b]))
			fail_msg("%u blocks of %u: block %u is \"%s\", libext2fs: %s", lay->nr_blocks,
				 lay->block_size, b, got ? got : "(none)", want[b]);
	}
	free(want);
}

/*
 * The geometry mount reads is libext2fs's (dumpe2fs's) for the same image:
 * 1, 2 and 4 KiB blocks; devices of one group, with a last group mke2fs
 * drops as too small, ending inside a byte and inside a word.
 */
static void test_super__geometry_matches_libext2fs(void **state)
{
	static const uint32_t sizes[] = { 2048, 8300, 16389, 70001 };
	static const uint32_t bss[] = { 1024, 2048, 4096 };

	(void)state;
	for (unsigned s = 0; s < sizeof(bss) / sizeof(bss[0]); s++) {
		for (unsigned n = 0; n < sizeof(sizes) / sizeof(sizes[0]); n++) {
			struct ext4_mount_opts o = fx_opts(bss[s], DATA_ORDERED, true, sizes[n]);
			struct fx_world *w = fx_world_new(&o);
			struct e2ref *r = e2ref_open_ok(w->bd);

			check_groups(&w->fs, r);
			check_journal_map(&w->fs, r);
			check_bitmap(&w->fs, r);
			check_roles(&w->fs, r);
			e2ref_free(r);
			fx_world_free(w);
		}
	}
}

/*
 * Random runs over the blocks mke2fs left free (lengths up to @maxrun),
 * written by libext2fs with their checksums; @used gets each block's bit.
 * Returns how many blocks it marked used.
 */
static uint32_t random_bitmap(struct blkdev *bd, struct prng *p, uint32_t maxrun, uint8_t *used,
			      uint32_t *nr_blocks)
{
	struct e2ref *r = e2ref_open_ok(bd);
	struct e2ref_geom g;
	bool on = prng_next(p) & 1;
	uint32_t marked = 0;

	e2ref_geom(r, &g);
	assert_int_equal(e2ref_read_bitmaps(r), 0);
	*nr_blocks = (uint32_t)g.blocks_count;
	for (uint32_t b = 0; b < g.blocks_count;) {
		uint64_t len = 1 + prng_next(p) % maxrun;

		for (uint64_t k = b; k < SIM_MIN(b + len, g.blocks_count); k++) {
			used[k] = k < g.first_data_block || e2ref_block_in_use(r, k);
			if (!used[k] && on) {
				e2ref_set_block(r, k, true);
				used[k] = 1;
				marked++;
			}
		}
		b += (uint32_t)len;
		on = !on;
	}
	e2ref_close_write(r);
	return marked;
}

/* mount: the free-space map holds exactly the zero bits of the bitmaps. */
static void test_super__mount_free_map_matches_bitmap(void **state)
{
	static const uint32_t maxruns[] = { 1, 3, 9, 70, 700, 5000 };
	struct prng p;

	(void)state;
	prng_seed(&p, 0x5eed5);
	for (unsigned r = 0; r < sizeof(maxruns) / sizeof(maxruns[0]); r++) {
		uint32_t nr = 16384 + 5 * r, bs = r % 2 ? 1024 : 2048, fs_blocks = 0;
		struct ext4_mount_opts o = fx_opts(bs, DATA_ORDERED, true, nr);
		struct fx_world *w = fx_world_format(&o);
		uint8_t *used = calloc(nr, 1);
		uint64_t free_bits = 0;

		assert_non_null(used);
		assert_true(random_bitmap(w->bd, &p, maxruns[r], used, &fs_blocks) > 0);
		fx_world_mount(w);
		assert_int_equal(w->fs.lay.nr_blocks, fs_blocks);
		for (uint32_t b = 0; b < nr; b++) {
			bool free_now = b < fs_blocks && !used[b];

			free_bits += free_now;
			if (bitmap_contains(w->fs.free_map, b) != free_now)
				fail_msg("maxrun %u: block %u", maxruns[r], b);
		}
		assert_true(free_bits > 0);
		assert_int_equal(bitmap_cardinality(w->fs.free_map), free_bits);
		assert_int_equal(w->fs.s_freeclusters, free_bits);
		free(used);
		fx_world_free(w);
	}
}

/* FNV-1a, byte by byte, over the journaled metadata blocks as a reader sees them. */
static uint64_t fnv1a_ref(const struct ext4_fs *fs)
{
	uint32_t bs = fs->opts.block_size, n;
	uint32_t *set = ext4_journaled_set(fs, &n);
	uint8_t *b = malloc(bs), *sb = malloc(bs);
	uint64_t h = 0xcbf29ce484222325ull;

	assert_non_null(b);
	assert_non_null(sb);
	for (uint32_t s = 0; s < n; s++) {
		const uint8_t *p = b;

		blkdev_read(fs->bdev, set[s], b);
		if (set[s] == fs->lay.sb_blk) {
			ext4_sb_journaled_bytes(&fs->lay, b, sb);
			p = sb;
		}
		for (uint32_t i = 0; i < bs; i++) {
			h ^= p[i];
			h *= 0x100000001b3ull;
		}
	}
	free(set);
	free(b);
	free(sb);
	return h;
}

/* Scatter a few non-zero bytes over a zero block (none with @k = 0). */
static void sparse_block(uint8_t *b, uint32_t bs, struct prng *p, unsigned k)
{
	memset(b, 0, bs);
	for (unsigned i = 0; i < k; i++)
		b[prng_next(p) % bs] = (uint8_t)(1 + prng_next(p) % 255);
}

/* Change the superblock's bytes at @off (a field of struct ext4_super_block) on the device. */
static void poke_super(struct fx_world *w, size_t off)
{
	uint8_t *b = malloc(w->o.block_size);

	assert_non_null(b);
	blkdev_read(w->bd, w->fs.lay.sb_blk, b);
	b[w->fs.lay.sb_off + off] ^= 0x21;
	blkdev_write_durable(w->bd, w->fs.lay.sb_blk, b);
	free(b);
}

/*
 * chk_device_meta_hash() equals the byte-by-byte definition; it moves with
 * a journaled block's bytes and the superblock's volume name, not with the
 * mount count mount rewrites nor with a block outside the set.
 */
static void test_super__meta_hash_matches_bytewise_fnv(void **state)
{
	struct prng p;

	(void)state;
	prng_seed(&p, 0xf00d);
	for (unsigned round = 0; round < 8; round++) {
		uint32_t bs = 1024u << (round % 3), nr = 16384, n, data;
		struct ext4_mount_opts o = fx_opts(bs, DATA_ORDERED, true, nr);
		struct fx_world *w = fx_world_new(&o);
		uint32_t *set = ext4_journaled_set(&w->fs, &n);
		uint8_t *b = malloc(bs);
		uint64_t h;

		assert_non_null(b);
		assert_int_equal(chk_device_meta_hash(&w->fs), fnv1a_ref(&w->fs));
		h = chk_device_meta_hash(&w->fs);
		poke_super(w, offsetof(struct ext4_super_block, s_mnt_count));
		assert_int_equal(chk_device_meta_hash(&w->fs), h);
		poke_super(w, offsetof(struct ext4_super_block, s_volume_name) + 3);
		assert_int_not_equal(chk_device_meta_hash(&w->fs), h);
		h = chk_device_meta_hash(&w->fs);
		data = w->fs.lay.nr_blocks - 1;         /* the last block: free data */
		assert_true(ext4_is_data_block(&w->fs, data));
		sparse_block(b, bs, &p, 9);
		blkdev_write_durable(w->bd, data, b);
		assert_int_equal(chk_device_meta_hash(&w->fs), h);
		/* the other journaled blocks: no bytes, a few, many */
		for (uint32_t s = 0; s < n; s++) {
			if (set[s] == w->fs.lay.sb_blk)
				continue;
			sparse_block(b, bs, &p, (unsigned)(prng_next(&p) % (s < 2 ? 3 : 200)));
			blkdev_write_durable(w->bd, set[s], b);
			assert_int_equal(chk_device_meta_hash(&w->fs), fnv1a_ref(&w->fs));
		}
		assert_int_not_equal(chk_device_meta_hash(&w->fs), h);
		free(set);
		free(b);
		w->mounted = false;             /* its metadata is now noise: free unchecked */
		ext4_free_fs(&w->fs);
		fx_world_free(w);
	}
}
/*
 * ext4_set_def_opts(): dioread_nolock (the default mount) is dioread_lock
 * before 244adf6426ee (5.6) for every block size, and below the page size
 * before e89fdcc425b6 (6.8); dioread_nolock: false is dioread_lock always.
 */
static void test_super__def_opts_dioread_by_release(void **state)
{
	static const struct { const char *kernel; uint32_t bs; bool nolock; } cases[] = {
		{ "4.4", 4096, false }, { "5.4", 4096, false }, { "5.4", 1024, false },
		{ "5.10", 4096, true }, { "5.10", 1024, false }, { "6.6", 1024, false },
		{ "6.12", 1024, true }, { "6.18", 4096, true },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ext4_profile *p = ext4_profile_find(cases[i].kernel);
		struct ext4_mount_opts o = fx_opts(cases[i].bs, DATA_ORDERED, true, 16384);
		struct ext4_semantics sem;

		assert_non_null(p);
		ext4_profile_semantics(p, &sem);
		o.dioread_nolock = true;
		assert_int_equal(ext4_set_def_opts(&o, &sem).dioread_nolock, cases[i].nolock);
		o.dioread_nolock = false;
		assert_false(ext4_set_def_opts(&o, &sem).dioread_nolock);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_super__def_opts_dioread_by_release),
		cmocka_unit_test_teardown(test_super__geometry_matches_libext2fs,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_super__mount_free_map_matches_bitmap,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_super__meta_hash_matches_bytewise_fnv,
					  fx_world_leftover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
