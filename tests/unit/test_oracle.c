/*
 * test_oracle.c - what export, import and gen share (oracle/oracle.c, lib/md5.c).
 *
 * MD5 against RFC 1321's test suite (and a multi-block input split at every
 * length); orc_step_text() giving back, through scn_parse_step(), the step it
 * was made from, for every step kind; orc_as_run(): the closes and waits it
 * inserts, on hand-made step lists, and that it is idempotent on seeded
 * random step lists; orc_mount_options_all() for each configuration;
 * orc_write_yaml() read back by scn_load() (build/test_oracle-tmp/, run
 * from the repository root), whatever its strings hold.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "md5.h"
#include "oracle.h"
#include "prng.h"

static void md5_of(const void *p, size_t n, char hex[33])
{
	struct md5 m;
	uint8_t d[16];

	md5_init(&m);
	md5_update(&m, p, n);
	md5_final(&m, d);
	md5_hex(d, hex);
}

static void test_oracle__md5_rfc1321(void **state)
{
	static const struct { const char *in, *out; } v[] = {
		{ "", "d41d8cd98f00b204e9800998ecf8427e" },
		{ "a", "0cc175b9c0f1b6a831c399e269772661" },
		{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
		{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
		{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		  "d174ab98d277d9f5a5611c2c9f419d9f" },
		{ "1234567890123456789012345678901234567890123456789012345678901234567890"
		  "1234567890", "57edf4a22be3c955ac49da2e2107b67a" },
	};
	char hex[33];

	(void)state;
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		md5_of(v[i].in, strlen(v[i].in), hex);
		assert_string_equal(hex, v[i].out);
	}
}

/* The digest does not depend on how the input is split between updates. */
static void test_oracle__md5_split(void **state)
{
	uint8_t buf[300], d[16];
	char whole[33], split[33];

	(void)state;
	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	md5_of(buf, sizeof(buf), whole);
	for (unsigned cut = 0; cut <= sizeof(buf); cut++) {
		struct md5 m;

		md5_init(&m);
		md5_update(&m, buf, cut);
		md5_update(&m, buf + cut, sizeof(buf) - cut);
		md5_final(&m, d);
		md5_hex(d, split);
		assert_string_equal(whole, split);
	}
}

static void parse(const char *text, struct scn_step *st)
{
	char err[SCN_ERR_MAX];
	unsigned col;

	if (scn_parse_step(text, st, err, sizeof(err), &col) != 0)
		fail_msg("'%s' does not parse: %s", text, err);
}

static void same_step(const struct scn_step *a, const struct scn_step *b, const char *text)
{
	if (a->s_op != b->s_op || a->s_off != b->s_off || a->s_len != b->s_len ||
	    a->s_fill != b->s_fill || a->s_has_range != b->s_has_range ||
	    a->s_keep_size != b->s_keep_size || a->s_verbose != b->s_verbose ||
	    a->s_sync_flag != b->s_sync_flag || a->s_sr_flag != b->s_sr_flag ||
	    a->s_short_copy != b->s_short_copy || a->s_has_persist != b->s_has_persist ||
	    a->s_nr_persist != b->s_nr_persist || a->s_direct != b->s_direct ||
	    a->s_aio != b->s_aio || a->s_dsync != b->s_dsync || a->s_osync != b->s_osync ||
	    a->s_vectors != b->s_vectors || a->s_creat != b->s_creat || a->s_trunc != b->s_trunc ||
	    memcmp(a->s_persist, b->s_persist, sizeof(a->s_persist[0]) * a->s_nr_persist))
		fail_msg("'%s' does not come back the same", text);
}

