/*
 * gen.c - ext4sim gen: random scenarios for the real-kernel check
 * (docs/real-kernel.md).
 *
 *   ext4sim gen --seed S --count N [--out DIR] [--block-size N]
 *               [--data MODE] [--delalloc|--nodelalloc] [--kernel K]
 *               [--namespace | --dio]
 *
 * Scenario I of seed S depends on S and I alone (so a smaller --count gives
 * a prefix of a larger one), from a splitmix64 generator: 4 to 16 steps over
 * a file of at most about 64 KiB, offsets and lengths at and around block and
 * page boundaries, every step kind export runs on a real kernel (pwrite,
 * truncate, falloc, fzero, fpunch, fcollapse, finsert, mwrite, pread, fsync,
 * fdatasync, sync, sync_range, writeback, commit, evict, close, chattr,
 * remount, crash), with at least one crash.  An mmap store stays inside the
 * page holding EOF: the model, run on the steps so far, gives the size.  A
 * close sits wherever an xfs_io process would end (orc_as_run), so export
 * runs exactly the generated steps.  Fill bytes are never 0x00 or 0xee (the
 * device's sentinel).
 *
 * With --dio, two steps in five are direct I/O instead (g_dio_step): direct
 * writes at block boundaries, of 512-byte sectors inside blocks, with
 * RWF_DSYNC, misaligned ones (EINVAL), O_SYNC opens of the file (O_DIRECT
 * too, half of them) whose process the next steps run in, direct reads.
 *
 * The configuration cycles over block sizes 4096 and 1024 and
 * data=ordered (delalloc, nodelalloc), data=writeback (delalloc, nodelalloc)
 * and data=journal, ten in all, unless flags fix some of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "oracle.h"
#include "outfile.h"
#include "prng.h"

#define GEN_COUNT_MAX 100000u
#define GEN_STEPS_MAX 16u

#define PICK(r, arr) ((arr)[prng_below((r), sizeof(arr) / sizeof((arr)[0]))])

struct gen {
	uint64_t seed;
	uint32_t count;
	const char *out_dir;
	bool has_bs, has_data, has_delalloc;
	uint32_t bs;
	enum scn_data_mode data;
	bool delalloc;
	struct sim_overrides mount;     /* --dioread-nolock and the other mount flags */
	char kernel[SCN_NAME_MAX];
	bool ns;                        /* --namespace: gen_ns_one's scenarios */
	bool dio;                       /* --dio: direct I/O among the steps (g_dio_step) */
};

static const struct { uint32_t bs; enum scn_data_mode data; bool delalloc; } cycle[] = {
	{ 4096, SCN_DATA_ORDERED, true }, { 4096, SCN_DATA_ORDERED, false },
	{ 4096, SCN_DATA_WRITEBACK, true }, { 4096, SCN_DATA_WRITEBACK, false },
	{ 4096, SCN_DATA_JOURNAL, false },
	{ 1024, SCN_DATA_ORDERED, true }, { 1024, SCN_DATA_ORDERED, false },
	{ 1024, SCN_DATA_WRITEBACK, true }, { 1024, SCN_DATA_WRITEBACK, false },
	{ 1024, SCN_DATA_JOURNAL, false },
};

static const int64_t OFFSETS[] = { 0, 1024, 2048, 3072, 4096, 5120, 8192, 12288, 16384,
				   20480, 32768, 61440 };
static const int64_t NUDGES[] = { 0, 0, 0, -1, 1, -100, 100, 500, -500, 1000 };
static const int64_t LENGTHS[] = { 1, 100, 500, 1000, 1023, 1024, 1025, 2048, 3000, 4095,
				   4096, 4097, 5000, 8192, 9000, 12288 };

static int64_t g_offset(struct prng *r)
{
	int64_t o = PICK(r, OFFSETS) + PICK(r, NUDGES);

	return o < 0 ? 0 : o;
}

static unsigned g_fill(struct prng *r)
{
	unsigned b = 1 + (unsigned)prng_below(r, 254);      /* 0x01 .. 0xfe */

	return b == 0xee ? 0x11 : b;
}

/* One scenario's state while it is generated. */
struct gscn {
	struct scenario s;              /* steps so far, for the model */
	struct sim_variant_cfg cfg;
	struct orc_config oc;
	struct scn_step steps[GEN_STEPS_MAX + 2];
	unsigned nr;
	bool dio;                       /* --dio */
};

