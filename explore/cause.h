/*
 * cause.h - what a minimized explore finding is caused by (see cause.c):
 * the signature explore groups its findings by.
 */
#ifndef EXT4SIM_CAUSE_H
#define EXT4SIM_CAUSE_H

#include <stddef.h>

#include "minimize.h"

#define CAUSE_TEXT_MAX 512

/*
 * The signature of finding @t shown by the steps @texts: its invariant,
 * then the first of
 *   - the toggles set against its profile (--patch: an experimental idea,
 *     say) whose return to the profile's value makes it go away
 *     ("gone with exp_grow_zero_written_only off (as in 6.18)");
 *   - the first mainline release whose changes, added in release order,
 *     make it go away, with those of its changes that do it alone
 *     ("gone in 6.13 with eof_zero_fs on");
 *   - the model (kernel) function of the step where the violation first
 *     appears ("first in ext4_setattr").
 * Deterministic; a few runs of the steps per release and toggle.
 */
void cause_signature(const struct min_target *t, char (*texts)[SCN_STEP_TEXT_MAX], unsigned nr,
		     char *out, size_t cap);

#endif
