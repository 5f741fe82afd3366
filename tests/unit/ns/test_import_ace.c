/*
 * test_import_ace.c - oracle/import_ace.c: each j-lang operation of ACE's
 * as the model's steps, the open descriptions of the one current file,
 * WriteData's split of a write, the checkpoints as crash points, the setup
 * section, every refusal with its line and column, and the steps written by
 * orc_write_yaml() read back by scn_load() as the same steps, with
 * crash_everywhere (build/test_import_ace-tmp/, run from the repository root).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import_ace.h"

#define DEFINE "# define\ntest\nA\nB\nfoo\nbar\nA/foo\nA/bar\n# declare\nlocal_checkpoint\n"
#define RUN DEFINE "# setup\n# run\n"

/* Parse @text as the file "w": 0 or -1, the steps' canonical texts joined by ';' in @out. */
static int parse(const char *text, struct ace_result *r, char *out, size_t cap)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	memset(r, 0, sizeof(*r));
	rc = ace_parse("w", f, r);
	fclose(f);
	out[0] = '\0';
	for (unsigned i = 0; rc == 0 && i < r->nr; i++) {
		char step[SCN_STEP_TEXT_MAX];

		orc_step_text(&r->steps[i], step, sizeof(step));
		snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? ";" : "", step);
	}
	return rc;
}

/* @text converts to exactly the steps @want. */
static void expect_steps(const char *text, const char *want)
{
	struct ace_result r;
	char got[8192];

	if (parse(text, &r, got, sizeof(got)) != 0)
		fail_msg("refused: %s", r.err);
	assert_string_equal(got, want);
	ace_result_free(&r);
}

/* @text is refused with a message that starts with @want ("w:LINE:COL: ..."). */
static void expect_refused(const char *text, const char *want)
{
	struct ace_result r;
	char got[64];

	assert_int_equal(parse(text, &r, got, sizeof(got)), -1);
	if (strncmp(r.err, want, strlen(want)) != 0)
		fail_msg("message '%s', want '%s...'", r.err, want);
	ace_result_free(&r);
}

static void test_import_ace__namespace_operations(void **state)
{
	(void)state;
	expect_steps(RUN "mkdir A 0777\nopendir A 0777\nfsync A\nclose A\n"
		     "open Afoo O_RDWR|O_CREAT 0777\nclose Afoo\nlink Afoo Abar\n"
		     "rename Abar bar\nsymlink foo B\nfsetxattr Afoo\nremovexattr Afoo\n"
		     "unlink bar\nremove Afoo\nremove A\nmkdir B 0777\nrmdir B\n"
		     "fdatasync test\nsync\nnone\ncheckpoint 1\n",
		     "mkdir /A;fsync /A;open -f /A/foo;close;link /A/foo /A/bar;"
		     "rename /A/bar /bar;symlink /foo /B;setxattr /A/foo user.xattr1 val1;"
		     "removexattr /A/foo user.xattr1;unlink /bar;unlink /A/foo;rmdir /A;"
		     "mkdir /B;rmdir /B;fdatasync /;sync;crash");
}

static void test_import_ace__data_operations(void **state)
{
	(void)state;
	expect_steps(RUN "open foo O_RDWR|O_CREAT|O_TRUNC 0777\nwrite foo 0 32768\n"
		     "falloc foo 0 0 4096\nfalloc foo FALLOC_FL_KEEP_SIZE 0 4096\n"
		     "falloc foo FALLOC_FL_ZERO_RANGE 0 4096\n"
		     "falloc foo FALLOC_FL_ZERO_RANGE|FALLOC_FL_KEEP_SIZE 0 4096\n"
		     "falloc foo FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE 1000 3000\n"
		     "falloc foo FALLOC_FL_COLLAPSE_RANGE 0 4096\n"
		     "falloc foo FALLOC_FL_INSERT_RANGE 0 4096\ntruncate foo 2500\n"
		     "mmapwrite foo 32768 8192\ncheckpoint 1\nclose foo\n",
		     "open -f -t /foo;pwrite -S 0x01 0 32768;falloc 0 4096;falloc -k 0 4096;"
		     "fzero 0 4096;fzero -k 0 4096;fpunch 1000 3000;fcollapse 0 4096;"
		     "finsert 0 4096;truncate 2500;falloc 32768 8192;mmap -rw 0 40960;"
		     "mwrite -S 0x02 32768 8192;msync -s 32768 8192;munmap;crash");
	/* the mapping ends 4 KiB after OFF: msync syncs that much (then ENOMEM in the kernel) */
	expect_steps(RUN "open foo O_RDWR|O_CREAT 0777\nmmapwrite foo 4096 4096\ncheckpoint 1\n",
		     "open -f /foo;falloc 4096 4096;mmap -rw 0 8192;mwrite -S 0x01 4096 4096;"
		     "msync -s 4096 4096;munmap;crash");
}

