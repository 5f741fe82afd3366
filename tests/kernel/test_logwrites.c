/*
 * test_logwrites.c - logwrites/ (the dm-log-writes replay of logreplay), the unit test
 * of a program of its own, kept here with the real-kernel tools:
 * logs built in memory entry by entry, parsed back; every malformed field
 * refused with a message naming the entry; the crash point's durable prefix
 * and pending writes around flushes, FUA writes and writes past the device;
 * the images a keep set builds; the subsets enumerated, sampled and grouped
 * into states; keep lists parsed and written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "image.h"
#include "logfmt.h"
#include "point.h"
#include "subsets.h"

#define SS 512u
#define DEV (16u * SS)                  /* a 16-sector device */
#define LOG_CAP (256u * SS)

struct blog {
	uint8_t b[LOG_CAP];
	uint64_t len;                   /* bytes used */
	uint64_t nr;
};

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void blog_init(struct blog *l)
{
	memset(l, 0, sizeof(*l));
	l->len = SS;
}

/* Finish the superblock with the entry count so far. */
static void blog_seal(struct blog *l)
{
	put64(l->b, LW_MAGIC);
	put64(l->b + 8, LW_VERSION);
	put64(l->b + 16, l->nr);
	l->b[24] = SS & 0xff;
	l->b[25] = SS >> 8;
}

/* Append an entry: a write's sectors hold @fill, or @text then zeros; a mark's text is @text. */
static void blog_add(struct blog *l, uint64_t sector, uint64_t count, uint32_t flags, uint8_t fill,
		     const char *text)
{
	uint8_t *h = l->b + l->len;
	int mark = (flags & LW_MARK) != 0;
	uint64_t data = mark ? strlen(text) : (flags & LW_DISCARD) ? 0 : count * SS;

	assert_true(l->len + SS + (data + SS - 1) / SS * SS <= LOG_CAP);
	put64(h, sector);
	put64(h + 8, count);
	put64(h + 16, flags);
	put64(h + 24, mark ? data : 0);
	l->len += SS;
	if (data)
		memset(l->b + l->len, text ? 0 : fill, data);
	if (text)
		memcpy(l->b + l->len, text, strlen(text));
	l->len += (data + SS - 1) / SS * SS;
	l->nr++;
	blog_seal(l);
}

static void parse_ok(struct blog *l, struct lw_log *log)
{
	char err[256] = "";

	assert_int_equal(lw_parse(log, l->b, l->len, err, sizeof(err)), 0);
}

