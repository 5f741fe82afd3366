/*
 * preambles.c - the shell text that opens each exported script, as
 * templates: the xfs_io script's header, usage and shell functions, and the
 * fstests test's header, requirements and helpers.  xp_fill() writes a
 * template, each "@{key}" replaced by its variable (see export.h).
 */
#include <string.h>

#include "export.h"

/*
 * The xfs_io script up to its first step.  Keys: name, path, block_size,
 * options (the mount options), config, mapping, steps (the steps as run),
 * model (the model's "# model:" lines, which kernel-check reads).
 */
const char xp_xfs_io_preamble[] =
	"#!/bin/bash\n"
	"# @{name}: ext4sim scenario @{name}, exported to run on a real ext4\n"
	"# (@{path}).\n"
	"@{config}"
	"#\n"
	"# usage: @{name}.sh MOUNTPOINT [SAVE_DIR]\n"
	"#\n"
	"# MOUNTPOINT is a mounted ext4 with @{block_size}-byte blocks, mounted with\n"
	"#   -o @{options}\n"
	"# (the remounts use these options; EXT4SIM_MOUNT_OPTIONS overrides them).\n"
	"# Run as root.  The script creates MOUNTPOINT/f, empty and synced (and\n"
	"# MOUNTPOINT/ext4sim-commit, whose fsync stands for the model's commit), runs\n"
	"# the steps with xfs_io and prints the size and SHA-256 of f as a reader sees\n"
	"# it before each crash (\"pre N\"), after its shutdown and remount (\"post N\")\n"
	"# and at the end (\"final\").  With SAVE_DIR the bytes of f at each point are\n"
	"# kept there (pre1, post1, ..., final), with xfs_io's output (xfs_io.log).\n"
	"#\n"
	"@{mapping}"
	"#\n"
	"# The steps as run (the model's step numbers):\n"
	"@{steps}"
	"#\n"
	"# What the model predicts (state: a state the model lists for the crash point;\n"
	"# continue: the one its run continues from):\n"
	"@{model}"
	XP_SCRIPT_CHECKS("xfs_io findmnt stat sha256sum dd mount umount")
	"\n"
	"# one xfs_io process on f, from the mount point (the commit file is relative)\n"
	"io() {\n"
	"\tlocal rc=0\n"
	"\t(cd \"$MNT\" && exec xfs_io \"$@\" f) >> \"$LOG\" 2>&1 || rc=$?\n"
	"\t[ $rc -lt 128 ] || echo \"@{name}: xfs_io $* ended by signal $((rc - 128))\" >&2\n"
	"}\n"
	"# the size and SHA-256 of f as a reader sees it (read(2) only: no hole skipping)\n"
	"point() {\n"
	"\tlocal size sum\n"
	"\tsize=$(stat -c %s \"$MNT/f\") || die \"$1: cannot stat f\"\n"
	"\tif [ -n \"$SAVE\" ]; then\n"
	"\t\tdd if=\"$MNT/f\" of=\"$SAVE/$2\" bs=1M status=none || die \"$1: cannot read f\"\n"
	"\t\tsum=$(sha256sum < \"$SAVE/$2\")\n"
	"\telse\n"
	"\t\tsum=$(sha256sum < \"$MNT/f\") || die \"$1: cannot read f\"\n"
	"\tfi\n"
	"\techo \"$1 size $size sha256 ${sum%% *}\"\n"
	"}\n"
	"remount() {\n"
	"\tumount \"$MNT\" || die \"umount failed\"\n"
	"\tmount -t ext4 -o \"$OPTS\" \"$DEV\" \"$MNT\" || die \"mount -o $OPTS $DEV failed\"\n"
	"}\n"
	"# shutdown without a log flush, unmount, mount (journal recovery, orphan cleanup)\n"
	"crash() {\n"
	"\txfs_io -x -r -c shutdown \"$MNT\" >> \"$LOG\" 2>&1 || die \"shutdown failed\"\n"
	"\tremount\n"
	"}\n"
	"# a commit of the running transaction and nothing else: a timestamp change of\n"
	"# another file and its fsync (f's data is not written back, only what the\n"
	"# commit orders)\n"
	"commit() {\n"
	"\txfs_io -c 'utimes 0 0 0 0' -c fsync \"$MNT/ext4sim-commit\" >> \"$LOG\" 2>&1 ||\n"
	"\t\tdie \"commit failed\"\n"
	"}\n"
	"# clean page cache only: nothing is written back\n"
	"drop_caches() { echo 1 > /proc/sys/vm/drop_caches || die \"drop_caches failed\"; }\n"
	"\n"
	"rm -f \"$MNT/f\" \"$MNT/ext4sim-commit\"\n"
	": > \"$MNT/f\" && : > \"$MNT/ext4sim-commit\" || die \"cannot create f in $MNT\"\n"
	"sync\n"
	"\n";

