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
void json_string(FILE *out, const char *s);
void json_crash_points(FILE *out, const struct sim_variant_result *r);

#endif
