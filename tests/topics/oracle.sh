# oracle.sh - the real-kernel oracle's commands (docs/real-kernel.md): export (xfs_io
# scripts, fstests tests, yaml, refusals), import (fsx logs, xfs_io lists, bad input),
# gen (determinism; every scenario loads, runs, exports and comes back through import),
# and kernel-check and kernel-powercut skipping without root.  Goldens under
# tests/golden/oracle/.

for f in scenarios/crash/two-crashes.yaml scenarios/crash/auto-da-alloc-close.yaml \
	scenarios/fallocate/mwrite-eof-pollution.yaml scenarios/modes/journal-data-fsync.yaml \
	scenarios/crash/chattr-sync-write.yaml scenarios/basic/remount-clean.yaml; do
	n=$(basename "$f" .yaml)
	mkdir -p "$tmp/x"
	run "$sim" export --format xfs_io -o "$tmp/x" "$f"
	check "export-xfs_io $n" '[ "$rc" = 0 ] && bash -n "$tmp/x/$n.sh" && [ -x "$tmp/x/$n.sh" ] &&
		golden "xfs_io-$n" "$tmp/x/$n.sh"'
	# the same script on stdout
	run "$sim" export "$f"
	check "export-stdout $n" 'cmp -s "$out" "$tmp/x/$n.sh" ||
		{ echo "  export $f to stdout and to -o differ"; false; }'
done

# fstests: the test and its golden output; the output's MD5s are the model's bytes
f=scenarios/fallocate/falloc-extend-crash.yaml
mkdir -p "$tmp/ft" "$tmp/md"
run "$sim" export --format fstests --test-number 042 -o "$tmp/ft" --model-dir "$tmp/md" "$f"
check export-fstests '[ "$rc" = 0 ] && bash -n "$tmp/ft/042" && golden fstests-042 "$tmp/ft/042" &&
	golden fstests-042-out "$tmp/ft/042.out" &&
	[ "$(grep -c "^print_state \|^check_state " "$tmp/ft/042")" = "$(grep -c "^\(pre-crash\|post-crash\|final\)" "$tmp/ft/042.out")" ] &&
	grep -q "^pre-crash 1: size [0-9]* md5 $(md5sum < "$tmp/md/pre1" | cut -d" " -f1)\$" "$tmp/ft/042.out" &&
	grep -q "^post-crash 1: size [0-9]* md5 $(md5sum < "$tmp/md/post1" | cut -d" " -f1)\$" "$tmp/ft/042.out"'
# several states at a crash point: the test checks membership, the golden line says so
run "$sim" export --format fstests scenarios/crash/shutdown-completes-inflight.yaml
check export-fstests-stdout 'golden fstests-several-states "$out"'
# fstests' conventions: the copyright line with a year (a constant, or --copyright-year),
# "FS QA Test NNN" as fstests' new script writes it, a header that says what it checks
check export-fstests-header 'grep -q "^# Copyright (c) 2026 the ext4sim authors.  All Rights Reserved.\$" "$tmp/ft/042" &&
	grep -q "^# FS QA Test 042\$" "$tmp/ft/042" && grep -q "^# Crash consistency of ext4" "$tmp/ft/042"'
run "$sim" export --format fstests --copyright-year 2031 "$f"
check export-fstests-year '[ "$rc" = 0 ] && grep -q "^# Copyright (c) 2031 " "$out"'
expect_exit2 export-fstests-bad-year "$sim" export --format fstests --copyright-year 26 "$f"
# xfs_io's output and the errors the model predicts are in the golden output, so a kernel
# that refuses what the model accepts (or the reverse) fails the test
run "$sim" export --format fstests scenarios/fallocate/fcollapse-finsert-crash.yaml
check export-fstests-errors '[ "$rc" = 0 ] && golden fstests-errors "$out" &&
	grep -q "^fallocate: Invalid argument\$" "$out"'
