/*
 * test_super.c - the word- and byte-at-a-time paths of mkfs, mount and the
 * metadata hash give what the bit- and byte-at-a-time definitions give.
 *
 * mkfs's bitmap is compared bit by bit with "metadata and blocks past the
 * end used, data blocks free" for block sizes 1, 2 and 4 KiB and device
 * sizes that end inside a byte and inside a word.  Mount's free-space map
 * is compared block by block with a bitmap of random runs written to the
 * device (long runs of each value, single bits, and both at once), and its
 * free count with the bitmap's zero bits.  chk_device_meta_hash() is
 * compared with FNV-1a byte by byte over the metadata blocks as a reader
 * sees them, with zero stretches of every length and position.  The
 * default mount's dioread_nolock follows the profile (ext4_set_def_opts).
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
#include "fixture.h"
#include "prng.h"
#include "profile.h"

/* The bitmap blocks as a reader sees them, in one buffer. */
static uint8_t *read_bitmap(const struct blkdev *bd, const struct ext4_layout *lay)
{
	uint32_t bs = bd->bd_block_size;
	uint8_t *buf = calloc((size_t)lay->bitmap_blocks, bs);

	assert_non_null(buf);
	for (uint32_t i = 0; i < lay->bitmap_blocks; i++)
		blkdev_read(bd, lay->bitmap_start + i, buf + (size_t)i * bs);
	return buf;
}

/* Bit @b of a bitmap read by read_bitmap(). */
static bool bit_of(const uint8_t *bitmap, uint64_t b)
{
	return bitmap[b / 8] & (1u << (b % 8));
}

/* mkfs: metadata and blocks past the end used, data blocks free, bit by bit. */
static void test_super__mkfs_bitmap_matches_definition(void **state)
{
	static const uint32_t sizes[] = { 256, 1000, 1003, 4096, 16384, 16389, 70001 };
	static const uint32_t bss[] = { 1024, 2048, 4096 };

	(void)state;
	for (unsigned s = 0; s < sizeof(bss) / sizeof(bss[0]); s++) {
		for (unsigned n = 0; n < sizeof(sizes) / sizeof(sizes[0]); n++) {
			struct ext4_mount_opts o = fx_opts(bss[s], DATA_ORDERED, true, sizes[n]);
			struct fx_world *w = fx_world_format(&o);
			struct ext4_layout lay;
			uint8_t *bm;

			ext4_layout_compute(&lay, sizes[n], bss[s]);
			bm = read_bitmap(w->bd, &lay);
			for (uint64_t b = 0; b < (uint64_t)lay.bitmap_blocks * bss[s] * 8; b++)
				if (bit_of(bm, b) != (b < lay.data_start || b >= lay.nr_blocks))
					fail_msg("bs %u, %u blocks: bit %llu", bss[s], sizes[n],
						 (unsigned long long)b);
			free(bm);
			fx_world_free(w);
		}
	}
}

/* Fill the data area's bits with random runs (lengths up to @maxrun). */
static void random_bitmap(struct blkdev *bd, const struct ext4_layout *lay, struct prng *p,
			  uint32_t maxrun)
{
	uint32_t bs = bd->bd_block_size, bpb = bs * 8;
	uint8_t *buf = read_bitmap(bd, lay);
	bool used = prng_next(p) & 1;

	for (uint64_t b = lay->data_start; b < lay->nr_blocks;) {
		uint64_t len = 1 + prng_next(p) % maxrun;

		for (uint64_t k = b; k < SIM_MIN(b + len, (uint64_t)lay->nr_blocks); k++) {
			uint8_t *byte = buf + (k / bpb) * bs + (k % bpb) / 8;

			*byte = (uint8_t)(used ? *byte | (1u << (k % 8)) : *byte & ~(1u << (k % 8)));
		}
		b += len;
		used = !used;
	}
	for (uint32_t i = 0; i < lay->bitmap_blocks; i++)
		blkdev_write_durable(bd, lay->bitmap_start + i, buf + (size_t)i * bs);
	free(buf);
}

