/*
 * fuzz_import.c - libFuzzer harness: the input is an fsx operation log, a
 * list of xfs_io commands, an ACE j-lang workload or an fstests test (the
 * first byte picks --from fsx, xfs_io, ace, fstests or the detection).  When `ext4sim import` accepts it (exit 0), what it wrote must
 * load as a scenario; otherwise it must exit 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *out_path;
	static char *from[] = { "fsx", "xfs_io", "ace", "fstests", NULL };
	const char *path = fuzz_file(size && data[0] % 5 == 0 ? "in.fsxops" : "in.txt",
				     data + (size > 0), size - (size > 0));
	char *argv[4], err[SCN_ERR_MAX];
	struct cmd_args a;
	int argc = 0, rc;

	if (!out_path)
		out_path = fuzz_stdout_to("import.yaml");
	if (size && from[data[0] % 5]) {
		argv[argc++] = "--from";
		argv[argc++] = from[data[0] % 5];
	}
	argv[argc++] = (char *)path;
	argv[argc] = NULL;
	fflush(stdout);
	if (ftruncate(fileno(stdout), 0) != 0)
		fuzz_fail("cannot empty the output", out_path);
	rewind(stdout);
	if ((rc = cmd_parse(cmd_find("import"), argc, argv, &a)) == 0) {
		rc = cmd_import(a.argc, a.opts);
		free(a.opts);
	}
	fflush(stdout);
	if (rc == 0) {
		struct scenario s;

		if (scn_load(out_path, &s, chk_is_invariant_name, err, sizeof(err)) != 0)
			fuzz_fail("import's output does not load", err);
		scn_free(&s);
	} else if (rc != 2) {
		fuzz_fail("import did not exit 0 or 2", path);
	}
	return 0;
}