# no helper the steps do not use (commit, check_state, io and common/filter only when
# called), the groups of the operations used, _require_scratch_shutdown only with a
# crash; over the scenarios and a gen campaign
mkdir -p "$tmp/gh"
run "$sim" gen --seed 3 --count 30 --out "$tmp/gh"
nbad=0 nall=0
for g in "$tmp"/gh/*.yaml scenarios/*/*.yaml; do
	"$sim" export --format fstests "$g" > "$tmp/fh" 2> /dev/null || continue
	nall=$((nall + 1))
	for fn in io check_state commit print_ns ns check_fs check_ns_state; do
		def=$(grep -c "^$fn()\$" "$tmp/fh") call=$(grep -c "^$fn\( \|\$\)" "$tmp/fh")
		{ [ "$def" = 1 ] && [ "$call" -gt 0 ]; } || { [ "$def" = 0 ] && [ "$call" = 0 ]; } ||
			{ echo "  $g: $fn defined $def, called $call"; nbad=$((nbad + 1)); }
	done
	[ "$(grep -c "^\. \./common/filter\$" "$tmp/fh")" = "$(grep -c "^io()\$\|^ns_tree()\$" "$tmp/fh" | sed "s/^[1-9][0-9]*\$/1/")" ] ||
		{ echo "  $g: common/filter without io, or io without it"; nbad=$((nbad + 1)); }
	[ "$(grep -c "^_begin_fstest.* copy_range" "$tmp/fh")" = "$(grep -c "^# \[[0-9]*\] copy_range" "$tmp/fh" | sed "s/^[1-9][0-9]*\$/1/")" ] ||
		{ echo "  $g: the copy_range group and the copy_range steps disagree"; nbad=$((nbad + 1)); }
	[ "$(grep -c "^_require_scratch_shutdown\$" "$tmp/fh")" = "$(grep -c "^_scratch_shutdown" "$tmp/fh" | sed "s/^[1-9][0-9]*\$/1/")" ] ||
		{ echo "  $g: _require_scratch_shutdown and the shutdowns disagree"; nbad=$((nbad + 1)); }
done
cmdline="for each scenario and gen --seed 3 --count 30: $sim export --format fstests FILE"
check export-fstests-helpers '[ "$nbad" = 0 ] && [ "$nall" -gt 90 ] || { echo "  $nbad of $nall"; false; }'
# the xfs_io script mounts with the fstests test's options
mo_same=0
for cfg in "" "--nodelalloc" "--data journal" "--data writeback --block-size 1024"; do
	read -ra args <<< "$cfg"
	a=$("$sim" export --format fstests "${args[@]}" -c "pwrite 0 10" | sed -n 's/^mount_opts="\(.*\)"$/\1/p')
	b=$("$sim" export "${args[@]}" -c "pwrite 0 10" | sed -n 's/^OPTS=${EXT4SIM_MOUNT_OPTIONS:-\(.*\)}$/\1/p')
	[ -n "$a" ] && [ "$a" = "$b" ] && mo_same=$((mo_same + 1))
done
cmdline="$sim export [--format fstests] CONFIG -c 'pwrite 0 10'"
check export-same-mount-options '[ "$mo_same" = 4 ]'
# the variant exported: a bug scenario's fixed side is the variant expecting the fewest
# violations nearest (in toggles, either way) to one expecting more, one without patches
# of its own at equal distance; else the one nearest to today's kernel (the default
# profile) and not newer: each of these exported an older kernel's behaviour before, and
# its test failed on 6.18
picked=""
for f in bugs/2026-ondisk-residue-extend patches/jdata-writeback-commit tutorial/10-page-cache-half \
	bugs/2023-foo-zero-tail patches/zero-outside-handle-journal bugs/2024-eof-pollution-extend; do
	run "$sim" export --format fstests "scenarios/$f.yaml"
	picked="$picked$(sed -n 's/^# Model: kernel profile \([^,]*\), variant \([^;]*\);$/\1 \2/p' "$out");"
done
check export-variant-choice '[ "$picked" = "6.13 after-6.13;6.6 after-6.6;6.13 both;6.1 k6.1;6.12 before-6.12;6.13 after-6.13;" ] ||
	{ echo "  $picked"; false; }'
# a step the model sends off the delalloc path for want of space (ext4_nonda_switch on its
# small disk) is refused: a real ext4 of another layout need not switch
expect_exit2 export-nonda "$sim" export --format fstests scenarios/bugs/2025-punch-mkwrite-beyond-disksize.yaml
check export-nonda-message 'golden refuse-nonda "$err"'
# the mount options name every mode the model tells apart, defaults too, so fstests'
# MOUNT_OPTIONS (mounted first) cannot change them: nodelalloc or noauto_da_alloc there
# made an exported test fail on 6.18
# mount_opts_of SED CFG...: for each CFG (export flags), the exported test's mount_opts
# line through the sed expression SED, each followed by ';'
mount_opts_of() {
	local expr=$1 cfg args all=""
	shift
	for cfg in "$@"; do
		read -ra args <<< "$cfg"
		run "$sim" export --format fstests "${args[@]}" -c "pwrite 0 10"
		all="$all$(sed -n "$expr" "$out");"
	done
	printf '%s' "$all"
}
mo=$(mount_opts_of 's/^mount_opts=//p' "" "--nodelalloc" "--data journal" \
	"--data writeback --block-size 1024")
check export-fstests-mount-options '[ "$mo" = "\"data=ordered,delalloc,dioread_nolock,auto_da_alloc,commit=600,noatime\";\"data=ordered,nodelalloc,auto_da_alloc,commit=600,noatime\";\"data=journal,nodelalloc,auto_da_alloc,commit=600,noatime\";\"data=writeback,delalloc,dioread_nolock,auto_da_alloc,commit=600,noatime\";" ] ||
	{ echo "  $mo"; false; }'

# dioread_nolock is exported as the model mounts it under the variant's kernel: the
# config's `dioread_nolock: true` is the kernel's default, dioread_lock below 6.8 with
# blocks smaller than a page and before 5.6 for every block, and a kernel given
# dioread_nolock by name honours it (5.10, 6.1) or refuses to mount (4.4 to 5.4)
dm=$(mount_opts_of 's/^mount_opts=.*\(dioread_[a-z]*\).*/\1/p' \
	"--kernel 6.18 --block-size 1024" "--kernel debian-6.1.192 --block-size 1024" \
	"--kernel debian-6.1.192" "--kernel 5.4.302" "--kernel debian-5.10.262")
check export-dioread-as-mounted '[ "$dm" = "dioread_nolock;dioread_lock;dioread_nolock;dioread_lock;dioread_nolock;" ] ||
	{ echo "  $dm"; false; }'

# refusals: a model-only step exits 2 with FILE:LINE:COL, nothing on stdout
expect_exit2 export-checkpoint "$sim" export scenarios/basic/checkpoint-then-crash.yaml
check export-checkpoint-message 'golden refuse-checkpoint "$err"'
expect_exit2 export-short "$sim" export --format fstests scenarios/basic/short-copy.yaml
check export-short-message 'golden refuse-short "$err"'
expect_exit2 export-inject "$sim" export scenarios/bugs/f7-writeback-bailout-stale.yaml
check export-inject-message 'golden refuse-inject "$err"'
expect_exit2 export-inject-fstests "$sim" export --format fstests scenarios/bugs/f8-unwritten-buffer-new.yaml
expect_exit2 export-inline-inject "$sim" export -c "pwrite 0 10" -c "inject nonda"
# direct I/O: a direct pwrite runs in an xfs_io process with the file opened O_DIRECT
# (xfs_io -d; xfs_io's own pwrite -d opens its -i input O_DIRECT and leaves the target
# buffered, so the command never carries -d), a close where a process of the other kind
# begins; open -d / -s are the process's -d / -s; AIO is refused (xfs_io has none)
mkdir -p "$tmp/xd"
run "$sim" export --format xfs_io -o "$tmp/xd" scenarios/dio/mixed-page-cache.yaml
check export-dio-xfs_io '[ "$rc" = 0 ] && bash -n "$tmp/xd/mixed-page-cache.sh" &&
	golden xfs_io-dio-mixed-page-cache "$tmp/xd/mixed-page-cache.sh"'
check export-dio-no-pwrite-d '! grep -q "pwrite -d" <(grep -v "^#" "$tmp/xd/mixed-page-cache.sh") &&
	grep -qx "io -d -c '"'"'pwrite -S 0x22 4096 4096'"'"'" "$tmp/xd/mixed-page-cache.sh"'
run "$sim" export --format xfs_io -o "$tmp/xd" scenarios/dio/extend-dsync.yaml
check export-dio-dsync 'grep -qx "io -d -c '"'"'pwrite -V 1 -D -S 0x22 8192 8192'"'"'" "$tmp/xd/extend-dsync.sh"'
run "$sim" export --format fstests -o "$tmp/xd" scenarios/bugs/2023-dio-osync-size.yaml
check export-dio-open-fstests '[ "$rc" = 0 ] && golden fstests-dio-osync-size "$tmp/xd/999" &&
	golden fstests-dio-osync-size-out "$tmp/xd/999.out"'
run "$sim" export --format xfs_io -o "$tmp/xd" scenarios/bugs/2018-dio-disksize-inside-isize.yaml
check export-dio-open-xfs_io 'grep -qx "use '"'"'./f'"'"' -d -s" "$tmp/xd/2018-dio-disksize-inside-isize.sh"'
run "$sim" export --format yaml scenarios/dio/extend-dsync.yaml
check export-dio-yaml 'grep -qx "  - pwrite -d -V 1 -D -S 0x22 8192 8192" "$out"'
expect_exit2 export-aio "$sim" export scenarios/dio/aio-crash.yaml
check export-aio-message 'golden refuse-aio "$err"'
expect_exit2 export-aio-wait "$sim" export -c "pwrite -d --aio 0 4096" -c "aio_wait"
# a namespace scenario exports as an xfs_io script that runs each namespace step by its
# system call and reads the whole tree at every point (the model's namespaces in its
# "# model: ns" lines); the fstests format refuses it still, naming the step
for f in scenarios/namespace/replace-via-rename.yaml scenarios/namespace/dir-fsync.yaml; do
	n=$(basename "$f" .yaml)
	mkdir -p "$tmp/xn"
	run "$sim" export --format xfs_io -o "$tmp/xn" "$f"
	check "export-namespace $n" '[ "$rc" = 0 ] && [ ! -s "$err" ] && bash -n "$tmp/xn/$n.sh" &&
		golden "xfs_io-ns-$n" "$tmp/xn/$n.sh"'
done
# the crash point's states are crashstates' namespaces, line for line
run "$sim" crashstates scenarios/namespace/dir-fsync.yaml
check export-namespace-states 'diff <(sed -n "/^      namespace:/,/^    [^ ]/p" "$out" | sed -n "s/^        //p") \
	<(sed -n "s/^# model: ns post 1 state 1 //p" "$tmp/xn/dir-fsync.sh")'
check export-namespace-steps 'grep -qx "nsop mkdir '"'"'./A'"'"'" "$tmp/xn/dir-fsync.sh" &&
	grep -qx "fsync_path fsync '"'"'./A'"'"'" "$tmp/xn/dir-fsync.sh" &&
	grep -qx "use '"'"'./A/foo'"'"'" "$tmp/xn/dir-fsync.sh" &&
	grep -qx "nsop rename '"'"'./tmp'"'"' '"'"'./f'"'"' 0" "$tmp/xn/replace-via-rename.sh" &&
	grep -qx "fsck_point \"post 1\"" "$tmp/xn/dir-fsync.sh"'
# its tree listing is nsnap_text's, content hash included: a directory made here read
# by the script's own lister gives the model's lines for the same tree
mkdir -p "$tmp/tree/A" && printf '\273%.0s' $(seq 8192) > "$tmp/tree/f" && ln -s ../f "$tmp/tree/A/l" &&
	: > "$tmp/tree/ext4sim-commit" && ln "$tmp/tree/f" "$tmp/tree/A/g"
eval "$(sed -n "/^NS_LIST='/,/^'\$/p" "$tmp/xn/dir-fsync.sh")"
run perl -e "$NS_LIST" "$tmp/tree"
check export-namespace-lister 'sed "s/ ino [0-9]*//" "$out" > "$tmp/tree.got" && diff - "$tmp/tree.got" <<-EOF
	/ dir nlink 3 size $(stat -c %s "$tmp/tree") 00000000000000000000000000000000
	/A dir nlink 2 size $(stat -c %s "$tmp/tree/A") 00000000000000000000000000000000
	/A/g reg nlink 2 size 8192 e5c7359b84d60dd38910aa39823a6566
	/A/l lnk nlink 1 size 4 $("$sim" crashstates -c "symlink ../f /l" -c sync -c crash | sed -n "s|^        /l lnk ino [0-9]* nlink 1 size 4 \([0-9a-f]*\) -> ../f\$|\1|p") -> ../f
	/f reg nlink 2 size 8192 e5c7359b84d60dd38910aa39823a6566
	EOF'
cp "$out" "$tmp/tree.nslist"
# a namespace scenario exports as an fstests test: the shell's mkdir, ln, ln -s, mv -T,
# rm, src/renameat2 for renameat2's flags and for two names of one inode, xfs_io for
# fsync PATH; the golden output has the failures and the trees (MD5s the model's bytes)
mkdir -p "$tmp/fn"
run "$sim" export --format fstests --test-number 042 -o "$tmp/fn" tests/data/fstests/ns-links.yaml
check export-fstests-ns '[ "$rc" = 0 ] && bash -n "$tmp/fn/042" && golden fstests-ns-links "$tmp/fn/042" &&
	golden fstests-ns-links-out "$tmp/fn/042.out" &&
	grep -qx "ns \$here/src/renameat2 -n \$SCRATCH_MNT/g \$SCRATCH_MNT/f" "$tmp/fn/042" &&
	grep -qx "ns \$here/src/renameat2 \$SCRATCH_MNT/g \$SCRATCH_MNT/A/x" "$tmp/fn/042" &&
	grep -qx "ns mv -T \$SCRATCH_MNT/A/l \$SCRATCH_MNT/A/m" "$tmp/fn/042" &&
	grep -qx "_require_renameat2 exchange" "$tmp/fn/042" &&
	grep -qx "renameat2 -n SCRATCH_MNT/g SCRATCH_MNT/f failed" "$tmp/fn/042.out" &&
	grep -qx "/A/x reg nlink 2 size 5000 md5 $(printf "\\021%.0s" $(seq 5000) | md5sum | cut -d" " -f1)" "$tmp/fn/042.out"'
# several states at a crash point: the test checks the tree is one of them
run "$sim" export --format fstests tests/data/fstests/ns-states.yaml
check export-fstests-ns-states 'golden fstests-ns-states "$out" &&
	grep -qx "post-crash 1: one of the model.s 2 states" "$out"'
# the test's lister reads the tree made above: its runs form is the model's lines with
# each inode as its rank (the states' form), its md5 form the golden output's
eval "$(sed -n "/^ns_tree()\$/,/^}\$/p" "$tmp/fn/042")"
PERL_PROG=perl SCRATCH_MNT=$tmp/tree ns_tree runs > "$tmp/tree.runs"
PERL_PROG=perl SCRATCH_MNT=$tmp/tree ns_tree md5 > "$tmp/tree.md5"
check export-fstests-ns-lister 'awk "{ if (!(\$4 in m)) m[\$4] = ++n; \$3 = \"#\" m[\$4]; \$4 = \"\"; print }" "$tmp/tree.nslist" |
	sed "s/  / /" | diff - "$tmp/tree.runs" && diff - "$tmp/tree.md5" <<-EOF
	/ dir nlink 3 size $(stat -c %s "$tmp/tree")
	/A dir nlink 2 size $(stat -c %s "$tmp/tree/A")
	/A/g reg nlink 2 size 8192 md5 $(md5sum < "$tmp/tree/f" | cut -d" " -f1)
	/A/l lnk nlink 1 size 4 -> ../f
	/f reg nlink 2 size 8192 md5 $(md5sum < "$tmp/tree/f" | cut -d" " -f1) link of /A/g
	EOF'