/* The file's size after the steps so far, from the model. */
static int64_t model_size(struct gscn *g)
{
	struct sim_options o = { .crash_bound = 0, .quiet = true };
	struct sim_variant_result r;
	char err[SCN_ERR_MAX];
	int64_t size;

	g->s.steps = g->steps;
	g->s.nr_steps = g->nr;
	SIM_ASSERT(sim_run_variant(&g->s, &g->cfg, &o, NULL, NULL, &r, err, sizeof(err)) == 0);
	size = r.final_size;
	sim_variant_result_free(&r, g->nr);
	return size;
}

/* An mmap store inside the pages up to the one holding EOF; false if there is none. */
static bool g_mwrite(struct prng *r, struct gscn *g)
{
	int64_t size = model_size(g), end, off, len;

	if (size <= 0)
		return false;
	end = (size + 4095) / 4096 * 4096;
	switch (prng_below(r, 3)) {
	case 0:         /* around EOF, possibly past it inside the EOF page */
		off = size - 1 - (int64_t)prng_below(r, 600);
		if (off < 0)
			off = 0;
		break;
	case 1:         /* at a block or page boundary */
		off = (int64_t)prng_below(r, (uint64_t)end / 1024) * 1024;
		break;
	default:
		off = (int64_t)prng_below(r, (uint64_t)end);
		break;
	}
	len = 1 + (int64_t)prng_below(r, (uint64_t)SIM_MIN(end - off, 6000));
	orc_make_step(&g->steps[g->nr++], "mwrite -S 0x%02x %lld %lld", g_fill(r),
		      (long long)off, (long long)len);
	return true;
}

/*
 * A direct-I/O step (--dio): a direct write of whole blocks at a block
 * boundary, of 512-byte sectors (inside a block or across blocks: the
 * unaligned path, IOMAP_DIO_FORCE_WAIT), with RWF_DSYNC (pwritev2, -V 1 -D),
 * a misaligned one (EINVAL), a buffered RWF_DSYNC write, an O_SYNC open of
 * the file (O_DIRECT too, half of them), or a direct read of sectors.
 */
static void g_dio_step(struct prng *r, struct gscn *g)
{
	int64_t bs = g->oc.block_size, off = (int64_t)prng_below(r, 16) * bs,
		len = (1 + (int64_t)prng_below(r, 4)) * bs,
		soff = (int64_t)prng_below(r, 128) * 512, slen = (1 + (int64_t)prng_below(r, 8)) * 512;
	struct scn_step *st = &g->steps[g->nr++];
	unsigned k = (unsigned)prng_below(r, 100);

	if (k < 45)
		orc_make_step(st, "pwrite -d -S 0x%02x %lld %lld", g_fill(r), (long long)off,
			      (long long)len);
	else if (k < 57)
		orc_make_step(st, "pwrite -d -S 0x%02x %lld %lld", g_fill(r), (long long)soff,
			      (long long)slen);
	else if (k < 67)
		orc_make_step(st, "pwrite -d -V 1 -D -S 0x%02x %lld %lld", g_fill(r),
			      (long long)off, (long long)len);
	else if (k < 72)
		orc_make_step(st, "pwrite -d -S 0x%02x %lld %lld", g_fill(r),
			      (long long)g_offset(r), (long long)PICK(r, LENGTHS));
	else if (k < 77)
		orc_make_step(st, "pwrite -V 1 -D -S 0x%02x %lld %lld", g_fill(r),
			      (long long)g_offset(r), (long long)PICK(r, LENGTHS));
	else if (k < 87)
		orc_make_step(st, "open%s -s /f", prng_below(r, 2) ? " -d" : "");
	else
		orc_make_step(st, "dio_read %lld %lld", (long long)soff, (long long)slen);
}

