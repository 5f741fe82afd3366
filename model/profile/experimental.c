/*
 * experimental.c - the experimental toggles: ideas under test, not kernel
 * changes (see profile.h).  No profile includes them; a run turns one on
 * with `--patch NAME=on` or a scenario's `patches:`, and `ext4sim patches`
 * lists them apart from the upstream table.  A row here, a field in
 * struct ext4_semantics and the code path that reads it are all a new one
 * needs (docs/writing-a-toggle.md walks through the one below).
 */
#include "profile.h"

#include "sim.h"

#define SEM(f) offsetof(struct ext4_semantics, f)

static const struct ext4_toggle experimental[] = {
	{
		"exp_grow_zero_written_only",
		"experimental: the worked example of docs/writing-a-toggle.md (no kernel "
		"commit)", "none",
		"truncate up zeroes the old EOF block's tail [old size, block end) whatever "
		"the block's state (eof_zero_fs)",
		"truncate up zeroes it only when the old EOF block is written on disk; a "
		"delayed, unwritten or unmapped block is left as it is",
		"ext4_setattr", "an idea, not a kernel change: nothing to verify against a "
		"kernel", SEM(exp_grow_zero_written_only),
		.why = "The idea: a block that is not written has no old bytes on disk to "
		"expose, so zeroing its tail looks like wasted work.  It is wrong: the page "
		"cache of a delayed block can hold bytes stored through mmap past EOF, and "
		"extending the size makes them file content (the counterexample of "
		"scenarios/patches/exp-grow-zero-written-only.yaml).",
		.shown_by = "scenarios/patches/exp-grow-zero-written-only.yaml off",
		.klass = TC_EXPERIMENTAL },
};

#define NR_EXPERIMENTAL (sizeof(experimental) / sizeof(experimental[0]))

unsigned ext4_experimental_count(void)
{
	return NR_EXPERIMENTAL;
}

const struct ext4_toggle *ext4_experimental_at(unsigned i)
{
	SIM_ASSERT(i < NR_EXPERIMENTAL);
	return &experimental[i];
}
