/*
 * test_checker.c - the checker (checker/checker.c) must be able to fail.
 *
 * Each test builds a small world the way sim/run.c does (fixture.c: a
 * sentinel-filled device, mkfs, mount, chk_init; every step between chk_step_begin and
 * ext4_check_state + chk_step_end, a crash through blkdev_crash,
 * ext4_free_fs, mount and chk_after_recovery), runs a few real operations
 * with the checker's notes, and then breaks exactly one condition by hand:
 * a size, a page-cache byte, a bitmap bit, a device block before recovery,
 * the expected metadata hash, the kernel semantics.  The set of invariants
 * reported is compared with the one the broken condition must raise, and
 * the same world without the damage must report nothing (informational
 * invariants aside where the operations legitimately raise them: writeback
 * and zeroing take folio locks under a handle).
 *
 * Also: a clean run of ordinary operations in every data mode reports no
 * counted invariant, a run of delalloc writes and reads reports nothing
 * at all, and the invariant names round-trip through chk_inv_lookup() and
 * chk_is_invariant_name().
 *
 * The log summary (checker/log.c) is sound: the same random sequences, run
 * with the log kept in full, summarised when due (the default) and
 * summarised after every change, report the same violations with the same
 * messages.  The sequences write, truncate, zero, punch, collapse, insert,
 * fsync, write back and crash; before each recovery bytes are written over
 * part of a file block on the device, so that the post-crash checks
 * (fsync_durable, gap_zero_durable, no_stale_data) have bad bytes to find and
 * count, which a correct model alone seldom gives them; four block sizes and
 * data modes.  And the summary bounds the log: a long run without a crash
 * keeps a few hundred entries where the full log keeps one per change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkdev.h"
#include "checker.h"
#include "ext4.h"
#include "fixture.h"
#include "prng.h"

#define ALL_INVS ((1u << INV_COUNT) - 1)
#define BIT(inv) (1u << (inv))

/* ------------------------------------------------------------------ */
/* the world, as sim/run.c builds and drives it (fixture.c)            */

static struct fx_world *world_new(uint32_t bs, enum ext4_data_mode data, bool delalloc)
{
	struct ext4_mount_opts o = fx_opts(bs, data, delalloc, FX_DISK_BLOCKS);

	return fx_world_new(&o);
}

static void begin(struct fx_world *w)
{
	w->step++;
	chk_step_begin(&w->chk, &w->fs);
}

/* After a step: the model's own invariants, then the checker's. */
static void end(struct fx_world *w)
{
	ext4_check_state(&w->fs);
	chk_step_end(&w->chk, &w->fs, w->step);
}

/* End a step whose damage the model's own assertions would catch first. */
static void end_unchecked(struct fx_world *w)
{
	chk_step_end(&w->chk, &w->fs, w->step);
}

static void do_write(struct fx_world *w, int64_t off, int64_t len, uint8_t fill)
{
	int64_t got = -1;

	assert_int_equal(ext4_file_write(&w->fs, off, len, fill, len, &got), 0);
	assert_int_equal(got, len);
	chk_note_write(&w->chk, off, got, fill);
}

static void step_write(struct fx_world *w, int64_t off, int64_t len, uint8_t fill)
{
	begin(w);
	do_write(w, off, len, fill);
	end(w);
}

static void step_truncate(struct fx_world *w, int64_t size)
{
	begin(w);
	assert_int_equal(ext4_setattr_size(&w->fs, size), 0);
	chk_note_truncate(&w->chk, size);
	end(w);
}

static void step_fsync(struct fx_world *w)
{
	begin(w);
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	chk_note_durable(&w->chk);
	end(w);
}

/* One fallocate(2) that must succeed, with the checker told what it did. */
static void step_fallocate(struct fx_world *w, int mode, int64_t off, int64_t len)
{
	begin(w);
	assert_int_equal(ext4_fallocate(&w->fs, mode, off, len), 0);
	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		chk_note_collapse(&w->chk, off, len);
	else if (mode & FALLOC_FL_INSERT_RANGE)
		chk_note_insert(&w->chk, off, len);
	else if (mode & FALLOC_FL_PUNCH_HOLE)
		chk_note_punch(&w->chk, off, len);
	else if (mode & FALLOC_FL_ZERO_RANGE)
		chk_note_zero(&w->chk, off, len, !(mode & FALLOC_FL_KEEP_SIZE));
	else if (!(mode & FALLOC_FL_KEEP_SIZE))
		chk_note_extend(&w->chk, off + len);
	if (!(mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE | FALLOC_FL_PUNCH_HOLE)))
		chk_note_falloc(&w->chk, off, len);
	end(w);
}

static void step_fdatasync(struct fx_world *w)
{
	begin(w);
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, true), 0);
	chk_note_durable(&w->chk);
	end(w);
}

static void step_close(struct fx_world *w)
{
	begin(w);
	assert_int_equal(ext4_release_file(&w->fs), 0);
	chk_note_close(&w->chk, &w->fs);
	end(w);
}

static void step_commit(struct fx_world *w)
{
	begin(w);
	assert_non_null(w->fs.journal.j_running_transaction);
	jbd2_journal_commit_transaction(&w->fs.journal);
	end(w);
}

static void step_writeback(struct fx_world *w)
{
	begin(w);
	assert_int_equal(ext4_writepages(&w->fs, 0, INT64_MAX, WB_SYNC_NONE, true), 0);
	ext4_wait_io_range(&w->fs, 0, INT64_MAX);
	end(w);
}

static void step_read(struct fx_world *w, int64_t off, int64_t len)
{
	uint8_t *buf = malloc((size_t)len + 1);
	int64_t got;
	int err;

	assert_non_null(buf);
	begin(w);
	err = ext4_file_read(&w->fs, off, len, buf, &got);
	free(buf);
	assert_int_equal(err, 0);
	end(w);
}

static void step_remount(struct fx_world *w)
{
	begin(w);
	fx_world_unmount(w);
	fx_world_mount(w);
	chk_note_durable(&w->chk);
	end(w);
}

/* What a test may do to the device between the crash and the mount. */
typedef void (*tamper_fn)(struct fx_world *w, uint32_t pblk0);

/*
 * A crash as step_crash() does it; @tamper (if any) changes the device
 * before recovery, given the physical block of file block 0 (0 if none);
 * @hash_delta is added to the expected metadata hash.
 */
static void step_crash(struct fx_world *w, tamper_fn tamper, uint64_t hash_delta)
{
	uint64_t expected, replayed;
	uint32_t pblk = 0, len = 0;

	begin(w);
	if (es_lookup(&w->fs.inode->i_es, 0, &pblk, &len) != ES_WRITTEN)
		pblk = 0;
	expected = chk_expected_meta_hash(&w->fs, false) + hash_delta;
	fx_world_crash(w);
	if (tamper)
		tamper(w, pblk);
	fx_world_mount(w);
	replayed = chk_device_meta_hash(&w->fs);
	chk_after_recovery(&w->chk, &w->fs, w->step, expected, replayed);
	end(w);
}

/* ------------------------------------------------------------------ */
/* what was reported                                                   */

/* Invariants reported from violation @from on; informational ones only with @info. */
static unsigned reported(const struct fx_world *w, uint32_t from, bool info)
{
	unsigned mask = 0;

	for (uint32_t i = from; i < w->chk.nr_v; i++)
		if (info || !chk_inv_info(w->chk.v[i].inv)->informational)
			mask |= BIT(w->chk.v[i].inv);
	return mask;
}