static void test_oracle__step_text_round_trip(void **state)
{
	static const char *const steps[] = {
		"pwrite 0 1", "pwrite -S 0x11 4k 1m", "pwrite --short 7 -S 0x22 100 200",
		"pread 5 6", "pread -v 0x10 16", "truncate 0", "truncate 16t",
		"falloc 1 2", "falloc -k 3 4", "fzero 5 6", "fzero -k 7 8", "fpunch 9 10",
		"fcollapse 4096 4096", "finsert 0 1024", "mwrite 0 10", "mwrite -S 0xff 1 2",
		"fsync", "fdatasync", "sync", "sync_range -w 0 0", "sync_range -a 4096 8192",
		"sync_range -b 1 2", "chattr +S", "chattr -S", "close", "shutdown",
		"shutdown --keep none", "writeback", "writeback 0 4096", "commit", "checkpoint",
		"crash", "crash --keep none", "crash --keep 1,3-5,7", "remount", "evict",
		"pwrite -d 0 4k", "pwrite -d -V 1 -D -S 0x22 8k 8k", "pwrite -V 2 -D 0 8k",
		"pwrite -d --aio -S 0x33 16k 8k", "aio_wait", "open -d -s /f", "open -f -t -d /g",
		"open -s /f", "open /f", "open -d /f",
	};
	char text[SCN_STEP_TEXT_MAX];

	(void)state;
	for (unsigned i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct scn_step a, b;

		parse(steps[i], &a);
		orc_step_text(&a, text, sizeof(text));
		parse(text, &b);
		same_step(&a, &b, steps[i]);
	}
}

/* orc_as_run of @in (steps separated by ';') must be @want. */
static void as_run_is(const char *in, const char *want)
{
	struct scn_step st[64], out[6 * 64 + 3];
	char buf[1024], got[4096] = "", text[SCN_STEP_TEXT_MAX];
	unsigned n = 0, k;

	snprintf(buf, sizeof(buf), "%s", in);
	for (char *s = strtok(buf, ";"); s; s = strtok(NULL, ";")) {
		while (*s == ' ')
			s++;
		parse(s, &st[n++]);
	}
	k = orc_as_run(st, n, out);
	for (unsigned i = 0; i < k; i++) {
		orc_step_text(&out[i], text, sizeof(text));
		strcat(got, i ? "; " : "");
		strcat(got, text);
	}
	if (strcmp(got, want))
		fail_msg("as run of '%s':\n  got  '%s'\n  want '%s'", in, got, want);
}

static void test_oracle__as_run(void **state)
{
	(void)state;
	as_run_is("pwrite 0 10; crash",
		  "pwrite -S 0xcd 0 10; close; crash");
	as_run_is("pwrite 0 10; close; crash; pwrite 0 1",
		  "pwrite -S 0xcd 0 10; close; crash; pwrite -S 0xcd 0 1; close");
	as_run_is("crash; crash", "crash; crash");
	as_run_is("evict; chattr +S; remount; commit",
		  "evict; chattr +S; remount; commit");
	as_run_is("fsync; evict; fsync; chattr -S; fsync; commit; fsync; remount; fsync",
		  "fsync; close; evict; fsync; close; chattr -S; fsync; close; commit; fsync; "
		  "close; remount; fsync; close");
	as_run_is("sync_range -w 0 4096; crash",
		  "sync_range -w 0 4096; sync_range -a 0 4096; close; crash");
	as_run_is("sync_range -w 0 0; sync_range -a 0 0",
		  "sync_range -w 0 0; sync_range -a 0 0; close");
	as_run_is("sync_range -w 0 0; sync_range -a 0 4096",
		  "sync_range -w 0 0; sync_range -a 0 0; sync_range -a 0 4096; close");
	as_run_is("truncate 0; pwrite 0 10; crash",
		  "truncate 0; pwrite -S 0xcd 0 10; close; sync_range -a 0 0; close; crash");
	as_run_is("truncate 0; pwrite 0 10; close; commit",
		  "truncate 0; pwrite -S 0xcd 0 10; close; sync_range -a 0 0; close; commit");
	as_run_is("truncate 0; pwrite 0 10",
		  "truncate 0; pwrite -S 0xcd 0 10; close; sync_range -a 0 0; close");
	as_run_is("truncate 1; pwrite 0 10",
		  "truncate 1; pwrite -S 0xcd 0 10; close");
	/* a direct pwrite runs in an O_DIRECT process (xfs_io -d): a close where the kind changes */
	as_run_is("pwrite 0 4k; pwrite -d 0 4k; fsync; pwrite -d 4k 4k; pread 0 4k",
		  "pwrite -S 0xcd 0 4096; close; pwrite -d -S 0xcd 0 4096; fsync; "
		  "pwrite -d -S 0xcd 4096 4096; close; pread 0 4096; close");
	as_run_is("fsync; pwrite -d 0 4k; truncate 4k; mwrite 0 1",
		  "fsync; close; pwrite -d -S 0xcd 0 4096; truncate 4096; close; "
		  "mwrite -S 0x58 0 1; close");
	/* in an open -d process every pwrite is direct: a plain one stays, a read ends it */
	as_run_is("open -d -s /f; pwrite 0 4k; pwrite -d 4k 4k; pread 0 16; pwrite -d 0 4k",
		  "open -d -s /f; pwrite -S 0xcd 0 4096; pwrite -d -S 0xcd 4096 4096; close; "
		  "pread 0 16; close; pwrite -d -S 0xcd 0 4096; close");
	as_run_is("open -s /f; pwrite 0 4k; pwrite -d 0 4k",
		  "open -s /f; pwrite -S 0xcd 0 4096; close; pwrite -d -S 0xcd 0 4096; close");
}