/* WriteData: the bytes up to the next 4 KiB boundary first, then from it in 4 KiB calls. */
static void test_import_ace__write_split_as_writedata(void **state)
{
	(void)state;
	expect_steps(RUN "open foo O_RDWR|O_CREAT 0777\nwrite foo 30768 5000\n"
		     "write foo 100 200\nwrite foo 4096 5000\nfsync foo\ncheckpoint 1\n",
		     "open -f /foo;pwrite -S 0x01 30768 2000;pwrite -S 0x01 32768 3000;"
		     "pwrite -S 0x02 100 200;pwrite -S 0x03 4096 5000;fsync /foo;crash");
}

/* One current file: a data operation on another open file opens it again; close closes each. */
static void test_import_ace__open_descriptions(void **state)
{
	(void)state;
	expect_steps(RUN "open foo O_RDWR|O_CREAT 0777\nopen bar O_RDWR|O_CREAT 0777\n"
		     "write foo 0 4096\nclose bar\ntruncate foo 0\nclose foo\n"
		     "rename foo bar\ntruncate bar 100\nsync\ncheckpoint 1\n",
		     "open -f /foo;open -f /bar;open /foo;pwrite -S 0x01 0 4096;open /bar;close;"
		     "close;open /foo;truncate 0;close;close;close;rename /foo /bar;open /bar;"
		     "truncate 100;sync;crash");
}

/*
 * dwrite: cmAdapter closes fd_N, opens the file O_RDWR|O_DIRECT|O_SYNC,
 * writes once and closes it; ACE's close of it at the end is EBADF (no
 * step).  O_DIRECT and O_SYNC in an open are the model's -d and -s.
 */
static void test_import_ace__dwrite_reopens_direct_sync(void **state)
{
	(void)state;
	expect_steps(RUN "open foo O_RDWR|O_CREAT 0777\nopen bar O_RDWR|O_CREAT 0777\n"
		     "dwrite foo 4096 8192\nfsync bar\ncheckpoint 1\nclose foo\nclose bar\n",
		     "open -f /foo;open -f /bar;open /foo;close;close;open -d -s /foo;"
		     "pwrite -S 0x01 4096 8192;close;fsync /bar;crash");
	expect_steps(RUN "open foo O_RDWR|O_CREAT|O_DIRECT|O_SYNC 0777\nwrite foo 0 512\n"
		     "checkpoint 1\n", "open -f -d -s /foo;pwrite -S 0x01 0 512;crash");
}

/* The last checkpoint is the crash; one before it judges every step; closes after it go. */
static void test_import_ace__checkpoints(void **state)
{
	struct ace_result r;
	char got[1024];

	(void)state;
	assert_int_equal(parse(RUN "mkdir A 0777\nsync\ncheckpoint 0\nopendir A 0777\n"
			       "fsync A\ncheckpoint 1\nclose A\n", &r, got, sizeof(got)), 0);
	assert_string_equal(got, "mkdir /A;sync;fsync /A;crash");
	assert_true(r.everywhere);
	assert_int_equal(r.nr_checkpoints, 2);
	assert_int_equal(r.nr_after, 1);
	assert_int_equal(r.nr_ops, 5);
	assert_int_equal(r.steps[r.nr - 1].s_line, 18);
	ace_result_free(&r);
	assert_int_equal(parse(RUN "mkdir A 0777\nsync\ncheckpoint\n", &r, got, sizeof(got)), 0);
	assert_false(r.everywhere);
	assert_string_equal(got, "mkdir /A;sync;crash");
	ace_result_free(&r);
}