static void parse_fails(struct blog *l, const char *want)
{
	struct lw_log log;
	char err[256] = "";

	assert_int_equal(lw_parse(&log, l->b, l->len, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
}

static void test_logwrites__parse_entries(void **state)
{
	static struct blog l;
	struct lw_log log;

	(void)state;
	blog_init(&l);
	blog_add(&l, 2, 2, 0, 0xaa, NULL);
	blog_add(&l, 0, 0, LW_FLUSH, 0, NULL);
	blog_add(&l, 4, 1, LW_FUA, 0xbb, NULL);
	blog_add(&l, 6, 3, LW_DISCARD, 0, NULL);
	blog_add(&l, 0, 0, LW_MARK, 0, "hello");
	blog_add(&l, 20, 1, 0, 0, "ext4sim-crashpoint 1\n");
	parse_ok(&l, &log);
	assert_int_equal(log.lw_nr, 6);
	assert_int_equal(log.lw_sectorsize, SS);
	assert_int_equal(log.lw_entries[0].le_sector, 2);
	assert_int_equal(log.lw_entries[0].le_data_len, 2 * SS);
	assert_int_equal(log.lw_buf[log.lw_entries[0].le_data], 0xaa);
	assert_int_equal(log.lw_entries[1].le_flags, LW_FLUSH);
	assert_int_equal(log.lw_entries[3].le_data_len, 0);
	assert_int_equal(log.lw_entries[4].le_data_len, 5);
	assert_int_equal(log.lw_entries[2].le_offset, SS + (SS + 2 * SS) + SS);
	assert_true(lw_is_write(&log.lw_entries[2]));
	assert_false(lw_is_write(&log.lw_entries[3]));
	assert_false(lw_is_write(&log.lw_entries[4]));
	assert_int_equal(lw_find_text(&log, "ext4sim-crashpoint 1\n"), 5);
	assert_int_equal(lw_find_text(&log, "hello"), -1);       /* a mark is not a write */
	assert_int_equal(lw_find_text(&log, "ext4sim-crashpoint 2\n"), -1);
	lw_free(&log);
}

static void test_logwrites__parse_refuses(void **state)
{
	static struct blog l;

	(void)state;
	blog_init(&l);
	blog_add(&l, 2, 2, 0, 0xaa, NULL);
	l.b[0] ^= 1;
	parse_fails(&l, "magic");
	blog_seal(&l);
	put64(l.b + 8, 2);
	parse_fails(&l, "version 2");
	blog_seal(&l);
	l.b[24] = 0, l.b[25] = 3;      /* 768 */
	parse_fails(&l, "sector size 768");
	blog_seal(&l);
	put64(l.b + 16, LW_ENTRIES_MAX + 1);
	parse_fails(&l, "entries (at most");
	blog_seal(&l);
	put64(l.b + 16, 2);            /* one entry more than there is */
	parse_fails(&l, "entry 1 (byte 2048): the log ends before its header");
	blog_seal(&l);
	put64(l.b + SS + 16, 0x40);
	parse_fails(&l, "entry 0 (byte 512): unknown flags 0x40");
	put64(l.b + SS + 16, 0);
	put64(l.b + SS + 8, 3);        /* three sectors, two in the log */
	parse_fails(&l, "entry 0 (byte 512): its data runs past the end");
	put64(l.b + SS + 8, UINT64_MAX / 2);
	parse_fails(&l, "entry 0 (byte 512): its data runs past the end");
	put64(l.b + SS + 8, 2);
	put64(l.b + SS, UINT64_MAX);
	parse_fails(&l, "sector out of range");
	l.len = 20;
	parse_fails(&l, "too short");
}

/* A log: write A (sectors 0-1, 0x11), flush, B (2, 0x22), C (0-0, 0x33, FUA), D (3, 0x44), mark 1. */
static void sample_log(struct blog *l, struct lw_log *log)
{
	blog_init(l);
	blog_add(l, 0, 2, 0, 0x11, NULL);
	blog_add(l, 0, 0, LW_FLUSH, 0, NULL);
	blog_add(l, 2, 1, 0, 0x22, NULL);
	blog_add(l, 0, 1, LW_FUA, 0x33, NULL);
	blog_add(l, 3, 1, 0, 0x44, NULL);
	blog_add(l, 16, 1, 0, 0, "ext4sim-crashpoint 1\n");
	blog_add(l, 5, 1, 0, 0x55, NULL);
	parse_ok(l, log);
}

static void test_logwrites__point_split(void **state)
{
	static struct blog l;
	struct lw_log log;
	struct lw_point p;
	char err[256];

	(void)state;
	sample_log(&l, &log);
	assert_int_equal(lw_point_init(&p, &log, 5, DEV, 0, err, sizeof(err)), 0);
	assert_int_equal(p.lp_flush, 1);
	assert_int_equal(p.lp_nr_pending, 3);
	assert_int_equal(p.lp_pending[0].lu_entry, 2);
	assert_int_equal(p.lp_pending[0].lu_count, 1);
	assert_int_equal(p.lp_forced[1], 1);
	assert_int_equal(p.lp_forced[2], 0);
	lw_point_free(&p);
	assert_int_equal(lw_point_init(&p, &log, 7, DEV, 0, err, sizeof(err)), 0);
	assert_int_equal(p.lp_outside, 1);              /* the mark, past the device */
	assert_int_equal(p.lp_nr_pending, 4);
	lw_point_free(&p);
	assert_int_equal(lw_point_init(&p, &log, 0, DEV, 0, err, sizeof(err)), 0);
	assert_int_equal(p.lp_nr_pending, 0);
	lw_point_free(&p);
	assert_int_equal(lw_point_init(&p, &log, 8, DEV, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the log has 7"));
	assert_int_equal(lw_point_init(&p, &log, 5, DEV + 1, 0, err, sizeof(err)), -1);
	assert_int_equal(lw_point_init(&p, &log, 6, SS, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "entry 0 (byte 512): sectors 0-1"));
	assert_non_null(strstr(err, "straddle"));
	lw_free(&log);
}

static void test_logwrites__images(void **state)
{
	static struct blog l;
	static uint8_t img[DEV];
	uint8_t keep[3] = { 0, 0, 0 };
	struct lw_log log;
	struct lw_point p;
	char err[256];

	(void)state;
	sample_log(&l, &log);
	assert_int_equal(lw_point_init(&p, &log, 5, DEV, 0, err, sizeof(err)), 0);
	memset(img, 0xee, sizeof(img));
	lw_apply_durable(&log, &p, img);
	assert_int_equal(img[0], 0x11);
	assert_int_equal(img[2 * SS - 1], 0x11);
	assert_int_equal(img[2 * SS], 0xee);
	lw_apply_pending(&log, &p, keep, img);          /* the FUA write lands anyway */
	assert_int_equal(img[0], 0x33);
	assert_int_equal(img[SS], 0x11);
	assert_int_equal(img[2 * SS], 0xee);
	assert_int_equal(img[3 * SS], 0xee);
	keep[2] = 1;
	lw_apply_pending(&log, &p, keep, img);
	assert_int_equal(img[3 * SS], 0x44);
	assert_int_equal(img[2 * SS], 0xee);
	lw_point_free(&p);
	lw_free(&log);
}

/* The states of point @end of @l on a device of 0xee with the durable entries applied. */
static void states_of(struct blog *l, uint64_t end, uint64_t bound, uint64_t seed,
		      struct lw_log *log, struct lw_point *p, struct lw_states *s)
{
	static uint8_t img[DEV];
	char err[256];

	parse_ok(l, log);
	assert_int_equal(lw_point_init(p, log, end, DEV, 0, err, sizeof(err)), 0);
	memset(img, 0xee, sizeof(img));
	lw_apply_durable(log, p, img);
	assert_int_equal(lw_states_build(s, log, p, img, bound, seed, err, sizeof(err)), 0);
}

static void test_logwrites__states_exhaustive(void **state)
{
	static struct blog l;
	struct lw_log log;
	struct lw_point p;
	struct lw_states s;

	(void)state;
	sample_log(&l, &log);
	lw_free(&log);
	/* B and D droppable, C (FUA) always in: 4 subsets, 4 different devices */
	states_of(&l, 5, 16, 1, &log, &p, &s);
	assert_int_equal(s.ls_free, 2);
	assert_true(s.ls_exhaustive);
	assert_int_equal(s.ls_evaluated, 4);
	assert_int_equal(s.ls_nr, 4);
	assert_int_equal(s.ls_states[0].ls_first, 0);
	assert_memory_equal(lw_states_keep(&s, &p, 3), ((uint8_t[]){ 1, 1, 1 }), 3);
	assert_memory_equal(lw_states_keep(&s, &p, 0), ((uint8_t[]){ 0, 1, 0 }), 3);
	lw_states_free(&s);
	lw_point_free(&p);
	lw_free(&log);
}

static void test_logwrites__states_grouped(void **state)
{
	static struct blog l;
	struct lw_log log;
	struct lw_point p;
	struct lw_states s;

	(void)state;
	/* after the flush: 0xee over 0xee (no change), 0x22 twice to sector 2, a discard of 0xee */
	blog_init(&l);
	blog_add(&l, 0, 0, LW_FLUSH, 0, NULL);
	blog_add(&l, 1, 1, 0, 0xee, NULL);
	blog_add(&l, 2, 1, 0, 0x22, NULL);
	blog_add(&l, 2, 1, 0, 0x22, NULL);
	blog_add(&l, 4, 1, LW_DISCARD, 0, NULL);
	states_of(&l, 5, 64, 1, &log, &p, &s);
	assert_int_equal(s.ls_evaluated, 16);
	assert_int_equal(s.ls_nr, 4);                   /* sector 2 old or new x discard or not */
	assert_int_equal(s.ls_states[0].ls_count, 2);   /* nothing, or only the no-op */
	assert_int_equal(s.ls_states[1].ls_count, 6);   /* 0x22 by the first, the second or both */
	lw_states_free(&s);
	lw_point_free(&p);
	lw_free(&log);
}

static void test_logwrites__states_sampled(void **state)
{
	static struct blog l;
	struct lw_log log;
	struct lw_point p;
	struct lw_states s, t;
	char err[256];

	(void)state;
	blog_init(&l);
	for (unsigned i = 0; i < 12; i++)
		blog_add(&l, i, 1, 0, (uint8_t)(i + 1), NULL);
	states_of(&l, 12, 100, 7, &log, &p, &s);
	assert_false(s.ls_exhaustive);
	assert_int_equal(s.ls_free, 12);
	assert_true(s.ls_evaluated <= 100 && s.ls_evaluated > 90);
	assert_int_equal(s.ls_nr, s.ls_evaluated);     /* every subset leaves other bytes */
	assert_memory_equal(lw_states_keep(&s, &p, 0), ((uint8_t[12]){ 0 }), 12);
	assert_memory_equal(lw_states_keep(&s, &p, 1),
			    ((uint8_t[12]){ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }), 12);
	/* the same seed draws the same sample, another seed another one */
	assert_int_equal(lw_states_build(&t, &log, &p, l.b, 100, 7, err, sizeof(err)), 0);
	assert_memory_equal(s.ls_keep, t.ls_keep, s.ls_evaluated * 12);
	lw_states_free(&t);
	assert_int_equal(lw_states_build(&t, &log, &p, l.b, 100, 8, err, sizeof(err)), 0);
	assert_memory_not_equal(s.ls_keep + 24, t.ls_keep + 24, 12 * 8);
	lw_states_free(&t);
	assert_int_equal(lw_states_build(&t, &log, &p, l.b, 1, 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bound 1"));
	lw_states_free(&s);
	lw_point_free(&p);
	lw_free(&log);
}

static void test_logwrites__split_units(void **state)
{
	static struct blog l;
	static uint8_t img[DEV];
	struct lw_log log;
	struct lw_point p;
	struct lw_states s;
	char err[256];

	(void)state;
	/* after the flush: sectors 0-4 of 0x11 in one request, 6-7 of 0x77 with FUA */
	blog_init(&l);
	blog_add(&l, 0, 0, LW_FLUSH, 0, NULL);
	blog_add(&l, 0, 5, 0, 0x11, NULL);
	blog_add(&l, 6, 2, LW_FUA, 0x77, NULL);
	parse_ok(&l, &log);
	assert_int_equal(lw_point_init(&p, &log, 3, DEV, 2, err, sizeof(err)), 0);
	assert_int_equal(p.lp_nr_pending, 4);           /* 0-1, 2-3, 4 and the FUA 6-7 */
	assert_int_equal(p.lp_pending[1].lu_first, 2);
	assert_int_equal(p.lp_pending[2].lu_count, 1);
	assert_int_equal(p.lp_forced[3], 1);
	memset(img, 0xee, sizeof(img));
	lw_apply_pending(&log, &p, (uint8_t[]){ 0, 1, 0, 0 }, img);
	assert_int_equal(img[SS], 0xee);
	assert_int_equal(img[2 * SS], 0x11);
	assert_int_equal(img[4 * SS - 1], 0x11);
	assert_int_equal(img[4 * SS], 0xee);
	assert_int_equal(img[6 * SS], 0x77);
	memset(img, 0xee, sizeof(img));
	assert_int_equal(lw_states_build(&s, &log, &p, img, 64, 1, err, sizeof(err)), 0);
	assert_int_equal(s.ls_evaluated, 8);
	assert_int_equal(s.ls_nr, 8);
	lw_states_free(&s);
	lw_point_free(&p);
	lw_point_init(&p, &log, 3, DEV, 0, err, sizeof(err));
	assert_int_equal(p.lp_nr_pending, 2);           /* whole requests */
	lw_point_free(&p);
	lw_free(&log);
}

static void test_logwrites__keep_lists(void **state)
{
	uint8_t keep[6];
	char err[256], out[64];

	(void)state;
	assert_int_equal(lr_parse_keep("none", 6, keep, err, sizeof(err)), 0);
	assert_memory_equal(keep, ((uint8_t[6]){ 0 }), 6);
	assert_int_equal(lr_parse_keep("1,3-5", 6, keep, err, sizeof(err)), 0);
	assert_memory_equal(keep, ((uint8_t[6]){ 1, 0, 1, 1, 1, 0 }), 6);
	lr_format_keep(keep, 6, out, sizeof(out));
	assert_string_equal(out, "1,3-5");
	lr_format_keep((uint8_t[6]){ 0 }, 6, out, sizeof(out));
	assert_string_equal(out, "none");
	lr_format_keep((uint8_t[6]){ 1, 1, 0, 0, 0, 1 }, 6, out, sizeof(out));
	assert_string_equal(out, "1-2,6");
	assert_int_equal(lr_parse_keep("0", 6, keep, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "0-0 is not a range of the 6"));
	assert_int_equal(lr_parse_keep("3-2", 6, keep, err, sizeof(err)), -1);
	assert_int_equal(lr_parse_keep("7", 6, keep, err, sizeof(err)), -1);
	assert_int_equal(lr_parse_keep("1,", 6, keep, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "column 3"));
	assert_int_equal(lr_parse_keep("1;2", 6, keep, err, sizeof(err)), -1);
	assert_int_equal(lr_parse_keep("99999999999999999999999", 6, keep, err, sizeof(err)), -1);
	assert_int_equal(lr_parse_keep("", 6, keep, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_logwrites__parse_entries),
		cmocka_unit_test(test_logwrites__parse_refuses),
		cmocka_unit_test(test_logwrites__point_split),
		cmocka_unit_test(test_logwrites__images),
		cmocka_unit_test(test_logwrites__states_exhaustive),
		cmocka_unit_test(test_logwrites__states_grouped),
		cmocka_unit_test(test_logwrites__states_sampled),
		cmocka_unit_test(test_logwrites__split_units),
		cmocka_unit_test(test_logwrites__keep_lists),
	};

	return cmocka_run_group_tests_name("logwrites", tests, NULL, NULL);
}
