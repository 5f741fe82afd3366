/*
 * test_profile.c - model/ext4/profile.c: the toggle table and the profiles.
 *
 * Every toggle has a unique name, a commit, a release, both rules and a
 * path, and owns exactly one field of struct ext4_semantics (set and get
 * through the table touch that field only).  Mainline profiles are
 * cumulative in release order (a later release keeps every change of an
 * earlier one), the default is 6.18, and the distribution profiles carry
 * what their kernels were observed to carry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "profile.h"

static void test_profile__toggles_complete_and_distinct(void **state)
{
	(void)state;
	for (unsigned i = 0; i < T_COUNT; i++) {
		const struct ext4_toggle *t = ext4_toggle_at(i);

		assert_non_null(t->name);
		assert_non_null(t->commit);
		assert_non_null(t->release);
		assert_non_null(t->before);
		assert_non_null(t->after);
		assert_non_null(t->path);
		assert_ptr_equal(ext4_toggle_find(t->name), t);
		assert_true(t->offset < sizeof(struct ext4_semantics));
		for (unsigned k = 0; k < i; k++) {
			assert_string_not_equal(ext4_toggle_at(k)->name, t->name);
			assert_int_not_equal(ext4_toggle_at(k)->offset, t->offset);
		}
	}
	assert_null(ext4_toggle_find("no_such_patch"));
}

/* Setting one toggle changes that toggle only. */
static void test_profile__set_touches_one_field(void **state)
{
	(void)state;
	for (unsigned i = 0; i < T_COUNT; i++) {
		struct ext4_semantics sem;

		memset(&sem, 0, sizeof(sem));
		ext4_toggle_set(&sem, ext4_toggle_at(i), true);
		for (unsigned k = 0; k < T_COUNT; k++)
			assert_int_equal(ext4_toggle_get(&sem, ext4_toggle_at(k)), k == i);
	}
}

static uint32_t toggles_of(const char *name)
{
	const struct ext4_profile *p = ext4_profile_find(name);

	assert_non_null(p);
	return p->toggles;
}

/* Each mainline release keeps what the one before it had. */
static void test_profile__mainline_cumulative(void **state)
{
	static const char *const order[] = { "5.14", "5.15", "6.1", "6.4", "6.6", "6.12", "6.13",
					     "6.18", "7.0", "7.1" };

	(void)state;
	assert_int_equal(toggles_of("5.14"), 0);
	for (unsigned i = 1; i < sizeof(order) / sizeof(order[0]); i++) {
		uint32_t prev = toggles_of(order[i - 1]), cur = toggles_of(order[i]);

		assert_int_equal(prev & cur, prev);
	}
	/* 7.1 has every toggle but the unmerged one */
	assert_int_equal(toggles_of("7.1"), ((1u << T_COUNT) - 1) & ~(1u << T_IOMAP_DIRTY_WRITE_ONLY));
	for (unsigned i = 0; i < ext4_profile_count(); i++)
		assert_false(ext4_profile_at(i)->toggles & (1u << T_IOMAP_DIRTY_WRITE_ONLY));
	assert_string_equal(ext4_profile_default()->name, "6.18");
}

/* The profile's semantics are exactly its toggles. */
static void test_profile__semantics_follow_toggles(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ext4_profile_count(); i++) {
		const struct ext4_profile *p = ext4_profile_at(i);
		struct ext4_semantics sem;

		ext4_profile_semantics(p, &sem);
		for (unsigned t = 0; t < T_COUNT; t++)
			assert_int_equal(ext4_toggle_get(&sem, ext4_toggle_at(t)),
					 !!(p->toggles & (1u << t)));
	}
}

/* Debian 6.12.117: the ext4 half of the 6.13 EOF zeroing, not the mm half. */
static void test_profile__debian_6_12_has_one_half(void **state)
{
	uint32_t d = toggles_of("debian-6.12.117");

	(void)state;
	assert_true(d & (1u << T_EOF_ZERO_FS));
	assert_false(d & (1u << T_EOF_ZERO_DIRTY_FOLIO_MM));
	assert_false(toggles_of("debian-6.1.192") & (1u << T_EOF_ZERO_FS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile__toggles_complete_and_distinct),
		cmocka_unit_test(test_profile__set_touches_one_field),
		cmocka_unit_test(test_profile__mainline_cumulative),
		cmocka_unit_test(test_profile__semantics_follow_toggles),
		cmocka_unit_test(test_profile__debian_6_12_has_one_half),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
