/*
 * report.h - verdict lines, the summary table and the --json document.
 */
#ifndef EXT4SIM_REPORT_H
#define EXT4SIM_REPORT_H

#include <stdio.h>

#include "run.h"

/* The command that replays a variant exactly. */
void report_reproduce(char *out, size_t cap, const struct scenario *s,
		      const struct sim_overrides *ov, const char *variant, bool several);
void report_verdict(FILE *out, const struct scenario *s, const struct sim_variant_result *r,
		    const char *reproduce);
void report_summary_line(FILE *out, const struct scenario *s,
			 const struct sim_variant_result *r);
void report_json_scenario(FILE *out, const struct scenario *s,
			  const struct sim_variant_result *r, unsigned nr, bool first,
			  const char *const *reproduce);
void report_json_variant(FILE *out, const struct scenario *s,
			 const struct sim_variant_result *r, const char *reproduce);
void json_string(FILE *out, const char *s);
struct nsnap;
/*
 * A namespace snapshot's JSON (docs/json.md, version 5): ", \"namespace\": "
 * and an array of its entries (path, type, ino, nlink, size, hash, target),
 * then ", \"namespace_unreachable\": " (inode numbers) and
 * ", \"namespace_orphans\": " (the orphan list's length): keys to put in an
 * object.
 */
void json_nsnap_keys(FILE *out, const struct nsnap *s);
/*
 * The mount options of a variant as the mount sees them (ext4_set_def_opts),
 * in the words of the run header: "delalloc, dioread_nolock", "nodelalloc",
 * "delalloc, dioread_lock, noauto_da_alloc" (dioread_nolock only where the
 * mount uses it, ext4_should_dioread_nolock).  The JSON's config "mount".
 */
void report_mount_words(char *buf, size_t cap, const struct sim_variant_cfg *cfg);
/*
 * How a variant is judged where it is not the default, in words for the run
 * header: "; crash judged inside every step, crash bound 64, fail on NAME,
 * NAME", or "" when nothing differs from the defaults.
 */
#define SIM_JUDGING_WORDS_MAX (64 + INV_COUNT * 32)
void report_judging_words(char *buf, size_t cap, const struct sim_judging *j);

/* The run's counters as a flat list (site counters as "folio_lock_under_handle.SITE"). */
#define REPORT_COUNTERS_MAX 32
struct named_count {
	const char *name;
	uint64_t value;
};
unsigned report_counters_flat(const struct sim_counters *c, struct named_count *out);
void json_crash_points(FILE *out, const struct sim_variant_result *r);
/* The run's counters as a JSON object (as in a variant's "counters"). */
void json_counters(FILE *out, const struct sim_counters *c);
/*
 * A digest of every crash point's distinct states of @r (where, then each
 * state's bytes and violations), in hex: what matrix and bisect compare and
 * explore --diff-states looks for a difference in.
 */
void report_states_digest(const struct sim_variant_result *r, char out[65]);

#endif
