/*
 * test_snapshot.c - the per-step state of `run --json` (sim/snapshot.c).
 *
 * Small worlds (fixture.c) are driven through a delalloc write, writeback
 * started and not completed, a commit and an fsync, and the state's JSON
 * text is searched for what each must show: the durable size before and
 * after the fsync, the pending writes with their `crash --keep` numbers, a
 * delayed extent, a dirty folio with delayed buffers, the blocks of the
 * running transaction named by the layout, journaled data blocks with
 * their file block, runs of bytes capped at SNAP_BYTE_RUNS_MAX.  Taking a
 * snapshot changes nothing: two in a row give the same bytes, the FILE and
 * string forms agree, and the model's invariants still hold.  Where two
 * contents of the file differ (sim/content.c, what `diff` prints), the
 * bytes past the shorter one's EOF read "past EOF", not zeros, however
 * long and sparse the tail.
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
#include "content.h"
#include "ext4.h"
#include "fixture.h"
#include "snapshot.h"

/* A write(2) of @len bytes of @fill at @pos that must succeed whole. */
static void write_ok(struct fx_world *w, int64_t pos, int64_t len, uint8_t fill)
{
	int64_t done = 0;

	assert_int_equal(ext4_file_write(&w->fs, pos, len, fill, len, &done), 0);
	assert_int_equal(done, len);
	fx_world_check(w);
}

/* Fail, printing the JSON, unless it holds @want. */
static void assert_has(const char *json, const char *want)
{
	if (!strstr(json, want))
		fail_msg("missing %s in %s", want, json);
}

static void assert_lacks(const char *json, const char *unwanted)
{
	if (strstr(json, unwanted))
		fail_msg("unexpected %s in %s", unwanted, json);
}

/* 8 KiB of 0xaa through delalloc: delayed extent, dirty folios, nothing durable. */
static void test_snapshot__delalloc_write_is_delayed_and_not_durable(void **state)
{
	struct fx_world *w = *state;
	char *s;

	write_ok(w, 0, 8192, 0xaa);
	s = snap_json_string(&w->fs);
	assert_has(s, "{\"i_size\": 8192, \"i_disksize\": 0, \"durable_size\": 0, ");
	assert_has(s, "\"extents\": [{\"lblk\": 0, \"len\": 2, \"state\": \"delayed\"}]");
	assert_has(s, "{\"index\": 0, \"flags\": [\"PG_uptodate\", \"PG_dirty\", \"PG_buffers\"], "
		   "\"buffers\": [{\"state\": [\"BH_Uptodate\", \"BH_Dirty\", \"BH_Mapped\", "
		   "\"BH_Delay\"]}]}");
	assert_has(s, "\"running\": null");
	assert_has(s, "\"pending\": [], ");
	assert_has(s, "\"file_blocks\": []");
	assert_has(s, "\"bytes\": {\"runs\": [{\"off\": 0, \"len\": 8192, \"byte\": 170}], "
		   "\"truncated\": false}");
	free(s);
}

/* sync_file_range -w: writes in flight, numbered as crash --keep counts them. */
static void test_snapshot__writeback_lists_pending_writes(void **state)
{
	struct fx_world *w = *state;
	char *s, want[400];

	write_ok(w, 0, 8192, 0xaa);
	assert_int_equal(ext4_sync_file_range(&w->fs, 0, 0, 'w'), 0);
	fx_world_check(w);
	assert_int_equal(w->bd->bd_nr_bios, 2);
	s = snap_json_string(&w->fs);
	assert_has(s, "\"state\": \"unwritten\", \"pblk\": ");
	assert_has(s, "{\"keep\": 1, \"seq\": ");
	assert_has(s, "{\"keep\": 2, \"seq\": ");
	assert_has(s, "\"what\": \"data\", \"state\": \"in_flight\", \"fua\": false, "
		   "\"kind\": \"data\"}");
	assert_has(s, "\"file_blocks\": [{\"lblk\": 0, \"len\": 2, \"pblk\": ");
	assert_has(s, "\"state\": \"in_flight\"}]");
	/* the group's descriptor block and block bitmap, the file's inode-table block */
	snprintf(want, sizeof(want), "\"running\": {\"tid\": 1, \"state\": \"running\", "
		 "\"updates\": 0, \"blocks\": [{\"blocknr\": %u, \"what\": \"group descriptors\"}, "
		 "{\"blocknr\": %u, \"what\": \"bitmap\"}, {\"blocknr\": %u, \"what\": \"inode\"}]",
		 w->fs.lay.first_data_block + 1, ext4_block_bitmap(&w->fs, 0), w->fs.lay.inode_blk);
	assert_true(w->fs.lay.first_data_block + 1 < ext4_block_bitmap(&w->fs, 0));
	assert_true(ext4_block_bitmap(&w->fs, 0) < w->fs.lay.inode_blk);
	assert_has(s, want);
	assert_has(s, "\"durable_size\": 0, ");
	assert_has(s, "PG_writeback");
	assert_has(s, "BH_Async_Write");
	free(s);
}