static void g_step(struct prng *r, struct gscn *g)
{
	uint32_t bs = g->oc.block_size;
	struct scn_step *st = &g->steps[g->nr];
	unsigned k = (unsigned)prng_below(r, 1000);

	if (k < 280) {
		orc_make_step(st, "pwrite -S 0x%02x %lld %lld", g_fill(r), (long long)g_offset(r),
			      (long long)PICK(r, LENGTHS));
	} else if (k < 360) {
		static const int64_t tweak[] = { 0, 0, -3, 7 };
		int64_t sz = g_offset(r) + PICK(r, tweak);

		orc_make_step(st, "truncate %lld", (long long)(sz < 0 ? 0 : sz));
	} else if (k < 410) {
		orc_make_step(st, "falloc%s %lld %lld", prng_below(r, 2) ? " -k" : "",
			      (long long)g_offset(r), (long long)PICK(r, LENGTHS));
	} else if (k < 460) {
		orc_make_step(st, "fzero%s %lld %lld", prng_below(r, 5) < 2 ? " -k" : "",
			      (long long)g_offset(r), (long long)PICK(r, LENGTHS));
	} else if (k < 510) {
		orc_make_step(st, "fpunch %lld %lld", (long long)g_offset(r),
			      (long long)PICK(r, LENGTHS));
	} else if (k < 550) {
		/* block-aligned mostly; an unaligned one is refused (EINVAL) */
		int64_t off = (int64_t)prng_below(r, 12) * bs, len = (1 + (int64_t)prng_below(r, 4)) * bs;

		if (prng_below(r, 5) == 0)
			off += 512;
		orc_make_step(st, "%s %lld %lld", prng_below(r, 2) ? "fcollapse" : "finsert",
			      (long long)off, (long long)len);
	} else if (k < 630) {
		if (g_mwrite(r, g))
			return;
		orc_make_step(st, "pwrite -S 0x%02x %lld %lld", g_fill(r), (long long)g_offset(r),
			      (long long)PICK(r, LENGTHS));
	} else if (k < 650) {
		orc_make_step(st, "pread %lld %lld", (long long)g_offset(r),
			      (long long)PICK(r, LENGTHS));
	} else if (k < 700) {
		orc_make_step(st, "fsync");
	} else if (k < 730) {
		orc_make_step(st, "fdatasync");
	} else if (k < 760) {
		orc_make_step(st, "sync");
	} else if (k < 840) {
		static const int64_t soff[] = { 0, 0, 4096, 8192 }, slen[] = { 0, 4096, 8192 };
		static const char flags[] = "wwwwwwaaab";

		orc_make_step(st, "sync_range -%c %lld %lld", flags[prng_below(r, 10)],
			      (long long)PICK(r, soff), (long long)PICK(r, slen));
	} else if (k < 860) {
		if (prng_below(r, 2))
			orc_make_step(st, "writeback");
		else
			orc_make_step(st, "writeback %lld %lld", (long long)g_offset(r),
				      (long long)PICK(r, LENGTHS));
	} else if (k < 890) {
		orc_make_step(st, "commit");
	} else if (k < 915) {
		orc_make_step(st, "evict");
	} else if (k < 930) {
		orc_make_step(st, "close");
	} else if (k < 945) {
		orc_make_step(st, "chattr %cS", prng_below(r, 2) ? '+' : '-');
	} else if (k < 955) {
		orc_make_step(st, "remount");
	} else {
		orc_make_step(st, "crash");
	}
	g->nr++;
}

/* Scenario @idx's configuration (the cycle, unless flags fix some of it) into @g. */
static void gen_config(const struct gen *o, uint32_t idx, struct gscn *g)
{
	struct sim_overrides ov;
	char err[SCN_ERR_MAX];
	unsigned nc;

	g->oc.block_size = o->has_bs ? o->bs : cycle[idx % 10].bs;
	g->oc.data = o->has_data ? o->data : cycle[idx % 10].data;
	g->oc.delalloc = o->has_delalloc ? o->delalloc : cycle[idx % 10].delalloc;
	if (g->oc.data == SCN_DATA_JOURNAL)
		g->oc.delalloc = false;
	g->oc.dioread_nolock = !o->mount.has_dioread_nolock || o->mount.dioread_nolock;
	g->oc.noauto_da_alloc = o->mount.has_auto_da_alloc && !o->mount.auto_da_alloc;
	snprintf(g->oc.kernel, sizeof(g->oc.kernel), "%s", o->kernel);
	scn_config_defaults(&g->s.config);
	g->s.config.c_dioread_nolock = g->oc.dioread_nolock;
	g->s.config.c_auto_da_alloc = !g->oc.noauto_da_alloc;
	g->s.config.c_block_size = g->oc.block_size;
	g->s.config.c_data = g->oc.data;
	g->s.config.c_delalloc = g->oc.delalloc;
	if (o->kernel[0])
		snprintf(g->s.config.c_kernel, sizeof(g->s.config.c_kernel), "%s", o->kernel);
	snprintf(g->s.path, sizeof(g->s.path), "gen");
	snprintf(g->s.name, sizeof(g->s.name), "gen");
	memset(&ov, 0, sizeof(ov));
	SIM_ASSERT(sim_resolve_variants(&g->s, &ov, &g->cfg, &nc, err, sizeof(err)) == 0 && nc == 1);
}

