/*
 * test_events.c - the model's event log (model/events.c) and its words
 * (sim/explain.c, crash/pending.c).
 *
 * Worlds from fixture.c get a log attached the way sim/run.c attaches one
 * (the device and the page cache); then a delalloc write, writeback that is
 * not waited for and a commit run through the model, and the log must say
 * what data=ordered promises in the order it promises it: the commit waits
 * for the ordered data, those writes complete, a flush makes them durable,
 * and only then is the commit block written with FUA.  Numbers run from 1
 * without gaps, each completion names an earlier submission of the same
 * block, a pending write keeps its submit event's number and file block,
 * and recording changes nothing the model computes.  The log's observer sees
 * each event once, in order, after the state change it names (a FUA write's
 * completion: the block on the media).
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

#include "crashstates.h"
#include "events.h"
#include "explain.h"
#include "fixture.h"
#include "pending.h"

/* A world with dioread_nolock off (written extents on the ordered list), logging into @log. */
static struct fx_world *logged_world(struct ev_log *log)
{
	struct ext4_mount_opts o = fx_opts(4096, DATA_ORDERED, true, FX_DISK_BLOCKS);
	struct fx_world *w;

	o.dioread_nolock = false;
	w = fx_world_new(&o);
	if (log != NULL) {
		memset(log, 0, sizeof(*log));
		w->bd->bd_events = log;
		w->fs.inode->i_mapping.a_events = log;
	}
	return w;
}

/* 8 KiB written, writeback started and not waited for: two data writes in flight. */
static void write_writeback(struct fx_world *w)
{
	int64_t done = 0;

	assert_int_equal(ext4_file_write(&w->fs, 0, 8192, 0xaa, 8192, &done), 0);
	assert_int_equal(done, 8192);
	assert_int_equal(ext4_writepages(&w->fs, 0, INT64_MAX, WB_SYNC_NONE, true), 0);
	assert_int_equal(w->bd->bd_nr_bios, 2);
	fx_world_check(w);
}

/* ... then a commit. */
static void write_writeback_commit(struct fx_world *w)
{
	write_writeback(w);
	jbd2_journal_commit_transaction(&w->fs.journal);
	fx_world_check(w);
}

/* The index of the first event of @type after @from (and with @b == b when b >= 0), or -1. */
static int find(const struct ev_log *log, int from, enum ev_type type, int64_t b)
{
	for (uint32_t i = (uint32_t)(from + 1); i < log->l_nr; i++)
		if (log->l_ev[i].ev_type == type && (b < 0 || log->l_ev[i].ev_b == b))
			return (int)i;
	return -1;
}

static void test_events__ordered_commit_waits_then_flushes_then_commits(void **state)
{
	struct ev_log log;
	struct fx_world *w = logged_world(&log);
	int wait, commit, flush, data;

	*state = w;
	write_writeback_commit(w);
	wait = find(&log, -1, EV_ORDERED_WAIT, -1);
	commit = find(&log, -1, EV_BIO_SUBMIT, BW_JCOMMIT);
	assert_true(wait >= 0);
	assert_true(commit > wait);
	assert_int_equal(log.l_ev[wait].ev_a, 1);               /* tid 1 */
	assert_int_equal(log.l_ev[commit].ev_d, 1);             /* the commit block of tid 1 */
	assert_int_equal(log.l_ev[commit].ev_e, 1);             /* FUA */
	flush = find(&log, wait, EV_FLUSH, -1);
	assert_true(flush > wait && flush < commit);
	/* both data writes complete after the wait began and before the flush */
	data = find(&log, wait, EV_BIO_COMPLETE, BW_DATA);
	assert_true(data > wait && data < flush);
	data = find(&log, data, EV_BIO_COMPLETE, BW_DATA);
	assert_true(data > wait && data < flush);
	assert_int_equal(log.l_ev[data].ev_cause, EVC_ORDERED);
	fx_world_free(w);
	*state = NULL;
	ev_log_free(&log);
}

static void test_events__numbered_without_gaps_and_completions_name_submits(void **state)
{
	struct ev_log log;
	struct fx_world *w = logged_world(&log);

	*state = w;
	write_writeback_commit(w);
	assert_true(log.l_nr > 20);
	assert_int_equal(log.l_dropped, 0);
	for (uint32_t i = 0; i < log.l_nr; i++) {
		const struct sim_event *e = &log.l_ev[i];

		assert_int_equal(e->ev_no, i + 1);
		assert_non_null(e->ev_func);
		if (e->ev_type != EV_BIO_COMPLETE)
			continue;
		assert_true(e->ev_c >= 1 && e->ev_c < e->ev_no);        /* an earlier event */
		assert_int_equal(log.l_ev[e->ev_c - 1].ev_type, EV_BIO_SUBMIT);
		assert_int_equal(log.l_ev[e->ev_c - 1].ev_a, e->ev_a);  /* the same block */
	}
	fx_world_free(w);
	*state = NULL;
	ev_log_free(&log);
}