static void names_of(unsigned mask, char *out, size_t n)
{
	size_t used = 0;

	out[0] = 0;
	for (int i = 0; i < INV_COUNT; i++)
		if ((mask & BIT(i)) && used < n)
			used += (size_t)snprintf(out + used, n - used, "%s%s", used ? " " : "",
						 chk_inv_info(i)->name);
	if (!mask)
		snprintf(out, n, "(none)");
}

/* The reports since @from must be exactly @want (see reported()). */
static void expect_reported(const struct fx_world *w, uint32_t from, bool info, unsigned want,
			    const char *what)
{
	unsigned got = reported(w, from, info);
	char g[512], x[512];

	if (got == want)
		return;
	names_of(got, g, sizeof(g));
	names_of(want, x, sizeof(x));
	for (uint32_t i = from; i < w->chk.nr_v; i++)
		print_message("  step %u %s: %s\n", w->chk.v[i].step,
			      chk_inv_info(w->chk.v[i].inv)->name, w->chk.v[i].msg);
	fail_msg("%s: reported {%s}, want {%s}", what, g, x);
}

/* ------------------------------------------------------------------ */
/* invariant names                                                     */

static void test_checker__invariant_names_round_trip(void **state)
{
	static const char *const names[INV_COUNT] = {
		"disksize_le_size", "disksize_pending", "gap_zero_on_extend", "no_stale_data",
		"alloc_consistent", "read_posix", "fsync_durable", "gap_zero_durable",
		"journal_prefix", "post_eof_zero_strict", "no_folio_lock_under_handle",
		"prealloc_durable", "replace_via_truncate", "ns_link_count", "ns_no_orphan",
		"ns_file_fsync", "ns_dir_fsync", "ns_rename_atomic", "ns_new_file_fsync",
		"ns_op_order", "replace_via_rename", "dio_sync_durable",
	};

	(void)state;
	assert_int_equal(INV_COUNT, 22);
	for (int i = 0; i < INV_COUNT; i++) {
		assert_string_equal(chk_inv_info(i)->name, names[i]);
		assert_int_equal(chk_inv_lookup(names[i]), i);
		assert_true(chk_is_invariant_name(names[i]));
		assert_non_null(chk_inv_info(i)->when);
		assert_non_null(chk_inv_info(i)->definition);
		assert_int_equal(chk_inv_info(i)->informational,
				 i == INV_POST_EOF_ZERO_STRICT || i == INV_NO_FOLIO_LOCK_UNDER_HANDLE ||
				 i == INV_REPLACE_VIA_TRUNCATE || i == INV_REPLACE_VIA_RENAME);
	}
	assert_int_equal(chk_inv_lookup("no_such_invariant"), -1);
	assert_false(chk_is_invariant_name("no_such_invariant"));
	assert_int_equal(chk_inv_lookup(""), -1);
	assert_false(chk_is_invariant_name(""));
	assert_int_equal(chk_inv_lookup("Read_Posix"), -1);     /* exact names only */
	assert_int_equal(chk_inv_lookup("read_posix "), -1);
}

/* ------------------------------------------------------------------ */
/* clean runs                                                          */

/* Ordinary operations in every mode: no counted invariant is reported. */
static void test_checker__clean_run_reports_no_counted_invariant(void **state)
{
	static const struct { uint32_t bs; enum ext4_data_mode data; bool da; } cfgs[] = {
		{ 1024, DATA_ORDERED, true }, { 1024, DATA_ORDERED, false },
		{ 1024, DATA_WRITEBACK, true }, { 1024, DATA_JOURNAL, false },
		{ 4096, DATA_ORDERED, true }, { 4096, DATA_ORDERED, false },
		{ 4096, DATA_WRITEBACK, true }, { 4096, DATA_JOURNAL, false },
	};

	(void)state;
	for (unsigned k = 0; k < sizeof(cfgs) / sizeof(cfgs[0]); k++) {
		struct fx_world *w = world_new(cfgs[k].bs, cfgs[k].data, cfgs[k].da);
		char what[96];

		snprintf(what, sizeof(what), "clean run, %u-byte blocks, data mode %d, delalloc %d",
			 cfgs[k].bs, cfgs[k].data, cfgs[k].da);
		step_write(w, 0, 5000, 0x11);
		step_write(w, 100, 200, 0x12);
		step_write(w, 9000, 3000, 0x13);        /* extends past a gap */
		step_read(w, 0, 20000);
		step_writeback(w);
		step_truncate(w, 7777);
		step_truncate(w, 10001);                /* grows: a zeroed gap */
		step_write(w, 12288, 4096, 0x14);
		step_fsync(w);
		step_crash(w, NULL, 0);
		step_read(w, 0, 20000);
		step_write(w, 3000, 4000, 0x15);
		step_fsync(w);
		step_remount(w);
		step_truncate(w, 4096);
		step_fsync(w);
		step_crash(w, NULL, 0);
		expect_reported(w, 0, false, 0, what);
		fx_world_free(w);
	}
}

/* Delalloc writes that take no handle, and reads: nothing at all. */
static void test_checker__delalloc_writes_and_reads_report_nothing(void **state)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);

	(void)state;
	step_write(w, 0, 8192, 0x21);
	step_write(w, 100, 300, 0x22);
	step_write(w, 4096, 4096, 0x23);
	step_read(w, 0, 8192);
	step_read(w, 5000, 100);
	expect_reported(w, 0, true, 0, "delalloc writes within the first size, and reads");
	fx_world_free(w);
}

/* ------------------------------------------------------------------ */
/* in-memory invariants                                                */

static void test_checker__disksize_above_size_is_reported(void **state)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	(void)state;
	step_write(w, 0, 5000, 0x31);
	step_fsync(w);
	expect_reported(w, 0, false, 0, "write and fsync");
	from = w->chk.nr_v;
	begin(w);
	w->fs.inode->i_disksize = w->fs.inode->i_size + 100;
	end_unchecked(w);
	expect_reported(w, from, true, BIT(INV_DISKSIZE_LE_SIZE), "i_disksize = i_size + 100");
	w->fs.inode->i_disksize = w->fs.inode->i_size;
	from = w->chk.nr_v;
	begin(w);
	end(w);
	expect_reported(w, from, true, 0, "i_disksize restored");
	fx_world_free(w);
}

