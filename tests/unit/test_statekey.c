/*
 * test_statekey.c - the state key of sim/statekey.c and the fork of
 * sim_stream_fork: a fork has its source's key and runs on exactly as the
 * source does; each part the key covers, changed alone in a fork, changes
 * the key; what it leaves out (the run counters) does not.
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
#include "fixture.h"
#include "namespace.h"
#include "run.h"
#include "world.h"

static struct sim_variant_cfg cfg;
static struct sim_options opts;

static void step(struct sim_stream *ss, const char *text)
{
	char err[SCN_ERR_MAX];
	struct scn_step st;
	unsigned col;

	assert_int_equal(scn_parse_step(text, &st, err, sizeof(err), &col), 0);
	sim_stream_step(ss, &st, true);
}

/* A world with durable data, pending writes, a running transaction and dirty folios. */
static struct sim_stream *busy_world(void)
{
	struct sim_stream *ss;

	cfg = (struct sim_variant_cfg){ .opts = fx_opts(1024, DATA_ORDERED, true, 16384),
					.sem = *fx_default_sem() };
	opts = (struct sim_options){ .quiet = true, .crash_bound = 64, .crash_everywhere = true };
	ss = sim_stream_open(&cfg, &opts);
	step(ss, "pwrite -S 0x11 0 1500");
	step(ss, "fsync");
	step(ss, "pwrite -S 0x22 2048 1024");
	step(ss, "sync_range -w 0 0");
	step(ss, "pwrite -S 0x33 8192 100");
	return ss;
}

static bool key_equal(struct sim_stream *a, struct sim_stream *b)
{
	uint64_t ka[2], kb[2];

	sim_stream_key(a, ka);
	sim_stream_key(b, kb);
	return ka[0] == kb[0] && ka[1] == kb[1];
}

typedef void (*change_fn)(struct world *w);

static void ch_durable(struct world *w)
{
	uint8_t buf[1024];

	blkdev_read_durable(w->bd, 0, buf);
	buf[100] ^= 1;
	blkdev_write_durable(w->bd, 0, buf);
}
static void ch_bio(struct world *w) { w->bd->bd_bios[0].b_data[7] ^= 1; }
static void ch_bio_state(struct world *w) { w->bd->bd_bios[0].b_state ^= 1; }
static void ch_next_seq(struct world *w) { w->bd->bd_next_seq++; }
static void ch_meta(struct world *w) { ext4_meta_bh(&w->fs, w->fs.lay.inode_blk)[3] ^= 1; }
/* The first block the allocator may hand out, taken out of its free map. */
static void ch_free_map(struct world *w)
{
	uint32_t b = 0;

	assert_true(bitmap_next_set(w->fs.free_map, w->fs.lay.data_start, &b));
	bitmap_remove_range(w->fs.free_map, b, (uint64_t)b + 1);
}
static void ch_free_count(struct world *w) { w->fs.s_freeclusters++; }
static void ch_i_size(struct world *w) { w->fs.inode->i_size++; }
static void ch_i_disksize(struct world *w) { w->fs.inode->i_disksize++; }
static void ch_i_flags(struct world *w) { w->fs.inode->i_flags ^= EXT4_SYNC_FL; }
static void ch_extent(struct world *w) { w->fs.inode->i_es.es[0].es_pblk++; }
static void ch_folio_data(struct world *w) { w->fs.inode->i_mapping.a_folios[0]->data[5] ^= 1; }
static void ch_folio_bh(struct world *w) { w->fs.inode->i_mapping.a_folios[0]->bh[1].b_state ^= BH_New; }
static void ch_folio_flags(struct world *w) { w->fs.inode->i_mapping.a_folios[0]->flags ^= PG_mkwrite; }
static void ch_j_head(struct world *w) { w->fs.journal.j_head++; }
static void ch_j_seq(struct world *w) { w->fs.journal.j_commit_sequence++; }
static void ch_tx(struct world *w) { w->fs.journal.j_running_transaction->t_inodes[0].i_dirty_end++; }
/* The first bio still in flight (finished ones leave holes in ios[]). */
static void ch_ios(struct world *w)
{
	uint32_t i = 0;

	while (w->fs.ios[i].io_end == 0)
		i++;
	w->fs.ios[i].io_index++;
}
static void ch_posix(struct world *w) { w->chk->posix.r[0].r_byte ^= 1; }
static void ch_durable_ref(struct world *w) { w->chk->durable.size++; }
static void ch_muts(struct world *w) { w->chk->muts[0].byte ^= 1; }
static void ch_crash_muts(struct world *w) { w->chk->crash_muts[0].len++; }
static void ch_dps(struct world *w) { w->chk->dps[0].size++; }
static void ch_sentinel(struct world *w) { w->chk->sentinel_written ^= 1; }