/* Pending writes keep their submit event and file block; the size rule is named. */
static void test_events__pending_writes_and_disksize_rule(void **state)
{
	struct ev_log log;
	struct fx_world *w = logged_world(&log);
	int disksize;

	*state = w;
	write_writeback(w);
	for (uint32_t i = 0; i < 2; i++) {
		const struct bio_info *bi = &w->bd->bd_bios[i].b_info;

		assert_int_equal(bi->bi_what, BW_DATA);
		assert_int_equal(bi->bi_lblk, i);
		assert_true(bi->bi_event >= 1 && bi->bi_event <= log.l_nr);
		assert_int_equal(log.l_ev[bi->bi_event - 1].ev_type, EV_BIO_SUBMIT);
		assert_int_equal(log.l_ev[bi->bi_event - 1].ev_c, i);
	}
	disksize = find(&log, -1, EV_I_DISKSIZE, 8192);
	assert_true(disksize >= 0);
	assert_string_equal(log.l_ev[disksize].ev_func, "mpage_map_and_submit_extent");
	assert_int_equal(log.l_ev[disksize].ev_a, 0);
	fx_world_free(w);
	*state = NULL;
	ev_log_free(&log);
}

/* What a run leaves that recording must not change. */
struct outcome {
	struct sim_counters c;
	int64_t i_disksize;
	uint32_t nr_bios;
	uint64_t flushes;
	uint32_t first_event;
};

static void run_and_keep(struct ev_log *log, struct outcome *out, void **state)
{
	struct fx_world *w = logged_world(log);

	*state = w;
	if (!log) {
		w->bd->bd_events = NULL;
		w->fs.inode->i_mapping.a_events = NULL;
	}
	write_writeback(w);
	out->first_event = w->bd->bd_bios[0].b_info.bi_event;
	jbd2_journal_commit_transaction(&w->fs.journal);
	fx_world_check(w);
	out->c = w->c;
	out->i_disksize = w->fs.inode->i_disksize;
	out->nr_bios = w->bd->bd_nr_bios;
	out->flushes = w->bd->bd_flushes;
	fx_world_free(w);
	*state = NULL;
}

/* Recording is only a record: the same steps without a log leave the same model. */
static void test_events__recording_changes_nothing(void **state)
{
	struct ev_log log;
	struct outcome a, b;

	run_and_keep(&log, &a, state);
	run_and_keep(NULL, &b, state);
	assert_memory_equal(&a.c, &b.c, sizeof(a.c));
	assert_int_equal(a.i_disksize, b.i_disksize);
	assert_int_equal(a.nr_bios, b.nr_bios);
	assert_int_equal(a.flushes, b.flushes);
	assert_true(a.first_event > 0);                 /* numbered with a log ... */
	assert_int_equal(b.first_event, 0);             /* ... and not without */
	ev_log_free(&log);
}

/* The words: a size rule with its toggle; which writes a keep list kept and lost. */
static void test_events__words_for_rules_and_kept_writes(void **state)
{
	struct ev_log log;
	struct fx_world *w = logged_world(&log);
	struct cs_point p = { 0 };
	struct cs_state st = { 0 };
	static const struct ext4_size_rule rule = EXT4_SIZE_RULE_TOGGLE("ext4_da_do_write_end",
		"the write ends inside a block already allocated on disk", da_end_skip_dirty);
	struct sim_event e = { .ev_no = 7, .ev_type = EV_I_DISKSIZE, .ev_func = "ext4_da_do_write_end",
			       .ev_rule = &rule, .ev_a = 0, .ev_b = 6 };
	char text[1024];

	*state = w;
	explain_size_event(&e, fx_default_sem(), text, sizeof(text));
	assert_non_null(strstr(text, "i_disksize 0 -> 6: ext4_da_do_write_end (the write ends"));
	assert_non_null(strstr(text, "toggle da_end_skip_dirty is on here"));
	write_writeback(w);
	cs_keep_writes(&p, w->bd);
	snprintf(st.example, sizeof(st.example), "crash --keep 2");
	cs_describe_writes(&w->fs.lay, &p, &st, text, sizeof(text));
	assert_non_null(strstr(text, "kept: 2 (e"));
	assert_non_null(strstr(text, ") data block 1 of the file (disk "));
	assert_non_null(strstr(text, "; lost: 1 (e"));
	snprintf(st.example, sizeof(st.example), "(3 writes kept in 3 ranges: ...)");
	cs_describe_writes(&w->fs.lay, &p, &st, text, sizeof(text));
	assert_string_equal(text, "");
	free(p.writes);
	fx_world_free(w);
	*state = NULL;
	ev_log_free(&log);
}

/*
 * A size change from a call no table lists, under an experimental toggle:
 * its rule travels with the change, so the explanation names the function,
 * the rule and the toggle's state with nothing registered anywhere else.
 */