/*
 * The end of a generated scenario, both campaigns': a crash appended when
 * none is there, else half the time when the last step is none (the
 * @steps array has room for one more).
 */
static void gen_end_with_crash(struct prng *r, struct scn_step *steps, unsigned *nr)
{
	unsigned crashes = 0;

	for (unsigned i = 0; i < *nr; i++)
		crashes += steps[i].s_op == SCN_CRASH;
	if (!crashes || (steps[*nr - 1].s_op != SCN_CRASH && prng_below(r, 2)))
		orc_make_step(&steps[(*nr)++], "crash");
}

/* The scenario written: the steps as export runs them (orc_as_run), under @name. */
static void gen_write(FILE *out, const char *name, const char *desc, const char *src,
		      const struct orc_config *oc, const struct scn_step *steps, unsigned nr)
{
	struct scn_step *run = sim_zalloc((6 * (size_t)nr + 3) * sizeof(*run));
	unsigned nrun = orc_as_run(steps, nr, run);

	orc_write_yaml(out, &(struct orc_yaml){ .name = name, .description = desc, .source = src,
						 .config = oc, .steps = run, .nr_steps = nrun });
	free(run);
}

static void gen_one(const struct gen *o, uint32_t idx, FILE *out)
{
	struct gscn *g = sim_zalloc(sizeof(*g));
	struct prng r;
	char name[SCN_NAME_MAX], desc[512], src[128];
	unsigned want;

	prng_seed(&r, o->seed * UINT64_C(0x100000001b3) + idx);
	prng_next(&r);
	gen_config(o, idx, g);
	g->dio = o->dio;
	want = 4 + (unsigned)prng_below(&r, GEN_STEPS_MAX - 3);
	while (g->nr < want) {
		if (g->dio && prng_below(&r, 5) < 2)     /* --dio: two steps in five */
			g_dio_step(&r, g);
		else
			g_step(&r, g);
	}
	gen_end_with_crash(&r, g->steps, &g->nr);
	snprintf(name, sizeof(name), "gen-%s%llu-%04u", o->dio ? "dio-" : "",
		 (unsigned long long)o->seed, idx);
	snprintf(desc, sizeof(desc), "Random scenario %u of seed %llu (ext4sim gen%s), for the "
		 "real-kernel check: offsets at and around block and page boundaries,%s a close "
		 "wherever an xfs_io process ends.", idx, (unsigned long long)o->seed,
		 o->dio ? " --dio" : "", o->dio ? " direct writes, O_SYNC opens and RWF_DSYNC "
		 "writes among buffered ones," : "");
	snprintf(src, sizeof(src), "ext4sim gen%s --seed %llu", o->dio ? " --dio" : "",
		 (unsigned long long)o->seed);
	gen_write(out, name, desc, src, &g->oc, g->steps, g->nr);
	free(g);
}

/*
 * The namespace campaign (--namespace): a few names over two directories,
 * /A (made first, never removed) and /B (made, removed and made again), in
 * the style of ACE's seq-1 and seq-2 workloads: files created, opened and
 * written, hard links, renames (over existing names too), unlinks, a
 * symbolic link, fsyncs of files and directories, syncs, commits, crashes.
 * The script opens the current file by name in each xfs_io process, so
 * after a step that may take that name away (rename, unlink, rmdir) or a
 * crash, a data step is preceded by an open of a name under / or /A (under /
 * alone after a crash, which may have taken /A), which cannot fail (-f
 * creates it).
 */
static const char *const NS_FILES[] = { "/f", "/g", "/A/x", "/A/y", "/B/x" };
static const char *const NS_OPEN[] = { "/f", "/g", "/A/x", "/A/y" };
static const char *const NS_DIRS[] = { "/", "/A", "/B" };
static const int64_t NS_OFFSETS[] = { 0, 0, 1000, 4096, 5000 };
static const int64_t NS_LENGTHS[] = { 1, 100, 1000, 4096, 5000, 8192 };

struct gns {
	struct scn_step steps[48];
	unsigned nr;
	bool need_open;                 /* the current file's name may be gone */
	bool crashed;                   /* /A may be gone too: open under / only */
};

/* A name to open: one under / or /A, under / alone after a crash. */
static const char *ns_open_name(struct prng *r, const struct gns *g)
{
	return NS_OPEN[prng_below(r, g->crashed ? 2 : 4)];
}