/* CrashMonkey snapshots the device after setup: a remount, the open files closed. */
static void test_import_ace__setup_then_remount(void **state)
{
	(void)state;
	expect_steps(DEFINE "# setup\nopen foo O_RDWR|O_CREAT 0777\nwrite foo 0 4096\n"
		     "# run\nwrite foo 4096 4096\nfsync foo\ncheckpoint 1\n",
		     "open -f /foo;pwrite -S 0x01 0 4096;remount;open /foo;"
		     "pwrite -S 0x02 4096 4096;fsync /foo;crash");
	expect_steps(RUN "sync\ncheckpoint 1\n", "sync;crash");
	expect_steps(RUN "sync\r\ncheckpoint 1\r\n", "sync;crash");     /* CRLF lines */
}

static void test_import_ace__refusals_name_line_and_column(void **state)
{
	(void)state;
	expect_refused(RUN "mknod foo TEST_FILE_PERMS|S_IFCHR|S_IFBLK 0\n",
		       "w:13:1: mknod makes a device node");
	expect_refused(RUN "open foo O_RDWR|O_APPEND 0777\n", "w:13:17: open flag 'O_APPEND'");
	expect_refused(RUN "mkdir A 0777\ndwrite A 0 4096\n", "w:14:1: 'A' is a directory");
	expect_refused(RUN "open foo O_RDONLY 0777\n", "w:13:10: open flag 'O_RDONLY'");
	expect_refused(RUN "open foo O_RDWR|O_CREAT 0777\nfalloc foo FALLOC_FL_PUNCH_HOLE 0 1\n",
		       "w:14:12: FALLOC_FL_PUNCH_HOLE without FALLOC_FL_KEEP_SIZE");
	expect_refused(RUN "open foo O_RDWR 0777\nfalloc foo 7 0 1\n", "w:14:12: fallocate mode '7'");
	expect_refused(RUN "fsync baz\n", "w:13:7: 'baz' is not a name of the define section");
	expect_refused(RUN "frob foo\n", "w:13:1: unknown j-lang operation 'frob'");
	expect_refused(RUN "fsync foo bar\n", "w:13:11: fsync takes 1 word(s) after it");
	expect_refused(RUN "write foo 0\n", "w:13:11: write takes 3 word(s) after it");
	expect_refused(RUN "open foo O_RDWR 0777\nwrite foo 0x10 1\n", "w:14:11: '0x10' is not a number");
	expect_refused(RUN "open foo O_RDWR 0777\nwrite foo 0 -1\n", "w:14:13: a length");
	expect_refused(RUN "checkpoint x\n", "w:13:12: checkpoint takes a number");
	expect_refused(RUN "close foo\n", "w:13:7: 'foo' is not open");
	expect_refused(RUN "mkdir A 0777\nwrite A 0 1\n", "w:14:1: 'A' is a directory");
	expect_refused(RUN "sync\ncheckpoint 1\nmkdir A 0777\n",
		       "w:15:1: an operation after the last checkpoint (line 14)");
	expect_refused(RUN "sync\n", "w:14:1: no checkpoint");
	expect_refused(DEFINE, "w:11:1: no '# run' section");
	expect_refused(DEFINE "# setup\nsync\ncheckpoint\n# run\n", "w:13:1: a checkpoint in setup");
	expect_refused("foo\n", "w:1:1: a line before the first section");
	expect_refused("# define\nA//b\n", "w:2:2: an empty path component");
	expect_refused("# define\nA b\n", "w:2:3: a define line is one path");
	expect_refused("# define\nfoo\nfoo\n", "w:3:1: 'foo' is defined twice");
	expect_refused("# define\nf~o\n", "w:2:2: a path takes letters");
	expect_refused(RUN "# define\n", "w:13:3: section 'define' after section 'run'");
	expect_refused("# check\n", "w:1:3: unknown section 'check'");
	expect_refused("#define\n", "w:1:1: a section line is");
	expect_refused("# declare\na b\n", "w:2:3: a declare line is one name");
	expect_refused(RUN "sync 1 2 3 4 5 6 7 8\n", "w:13:1: more than 8 words");
}