static void test_events__size_rule_travels_with_the_change(void **state)
{
	static const struct ext4_size_rule grow = EXT4_SIZE_RULE_TOGGLE("ext4_test_only_grow",
		"a rule written at its call site only", exp_grow_zero_written_only);
	static const struct ext4_size_rule other = EXT4_SIZE_RULE("ext4_test_only_grow",
		"another rule of the same function");
	struct ev_log log;
	struct fx_world *w = logged_world(&log);
	struct ext4_semantics sem = *fx_default_sem();
	uint32_t first = log.l_nr;
	char text[1024];

	*state = w;
	i_size_write(&w->fs, 4096, &grow);
	ext4_set_i_disksize(&w->fs, 4096, &other);
	assert_int_equal(log.l_nr, first + 2);
	assert_string_equal(log.l_ev[first].ev_func, "ext4_test_only_grow");
	assert_ptr_equal(log.l_ev[first].ev_rule, &grow);
	explain_size_event(&log.l_ev[first], &sem, text, sizeof(text));
	assert_string_equal(text, "i_size 0 -> 4096: ext4_test_only_grow (a rule written at its "
			    "call site only); toggle exp_grow_zero_written_only is off here");
	sem.exp_grow_zero_written_only = true;
	explain_size_event(&log.l_ev[first], &sem, text, sizeof(text));
	assert_non_null(strstr(text, "toggle exp_grow_zero_written_only is on here"));
	explain_size_event(&log.l_ev[first + 1], &sem, text, sizeof(text));
	assert_string_equal(text, "i_disksize 0 -> 4096: ext4_test_only_grow (another rule of "
			    "the same function)");
	assert_true(explain_same_rule(&log.l_ev[first], &log.l_ev[first]));
	log.l_ev[first + 1].ev_type = EV_I_SIZE;        /* same function and type, other rule */
	assert_false(explain_same_rule(&log.l_ev[first], &log.l_ev[first + 1]));
	w->fs.inode->i_size = w->fs.inode->i_disksize = 0;
	fx_world_free(w);
	*state = NULL;
	ev_log_free(&log);
}

/* Past CS_WRITES_NAMED writes on one side, the rest are counted, never named. */
static void test_events__many_pending_writes_named_up_to_the_cap(void **state)
{
	struct ev_log log;
	struct fx_world *w = logged_world(&log);
	struct cs_point p = { 0 };
	struct cs_state st = { 0 };
	char text[8192];
	int64_t done = 0;

	*state = w;
	assert_int_equal(ext4_file_write(&w->fs, 0, 20 * 4096, 0xaa, 20 * 4096, &done), 0);
	assert_int_equal(ext4_writepages(&w->fs, 0, INT64_MAX, WB_SYNC_NONE, true), 0);
	assert_int_equal(w->bd->bd_nr_bios, 20);
	cs_keep_writes(&p, w->bd);
	snprintf(st.example, sizeof(st.example), "crash --keep none");
	cs_describe_writes(&w->fs.lay, &p, &st, text, sizeof(text));
	assert_non_null(strstr(text, " 16 (e"));
	assert_null(strstr(text, " 17 (e"));
	assert_null(strstr(text, " 20 (e"));
	assert_non_null(strstr(text, ", and 4 more"));
	free(p.writes);
	fx_world_free(w);
	*state = NULL;
	ev_log_free(&log);
}

/* What the observer saw: each event's number, and for a FUA completion the block's state. */
struct seen {
	const struct blkdev *bd;
	uint32_t nr, last_no, fua_done, fua_durable;
};

static void observe(void *ctx, const struct sim_event *e)
{
	struct seen *s = ctx;

	assert_int_equal(e->ev_no, s->last_no + 1);
	s->last_no = e->ev_no;
	s->nr++;
	if (e->ev_type != EV_BIO_COMPLETE || !e->ev_e)
		return;
	s->fua_done++;
	/* at the event, the FUA write is on the media and no longer pending */
	for (uint32_t i = 0; i < s->bd->bd_nr_bios; i++)
		if (s->bd->bd_bios[i].b_blocknr == (uint32_t)e->ev_a)
			return;
	if (blkdev_peek_durable(s->bd, (uint32_t)e->ev_a) != NULL)
		s->fua_durable++;
}

/* The log's observer is called once per kept event, in order, after the state it left. */
static void test_events__observer_sees_each_event_after_it(void **state)
{
	struct ev_log log;
	struct fx_world *w = logged_world(&log);
	struct seen s = { .bd = w->bd };

	*state = w;
	log.l_observe = observe;
	log.l_observe_ctx = &s;
	write_writeback_commit(w);
	assert_int_equal(s.nr, log.l_nr);
	assert_int_equal(s.last_no, log.l_ev[log.l_nr - 1].ev_no);
	assert_int_equal(s.fua_done, 1);        /* the commit block */
	assert_int_equal(s.fua_durable, 1);
	fx_world_free(w);
	*state = NULL;
	ev_log_free(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_events__ordered_commit_waits_then_flushes_then_commits,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_events__numbered_without_gaps_and_completions_name_submits,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_events__pending_writes_and_disksize_rule,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_events__recording_changes_nothing, fx_world_leftover),
		cmocka_unit_test_teardown(test_events__words_for_rules_and_kept_writes,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_events__size_rule_travels_with_the_change,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_events__many_pending_writes_named_up_to_the_cap,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_events__observer_sees_each_event_after_it,
					  fx_world_leftover),
	};

	return cmocka_run_group_tests_name("events", tests, NULL, NULL);
}