static void test_statekey__each_part_changes_the_key(void **state)
{
	static const change_fn changes[] = {
		ch_durable, ch_bio, ch_bio_state, ch_next_seq, ch_meta, ch_free_map, ch_free_count,
		ch_i_size, ch_i_disksize, ch_i_flags, ch_extent, ch_folio_data, ch_folio_bh,
		ch_folio_flags, ch_j_head, ch_j_seq, ch_tx, ch_ios, ch_posix, ch_durable_ref,
		ch_muts, ch_crash_muts, ch_dps, ch_sentinel,
	};
	struct sim_stream *ss = busy_world();

	(void)state;
	assert_non_null(sim_stream_world(ss)->fs.journal.j_running_transaction);
	assert_true(sim_stream_world(ss)->bd->bd_nr_bios > 0);
	assert_true(sim_stream_world(ss)->fs.nr_ios > 0);
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		struct sim_stream *f = sim_stream_fork(ss);

		assert_true(key_equal(ss, f));
		changes[i](sim_stream_world(f));
		if (key_equal(ss, f))
			fail_msg("change %zu leaves the key as it was", i);
		sim_stream_free(f);
	}
	sim_stream_free(ss);
}

static void test_statekey__counters_left_out(void **state)
{
	struct sim_stream *ss = busy_world(), *f = sim_stream_fork(ss);

	(void)state;
	sim_stream_world(f)->c->commits += 5;
	sim_stream_world(f)->bd->bd_flushes += 2;
	assert_true(key_equal(ss, f));
	sim_stream_free(f);
	sim_stream_free(ss);
}

/* A fork runs on as its source: the same masks and, step after step, the same keys. */
static void test_statekey__fork_runs_as_source(void **state)
{
	static const char *const more[] = { "truncate 700", "fsync", "pwrite -S 0x44 500 3000",
					    "crash", "pwrite 0 10", "sync" };
	struct sim_stream *ss = busy_world(), *f = sim_stream_fork(ss);
	char err[SCN_ERR_MAX];
	struct scn_step st;
	unsigned col;

	(void)state;
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		assert_int_equal(scn_parse_step(more[i], &st, err, sizeof(err), &col), 0);
		assert_int_equal(sim_stream_step(ss, &st, true), sim_stream_step(f, &st, true));
		assert_true(key_equal(ss, f));
	}
	sim_stream_free(f);
	sim_stream_free(ss);
}

static bool crash_key_equal(struct sim_stream *a, struct sim_stream *b, uint32_t step_b)
{
	uint64_t ka[2], kb[2];
	const struct world *wa = sim_stream_world(a), *wb = sim_stream_world(b);

	world_crash_key(wa, wa->chk, 3, 0, 4096, ka);
	world_crash_key(wb, wb->chk, step_b, 0, 4096, kb);
	return ka[0] == kb[0] && ka[1] == kb[1];
}

/*
 * The crash point's key (crash/cpmemo.c) changes with every part of the device
 * and of the checker, and with the step; not with the page cache, which a
 * crash loses.
 */
static void test_statekey__crash_key_covers_device_and_checker(void **state)
{
	static const change_fn changes[] = {
		ch_durable, ch_bio, ch_bio_state, ch_next_seq, ch_posix, ch_durable_ref, ch_muts,
		ch_crash_muts, ch_dps, ch_sentinel,
	};
	struct sim_stream *ss = busy_world(), *f;

	(void)state;
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		f = sim_stream_fork(ss);
		assert_true(crash_key_equal(ss, f, 3));
		changes[i](sim_stream_world(f));
		if (crash_key_equal(ss, f, 3))
			fail_msg("change %zu leaves the crash key as it was", i);
		sim_stream_free(f);
	}
	f = sim_stream_fork(ss);
	assert_false(crash_key_equal(ss, f, 4));
	ch_folio_data(sim_stream_world(f));
	assert_true(crash_key_equal(ss, f, 3));
	sim_stream_free(f);
	sim_stream_free(ss);
}