/* orc_as_run(orc_as_run(x)) == orc_as_run(x) on random step lists. */
static void test_oracle__as_run_idempotent(void **state)
{
	static const char *const pool[] = {
		"pwrite 0 10", "truncate 0", "truncate 100", "sync_range -w 0 0",
		"sync_range -a 0 0", "sync_range -w 0 4096", "sync_range -a 0 4096", "close",
		"crash", "evict", "chattr +S", "commit", "remount", "fsync", "mwrite 0 1",
		"writeback", "shutdown", "pwrite -d 0 4096", "pread 0 10", "open -d /f",
		"open -s /f",
	};
	struct scn_step in[16], once[6 * 16 + 3], twice[6 * (6 * 16 + 3) + 3];

	(void)state;
	for (uint64_t seed = 1; seed <= 2000; seed++) {
		struct prng p;
		unsigned n, k1, k2;

		prng_seed(&p, seed);
		n = 1 + (unsigned)prng_below(&p, 16);
		for (unsigned i = 0; i < n; i++)
			parse(pool[prng_below(&p, sizeof(pool) / sizeof(pool[0]))], &in[i]);
		k1 = orc_as_run(in, n, once);
		assert_true(k1 <= 6 * n + 3);
		k2 = orc_as_run(once, k1, twice);
		if (k1 != k2)
			fail_msg("seed=%llu: %u steps as run, %u after a second pass",
				 (unsigned long long)seed, k1, k2);
		for (unsigned i = 0; i < k1; i++)
			same_step(&once[i], &twice[i], "a step as run");
		/* a process never ends without a close, nor a crash inside one */
		for (unsigned i = 0; i < k1; i++)
			if (!orc_in_process(once[i].s_op) && once[i].s_op != SCN_CLOSE && i > 0)
				assert_false(orc_in_process(once[i - 1].s_op));
		assert_false(orc_in_process(once[k1 - 1].s_op));
	}
}

static void test_oracle__mount_options(void **state)
{
	struct orc_config c = { .block_size = 4096, .data = SCN_DATA_ORDERED, .delalloc = true,
				.dioread_nolock = true };
	char buf[256];

	(void)state;
	orc_mount_options_all(&c, buf, sizeof(buf));
	assert_string_equal(buf, "data=ordered,delalloc,dioread_nolock,auto_da_alloc,commit=600,noatime");
	c.dioread_nolock = false;
	orc_mount_options_all(&c, buf, sizeof(buf));
	assert_string_equal(buf, "data=ordered,delalloc,dioread_lock,auto_da_alloc,commit=600,noatime");
	c.delalloc = false;
	orc_mount_options_all(&c, buf, sizeof(buf));
	assert_string_equal(buf, "data=ordered,nodelalloc,auto_da_alloc,commit=600,noatime");
	c.data = SCN_DATA_WRITEBACK;
	orc_mount_options_all(&c, buf, sizeof(buf));
	assert_string_equal(buf, "data=writeback,nodelalloc,auto_da_alloc,commit=600,noatime");
	c.data = SCN_DATA_JOURNAL;
	orc_mount_options_all(&c, buf, sizeof(buf));
	assert_string_equal(buf, "data=journal,nodelalloc,auto_da_alloc,commit=600,noatime");
	orc_config_key(&c, buf, sizeof(buf));
	assert_string_equal(buf, "4096 journal nodelalloc");
}

