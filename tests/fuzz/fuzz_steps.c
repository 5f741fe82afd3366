/*
 * fuzz_steps.c - libFuzzer harness: step sequences decoded from bytes, run
 * through the model and the checker with a crash judged after and inside
 * every step (--crash-everywhere), on every kernel profile, data mode,
 * block size and delalloc setting.  Byte 0 picks the profile, byte 1 the
 * mode, byte 2 the block size, delalloc and whether the run is streamed
 * (sim_stream_*, as long explore runs) or whole (sim_run_variant); then
 * each three bytes are one step: the operation and two numbers, scaled to
 * offsets around block and page boundaries within 160 KiB.  Every line it
 * builds must parse: a refused one is a harness bug, and aborts.  A model
 * assertion or a sanitizer report is the finding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"
#include "minimize.h"

#define STEPS_MAX 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An offset or length from one byte: 512-byte units, with odd tails and a far range. */
static long long num(uint8_t b)
{
	return (long long)(b & 63) * 512 + ((b & 64) ? 100 : 0) + ((b & 128) ? 98304 : 0);
}

/* Every format takes (fill, a, b) and uses what it needs; "%.0s" skips the fill. */
static void step_text(const uint8_t *p, char out[SCN_STEP_TEXT_MAX])
{
	static const char *const fmt[] = {
		"pwrite -S %s %lld %lld", "pread %.0s%lld %lld", "truncate %.0s%lld",
		"fsync", "fdatasync", "sync_range -w %.0s%lld %lld", "sync_range -a 0 0",
		"sync", "writeback", "commit", "checkpoint", "remount", "crash",
		"crash --keep %.0s1-%lld", "shutdown", "evict", "close", "chattr +S",
		"chattr -S", "falloc %.0s%lld %lld", "falloc -k %.0s%lld %lld",
		"fzero %.0s%lld %lld", "fzero -k %.0s%lld %lld", "fpunch %.0s%lld %lld",
		"fcollapse %.0s%lld %lld", "finsert %.0s%lld %lld", "mwrite -S %s %lld %lld",
		"dio_read %.0s%lld %lld", "pwrite --short 100 -S %s %lld %lld",
		"inject enospc --after %.0s%lld", "inject nonda", "inject clear",
	};
	unsigned op = p[0] % (sizeof(fmt) / sizeof(fmt[0]));
	long long a = num(p[1]), b = num(p[2]) + 1;
	char fill[8];

	snprintf(fill, sizeof(fill), "0x%02x", 1 + p[1] % 200);
	if (op == 13)
		a = 1 + p[1] % 8;                       /* crash --keep 1-N */
	if (op == 28 && b < 100)                        /* --short 100 needs LEN >= 100 */
		b += 100;
	if (op == 29)
		a = p[1] % 24;                          /* inject enospc --after 0..23 blocks */
	if (op == 24 || op == 25 || op == 27) {         /* block-aligned, mostly */
		a &= ~1023LL;
		b = (b + 1023) & ~1023LL;
	}
	snprintf(out, SCN_STEP_TEXT_MAX, fmt[op], fill, a, b);
}

static void run_stream(const struct sim_variant_cfg *cfg, const struct sim_options *o,
		       const struct scenario *s)
{
	struct sim_stream *ss = sim_stream_open(cfg, o);
	struct sim_stream_result r;

	for (unsigned i = 0; i < s->nr_steps; i++)
		sim_stream_step(ss, &s->steps[i], true);
	sim_stream_close(ss, &r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t bss[] = { 1024, 2048, 4096 };
	char texts[STEPS_MAX][SCN_STEP_TEXT_MAX], err[SCN_ERR_MAX];
	struct sim_overrides ov = { 0 };
	struct sim_options o = { 0 };
	struct sim_variant_cfg cfg[SCN_VARIANTS_MAX];
	struct sim_variant_result r;
	struct scenario s;
	unsigned nr = 0, nr_cfg;

	if (size < 3)
		return 0;
	ov.has_kernel = ov.has_data = ov.has_block_size = ov.has_delalloc = true;
	snprintf(ov.kernel, sizeof(ov.kernel), "%s",
		 ext4_profile_at(data[0] % ext4_profile_count())->name);
	ov.data = (enum scn_data_mode)(data[1] % 3);
	ov.block_size = bss[data[2] % 3];
	ov.delalloc = data[2] & 4;
	for (size_t i = 3; i + 3 <= size && nr < STEPS_MAX; i += 3)
		step_text(data + i, texts[nr++]);
	min_build(&s, "fuzz", texts, nr);
	if (sim_resolve_variants(&s, &ov, cfg, &nr_cfg, err, sizeof(err)) != 0)
		fuzz_fail("a profile from the table does not resolve", err);
	o.crash_bound = 64;
	o.crash_everywhere = true;
	o.name_writes = true;
	if (data[2] & 8) {
		run_stream(&cfg[0], &o, &s);
	} else {
		if (sim_run_variant(&s, &cfg[0], &o, NULL, NULL, &r, err, sizeof(err)) != 0)
			fuzz_fail("a run failed", err);
		sim_variant_result_free(&r, s.nr_steps);
	}
	scn_free(&s);
	return 0;
}