static void test_checker__disksize_short_with_nothing_pending_is_reported(void **state)
{
	struct fx_world *w = world_new(1024, DATA_ORDERED, true);
	uint32_t from;

	(void)state;
	step_write(w, 0, 5000, 0x41);
	step_fsync(w);
	step_write(w, 5000, 3000, 0x42);        /* delayed: i_disksize may lag */
	assert_true(w->fs.inode->i_disksize < w->fs.inode->i_size);
	expect_reported(w, 0, false, 0, "a delalloc append leaves i_disksize behind");

	step_fsync(w);
	from = w->chk.nr_v;
	begin(w);
	w->fs.inode->i_disksize = w->fs.inode->i_size - 1;        /* nothing delayed, no I/O */
	end_unchecked(w);
	expect_reported(w, from, true, BIT(INV_DISKSIZE_PENDING),
			"i_disksize one short after fsync");

	/* I/O in flight past i_disksize also justifies the lag */
	step_write(w, 8000, 3000, 0x43);
	begin(w);
	assert_int_equal(ext4_sync_file_range(&w->fs, 0, 0, 'w'), 0);
	end(w);
	assert_true(w->fs.nr_ios > 0);
	from = w->chk.nr_v;
	begin(w);
	w->fs.inode->i_disksize = w->fs.inode->i_size - 1;
	end_unchecked(w);
	expect_reported(w, from, false, 0, "i_disksize short with the tail in flight");
	begin(w);
	ext4_wait_io_range(&w->fs, 0, INT64_MAX);
	end_unchecked(w);
	expect_reported(w, from, false, BIT(INV_DISKSIZE_PENDING),
			"i_disksize short once the I/O completed");
	fx_world_free(w);
}

static struct folio *folio_at(struct fx_world *w, int64_t pos)
{
	struct folio *f = filemap_get_folio(&w->fs.inode->i_mapping, (uint64_t)pos >> PAGE_SHIFT);

	assert_non_null(f);
	assert_true(f->flags & PG_uptodate);
	return f;
}

static void test_checker__corrupt_cached_byte_is_reported(void **state)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	struct folio *f;
	uint32_t from;

	(void)state;
	step_write(w, 0, 3000, 0xab);
	step_fsync(w);
	f = folio_at(w, 100);

	from = w->chk.nr_v;
	begin(w);
	f->data[100] = 0x11;
	end(w);
	expect_reported(w, from, true, BIT(INV_READ_POSIX), "a cached byte changed to 0x11");

	from = w->chk.nr_v;
	begin(w);
	f->data[100] = BLKDEV_SENTINEL;
	end(w);
	expect_reported(w, from, true, BIT(INV_NO_STALE_DATA),
			"a cached byte changed to the sentinel");

	from = w->chk.nr_v;
	begin(w);
	f->data[100] = 0xab;
	end(w);
	expect_reported(w, from, true, 0, "the byte restored");

	/* once a step wrote the sentinel itself, a sentinel byte is an ordinary mismatch */
	step_write(w, 2000, 10, BLKDEV_SENTINEL);
	from = w->chk.nr_v;
	begin(w);
	f->data[100] = BLKDEV_SENTINEL;
	end(w);
	expect_reported(w, from, true, BIT(INV_READ_POSIX),
			"a sentinel byte after a step wrote the sentinel");
	f->data[100] = 0xab;

	/* the reference and the model disagree on the size */
	from = w->chk.nr_v;
	begin(w);
	do_write(w, 3000, 100, 0xab);
	chk_note_write(&w->chk, 3100, 1, 0xab);         /* the reference says one more */
	end(w);
	expect_reported(w, from, true, BIT(INV_READ_POSIX), "the reference is one byte longer");
	fx_world_free(w);
}

/*
 * A byte past EOF in the EOF folio (an mmap store would put it there) is
 * exposed by an extension that does not zero the gap: 6.18 zeroes it, a
 * kernel without the 6.13 fixes does not.
 */
static void poke_then_extend(bool old_kernel, bool by_truncate)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;
	char what[96];

	if (old_kernel) {
		w->sem.eof_zero_fs = false;
		w->sem.eof_zero_dirty_folio_mm = false;
		w->fs.sem = w->sem;
	}
	snprintf(what, sizeof(what), "%s kernel, extension by %s", old_kernel ? "pre-6.13" : "6.18",
		 by_truncate ? "truncate" : "write");
	step_write(w, 0, 1000, 0xaa);
	folio_at(w, 0)->data[2000] = 0x77;
	from = w->chk.nr_v;
	if (by_truncate)
		step_truncate(w, 3000);
	else
		step_write(w, 3000, 100, 0xbb);
	expect_reported(w, from, false, old_kernel ? BIT(INV_GAP_ZERO_ON_EXTEND) : 0, what);
	fx_world_free(w);
}

static void test_checker__unzeroed_gap_on_extend_is_reported(void **state)
{
	(void)state;
	poke_then_extend(true, false);
	poke_then_extend(true, true);
	poke_then_extend(false, false);
	poke_then_extend(false, true);
}

/*
 * The same with a real store through the mapping (fsx's EOF pollution) and
 * an extending fallocate: the stored bytes past EOF are not file content;
 * 6.18 zeroes them when the size grows, a pre-6.13 kernel exposes them
 * (1 KiB blocks: the dirty EOF folio is zeroed by the mm half of the fix).
 */
static void store_then_falloc(bool old_kernel)
{
	struct fx_world *w = world_new(1024, DATA_ORDERED, true);
	int64_t stored = -1;
	uint32_t from;

	if (old_kernel) {
		w->sem.eof_zero_fs = false;
		w->sem.eof_zero_dirty_folio_mm = false;
		w->fs.sem = w->sem;
	}
	step_write(w, 0, 2048, 0x11);
	begin(w);
	assert_int_equal(ext4_mmap_store(&w->fs, 2048, 2048, 0x58, &stored), 0);
	assert_int_equal(stored, 2048);
	end(w);                         /* nothing noted: past EOF */
	from = w->chk.nr_v;
	step_fallocate(w, 0, 0, 8192);
	expect_reported(w, from, false, old_kernel ? BIT(INV_GAP_ZERO_ON_EXTEND) : 0,
			old_kernel ? "pre-6.13: EOF store exposed by fallocate" :
				     "6.18: EOF store zeroed by fallocate");
	fx_world_free(w);
}

static void test_checker__eof_store_exposed_only_without_the_6_13_fixes(void **state)
{
	(void)state;
	store_then_falloc(false);
	store_then_falloc(true);
}

/* Block @b's bit in its group's block bitmap buffer (ext4_block_bitmap). */
static void set_bitmap_bit(struct fx_world *w, uint32_t b, bool used)
{
	uint32_t g = ext4_group_of(&w->fs.lay, b);
	uint32_t bit = b - ext4_group_first_block_no(&w->fs.lay, g);
	uint8_t *byte = ext4_meta_bh(&w->fs, ext4_block_bitmap(&w->fs, g)) + bit / 8;

	if (used)
		*byte = (uint8_t)(*byte | (1u << (b % 8)));
	else
		*byte = (uint8_t)(*byte & ~(1u << (b % 8)));
}

static void test_checker__block_free_in_bitmap_is_reported(void **state)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t pblk, len, from;

	(void)state;
	step_write(w, 0, 8192, 0x51);
	step_fsync(w);
	assert_int_equal(es_lookup(&w->fs.inode->i_es, 0, &pblk, &len), ES_WRITTEN);

	from = w->chk.nr_v;
	begin(w);
	set_bitmap_bit(w, pblk, false);
	end_unchecked(w);       /* ext4_check_state's (2) would stop on it first */
	expect_reported(w, from, true, BIT(INV_ALLOC_CONSISTENT),
			"an owned block marked free in the bitmap buffer");

	from = w->chk.nr_v;
	begin(w);
	set_bitmap_bit(w, pblk, true);
	set_bitmap_bit(w, pblk + 100, true);    /* used in the bitmap, owned by nobody */
	end(w);
	expect_reported(w, from, true, BIT(INV_ALLOC_CONSISTENT),
			"a block marked used that no extent owns");

	from = w->chk.nr_v;
	begin(w);
	set_bitmap_bit(w, pblk + 100, false);
	end(w);
	expect_reported(w, from, true, 0, "the bitmap restored");
	fx_world_free(w);
}