# extended attributes: setfattr with the value in hex (none for the empty value), -x, and
# the lister's getfattr (_require_attrs); the xfs_io script still refuses them
run "$sim" export --format fstests -c "setxattr /f user.a b-c" -c "setxattr /f user.e" -c "removexattr /f user.a" -c sync -c crash
check export-fstests-xattr '[ "$rc" = 0 ] && grep -qx "ns \$SETFATTR_PROG -n user.a -v 0x622d63 \$SCRATCH_MNT/f" "$out" &&
	grep -qx "ns \$SETFATTR_PROG -n user.e \$SCRATCH_MNT/f" "$out" && grep -qx "ns \$SETFATTR_PROG -x user.a \$SCRATCH_MNT/f" "$out" &&
	grep -qx "_require_attrs" "$out" && grep -qx "export NS_GETFATTR=\$GETFATTR_PROG" "$out" &&
	grep -q "^/f reg nlink 1 size 0 md5 d41d8cd98f00b204e9800998ecf8427e xattrs 1 [0-9a-f]*\$" "$out"'
mkdir -p "$tmp/xa" && : > "$tmp/xa/f"
if command -v setfattr > /dev/null && setfattr -n user.e "$tmp/xa/f" 2> /dev/null; then
	PERL_PROG=perl SCRATCH_MNT=$tmp/xa NS_GETFATTR=getfattr ns_tree runs > "$tmp/xa.runs"
	check export-fstests-xattr-lister 'grep -q "^/f reg #2 nlink 1 size 0 [0-9a-f]* $(sed -n "s|^/f reg nlink 1 size 0 md5 [0-9a-f]* \(xattrs.*\)|\1|p" "$out")\$" "$tmp/xa.runs"'
