/*
 * fuzz_grammar.c - libFuzzer harness: the input is an explore grammar file.
 * When it loads, every template must expand and parse as a step at each
 * block size, and explore runs a few short random sequences from it
 * (`explore --grammar FILE --seed 1 --count 2 --steps 3 --no-minimize`,
 * output thrown away) and must exit 0 or 1; a grammar of an ACE space
 * (space:, which takes no --seed or --steps) runs its first workload
 * (`--shard 0/SPACE`: a shard is a contiguous range of the space).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ace.h"
#include "cli.h"
#include "commands.h"
#include "fuzz.h"
#include "grammar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expand_all(const struct grammar_file *g)
{
	static const uint32_t bss[] = { 1024, 2048, 4096 };

	for (unsigned i = 0; i < g->nr; i++)
		for (unsigned b = 0; b < 3; b++) {
			char text[SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
			struct scn_step st;
			unsigned col;

			grammar_expand(&g->t[i], bss[b], text);
			if (scn_parse_step(text, &st, err, sizeof(err), &col) != 0)
				fuzz_fail("a loaded template does not parse", text);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool redirected;
	struct grammar_file *g = calloc(1, sizeof(*g));
	const char *path = fuzz_file("grammar.yaml", data, size);
	char err[SCN_ERR_MAX];

	if (!redirected) {
		fuzz_stdout_to("grammar.out");
		redirected = true;
	}
	if (grammar_load(path, g, err, sizeof(err)) == 0) {
		char *argv[] = { "--grammar", (char *)path, "--seed", "1", "--count", "2",
				 "--steps", "3", "--no-minimize", NULL };
		bool ace = g->space != ACE_SPACE_NONE;
		char shard[32];
		char *ace_argv[] = { "--grammar", (char *)path, "--shard", shard, "--no-minimize",
				     NULL };
		struct cmd_args a;
		int rc;

		/* one shard a workload (shards are contiguous ranges): the first one */
		snprintf(shard, sizeof(shard), "0/%llu",
			 ace ? (unsigned long long)ace_walk(g->space, 0, 0, NULL, NULL) : 1ull);
		expand_all(g);
		if ((rc = cmd_parse(cmd_find("explore"), ace ? 5 : 9, ace ? ace_argv : argv,
				    &a)) == 0) {
			rc = cmd_explore(a.argc, a.opts);
			free(a.opts);
		}
		if (rc != 0 && rc != 1)
			fuzz_fail("explore of a grammar that loads did not exit 0 or 1", path);
		fflush(stdout);
		rewind(stdout);
	} else if (strchr(err, '\n')) {
		fuzz_fail("a grammar error of more than one line", err);
	}
	free(g);
	return 0;
}
