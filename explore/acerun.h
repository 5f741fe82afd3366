/*
 * acerun.h - explore over one of ACE's spaces (acerun.c): every workload of
 * the space (ace.h) in this shard, lowered as `import --from ace` lowers
 * its j-lang file, judged with a crash at every step and inside steps, the
 * findings grouped by cause.
 */
#ifndef EXT4SIM_ACERUN_H
#define EXT4SIM_ACERUN_H

#include <stdbool.h>
#include <stdint.h>

#include "ace.h"
#include "checker.h"
#include "profile.h"
#include "run.h"

#define ACE_CAUSES_MAX (2 * INV_COUNT)  /* an invariant, and with --diff its side */

struct ace_cause {
	int inv;
	int side;                       /* --diff: 1 when the patch on violates it */
	uint64_t count, first;          /* workloads; the first one's number */
};

/* One walk: the caller sets the first block, ace_run_space the rest. */
struct ace_run {
	enum ace_space sp;
	uint32_t shard, nr_shards;
	uint64_t max_space;
	struct sim_variant_cfg cfg;
	struct sim_options o;
	const struct ext4_toggle *diff;
	bool share;                     /* equal crash points judged once (crash/cpmemo.h) */
	bool share_stats;               /* their count on stderr */
	/* results */
	uint64_t space, first, mine, run, same, refused[2], with_finding;
	struct ace_cause causes[ACE_CAUSES_MAX];
	unsigned nr_causes;
	int interrupted;
};

/*
 * The space's size on stderr, then (unless this shard's share is past
 * max_space: one line, 2) every workload of the shard judged.  0 or 2.
 */
int ace_run_space(struct ace_run *r);
/* The report on stdout: the counts and each cause with its first workload. */
void ace_run_report(const struct ace_run *r);

#endif