/* Two different names of NS_FILES into @a and @b. */
static void ns_two(struct prng *r, const char **a, const char **b)
{
	unsigned i = (unsigned)prng_below(r, 5), j = (i + 1 + (unsigned)prng_below(r, 4)) % 5;

	*a = NS_FILES[i];
	*b = NS_FILES[j];
}

/* A data step (on the current file): after an open when its name may be gone. */
static void ns_data(struct prng *r, struct gns *g, unsigned k)
{
	if (g->need_open)
		orc_make_step(&g->steps[g->nr++], "open -f %s", ns_open_name(r, g));
	g->need_open = false;
	if (k < 220)
		orc_make_step(&g->steps[g->nr++], "pwrite -S 0x%02x %lld %lld", g_fill(r),
			      (long long)PICK(r, NS_OFFSETS), (long long)PICK(r, NS_LENGTHS));
	else if (k < 250)
		orc_make_step(&g->steps[g->nr++], "truncate %lld", (long long)PICK(r, NS_OFFSETS));
	else if (k < 310)
		orc_make_step(&g->steps[g->nr++], "fsync");
	else if (k < 340)
		orc_make_step(&g->steps[g->nr++], "fdatasync");
	else
		orc_make_step(&g->steps[g->nr++], "sync");
}

/* One namespace operation, or a commit, close or crash. */
static void ns_op(struct prng *r, struct gns *g, unsigned k)
{
	struct scn_step *st = &g->steps[g->nr++];
	const char *a, *b;

	ns_two(r, &a, &b);
	if (k < 420) {
		orc_make_step(st, "open -f%s %s", prng_below(r, 4) ? "" : " -t", ns_open_name(r, g));
		g->need_open = false;
	} else if (k < 480) {
		orc_make_step(st, "creat %s", a);
	} else if (k < 560) {
		orc_make_step(st, "link %s %s", a, b);
	} else if (k < 680) {
		orc_make_step(st, "rename %s %s", a, b);
	} else if (k < 740) {
		orc_make_step(st, "unlink %s", a);
	} else if (k < 800) {
		orc_make_step(st, "%s %s", prng_below(r, 4) ? "fsync" : "fdatasync",
			      prng_below(r, 3) ? PICK(r, NS_DIRS) : a);
	} else if (k < 830) {
		orc_make_step(st, "%s /B", prng_below(r, 2) ? "mkdir" : "rmdir");
	} else if (k < 850) {
		orc_make_step(st, "symlink %s /A/l", prng_below(r, 2) ? "x" : "../g");
	} else if (k < 900) {
		orc_make_step(st, "commit");
	} else if (k < 930) {
		orc_make_step(st, "close");
	} else {
		orc_make_step(st, "crash");
	}
	if (st->s_op == SCN_RENAME || st->s_op == SCN_UNLINK || st->s_op == SCN_RMDIR ||
	    st->s_op == SCN_CRASH)
		g->need_open = true;
	g->crashed |= st->s_op == SCN_CRASH;
}

static void gen_ns_one(const struct gen *o, uint32_t idx, FILE *out)
{
	struct gscn *c = sim_zalloc(sizeof(*c));
	struct gns *g = sim_zalloc(sizeof(*g));
	struct prng r;
	char name[SCN_NAME_MAX], desc[512], src[128];
	unsigned want;

	prng_seed(&r, (o->seed ^ UINT64_C(0x6e616d6573706163)) * UINT64_C(0x100000001b3) + idx);
	prng_next(&r);
	gen_config(o, idx, c);
	orc_make_step(&g->steps[g->nr++], "mkdir /A");
	if (prng_below(&r, 2))
		orc_make_step(&g->steps[g->nr++], "mkdir /B");
	for (want = 5 + (unsigned)prng_below(&r, 10); want > 0; want--) {
		unsigned k = (unsigned)prng_below(&r, 1000);

		(k < 380 ? ns_data : ns_op)(&r, g, k);
	}
	gen_end_with_crash(&r, g->steps, &g->nr);
	snprintf(name, sizeof(name), "gen-ns-%llu-%04u", (unsigned long long)o->seed, idx);
	snprintf(desc, sizeof(desc), "Random namespace scenario %u of seed %llu (ext4sim gen "
		 "--namespace), for the real-kernel check: a few names over two directories, "
		 "a close wherever an xfs_io process ends.", idx, (unsigned long long)o->seed);
	snprintf(src, sizeof(src), "ext4sim gen --namespace --seed %llu",
		 (unsigned long long)o->seed);
	gen_write(out, name, desc, src, &c->oc, g->steps, g->nr);
	free(g);
	free(c);
}