#define TMP_DIR "build/test_oracle-tmp"

/* Write @y to TMP_DIR/@name and load it back into @s. */
static void write_and_load(const struct orc_yaml *y, const char *name, struct scenario *s)
{
	char path[256], err[SCN_ERR_MAX];
	FILE *f;

	if (mkdir("build", 0777) < 0)
		assert_int_equal(errno, EEXIST);
	if (mkdir(TMP_DIR, 0777) < 0)
		assert_int_equal(errno, EEXIST);
	snprintf(path, sizeof(path), "%s/%s", TMP_DIR, name);
	f = fopen(path, "w");
	assert_non_null(f);
	orc_write_yaml(f, y);
	assert_int_equal(fclose(f), 0);
	memset(s, 0, sizeof(*s));
	if (scn_load(path, s, NULL, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

/*
 * What import and export --format yaml write reads back the same: the name,
 * the source and the kernel exactly, the steps as the same steps, and the
 * description as its words (a folded block of prose) or, where a block
 * cannot hold it, exactly.
 */
static void test_oracle__write_yaml_round_trip(void **state)
{
	static const char *const text[] = {
		"plain/path.fsxops", "say \"hi\" \\ back\\slash: # x", "  blanks at the ends  ",
		"two\nlines\n", "tab\tand \x01 ctl", "caf\xc3\xa9 \xe2\x80\x94 \xc2\x85 \xe2\x80\xa8",
		"{flow}, &a *b !c |d >e 'f' %g @h `i`", "- dash", "true",
	};
	static const char *const prose[] = {
		"plain/path.fsxops\n", "say \"hi\" \\ back\\slash: # x\n", "blanks at the ends\n",
		"two lines\n", "tab\tand \x01 ctl", "caf\xc3\xa9 \xe2\x80\x94 \xc2\x85 \xe2\x80\xa8",
		"{flow}, &a *b !c |d >e 'f' %g @h `i`\n", "- dash\n", "true\n",
	};
	static const char *const steps[] = {
		"pwrite -S 0x61 0 4096", "mwrite -S 0x62 1 2", "crash --keep 1,3-5", "chattr +S",
		"writeback", "sync_range -w 0 0", "truncate 0", "close", "remount",
	};
	struct scn_step st[sizeof(steps) / sizeof(steps[0])];
	struct orc_config c = { .block_size = 1024, .data = SCN_DATA_JOURNAL, .kernel = "6.18" };
	struct scenario *s = calloc(1, sizeof(*s));
	char a[SCN_STEP_TEXT_MAX], b[SCN_STEP_TEXT_MAX];

	(void)state;
	assert_non_null(s);
	for (unsigned k = 0; k < sizeof(steps) / sizeof(steps[0]); k++)
		parse(steps[k], &st[k]);
	for (unsigned i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		struct orc_yaml y = { .name = i % 2 ? "-" : "imported-1.x_y", .description = text[i],
				      .source = text[i], .config = &c, .steps = st,
				      .nr_steps = sizeof(steps) / sizeof(steps[0]) };

		write_and_load(&y, "written.yaml", s);
		assert_string_equal(s->name, y.name);
		assert_string_equal(s->description, prose[i]);
		assert_string_equal(s->source, text[i]);
		assert_string_equal(s->config.c_kernel, "6.18");
		assert_int_equal(s->nr_steps, y.nr_steps);
		for (unsigned k = 0; k < s->nr_steps; k++) {
			orc_step_text(&st[k], a, sizeof(a));
			orc_step_text(&s->steps[k], b, sizeof(b));
			assert_string_equal(a, b);
		}
		scn_free(s);
	}
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle__md5_rfc1321),
		cmocka_unit_test(test_oracle__md5_split),
		cmocka_unit_test(test_oracle__step_text_round_trip),
		cmocka_unit_test(test_oracle__as_run),
		cmocka_unit_test(test_oracle__as_run_idempotent),
		cmocka_unit_test(test_oracle__mount_options),
		cmocka_unit_test(test_oracle__write_yaml_round_trip),
	};

	return cmocka_run_group_tests_name("oracle", tests, NULL, NULL);
}