/* A written block past the EOF block of i_disksize: allowed only for an orphan. */
static void test_checker__written_block_past_eof_is_reported_unless_orphan(void **state)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	(void)state;
	step_write(w, 0, 8192, 0x61);
	step_fsync(w);
	from = w->chk.nr_v;
	begin(w);
	w->fs.inode->i_size = w->fs.inode->i_disksize = 4096;    /* block 1 left behind */
	chk_note_truncate(&w->chk, 4096);
	end_unchecked(w);
	expect_reported(w, from, true, BIT(INV_ALLOC_CONSISTENT),
			"a written block past EOF, no orphan");

	from = w->chk.nr_v;
	begin(w);
	w->fs.inode->i_orphan = true;            /* a truncate in progress */
	end_unchecked(w);
	expect_reported(w, from, true, 0, "a written block past EOF of an orphan");
	w->fs.inode->i_orphan = false;
	fx_world_free(w);
}

/* The words of the alloc_consistent case of each message from @from on; the count. */
static unsigned alloc_words(const struct fx_world *w, uint32_t from, const char **words,
			    unsigned max)
{
	unsigned n = 0;

	for (uint32_t i = from; i < w->chk.nr_v && n < max; i++)
		if (w->chk.v[i].inv == INV_ALLOC_CONSISTENT)
			words[n++] = chk_what_happened(INV_ALLOC_CONSISTENT, w->chk.v[i].msg);
	return n;
}

/*
 * Each case alloc_consistent tells apart has its own "what happened" words:
 * a block owned twice, an owned block free in the bitmap, a bitmap count
 * that differs from the extents', a written block past EOF.
 */
static void test_checker__alloc_cases_have_their_own_words(void **state)
{
	const char *plain = chk_inv_info(INV_ALLOC_CONSISTENT)->plain, *seen[4], *words[8];
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t pblk, len, from;
	unsigned n;

	(void)state;
	step_write(w, 0, 8192, 0x51);
	step_fsync(w);
	assert_int_equal(es_lookup(&w->fs.inode->i_es, 0, &pblk, &len), ES_WRITTEN);
	from = w->chk.nr_v;                     /* free in the bitmap */
	begin(w);
	set_bitmap_bit(w, pblk + 1, false);
	end_unchecked(w);
	n = alloc_words(w, from, words, 8);
	assert_true(n >= 1);
	seen[0] = words[0];
	assert_non_null(strstr(seen[0], "free in the block bitmap"));
	from = w->chk.nr_v;                     /* the count: a bit no extent owns */
	begin(w);
	set_bitmap_bit(w, pblk + 1, true);
	set_bitmap_bit(w, pblk + 100, true);
	end(w);
	assert_int_equal(alloc_words(w, from, words, 8), 1);
	seen[1] = words[0];
	assert_non_null(strstr(seen[1], "more or fewer data blocks"));
	begin(w);
	set_bitmap_bit(w, pblk + 100, false);
	end(w);
	from = w->chk.nr_v;                     /* past EOF */
	begin(w);
	w->fs.inode->i_size = w->fs.inode->i_disksize = 4096;
	chk_note_truncate(&w->chk, 4096);
	end_unchecked(w);
	assert_int_equal(alloc_words(w, from, words, 8), 1);
	seen[2] = words[0];
	assert_non_null(strstr(seen[2], "past the EOF block of i_disksize"));
	fx_world_free(w);
	seen[3] = chk_what_happened(INV_ALLOC_CONSISTENT, "block 7 owned twice");
	for (unsigned i = 0; i < 4; i++) {
		assert_ptr_not_equal(seen[i], plain);
		for (unsigned k = 0; k < i; k++)
			assert_ptr_not_equal(seen[i], seen[k]);
	}
	assert_ptr_equal(chk_what_happened(INV_ALLOC_CONSISTENT, "no case"), plain);
}

static void test_checker__folio_lock_under_handle_is_reported(void **state)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, false);
	uint32_t from;

	(void)state;
	assert_true(chk_inv_info(INV_NO_FOLIO_LOCK_UNDER_HANDLE)->informational);
	step_write(w, 0, 100, 0x71);            /* nodelalloc: handle, then the folio */
	expect_reported(w, 0, true, BIT(INV_NO_FOLIO_LOCK_UNDER_HANDLE), "a nodelalloc write");
	expect_reported(w, 0, false, 0, "a nodelalloc write (counted invariants)");
	assert_non_null(strstr(w->chk.v[0].msg, "write_begin"));
	fx_world_free(w);

	w = world_new(4096, DATA_ORDERED, true);
	step_write(w, 0, 100, 0x72);            /* delalloc: no handle */
	expect_reported(w, 0, true, 0, "a delalloc write");
	from = w->chk.nr_v;
	step_writeback(w);                      /* the mapping pass locks under its handle */
	expect_reported(w, from, true, BIT(INV_NO_FOLIO_LOCK_UNDER_HANDLE), "delalloc writeback");
	fx_world_free(w);
}

/* ------------------------------------------------------------------ */
/* after a crash                                                       */

static void fill_block(struct fx_world *w, uint32_t pblk, uint32_t from, uint32_t to, uint8_t v)
{
	uint8_t *b;

	assert_true(pblk != 0);
	b = malloc(w->o.block_size);
	assert_non_null(b);
	blkdev_read(w->bd, pblk, b);
	memset(b + from, v, to - from);
	blkdev_write_durable(w->bd, pblk, b);
	free(b);
}

static void tamper_block0_5a(struct fx_world *w, uint32_t pblk)
{
	fill_block(w, pblk, 0, 16, 0x5a);
}

static void tamper_block0_sentinel(struct fx_world *w, uint32_t pblk)
{
	fill_block(w, pblk, 0, 16, BLKDEV_SENTINEL);
}

static void tamper_block0_tail(struct fx_world *w, uint32_t pblk)
{
	fill_block(w, pblk, 3000, w->o.block_size, 0x99);
}

static void tamper_block0_gap(struct fx_world *w, uint32_t pblk)
{
	fill_block(w, pblk, 1500, 1600, 0x5a);
}

static void tamper_block0_head(struct fx_world *w, uint32_t pblk)
{
	fill_block(w, pblk, 500, 600, 0x5a);
}

/* An fsynced file, crashed with @tamper applied to its block 0. */
static void crash_fsynced(tamper_fn tamper, unsigned want, const char *what)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	step_write(w, 0, 8192, 0x11);
	step_fsync(w);
	step_write(w, 8192, 100, 0x12);         /* not durable: may or may not survive */
	from = w->chk.nr_v;
	step_crash(w, tamper, 0);
	expect_reported(w, from, true, want, what);
	fx_world_free(w);
}

static void test_checker__fsynced_data_changed_on_disk_is_reported(void **state)
{
	(void)state;
	crash_fsynced(NULL, 0, "crash after fsync");
	crash_fsynced(tamper_block0_5a, BIT(INV_FSYNC_DURABLE),
		      "fsynced block overwritten with 0x5a before recovery");
	crash_fsynced(tamper_block0_sentinel, BIT(INV_NO_STALE_DATA),
		      "fsynced block overwritten with the sentinel before recovery");
}