/*
 * A namespace world, judged as one from mkfs: two directories, files, a
 * hard and a symbolic link, an attribute, a file open and unlinked (on the
 * orphan list), a directory fsynced (a promise), names touched since.
 */
static struct sim_stream *ns_world(void)
{
	struct sim_stream *ss;

	cfg = (struct sim_variant_cfg){ .opts = fx_opts(1024, DATA_ORDERED, true, 16384),
					.sem = *fx_default_sem() };
	opts = (struct sim_options){ .quiet = true, .crash_bound = 64, .crash_everywhere = true };
	ss = sim_stream_open(&cfg, &opts);
	sim_stream_namespace(ss);
	step(ss, "mkdir /A");
	step(ss, "creat /A/x");
	step(ss, "fsync /A");
	step(ss, "open -f /g");
	step(ss, "pwrite -S 0x11 0 3000");
	step(ss, "link /g /A/y");
	step(ss, "symlink ../g /A/l");
	step(ss, "setxattr /g user.a v");
	step(ss, "unlink /g");
	step(ss, "unlink /A/y");
	step(ss, "mkdir /B");
	return ss;
}

/* An in-core inode that is neither the current one nor a directory. */
static struct ext4_inode_info *other_inode(struct world *w, bool dir)
{
	for (uint32_t i = 0; i < w->fs.s_nr_inodes; i++) {
		struct ext4_inode_info *in = w->fs.s_inodes[i];

		if (in != w->fs.inode && S_ISDIR(in->i_mode) == dir && in->i_ino > 12)
			return in;
	}
	fail_msg("no other in-core inode");
	return NULL;
}
static struct chk_ns_version *last_version(struct world *w)
{
	assert_true(w->ns->ns_nr_ver > 0);
	return &w->ns->ns_ver[w->ns->ns_nr_ver - 1];
}
static void ch_ns_other_size(struct world *w) { other_inode(w, false)->i_size++; }
static void ch_ns_other_extent(struct world *w)
{
	struct ext4_inode_info *in = other_inode(w, true);

	assert_true(in->i_es.es_nr > 0);
	in->i_es.es[0].es_pblk++;
}
static void ch_ns_links(struct world *w) { other_inode(w, true)->i_links_count++; }
static void ch_ns_open(struct world *w) { w->fs.inode->i_open++; }
static void ch_ns_next_orphan(struct world *w) { w->fs.inode->i_next_orphan++; }
static void ch_ns_generation(struct world *w) { other_inode(w, false)->i_generation++; }
static void ch_ns_current(struct world *w) { w->fs.inode = other_inode(w, false); }
static void ch_ns_ticks(struct world *w) { w->fs.s_time_ticks ^= 1; }
/* A byte of directory /A's block (a metadata buffer). */
static void ch_ns_dir_block(struct world *w)
{
	struct ext4_inode_info *in = other_inode(w, true);

	ext4_meta_bh(&w->fs, (uint32_t)in->i_es.es[0].es_pblk)[40] ^= 1;
}
static void ch_ns_ref_inode(struct world *w) { w->ns->ns_inodes[w->ns->ns_nr_inodes - 1].ni_size++; }
static void ch_ns_ref_xattr(struct world *w)
{
	for (uint32_t i = 0; i < w->ns->ns_nr_inodes; i++)
		if (w->ns->ns_inodes[i].ni_nr_xattrs) {
			w->ns->ns_inodes[i].ni_xattrs[0].x_value[0] ^= 1;
			return;
		}
	fail_msg("no attribute in the reference");
}
static void ch_ns_ref_name(struct world *w) { last_version(w)->nv_names[1].nn_path[1] ^= 1; }
static void ch_ns_ref_nlink(struct world *w) { last_version(w)->nv_nlink[1]++; }
static void ch_ns_ref_versions(struct world *w) { w->ns->ns_nr_ver--; }
static void ch_ns_promise(struct world *w)
{
	assert_true(w->ns->ns_nr_p > 0);
	w->ns->ns_p[0].p_changes++;
}
static void ch_ns_touch(struct world *w)
{
	assert_true(w->ns->ns_nr_touch > 0);
	w->ns->ns_touch[0].t_op++;
}
static void ch_ns_epoch(struct world *w) { w->ns->ns_epoch++; }
static void ch_ns_mute(struct world *w) { w->chk->c_mute ^= 1; }