/*
 * The fstests test up to its first step, in the layout fstests' `new`
 * script writes.  Keys: year (the copyright's), test (its number), what
 * (what the test checks, as comment lines), description (the scenario's,
 * wrapped, or nothing), config, mapping, groups (the _begin_fstest line),
 * imports (common/filter when the test filters xfs_io's output), fixed_by,
 * requires (_require_* lines), block_size, options, golden_doc (what the
 * golden output holds, as comment lines), print_state (the one-file test's
 * read-back function, or nothing), helpers (the shell functions the steps
 * use, only those).
 */
const char xp_fstests_preamble[] =
	"#! /bin/bash\n"
	"# SPDX-License-Identifier: GPL-2.0\n"
	"# Copyright (c) @{year} the ext4sim authors.  All Rights Reserved.\n"
	"#\n"
	"# FS QA Test @{test}\n"
	"#\n"
	"@{what}"
	"@{description}"
	"#\n"
	"@{config}"
	"@{golden_doc}"
	"#\n"
	"@{mapping}"
	"#\n"
	". ./common/preamble\n"
	"@{groups}"
	"\n"
	"@{imports}"
	"@{fixed_by}"
	"# data=journal, nodelalloc, extents and the journal the model follows are ext4's\n"
	"_exclude_fs ext2\n"
	"_exclude_fs ext3\n"
	"_require_scratch_size $((64 * 1024))\n"
	"# DAX bypasses the page cache the model is about\n"
	"_exclude_scratch_mount_option dax\n"
	"@{requires}"
	"\n"
	"# The model's device reads 0xee wherever nothing was written: so does the\n"
	"# scratch device (nodiscard keeps it), where stale blocks could show.\n"
	"$XFS_IO_PROG -d -c \"pwrite -S 0xee -b 1m 0 64m\" $SCRATCH_DEV >> $seqres.full 2>&1 ||\n"
	"\t_fail \"cannot fill $SCRATCH_DEV\"\n"
	"_scratch_mkfs_sized $((64 * 1024 * 1024)) @{block_size} \\\n"
	"\t-E nodiscard,lazy_itable_init=0,lazy_journal_init=0 >> $seqres.full 2>&1\n"
	"# the model journals metadata: a no-journal MKFS_OPTIONS skips the test\n"
	"_require_metadata_journaling $SCRATCH_DEV\n"
	"# nor can MKFS_OPTIONS give features the model does not have: inline data,\n"
	"# clusters of several blocks, block maps instead of extents\n"
	"features=\" $($DUMPE2FS_PROG -h $SCRATCH_DEV 2>/dev/null | \\\n"
	"\tsed -n 's/^Filesystem features://p') \"\n"
	"for f in inline_data bigalloc; do\n"
	"\techo \"$features\" | grep -qw $f && _notrun \"ext4 feature $f: the model has none\"\n"
	"done\n"
	"echo \"$features\" | grep -qw extent || _notrun \"ext4 without extents: the model has them\"\n"
	"# every mode the model tells apart is named, defaults too, so that the\n"
	"# options override MOUNT_OPTIONS (the xfs_io script export writes mounts\n"
	"# with the same); a long commit interval: the model has no commit timer\n"
	"mount_opts=\"@{options}\"\n"
	"_scratch_mount \"-o $mount_opts\"\n"
	"# the model's block size; MKFS_OPTIONS may have set another one\n"
	"[ \"$(_get_block_size $SCRATCH_MNT)\" = @{block_size} ] || \\\n"
	"\t_notrun \"block size $(_get_block_size $SCRATCH_MNT), the test needs @{block_size}\"\n"
	"\n"
	"file=$SCRATCH_MNT/f\n"
	"commit_file=$SCRATCH_MNT/ext4sim-commit\n"
	"touch $file $commit_file\n"
	"sync\n"
	"\n"
	"@{print_state}"
	"@{helpers}";