static void test_checker__journal_not_replayed_as_committed_is_reported(void **state)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	(void)state;
	step_write(w, 0, 8192, 0x11);
	step_fsync(w);
	step_truncate(w, 4096);                 /* committed below, replayed at mount */
	begin(w);
	jbd2_journal_commit_transaction(&w->fs.journal);
	end(w);
	from = w->chk.nr_v;
	step_crash(w, NULL, 0);
	assert_true(w->ri.nr_replayed > 0);
	expect_reported(w, from, true, 0, "replay of a committed transaction");
	step_write(w, 0, 8192, 0x13);
	step_fsync(w);
	from = w->chk.nr_v;
	step_crash(w, NULL, 1);
	expect_reported(w, from, true, BIT(INV_JOURNAL_PREFIX), "a different expected hash");
	fx_world_free(w);
}

/* An unaligned fsynced EOF, crashed with @tamper applied to block 0. */
static void crash_unaligned(tamper_fn tamper, unsigned want, const char *what)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	step_write(w, 0, 3000, 0x22);
	step_fsync(w);
	from = w->chk.nr_v;
	step_crash(w, tamper, 0);
	expect_reported(w, from, true, want, what);
	fx_world_free(w);
}

static void test_checker__nonzero_tail_past_eof_on_disk_is_reported(void **state)
{
	(void)state;
	assert_true(chk_inv_info(INV_POST_EOF_ZERO_STRICT)->informational);
	crash_unaligned(NULL, 0, "unaligned EOF after fsync");
	crash_unaligned(tamper_block0_tail, BIT(INV_POST_EOF_ZERO_STRICT),
			"0x99 past EOF in the EOF block on disk");
}

/*
 * prealloc_durable (generic/468): 16 KiB durable, fallocate @mode over
 * [16k, 24k), fdatasync, crash.  Without c894aa97577e (fdatasync_fallocate
 * off) a KEEP_SIZE allocation's transaction is not the one fdatasync
 * commits, and the crash loses its two blocks: bytes and size are as
 * promised, so no other invariant sees it.  A punch over the blocks before
 * the crash frees them: nothing is promised there any more.
 */
static void crash_after_falloc(int mode, bool fixed, bool punch, unsigned want, const char *what)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	w->fs.sem.fdatasync_fallocate = fixed;
	step_write(w, 0, 16384, 0xaa);
	step_fsync(w);
	step_fallocate(w, mode, 16384, 8192);
	step_fdatasync(w);
	if (punch)
		step_fallocate(w, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 16384, 8192);
	from = w->chk.nr_v;
	step_crash(w, NULL, 0);
	expect_reported(w, from, true, want, what);
	fx_world_free(w);
}

static void test_checker__preallocated_blocks_lost_after_fdatasync_are_reported(void **state)
{
	(void)state;
	crash_after_falloc(FALLOC_FL_KEEP_SIZE, true, false, 0, "falloc -k, fdatasync: fixed");
	crash_after_falloc(FALLOC_FL_KEEP_SIZE, false, false, BIT(INV_PREALLOC_DURABLE),
			   "falloc -k, fdatasync: before c894aa97577e");
	crash_after_falloc(FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, false, false,
			   BIT(INV_PREALLOC_DURABLE), "fzero -k, fdatasync: before c894aa97577e");
	crash_after_falloc(0, false, false, 0, "falloc past EOF: i_disksize changed, committed");
	crash_after_falloc(FALLOC_FL_KEEP_SIZE, false, true, 0,
			   "falloc -k, fdatasync, punch: the blocks may be gone");
}

/*
 * replace_via_truncate (informational): 10000 bytes durable, truncate to 0,
 * 6000 new bytes, close, commit, crash.  With auto_da_alloc the close starts
 * writeback, the commit waits for the data and carries the allocation; with
 * noauto_da_alloc it carries only the truncate, and the file is empty.
 */
static void crash_after_replace(bool auto_da_alloc, bool close, unsigned want, const char *what)
{
	struct ext4_mount_opts o = fx_opts(4096, DATA_ORDERED, true, FX_DISK_BLOCKS);
	struct fx_world *w;
	uint32_t from;

	o.dioread_nolock = false;
	o.auto_da_alloc = auto_da_alloc;
	w = fx_world_new(&o);
	step_write(w, 0, 10000, 0xaa);
	step_fsync(w);
	step_truncate(w, 0);
	step_write(w, 0, 6000, 0xbb);
	if (close)
		step_close(w);
	step_commit(w);
	from = w->chk.nr_v;
	step_crash(w, NULL, 0);
	expect_reported(w, from, true, want, what);
	fx_world_free(w);
}

static void test_checker__replace_via_truncate_left_empty_is_noted(void **state)
{
	(void)state;
	assert_true(chk_inv_info(INV_REPLACE_VIA_TRUNCATE)->informational);
	crash_after_replace(true, true, 0, "auto_da_alloc: the close pushed the data");
	crash_after_replace(false, true, BIT(INV_REPLACE_VIA_TRUNCATE),
			    "noauto_da_alloc: the commit carried the truncate only");
	crash_after_replace(false, false, 0, "no close: nothing promised");
}

/*
 * A durable unaligned size (1000), then a durable extension: the on-disk
 * gap [1000, 4096) must read zero.  gap_zero_durable comes with
 * fsync_durable here: the gap was zero at the later durable point too.
 */
static void crash_extended(tamper_fn tamper, unsigned want, const char *what)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	step_write(w, 0, 1000, 0xaa);
	step_fsync(w);
	step_truncate(w, 6000);
	step_fsync(w);
	from = w->chk.nr_v;
	step_crash(w, tamper, 0);
	expect_reported(w, from, false, want, what);
	fx_world_free(w);
}

static void test_checker__nonzero_durable_gap_is_reported(void **state)
{
	(void)state;
	crash_extended(NULL, 0, "durable extension from 1000 to 6000");
	crash_extended(tamper_block0_gap, BIT(INV_GAP_ZERO_DURABLE) | BIT(INV_FSYNC_DURABLE),
		       "0x5a in the durable gap [1000, 4096)");
	crash_extended(tamper_block0_head, BIT(INV_FSYNC_DURABLE),
		       "0x5a below the old size: not the gap");
}

/*
 * Collapse and insert move durable bytes: a crash that keeps the shift
 * (its transaction committed, which is no durable point for the checker)
 * or loses it recovers bytes where the shift put them or where they were;
 * neither is a violation.  Bytes that neither explains are.
 */
static void shift_then_crash(int mode, bool commit, tamper_fn tamper, unsigned want,
			     const char *what)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	step_write(w, 0, 4096, 0x11);
	step_write(w, 4096, 4096, 0x22);
	step_write(w, 8192, 5000, 0x33);
	step_fsync(w);
	step_fallocate(w, mode, 4096, mode & FALLOC_FL_COLLAPSE_RANGE ? 4096 : 8192);
	if (commit) {
		begin(w);
		jbd2_journal_commit_transaction(&w->fs.journal);
		end(w);
	}
	from = w->chk.nr_v;
	step_crash(w, tamper, 0);
	expect_reported(w, from, false, want, what);
	fx_world_free(w);
}