/* A commit makes the size durable before the data; the log holds tid 1. */
static void test_snapshot__commit_logs_the_transaction(void **state)
{
	struct fx_world *w = *state;
	char *s, want[300];

	write_ok(w, 0, 8192, 0xaa);
	assert_int_equal(ext4_sync_file_range(&w->fs, 0, 0, 'w'), 0);
	jbd2_journal_commit_transaction(&w->fs.journal);
	fx_world_check(w);
	s = snap_json_string(&w->fs);
	assert_has(s, "\"durable_size\": 8192, ");
	assert_has(s, "\"running\": null, \"committing\": null, \"logged\": [{\"tid\": 1, "
		   "\"start\": 1, \"length\": 5}]");
	snprintf(want, sizeof(want), "\"checkpoint\": [{\"blocknr\": %u, \"tid\": 1, "
		 "\"what\": \"group descriptors\"}, {\"blocknr\": %u, \"tid\": 1, \"what\": \"bitmap\"}",
		 w->fs.lay.first_data_block + 1, ext4_block_bitmap(&w->fs, 0));
	assert_has(s, want);
	assert_has(s, "\"commit_sequence\": 1, ");
	assert_has(s, "{\"keep\": 1, ");      /* the data writes are still in flight */
	free(s);
}

/* fsync: durable size 0 before, 8192 after; nothing pending, blocks durable. */
static void test_snapshot__fsync_makes_the_size_durable(void **state)
{
	struct fx_world *w = *state;
	int64_t size = -1;
	char *s;

	write_ok(w, 0, 8192, 0xaa);
	assert_true(snap_durable_size(&w->fs, &size));
	assert_int_equal(size, 0);
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	fx_world_check(w);
	assert_true(snap_durable_size(&w->fs, &size));
	assert_int_equal(size, 8192);
	s = snap_json_string(&w->fs);
	assert_has(s, "\"i_disksize\": 8192, \"durable_size\": 8192, ");
	assert_has(s, "\"pending\": [], ");
	assert_has(s, "\"state\": \"durable\"}]");
	assert_lacks(s, "\"in_flight\"");
	assert_lacks(s, "\"volatile\"");
	free(s);
}

/* Two snapshots in a row are equal, to a FILE as to a string; the world is untouched. */
static void test_snapshot__is_side_effect_free(void **state)
{
	struct fx_world *w = *state;
	uint64_t flushes, next_seq;
	char *a, *b, *c = NULL;
	size_t n = 0;
	FILE *f;

	write_ok(w, 0, 6000, 0x11);
	assert_int_equal(ext4_sync_file_range(&w->fs, 0, 0, 'w'), 0);
	flushes = w->bd->bd_flushes;
	next_seq = w->bd->bd_next_seq;
	a = snap_json_string(&w->fs);
	b = snap_json_string(&w->fs);
	f = open_memstream(&c, &n);
	assert_non_null(f);
	snap_json(f, &w->fs);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(a, b);
	assert_string_equal(a, c);
	assert_int_equal(w->bd->bd_flushes, flushes);
	assert_int_equal(w->bd->bd_next_seq, next_seq);
	fx_world_check(w);
	free(a);
	free(b);
	free(c);
}

