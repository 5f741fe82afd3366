/*
 * profile.h - named kernel semantics.  Every behavioural decision the model
 * makes differently across kernel versions reads one field of struct
 * ext4_semantics, set from a kernel profile (e.g. "6.18") plus patch
 * toggles layered over it.  This release ships the "6.18" profile; each
 * field's comment names the code path it switches and the commit behind it.
 */
#ifndef EXT4SIM_PROFILE_H
#define EXT4SIM_PROFILE_H

#include <stdbool.h>

struct ext4_semantics {
	/* 40b14c55e3d0 (6.6): delalloc append starts a handle only if i_disksize changed */
	bool da_end_skip_dirty;
	/* c7fc0366c656 (6.13): zero [old size, block end) when the size grows */
	bool eof_zero_on_extend;
	/* 52aecaee1c26 (6.13): pagecache_isize_extended zeroes a dirty EOF folio */
	bool eof_folio_zero_mm;
	/* Dec 2025: zeroing adds ordered data only for written buffers */
	bool zero_ordered_written_only;
	/*
	 * 9d80eaa1a1d3 (2025): ext4_update_disksize_before_punch raises i_disksize
	 * to min(i_size, offset + len); before, only when the range reached i_size
	 */
	bool punch_disksize_to_end;
};

struct ext4_profile {
	const char *name;
	const char *description;
	struct ext4_semantics sem;
};

/* The profile named @name, or NULL. */
const struct ext4_profile *ext4_profile_find(const char *name);
const struct ext4_profile *ext4_profile_default(void);
unsigned ext4_profile_count(void);
const struct ext4_profile *ext4_profile_at(unsigned i);

#endif
