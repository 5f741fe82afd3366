/*
 * test_scenario.c - unit tests for scenario/scenario.c (YAML loader, step parser,
 * number parser) and scenario/scnwrite.c (the YAML writer: what it writes,
 * the loader reads back the same).
 *
 * Valid scenarios are written to build/test_scenario-tmp/ and loaded back;
 * malformed ones live in tests/data/yaml-bad/, each starting with a line
 * "# expect: LINE:COL: message-substring" that test_scenario__bad_fixtures
 * checks against the loader's "PATH:LINE:COL: message".  Run from the
 * repository root.
 *
 * The command table (cli/commands.c), which parses the flags scenarios run
 * under: every flag id has a row and one name, no command lists a flag
 * twice, and cmd_parse keeps argv's order (tests/topics/cli.sh checks the
 * other way: every row of every command reaches code).
 */
#define _XOPEN_SOURCE 700       /* srandom(3) and random(3), to compare with */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "oracle.h"
#include "xfs_io_random.h"
#include "scenario.h"
#include "scnwrite.h"

#define TMP_DIR "build/test_scenario-tmp"
#define BAD_DIR "tests/data/yaml-bad"
#define FIXTURES_MIN 25
#define FIXTURES_MAX 256

/* Invariant names of docs/invariants.md, plus "extra_*" so a fixture
 * can list more distinct names than the checker has. */
