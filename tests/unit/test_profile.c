/*
 * test_profile.c - model/profile/profile.c: the toggle table and the profiles.
 *
 * Every toggle has a unique name, a commit, a release, both rules and a
 * path, and owns exactly one field of struct ext4_semantics (set and get
 * through the table touch that field only), and every field has a toggle.
 * A mainline profile has exactly the mainline toggles released by then (so
 * mainline profiles are cumulative), no profile has an unmerged or
 * experimental toggle, the default is 6.18, and the distribution profiles
 * carry what their kernels were observed to carry.  Everything is derived
 * from the tables: adding a toggle changes nothing here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"

static void test_profile__toggles_complete_and_distinct(void **state)
{
	(void)state;
	assert_int_equal(ext4_toggle_count(), T_COUNT + ext4_experimental_count());
	for (unsigned i = 0; i < ext4_toggle_count(); i++) {
		const struct ext4_toggle *t = ext4_toggle_at(i);

		assert_non_null(t->name);
		assert_non_null(t->commit);
		assert_non_null(t->release);
		assert_non_null(t->before);
		assert_non_null(t->after);
		assert_non_null(t->path);
		assert_non_null(t->why);
		assert_non_null(t->shown_by);
		assert_non_null(strchr(t->shown_by, ' '));     /* "FILE VARIANT" */
		assert_int_equal(t->klass == TC_EXPERIMENTAL, i >= T_COUNT);
		assert_ptr_equal(ext4_toggle_find(t->name), t);
		assert_true(t->offset + sizeof(bool) <= sizeof(struct ext4_semantics));
		for (unsigned k = 0; k < i; k++) {
			assert_string_not_equal(ext4_toggle_at(k)->name, t->name);
			assert_int_not_equal(ext4_toggle_at(k)->offset, t->offset);
		}
	}
	assert_null(ext4_toggle_find("no_such_patch"));
}

/* Every field of struct ext4_semantics is some toggle's: a new field needs a row. */
static void test_profile__every_field_has_a_toggle(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct ext4_semantics), ext4_toggle_count() * sizeof(bool));
}

/* Setting one toggle changes that toggle only. */
static void test_profile__set_touches_one_field(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ext4_toggle_count(); i++) {
		struct ext4_semantics sem;

		memset(&sem, 0, sizeof(sem));
		ext4_toggle_set(&sem, ext4_toggle_at(i), true);
		for (unsigned k = 0; k < ext4_toggle_count(); k++)
			assert_int_equal(ext4_toggle_get(&sem, ext4_toggle_at(k)), k == i);
	}
}

static bool has(const char *profile, unsigned t)
{
	const struct ext4_profile *p = ext4_profile_find(profile);

	assert_non_null(p);
	return ext4_profile_has(p, t);
}

/* "6.13" -> 613; a release that is not a version ("never merged") -> -1. */
static int version_of(const char *s)
{
	unsigned major, minor;
	char end;

	if (sscanf(s, "%u.%u%c", &major, &minor, &end) != 2)
		return -1;
	return (int)(major * 100 + minor);
}

/* Does the space-separated @list (a toggle's .stable, or NULL) name @series? */
static bool stable_names(const char *list, const char *series)
{
	size_t n = strlen(series);

	for (const char *s = list; s && (s = strstr(s, series)) != NULL; s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
			return true;
	return false;
}

/*
 * A mainline profile X.Y has exactly the mainline toggles whose release is
 * X.Y or earlier, and a series' last stable release also those backported
 * to it (the toggle's .stable names the series); no profile has an
 * unmerged or experimental toggle.  Derived from the table: a new toggle
 * needs no change here.
 */
static void test_profile__mainline_follows_releases(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ext4_profile_count(); i++) {
		const struct ext4_profile *p = ext4_profile_at(i);
		int v = version_of(p->name);

		for (unsigned t = 0; t < ext4_toggle_count(); t++) {
			const struct ext4_toggle *tg = ext4_toggle_at(t);
			int r = version_of(tg->release);

			if (tg->klass != TC_MAINLINE) {
				assert_false(ext4_profile_has(p, t));
				continue;
			}
			assert_true(r > 0);
			if (v > 0 && ext4_profile_has(p, t) !=
				     (r <= v || (p->series && p->backports &&
					      stable_names(tg->stable, p->series))))
				fail_msg("profile %s and toggle %s (release %s)", p->name, tg->name,
					 tg->release);
		}
	}
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
		for (unsigned t = 0; t < ext4_toggle_count(); t++)
			assert_int_equal(ext4_toggle_get(&sem, ext4_toggle_at(t)),
					 ext4_profile_has(p, t));
	}
}

/* Debian 6.12.117: the ext4 half of the 6.13 EOF zeroing, not the mm half. */
static void test_profile__debian_6_12_has_one_half(void **state)
{
	(void)state;
	assert_true(has("debian-6.12.117", T_EOF_ZERO_FS));
	assert_false(has("debian-6.12.117", T_EOF_ZERO_DIRTY_FOLIO_MM));
	assert_false(has("debian-6.1.192", T_EOF_ZERO_FS));
	assert_true(has("debian-6.1.192", T_DISKSIZE_BEFORE_PUNCH_PARTIAL));
}

/*
 * The 2021 delalloc series on the long-term kernels: 5.10's last release
 * carries 4df031ff5876 as a stable backport, no series before 5.15 carries
 * cc883236b792, and 4.19 and 5.4 have neither (4.19 with the series is a
 * variant: scenarios/patches/backport-4.19-delalloc-series*.yaml).
 */
static void test_profile__series_have_the_delalloc_series_backports(void **state)
{
	(void)state;
	assert_true(has("debian-5.10.262", T_DA_DISKSIZE_VS_ISIZE));
	assert_false(has("debian-5.10.262", T_DA_WRITE_NO_HANDLE));
	assert_false(has("5.10", T_DA_DISKSIZE_VS_ISIZE));
	assert_false(has("5.14", T_DA_DISKSIZE_VS_ISIZE));
	for (unsigned i = 0; i < 8; i++) {
		const char *series = (const char *[]){ "4.4", "4.14", "4.19", "5.4", "4.4.302",
						       "4.14.336", "4.19.325", "5.4.302" }[i];

		assert_false(has(series, T_DA_DISKSIZE_VS_ISIZE));
		assert_false(has(series, T_DA_WRITE_NO_HANDLE));
	}
	assert_true(has("5.15", T_DA_DISKSIZE_VS_ISIZE) && has("5.15", T_DA_WRITE_NO_HANDLE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile__toggles_complete_and_distinct),
		cmocka_unit_test(test_profile__every_field_has_a_toggle),
		cmocka_unit_test(test_profile__set_touches_one_field),
		cmocka_unit_test(test_profile__mainline_follows_releases),
		cmocka_unit_test(test_profile__semantics_follow_toggles),
		cmocka_unit_test(test_profile__debian_6_12_has_one_half),
		cmocka_unit_test(test_profile__series_have_the_delalloc_series_backports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
