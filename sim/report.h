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

#endif
