/*
 * fuzz_stepline.c - libFuzzer harness: the input is one step line, as `-c`
 * and a scenario's steps: take it.  The parser must accept it or refuse it
 * with a one-line message and a column inside the line; an accepted step,
 * written back in its canonical text (oracle's orc_step_text, as export and
 * import write steps), must parse again to the same text; and it runs as a
 * one-step scenario after a 6 KiB write, with a crash judged after and
 * inside it, when its work is small: offset and length under 1 MiB, and at
 * most 64 write calls when each call syncs (pwrite -D: every call commits,
 * and each commit's crash states scan the whole file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"
#include "minimize.h"
#include "oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_small(const char *canon)
{
	char texts[2][SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	struct sim_overrides ov = { 0 };
	struct sim_options o = { .crash_bound = 16, .crash_everywhere = true };
	struct sim_variant_cfg cfg[SCN_VARIANTS_MAX];
	struct sim_variant_result r;
	struct scenario s;
	unsigned nr_cfg;

	snprintf(texts[0], sizeof(texts[0]), "pwrite -S 0x41 0 6144");
	snprintf(texts[1], sizeof(texts[1]), "%s", canon);
	min_build(&s, "fuzz", texts, 2);
	if (sim_resolve_variants(&s, &ov, cfg, &nr_cfg, err, sizeof(err)) != 0 ||
	    sim_run_variant(&s, &cfg[0], &o, NULL, NULL, &r, err, sizeof(err)) != 0)
		fuzz_fail("a one-step run failed", err);
	sim_variant_result_free(&r, s.nr_steps);
	scn_free(&s);
}

/* The one-step run's work is bounded: see the header. */
static bool small_work(const struct scn_step *st)
{
	int64_t call = (int64_t)(st->s_bsize ? st->s_bsize : 4096) * (st->s_vectors ? st->s_vectors : 1);

	if (st->s_off >= (1 << 20) || st->s_len >= (1 << 20))
		return false;
	return !st->s_dsync || st->s_len / call <= 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[SCN_STEP_TEXT_MAX * 2], err[SCN_ERR_MAX], canon[SCN_STEP_TEXT_MAX];
	char again[SCN_STEP_TEXT_MAX];
	struct scn_step st, st2;
	unsigned col;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (scn_parse_step(text, &st, err, sizeof(err), &col) != 0) {
		if (strchr(err, '\n') || col > strlen(text))
			fuzz_fail("a step error of more than one line or past the line", err);
		return 0;
	}
	orc_step_text(&st, canon, sizeof(canon));
	if (scn_parse_step(canon, &st2, err, sizeof(err), &col) != 0)
		fuzz_fail("a step's canonical text does not parse", canon);
	orc_step_text(&st2, again, sizeof(again));
	if (strcmp(canon, again))
		fuzz_fail("a step's canonical text changes when read again", again);
	if (small_work(&st))
		run_small(canon);
	return 0;
}
