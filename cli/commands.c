/*
 * commands.c - the one table of ext4sim's commands and their flags, and the
 * parser of every command's arguments.  Each row names a flag id (enum
 * cmd_flag_id), its name, its value's name and its help; from the rows come
 * `ext4sim --help`, `ext4sim CMD --help`, the man page ext4sim(1) (`ext4sim
 * help --man`) and the bash completion (`ext4sim help --completion`), and
 * cmd_parse runs getopt_long over a command's rows (so `--flag=value` and
 * unambiguous prefixes work as in GNU tools, and an unknown flag is refused
 * with the closest one).  The command gets {id, name, value} in argv order,
 * positionals as F_NONE, and switches on the ids: no command compares flag
 * names, and a flag the table gives a command but its code has no case for
 * is refused by cmd_no_code (tests/topics/cli.sh tries every row).
 */
#include "commands.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "oracle.h"
#include "suggest.h"

/* The flags of the commands that run scenarios (cli.c, parse_run_args). */
#define CONFIG_FLAGS \
	{ F_BLOCK_SIZE, "--block-size", "N", "block size: 1024, 2048 or 4096" }, \
	{ F_DATA, "--data", "MODE", "data=ordered|writeback|journal" }, \
	{ F_DELALLOC, "--delalloc", NULL, "delayed allocation on" }, \
	{ F_NODELALLOC, "--nodelalloc", NULL, "delayed allocation off" }, \
	{ F_DIOREAD_NOLOCK, "--dioread-nolock", NULL, "unwritten extents converted at I/O end" }, \
	{ F_DIOREAD_LOCK, "--dioread-lock", NULL, "blocks written into allocated extents" }, \
	{ F_AUTO_DA_ALLOC, "--auto-da-alloc", NULL, "close after a truncate to 0 flushes" }, \
	{ F_NOAUTO_DA_ALLOC, "--noauto-da-alloc", NULL, "close after a truncate to 0 does not" }, \
	{ F_KERNEL, "--kernel", "VERSION", "a kernel profile (ext4sim patches lists them)" }
/* The world a scenario runs in (and export exports), with CONFIG_FLAGS. */
#define WORLD_FLAGS \
	{ F_DISK_BLOCKS, "--disk-blocks", "N", "the device's size in blocks (2048 .. 2^24)" }, \
	{ F_PATCH, "--patch", "NAME=on|off", "a toggle over the profile (several allowed)" }, \
	{ F_VARIANT, "--variant", "NAME", "only that variant" }
#define CRASH_BOUND_FLAG \
	{ F_CRASH_BOUND, "--crash-bound", "N", "crash states evaluated per crash point (0: none)" }
#define MAX_BYTES_FLAG \
	{ F_MAX_BYTES, "--max-bytes", "N", "bytes the steps may write and read (default 1 GiB)" }
#define FROM_IMAGE_FLAGS \
	{ F_FROM_IMAGE, "--from-image", "FILE", "start from this device image instead of mkfs" }, \
	{ F_MAX_IMAGE_BYTES, "--max-image-bytes", "N", "data the images written may hold " \
	  "(default 1 GiB)" }
#define C_FLAG \
	{ F_C, "-c", "STEP", "an inline step in xfs_io syntax (several; the scenario is 'inline')" }
#define RUN_FLAGS CONFIG_FLAGS, WORLD_FLAGS, \
	{ F_JSON, "--json", NULL, "one JSON document on stdout (docs/json.md)" }, \
	{ F_SUMMARY, "--summary", NULL, "one line per variant" }, \
	{ F_QUIET, "--quiet", NULL, "no step trace" }, \
	{ F_DUMP_FILE, "--dump-file", "PATH", "the final file content (PATH.VARIANT with several)" }, \
	{ F_FAIL_ON, "--fail-on", "INVARIANT", "count an informational invariant" }, \
	CRASH_BOUND_FLAG, \
	{ F_CRASH_EVERYWHERE, "--crash-everywhere", NULL, "also judge a crash after every step and inside" }, \
	{ F_CRASH_REFERENCE, "--crash-reference", NULL, "judge every crash state whole (slow)" }, \
	{ F_CHECKER_LOG, "--checker-log", "MODE", "summary (default), full or eager: same judgments" }, \
	MAX_BYTES_FLAG, \
	{ F_EVENTS, "--events", NULL, "each step's events: I/O, jbd2, page cache, allocator, sizes" }, \
	{ F_EXPLAIN, "--explain", NULL, "the kernel function and rule behind each size change" }, \
	{ F_NOTES, "--notes", NULL, "also the informational notes no expectation counts" }, \
	C_FLAG