fi
expect_exit2 export-xfs_io-xattr "$sim" export --format xfs_io -c "setxattr /f user.a b"
check export-xfs_io-xattr-message 'grep -qx "ext4sim: export: step .setxattr /f user.a b.: setxattr: export writes extended attributes in the fstests test only (--format fstests: setfattr, getfattr); the script.s tree lister reads no attribute" "$err"'
run "$sim" export --format yaml -c "pwrite 0 1" -c "rename -x a b"
check export-namespace-yaml '[ "$rc" = 0 ] && [ "$(sed -n "s/^  - //p" "$out" | tail -2 | tr "\n" ";")" = "close;rename -x /a /b;" ]'
# what the script cannot run as the model does is refused: an open that fails in the
# model, a data step on the current file after its name was taken
expect_exit2 export-namespace-open-fails "$sim" export -c "open /nothing" -c "pwrite 0 1"
check export-namespace-open-fails-message 'grep -q "^ext4sim: export: step .open /nothing.: open (step 1) fails (No such file or directory) in the model" "$err"'
expect_exit2 export-namespace-moved "$sim" export -c "open -f /a" -c "rename /a /b" -c "pwrite 0 1"
check export-namespace-moved-message 'grep -q "^ext4sim: export: step .pwrite 0 1.: pwrite (step 4) works on the current file, whose name /a step 3 took" "$err"'
# nor imported: an xfs_io script's path is the machine's, not one from the model's root
expect_exit2 import-namespace "$sim" import --from xfs_io tests/data/import/namespace-step.xfs_io
check import-namespace-message 'grep -q "^tests/data/import/namespace-step.xfs_io:2:1: open: a namespace step names a path of the machine it ran on" "$err"'
expect_exit2 export-crash-keep "$sim" export scenarios/crash/keep-none-no-residue.yaml
expect_exit2 export-mwrite-past-eof "$sim" export scenarios/fallocate/mwrite-sigbus.yaml
expect_exit2 export-inline-checkpoint "$sim" export -c "pwrite 0 10" -c checkpoint
expect_exit2 export-format-nonsense "$sim" export --format nonsense scenarios/crash/two-crashes.yaml
expect_exit2 export-o-missing-dir "$sim" export -o "$tmp/nodir" scenarios/crash/two-crashes.yaml

# export --format yaml: the scenario as run loads, and exporting it again changes no step
run "$sim" export --format yaml scenarios/crash/auto-da-alloc-close.yaml
cp "$out" "$tmp/asrun.yaml"
run "$sim" export --format yaml "$tmp/asrun.yaml"
cp "$out" "$tmp/asrun2.yaml"
run "$sim" run --quiet "$tmp/asrun.yaml"
check export-yaml '[ "$rc" = 0 ] && golden yaml-auto-da-alloc-close "$tmp/asrun.yaml" &&
	diff <(sed -n "/^steps:/,\$p" "$tmp/asrun.yaml") <(sed -n "/^steps:/,\$p" "$tmp/asrun2.yaml") > /dev/null'