static bool test_is_invariant(const char *name)
{
	static const char *const names[] = {
		"disksize_le_size", "disksize_pending", "gap_zero_on_extend",
		"gap_zero_durable", "no_stale_data", "fsync_durable",
		"alloc_consistent", "journal_prefix", "post_eof_zero_strict",
		"no_folio_lock_under_handle", "prealloc_durable", "replace_via_truncate",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return strncmp(name, "extra_", 6) == 0;
}

/* Give each test a zeroed scenario on the heap (it is ~100 KiB). */
static int scn_setup(void **state)
{
	*state = calloc(1, sizeof(struct scenario));
	return *state == NULL ? -1 : 0;
}

/* Free the test's scenario and whatever scn_load left in it. */
static int scn_teardown(void **state)
{
	scn_free(*state);
	free(*state);
	return 0;
}

/* Write @len bytes of @data to TMP_DIR/@name; the path goes to @path. */
static void write_tmp(const char *name, const char *data, size_t len,
		      char *path, size_t pathlen)
{
	FILE *f;

	if (mkdir("build", 0777) < 0)
		assert_int_equal(errno, EEXIST);
	if (mkdir(TMP_DIR, 0777) < 0)
		assert_int_equal(errno, EEXIST);
	snprintf(path, pathlen, "%s/%s", TMP_DIR, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Write @yaml to a temporary file and load it into @s. */
static int load_text(const char *name, const char *yaml, struct scenario *s,
		     char *err, size_t errlen)
{
	char path[256];

	write_tmp(name, yaml, strlen(yaml), path, sizeof(path));
	return scn_load(path, s, test_is_invariant, err, errlen);
}

/* Load @yaml and fail the test with the loader's message if it fails. */
static void load_ok(const char *name, const char *yaml, struct scenario *s)
{
	char err[SCN_ERR_MAX];

	if (load_text(name, yaml, s, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

static const char full_yaml[] =
	"# a scenario with every key\n"
	"name: append-after-mmap-eof-pollution\n"
	"description: >\n"
	"  mmap store beyond EOF, then an extending write.\n"
	"source: 'fstests generic/363; commit c7fc0366c656'\n"
	"config:\n"
	"  block_size: 1024\n"
	"  data: writeback\n"
	"  delalloc: false\n"
	"  dioread_nolock: false\n"
	"  disk_blocks: 64k\n"
	"  kernel: 6.12\n"
	"  patches: {gap-zero: on, old_thing: off}\n"
	"steps:\n"
	"  - pwrite -S 0x11 0 2048\n"
	"  - \"mwrite -S 0x58 2048 2048\"\n"
	"  - crash\n"
	"variants:\n"
	"  - {name: before, kernel: \"6.12\"}\n"
	"  - name: after\n"
	"    patches:\n"
	"      gap-zero: off\n"
	"expect:\n"
	"  before: [gap_zero_on_extend, no_stale_data]\n"
	"  after: []\n";

/* A file using every key loads with every value in place. */
static void test_scenario__full_file_loads(void **state)
{
	struct scenario *s = *state;
	const struct scn_config *c = &s->config;

	load_ok("full.yaml", full_yaml, s);
	assert_string_equal(s->path, TMP_DIR "/full.yaml");
	assert_string_equal(s->name, "append-after-mmap-eof-pollution");
	assert_string_equal(s->description,
			    "mmap store beyond EOF, then an extending write.\n");
	assert_string_equal(s->source, "fstests generic/363; commit c7fc0366c656");
	assert_int_equal(c->c_block_size, 1024);
	assert_int_equal(c->c_data, SCN_DATA_WRITEBACK);
	assert_false(c->c_delalloc);
	assert_true(c->c_set_delalloc);
	assert_false(c->c_dioread_nolock);
	assert_int_equal(c->c_disk_blocks, 65536);
	assert_string_equal(c->c_kernel, "6.12");
	assert_int_equal(c->c_nr_patches, 2);
	assert_string_equal(c->c_patches[0].p_name, "gap-zero");
	assert_true(c->c_patches[0].p_on);
	assert_string_equal(c->c_patches[1].p_name, "old_thing");
	assert_false(c->c_patches[1].p_on);
	assert_int_equal(s->nr_steps, 3);
	assert_int_equal(s->steps[1].s_op, SCN_MWRITE);
	assert_int_equal(s->steps[2].s_op, SCN_CRASH);
	assert_int_equal(s->nr_variants, 2);
	assert_string_equal(s->variants[0].v_name, "before");
	assert_true(s->variants[0].v_has_kernel);
	assert_string_equal(s->variants[0].v_kernel, "6.12");
	assert_int_equal(s->variants[0].v_nr_patches, 0);
	assert_int_equal(s->variants[0].v_line, 19);
	assert_int_equal(s->variants[0].v_col, 5);
	assert_string_equal(s->variants[1].v_name, "after");
	assert_false(s->variants[1].v_has_kernel);
	assert_int_equal(s->variants[1].v_nr_patches, 1);
	assert_false(s->variants[1].v_patches[0].p_on);
	assert_true(s->has_expect);
	assert_int_equal(s->nr_expect, 2);
	assert_string_equal(s->expect[0].e_variant, "before");
	assert_int_equal(s->expect[0].e_nr, 2);
	assert_string_equal(s->expect[0].e_invariants[1], "no_stale_data");
	assert_int_equal(s->expect[0].e_line, 24);
	assert_int_equal(s->expect[0].e_col, 3);
	assert_string_equal(s->expect[1].e_variant, "after");
	assert_int_equal(s->expect[1].e_nr, 0);
}

/* Without config:, the defaults apply; no variants, no expect. */
static void test_scenario__defaults_apply(void **state)
{
	struct scenario *s = *state;
	struct scn_config d;

	load_ok("min.yaml", "name: min\nsteps: [fsync]\n", s);
	scn_config_defaults(&d);
	assert_int_equal(d.c_block_size, 4096);
	assert_int_equal(d.c_data, SCN_DATA_ORDERED);
	assert_true(d.c_delalloc);
	assert_true(d.c_dioread_nolock);
	assert_int_equal(d.c_disk_blocks, 16384);
	assert_string_equal(d.c_kernel, "6.18");
	assert_int_equal(d.c_nr_patches, 0);
	assert_false(d.c_set_delalloc);
	assert_memory_equal(&s->config, &d, sizeof(d));
	assert_int_equal(s->nr_variants, 0);
	assert_false(s->has_expect);
	assert_string_equal(s->description, "");
	assert_int_equal(s->nr_steps, 1);
	assert_int_equal(s->steps[0].s_op, SCN_FSYNC);
}

/* data: journal turns delalloc off; an explicit delalloc: false is fine. */
static void test_scenario__journal_turns_delalloc_off(void **state)
{
	struct scenario *s = *state;

	load_ok("j1.yaml", "name: j\nconfig: {data: journal}\nsteps: [sync]\n", s);
	assert_int_equal(s->config.c_data, SCN_DATA_JOURNAL);
	assert_false(s->config.c_delalloc);
	assert_false(s->config.c_set_delalloc);
	scn_free(s);
	load_ok("j2.yaml", "name: j\nconfig:\n  delalloc: false\n"
		"  data: journal\nsteps: [sync]\n", s);
	assert_false(s->config.c_delalloc);
	assert_true(s->config.c_set_delalloc);
}

/* Without variants:, expect: may name "default"; a NULL is_invariant lets
 * any well-formed invariant name through. */
static void test_scenario__expect_default_variant(void **state)
{
	struct scenario *s = *state;
	char path[256];
	char err[SCN_ERR_MAX];
	static const char yaml[] = "name: d\nsteps: [sync]\n"
				   "expect:\n  default: [not_an_invariant]\n";

	write_tmp("def.yaml", yaml, strlen(yaml), path, sizeof(path));
	assert_int_equal(scn_load(path, s, NULL, err, sizeof(err)), 0);
	assert_true(s->has_expect);
	assert_int_equal(s->nr_expect, 1);
	assert_string_equal(s->expect[0].e_variant, "default");
	assert_string_equal(s->expect[0].e_invariants[0], "not_an_invariant");
	scn_free(s);
	assert_int_equal(scn_load(path, s, test_is_invariant, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, ":4:13: unknown invariant"));
	assert_null(s->steps);
}

/* expect: may come before the variants: it names. */
static void test_scenario__expect_may_precede_variants(void **state)
{
	struct scenario *s = *state;

	load_ok("order.yaml", "name: o\nsteps: [sync]\n"
		"expect: {b: [no_stale_data]}\nvariants: [{name: b}]\n", s);
	assert_int_equal(s->nr_variants, 1);
	assert_int_equal(s->nr_expect, 1);
	assert_string_equal(s->expect[0].e_variant, "b");
	assert_int_equal(s->expect[0].e_line, 3);
	assert_int_equal(s->expect[0].e_col, 10);
}

/* A UTF-8 byte order mark is accepted; a UTF-16 file is refused at 1:1. */
static void test_scenario__encoding(void **state)
{
	struct scenario *s = *state;
	static const char utf16[] = "\xff\xfen\0a\0m\0e\0";
	char path[256];
	char err[SCN_ERR_MAX];

	load_ok("bom.yaml", "\xef\xbb\xbfname: bom\nsteps: [sync]\n", s);
	assert_string_equal(s->name, "bom");
	scn_free(s);
	write_tmp("utf16.yaml", utf16, sizeof(utf16) - 1, path, sizeof(path));
	assert_int_equal(scn_load(path, s, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "utf16.yaml:1:1: invalid input: UTF-16"));
}

/* Each step records its 1-based position; s_text is the trimmed text. */
static void test_scenario__step_positions(void **state)
{
	struct scenario *s = *state;

	load_ok("pos.yaml", "name: p\nsteps:\n  -   pwrite 0 1\n"
		"  - '  fsync  '\n  - \"sync\"\nvariants: []\n", s);
	assert_int_equal(s->nr_steps, 3);
	assert_int_equal(s->steps[0].s_line, 3);
	assert_int_equal(s->steps[0].s_col, 7);
	assert_string_equal(s->steps[0].s_text, "pwrite 0 1");
	assert_int_equal(s->steps[1].s_line, 4);
	assert_int_equal(s->steps[1].s_col, 5);
	assert_string_equal(s->steps[1].s_text, "fsync");
	assert_int_equal(s->steps[2].s_line, 5);
	assert_string_equal(s->steps[2].s_text, "sync");
	assert_int_equal(s->nr_variants, 0);
}

/* A missing file is reported at 1:1 with strerror's text. */
static void test_scenario__missing_file(void **state)
{
	struct scenario *s = *state;
	char err[SCN_ERR_MAX];

	assert_int_equal(scn_load("build/no/such/file.yaml", s, NULL, err,
				  sizeof(err)), -1);
	assert_string_equal(err, "build/no/such/file.yaml:1:1: cannot open: "
			    "No such file or directory");
	assert_null(s->steps);
	assert_int_equal(s->nr_steps, 0);
}

/* Fill @buf (@len bytes) with a valid scenario padded by comment lines. */
static void fill_padded(char *buf, size_t len)
{
	static const char head[] = "name: big\nsteps: [sync]\n";
	size_t i;

	memset(buf, '#', len);
	memcpy(buf, head, sizeof(head) - 1);
	for (i = sizeof(head) - 1 + 70; i < len; i += 71)
		buf[i] = '\n';
	buf[len - 1] = '\n';
}

/* A file of exactly SCN_FILE_BYTES_MAX bytes loads; one byte more fails
 * before parsing, at 1:1. */
static void test_scenario__file_size_limit(void **state)
{
	struct scenario *s = *state;
	size_t len = SCN_FILE_BYTES_MAX + 1;
	char *buf = malloc(len);
	char path[256];
	char err[SCN_ERR_MAX];

	assert_non_null(buf);
	fill_padded(buf, len - 1);
	write_tmp("limit.yaml", buf, len - 1, path, sizeof(path));
	fill_padded(buf, len);
	write_tmp("over.yaml", buf, len, path, sizeof(path));
	free(buf);
	assert_int_equal(scn_load(TMP_DIR "/limit.yaml", s, NULL, err,
				  sizeof(err)), 0);
	assert_int_equal(s->nr_steps, 1);
	scn_free(s);
	assert_int_equal(scn_load(path, s, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "over.yaml:1:1: file too large"));
}

/* Write a scenario with @nr "- sync" steps; returns its path in @path. */
static void write_many_steps(const char *name, unsigned nr, char *path,
			     size_t pathlen)
{
	static const char head[] = "name: many\nsteps:\n";
	size_t len = sizeof(head) - 1 + (size_t)nr * 7;
	char *buf = malloc(len);
	unsigned i;

	assert_non_null(buf);
	memcpy(buf, head, sizeof(head) - 1);
	for (i = 0; i < nr; i++)
		memcpy(buf + sizeof(head) - 1 + (size_t)i * 7, "- sync\n", 7);
	write_tmp(name, buf, len, path, pathlen);
	free(buf);
}

/* SCN_STEPS_MAX steps load; one more is an error at the extra step. */
static void test_scenario__steps_limit(void **state)
{
	struct scenario *s = *state;
	char path[256];
	char err[SCN_ERR_MAX];
	char want[64];

	write_many_steps("steps-max.yaml", SCN_STEPS_MAX, path, sizeof(path));
	assert_int_equal(scn_load(path, s, NULL, err, sizeof(err)), 0);
	assert_int_equal(s->nr_steps, SCN_STEPS_MAX);
	assert_int_equal(s->steps[SCN_STEPS_MAX - 1].s_line, SCN_STEPS_MAX + 2);
	scn_free(s);
	write_many_steps("steps-over.yaml", SCN_STEPS_MAX + 1, path,
			 sizeof(path));
	assert_int_equal(scn_load(path, s, NULL, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), ":%d:3: too many steps", SCN_STEPS_MAX + 3);
	assert_non_null(strstr(err, want));
	assert_null(s->steps);
}

/* Read "# expect: LINE:COL: SUBSTRING" from the first line of @path. */
static void read_expectation(const char *path, unsigned *line, unsigned *col,
			     char *sub, size_t sublen)
{
	char first[512];
	char *nl;
	int used = 0;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_non_null(fgets(first, sizeof(first), f));
	fclose(f);
	nl = strchr(first, '\n');
	if (nl != NULL)
		*nl = '\0';
	if (sscanf(first, "# expect: %u:%u: %n", line, col, &used) != 2 ||
	    used == 0 || first[used] == '\0')
		fail_msg("%s: first line is not '# expect: LINE:COL: text'", path);
	snprintf(sub, sublen, "%s", first + used);
}

/* Check one bad fixture: load fails with PATH:LINE:COL: ...SUBSTRING... */
static void check_fixture(const char *path, struct scenario *s)
{
	char err[SCN_ERR_MAX];
	char sub[512];
	char prefix[600];
	unsigned line;
	unsigned col;

	read_expectation(path, &line, &col, sub, sizeof(sub));
	if (scn_load(path, s, test_is_invariant, err, sizeof(err)) == 0)
		fail_msg("%s: loaded, expected an error", path);
	snprintf(prefix, sizeof(prefix), "%s:%u:%u: ", path, line, col);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, sub))
		fail_msg("%s:\n  got:  %s\n  want: %s...%s", path, err, prefix,
			 sub);
	assert_null(s->steps);
}

/* qsort comparator for an array of fixture names. */
static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every .yaml file in tests/data/yaml-bad fails as its first line says. */
static void test_scenario__bad_fixtures(void **state)
{
	char names[FIXTURES_MAX][256];
	char path[512];
	unsigned nr = 0;
	unsigned i;
	struct dirent *de;
	DIR *dir = opendir(BAD_DIR);

	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL) {
		size_t n = strlen(de->d_name);

		if (n < 6 || strcmp(de->d_name + n - 5, ".yaml") != 0)
			continue;
		assert_true(nr < FIXTURES_MAX);
		assert_true(n < sizeof(names[0]));
		memcpy(names[nr++], de->d_name, n + 1);
	}
	closedir(dir);
	assert_true(nr >= FIXTURES_MIN);
	qsort(names, nr, sizeof(names[0]), cmp_names);
	for (i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%.255s", BAD_DIR, names[i]);
		check_fixture(path, *state);
	}
}

struct step_case {
	const char *sc_text;
	enum scn_op sc_op;
	int64_t sc_off;
	int64_t sc_len;
	unsigned sc_fill;
	char sc_flag;        /* sync_range flag, or 'r' writeback range,
			      * 'k' keep size, 'v' verbose, '+'/'-' chattr */
	int64_t sc_short;
};

static const struct step_case step_cases[] = {
	{ "pwrite 0 4096", SCN_PWRITE, 0, 4096, 0xcd, 0, -1 },
	{ "pwrite -S 0x11 --short 100 4k 1k", SCN_PWRITE, 4096, 1024, 0x11, 0,
	  100 },
	{ "pwrite --short 0 -S 255 0 0", SCN_PWRITE, 0, 0, 255, 0, 0 },
	{ "\t pwrite   1\t2  ", SCN_PWRITE, 1, 2, 0xcd, 0, -1 },
	{ "pread -v 10 20", SCN_PREAD, 10, 20, 0, 'v', -1 },
	{ "pread 0 0", SCN_PREAD, 0, 0, 0, 0, -1 },
	{ "truncate 1m", SCN_TRUNCATE, 0, 1 << 20, 0, 0, -1 },
	{ "falloc -k 0 8192", SCN_FALLOC, 0, 8192, 0, 'k', -1 },
	{ "falloc 4096 0", SCN_FALLOC, 4096, 0, 0, 0, -1 },
	{ "fzero -k 1 2", SCN_FZERO, 1, 2, 0, 'k', -1 },
	{ "fzero 1 2", SCN_FZERO, 1, 2, 0, 0, -1 },
	{ "fpunch 0x1000 0x1000", SCN_FPUNCH, 4096, 4096, 0, 0, -1 },
	{ "fcollapse 4096 4096", SCN_FCOLLAPSE, 4096, 4096, 0, 0, -1 },
	{ "finsert 0 4k", SCN_FINSERT, 0, 4096, 0, 0, -1 },
	{ "mwrite 2048 2048", SCN_MWRITE, 2048, 2048, 0x58, 0, -1 },
	{ "mwrite -S 0 0 1", SCN_MWRITE, 0, 1, 0, 0, -1 },
	{ "fsync", SCN_FSYNC, 0, 0, 0, 0, -1 },
	{ "fdatasync", SCN_FDATASYNC, 0, 0, 0, 0, -1 },
	{ "sync_range -w 0 0", SCN_SYNC_RANGE, 0, 0, 0, 'w', -1 },
	{ "sync_range -a 4096 8192", SCN_SYNC_RANGE, 4096, 8192, 0, 'a', -1 },
	{ "sync_range -b 1 2", SCN_SYNC_RANGE, 1, 2, 0, 'b', -1 },
	{ "sync", SCN_SYNC, 0, 0, 0, 0, -1 },
	{ "chattr +S", SCN_CHATTR, 0, 0, 0, '+', -1 },
	{ "chattr -S", SCN_CHATTR, 0, 0, 0, '-', -1 },
	{ "close", SCN_CLOSE, 0, 0, 0, 0, -1 },
	{ "shutdown", SCN_SHUTDOWN, 0, 0, 0, 0, -1 },
	{ "writeback", SCN_WRITEBACK, 0, 0, 0, 0, -1 },
	{ "writeback 0 4096", SCN_WRITEBACK, 0, 4096, 0, 'r', -1 },
	{ "commit", SCN_COMMIT, 0, 0, 0, 0, -1 },
	{ "checkpoint", SCN_CHECKPOINT, 0, 0, 0, 0, -1 },
	{ "crash", SCN_CRASH, 0, 0, 0, 0, -1 },
	{ "remount", SCN_REMOUNT, 0, 0, 0, 0, -1 },
	{ "evict", SCN_EVICT, 0, 0, 0, 0, -1 },
	{ "pwrite 0 4 -S 0xaa", SCN_PWRITE, 0, 4, 0xaa, 0, -1 },
	{ "pwrite -qS0x11 -b 1m -W 1b 2s", SCN_PWRITE, 4096, 1024, 0x11, 0, -1 },
	{ "pwrite -S 1 -- 0 4", SCN_PWRITE, 0, 4, 1, 0, -1 },
	{ "truncate 010", SCN_TRUNCATE, 0, 8, 0, 0, -1 },
	{ "sync_range 0 0", SCN_SYNC_RANGE, 0, 0, 0, 'w', -1 },
	{ "sync_range 4k 4k -a", SCN_SYNC_RANGE, 4096, 4096, 0, 'a', -1 },
	{ "s", SCN_FSYNC, 0, 0, 0, 0, -1 },
	{ "ds", SCN_FDATASYNC, 0, 0, 0, 0, -1 },
	{ "syncfs", SCN_SYNC, 0, 0, 0, 0, -1 },
	{ "chattr +s", SCN_CHATTR, 0, 0, 0, '+', -1 },
	{ "chattr -s", SCN_CHATTR, 0, 0, 0, '-', -1 },
	{ "falloc -p 0 4096", SCN_FPUNCH, 0, 4096, 0, 0, -1 },
	{ "falloc -c 0 4096", SCN_FCOLLAPSE, 0, 4096, 0, 0, -1 },
	{ "falloc -i 0 4096", SCN_FINSERT, 0, 4096, 0, 0, -1 },
	{ "falloc -p -k 0 4096", SCN_FALLOC, 0, 4096, 0, 'k', -1 },
	{ "falloc 0 4096 -k", SCN_FALLOC, 0, 4096, 0, 'k', -1 },
	{ "mwrite -r 0 1", SCN_MWRITE, 0, 1, 0x58, 0, -1 },
	{ "copy_range -s 1 -d 2 -l 3", SCN_COPY_RANGE, 2, 3, 0, 0, -1 },
	{ "mmap -rw 0 1m", SCN_MMAP, 0, 1 << 20, 0, 0, -1 },
	{ "msync -s 0 4096", SCN_MSYNC, 0, 4096, 0, 'r', -1 },
	{ "munmap", SCN_MUNMAP, 0, 0, 0, 0, -1 },
	{ "shutdown -f", SCN_SHUTDOWN, 0, 0, 0, 0, -1 },
	{ "w 0 4", SCN_PWRITE, 0, 4, 0xcd, 0, -1 },
	{ "r -v 0 4", SCN_PREAD, 0, 4, 0, 'v', -1 },
	{ "t 4k", SCN_TRUNCATE, 0, 4096, 0, 0, -1 },
	{ "mm -rw 0 8k", SCN_MMAP, 0, 8192, 0, 0, -1 },
	{ "mw -S 1 0 2", SCN_MWRITE, 0, 2, 1, 0, -1 },
	{ "mr 0 4096", SCN_MREAD, 0, 4096, 0, 'r', -1 },
	{ "mread", SCN_MREAD, 0, 0, 0, 0, -1 },
	{ "ms -s", SCN_MSYNC, 0, 0, 0, 0, -1 },
	{ "mu", SCN_MUNMAP, 0, 0, 0, 0, -1 },
	{ "ma -R 0 4096", SCN_MADVISE, 0, 4096, 0, 'r', -1 },
	{ "madvise", SCN_MADVISE, 0, 0, 0, 0, -1 },
	{ "funshare 0 4096", SCN_FUNSHARE, 0, 4096, 0, 0, -1 },
	{ "falloc -u 0 4096", SCN_FUNSHARE, 0, 4096, 0, 0, -1 },
	{ "fadvise -d 4096 0", SCN_FADVISE, 4096, 0, 0, 'r', -1 },
	{ "fadvise", SCN_FADVISE, 0, 0, 0, 0, -1 },
	{ "mremap -m 8192", SCN_MREMAP, 0, 8192, 0, 0, -1 },
	{ "copy_range -s 0 -d 9 -l 3 f", SCN_COPY_RANGE, 9, 3, 0, 0, -1 },
	{ "pwrite -R -Z 5 -b 1k 0 8k", SCN_PWRITE, 0, 8192, 0xcd, 0, -1 },
	{ "pwrite -DA -V1 0 4k", SCN_PWRITE, 0, 4096, 0xcd, 0, -1 },
};

/*
 * pwrite -R's offsets are glibc's random(3) after srandom(N), as xfs_io draws
 * them: the model's copy gives the C library's own sequence (this test runs
 * on glibc), 20,000 values for each seed, the edge seeds among them.
 */
static void test_scenario__xfs_io_random_is_glibc(void **state)
{
	static const uint32_t seeds[] = { 1, 5, 0xcdcdcdcd, 0x7fffffff, 0x80000000u, 0xffffffffu };

	(void)state;
	for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		struct glibc_random g;

		glibc_srandom(&g, seeds[k]);
		srandom(seeds[k]);
		for (int i = 0; i < 20000; i++) {
			long want = random();
			int32_t got = glibc_random(&g);

			if (got != want)
				fail_msg("seed %u, value %d: %d, glibc %ld", seeds[k], i, got, want);
		}
	}
}

/* The flags of the xfs_io forms added with mread: each lands in its own field. */
static void test_scenario__xfs_io_form_flags(void **state)
{
	struct scn_step st;
	char err[SCN_ERR_MAX];
	unsigned col;

	(void)state;
	assert_int_equal(scn_parse_step("pwrite -R -Z 0xcdcdcdcd -b 1k 0 8k", &st, err,
					sizeof(err), &col), 0);
	assert_true(st.s_random);
	assert_int_equal(st.s_zeed, 0xcdcdcdcdu);
	assert_int_equal(st.s_bsize, 1024);
	assert_int_equal(scn_step_bytes(&st), 8192);
	assert_int_equal(scn_parse_step("pwrite -R -Z 1 0 100", &st, err, sizeof(err), &col), 0);
	assert_int_equal(scn_step_bytes(&st), 4096);    /* at least one buffer */
	assert_int_equal(scn_parse_step("pwrite -R -F -Z 1 0 100", &st, err, sizeof(err), &col), 0);
	assert_false(st.s_random);                      /* -F after -R: forward, as in xfs_io */
	assert_int_equal(scn_parse_step("pwrite -DA -V 1 0 4k", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_dsync && st.s_atomic);
	assert_int_equal(scn_parse_step("mmap -rS 0 4k", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_map_sync);
	assert_int_equal(st.s_prot, 1);
	assert_int_equal(scn_parse_step("madvise -d -W 0 4k", &st, err, sizeof(err), &col), 0);
	assert_int_equal(st.s_advice, 'W');             /* the last advice wins */
	assert_int_equal(scn_parse_step("mread -r -f 0 4k", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_reverse && st.s_verbose && st.s_file_offsets);
	assert_int_equal(scn_parse_step("falloc -k -u 0 4k", &st, err, sizeof(err), &col), 0);
	assert_int_equal(st.s_op, SCN_FUNSHARE);
}

/* Check the fields of @st against case @c. */
static void check_step(const struct scn_step *st, const struct step_case *c)
{
	char f = c->sc_flag;

	assert_int_equal(st->s_op, c->sc_op);
	assert_int_equal(st->s_off, c->sc_off);
	assert_int_equal(st->s_len, c->sc_len);
	assert_int_equal(st->s_fill, c->sc_fill);
	assert_int_equal(st->s_short_copy, c->sc_short);
	assert_int_equal(st->s_keep_size, f == 'k');
	assert_int_equal(st->s_verbose, f == 'v');
	assert_int_equal(st->s_has_range, f == 'r');
	assert_int_equal(st->s_sync_flag, f == '+');
	if (c->sc_op == SCN_SYNC_RANGE)
		assert_int_equal(st->s_sr_flag, f);
	else
		assert_int_equal(st->s_sr_flag, 0);
	assert_int_equal(st->s_line, 0);
}

/* inject: the fault and --after N (default: none given, -1). */
static void test_scenario__inject_forms(void **state)
{
	static const struct { const char *text; unsigned fault; int64_t after; } cases[] = {
		{ "inject enospc --after 6", SCN_FAULT_ENOSPC, 6 },
		{ "inject --after 0x10 enospc", SCN_FAULT_ENOSPC, 16 },
		{ "inject enospc --after 0", SCN_FAULT_ENOSPC, 0 },
		{ "inject enospc", SCN_FAULT_ENOSPC, -1 },
		{ "inject enospc --after 4294967295", SCN_FAULT_ENOSPC, 4294967295LL },
		{ "inject nonda", SCN_FAULT_NONDA, -1 },
		{ "inject clear", SCN_FAULT_CLEAR, -1 },
	};
	struct scn_step st;
	char err[SCN_ERR_MAX];
	unsigned col;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (scn_parse_step(cases[i].text, &st, err, sizeof(err), &col) != 0)
			fail_msg("'%s': %s (col %u)", cases[i].text, err, col);
		assert_int_equal(st.s_op, SCN_INJECT);
		assert_int_equal(st.s_fault, cases[i].fault);
		assert_int_equal(st.s_after, cases[i].after);
		assert_string_equal(scn_op_name(st.s_op), "inject");
	}
	assert_string_equal(scn_fault_name(SCN_FAULT_NONDA), "nonda");
	assert_string_equal(scn_fault_name(99), "?");
}

/* Every step form parses into the right fields. */
static void test_scenario__step_forms(void **state)
{
	struct scn_step st;
	char err[SCN_ERR_MAX];
	unsigned col;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(step_cases) / sizeof(step_cases[0]); i++) {
		const struct step_case *c = &step_cases[i];

		if (scn_parse_step(c->sc_text, &st, err, sizeof(err), &col) != 0)
			fail_msg("'%s': %s (col %u)", c->sc_text, err, col);
		check_step(&st, c);
	}
	assert_int_equal(scn_parse_step("  pwrite\t0  1 \n", &st, err,
					sizeof(err), &col), 0);
	assert_string_equal(st.s_text, "pwrite\t0  1");
	assert_int_equal(scn_parse_step("crash --keep 3,1,65535,7-9", &st, err, sizeof(err),
					&col), 0);
	assert_true(st.s_has_persist);
	assert_int_equal(st.s_nr_persist, 4);
	assert_int_equal(st.s_persist[0][0], 3);
	assert_int_equal(st.s_persist[0][1], 3);
	assert_int_equal(st.s_persist[1][0], 1);
	assert_int_equal(st.s_persist[2][1], 65535);
	assert_int_equal(st.s_persist[3][0], 7);
	assert_int_equal(st.s_persist[3][1], 9);
	assert_int_not_equal(scn_parse_step("crash --keep 9-7", &st, err, sizeof(err), &col), 0);
	assert_int_not_equal(scn_parse_step("crash --keep 1-", &st, err, sizeof(err), &col), 0);
	assert_int_not_equal(scn_parse_step("crash --keep 0-3", &st, err, sizeof(err), &col), 0);
	assert_int_equal(scn_parse_step("shutdown --keep none", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_has_persist);
	assert_int_equal(st.s_nr_persist, 0);
	assert_int_equal(scn_parse_step("crash", &st, err, sizeof(err), &col), 0);
	assert_false(st.s_has_persist);
}

/* pwrite -d (O_DIRECT for the write) and open -d / -s (the file O_DIRECT, O_SYNC). */
static void test_scenario__direct_forms(void **state)
{
	struct scn_step st;
	char err[SCN_ERR_MAX];
	unsigned col;

	(void)state;
	assert_int_equal(scn_parse_step("pwrite -d -S 0x61 0 4096", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_direct);
	assert_false(st.s_dsync);
	assert_int_equal(st.s_fill, 0x61);
	assert_int_equal(scn_parse_step("pwrite 0 4096 -dV 1 -D", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_direct);
	assert_true(st.s_dsync);
	assert_int_equal(st.s_vectors, 1);
	assert_int_equal(scn_parse_step("w -d 512 512", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_direct);
	assert_int_equal(scn_parse_step("pwrite 0 4096", &st, err, sizeof(err), &col), 0);
	assert_false(st.s_direct);
	assert_int_equal(scn_parse_step("open -d -s f", &st, err, sizeof(err), &col), 0);
	assert_int_equal(st.s_op, SCN_OPEN);
	assert_true(st.s_direct);
	assert_true(st.s_osync);
	assert_string_equal(st.s_path, "/f");
	assert_int_equal(scn_parse_step("pwrite -d --aio 0 8k", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_aio);
	assert_true(st.s_direct);
	assert_int_equal(scn_parse_step("aio_wait", &st, err, sizeof(err), &col), 0);
	assert_int_equal(st.s_op, SCN_AIO_WAIT);
	assert_false(scn_step_is_namespace(&st));
	assert_int_equal(scn_parse_step("open -fs g", &st, err, sizeof(err), &col), 0);
	assert_true(st.s_creat);
	assert_true(st.s_osync);
	assert_false(st.s_direct);
}

struct step_bad {
	const char *sb_text;
	unsigned sb_col;
	const char *sb_msg;
};

static const struct step_bad step_bads[] = {
	{ "", 0, "empty step" },
	{ " \t ", 0, "empty step" },
	{ "foo", 0, "unknown step 'foo'" },
	{ "  foo 1", 2, "unknown step 'foo'" },
	{ "PWRITE 0 1", 0, "unknown step 'PWRITE'" },
	{ "pwrite", 6, "pwrite: missing OFF; usage: pwrite [-S B] [-b BSIZE] [-V N [-DA]] [-R -Z N] [-dqwWF] [--short N] [--aio] OFF LEN" },
	{ "pwrite 0", 8, "pwrite: missing LEN" },
	{ "pwrite 0 1 2", 11, "pwrite: too many arguments" },
	{ "pwrite 1 2 3 4 5 6 7 8 9", 11, "pwrite: too many arguments" },
	{ "pwrite 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", 43, "pwrite: too many arguments" },
	{ "pwrite -S", 9, "option '-S' needs a value" },
	{ "pwrite -S 300 0 1", 10, "fill byte '300' is out of range" },
	{ "pwrite -S 1 -S 2 0 1", 12, "option '-S' given twice" },
	{ "pwrite -x 0 1", 7, "unknown option '-x'" },
	{ "pwrite --short 5 0 4", 15, "--short 5 is more than LEN 4" },
	{ "pwrite 0 1 -x", 11, "pwrite: unknown option '-x'" },
	{ "pwrite 0 1 -R", 0, "pwrite: -R needs -Z N, a nonzero seed" },
	{ "pwrite -R -Z 0 0 1", 13, "pwrite: -Z 0 is out of range" },
	{ "pwrite -R -Z 1 -V 2 0 1", 0, "pwrite: -R with -V is not modelled" },
	{ "pwrite -D 0 1", 0, "pwrite: -D is a pwritev2(2) flag, which xfs_io passes only with -V N" },
	{ "pwrite -A 0 1", 0, "pwrite: -A is a pwritev2(2) flag" },
	{ "pwrite -b 0 0 1", 10, "pwrite: -b 0 is out of range" },
	{ "copy_range -s 0 -d 9 f g", 23, "copy_range: one source file at most" },
	{ "copy_range -s 0 -d 9 -f 0", 21, "copy_range: -f is not modelled: -f N copies from "
	  "xfs_io's open file N and then closes it" },
	{ "mremap 0", 7, "mremap: NEWSIZE must be more than 0" },
	{ "mremap", 6, "mremap: missing SIZE" },
	{ "mremap -f 4096 8192", 7, "mremap: -f is not modelled: MREMAP_FIXED" },
	{ "madvise -w 0 4096", 8, "madvise: -w is not modelled: MADV_WILLNEED's read-ahead" },
	{ "madvise -p 0 4096", 8, "MADV_REMOVE is a hole punch: write fpunch OFF LEN" },
	{ "fadvise -w", 8, "fadvise: -w is not modelled" },
	{ "fadvise -x", 8, "fadvise: unknown option '-x'" },
	{ "mread 0", 7, "mread: missing LEN" },
	{ "msync -a -s", 9, "msync: give one of -a, -i, -s" },
	{ "pwrite -qx 0 1", 9, "pwrite: unknown option '-x'" },
	{ "pwirte 0 1", 0, "unknown step 'pwirte' (did you mean 'pwrite'?)" },
	{ "pwrite -1 1", 7, "'-1' is negative" },
	{ "pwrite 0x 1", 7, "'0x' is not a number" },
	{ "pwrite 1 2x", 9, "'2x' is not a number" },
	{ "pwrite 08 1", 7, "is not an octal number" },
	{ "pwrite 1x 1", 7, "'1x' is not a number" },
	{ "truncate 1p", 9, "is too large" },
	{ "pwrite 16t 1", 11, "OFF + LEN is beyond 16 TiB" },
	{ "pwrite 17t 0", 7, "is too large" },
	{ "pread -k 0 1", 6, "pread: unknown option '-k'; usage: pread [-v] [-b BSIZE] [-qF] OFF LEN" },
	{ "truncate", 8, "truncate: missing SIZE" },
	{ "truncate 1 2", 11, "truncate: too many arguments" },
	{ "sync_range -x 0 0", 11, "sync_range: unknown option '-x'" },
	{ "sync_range -w -b 0 0", 14, "give exactly one of -w, -a, -b" },
	{ "sync_range -w 0", 15, "sync_range: missing LEN" },
	{ "chattr", 6, "chattr: missing +s or -s" },
	{ "chattr S", 7, "expected +s or -s (the sync flag; +S and -S, e2fsprogs' spelling, are taken too), not 'S'" },
	{ "chattr +S +S", 10, "chattr: too many arguments" },
	{ "writeback 0", 11, "writeback: missing LEN; usage: writeback [OFF LEN]" },
	{ "writeback 0 1 2", 14, "writeback: too many arguments" },
	{ "fsync 1 2", 8, "fsync: too many arguments; usage: fsync [PATH]" },
	{ "crash -k", 6, "crash: unknown option '-k'" },
	{ "crash --keep", 12, "crash: option '--keep' needs a value" },
	{ "crash --keep 0", 13, "crash: --keep takes none or write numbers" },
	{ "crash --keep 1,", 15, "crash: --keep list ends with a comma" },
	{ "crash --keep 2,x", 15, "crash: --keep takes none or write numbers" },
	{ "crash --keep 65536", 13, "crash: --keep takes none or write numbers" },
	{ "pwrite 0\n1", 8, "a step must be one line" },
	{ "inject", 6, "inject: missing the fault (enospc, nonda or clear)" },
	{ "inject foo", 7, "inject: unknown fault 'foo'; the faults: enospc (--after N), nonda, clear" },
	{ "inject nonda --after 3", 21, "inject: --after goes with enospc only" },
	{ "inject enospc --after 4294967296", 22, "inject: --after 4294967296 is out of range" },
	{ "inject enospc --after 1 --after 2", 24, "inject: option '--after' given twice" },
	{ "inject enospc --after", 21, "inject: option '--after' needs a value" },
	{ "inject enospc clear", 14, "inject: too many arguments" },
	{ "inject -x enospc", 7, "inject: unknown option '-x'" },
	{ "inject enospc --keep 1", 14, "inject: unknown option '--keep'" },
	{ "pwrite\x01 0 1", 6, "control character 0x01" },
	{ "mkdir a//b", 8, "mkdir: PATH 'a//b' has an empty component" },
	{ "mkdir a/", 7, "mkdir: PATH 'a/' has an empty component" },
	{ "rmdir //", 7, "rmdir: PATH '//' has an empty component" },
	{ "rename a b/./..//c", 16, "rename: NEW 'b/./..//c' has an empty component" },
	{ "link f d\xc3\xa9", 8, "byte 0xc3 (a path takes the bytes 0x21-0x7e)" },
	{ "symlink t\xc3\xa9 l", 9, "byte 0xc3 (a target takes the bytes 0x21-0x7e)" },
	{ "mkdir", 5, "mkdir: missing PATH; usage: mkdir PATH" },
	{ "mkdir a b", 8, "mkdir: too many arguments; usage: mkdir PATH" },
	{ "unlink", 6, "unlink: missing PATH; usage: unlink PATH" },
	{ "creat a b", 8, "creat: too many arguments; usage: creat PATH" },
	{ "link a", 6, "link: missing NEW; usage: link OLD NEW" },
	{ "link", 4, "link: missing OLD" },
	{ "rename", 6, "rename: missing OLD; usage: rename [-n|-x] OLD NEW" },
	{ "rename a b c", 11, "rename: too many arguments" },
	{ "rename -w a b", 7, "rename: unknown option '-w'; usage: rename [-n|-x] OLD NEW" },
	{ "symlink", 7, "symlink: missing TARGET; usage: symlink TARGET PATH" },
	{ "symlink t", 9, "symlink: missing PATH" },
	{ "symlink -t l", 8, "symlink: unknown option '-t'" },
	{ "fdatasync a//b", 12, "fdatasync: PATH 'a//b' has an empty component" },
	{ "open", 4, "open: missing PATH; usage: open [-f] [-t] [-d] [-s] PATH" },
	{ "open -a f", 5, "open: -a is not modelled: O_APPEND" },
	{ "open -dR f", 7, "open: -R is not modelled" },
	{ "pwrite -d --short 10 0 4096", 18, "pwrite: --short with -d is not modelled" },
	{ "pwrite -d -D 0 4096", 0, "pwrite: -D is a pwritev2(2) flag" },
	{ "pwrite --aio 0 4096", 0, "pwrite: --aio is an asynchronous direct write: it needs -d" },
	{ "pwrite -d --aio -W 0 4096", 0, "pwrite: --aio is an asynchronous direct write" },
	{ "aio_wait 1", 9, "aio_wait: " },
	{ "open -r f", 5, "open: -r is not modelled" },
	{ "open -m 0600 f", 5, "open: -m is not modelled: file modes" },
	{ "open -T d", 5, "open: -T is not modelled: O_TMPFILE" },
	{ "open -P f", 5, "open: -P is not modelled: O_PATH" },
	{ "open -L f", 5, "open: -L is not modelled: O_NOFOLLOW" },
	{ "open -n f", 5, "open: -n is not modelled: O_NONBLOCK" },
	{ "open -R f", 5, "open: -R is not modelled" },
	{ "open -x f", 5, "open: unknown option '-x'" },
	{ "open f g", 7, "open: too many arguments" },
};

/* Malformed steps fail with a clear message at the right byte offset. */
static void test_scenario__step_errors(void **state)
{
	struct scn_step st;
	char err[SCN_ERR_MAX];
	char longer[SCN_STEP_TEXT_MAX + 8];
	unsigned col;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(step_bads) / sizeof(step_bads[0]); i++) {
		const struct step_bad *b = &step_bads[i];

		col = 999;
		if (scn_parse_step(b->sb_text, &st, err, sizeof(err), &col) == 0)
			fail_msg("'%s' parsed, expected an error", b->sb_text);
		if (strstr(err, b->sb_msg) == NULL || col != b->sb_col)
			fail_msg("'%s': got '%s' at %u, want '%s' at %u",
				 b->sb_text, err, col, b->sb_msg, b->sb_col);
	}
	memset(longer, 'x', sizeof(longer));
	memcpy(longer, "pwrite ", 7);
	longer[SCN_STEP_TEXT_MAX] = '\0';
	assert_int_equal(scn_parse_step(longer, &st, err, sizeof(err), &col), -1);
	assert_non_null(strstr(err, "step too long"));
	longer[SCN_STEP_TEXT_MAX - 1] = '\0';
	assert_int_equal(scn_parse_step(longer, &st, err, sizeof(err), &col), -1);
	assert_non_null(strstr(err, "pwrite: missing LEN"));
	assert_int_equal(col, SCN_STEP_TEXT_MAX - 1);
}

/* A namespace step: its fields once parsed, and its canonical text (orc_step_text). */
struct ns_case {
	const char *nc_text;
	enum scn_op nc_op;
	const char *nc_path, *nc_path2;
	bool nc_has_path, nc_creat, nc_trunc;
	uint8_t nc_flags;
	const char *nc_canon;
};

static const struct ns_case ns_cases[] = {
	{ "open a", SCN_OPEN, "/a", "", false, false, false, 0, "open /a" },
	{ "open -f /d/a", SCN_OPEN, "/d/a", "", false, true, false, 0, "open -f /d/a" },
	{ "open -t a", SCN_OPEN, "/a", "", false, false, true, 0, "open -t /a" },
	{ "open -ft a", SCN_OPEN, "/a", "", false, true, true, 0, "open -f -t /a" },
	{ "open -c a -t", SCN_OPEN, "/a", "", false, true, true, 0, "open -f -t /a" },
	{ "creat d/x", SCN_CREAT, "/d/x", "", false, false, false, 0, "creat /d/x" },
	{ "mkdir d", SCN_MKDIR, "/d", "", false, false, false, 0, "mkdir /d" },
	{ "mkdir .", SCN_MKDIR, "/.", "", false, false, false, 0, "mkdir /." },
	{ "rmdir /d", SCN_RMDIR, "/d", "", false, false, false, 0, "rmdir /d" },
	{ "rmdir ..", SCN_RMDIR, "/..", "", false, false, false, 0, "rmdir /.." },
	{ "unlink ./d/../f", SCN_UNLINK, "/./d/../f", "", false, false, false, 0,
	  "unlink /./d/../f" },
	{ "unlink -- -x", SCN_UNLINK, "/-x", "", false, false, false, 0, "unlink /-x" },
	{ "link f d/g", SCN_LINK, "/f", "/d/g", false, false, false, 0, "link /f /d/g" },
	{ "rename a b", SCN_RENAME, "/a", "/b", false, false, false, 0, "rename /a /b" },
	{ "rename -n a b", SCN_RENAME, "/a", "/b", false, false, false, 1, "rename -n /a /b" },
	{ "rename a b -x", SCN_RENAME, "/a", "/b", false, false, false, 2, "rename -x /a /b" },
	{ "rename -nx a b", SCN_RENAME, "/a", "/b", false, false, false, 3,
	  "rename -n -x /a /b" },
	{ "symlink ../x/y d/l", SCN_SYMLINK, "/d/l", "../x/y", false, false, false, 0,
	  "symlink ../x/y /d/l" },
	{ "symlink /abs//t/ l", SCN_SYMLINK, "/l", "/abs//t/", false, false, false, 0,
	  "symlink /abs//t/ /l" },
	{ "symlink -- -t l", SCN_SYMLINK, "/l", "-t", false, false, false, 0,
	  "symlink -- -t /l" },
	{ "fsync /", SCN_FSYNC, "/", "", true, false, false, 0, "fsync /" },
	{ "fsync d", SCN_FSYNC, "/d", "", true, false, false, 0, "fsync /d" },
	{ "s d", SCN_FSYNC, "/d", "", true, false, false, 0, "fsync /d" },
	{ "fdatasync d/f", SCN_FDATASYNC, "/d/f", "", true, false, false, 0, "fdatasync /d/f" },
	{ "ds /", SCN_FDATASYNC, "/", "", true, false, false, 0, "fdatasync /" },
	{ "fsync", SCN_FSYNC, "", "", false, false, false, 0, "fsync" },
	{ "mkdir !\"#$%&'()*+,-.:;<=>?@[\\]^_`{|}~", SCN_MKDIR,
	  "/!\"#$%&'()*+,-.:;<=>?@[\\]^_`{|}~", "", false, false, false, 0,
	  "mkdir /!\"#$%&'()*+,-.:;<=>?@[\\]^_`{|}~" },
};

/* @st holds what @c says. */
static void ns_case_check(const struct ns_case *c, const struct scn_step *st)
{
	assert_int_equal(st->s_op, c->nc_op);
	assert_string_equal(st->s_path, c->nc_path);
	assert_string_equal(st->s_path2, c->nc_path2);
	assert_int_equal(st->s_has_path, c->nc_has_path);
	assert_int_equal(st->s_creat, c->nc_creat);
	assert_int_equal(st->s_trunc, c->nc_trunc);
	assert_int_equal(st->s_rename_flags, c->nc_flags);
	assert_int_equal(scn_step_is_namespace(st), c->nc_op != SCN_FSYNC || c->nc_has_path);
}

/*
 * Each namespace step and flag parses into its fields (a path with its
 * leading '/', a target as written), is written back by orc_step_text as
 * its canonical text, and that text parses to the same fields.
 */
static void test_scenario__namespace_forms(void **state)
{
	char err[SCN_ERR_MAX], canon[SCN_STEP_TEXT_MAX];
	struct scn_step st, again;

	(void)state;
	for (size_t i = 0; i < sizeof(ns_cases) / sizeof(ns_cases[0]); i++) {
		const struct ns_case *c = &ns_cases[i];

		if (scn_parse_step(c->nc_text, &st, err, sizeof(err), NULL) != 0)
			fail_msg("'%s': %s", c->nc_text, err);
		assert_string_equal(st.s_text, c->nc_text);
		ns_case_check(c, &st);
		orc_step_text(&st, canon, sizeof(canon));
		assert_string_equal(canon, c->nc_canon);
		if (scn_parse_step(canon, &again, err, sizeof(err), NULL) != 0)
			fail_msg("'%s': %s", canon, err);
		ns_case_check(c, &again);
	}
	assert_false(scn_step_is_namespace(&(struct scn_step){ .s_op = SCN_CLOSE }));
	assert_false(scn_step_is_namespace(&(struct scn_step){ .s_op = SCN_SYNC }));
}

/* setxattr and removexattr: PATH, NAME and VALUE parsed, written back canonically; bad words refused. */
static void test_scenario__xattr_forms(void **state)
{
	static const struct { const char *text, *path, *name, *value, *canon; } ok[] = {
		{ "setxattr a user.k v1", "/a", "user.k", "v1", "setxattr /a user.k v1" },
		{ "setxattr /d/a user.k", "/d/a", "user.k", "", "setxattr /d/a user.k" },
		{ "removexattr a user.k", "/a", "user.k", "", "removexattr /a user.k" },
		{ "setxattr -- a -n -v", "/a", "-n", "-v", "setxattr -- /a -n -v" },
		{ "setxattr a x.y z", "/a", "x.y", "z", "setxattr /a x.y z" },
	};
	static const struct { const char *text, *msg; unsigned col; } bad[] = {
		{ "setxattr a", "setxattr: missing NAME; usage: setxattr PATH NAME [VALUE]", 10 },
		{ "removexattr a n v", "removexattr: too many arguments", 16 },
		{ "setxattr a n v w", "setxattr: too many arguments", 15 },
		{ "setxattr a//b n", "has an empty component", 11 },
		{ "setxattr a n \xc3\xa9", "byte 0xc3 (an xattr VALUE takes the bytes 0x21-0x7e)", 13 },
	};
	char err[SCN_ERR_MAX], canon[SCN_STEP_TEXT_MAX], line[1024];
	struct scn_step st, again;
	unsigned col = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (scn_parse_step(ok[i].text, &st, err, sizeof(err), NULL) != 0)
			fail_msg("'%s': %s", ok[i].text, err);
		assert_true(scn_step_is_namespace(&st));
		assert_string_equal(st.s_path, ok[i].path);
		assert_string_equal(st.s_xattr_name, ok[i].name);
		assert_string_equal(st.s_path2, ok[i].value);
		orc_step_text(&st, canon, sizeof(canon));
		assert_string_equal(canon, ok[i].canon);
		assert_int_equal(scn_parse_step(canon, &again, err, sizeof(err), NULL), 0);
		assert_string_equal(again.s_xattr_name, st.s_xattr_name);
		assert_string_equal(again.s_path2, st.s_path2);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (scn_parse_step(bad[i].text, &st, err, sizeof(err), &col) == 0)
			fail_msg("'%s' parsed", bad[i].text);
		if (!strstr(err, bad[i].msg) || col != bad[i].col)
			fail_msg("'%s': got '%s' at %u", bad[i].text, err, col);
	}
	/* the limits: a NAME of SCN_XATTR_NAME_MAX bytes, a VALUE of SCN_XATTR_VALUE_MAX */
	snprintf(line, sizeof(line), "setxattr a %0*d %0*d", SCN_XATTR_NAME_MAX, 0,
		 SCN_XATTR_VALUE_MAX, 0);
	assert_int_equal(scn_parse_step(line, &st, err, sizeof(err), NULL), 0);
	snprintf(line, sizeof(line), "setxattr a %0*d", SCN_XATTR_NAME_MAX + 1, 0);
	assert_int_equal(scn_parse_step(line, &st, err, sizeof(err), &col), -1);
	assert_non_null(strstr(err, "setxattr: NAME '"));
	assert_non_null(strstr(err, "is too long (301 bytes, max 300)"));
	snprintf(line, sizeof(line), "setxattr a n %0*d", SCN_XATTR_VALUE_MAX + 1, 0);
	assert_int_equal(scn_parse_step(line, &st, err, sizeof(err), &col), -1);
	assert_non_null(strstr(err, "is too long (256 bytes, max 255)"));
	assert_int_equal(col, 13);
}

/* @n bytes of @c into @buf, with a NUL. */
static char *fill(char *buf, char c, size_t n)
{
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

/* scn_parse_path on @text: 0 and @want, or -1 with @msg at @col. */
static void path_case(const char *text, const char *want, const char *msg, unsigned col)
{
	char out[SCN_PATH_MAX], err[SCN_ERR_MAX];
	unsigned at = 999;
	int rc = scn_parse_path(text, "t: PATH", out, err, sizeof(err), &at);

	if (want) {
		if (rc != 0)
			fail_msg("'%.60s...': %s", text, err);
		assert_string_equal(out, want);
		return;
	}
	if (rc == 0)
		fail_msg("'%.60s...' (%zu bytes) parsed, expected '%s'", text, strlen(text), msg);
	if (!strstr(err, msg) || at != col)
		fail_msg("got '%s' at %u, want '%s' at %u", err, at, msg, col);
}

/*
 * The limits of a path, each at its edge: SCN_PATH_MAX with the leading
 * '/' counted whether written or not, SCN_PATH_DEPTH components, names of
 * SCN_NAME_LEN bytes (told before the length), an empty path.
 */
static void test_scenario__namespace_limits(void **state)
{
	char p[2 * SCN_PATH_MAX], name[SCN_PATH_MAX + 8], want[2 * SCN_PATH_MAX + 8];

	(void)state;
	path_case("", NULL, "t: PATH is empty", 0);
	path_case("/", "/", NULL, 0);
	path_case("a", "/a", NULL, 0);
	path_case("/a/./../b", "/a/./../b", NULL, 0);
	path_case("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p", "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p", NULL, 0);
	path_case("/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q", NULL, "has more than 16 components", 33);
	path_case("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/..", NULL, "has more than 16 components", 32);
	fill(name, 'n', SCN_NAME_LEN - 1);              /* 254 bytes: "/" + it is 255 */
	snprintf(want, sizeof(want), "/%s", name);
	path_case(name, want, NULL, 0);
	snprintf(p, sizeof(p), "/%s", name);
	path_case(p, want, NULL, 0);
	fill(name, 'n', SCN_NAME_LEN);                  /* a name ext4 takes, a path too long */
	path_case(name, NULL, "is too long (256 bytes with its leading '/', max 255)", 0);
	fill(name, 'n', SCN_NAME_LEN + 1);
	path_case(name, NULL, "a name of 256 bytes (max 255, EXT4_NAME_LEN)", 0);
	snprintf(p, sizeof(p), "d/%s", name);
	path_case(p, NULL, "a name of 256 bytes (max 255, EXT4_NAME_LEN)", 2);
	for (int lead = 0; lead < 2; lead++) {         /* 255 bytes with the '/', then 256 */
		char b[101], c[60];

		fill(b, 'b', 100);
		snprintf(p, sizeof(p), "%s%s/%s/%s", lead ? "/" : "", fill(name, 'a', 100), b,
			 fill(c, 'c', 52));
		snprintf(want, sizeof(want), "%s%s", lead ? "" : "/", p);
		assert_int_equal(strlen(want), SCN_PATH_MAX - 1);
		path_case(p, want, NULL, 0);
		snprintf(p, sizeof(p), "%s%s/%s/%s", lead ? "/" : "", name, b, fill(c, 'c', 53));
		path_case(p, NULL, "is too long (256 bytes with its leading '/', max 255)", 0);
	}
}

struct num_case {
	const char *nc_text;
	int nc_rc;
	int64_t nc_val;
};

static const struct num_case num_cases[] = {
	{ "0", 0, 0 },
	{ "4096", 0, 4096 },
	{ "0x10", 0, 16 },
	{ "0X1f", 0, 31 },
	{ "0xAbC", 0, 0xabc },
	{ "4k", 0, 4096 },
	{ "4K", 0, 4096 },
	{ "1m", 0, 1 << 20 },
	{ "3M", 0, 3 << 20 },
	{ "1g", 0, 1LL << 30 },
	{ "2G", 0, 2LL << 30 },
	{ "1t", 0, 1LL << 40 },
	{ "16T", 0, 1LL << 44 },
	{ "0x10k", 0, 16384 },
	{ "0k", 0, 0 },
	{ "17592186044416", 0, 1LL << 44 },
	{ "17592186044417", -ERANGE, 0 },
	{ "16385g", -ERANGE, 0 },
	{ "17t", -ERANGE, 0 },
	{ "99999999999999999999999", -ERANGE, 0 },
	{ "0xffffffffffffffffffffffff", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ "k", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
	{ "1 ", -EINVAL, 0 },
	{ "1kb", -EINVAL, 0 },
	{ "1kk", -EINVAL, 0 },
	{ "1.5", -EINVAL, 0 },
	{ "1e3", -EINVAL, 0 },
	{ "1p", -EINVAL, 0 },
	{ "0x", -EINVAL, 0 },
	{ "0xg", -EINVAL, 0 },
	{ "010", -EINVAL, 0 },
	{ "00", -EINVAL, 0 },
};

/* Numbers: decimal, 0x hex, k/m/g/t (1024-based, any case), the 16 TiB cap,
 * and every malformed form rejected. */
static void test_scenario__number_forms(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(num_cases) / sizeof(num_cases[0]); i++) {
		const struct num_case *c = &num_cases[i];
		int64_t v = -42;
		int rc = scn_parse_num(c->nc_text, &v);

		if (rc != c->nc_rc)
			fail_msg("'%s': rc %d, want %d", c->nc_text, rc, c->nc_rc);
		if (rc == 0 && v != c->nc_val)
			fail_msg("'%s': %lld, want %lld", c->nc_text, (long long)v,
				 (long long)c->nc_val);
		if (rc != 0)
			assert_int_equal(v, -42);
	}
	assert_int_equal(scn_parse_num(NULL, NULL), -EINVAL);
}

/* Each op has a distinct keyword; "?" for out-of-range values. */
static void test_scenario__op_names(void **state)
{
	unsigned i;
	unsigned j;

	(void)state;
	for (i = 0; i < SCN_OP_COUNT; i++) {
		assert_non_null(scn_op_name((enum scn_op)i));
		assert_string_not_equal(scn_op_name((enum scn_op)i), "?");
		for (j = 0; j < i; j++)
			assert_string_not_equal(scn_op_name((enum scn_op)i),
						scn_op_name((enum scn_op)j));
	}
	assert_string_equal(scn_op_name(SCN_PWRITE), "pwrite");
	assert_string_equal(scn_op_name(SCN_SYNC_RANGE), "sync_range");
	assert_string_equal(scn_op_name(SCN_EVICT), "evict");
	assert_string_equal(scn_op_name(SCN_OP_COUNT), "?");
}

/* Strings no writer may garble: quotes, backslashes, ": ", '#', blanks and
 * line breaks at the ends, control characters, UTF-8 (with C1 and line
 * separator characters, which need escapes). */
static const char *const nasty[] = {
	"say \"hi\" \\ back\\slash",
	"key: value # not a comment",
	"#leading hash",
	"  leading and trailing blanks  ",
	"line one\nline two\n\n  indented line three\n",
	"tab\there\tand \x01 \x1f \x7f controls\r\n",
	"caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80 \xc2\x85 \xe2\x80\xa8 \xef\xbb\xbf end",
	"- looks like a list", "? looks like a key", ": colon first", "ends with colon:",
	"{flow} [flow], &anchor *alias !tag |lit >fold 'single' %pct @at `bq`",
	"true", "null", "~", "123", "0x1f",
};

/* Step lines the loader keeps as typed (s_text): blanks inside, tabs. */
static const char *const step_lines[] = {
	"pwrite -S 0x61 0 4096", "pwrite\t-S 0x62\t4k   1m", "crash --keep 1,3-5",
	"chattr +S", "sync_range -w 0 0", "fsync",
	"open -f -t d/a", "mkdir a:b#c\"d\\e", "rename -n a'q x", "link /f d/g",
	"symlink -- -t:#x l", "fdatasync /", "s ./d/..", "creat [x]", "rmdir {d}",
	"unlink &a", "rename -x a b",
};

/* Write a scenario with each field in each style (folded prose aside: see
 * test_scenario__yaml_folded_prose), load it back, compare. */
static void scalars_round_trip(struct scenario *s, const char *text, enum scn_yaml_style st)
{
	char path[256], err[SCN_ERR_MAX];
	FILE *f;

	write_tmp("scalars.yaml", "", 0, path, sizeof(path));
	f = fopen(path, "w");
	assert_non_null(f);
	scn_yaml_line(f, "", "name", "a.b_c-1", st == SCN_YAML_FOLDED ? SCN_YAML_PLAIN : st);
	scn_yaml_line(f, "", "description", text, st == SCN_YAML_FOLDED ? SCN_YAML_QUOTED : st);
	scn_yaml_line(f, "", "source", text, st == SCN_YAML_FOLDED ? SCN_YAML_PLAIN : st);
	fputs("steps:\n", f);
	for (unsigned i = 0; i < sizeof(step_lines) / sizeof(step_lines[0]); i++)
		scn_yaml_item(f, "  ", step_lines[i], st);
	assert_int_equal(fclose(f), 0);
	if (scn_load(path, s, NULL, err, sizeof(err)) != 0)
		fail_msg("'%s' (style %d): %s", text, (int)st, err);
	assert_string_equal(s->name, "a.b_c-1");
	assert_string_equal(s->description, text);
	assert_string_equal(s->source, text);
	assert_int_equal(s->nr_steps, sizeof(step_lines) / sizeof(step_lines[0]));
	for (unsigned i = 0; i < s->nr_steps; i++)
		assert_string_equal(s->steps[i].s_text, step_lines[i]);
	scn_free(s);
}

/* Every scalar style reads back as the string written. */
static void test_scenario__yaml_scalars_round_trip(void **state)
{
	for (unsigned i = 0; i < sizeof(nasty) / sizeof(nasty[0]); i++)
		for (int st = SCN_YAML_PLAIN; st <= SCN_YAML_FOLDED; st++)
			scalars_round_trip(*state, nasty[i], (enum scn_yaml_style)st);
}

/* A folded description reads back as its words, one blank apart, with a
 * final line break; what a block cannot hold is quoted, and reads back as is. */
static void test_scenario__yaml_folded_prose(void **state)
{
	static const struct { const char *in, *out; } v[] = {
		{ "one", "one\n" },
		{ "  two  words \n\t and\n\nmore  ", "two words and more\n" },
		{ "caf\xc3\xa9 \"q\" \\ a: b #c", "caf\xc3\xa9 \"q\" \\ a: b #c\n" },
		{ "ctl \x01 kept", "ctl \x01 kept" }, { "nel \xc2\x85", "nel \xc2\x85" },
		{ "   ", "   " }, { "\n", "\n" },
	};
	struct scenario *s = *state;
	char path[256], err[SCN_ERR_MAX], words[1200] = "";
	FILE *f;

	for (unsigned i = 0; i < 100; i++)
		snprintf(words + strlen(words), sizeof(words) - strlen(words), "%sw%u",
			 i ? " " : "", i * 997);
	for (unsigned i = 0; i <= sizeof(v) / sizeof(v[0]); i++) {
		const char *in = i < sizeof(v) / sizeof(v[0]) ? v[i].in : words;

		write_tmp("folded.yaml", "", 0, path, sizeof(path));
		f = fopen(path, "w");
		assert_non_null(f);
		scn_yaml_line(f, "", "name", "folded", SCN_YAML_PLAIN);
		scn_yaml_line(f, "", "description", in, SCN_YAML_FOLDED);
		fputs("steps:\n  - fsync\n", f);
		assert_int_equal(fclose(f), 0);
		if (scn_load(path, s, NULL, err, sizeof(err)) != 0)
			fail_msg("'%s': %s", in, err);
		if (i < sizeof(v) / sizeof(v[0]))
			assert_string_equal(s->description, v[i].out);
		else
			assert_true(strlen(s->description) == strlen(words) + 1 &&
				    strncmp(s->description, words, strlen(words)) == 0);
		scn_free(s);
	}
}

/* A plain scalar is written plain only where that is safe; names always are. */
static void test_scenario__yaml_plain_when_safe(void **state)
{
	static const struct { const char *in, *out; } v[] = {
		{ "pwrite -S 0x61 0 4096", "pwrite -S 0x61 0 4096" },
		{ "crash --keep 1,3-5", "crash --keep 1,3-5" }, { "a.b_c-1", "a.b_c-1" },
		{ "-x", "-x" }, { "-", "\"-\"" }, { "a: b", "\"a: b\"" }, { "a #b", "\"a #b\"" },
		{ "#a", "\"#a\"" }, { " a", "\" a\"" }, { "a:", "\"a:\"" }, { "", "\"\"" },
		{ "a\tb", "\"a\tb\"" }, { "\"q\\", "\"\\\"q\\\\\"" },
		{ "\x01\xc2\x85\xe2\x80\xa8\xff", "\"\\x01\\x85\\u2028?\"" },
	};
	char buf[256];

	(void)state;
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		assert_non_null(f);
		scn_yaml_scalar(f, v[i].in, SCN_YAML_PLAIN);
		assert_int_equal(fclose(f), 0);
		assert_string_equal(buf, v[i].out);
	}
}

/* scn_write_yaml (explore's findings, minimize's result) reads back the same. */
static void test_scenario__write_round_trip(void **state)
{
	struct scenario *s = *state, w_scn;
	struct sim_overrides ov;
	struct sim_variant_cfg cfg[1];
	bool expect[1][INV_COUNT];
	char path[256], err[SCN_ERR_MAX];
	unsigned nr = 0;

	memset(&ov, 0, sizeof(ov));
	memset(expect, 0, sizeof(expect));
	load_ok("cfg.yaml", "name: cfg\nsteps:\n  - fsync\n", s);
	assert_int_equal(sim_resolve_variants(s, &ov, cfg, &nr, err, sizeof(err)), 0);
	scn_free(s);
	for (unsigned i = 0; i < sizeof(nasty) / sizeof(nasty[0]); i++) {
		struct scn_step steps[sizeof(step_lines) / sizeof(step_lines[0])];
		struct scn_write w = { .w_scn = &w_scn, .w_description = nasty[i], .w_cfg = cfg,
				       .w_expect = (const bool (*)[INV_COUNT])expect };

		memset(&w_scn, 0, sizeof(w_scn));
		snprintf(w_scn.name, sizeof(w_scn.name), "%s", i % 2 ? "-" : "found-1.x_y");
		for (unsigned k = 0; k < sizeof(steps) / sizeof(steps[0]); k++)
			assert_int_equal(scn_parse_step(step_lines[k], &steps[k], err, sizeof(err),
							NULL), 0);
		w_scn.steps = steps;
		w_scn.nr_steps = sizeof(steps) / sizeof(steps[0]);
		write_tmp("written.yaml", "", 0, path, sizeof(path));
		assert_int_equal(scn_write_yaml(&w, path, err, sizeof(err)), 0);
		if (scn_load(path, s, test_is_invariant, err, sizeof(err)) != 0)
			fail_msg("description '%s': %s", nasty[i], err);
		assert_string_equal(s->name, w_scn.name);
		assert_string_equal(s->description, nasty[i]);
		assert_int_equal(s->nr_steps, w_scn.nr_steps);
		for (unsigned k = 0; k < s->nr_steps; k++) {
			const struct scn_step *a = &s->steps[k], *b = &steps[k];

			assert_string_equal(a->s_text, b->s_text);
			assert_int_equal(a->s_op, b->s_op);
			assert_string_equal(a->s_path, b->s_path);
			assert_string_equal(a->s_path2, b->s_path2);
			assert_int_equal(a->s_has_path, b->s_has_path);
			assert_int_equal(a->s_creat + 2 * a->s_trunc, b->s_creat + 2 * b->s_trunc);
			assert_int_equal(a->s_rename_flags, b->s_rename_flags);
		}
		scn_free(s);
	}
}

/*
 * How a scenario was judged (config: crash_everywhere, crash_bound, fail_on;
 * scenario/runcfg.c): the writer puts each that is not the default, the
 * loader reads back what was written; a file without them has none set.
 */
static void test_scenario__judging_keys_round_trip(void **state)
{
	struct scenario *s = *state, w_scn;
	struct sim_overrides ov;
	struct sim_variant_cfg cfg[1];
	struct sim_options o = { .crash_everywhere = true, .crash_bound = 7 };
	bool expect[1][INV_COUNT];
	char path[256], err[SCN_ERR_MAX];
	struct scn_step step;
	unsigned nr = 0;
	struct scn_write w = { .w_scn = &w_scn, .w_description = "d", .w_cfg = cfg,
			       .w_expect = (const bool (*)[INV_COUNT])expect, .w_judging = &o };

	memset(&ov, 0, sizeof(ov));
	memset(expect, 0, sizeof(expect));
	load_ok("jk.yaml", "name: jk\nsteps: [fsync]\n", s);
	assert_false(s->config.c_run.rc_set_crash_everywhere);
	assert_false(s->config.c_run.rc_set_crash_bound);
	assert_int_equal(s->config.c_run.rc_nr_fail_on, 0);
	assert_int_equal(sim_resolve_variants(s, &ov, cfg, &nr, err, sizeof(err)), 0);
	scn_free(s);
	o.fail_on[INV_POST_EOF_ZERO_STRICT] = o.fail_on[INV_NO_FOLIO_LOCK_UNDER_HANDLE] = true;
	memset(&w_scn, 0, sizeof(w_scn));
	snprintf(w_scn.name, sizeof(w_scn.name), "jk");
	assert_int_equal(scn_parse_step("sync", &step, err, sizeof(err), NULL), 0);
	w_scn.steps = &step;
	w_scn.nr_steps = 1;
	write_tmp("judged.yaml", "", 0, path, sizeof(path));
	assert_int_equal(scn_write_yaml(&w, path, err, sizeof(err)), 0);
	if (scn_load(path, s, test_is_invariant, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(s->config.c_run.rc_set_crash_everywhere && s->config.c_run.rc_crash_everywhere);
	assert_true(s->config.c_run.rc_set_crash_bound);
	assert_int_equal(s->config.c_run.rc_crash_bound, 7);
	assert_int_equal(s->config.c_run.rc_nr_fail_on, 2);
	assert_string_equal(s->config.c_run.rc_fail_on[0], "post_eof_zero_strict");
	assert_string_equal(s->config.c_run.rc_fail_on[1], "no_folio_lock_under_handle");
	scn_free(s);
	/* the defaults are not written: a bound of 4096, no crash inside steps, none counted */
	o = (struct sim_options){ .crash_bound = CS_BOUND_DEFAULT };
	assert_int_equal(scn_write_yaml(&w, path, err, sizeof(err)), 0);
	assert_int_equal(scn_load(path, s, test_is_invariant, err, sizeof(err)), 0);
	assert_false(s->config.c_run.rc_set_crash_everywhere || s->config.c_run.rc_set_crash_bound);
	assert_int_equal(s->config.c_run.rc_nr_fail_on, 0);
}

/* A short or absent error buffer is never overrun; scn_free is idempotent. */
static void test_scenario__small_error_buffer(void **state)
{
	struct scenario *s = *state;
	struct scn_step st;
	char err[12];

	memset(err, 'z', sizeof(err));
	assert_int_equal(load_text("small.yaml", "name: x\nlenght: 1\n", s, err,
				   sizeof(err)), -1);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_int_equal(load_text("small.yaml", "name: x\nlenght: 1\n", s,
				   NULL, 0), -1);
	assert_int_equal(scn_parse_step("bogus", &st, NULL, 0, NULL), -1);
	assert_int_equal(scn_parse_step("pwrite 0 99999", &st, err, 4, NULL), 0);
	assert_int_equal(scn_parse_step("pwrite -", &st, err, 4, NULL), -1);
	assert_int_equal(strlen(err), 3);
	scn_free(s);
	scn_free(s);
	assert_null(s->steps);
}

/* Every flag id has at least one row, the same name in every row, and a command lists it once. */
static void test_scenario__command_table_ids(void **state)
{
	const char *name[F_NR] = { 0 };

	(void)state;
	for (const struct cmd_desc *d = cmd_table(); d->name; d++) {
		bool seen[F_NR] = { false };

		for (const struct cmd_flag *f = d->flags; f->name; f++) {
			assert_true(f->id > F_NONE && f->id < F_NR);
			assert_false(seen[f->id]);
			seen[f->id] = true;
			if (name[f->id])
				assert_string_equal(name[f->id], f->name);
			name[f->id] = f->name;
		}
	}
	for (int id = F_NONE + 1; id < F_NR; id++)
		assert_non_null(name[id]);
}

/* cmd_parse: --flag=value, prefixes and short flags, in argv's order, positionals as F_NONE. */
static void test_scenario__command_parse_order(void **state)
{
	char *argv[] = { "-c", "pwrite 0 1", "--patch=a=on", "f.yaml", "--blo", "1024",
			 "--patch", "b=off", "-c", "fsync", "--", "--json" };
	static const enum cmd_flag_id want[] = { F_C, F_PATCH, F_NONE, F_BLOCK_SIZE, F_PATCH, F_C,
						 F_NONE };
	static const char *const vals[] = { "pwrite 0 1", "a=on", "f.yaml", "1024", "b=off",
					    "fsync", "--json" };
	struct cmd_args a;

	(void)state;
	assert_int_equal(cmd_parse(cmd_find("run"), 12, argv, &a), 0);
	assert_int_equal(a.argc, 7);
	for (int i = 0; i < 7; i++) {
		assert_int_equal(a.opts[i].id, want[i]);
		assert_string_equal(a.opts[i].val, vals[i]);
	}
	free(a.opts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scenario__full_file_loads,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__defaults_apply,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(
			test_scenario__journal_turns_delalloc_off, scn_setup,
			scn_teardown),
		cmocka_unit_test_setup_teardown(
			test_scenario__expect_default_variant, scn_setup,
			scn_teardown),
		cmocka_unit_test_setup_teardown(
			test_scenario__expect_may_precede_variants, scn_setup,
			scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__encoding,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__step_positions,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__missing_file,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__file_size_limit,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__steps_limit,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__bad_fixtures,
						scn_setup, scn_teardown),
		cmocka_unit_test(test_scenario__step_forms),
		cmocka_unit_test(test_scenario__direct_forms),
		cmocka_unit_test(test_scenario__inject_forms),
		cmocka_unit_test(test_scenario__xfs_io_form_flags),
		cmocka_unit_test(test_scenario__xfs_io_random_is_glibc),
		cmocka_unit_test(test_scenario__step_errors),
		cmocka_unit_test(test_scenario__namespace_forms),
		cmocka_unit_test(test_scenario__xattr_forms),
		cmocka_unit_test(test_scenario__namespace_limits),
		cmocka_unit_test(test_scenario__number_forms),
		cmocka_unit_test(test_scenario__op_names),
		cmocka_unit_test_setup_teardown(test_scenario__small_error_buffer,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__yaml_scalars_round_trip,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__yaml_folded_prose,
						scn_setup, scn_teardown),
		cmocka_unit_test(test_scenario__yaml_plain_when_safe),
		cmocka_unit_test(test_scenario__command_table_ids),
		cmocka_unit_test(test_scenario__command_parse_order),
		cmocka_unit_test_setup_teardown(test_scenario__judging_keys_round_trip,
						scn_setup, scn_teardown),
		cmocka_unit_test_setup_teardown(test_scenario__write_round_trip,
						scn_setup, scn_teardown),
	};

	return cmocka_run_group_tests_name("scenario", tests, NULL, NULL);
}