/* Past SNAP_BYTE_RUNS_MAX runs the list stops and says so; holes read as zeros. */
static void test_snapshot__byte_runs_are_capped(void **state)
{
	struct fx_world *w = *state;
	char *s, want[96];

	for (int i = 0; i < SNAP_BYTE_RUNS_MAX + 8; i++)
		write_ok(w, (int64_t)i * 8, 8, (uint8_t)(i % 2 ? 0x22 : 0x11));
	s = snap_json_string(&w->fs);
	assert_has(s, "\"truncated\": true}");
	snprintf(want, sizeof(want), "{\"off\": %d, \"len\": 8, \"byte\": 34}]",
		 (SNAP_BYTE_RUNS_MAX - 1) * 8);
	assert_has(s, want);
	free(s);
	write_ok(w, 1 << 20, 10, 0x33);         /* a hole before it */
	s = snap_json_string(&w->fs);
	assert_has(s, "\"truncated\": true}");
	free(s);
}

/* A hole between two writes is one run of zeros, read without a folio. */
static void test_snapshot__hole_is_one_zero_run(void **state)
{
	struct fx_world *w = *state;
	char *s;

	write_ok(w, 0, 100, 0x41);
	write_ok(w, 1 << 20, 100, 0x42);
	s = snap_json_string(&w->fs);
	assert_has(s, "\"runs\": [{\"off\": 0, \"len\": 100, \"byte\": 65}, {\"off\": 100, "
		   "\"len\": 1048476, \"byte\": 0}, {\"off\": 1048576, \"len\": 100, "
		   "\"byte\": 66}], \"truncated\": false}");
	free(s);
}

/* data=journal: the running transaction carries the data block with its file block. */
static void test_snapshot__journaled_data_names_the_file_block(void **state)
{
	struct ext4_mount_opts o = fx_opts(1024, DATA_JOURNAL, false, FX_DISK_BLOCKS);
	struct fx_world *w = fx_world_new(&o);
	char *s;

	*state = w;
	write_ok(w, 1024, 1024, 0x5a);
	s = snap_json_string(&w->fs);
	assert_has(s, "\"what\": \"data\", \"lblk\": 1}");
	assert_has(s, "BH_JBDDirty");
	assert_has(s, "\"what\": \"inode\"}");
	free(s);
	fx_world_free(w);
	*state = NULL;
}

/* The bytes past one side's EOF are past EOF, never 0x00; a sparse tail costs its pages. */
static void test_snapshot__content_diff_past_eof(void **state)
{
	struct fx_world *w = *state;
	struct sim_content a, b, c;
	char text[1024];

	write_ok(w, 0, 32, 0x11);
	sim_content_capture(&w->fs, true, &a);
	write_ok(w, 32, 32, 0x22);
	sim_content_capture(&w->fs, true, &b);
	assert_int_equal(sim_content_diff(&a, &b, 8, text, sizeof(text)), 2);
	assert_string_equal(text, "size 32 | 64\n[32, 64): past EOF | 0x22\n");
	assert_int_equal(sim_content_diff(&b, &a, 8, text, sizeof(text)), 2);
	assert_string_equal(text, "size 64 | 32\n[32, 64): 0x22 | past EOF\n");
	write_ok(w, 1 << 30, 1, 0x33);          /* zeros up to it, in no page */
	sim_content_capture(&w->fs, true, &c);
	assert_int_equal(sim_content_diff(&a, &c, 8, text, sizeof(text)), 2);
	assert_string_equal(text, "size 32 | 1073741825\n[32, 1073741825): past EOF | 0x22 x32, "
			    "0x00 x1073741760, 0x33 x1\n");
	sim_content_free(&a);
	sim_content_free(&b);
	sim_content_free(&c);
}

#define W(fn) cmocka_unit_test_setup_teardown(fn, fx_world_setup, fx_world_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		W(test_snapshot__delalloc_write_is_delayed_and_not_durable),
		W(test_snapshot__writeback_lists_pending_writes),
		W(test_snapshot__commit_logs_the_transaction),
		W(test_snapshot__fsync_makes_the_size_durable),
		W(test_snapshot__is_side_effect_free),
		W(test_snapshot__byte_runs_are_capped),
		W(test_snapshot__hole_is_one_zero_run),
		W(test_snapshot__content_diff_past_eof),
		cmocka_unit_test_teardown(test_snapshot__journaled_data_names_the_file_block,
					  fx_world_leftover),
	};

	return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}
