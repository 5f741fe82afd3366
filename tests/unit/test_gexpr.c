/*
 * test_gexpr.c - unit tests for explore/gexpr.c: expressions over BS and PAGE,
 * template expansion and the mapping of error offsets back to a template.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "gexpr.h"

/* Evaluate @s with BS = @bs, PAGE = 4096; the value, or -1 on an error. */
static int64_t ev(const char *s, int64_t bs)
{
	char err[256];
	unsigned col = 99;
	int64_t v = -7;

	if (gx_eval(s, strlen(s), bs, 4096, &v, err, sizeof(err), &col) < 0) {
		assert_true(col <= strlen(s));
		return -1;
	}
	assert_int_equal(col, 99);
	return v;
}

/* The error message and column of a bad expression. */
static unsigned bad_col(const char *s, const char *msg_part)
{
	char err[256] = "";
	unsigned col = 0;
	int64_t v = 0;

	assert_int_equal(gx_eval(s, strlen(s), 1024, 4096, &v, err, sizeof(err), &col), -1);
	assert_non_null(strstr(err, msg_part));
	return col;
}

static void test_gexpr__values(void **state)
{
	(void)state;
	assert_int_equal(ev("BS", 1024), 1024);
	assert_int_equal(ev("BS/2", 2048), 1024);
	assert_int_equal(ev("4096+BS/2", 1024), 4608);
	assert_int_equal(ev("2*PAGE", 1024), 8192);
	assert_int_equal(ev("3*BS/4", 1024), 768);
	assert_int_equal(ev("(PAGE-BS)/2", 1024), 1536);
	assert_int_equal(ev("1k+0x10", 4096), 1040);
	assert_int_equal(ev("PAGE-BS", 4096), 0);
	assert_int_equal(ev("((((BS))))", 4096), 4096);
	assert_int_equal(ev("16t", 4096), (int64_t)1 << 44);
}

static void test_gexpr__errors(void **state)
{
	(void)state;
	assert_int_equal(bad_col("BS/3", "not a whole number"), 2);
	assert_int_equal(bad_col("BS/0", "division by zero"), 2);
	assert_int_equal(bad_col("BS-PAGE", "negative"), 0);
	assert_int_equal(bad_col("3BS", "not a number"), 0);
	assert_int_equal(bad_col("bs/2", "unknown name"), 0);
	assert_int_equal(bad_col("BS+", "ends early"), 3);
	assert_int_equal(bad_col("(BS", "without its ')'"), 0);
	assert_int_equal(bad_col("BS)", "without its '('"), 2);
	assert_int_equal(bad_col("BS%2", "unexpected '%'"), 2);
	assert_int_equal(bad_col("010", "not a number"), 0);
	assert_int_equal(bad_col("16t*2", "out of range"), 3);
	assert_int_equal(bad_col("16t+1", "out of range"), 3);
	assert_int_equal(bad_col("((((((((((BS))))))))))", "deeper than 8"), 8);
	assert_int_equal(bad_col("", "empty"), 0);
}

static void test_gexpr__is_expr(void **state)
{
	(void)state;
	assert_true(gx_is_expr("BS", 2));
	assert_true(gx_is_expr("PAGE", 4));
	assert_true(gx_is_expr("4096+512", 8));
	assert_true(gx_is_expr("2*3", 3));
	assert_false(gx_is_expr("-S", 2));
	assert_false(gx_is_expr("+S", 2));
	assert_false(gx_is_expr("--short", 7));
	assert_false(gx_is_expr("0x11", 4));
	assert_false(gx_is_expr("1,2", 3));
	assert_false(gx_is_expr("pwrite", 6));
}

static void test_gexpr__expand(void **state)
{
	char out[SCN_STEP_TEXT_MAX], err[256];
	unsigned col = 0;

	(void)state;
	assert_int_equal(gx_expand("pwrite  4096+BS/2 BS", 1024, 4096, out, err, sizeof(err),
				   &col), 0);
	assert_string_equal(out, "pwrite 4608 1024");
	assert_int_equal(gx_expand("pwrite -S 0x11 --short 3*BS/4 0 BS", 2048, 4096, out, err,
				   sizeof(err), &col), 0);
	assert_string_equal(out, "pwrite -S 0x11 --short 1536 0 2048");
	assert_int_equal(gx_expand("chattr +S", 1024, 4096, out, err, sizeof(err), &col), 0);
	assert_string_equal(out, "chattr +S");
	assert_int_equal(gx_expand("fpunch BS/2 BS/3", 1024, 4096, out, err, sizeof(err), &col),
			 -1);
	assert_int_equal(col, 14);
	assert_non_null(strstr(err, "whole number"));
}

/* A namespace step's operands are paths, names and values: kept as written. */
static void test_gexpr__namespace_steps_verbatim(void **state)
{
	static const char *const keep[] = {
		"rename /A/x /B/x", "rename -x /f /g", "mkdir /A", "link /f /A/y",
		"symlink ../g /A/l", "fsync /A", "fdatasync /", "open -f /A/x",
		"setxattr /f user.a v", "removexattr /f user.a", "unlink /B/x-1", "creat /PAGE*2",
	};
	char out[SCN_STEP_TEXT_MAX], err[256];
	unsigned col = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		assert_true(gx_path_step(keep[i]));
		assert_int_equal(gx_expand(keep[i], 1024, 4096, out, err, sizeof(err), &col), 0);
		assert_string_equal(out, keep[i]);
	}
	assert_false(gx_path_step("pwrite 0 BS"));
	assert_false(gx_path_step("fsyncx /A"));
	assert_int_equal(gx_source_col("rename /A/x /B/x", "rename /A/x /B/x", 14), 14);
}

static void test_gexpr__source_col(void **state)
{
	const char *t = "pwrite  BS/2 lenx";
	char out[SCN_STEP_TEXT_MAX], err[256];
	unsigned col;

	(void)state;
	assert_int_equal(gx_expand(t, 1024, 4096, out, err, sizeof(err), &col), 0);
	assert_string_equal(out, "pwrite 512 lenx");
	assert_int_equal(gx_source_col(t, out, 0), 0);
	assert_int_equal(gx_source_col(t, out, 8), 8);     /* inside "512": the expression */
	assert_int_equal(gx_source_col(t, out, 11), 13);   /* "lenx" */
	assert_int_equal(gx_source_col(t, out, 13), 15);
	assert_int_equal(gx_source_col(t, out, 15), 17);   /* the end */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gexpr__values),
		cmocka_unit_test(test_gexpr__errors),
		cmocka_unit_test(test_gexpr__is_expr),
		cmocka_unit_test(test_gexpr__expand),
		cmocka_unit_test(test_gexpr__source_col),
		cmocka_unit_test(test_gexpr__namespace_steps_verbatim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
