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
#include "cause.h"
#include "checker.h"
#include "profile.h"
#include "run.h"

#define ACE_CAUSES_MAX 64                /* causes kept a configuration (then "others") */
#define ACE_CONFIGS_MAX 32              /* configurations walked together */

/* A cause: the invariant, the --diff side and the signature (explore/cause.h). */
struct ace_cause {
	int inv;
	int side;                       /* --diff: 1 when the patch on violates it */
	char sig[CAUSE_TEXT_MAX];
	uint64_t count, first;          /* workloads; the first one's number */
	char path[SCN_PATH_MAX];        /* --out: its file ("" when none was written) */
	unsigned nr_steps[2];           /* --out: the workload's steps, and the file's */
};

/* One configuration of the walk (a sweep's, or the flags' alone) and what it found. */
struct ace_config {
	struct sim_variant_cfg cfg;
	char name[128];                 /* the sweep's description of it ("" alone) */
	uint64_t with_finding;
	struct ace_cause causes[ACE_CAUSES_MAX];
	unsigned nr_causes;
	uint64_t others;                /* findings of causes past ACE_CAUSES_MAX */
};

/*
 * One walk: the caller sets the first block, ace_run_space the rest.  Each
 * workload is lowered once and judged under every configuration in turn,
 * so that their equal crash points are judged once (crash/cpmemo.h).
 */
struct ace_run {
	enum ace_space sp;
	uint32_t shard, nr_shards;
	uint64_t max_space;
	struct ace_config *configs;     /* nr_configs of them (the caller's) */
	unsigned nr_configs;
	struct sim_options o;
	const struct ext4_toggle *diff;
	const char *out_dir;            /* --out: each cause's first workload written there */
	bool minimize;                  /* ... minimized first */
	bool share;                     /* equal crash points judged once (crash/cpmemo.h) */
	bool share_stats;               /* their count on stderr */
	/* results */
	uint64_t space, first, mine, run, same, refused[2];
	int interrupted;
	bool write_failed;              /* --out: a file could not be written (exit 2) */
};

/*
 * The space's size on stderr, then (unless this shard's share is past
 * max_space: one line, 2) every workload of the shard judged.  0 or 2.
 */
int ace_run_space(struct ace_run *r);
/*
 * The report on stdout: the counts, then each cause with its first workload
 * (with several configurations, under a line naming each).
 */
void ace_run_report(const struct ace_run *r);

#endif
