/*
 * test_grammar.c - unit tests for explore/grammar.c: the built-in grammar, the
 * grammar file that spells it out, and the kind names.  Run from the
 * repository root (the bad-file fixtures are tests/data/grammar-bad/, run by
 * tests/run-tests.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "grammar.h"

/* docs/grammars/default.yaml holds the built-in templates, in order, and the default kinds. */
static void test_grammar__default_file(void **state)
{
	struct grammar_file *b = calloc(1, sizeof(*b)), *f = calloc(1, sizeof(*f));
	char err[SCN_ERR_MAX];

	(void)state;
	assert_non_null(b);
	assert_non_null(f);
	grammar_builtin(b);
	assert_int_equal(grammar_load("docs/grammars/default.yaml", f, err, sizeof(err)), 0);
	assert_int_equal(f->nr, b->nr);
	for (unsigned i = 0; i < b->nr; i++) {
		assert_string_equal(f->t[i].t_text, b->t[i].t_text);
		assert_int_equal(f->t[i].t_kind, b->t[i].t_kind);
		assert_true(f->t[i].t_line > 0);
	}
	assert_int_equal(f->have, b->have);
	assert_true(f->has_kinds);
	assert_int_equal(f->kinds, GK_DEFAULT);
	assert_true(f->has_steps);
	assert_int_equal(f->steps, 3);
	assert_false(f->has_block_size);
	free(b);
	free(f);
}

/* Expansion for each block size, and every kind with a name that finds it. */
static void test_grammar__expand_and_kinds(void **state)
{
	struct grammar_file *b = calloc(1, sizeof(*b));
	char out[SCN_STEP_TEXT_MAX];

	(void)state;
	assert_non_null(b);
	grammar_builtin(b);
	assert_string_equal(b->t[6].t_text, "pwrite PAGE+BS/2 BS/2");
	grammar_expand(&b->t[6], 1024, out);
	assert_string_equal(out, "pwrite 4608 512");
	grammar_expand(&b->t[6], 4096, out);
	assert_string_equal(out, "pwrite 6144 2048");
	assert_int_equal(b->have, (1u << GK_COUNT) - 1);
	for (int k = 0; k < GK_COUNT; k++)
		assert_int_equal(grammar_kind_lookup(grammar_kind_name((enum gkind)k)), k);
	assert_int_equal(grammar_kind_lookup("writes"), -1);
	free(b);
}

/* A missing file: PATH:1:1: cannot open. */
static void test_grammar__missing_file(void **state)
{
	struct grammar_file *f = calloc(1, sizeof(*f));
	char err[SCN_ERR_MAX];

	(void)state;
	assert_non_null(f);
	assert_int_equal(grammar_load("tests/data/no-such-grammar.yaml", f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "tests/data/no-such-grammar.yaml:1:1: cannot open"));
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar__default_file),
		cmocka_unit_test(test_grammar__expand_and_kinds),
		cmocka_unit_test(test_grammar__missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