static void test_checker__shifted_bytes_after_a_crash_are_allowed(void **state)
{
	(void)state;
	shift_then_crash(FALLOC_FL_COLLAPSE_RANGE, false, NULL, 0, "collapse lost in the crash");
	shift_then_crash(FALLOC_FL_COLLAPSE_RANGE, true, NULL, 0, "collapse committed");
	shift_then_crash(FALLOC_FL_INSERT_RANGE, false, NULL, 0, "insert lost in the crash");
	shift_then_crash(FALLOC_FL_INSERT_RANGE, true, NULL, 0, "insert committed");
	shift_then_crash(FALLOC_FL_COLLAPSE_RANGE, true, tamper_block0_5a,
			 BIT(INV_FSYNC_DURABLE), "0x5a in block 0 after a committed collapse");
}

/*
 * Zero range and punch hole make their range read zero: the reference
 * agrees in memory, and after fsync and a crash the zeros are durable.
 * A store past EOF inside the EOF page is no file content: a later
 * extension reads zeros there (6.18) and nothing is reported.
 */
static void test_checker__zeroing_and_eof_stores_report_nothing(void **state)
{
	struct fx_world *w = world_new(1024, DATA_ORDERED, true);
	int64_t stored = -1;

	(void)state;
	step_write(w, 0, 10000, 0x44);
	step_fallocate(w, FALLOC_FL_ZERO_RANGE, 1000, 3000);
	step_fallocate(w, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 6000, 10000);
	step_fallocate(w, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 9000, 5000);
	begin(w);
	assert_int_equal(ext4_mmap_store(&w->fs, 9990, 2000, 0x58, &stored), 0);
	assert_int_equal(stored, 2000);
	chk_note_write(&w->chk, 9990, 10, 0x58);
	end(w);
	step_fallocate(w, 0, 0, 16384);
	step_fsync(w);
	step_crash(w, NULL, 0);
	expect_reported(w, 0, false, 0, "zero range, punch, EOF store, extension, crash");
	assert_int_equal(w->fs.inode->i_size, 16384);
	fx_world_free(w);
}

/*
 * chk_meta_as_expected() answers as comparing the two metadata hashes does, on
 * an overlay of a device with a journal to replay: mounted as it is, with a
 * logged metadata block changed (the replay repairs it: both say yes), with any
 * other block of the journaled set changed (ext4_journaled_set: both say no, or
 * the mount refuses a checksum that fails), with a free data block changed
 * (both say yes).
 */
static bool meta_hashes_agree(struct fx_world *w, uint32_t change_blk, bool *ok, bool *mounted)
{
	struct blkdev *child = blkdev_overlay(w->bd);
	struct sim_counters c = { 0 };
	struct jbd2_recovery_info ri;
	struct ext4_fs rec;
	uint8_t *b = malloc(w->o.block_size);
	bool same;

	assert_non_null(b);
	if (change_blk) {
		blkdev_read(w->bd, change_blk, b);
		b[7] ^= 0x5a;
		blkdev_write_durable(child, change_blk, b);
	}
	*mounted = ext4_fill_super(&rec, child, &w->o, &w->sem, &c, &ri) == 0;
	*ok = *mounted && chk_meta_as_expected(&w->fs, false, &rec);
	same = !*mounted ||
	       *ok == (chk_expected_meta_hash(&w->fs, false) == chk_device_meta_hash(&rec));
	ext4_free_fs(&rec);             /* a failed mount leaves what it had loaded */
	blkdev_destroy(child);
	free(b);
	return same;
}

static void test_checker__meta_comparison_equals_the_hashes(void **state)
{
	struct fx_world *w = world_new(1024, DATA_ORDERED, true);
	uint32_t *set, n, free_blk;
	unsigned refused = 0;
	bool ok, mounted;

	(void)state;
	step_write(w, 0, 5000, 0x11);
	step_fsync(w);
	step_truncate(w, 2000);                 /* committed: recovery replays it */
	begin(w);
	jbd2_journal_commit_transaction(&w->fs.journal);
	end(w);
	blkdev_complete_all(w->bd);             /* the log on the media, not checkpointed */
	blkdev_flush(w->bd, "blkdev_issue_flush");
	assert_true(w->fs.journal.j_nr_cp > 0);
	assert_true(meta_hashes_agree(w, 0, &ok, &mounted));
	assert_true(mounted && ok);
	for (uint32_t i = 0; i < w->fs.journal.j_nr_cp; i++) {  /* repaired by the replay */
		if (!w->fs.journal.j_cp[i].cp_blocknr)
			continue;
		assert_true(meta_hashes_agree(w, w->fs.journal.j_cp[i].cp_blocknr, &ok, &mounted));
		assert_true(!mounted || ok);
	}
	set = ext4_journaled_set(&w->fs, &n);
	for (uint32_t s = 0; s < n; s++) {
		bool logged = false;

		for (uint32_t i = 0; i < w->fs.journal.j_nr_cp; i++)
			logged = logged || w->fs.journal.j_cp[i].cp_blocknr == set[s];
		if (logged)
			continue;
		assert_true(meta_hashes_agree(w, set[s], &ok, &mounted));
		assert_false(ok);
		refused += mounted;     /* mounted, and the difference seen */
	}
	free(set);
	assert_true(refused > 0);
	free_blk = w->fs.lay.data_start;        /* a free data block: no metadata */
	while (!ext4_is_data_block(&w->fs, free_blk) || ext4_bitmap_bit(&w->fs, free_blk))
		free_blk++;
	assert_true(meta_hashes_agree(w, free_blk, &ok, &mounted));
	assert_true(mounted && ok);
	fx_world_free(w);
}

/* ------------------------------------------------------------------ */
/* the log summary                                                     */

#define MODES 3

static const enum chk_log_mode modes[MODES] = { CHK_LOG_FULL, CHK_LOG_SUMMARY, CHK_LOG_EAGER };

static const uint8_t fills[] = { 0x11, 0x22, 0x33, 0, BLKDEV_SENTINEL };

/* What a run reported: every violation, in order. */
struct verdicts {
	struct chk_violation *v;
	uint32_t nr;
	uint32_t most_entries;          /* the largest chk_log_entries() seen */
	uint32_t last_entries;
};

static void verdicts_compare(const struct verdicts *a, const struct verdicts *b, int m,
			     const char *what)
{
	if (a->nr != b->nr)
		fail_msg("%s: %u violations with the full log, %u in mode %d", what, a->nr, b->nr, m);
	for (uint32_t i = 0; i < a->nr; i++)
		if (a->v[i].inv != b->v[i].inv || a->v[i].step != b->v[i].step ||
		    strcmp(a->v[i].msg, b->v[i].msg) != 0)
			fail_msg("%s: mode %d reports '%s' at step %u, the full log '%s' at step %u",
				 what, m, b->v[i].msg, b->v[i].step, a->v[i].msg, a->v[i].step);
}

/* A fallocate(2) the model may refuse; the checker hears of it only if done. */
static void do_falloc(struct fx_world *w, int mode, int64_t off, int64_t len)
{
	if (ext4_fallocate(&w->fs, mode, off, len) != 0)
		return;
	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		chk_note_collapse(&w->chk, off, len);
	else if (mode & FALLOC_FL_INSERT_RANGE)
		chk_note_insert(&w->chk, off, len);
	else
		chk_note_zero(&w->chk, off, len, !(mode & FALLOC_FL_KEEP_SIZE));
}

