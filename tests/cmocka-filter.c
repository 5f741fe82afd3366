/*
 * cmocka-filter.c - linked into every unit-test binary: CMOCKA_TEST_FILTER=PATTERN in
 * the environment runs only the test cases whose names match PATTERN (cmocka's own
 * filter: '*' and '?' wildcards), e.g.
 *     CMOCKA_TEST_FILTER=test_bitmap__empty build/tests/test_bitmap
 * Without it every test case runs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

__attribute__((constructor)) static void cmocka_filter_from_env(void)
{
	const char *pattern = getenv("CMOCKA_TEST_FILTER");

	if (pattern && *pattern)
		cmocka_set_test_filter(pattern);
}