static const struct cmd_flag run_flags[] = { RUN_FLAGS,
	{ F_IMAGE, "--image", "FILE", "the device after the run and a clean unmount, a sparse image" },
	FROM_IMAGE_FLAGS,
	{ F_TIMELINE, "--timeline", NULL, "each step's block timeline: where each block's versions are" },
	{ F_QUIZ, "--quiz", NULL, "sizes, crash states, reads and verdicts as blanks" },
	{ F_REVEAL, "--reveal", NULL, "with --quiz: the answer key too" }, { F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag crashstates_flags[] = { RUN_FLAGS,
	{ F_POINT, "--point", "N", "only crash point N" },
	{ F_KEEP, "--keep", "LIST", "with --point: the pending writes that reach the media" },
	{ F_IMAGES, "--images", "DIR", "each distinct state's device before recovery, an image each" },
	FROM_IMAGE_FLAGS, { F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag diff_flags[] = { RUN_FLAGS, { F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag matrix_flags[] = { RUN_FLAGS,
	{ F_TOGGLES, "--toggles", NULL, "one profile with each toggle flipped" }, { F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag bisect_flags[] = { RUN_FLAGS,
	{ F_GOOD, "--good", "A", "a profile or variant" }, { F_BAD, "--bad", "B", "a profile or variant" },
	{ F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag none_flags[] = { { F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag merge_flags[] = { { F_JSON, "--json", NULL, "the merged report as JSON" },
	{ F_NONE, NULL, NULL, NULL } };
/* export runs no trace and judges nothing: only the flags that change what it writes */
static const struct cmd_flag export_flags[] = { CONFIG_FLAGS, WORLD_FLAGS, CRASH_BOUND_FLAG,
	MAX_BYTES_FLAG, C_FLAG,
	{ F_FORMAT, "--format", "F", "xfs_io, fstests or yaml" }, { F_O, "-o", "DIR", "write the files under DIR" },
	{ F_MODEL_DIR, "--model-dir", "DIR", "also the model's bytes at every read-back point" },
	{ F_TEST_NUMBER, "--test-number", "NNN", "the fstests test's number (default 999)" },
	{ F_COPYRIGHT_YEAR, "--copyright-year", "YYYY", "the fstests test's copyright year (default "
	  ORC_COPYRIGHT_YEAR ")" },
	{ F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag import_flags[] = { CONFIG_FLAGS,
	{ F_FROM, "--from", "fsx|xfs_io|ace|fstests", "the input's kind (default: from the name and first line)" },
	{ F_NAME, "--name", "NAME", "the scenario's name" },
	{ F_POLLUTE_EOF, "--pollute-eof", NULL, "re-create fsx -e 1: bytes past EOF in the EOF page" },
	{ F_DIO, "--dio", NULL, "a log of fsx -Z: its writes and reads are direct I/O" },
	{ F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag gen_flags[] = { CONFIG_FLAGS,
	{ F_SEED, "--seed", "S", "the campaign's seed" }, { F_COUNT, "--count", "N", "how many scenarios" },
	{ F_OUT, "--out", "DIR", "one file per scenario under DIR" },
	{ F_NAMESPACE, "--namespace", NULL, "namespace operations over two directories" },
	{ F_DIO, "--dio", NULL, "direct writes (O_DIRECT, O_SYNC, RWF_DSYNC) among the steps" },
	{ F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag explore_flags[] = { RUN_FLAGS,
	{ F_STEPS, "--steps", "K", "steps per sequence" }, { F_KINDS, "--kinds", "LIST", "the step kinds on" },
	{ F_SEED, "--seed", "S", "random mode's seed" }, { F_COUNT, "--count", "N", "random runs" },
	{ F_RUN, "--run", "R", "only random run R" }, { F_SHARD, "--shard", "I/N", "one shard of the search" },
	{ F_OUT, "--out", "DIR", "one scenario per finding under DIR" },
	{ F_GRAMMAR, "--grammar", "FILE", "step templates from a grammar file" },
	{ F_DIFF, "--diff", "PATCH", "findings that differ with the toggle off and on" },
	{ F_DIFF_STATES, "--diff-states", NULL, "with --diff: crash states that differ are findings too" },
	{ F_CRASH_AT, "--crash-at", "WHERE", "long runs: everywhere, persist, crash, none or N" },
	{ F_FIXED_LENGTH, "--fixed-length", NULL, "random runs of exactly K steps" },
	{ F_NO_MINIMIZE, "--no-minimize", NULL, "keep findings as found" },
	{ F_NO_SHARE, "--no-share", NULL, "run one sequence at a time (no prefix sharing)" },
	{ F_NO_SHARE_STATES, "--no-share-states", NULL, "prefix sharing without sharing equal states" },
	{ F_SHARE_STATS, "--share-stats", NULL, "count what sharing saved" },
	{ F_MAX_SPACE, "--max-space", "N", "run a space of up to N sequences here (default 10^9)" },
	{ F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag minimize_flags[] = { RUN_FLAGS,
	{ F_INVARIANT, "--invariant", "NAME", "the finding to keep" }, { F_O, "-o", "PATH", "where to write" },
	{ F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag html_flags[] = { RUN_FLAGS,
	{ F_O, "-o", "OUT.html", "where to write (default NAME.html)" },
	{ F_DIFF, "--diff", "PATCH", "each variant with the toggle off and on" }, { F_NONE, NULL, NULL, NULL } };
static const struct cmd_flag quiz_flags[] = { CONFIG_FLAGS,
	{ F_SEED, "--seed", "S", "the problem's seed" }, { F_ANSWERS, "--answers", NULL, "the key" },
	{ F_YAML, "--yaml", NULL, "the scenario" }, { F_NONE, NULL, NULL, NULL } };

static const struct cmd_desc commands[] = {
	{ "run", "[FLAGS] FILE.yaml|DIR ... | -c STEP ...", "replay scenarios: a step trace and a "
	  "verdict per variant", run_flags },
	{ "crashstates", "[FLAGS] FILE.yaml | -c STEP ...", "every distinct post-recovery state "
	  "at every crash point, judged", crashstates_flags },
	{ "diff", "[FLAGS] FILE.yaml | -c STEP ... --patch NAME", "every variant with a toggle "
	  "off and on, side by side", diff_flags },
	{ "matrix", "[FLAGS] FILE.yaml | -c STEP ... [--toggles]", "the scenario under every "
	  "kernel profile, or with each toggle flipped", matrix_flags },
	{ "bisect", "[FLAGS] FILE.yaml | -c STEP ... --good A --bad B", "the toggles that turn "
	  "A's outcome into B's", bisect_flags },
	{ "patches", "", "the kernel profiles and patch toggles", none_flags },
	{ "explore", "[FLAGS]", "search step sequences for findings (docs/explore.md)",
	  explore_flags },
	{ "minimize", "[FLAGS] FINDING.yaml -o PATH", "a smaller scenario with the same finding",
	  minimize_flags },
	{ "merge", "[--json] REPORT.json ...", "merge explore --json reports of shards",
	  merge_flags },
	{ "export", "[FLAGS] FILE.yaml [--format xfs_io|fstests|yaml] [-o DIR]", "a scenario as "
	  "a real-kernel script, fstests test or reproducer", export_flags },
	{ "import", "[FLAGS] FILE", "an fsx operation log, xfs_io commands, an ACE workload "
	  "(j-lang) or an fstests test as a scenario",
	  import_flags },
	{ "gen", "--seed S --count N [FLAGS]", "random scenarios for the real-kernel check",
	  gen_flags },
	{ "html", "[FLAGS] FILE.yaml [-o OUT.html]", "the states step by step as one page",
	  html_flags },
	{ "quiz", "--seed S [--answers | --yaml] [FLAGS]", "a generated crash problem",
	  quiz_flags },
	{ NULL, NULL, NULL, NULL },
};

const struct cmd_desc *cmd_find(const char *name)
{
	for (const struct cmd_desc *d = commands; d->name; d++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

const struct cmd_desc *cmd_table(void)
{
	return commands;
}

/* "--name ARG" or "-c STEP" of flag @f into @buf. */
static const char *flag_text(const struct cmd_flag *f, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s", f->name, f->arg ? " " : "", f->arg ? f->arg : "");
	return buf;
}

void cmd_usage_all(FILE *out)
{
	fputs("usage: ext4sim COMMAND [FLAGS] ...   (ext4sim COMMAND --help: its flags)\n", out);
	for (const struct cmd_desc *d = commands; d->name; d++)
		fprintf(out, "  ext4sim %s %s\n      %s\n", d->name, d->synopsis, d->summary);
	fputs("  ext4sim --help | --version | help COMMAND | help --man | help --completion\n"
	      "exit status: 0 all held, 1 an invariant or expectation failed, 2 bad input\n"
	      "  (diff: 1 when a verdict differs off and on; bisect: 1 when nothing differs)\n"
	      "docs: README.md, docs/scenario-format.md (steps, flags), docs/real-kernel.md\n", out);
}

void cmd_usage(FILE *out, const struct cmd_desc *d)
{
	char buf[96];

	fprintf(out, "usage: ext4sim %s %s\n%s\n", d->name, d->synopsis, d->summary);
	if (d->flags[0].name)
		fputs("flags (--flag=value works too):\n", out);
	for (const struct cmd_flag *f = d->flags; f->name; f++)
		fprintf(out, "  %-28s %s\n", flag_text(f, buf, sizeof(buf)), f->help);
}

/* "unknown flag 'X'" with the closest of @d's flags. */
static int unknown_flag(const struct cmd_desc *d, const char *arg)
{
	const char *names[96];
	char hint[256], word[64];
	size_t n = 0;
	const char *eq = strchr(arg, '=');

	for (const struct cmd_flag *f = d->flags; f->name && n < 96; f++)
		names[n++] = f->name;
	snprintf(word, sizeof(word), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
	suggest_hint(hint, sizeof(hint), word, names, n);
	fprintf(stderr, "ext4sim: %s: unknown flag '%s'%s; ext4sim %s --help lists its flags\n",
		d->name, word, hint, d->name);
	return 2;
}

/* getopt_long's table for @d into @lo (and the short options into @sopts). */
static void long_options(const struct cmd_desc *d, struct option *lo, char *sopts)
{
	size_t n = 0, s = 2;

	strcpy(sopts, "-:");
	for (const struct cmd_flag *f = d->flags; f->name; f++) {
		if (f->name[1] != '-') {
			sopts[s++] = f->name[1];
			sopts[s++] = ':';
			continue;
		}
		lo[n++] = (struct option){ f->name + 2, f->arg ? required_argument : no_argument, NULL,
					   (int)(256 + (f - d->flags)) };
	}
	sopts[s] = '\0';
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* Append one parsed argument. */
static void push(struct cmd_args *out, enum cmd_flag_id id, const char *name, char *val)
{
	out->opts[out->argc++] = (struct cmd_opt){ id, name, val };
}

/* @d's row of the short option @c ('c' or 'o'). */
static const struct cmd_flag *short_flag(const struct cmd_desc *d, int c)
{
	const struct cmd_flag *f = d->flags;

	while (f->name && !(f->name[1] == c && f->name[2] == '\0'))
		f++;
	return f;
}

int cmd_parse(const struct cmd_desc *d, int argc, char **argv, struct cmd_args *out)
{
	struct option lo[96];
	char sopts[16], **av = calloc((size_t)argc + 2, sizeof(*av));
	int c;

	SIM_ASSERT(av != NULL);
	out->opts = calloc((size_t)argc + 1, sizeof(*out->opts));
	SIM_ASSERT(out->opts != NULL);
	out->argc = 0;
	av[0] = (char *)d->name;
	memcpy(av + 1, argv, (size_t)argc * sizeof(*av));
	long_options(d, lo, sopts);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc + 1, av, sopts, lo, NULL)) != -1) {
		const struct cmd_flag *f = c >= 256 ? &d->flags[c - 256] : short_flag(d, c);

		if (c == 1) {
			push(out, F_NONE, NULL, optarg);
		} else if (c == '?' || c == ':') {
			char *bad = av[optind - 1];

			free(av);
			free(out->opts);
			return c == '?' ? unknown_flag(d, bad) : bad_usage("%s needs a value", bad);
		} else {
			push(out, f->id, f->name, optarg);
		}
	}
	while (optind < argc + 1)
		push(out, F_NONE, NULL, av[optind++]);
	free(av);
	return 0;
}

bool cmd_is_short_valued(const char *arg)
{
	for (const struct cmd_desc *d = commands; d->name; d++)
		for (const struct cmd_flag *f = d->flags; f->name; f++)
			if (f->name[1] != '-' && f->arg && strcmp(f->name, arg) == 0)
				return true;
	return false;
}

int cmd_no_code(const char *cmd, const struct cmd_opt *o)
{
	fprintf(stderr, "ext4sim: %s: flag %s is in the table but has no code\n", cmd,
		o->name ? o->name : o->val);
	return 2;
}

int cmd_take(struct cmd_opt *o, int n, int i)
{
	memmove(o + i, o + i + 1, (size_t)(n - i - 1) * sizeof(*o));
	return n - 1;
}