/* Crash; then bytes @v over [a, b) of file block @lblk on the device, if it is mapped. */
static void tamper(struct fx_world *w, uint32_t lblk, uint32_t a, uint32_t b, uint8_t v)
{
	uint32_t pblk, len;
	uint8_t *buf;
	bool mapped = es_lookup(&w->fs.inode->i_es, lblk, &pblk, &len) == ES_WRITTEN;

	fx_world_crash(w);
	if (!mapped)
		return;
	buf = malloc(w->o.block_size);
	assert_non_null(buf);
	blkdev_read(w->bd, pblk, buf);
	memset(buf + a, v, b - a);
	blkdev_write_durable(w->bd, pblk, buf);
	free(buf);
}

/* A crash, random bytes over part of the device's file data, recovery and the judgment. */
static void crash(struct fx_world *w, struct prng *g)
{
	uint32_t bs = w->o.block_size, a = (uint32_t)prng_below(g, bs);
	uint32_t b = a + 1 + (uint32_t)prng_below(g, bs - a);
	uint32_t lblk = (uint32_t)prng_below(g, 3);
	uint8_t v = fills[prng_below(g, sizeof(fills))] ^ (uint8_t)prng_below(g, 2);
	uint64_t expected = chk_expected_meta_hash(&w->fs, false);

	tamper(w, lblk, a, b, prng_below(g, 3) ? v : 0);
	fx_world_mount(w);
	chk_after_recovery(&w->chk, &w->fs, w->step, expected, chk_device_meta_hash(&w->fs));
}

/* One random step, drawn from @g, in world @w; without @all, no crash and no shift. */
static void random_step(struct fx_world *w, struct prng *g, bool all)
{
	int64_t bs = w->o.block_size, off = (int64_t)prng_below(g, 2 * (uint64_t)bs);
	int64_t len = 1 + (int64_t)prng_below(g, prng_below(g, 2) ? 64 : (uint64_t)bs), got;
	uint64_t op = prng_below(g, all ? 10 : 7);
	uint8_t v = fills[prng_below(g, 4)];

	w->step++;
	chk_step_begin(&w->chk, &w->fs);
	if (op <= 2) {
		assert_int_equal(ext4_file_write(&w->fs, off, len, v, len, &got), 0);
		chk_note_write(&w->chk, off, got, v);
	} else if (op == 3) {
		assert_int_equal(ext4_setattr_size(&w->fs, off + len), 0);
		chk_note_truncate(&w->chk, off + len);
	} else if (op == 4) {
		assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, prng_below(g, 2)), 0);
		chk_note_durable(&w->chk);
	} else if (op == 5) {
		assert_int_equal(ext4_writepages(&w->fs, 0, INT64_MAX, WB_SYNC_NONE, true), 0);
	} else if (op == 6) {
		do_falloc(w, prng_below(g, 2) ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
			  FALLOC_FL_ZERO_RANGE, off, len);
	} else if (op == 7 || op == 8) {
		do_falloc(w, op == 7 ? FALLOC_FL_COLLAPSE_RANGE : FALLOC_FL_INSERT_RANGE,
			  (off / bs) * bs, (1 + (int64_t)prng_below(g, 2)) * bs);
	} else {
		crash(w, g);
	}
	ext4_check_state(&w->fs);
	chk_step_end(&w->chk, &w->fs, w->step);
}

/* A run of @steps random steps (seed @seed) with the log kept as @mode: what it reported. */
static void run_one(const struct ext4_mount_opts *o, enum chk_log_mode mode, uint64_t seed,
		    unsigned steps, bool all, struct verdicts *out)
{
	struct fx_world *w = fx_world_new(o);

	chk_set_log_mode(&w->chk, mode);
	memset(out, 0, sizeof(*out));
	for (unsigned s = 0; s < steps; s++) {
		struct prng g;

		prng_seed(&g, seed * 1000003 + s);
		random_step(w, &g, all);
		out->most_entries = SIM_MAX(out->most_entries, chk_log_entries(&w->chk));
	}
	out->last_entries = chk_log_entries(&w->chk);
	out->nr = w->chk.nr_v;
	out->v = malloc((w->chk.nr_v + 1) * sizeof(*out->v));
	assert_non_null(out->v);
	memcpy(out->v, w->chk.v, w->chk.nr_v * sizeof(*out->v));
	fx_world_free(w);
}

/* @runs sequences of @steps random steps under one configuration, in the three modes. */
static void compare_runs(uint32_t bs, enum ext4_data_mode data, bool delalloc, uint64_t seed,
			 unsigned runs, unsigned steps)
{
	struct ext4_mount_opts o = fx_opts(bs, data, delalloc, FX_DISK_BLOCKS);

	for (unsigned r = 0; r < runs; r++) {
		struct verdicts v[MODES];
		char what[96];

		snprintf(what, sizeof(what), "bs %u data %d delalloc %d seed %llu run %u", bs,
			 (int)data, delalloc, (unsigned long long)seed, r);
		for (int m = 0; m < MODES; m++)
			run_one(&o, modes[m], seed * 7919 + r, steps, true, &v[m]);
		for (int m = 1; m < MODES; m++)
			verdicts_compare(&v[0], &v[m], m, what);
		for (int m = 0; m < MODES; m++)
			free(v[m].v);
	}
}

static void test_checker_log__summary_judges_as_the_full_log(void **state)
{
	(void)state;
	compare_runs(1024, DATA_ORDERED, true, 1, 150, 40);
	compare_runs(4096, DATA_ORDERED, false, 2, 150, 40);
	compare_runs(2048, DATA_WRITEBACK, true, 3, 150, 40);
	compare_runs(1024, DATA_JOURNAL, false, 4, 150, 40);
}

/*
 * The comparison can fail: a checker whose log lost the write after a durable
 * point reports that write's bytes in the gap, one that kept it does not.
 */
static uint32_t lost_entry_run(bool lose)
{
	struct ext4_mount_opts o = fx_opts(4096, DATA_ORDERED, true, FX_DISK_BLOCKS);
	struct fx_world *w = fx_world_new(&o);
	uint64_t expected;
	uint32_t nr;
	int64_t got;

	assert_int_equal(ext4_file_write(&w->fs, 0, 1000, 0x11, 1000, &got), 0);
	chk_note_write(&w->chk, 0, 1000, 0x11);
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	chk_note_durable(&w->chk);
	assert_int_equal(ext4_file_write(&w->fs, 1000, 500, 0x22, 500, &got), 0);
	chk_note_write(&w->chk, 1000, 500, 0x22);
	if (lose)
		w->chk.all_muts = 0;
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	expected = chk_expected_meta_hash(&w->fs, false);
	tamper(w, 0, 1000, 1500, 0x22);
	fx_world_mount(w);
	chk_after_recovery(&w->chk, &w->fs, 1, expected, chk_device_meta_hash(&w->fs));
	nr = w->chk.nr_v;
	fx_world_free(w);
	return nr;
}

static void test_checker_log__a_lost_entry_is_seen(void **state)
{
	(void)state;
	assert_int_equal(lost_entry_run(false), 0);
	assert_int_equal(lost_entry_run(true), 1);
}