/* mount: the free-space map holds exactly the zero bits of the data area. */
static void test_super__mount_free_map_matches_bitmap(void **state)
{
	static const uint32_t maxruns[] = { 1, 3, 9, 70, 700, 5000 };
	struct prng p;

	(void)state;
	prng_seed(&p, 0x5eed5);
	for (unsigned r = 0; r < sizeof(maxruns) / sizeof(maxruns[0]); r++) {
		uint32_t nr = 16384 + 5 * r, bs = r % 2 ? 1024 : 2048;
		struct ext4_mount_opts o = fx_opts(bs, DATA_ORDERED, true, nr);
		struct fx_world *w = fx_world_format(&o);
		struct ext4_layout lay;
		uint64_t free_bits = 0;
		uint8_t *bm;

		ext4_layout_compute(&lay, nr, bs);
		random_bitmap(w->bd, &lay, &p, maxruns[r]);
		fx_world_mount(w);
		bm = read_bitmap(w->bd, &lay);
		for (uint32_t b = lay.data_start; b < nr; b++) {
			bool used = bit_of(bm, b);

			free_bits += !used;
			if (bitmap_contains(w->fs.free_map, b) == used)
				fail_msg("maxrun %u: block %u", maxruns[r], b);
		}
		assert_int_equal(bitmap_cardinality(w->fs.free_map), free_bits);
		assert_int_equal(w->fs.s_freeclusters, free_bits);
		free(bm);
		fx_world_free(w);
	}
}

/* FNV-1a, byte by byte, over the metadata blocks as a reader sees them. */
static uint64_t fnv1a_ref(const struct ext4_fs *fs)
{
	uint32_t bs = fs->opts.block_size;
	uint8_t *b = malloc(bs);
	uint64_t h = 0xcbf29ce484222325ull;

	assert_non_null(b);
	for (uint32_t blk = 0; blk < fs->lay.journal_start; blk++) {
		blkdev_read(fs->bdev, blk, b);
		for (uint32_t i = 0; i < bs; i++) {
			h ^= b[i];
			h *= 0x100000001b3ull;
		}
	}
	free(b);
	return h;
}

/* Scatter a few non-zero bytes over a zero block (none with @k = 0). */
static void sparse_block(uint8_t *b, uint32_t bs, struct prng *p, unsigned k)
{
	memset(b, 0, bs);
	for (unsigned i = 0; i < k; i++)
		b[prng_next(p) % bs] = (uint8_t)(1 + prng_next(p) % 255);
}

/* chk_device_meta_hash() equals the byte-by-byte definition. */
static void test_super__meta_hash_matches_bytewise_fnv(void **state)
{
	struct prng p;

	(void)state;
	prng_seed(&p, 0xf00d);
	for (unsigned round = 0; round < 8; round++) {
		uint32_t bs = 1024u << (round % 3), nr = 16384;
		struct ext4_mount_opts o = fx_opts(bs, DATA_ORDERED, true, nr);
		struct fx_world *w = fx_world_format(&o);
		uint8_t *b = malloc(bs);

		assert_non_null(b);
		fx_world_mount(w);
		assert_int_equal(chk_device_meta_hash(&w->fs), fnv1a_ref(&w->fs));
		/* the extent blocks: no bytes, a few, many (mount reads none of them) */
		for (uint32_t i = 1; i < w->fs.lay.ext_blocks; i++) {
			sparse_block(b, bs, &p, (unsigned)(prng_next(&p) % (i < 4 ? 3 : 200)));
			blkdev_write_durable(w->bd, w->fs.lay.ext_start + i, b);
		}
		assert_int_equal(chk_device_meta_hash(&w->fs), fnv1a_ref(&w->fs));
		free(b);
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
		cmocka_unit_test_teardown(test_super__mkfs_bitmap_matches_definition,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_super__mount_free_map_matches_bitmap,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_super__meta_hash_matches_bytewise_fnv,
					  fx_world_leftover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