/* A line past 4096 bytes and a NUL byte: at the line. */
static void test_import_ace__line_limits(void **state)
{
	char *text = malloc(strlen(RUN) + 5000);
	struct ace_result r;
	FILE *f;

	(void)state;
	assert_non_null(text);
	strcpy(text, RUN);
	memset(text + strlen(RUN), 'x', 4200);
	text[strlen(RUN) + 4200] = '\0';
	expect_refused(text, "w:13:4097: a line longer than 4096 bytes");
	free(text);
	f = fmemopen((void *)RUN "sync\0\n", sizeof(RUN "sync\0\n") - 1, "r");
	assert_non_null(f);
	memset(&r, 0, sizeof(r));
	assert_int_equal(ace_parse("w", f, &r), -1);
	fclose(f);
	assert_string_equal(r.err, "w:13:1: a NUL byte");
	ace_result_free(&r);
}

#define TMP_DIR "build/test_import_ace-tmp"

/* The YAML the import writes loads back as the same steps, crash_everywhere set. */
static void test_import_ace__yaml_round_trip(void **state)
{
	struct orc_config c = { .block_size = 4096, .data = SCN_DATA_ORDERED, .delalloc = true,
				.dioread_nolock = true };
	struct scenario *s = calloc(1, sizeof(*s));
	char got[4096], err[SCN_ERR_MAX], a[SCN_STEP_TEXT_MAX], b[SCN_STEP_TEXT_MAX];
	struct ace_result r;
	FILE *f;

	(void)state;
	assert_non_null(s);
	assert_int_equal(parse(RUN "mkdir A 0777\nopen Afoo O_RDWR|O_CREAT 0777\n"
			       "write Afoo 100 5000\nfsync Afoo\ncheckpoint 0\nsymlink Afoo bar\n"
			       "fsetxattr Afoo\nmmapwrite Afoo 8192 4096\ncheckpoint 1\n",
			       &r, got, sizeof(got)), 0);
	c.judging.rc_set_crash_everywhere = c.judging.rc_crash_everywhere = r.everywhere;
	if (mkdir("build", 0777) < 0)
		assert_int_equal(errno, EEXIST);
	if (mkdir(TMP_DIR, 0777) < 0)
		assert_int_equal(errno, EEXIST);
	f = fopen(TMP_DIR "/w.yaml", "w");
	assert_non_null(f);
	orc_write_yaml(f, &(struct orc_yaml){ .name = "w", .description = "d", .source = "w",
					      .config = &c, .steps = r.steps, .nr_steps = r.nr });
	assert_int_equal(fclose(f), 0);
	if (scn_load(TMP_DIR "/w.yaml", s, NULL, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(s->config.c_run.rc_crash_everywhere);
	assert_int_equal(s->nr_steps, r.nr);
	for (unsigned i = 0; i < r.nr; i++) {
		orc_step_text(&r.steps[i], a, sizeof(a));
		orc_step_text(&s->steps[i], b, sizeof(b));
		assert_string_equal(a, b);
	}
	scn_free(s);
	free(s);
	ace_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import_ace__namespace_operations),
		cmocka_unit_test(test_import_ace__data_operations),
		cmocka_unit_test(test_import_ace__write_split_as_writedata),
		cmocka_unit_test(test_import_ace__open_descriptions),
		cmocka_unit_test(test_import_ace__dwrite_reopens_direct_sync),
	cmocka_unit_test(test_import_ace__checkpoints),
		cmocka_unit_test(test_import_ace__setup_then_remount),
		cmocka_unit_test(test_import_ace__refusals_name_line_and_column),
		cmocka_unit_test(test_import_ace__line_limits),
		cmocka_unit_test(test_import_ace__yaml_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
