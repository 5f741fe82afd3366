/*
 * profile.c - the kernel profiles (see profile.h).
 */
#include "profile.h"

#include <string.h>

#include "sim.h"

static const struct ext4_profile profiles[] = {
	{
		.name = "6.18",
		.description = "mainline 6.18: the 2021 delalloc series, the 6.4 short-copy "
			       "fix, the 6.6 delalloc append handle, both halves of the 6.13 "
			       "EOF zeroing, ordered zeroing of written buffers only, "
			       "i_disksize raised to the punched range's end",
		.sem = {
			.da_end_skip_dirty = true,
			.eof_zero_on_extend = true,
			.eof_folio_zero_mm = true,
			.zero_ordered_written_only = true,
			.punch_disksize_to_end = true,
		},
	},
};

#define NR_PROFILES (sizeof(profiles) / sizeof(profiles[0]))

const struct ext4_profile *ext4_profile_find(const char *name)
{
	for (unsigned i = 0; i < NR_PROFILES; i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

const struct ext4_profile *ext4_profile_default(void)
{
	return &profiles[0];
}

unsigned ext4_profile_count(void)
{
	return NR_PROFILES;
}

const struct ext4_profile *ext4_profile_at(unsigned i)
{
	SIM_ASSERT(i < NR_PROFILES);
	return &profiles[i];
}
