/*
 * fuzz_scenario.c - libFuzzer harness: the input is a scenario file.  It is
 * loaded as `ext4sim run` loads it; when it loads, every variant runs (the
 * trace formatted, a crash judged after and inside every step, at most 64
 * states a point (given as --crash-bound is, over the file's crash_bound:), 4 MiB of bytes moved at most) and the --json document is
 * parsed back: it must be one valid JSON value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_all(struct cli *c, struct loaded *ld, FILE *trace)
{
	struct sim_variant_result res[SCN_VARIANTS_MAX];
	char repro[SCN_VARIANTS_MAX][2048], err[SCN_ERR_MAX], *buf = NULL;
	const char *repro_p[SCN_VARIANTS_MAX];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	for (unsigned i = 0; i < ld->nr_cfg; i++) {
		report_reproduce(repro[i], sizeof(repro[i]), &ld->s, &c->ov, ld->cfg[i].name,
				 ld->nr_cfg > 1);
		repro_p[i] = repro[i];
		if (sim_run_variant(&ld->s, &ld->cfg[i], &c->o, trace, NULL, &res[i], err,
				    sizeof(err)) < 0)
			fuzz_fail("a run without --dump-file failed", err);
		report_verdict(trace, &ld->s, &res[i], repro[i]);
	}
	report_json_scenario(mem, &ld->s, res, ld->nr_cfg, true, repro_p);
	fclose(mem);
	if (!fuzz_json_valid(buf, len))
		fuzz_fail("run --json is not valid JSON", buf);
	for (unsigned i = 0; i < ld->nr_cfg; i++)
		sim_variant_result_free(&res[i], ld->s.nr_steps);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *trace;
	struct cli *c = calloc(1, sizeof(*c));
	struct loaded *ld = calloc(1, sizeof(*ld));
	const char *path = fuzz_file("scenario.yaml", data, size);

	if (!trace)
		trace = fopen("/dev/null", "w");
	c->o.crash_bound = 64;
	c->judging.j_set_crash_bound = true;    /* as --crash-bound 64: a file's crash_bound: yields */
	c->o.crash_everywhere = size % 2 == 0;
	c->o.name_writes = true;
	c->o.json = c->o.json_state = c->o.record_events = c->o.explain = true;
	c->o.max_bytes = 4u << 20;
	if (load_one(c, path, ld) == 0)
		run_all(c, ld, trace);
	scn_free(&ld->s);
	free(ld);
	free(c);
	return 0;
}