/* The one-file test's golden_doc and print_state (a namespace test's: preambles_ns.c). */
const char xp_fstests_golden_doc[] =
	"# The golden output is the model's prediction: xfs_io's output (its errors\n"
	"# included: a command the model refuses must fail the same way), and the size\n"
	"# and MD5 of the file as a reader sees it before each crash, after it and at\n"
	"# the end; where the model lists several states a crash can leave, the state\n"
	"# must be one of them.\n";
const char xp_fstests_print_state[] =
	"print_state()\n"
	"{\n"
	"\techo \"$1: size $(stat -c %s $file) md5 $(_md5_checksum $file)\"\n"
	"}\n"
	"\n";

/* The shell functions of an fstests test, each written only when its steps use it. */
const char xp_fstests_io_helper[] =
	"# xfs_io on the file: its output (rates filtered), then its errors (xfs_io\n"
	"# buffers its output, so one stream could put the errors first)\n"
	"io()\n"
	"{\n"
	"\t$XFS_IO_PROG \"$@\" $file 2> $tmp.io_err | _filter_xfs_io\n"
	"\tcat $tmp.io_err\n"
	"}\n"
	"\n";
const char xp_fstests_check_state_helper[] =
	"# the file must be one of the states (SIZE:SHA256) the model lists\n"
	"check_state()\n"
	"{\n"
	"\tlocal label=$1 state a\n"
	"\n"
	"\tshift\n"
	"\tstate=\"$(stat -c %s $file):$(sha256sum < $file | cut -d' ' -f1)\"\n"
	"\techo \"$label: $state\" >> $seqres.full\n"
	"\tfor a in \"$@\"; do\n"
	"\t\tif [ \"$a\" = \"$state\" ]; then\n"
	"\t\t\techo \"$label: one of the model's $# states\"\n"
	"\t\t\treturn\n"
	"\t\tfi\n"
	"\tdone\n"
	"\techo \"$label: $state is not one of the model's $# states\"\n"
	"}\n"
	"\n";
const char xp_fstests_commit_helper[] =
	"# a commit of the running transaction and nothing else: a timestamp change of\n"
	"# another file and its fsync\n"
	"commit()\n"
	"{\n"
	"\t$XFS_IO_PROG -c \"utimes 0 0 0 0\" -c fsync $commit_file >> $seqres.full 2>&1\n"
	"}\n"
	"\n";

/* The variable of the key at @key (just after "@{"), up to its '}'; NULL if none. */
static const struct xp_var *find_var(const char *key, const struct xp_var *vars,
				     unsigned nr_vars)
{
	const char *end = strchr(key, '}');

	for (unsigned i = 0; end && i < nr_vars; i++)
		if (strlen(vars[i].key) == (size_t)(end - key) &&
		    strncmp(vars[i].key, key, (size_t)(end - key)) == 0)
			return &vars[i];
	return NULL;
}

/*
 * Write @tmpl with each "@{key}" replaced.  A key without a variable is a
 * bug in the caller, not an input error.
 */
void xp_fill(FILE *out, const char *tmpl, const struct xp_var *vars, unsigned nr_vars,
	     const struct xctx *x)
{
	const char *at;

	while ((at = strstr(tmpl, "@{")) != NULL) {
		const struct xp_var *v = find_var(at + 2, vars, nr_vars);

		SIM_ASSERT(v != NULL);
		fwrite(tmpl, 1, (size_t)(at - tmpl), out);
		if (v->text)
			fputs(v->text, out);
		else
			v->print(out, x);
		tmpl = strchr(at, '}') + 1;
	}
	fputs(tmpl, out);
}
