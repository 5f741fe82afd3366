/*
 * test_ace_space.c - explore/ace.c: ACE's spaces counted as ACE counts them
 * (B3's seq-1 300, seq-2 254032, seq-3 metadata 1520892), shards that cover
 * a space once, and workloads the generator writes that are, lowered by
 * import's reader, the very scenarios of ACE's own j-lang files of
 * tests/data/ace/ (run from the repository root).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ace.h"
#include "import_ace.h"

/* The steps ace_parse makes of @f, joined by ';' into @out (cap bytes); 0 or -1. */
static int steps_of(FILE *f, char *out, size_t cap)
{
	struct ace_result r = { 0 };
	int rc = ace_parse("w", f, &r);

	out[0] = '\0';
	for (unsigned i = 0; rc == 0 && i < r.nr; i++) {
		char step[SCN_STEP_TEXT_MAX];

		orc_step_text(&r.steps[i], step, sizeof(step));
		snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? ";" : "", step);
	}
	ace_result_free(&r);
	return rc;
}

struct find {
	const char *want;
	uint64_t found;         /* the first workload with the same steps, or 0 */
	unsigned seen;
};

static int find_one(void *arg, uint64_t n, const char *jlang)
{
	struct find *fd = arg;
	char got[16384];
	FILE *f = fmemopen((void *)jlang, strlen(jlang), "r");

	assert_non_null(f);
	fd->seen++;
	if (steps_of(f, got, sizeof(got)) == 0 && strcmp(got, fd->want) == 0) {
		fd->found = n;
		fclose(f);
		return 1;
	}
	fclose(f);
	return 0;
}

/* ACE's file @path is, as import lowers it, a workload of space @sp. */
static void expect_walked(enum ace_space sp, const char *path)
{
	static char want[16384];
	struct find fd = { .want = want };
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_int_equal(steps_of(f, want, sizeof(want)), 0);
	fclose(f);
	ace_walk(sp, 1, UINT64_MAX, find_one, &fd);
	if (!fd.found)
		fail_msg("%s: no workload of %s has its steps", path, ace_space_name(sp));
}

static void test_counts(void **state)
{
	(void)state;
	assert_int_equal(ace_walk(ACE_B3_SEQ1, 0, 0, NULL, NULL), 300);
	assert_int_equal(ace_walk(ACE_B3_SEQ2, 0, 0, NULL, NULL), 254032);
	assert_int_equal(ace_walk(ACE_B3_SEQ3_META, 0, 0, NULL, NULL), 1520892);
	assert_int_equal(ace_space_lookup("b3-seq2"), ACE_B3_SEQ2);
	assert_int_equal(ace_space_lookup("seq2"), ACE_SPACE_NONE);
}

/* Counts the workloads handed over; each must lie in [c[1], c[2]] and come in order. */
static int count_one(void *arg, uint64_t n, const char *jlang)
{
	uint64_t *c = arg;

	assert_non_null(strstr(jlang, "# run\n"));
	assert_true(n >= c[1] && n <= c[2]);
	assert_int_equal(n, c[1] + c[0]);
	c[0]++;
	return 0;
}

/*
 * Ranges 1-100, 101-200 and 201-300 of seq-1 are 100 workloads each, in
 * order; the walk stops after the last (it returns the last number met),
 * and a range past the end gets what is there.
 */
static void test_ranges(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 3; i++) {
		uint64_t c[3] = { 0, 100 * i + 1, 100 * i + 100 };

		assert_int_equal(ace_walk(ACE_B3_SEQ1, c[1], c[2], count_one, c), c[2]);
		assert_int_equal(c[0], 100);
	}
	{
		uint64_t c[3] = { 0, 291, 400 };

		assert_int_equal(ace_walk(ACE_B3_SEQ1, c[1], c[2], count_one, c), 300);
		assert_int_equal(c[0], 10);
	}
}

/* ACE's own workloads that import takes (seq1generator.py's, seq2generator.py's) are walked. */
static void test_walked_equals_imported(void **state)
{
	static const char *const seq1[] = { "26", "187", "237", "257", "262", "287",
					     "292" };
	static const char *const seq2[] = { "5001", "100001" };
	char path[256];

	(void)state;
	for (unsigned i = 0; i < sizeof(seq1) / sizeof(seq1[0]); i++) {
		snprintf(path, sizeof(path), "tests/data/ace/b3-seq1-%s.jlang", seq1[i]);
		expect_walked(ACE_B3_SEQ1, path);
	}
	for (unsigned i = 0; i < sizeof(seq2) / sizeof(seq2[0]); i++) {
		snprintf(path, sizeof(path), "tests/data/ace/b3-seq2-%s.jlang", seq2[i]);
		expect_walked(ACE_B3_SEQ2, path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_walked_equals_imported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