/* --seed, --count or --out: 0, or 2 after the message. */
static int gen_campaign_flag(struct gen *o, enum cmd_flag_id id, const char *v)
{
	struct stat st;
	char *end;
	int64_t n;

	if (id == F_SEED) {
		errno = 0;
		o->seed = strtoull(v, &end, 10);
		if (errno || *end || !(v[0] >= '0' && v[0] <= '9'))
			return bad_usage("--seed takes a decimal number, not '%s'", v);
	} else if (id == F_COUNT) {
		if (scn_parse_num(v, &n) < 0 || n < 1 || n > GEN_COUNT_MAX)
			return bad_usage("--count takes 1 to 100000, not '%s'", v);
		o->count = (uint32_t)n;
	} else {
		if (stat(v, &st) != 0 || !S_ISDIR(st.st_mode))
			return bad_usage("--out: no such directory '%s'", v);
		o->out_dir = v;
	}
	return 0;
}

/* --block-size, --data or --kernel: 0, or 2 after the message. */
static int gen_config_flag(struct gen *o, enum cmd_flag_id id, const char *v)
{
	if (id == F_BLOCK_SIZE) {
		if (parse_block_size(v, &o->bs))
			return 2;
		o->has_bs = true;
	} else if (id == F_DATA) {
		if (parse_data_mode(v, &o->data))
			return 2;
		o->has_data = true;
	} else {
		if (parse_kernel_name(v))
			return 2;
		snprintf(o->kernel, sizeof(o->kernel), "%s", v);
	}
	return 0;
}

static int gen_args(struct gen *o, int argc, const struct cmd_opt *opts)
{
	bool has_seed = false, has_count = false;
	int rc = 0;

	for (int i = 0; i < argc && rc == 0; i++) {
		const struct cmd_opt *p = &opts[i];

		switch (p->id) {
		case F_DELALLOC: case F_NODELALLOC:
			o->has_delalloc = true;
			o->delalloc = p->id == F_DELALLOC;
			break;
		case F_SEED: case F_COUNT: case F_OUT:
			has_seed = has_seed || p->id == F_SEED;
			has_count = has_count || p->id == F_COUNT;
			rc = gen_campaign_flag(o, p->id, p->val);
			break;
		case F_NAMESPACE:
			o->ns = true;
			break;
		case F_DIO:
			o->dio = true;
			break;
		case F_BLOCK_SIZE: case F_DATA: case F_KERNEL:
			rc = gen_config_flag(o, p->id, p->val);
			break;
		case F_NONE:    /* as before the table parsed: a word, then a value or not */
			return bad_usage(i + 1 == argc ? "unexpected '%s'" : "unknown flag '%s'",
					 p->val);
		default:
			if (mount_flag(&o->mount, p))
				return cmd_no_code("gen", p);
		}
	}
	if (rc == 0 && (!has_seed || !has_count))
		return bad_usage("gen needs --seed S and --count N%s", "");
	if (rc == 0 && o->ns && o->dio)
		return bad_usage("--dio and --namespace: the namespace campaign has no direct "
				 "I/O%s", "");
	return rc;
}

int cmd_gen(int argc, struct cmd_opt *opts)
{
	struct gen o;
	int rc;

	memset(&o, 0, sizeof(o));
	if ((rc = gen_args(&o, argc, opts)))
		return rc;
	for (uint32_t i = 0; i < o.count; i++) {
		char path[OUTFILE_PATH_MAX], err[OUTFILE_PATH_MAX + 128];
		struct outfile f;

		if (!o.out_dir) {
			if (i)
				fputs("---\n", stdout);
			(o.ns ? gen_ns_one : gen_one)(&o, i, stdout);
			continue;
		}
		snprintf(path, sizeof(path), "%s/gen-%s%llu-%04u.yaml", o.out_dir,
			 o.ns ? "ns-" : o.dio ? "dio-" : "", (unsigned long long)o.seed, i);
		if (outfile_open(&f, path, false, err, sizeof(err)) == 0) {
			(o.ns ? gen_ns_one : gen_one)(&o, i, f.f);
			if (outfile_commit(&f, err, sizeof(err)) == 0)
				continue;
		}
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	return 0;
}