/*
 * A long run without a crash or a shift: the summary keeps the log small, the
 * full log does not.  (A collapse or insert stays in the log as long as a
 * durable point before it does: docs/invariants.md, "The checker's log".)
 */
static void test_checker_log__summary_bounds_the_log(void **state)
{
	struct ext4_mount_opts o = fx_opts(1024, DATA_ORDERED, true, FX_DISK_BLOCKS);
	struct verdicts full, sum;

	(void)state;
	run_one(&o, CHK_LOG_FULL, 99, 20000, false, &full);
	run_one(&o, CHK_LOG_SUMMARY, 99, 20000, false, &sum);
	print_message("  log entries after 20000 steps: full %u, summary %u (at most %u)\n",
		      full.last_entries, sum.last_entries, sum.most_entries);
	assert_true(full.last_entries > 5000);
	assert_true(sum.most_entries < 1000);
	free(full.v);
	free(sum.v);
}

/*
 * What the summary keeps: the fills of one byte value merged where they touch
 * or overlap, apart where they do not, one size set at the smallest size.
 */
static void test_checker_log__summary_merges_only_touching_fills(void **state)
{
	struct chk_state c;

	(void)state;
	chk_init(&c, 1024);
	chk_set_log_mode(&c, CHK_LOG_EAGER);
	chk_note_write(&c, 0, 10, 0x11);
	chk_note_write(&c, 10, 5, 0x11);        /* touches: merged */
	chk_note_write(&c, 16, 4, 0x11);        /* a byte apart: kept apart */
	chk_note_write(&c, 2, 3, 0x22);         /* another value: kept apart */
	chk_note_truncate(&c, 18);
	chk_note_truncate(&c, 40);
	assert_int_equal(c.nr_muts, 4);
	assert_true(c.muts[0].kind == MUT_FILL && c.muts[0].byte == 0x11 && c.muts[0].off == 0 &&
		    c.muts[0].len == 15);
	assert_true(c.muts[1].kind == MUT_FILL && c.muts[1].off == 16 && c.muts[1].len == 4);
	assert_true(c.muts[2].kind == MUT_FILL && c.muts[2].byte == 0x22);
	assert_true(c.muts[3].kind == MUT_TRUNC && c.muts[3].off == 18);
	assert_true(c.size_lo == 0 && c.size_hi == 40);
	assert_int_equal(c.all_muts, 3);        /* the gaps' log keeps no size set */
	chk_destroy(&c);
}

/* ------------------------------------------------------------------ */
/* dio_sync_durable                                                    */

/* One direct write with kiocb flags @flags, the checker told as sim/run.c tells it. */
static void step_dio(struct fx_world *w, int64_t off, int64_t len, uint8_t fill, unsigned flags)
{
	int64_t got;
	unsigned how;

	begin(w);
	assert_int_equal(ext4_file_write_kiocb(&w->fs, off, len, fill, IOCB_DIRECT | flags, &got,
					       &how), 0);
	assert_int_equal(got, len);
	chk_note_write(&w->chk, off, got, fill);
	if (flags & IOCB_DSYNC)
		chk_note_dsync(&w->chk, off, got, fill);
	end(w);
}

/*
 * An extending RWF_DSYNC direct write whose size the kernel did not sync
 * (91562895f803 off): the crash keeps the old size, dio_sync_durable says
 * so; fsync_durable does not (no durable point since), and with the fix
 * nothing is reported.
 */
static void test_checker__dsync_direct_write_lost_size_is_reported(void **state)
{
	for (int fixed = 0; fixed < 2; fixed++) {
		struct ext4_mount_opts o = fx_opts(4096, DATA_ORDERED, true, FX_DISK_BLOCKS);
		struct fx_world *w = fx_world_format(&o);
		uint32_t from;

		w->sem.dio_extension_in_end_io = fixed;
		fx_world_mount(w);
		*state = w;
		step_dio(w, 0, 4096, 0x11, 0);
		step_fsync(w);
		step_dio(w, 4096, 4096, 0x22, IOCB_DSYNC);
		from = w->chk.nr_v;
		step_crash(w, NULL, 0);
		expect_reported(w, from, false, fixed ? 0 : BIT(INV_DIO_SYNC_DURABLE),
				fixed ? "with the fix" : "before the fix");
		fx_world_free(w);
		*state = NULL;
	}
}

/* A damaged block of a synced direct write is reported; a later write ends the promise. */
static void dsync_zero_block(struct fx_world *w, uint32_t pblk0)
{
	uint8_t zero[4096] = { 0 };

	blkdev_write_durable(w->bd, pblk0, zero);
}

static void test_checker__dsync_direct_write_bytes_promised_until_changed(void **state)
{
	struct fx_world *w = world_new(4096, DATA_ORDERED, true);
	uint32_t from;

	*state = w;
	step_dio(w, 0, 4096, 0x33, IOCB_DSYNC);
	from = w->chk.nr_v;
	step_crash(w, dsync_zero_block, 0);
	assert_true(reported(w, from, false) & BIT(INV_DIO_SYNC_DURABLE));
	step_dio(w, 0, 4096, 0x44, IOCB_DSYNC);
	step_write(w, 0, 4096, 0x55);           /* buffered, never synced: no promise left */
	from = w->chk.nr_v;
	step_crash(w, NULL, 0);
	assert_false(reported(w, from, false) & BIT(INV_DIO_SYNC_DURABLE));
	fx_world_free(w);
	*state = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_teardown(fn, fx_world_leftover)
		T(test_checker__invariant_names_round_trip),
		T(test_checker__dsync_direct_write_lost_size_is_reported),
		T(test_checker__dsync_direct_write_bytes_promised_until_changed),
		T(test_checker__clean_run_reports_no_counted_invariant),
		T(test_checker__delalloc_writes_and_reads_report_nothing),
		T(test_checker__disksize_above_size_is_reported),
		T(test_checker__disksize_short_with_nothing_pending_is_reported),
		T(test_checker__corrupt_cached_byte_is_reported),
		T(test_checker__unzeroed_gap_on_extend_is_reported),
		T(test_checker__block_free_in_bitmap_is_reported),
		T(test_checker__written_block_past_eof_is_reported_unless_orphan),
		T(test_checker__alloc_cases_have_their_own_words),
		T(test_checker__folio_lock_under_handle_is_reported),
		T(test_checker__fsynced_data_changed_on_disk_is_reported),
		T(test_checker__journal_not_replayed_as_committed_is_reported),
		T(test_checker__nonzero_tail_past_eof_on_disk_is_reported),
		T(test_checker__nonzero_durable_gap_is_reported),
		T(test_checker__preallocated_blocks_lost_after_fdatasync_are_reported),
		T(test_checker__replace_via_truncate_left_empty_is_noted),
		T(test_checker__shifted_bytes_after_a_crash_are_allowed),
		T(test_checker__eof_store_exposed_only_without_the_6_13_fixes),
		T(test_checker__zeroing_and_eof_stores_report_nothing),
		T(test_checker__meta_comparison_equals_the_hashes),
		T(test_checker_log__summary_judges_as_the_full_log),
		T(test_checker_log__a_lost_entry_is_seen),
		T(test_checker_log__summary_bounds_the_log),
		T(test_checker_log__summary_merges_only_touching_fills),
#undef T
	};

	return cmocka_run_group_tests_name("checker", tests, NULL, NULL);
}