# import: each fsx log or xfs_io list with a NAME.yaml (tests/data/import/) gives that
# YAML, which loads
for y in tests/data/import/*.yaml; do
	f=$(basename "$y" .yaml)
	args=()
	[ $f = small.xfs_io ] && args=(--block-size 1024 --data journal)
	run "$sim" import "${args[@]}" "tests/data/import/$f"
	cp "$out" "$tmp/imp.yaml"
	imp_rc=$rc imp_cmd=$cmdline
	run "$sim" run --quiet "$tmp/imp.yaml"
	cmdline=$imp_cmd
	check "import $f" '[ "$imp_rc" = 0 ] && [ "$rc" = 0 ] && cmp -s "$tmp/imp.yaml" "tests/data/import/$f.yaml" ||
		{ diff "tests/data/import/$f.yaml" "$tmp/imp.yaml" | head -5 | sed "s/^/  /"; false; }'
done
# import --from ace: each ACE j-lang workload of tests/data/ace/ (README there) with a
# NAME.jlang.yaml gives that YAML, which loads and passes on the default kernel; the one of
# seq-1 that zeroes a range of a written file violates ns_file_fsync on 4.4 (fixed by
# 011278485ecc in 4.5); a dwrite reopens its file O_DIRECT|O_SYNC; mknod is refused at its line
for y in tests/data/ace/*.jlang.yaml; do
	f=$(basename "$y" .yaml)
	run "$sim" import --from ace "tests/data/ace/$f"
	cp "$out" "$tmp/imp.yaml"
	imp_rc=$rc imp_cmd=$cmdline
	run "$sim" run --quiet "$tmp/imp.yaml"
	cmdline=$imp_cmd
	check "import-ace $f" '[ "$imp_rc" = 0 ] && [ "$rc" = 0 ] && cmp -s "$tmp/imp.yaml" "$y" ||
		{ diff "$y" "$tmp/imp.yaml" | head -5 | sed "s/^/  /"; false; }'
done
run "$sim" run --quiet --kernel 4.4 tests/data/ace/b3-seq1-26.jlang.yaml
check import-ace-4.4-zero-range '[ "$rc" = 1 ] && grep -q "violated \[ns_file_fsync\]" "$out"'
run "$sim" run --quiet --kernel 4.4 --patch disksize_before_punch=on tests/data/ace/b3-seq1-26.jlang.yaml
check import-ace-4.4-zero-range-fixed '[ "$rc" = 0 ]'
check import-ace-dwrite 'grep -q "^  - open -d -s /foo$" tests/data/ace/b3-seq1-167.jlang.yaml'
expect_exit2 import-ace-mknod "$sim" import --from ace tests/data/ace/b3-seq1-13.jlang
check import-ace-mknod-message '[ "$(cat "$err")" = "tests/data/ace/b3-seq1-13.jlang:22:1: mknod makes a device node, which the model does not have" ]'
expect_exit2 import-ace-bad-from "$sim" import --from acee tests/data/ace/b3-seq1-13.jlang
# real fsx logs (tests/data/fsx-real/, NAME.expect says how each was taken on a real ext4):
# imported, replayed, then fsync and evict as the real run's fsync and drop_caches; the
# final size, which bytes read as zeros, and the data and holes SEEK_DATA/SEEK_HOLE sees
# (the written extents once the page cache is gone) must be what the real file held
fsx_real_state() {  # JSON of a run on stdin, the dumped file $1: "size S", "zero-mask M", "seek ..."
	local size bs
	size=$(stat -c %s "$1")
	bs=$(grep -o '"block_size": [0-9]*' "$2" | head -1 | awk '{ print $2 }')
	echo "size $size"
	echo "zero-mask $(tr '\001-\377' '\001' < "$1" | sha256sum | cut -c1-64)"
	grep -o '"extents": \[[^]]*\]' "$2" | tail -1 | grep -o '{[^}]*}' | sed 's/[^0-9a-z ]//g' |
		awk -v bs="$bs" -v size="$size" '
		$6 == "written" { s = $2 * bs; e = ($2 + $4) * bs; if (s >= size) next
			if (e > size) e = size
			if (n && s == last) { last = e; next }
			out = out (n ? sprintf(",HOLE %d,", last) : (s > 0 ? "HOLE 0," : "")) "DATA " s
			last = e; n++ }
		END { print "seek " (n ? out ",HOLE " last : (size ? "HOLE 0" : "")) }'
}
for e in tests/data/fsx-real/*.expect; do
	n=$(basename "$e" .expect)
	read -ra args <<< "$(sed -n 's/^import-flags *//p' "$e")"
	run "$sim" import "${args[@]}" "tests/data/fsx-real/$n.fsxops"
	imp_rc=$rc imp_cmd=$cmdline
	{ cat "$out"; printf '  - fsync\n  - evict\n'; } > "$tmp/fsx.yaml"
	rm -f "$tmp/fsx.bin"
	run "$sim" run --json --dump-file "$tmp/fsx.bin" "$tmp/fsx.yaml"
	cmdline="$imp_cmd > FILE.yaml; append fsync and evict; ${cmdline/$tmp\/fsx.yaml/FILE.yaml}"
	check "fsx-real $n" '[ "$imp_rc" = 0 ] && [ "$rc" = 0 ] && [ -f "$tmp/fsx.bin" ] &&
		fsx_real_state "$tmp/fsx.bin" "$out" > "$tmp/fsx.got" &&
		diff <(grep -E "^(size|zero-mask|seek) " "$e") "$tmp/fsx.got" > "$tmp/fsx.diff" ||
		{ sed "s/^/  /" "$tmp/fsx.diff"; false; }'
done
# fsx -Z's log (--dio): every write a direct write, every read a direct read
run "$sim" import --dio tests/data/fsx-real/ext4-4k-dio-seed1.fsxops
check fsx-real-dio-steps '[ "$rc" = 0 ] &&
	[ "$(grep -c "^  - pwrite -d -S" "$out")" = "$(grep -c "^write " tests/data/fsx-real/ext4-4k-dio-seed1.fsxops)" ] &&
	[ "$(grep -c "^  - dio_read " "$out")" = "$(grep -c "^read " tests/data/fsx-real/ext4-4k-dio-seed1.fsxops)" ] &&
	! grep -q "^  - pread " "$out"'