/*
 * A fork's reference holds as many versions as its source's (the fork copied
 * them all): ch_ns_ref_versions hides one from the key, and the fork must
 * free it.
 */
static void ns_own_versions(struct sim_stream *f, struct sim_stream *src)
{
	sim_stream_world(f)->ns->ns_nr_ver = sim_stream_world(src)->ns->ns_nr_ver;
}

static const change_fn ns_changes[] = {
	ch_ns_other_size, ch_ns_other_extent, ch_ns_links, ch_ns_open, ch_ns_next_orphan,
	ch_ns_generation, ch_ns_current, ch_ns_ticks, ch_ns_dir_block, ch_ns_ref_inode,
	ch_ns_ref_xattr, ch_ns_ref_name, ch_ns_ref_nlink, ch_ns_ref_versions, ch_ns_promise,
	ch_ns_touch, ch_ns_epoch, ch_ns_mute,
};

/*
 * The namespace's parts of the key: every in-core inode, which one is
 * current, the clock, a directory's block, the namespace reference (its
 * inodes, attributes, names, link counts, versions, promises, touched names,
 * counters), each changed alone in a fork; and a fork runs on as its source.
 */
static void test_statekey__namespace_parts_change_the_key(void **state)
{
	static const char *const more[] = { "rename /A/x /B/x", "fsync", "close", "crash", "unlink /A/l" };
	struct sim_stream *ss = ns_world(), *f;
	char err[SCN_ERR_MAX];
	struct scn_step st;
	unsigned col;

	(void)state;
	assert_non_null(sim_stream_world(ss)->ns);
	assert_true(sim_stream_world(ss)->fs.inode->i_orphan);
	for (size_t i = 0; i < sizeof(ns_changes) / sizeof(ns_changes[0]); i++) {
		f = sim_stream_fork(ss);
		assert_true(key_equal(ss, f));
		ns_changes[i](sim_stream_world(f));
		if (key_equal(ss, f))
			fail_msg("namespace change %zu leaves the key as it was", i);
		ns_own_versions(f, ss);
		sim_stream_free(f);
	}
	f = sim_stream_fork(ss);
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		assert_int_equal(scn_parse_step(more[i], &st, err, sizeof(err), &col), 0);
		assert_int_equal(sim_stream_step(ss, &st, true), sim_stream_step(f, &st, true));
		assert_true(key_equal(ss, f));
	}
	sim_stream_free(f);
	sim_stream_free(ss);
}

/* A crash point's key covers the namespace reference and the other inodes' metadata blocks. */
static void test_statekey__crash_key_covers_namespace(void **state)
{
	static const change_fn changes[] = {
		ch_ns_other_extent, ch_ns_current, ch_ns_ref_inode, ch_ns_ref_xattr, ch_ns_ref_name,
		ch_ns_ref_nlink, ch_ns_ref_versions, ch_ns_promise, ch_ns_touch, ch_ns_epoch,
	};
	struct sim_stream *ss = ns_world(), *f;

	(void)state;
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		f = sim_stream_fork(ss);
		assert_true(crash_key_equal(ss, f, 3));
		changes[i](sim_stream_world(f));
		if (crash_key_equal(ss, f, 3))
			fail_msg("namespace change %zu leaves the crash key as it was", i);
		ns_own_versions(f, ss);
		sim_stream_free(f);
	}
	sim_stream_free(ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statekey__each_part_changes_the_key),
		cmocka_unit_test(test_statekey__counters_left_out),
		cmocka_unit_test(test_statekey__fork_runs_as_source),
		cmocka_unit_test(test_statekey__crash_key_covers_device_and_checker),
		cmocka_unit_test(test_statekey__namespace_parts_change_the_key),
		cmocka_unit_test(test_statekey__crash_key_covers_namespace),
	};

	return cmocka_run_group_tests_name("statekey", tests, NULL, NULL);
}