expect_exit2 import-dio-copy "$sim" import --dio tests/data/import/dio-copy.fsxops
check import-dio-copy-message '[ "$(cat "$err")" = "tests/data/import/dio-copy.fsxops:2:1: copy_range through an O_DIRECT file (--dio): the kernel'"'"'s splice writes it direct, the model'"'"'s copy_range is a buffered write; run fsx with -E" ]'
expect_exit2 import-dio-not-fsx "$sim" import --dio tests/data/import/direct.xfs_io
expect_exit2 import-dio-from-xfs_io "$sim" import --dio --from xfs_io tests/data/import/direct.xfs_io
expect_exit2 import-bad-size "$sim" import tests/data/import/bad-size.fsxops
check import-bad-size-message 'golden import-bad-size "$err"'
run "$sim" import --pollute-eof tests/data/import/fsx-default.fsxops
check import-pollute-eof '[ "$rc" = 0 ] && golden import-pollute-eof "$out"'
expect_exit2 import-bad-number "$sim" import tests/data/import/bad-number.fsxops
check import-bad-number-message 'golden import-bad-number "$err"'
expect_exit2 import-clone-range "$sim" import tests/data/import/clone.fsxops
check import-clone-range-message 'golden import-clone-range "$err"'
expect_exit2 import-bad-step "$sim" import tests/data/import/bad-step.xfs_io
check import-bad-step-message 'golden import-bad-step "$err"'
# xfs_io -d lines: a pwrite -d inside one is xfs_io's (its -i input's O_DIRECT) and a
# mapping through the O_DIRECT file is not taken, each at its command's column
expect_exit2 import-direct-pwrite-d "$sim" import tests/data/import/direct-pwrite-d.xfs_io
check import-direct-pwrite-d-message 'golden import-direct-pwrite-d "$err"'
expect_exit2 import-direct-mwrite "$sim" import tests/data/import/direct-mwrite.xfs_io
check import-direct-mwrite-message 'golden import-direct-mwrite "$err"'
# round trip: the processes of an exported script (io [FLAGS] -c ..., the open's flags
# of a use line) imported as xfs_io command lines give the as-run scenario's steps of
# those processes (direct writes, dio_read, open -d -s), step for step
ndr=0 ndr_bad=0
for y in scenarios/dio/extend-dsync.yaml scenarios/dio/hole-inside-isize.yaml \
	scenarios/dio/misaligned.yaml scenarios/dio/mixed-page-cache.yaml \
	scenarios/bugs/2018-dio-disksize-inside-isize.yaml scenarios/bugs/2023-dio-osync-size.yaml; do
	"$sim" export --format xfs_io "$y" 2> /dev/null | sed -e ':a' -e '/\\$/{N;s/ \\\n\t/ /;ba}' |
		awk '/^use / { fl = ""; for (i = 3; i <= NF; i++) fl = fl " " $i; next }
		     /^io / { sub(/^io/, "xfs_io" fl); print $0 " f"; fl = "" }' > "$tmp/procs.xfs_io"
	"$sim" import --from xfs_io "$tmp/procs.xfs_io" | sed -n 's/^  - //p' > "$tmp/dr.got"
	"$sim" export --format yaml "$y" 2> /dev/null | sed -n 's/^  - //p' |
		grep -Ev '^(crash|shutdown|commit|remount|evict)' |
		sed -e 's/^pread -v /pread /' -e 's/^dio_read -v /dio_read /' > "$tmp/dr.want"
	ndr=$((ndr + 1))
	[ -s "$tmp/dr.want" ] && cmp -s "$tmp/dr.want" "$tmp/dr.got" ||
		{ echo "  $y"; diff "$tmp/dr.want" "$tmp/dr.got" | head -4; ndr_bad=$((ndr_bad + 1)); }
done > "$tmp/dr.log"
cmdline="for each: $sim export --format xfs_io FILE; its io lines as xfs_io lines; $sim import --from xfs_io"
check import-direct-roundtrip '[ "$ndr_bad" = 0 ] && [ "$ndr" = 6 ] || { cat "$tmp/dr.log"; false; }'
# and through an exported fstests test (io -d -c ..., file= then io -d -s): the as-run
# steps, pread -v as pread and a shutdown as the crash it is exported as
nfr=0 nfr_bad=0
mkdir -p "$tmp/fr"
for y in scenarios/dio/extend-dsync.yaml scenarios/dio/hole-inside-isize.yaml \
	scenarios/dio/misaligned.yaml scenarios/dio/mixed-page-cache.yaml \
	scenarios/bugs/2018-dio-disksize-inside-isize.yaml scenarios/bugs/2023-dio-osync-size.yaml; do
	"$sim" export --format fstests --test-number 001 -o "$tmp/fr" "$y" 2> /dev/null || continue
	"$sim" export --format yaml "$y" 2> /dev/null | sed -n 's/^  - //p' |
		sed -e 's/^\(pread\|dio_read\) -v /\1 /' -e 's/^shutdown$/crash/' > "$tmp/fr.want"
	"$sim" import --from fstests "$tmp/fr/001" | sed -n 's/^  - //p' > "$tmp/fr.got"
	nfr=$((nfr + 1))
	cmp -s "$tmp/fr.want" "$tmp/fr.got" ||
		{ echo "  $y"; diff "$tmp/fr.want" "$tmp/fr.got" | head -4; nfr_bad=$((nfr_bad + 1)); }
done > "$tmp/fr.log"
cmdline="for each: $sim export --format fstests FILE; $sim import --from fstests TEST"
check import-fstests-direct-roundtrip '[ "$nfr_bad" = 0 ] && [ "$nfr" = 6 ] || { cat "$tmp/fr.log"; false; }'
# import --from fstests: a namespace scenario exported as an fstests test and imported
# again gives the scenario as run, step for step (every namespace step, renameat2's
# flags, two names of one inode, fsync PATH, creat, evict, chattr, dio_read, remount,
# shutdown -f); so do the namespace scenarios export takes, and a gen --namespace
# campaign but for the closes of no process (a close after a process's end writes
# nothing in the test)
mkdir -p "$tmp/rt"
nrt=0 nrt_bad=0
run "$sim" gen --namespace --seed 7 --count 12 --out "$tmp/rt"
for y in tests/data/fstests/ns-roundtrip.yaml scenarios/namespace/*.yaml "$tmp"/rt/*.yaml; do
	"$sim" export --format fstests --test-number 001 -o "$tmp/rt" "$y" 2> /dev/null || continue
	"$sim" export --format yaml "$y" | sed -n '/^steps:/,/^[a-z]/p' > "$tmp/rt.want"
	"$sim" import --from fstests "$tmp/rt/001" | sed -n '/^steps:/,/^[a-z]/p' > "$tmp/rt.got"
	case $y in "$tmp"/*) sed -i '/^  - close$/d' "$tmp/rt.want" "$tmp/rt.got" ;; esac
	nrt=$((nrt + 1))
	cmp -s "$tmp/rt.want" "$tmp/rt.got" || { echo "  $y"; diff "$tmp/rt.want" "$tmp/rt.got" | head -4; nrt_bad=$((nrt_bad + 1)); }
done > "$tmp/rt.log"
cmdline="for each: $sim export --format fstests FILE; $sim import --from fstests TEST"
check import-fstests-roundtrip '[ "$nrt_bad" = 0 ] && [ "$nrt" -ge 14 ] || { cat "$tmp/rt.log"; echo "  $nrt_bad of $nrt"; false; }'
# real fstests crash tests of several files (dm-flakey, mkdir, mv, ln, touch, fsync)
for t in 341 376 498; do
	run "$sim" import --from fstests "tests/data/fstests/generic-$t"
	check "import-fstests-generic-$t" '[ "$rc" = 0 ] && golden "import-fstests-generic-$t" "$out"'
done
# what is outside the subset is refused at its line and column
for t in echo glob command shutdown; do
	expect_exit2 "import-fstests-refuse-$t" "$sim" import --from fstests "tests/data/fstests/refuse-$t"
	check "import-fstests-refuse-$t-message" 'golden "import-fstests-refuse-$t" "$err"'
done
# a backslash as the input's last byte escapes nothing: the reader once looped there
# (before the scratch mount, where commands are only read)
printf 'echo hi\nmkdir A \\' > "$tmp/trailing-backslash"
expect_exit2 import-fstests-trailing-backslash timeout 20 "$sim" import --from fstests "$tmp/trailing-backslash"
check import-fstests-trailing-backslash-message 'grep -q ":2:10: no _scratch_mount" "$err"'
# a missing file and a directory: the loader's one line, FILE:1:1 (exit 2)
expect_exit2 import-missing-file "$sim" import "$tmp/nonexistent"
check import-missing-file-message '[ "$(cat "$err")" = "$tmp/nonexistent:1:1: cannot open: No such file or directory" ]'
expect_exit2 import-directory "$sim" import tests/data/import
check import-directory-message '[ "$(cat "$err")" = "tests/data/import:1:1: cannot read: Is a directory" ]'
# refused inputs whose first line is "# expect: LINE:COL: message" (the start of it)
for f in tests/data/import/*; do
	want=$(sed -n '1s/^# expect: //p' "$f")
	[ -n "$want" ] || continue
	expect_exit2 "import-refused $(basename "$f")" "$sim" import "$f"
	check "import-refused-message $(basename "$f")" '[[ "$(cat "$err")" == "$f:$want"* ]] ||
		{ echo "  want $f:$want"; false; }'
done

# gen: the same seed gives the same bytes, another seed others; every scenario loads,
# runs, exports, and comes back step for step through import of its step list
run "$sim" gen --seed 7 --count 40
cp "$out" "$tmp/g1"
run "$sim" gen --seed 7 --count 40
cp "$out" "$tmp/g2"
run "$sim" gen --seed 8 --count 40
check gen-deterministic '[ -s "$tmp/g1" ] && cmp -s "$tmp/g1" "$tmp/g2" && ! cmp -s "$tmp/g1" "$out"'
mkdir -p "$tmp/gd"
run "$sim" gen --seed 7 --count 40 --out "$tmp/gd"
cat "$tmp"/gd/*.yaml | awk 'NR > 1 && /^name: / { print "---" } { print }' > "$tmp/g4"
check gen-out-equals-stdout 'cmp -s "$tmp/g1" "$tmp/g4" && [ "$(ls "$tmp/gd" | wc -l)" = 40 ]'
run "$sim" run --summary "$tmp/gd"
check gen-scenarios-run '[ "$rc" -le 1 ] && [ "$(grep -c " default " "$out")" = 40 ]'
nexp=0 nrt=0
for f in "$tmp"/gd/*.yaml; do
	"$sim" export --format xfs_io "$f" > /dev/null 2>&1 && nexp=$((nexp + 1))
	sed -n 's/^  - //p' "$f" > "$tmp/list"
	"$sim" import --from xfs_io "$tmp/list" > "$tmp/rt.yaml" 2> /dev/null &&
		cmp -s <(sed -n 's/^  - //p' "$tmp/rt.yaml") "$tmp/list" && nrt=$((nrt + 1))
done
cmdline="for each generated scenario: $sim export --format xfs_io FILE; $sim import --from xfs_io STEPS"
check gen-export-and-round-trip '[ $nexp = 40 ] && [ $nrt = 40 ] ||
	{ echo "  $nexp of 40 export, $nrt of 40 round-trip through import"; false; }'
# gen --dio: the same seed, the same bytes, not the buffered campaign's; direct writes,
# RWF_DSYNC ones and O_SYNC opens among the steps; every scenario exports as a script that
# opens the file O_DIRECT for its direct writes, and comes back through import
run "$sim" gen --dio --seed 5 --count 30
cp "$out" "$tmp/gdio1"
run "$sim" gen --dio --seed 5 --count 30
check gen-dio-deterministic '[ -s "$tmp/gdio1" ] && cmp -s "$tmp/gdio1" "$out" &&
	! cmp -s "$out" <("$sim" gen --seed 5 --count 30) && grep -q "^name: gen-dio-5-0029$" "$out" &&
	grep -q "^  - pwrite -d -S" "$out" && grep -q "^  - pwrite -d -V 1 -D -S" "$out" &&
	grep -q "^  - open -d -s /f$" "$out" && grep -q "^  - open -s /f$" "$out"'
mkdir -p "$tmp/gdio"
run "$sim" gen --dio --seed 5 --count 30 --out "$tmp/gdio"
ndx=0 ndd=0 ndr=0 ndo=0
for f in "$tmp"/gdio/*.yaml; do
	"$sim" export --format xfs_io "$f" > "$tmp/gdio.sh" 2> /dev/null && ndx=$((ndx + 1))
	grep -q "^io -d " "$tmp/gdio.sh" && ndd=$((ndd + 1))
	# an open step is a namespace step, which a list of one file's steps does not take
	grep -q "^  - open " "$f" && { ndo=$((ndo + 1)); continue; }
	sed -n 's/^  - //p' "$f" > "$tmp/list"
	"$sim" import --from xfs_io "$tmp/list" > "$tmp/rt.yaml" 2> /dev/null &&
		cmp -s <(sed -n 's/^  - //p' "$tmp/rt.yaml") "$tmp/list" && ndr=$((ndr + 1))
done
cmdline="for each: $sim gen --dio --seed 5 --count 30; $sim export --format xfs_io FILE; $sim import --from xfs_io STEPS"
check gen-dio-export-and-round-trip '[ $ndx = 30 ] && [ $ndd -ge 20 ] && [ $ndr -ge 20 ] &&
	[ $((ndr + ndo)) = 30 ] ||
	{ echo "  $ndx of 30 export, $ndd with an xfs_io -d process, $ndr of $((30 - ndo)) round-trip"; false; }'
expect_exit2 gen-dio-namespace "$sim" gen --dio --namespace --seed 1 --count 1
# gen --namespace: the same seed, the same bytes; each scenario works on names over /A and
# /B (its namespace steps), crashes, and exports as a namespace script (seed 4's first
# ten do; some others abort the model: docs/real-kernel.md, "Namespace scenarios")
run "$sim" gen --namespace --seed 4 --count 10
cp "$out" "$tmp/gn1"
run "$sim" gen --namespace --seed 4 --count 10
check gen-namespace-deterministic '[ -s "$tmp/gn1" ] && cmp -s "$tmp/gn1" "$out" &&
	! cmp -s "$out" <("$sim" gen --seed 4 --count 10) && grep -q "^name: gen-ns-4-0009$" "$out"'
mkdir -p "$tmp/gnd" "$tmp/gnx"
run "$sim" gen --namespace --seed 4 --count 10 --out "$tmp/gnd"
nexp=0 nns=0
for f in "$tmp"/gnd/gen-ns-4-*.yaml; do
	grep -q "^  - mkdir /A$" "$f" && grep -q "^  - crash$" "$f" && nns=$((nns + 1))
	"$sim" export --format xfs_io -o "$tmp/gnx" "$f" > /dev/null 2>&1 &&
		grep -q "^# model: ns " "$tmp/gnx/$(basename "$f" .yaml).sh" && nexp=$((nexp + 1))
done
cmdline="for each of $sim gen --namespace --seed 4 --count 10 --out DIR: $sim export --format xfs_io DIR/FILE"
check gen-namespace-exports '[ $nns = 10 ] && [ $nexp = 10 ] || { echo "  $nns of 10 with mkdir and crash, $nexp of 10 export"; false; }'
expect_exit2 gen-without-count "$sim" gen --seed 1
expect_exit2 gen-bad-seed "$sim" gen --seed x --count 1

# kernel-check says why it skips without root (run as an unprivileged user where we are root)
if [ "$(id -u)" != 0 ]; then
	run scripts/kernel-check -b "$build"
elif command -v setpriv > /dev/null && setpriv --reuid 65534 --regid 65534 \
	--clear-groups test -x "$sim" 2> /dev/null; then
	run setpriv --reuid 65534 --regid 65534 --clear-groups scripts/kernel-check -b "$build"
else
	rc=0
	printf 'kernel-check: skipped: (not tried)\n0 passed, 0 failed\n' > "$out"
fi
cat "$err" >> "$out"
check kernel-check-skips-without-root '[ "$rc" = 0 ] && grep -q "^kernel-check: skipped: " "$out" &&
	[ "$(tail -1 "$out")" = "0 passed, 0 failed" ]'
# and so does the power-cut campaign
if [ "$(id -u)" != 0 ]; then
	run scripts/kernel-powercut -b "$build"
elif command -v setpriv > /dev/null && setpriv --reuid 65534 --regid 65534 \
	--clear-groups test -x "$sim" 2> /dev/null; then
	run setpriv --reuid 65534 --regid 65534 --clear-groups scripts/kernel-powercut -b "$build"
else
	rc=0
	printf 'kernel-powercut: skipped: (not tried)\n0 passed, 0 failed\n' > "$out"
fi
cat "$err" >> "$out"
check kernel-powercut-skips-without-root '[ "$rc" = 0 ] &&
	grep -q "^kernel-powercut: skipped: needs root" "$out" && [ "$(tail -1 "$out")" = "0 passed, 0 failed" ]'
# kernel-vm knows Debian 11's 5.10 series: without root its set-up gets past the series
# (and stops at root); an unknown series is refused, naming the known ones
unpriv=()
[ "$(id -u)" = 0 ] && command -v setpriv > /dev/null &&
	unpriv=(setpriv --reuid 65534 --regid 65534 --clear-groups)
if [ "$(id -u)" != 0 ] || [ ${#unpriv[@]} -gt 0 ]; then
	run "${unpriv[@]}" scripts/kernel-vm setup --series 5.10 "$tmp/vm510"
	check kernel-vm-series-5.10 '[ "$rc" = 2 ] && grep -qx "kernel-vm: setup needs root (apt-get)" "$err"'
	run "${unpriv[@]}" scripts/kernel-vm setup --series 5.9 "$tmp/vm59"
	check kernel-vm-unknown-series '[ "$rc" = 2 ] &&
		grep -qx "kernel-vm: setup: --series is 5.10, 6.1, 6.12, 6.16, 6.17 or 7.2" "$err"'
fi

# export warns (stderr, exit 0, the same test on stdout) when the test cannot tell its two
# sides apart: the same bytes at every read-back point under the other variant's toggles;
# and says whether a power cut would (the crash states differ) or not
printf '%s\n' 'name: same-output' 'steps:' '  - pwrite -S 0xaa 0 4096' '  - fsync' \
	'  - pwrite -S 0xbb 0 100' '  - crash' 'variants:' '  - {name: off, patches: {da_write_no_handle: off}}' \
	'  - {name: on}' > "$tmp/same-output.yaml"
run "$sim" export --format fstests "$tmp/same-output.yaml"
cp "$out" "$tmp/same-output.out"
check export-warns-same-output '[ "$rc" = 0 ] && [ "$(wc -l < "$err")" = 1 ] &&
	grep -q "^ext4sim: export: warning: variant off.s toggles (da_write_no_handle off) give the same output as the exported variant on.s at every read-back point: the test cannot tell them apart .*nor would a power cut: the crash states the model lists are the same too" "$err" &&
	grep -q "^# Model: kernel profile 6.18, variant on;" "$out"'
run "$sim" export --format fstests --variant on "$tmp/same-output.yaml"
check export-warning-changes-no-output '[ "$rc" = 0 ] && cmp -s "$out" "$tmp/same-output.out" &&
	grep -q "warning: variant off.s toggles" "$err"'
run "$sim" export --format fstests scenarios/bugs/2024-eof-pollution-extend.yaml
check export-no-warning-when-apart '[ "$rc" = 0 ] && [ ! -s "$err" ]'

# a bug scenario exports its fixed side by default, with the fix's commits, and the
# requirements that skip it (not fail it) where they are not met
run "$sim" export --format fstests scenarios/bugs/2024-eof-pollution-extend.yaml
check fstests-fixed-side '[ "$rc" = 0 ] && grep -q "^# Model: kernel profile 6.13, variant after-6.13;" "$out" &&
	[ "$(grep -c "^_fixed_by_kernel_commit c7fc0366c656" "$out")" = 1 ] &&
	grep -q "^_require_metadata_journaling" "$out" && grep -q "_notrun \"block size" "$out" &&
	grep -q "^_exit 0" "$out"'
run "$sim" export --format fstests --variant before-6.12 scenarios/bugs/2024-eof-pollution-extend.yaml
check fstests-variant-flag '[ "$rc" = 0 ] && grep -q "variant before-6.12;" "$out" &&
	! grep -q _fixed_by_kernel_commit "$out"'
run "$sim" export --format fstests -c "falloc -k 0 4096" -c "copy_range -s 0 -d 8192 -l 10" -c crash
check fstests-flag-requires '[ "$rc" = 0 ] && grep -q "_require_xfs_io_command \"falloc\" \"-k\"" "$out" &&
	grep -q "_require_xfs_io_command \"copy_range\"" "$out"'
