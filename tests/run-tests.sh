#!/usr/bin/env bash
# run-tests.sh - everything `make check` runs; ends with "N passed, N failed".
#
#   1. the cmocka unit tests (build/tests/test_*), one count per test case;
#   2. every scenario in scenarios/, one count per variant (its expect:);
#   3. command-line behaviour: bad input exits 2 and prints nothing on stdout;
#   4. determinism: the whole scenario suite twice, byte-identical JSON;
#   5. the real-kernel comparison against recorded ground truth
#      (tests/kernel/compare.sh; cases.txt, cases-random.txt, cases-falloc.txt),
#      one count per record, and the check that every recorded post-crash state
#      is one ext4sim's crashstates lists for that crash
#      (tests/kernel/crash-membership.sh), one count per postN record;
#   6. crash states judged by parts against judged whole (tests/crash-reference.sh),
#      one count per scenario or random case and configuration;
#   8. the real-kernel oracle (docs/real-kernel.md): export (xfs_io scripts and fstests
#      tests, refusals), import (fsx logs, xfs_io lists, bad input), gen (determinism,
#      every scenario loads, runs and exports), the recorded kernel-check campaigns
#      (tests/kernel/kernel-check-*.txt: this machine's kernel and Debian's 6.1 and
#      6.12 under qemu) replayed against the model (tests/kernel/kernel-check-replay.sh,
#      one count per scenario), and kernel-check skipping without root.
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
build=${BUILD:-build}
sim=$build/ext4sim
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 1. unit tests
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	"$t" > "$tmp/unit.out" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$tmp/unit.out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$tmp/unit.out" | tail -1)
	if [ -z "$p" ] && [ -z "$f" ]; then
		bad "$t exited $rc without a cmocka summary"
		tail -20 "$tmp/unit.out"
		continue
	fi
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	if [ "${f:-0}" != 0 ] || [ $rc != 0 ]; then
		grep -E '^\[  (FAILED|ERROR) |^\[   LINE   \]' "$tmp/unit.out" | head -20
		[ "${f:-0}" = 0 ] && bad "$t exited $rc"
	fi
done
echo "unit tests done: $pass passed, $fail failed so far"

# 2. scenarios: one count per variant, from the summary lines
"$sim" run --summary scenarios > "$tmp/scen.out" 2> "$tmp/scen.err"
rc=$?
[ $rc -le 1 ] || bad "ext4sim run scenarios exited $rc: $(head -3 "$tmp/scen.err")"
while read -r name variant verdict rest; do
	case $verdict in
	PASS) ok ;;
	FAIL) bad "scenario $name variant $variant: violated $rest (reproduce: $sim run scenarios/.../$name.yaml)" ;;
	esac
done < "$tmp/scen.out"
echo "scenarios done: $pass passed, $fail failed so far"

# 3. command-line behaviour
expect_exit2() {
	local what=$1
	shift
	"$@" > "$tmp/cli.out" 2> "$tmp/cli.err"
	local rc=$?
	if [ $rc = 2 ] && [ ! -s "$tmp/cli.out" ] && [ -s "$tmp/cli.err" ]; then ok; else
		bad "$what: exit $rc, stdout $(wc -c < "$tmp/cli.out") bytes"; fi
}

# tally FILE PREFIX WHAT: add a sub-test's "PREFIX: N passed, N failed" line to the counts
# (a missing line is one failure, reported with the file's last lines)
tally() {
	local n f
	n=$(sed -n "s/^$2: \([0-9]*\) passed, \([0-9]*\) failed\$/\1/p" "$1")
	f=$(sed -n "s/^$2: \([0-9]*\) passed, \([0-9]*\) failed\$/\2/p" "$1")
	if [ -z "$n" ]; then bad "$3: $(tail -2 "$1")"; else
		pass=$((pass + n)); fail=$((fail + f)); fi
}

for f in tests/data/yaml-bad/*.yaml; do
	expect_exit2 "bad scenario $f" "$sim" run "$f"
	want=$(sed -n '1s/^# expect: //p' "$f" | cut -d: -f1,2)
	sed -n 2p "$f" | grep -q '^# unit-only' && want=""
	if [ -n "$want" ] && ! grep -q "^$f:$want:" "$tmp/cli.err"; then
		bad "$f: error '$(cat "$tmp/cli.err")' is not at $want"
	fi
done
expect_exit2 "unknown command" "$sim" frobnicate
expect_exit2 "unknown flag" "$sim" run --frob scenarios
expect_exit2 "bad step" "$sim" run -c "pwrite 0"
expect_exit2 "bad block size" "$sim" run --block-size 512 -c fsync
expect_exit2 "unknown kernel" "$sim" run --kernel 2.6 -c fsync
expect_exit2 "unknown patch" "$sim" run --patch nosuch=on -c fsync
expect_exit2 "missing file" "$sim" run "$tmp/nonexistent.yaml"
expect_exit2 "unknown variant" "$sim" run --variant nosuch scenarios
"$sim" run --dump-file "$tmp/nodir/x" -c "pwrite 0 10" > /dev/null 2>&1
if [ $? = 2 ] && ! ls "$tmp/nodir" > /dev/null 2>&1; then ok; else bad "dump into a missing directory"; fi
"$sim" run --quiet --dump-file "$tmp/d" -c "pwrite -S 0x41 1m 3" > /dev/null
if [ "$(stat -c %s "$tmp/d")" = 1048579 ] && [ "$(tail -c 3 "$tmp/d")" = AAA ]; then ok; else
	bad "--dump-file content"; fi
# crashstates: the contract's JSON keys, and a hand-counted case (2 unflushed writes, 2 blocks)
"$sim" crashstates --json scenarios/crash/shutdown-completes-inflight.yaml > "$tmp/cs.json" 2>&1
if grep -q '"crash_points": \[{"point": 1, "step": 6, "where": "after_step", "raw_states": 4, "exhaustive": true' "$tmp/cs.json" &&
   [ "$(grep -o '"sha256"' "$tmp/cs.json" | wc -l)" = 2 ] &&
   grep -q '"violations": \[\], "raw_states": 2, "example": "crash --keep 1"' "$tmp/cs.json"; then ok; else
	bad "crashstates JSON for shutdown-completes-inflight: $(head -c 300 "$tmp/cs.json")"; fi
expect_exit2 "crashstates without a file" "$sim" crashstates
expect_exit2 "diff without --patch" "$sim" diff scenarios/basic/short-copy.yaml
expect_exit2 "diff with an unknown patch" "$sim" diff scenarios/basic/short-copy.yaml \
	--patch no_such_patch
expect_exit2 "run with an unknown patch" "$sim" run --patch no_such_patch=on \
	scenarios/basic/short-copy.yaml
# diff: the short-copy fix turns the F2 violation off on 5.15, and the JSON holds both runs
"$sim" diff scenarios/basic/short-copy.yaml --patch short_copy_zero --kernel 5.15 \
	> "$tmp/diff.out" 2>&1
if grep -q "verdict .*FAIL \[disksize_le_size\] .*PASS \[\] .*<- differs" "$tmp/diff.out"; then
	ok; else bad "diff short_copy_zero: $(head -c 400 "$tmp/diff.out")"; fi
"$sim" diff --json scenarios/basic/short-copy.yaml --patch short_copy_zero --kernel 5.15 \
	> "$tmp/diff.json" 2>&1
if grep -q '"patch": "short_copy_zero", "variants": \[{"variant": "default", "off": {' \
	"$tmp/diff.json" && grep -q '"verdict": "fail"' "$tmp/diff.json" &&
   grep -q '"verdict": "pass"' "$tmp/diff.json"; then ok; else
	bad "diff --json: $(head -c 300 "$tmp/diff.json")"; fi
# patches lists every toggle with its commit, and the profiles
"$sim" patches > "$tmp/patches.out" 2>&1
if [ "$(grep -c "^    commit:" "$tmp/patches.out")" = 19 ] &&
   grep -q "^  debian-6.12.117 " "$tmp/patches.out"; then ok; else
	bad "patches: $(head -c 300 "$tmp/patches.out")"; fi
expect_exit2 "--keep without --point" "$sim" crashstates --keep 1 scenarios/crash/two-crashes.yaml
expect_exit2 "--point on run" "$sim" run --point 1 scenarios/crash/two-crashes.yaml
expect_exit2 "--keep with a bad list" "$sim" crashstates --point 1 --keep 3-1 \
	scenarios/crash/two-crashes.yaml
# --point/--keep shows exactly the state an example names, every message included
"$sim" crashstates --crash-everywhere --point 3 --keep 2 scenarios/crash/foo-zero-tail.yaml \
	> "$tmp/pk.out" 2>&1
if grep -q "point 3, inside step 2 before a FUA write, committing tid 1: .* 1 evaluated" \
	"$tmp/pk.out" && grep -q "the commit of tid 1 landed" "$tmp/pk.out" &&
   [ "$(grep -c "size " "$tmp/pk.out")" = 1 ]; then ok; else
	bad "crashstates --point 3 --keep 2: $(head -c 400 "$tmp/pk.out")"; fi
# every scenario also meets its expectations with a crash judged after every step
"$sim" run --summary --crash-everywhere scenarios > "$tmp/ce.out" 2>&1
if grep -q " 0 not$" "$tmp/ce.out"; then ok; else bad "--crash-everywhere: $(tail -1 "$tmp/ce.out")"; fi
echo "command line done: $pass passed, $fail failed so far"

# 4. determinism
"$sim" run --json scenarios > "$tmp/j1" 2>/dev/null
"$sim" run --json scenarios > "$tmp/j2" 2>/dev/null
if [ -s "$tmp/j1" ] && cmp -s "$tmp/j1" "$tmp/j2"; then ok; else bad "two runs of the suite differ"; fi
"$sim" run scenarios > "$tmp/t1" 2>/dev/null
"$sim" run scenarios > "$tmp/t2" 2>/dev/null
if [ -s "$tmp/t1" ] && cmp -s "$tmp/t1" "$tmp/t2"; then ok; else bad "two traces of the suite differ"; fi
other=build-asan
[ "$build" = build-asan ] && other=build
# the other build, when it is up to date with the sources (-O2 against -O1 + sanitizers)
if [ -x "$other/ext4sim" ] && [ -z "$(find model sim checker -name '*.[ch]' -newer "$other/ext4sim" | head -1)" ]; then
	"$other/ext4sim" run --json scenarios > "$tmp/j3" 2>/dev/null
	if cmp -s "$tmp/j1" "$tmp/j3"; then ok; else bad "$build and $other builds print different JSON"; fi
fi

# 5. real-kernel comparison (recorded ground truth): the hand-written, the random and the
#    fallocate/mmap cases
for set in "" random- falloc-; do
	tests/kernel/compare.sh -b "$build" -c "tests/kernel/cases${set:+-${set%-}}.txt" \
		-t "tests/kernel/ground-truth-${set}6.18.txt" > "$tmp/k.out" 2>&1
	grep '^FAIL' -A1 "$tmp/k.out" | head -20
	tally "$tmp/k.out" "kernel comparison" "kernel comparison ${set:-hand}"
done
for set in "" random- falloc-; do
	tests/kernel/crash-membership.sh -b "$build" -c "tests/kernel/cases${set:+-${set%-}}.txt" \
		-t "tests/kernel/ground-truth-${set}6.18.txt" > "$tmp/m.out" 2>&1
	grep '^FAIL' -A3 "$tmp/m.out" | head -20
	tally "$tmp/m.out" "crash membership" "crash membership ${set:-hand}"
done

# 6. the fast crash-state evaluation against the reference
tests/crash-reference.sh -b "$build" > "$tmp/r.out" 2>&1
grep '^FAIL' "$tmp/r.out" | head -20
tally "$tmp/r.out" "crash-state reference" "crash-state reference"

# the toggles the Debian kernels under qemu told apart (docs/real-kernel.md): each variant's
# file after the crash is what the kernel of that side showed (6.1.192 before, 6.12.117 or
# 6.18 after)
tog_check() {   # tog_check SCENARIO VARIANT SIZE OFFSET HEXBYTE
	rm -f "$tmp/tog"
	"$sim" run --quiet --variant "$2" --dump-file "$tmp/tog" "scenarios/patches/$1.yaml" > /dev/null 2>&1
	local sz b
	sz=$(stat -c %s "$tmp/tog" 2> /dev/null)
	b=$(od -An -tx1 -j"$4" -N1 "$tmp/tog" 2> /dev/null | tr -d ' ')
	if [ "$sz" = "$3" ] && [ "$b" = "$5" ]; then ok; else
		bad "$1 ($2): after the crash size ${sz:-?} byte $4 ${b:-?}, the kernel showed $3 and $5"; fi
}
tog_check jdata-writeback-commit before-6.5 0 0 ""
tog_check jdata-writeback-commit after-6.6 12288 4096 d1
tog_check punch-writeback before-6.14 8192 0 43
tog_check punch-writeback after-6.18 8192 0 75
tog_check dioread-nolock-subpage before-6.8 8192 2048 22
tog_check dioread-nolock-subpage after-6.12 8192 2048 00

# docs/patches.md is what the code produces, and covers every toggle with a difference shown
scripts/patches-doc -b "$build" > "$tmp/patches.md" 2>&1
if cmp -s "$tmp/patches.md" docs/patches.md; then ok; else
	bad "docs/patches.md is stale: run scripts/patches-doc > docs/patches.md"; fi
if [ "$(grep -c '^## `' docs/patches.md)" = "$("$sim" patches | grep -c '^    commit:')" ] &&
   ! awk '/^## /{if (n && !d) bad = 1; n = 1; d = 0} /<- differs|only (on|off):/{d = 1}
	  END{exit !(bad || (n && !d))}' docs/patches.md; then ok; else
	bad "docs/patches.md: a toggle without a section or without a difference"; fi

# 7. explore, merge and minimize
ex=(--steps 3 --kernel 6.12 --block-size 1024 --kinds write,truncate,mwrite --json)
"$sim" explore "${ex[@]}" --out "$tmp/ex" > "$tmp/ex.json" 2>/dev/null
for i in 0 1; do "$sim" explore "${ex[@]}" --shard $i/2 > "$tmp/ex$i.json" 2>/dev/null; done
"$sim" merge --json "$tmp/ex0.json" "$tmp/ex1.json" > "$tmp/exm.json" 2>/dev/null
# the known mmap-pollution bug of 6.12 is found, minimized and written as a scenario that fails
if grep -q '"invariant": "gap_zero_on_extend"' "$tmp/ex.json" &&
   [ "$(ls "$tmp/ex" | wc -l)" -ge 1 ] &&
   "$sim" run --summary "$tmp"/ex/gap_zero_on_extend-*.yaml > "$tmp/exr.out" 2>&1; then ok; else
	bad "explore did not find gap_zero_on_extend on 6.12: $(head -c 300 "$tmp/ex.json")"; fi
# shards cover the space exactly once: merged counts equal the single run's
h1=$(head -1 "$tmp/ex.json" | sed 's/"shard": [0-9]*, "shards": [0-9]*, //')
h2=$(head -1 "$tmp/exm.json" | sed 's/"shard": [0-9]*, "shards": [0-9]*, //')
if [ -n "$h1" ] && [ "$h1" = "$h2" ]; then ok; else bad "explore shards: $h1 vs $h2"; fi
expect_exit2 "merge with a shard missing" "$sim" merge "$tmp/ex0.json"
expect_exit2 "merge of a non-report" "$sim" merge scenarios/basic/short-copy.yaml
expect_exit2 "explore with a bad shard" "$sim" explore --shard 2/2
expect_exit2 "explore with an unknown kind" "$sim" explore --kinds write,nope
# explore --grammar: the file that spells out the built-in grammar gives the same report,
# byte for byte (findings and their hashes included)
"$sim" explore "${ex[@]}" > "$tmp/exb.json" 2>/dev/null
"$sim" explore "${ex[@]}" --grammar docs/grammars/default.yaml > "$tmp/exf.json" 2>/dev/null
if [ -s "$tmp/exb.json" ] && cmp -s "$tmp/exb.json" "$tmp/exf.json" &&
   grep -q '"with_finding": [1-9]' "$tmp/exb.json"; then ok; else
	bad "explore --grammar default.yaml differs from the built-in grammar"; fi
"$sim" explore --steps 2 --block-size 2048 > "$tmp/exb.out" 2>&1
"$sim" explore --steps 2 --block-size 2048 --grammar docs/grammars/default.yaml > "$tmp/exf.out" 2>&1
if grep -q "16 grammar step(s)" "$tmp/exb.out" && cmp -s "$tmp/exb.out" "$tmp/exf.out"; then ok; else
	bad "explore --grammar default.yaml (block size 2048): $(head -c 300 "$tmp/exf.out")"; fi
# a bad grammar file: FILE:LINE:COL: message (its first line says which), exit 2, nothing on stdout
for f in tests/data/grammar-bad/*.yaml; do
	expect_exit2 "bad grammar $f" "$sim" explore --grammar "$f"
	want=$(sed -n '1s/^# expect: //p' "$f")
	if [ -z "$want" ] || ! grep -qF "$f:$want" "$tmp/cli.err" || [ "$(wc -l < "$tmp/cli.err")" != 1 ]; then
		bad "$f: error '$(cat "$tmp/cli.err")' is not '$want'"; fi
done
expect_exit2 "explore with a missing grammar file" "$sim" explore --grammar "$tmp/none.yaml"
expect_exit2 "explore --steps 9 without --seed" "$sim" explore --steps 9
expect_exit2 "explore --crash-at on short runs" "$sim" explore --crash-at crash
expect_exit2 "explore --run out of range" "$sim" explore --seed 1 --count 2 --run 2
expect_exit2 "explore --fixed-length without --seed" "$sim" explore --fixed-length
# every kind, every sequence of 1..2 steps, under several settings: no assertion fires
all=write,truncate,persist,crash,falloc,mwrite,short,chattr,close,remount,evict,collapse,insert
for cfg in "--block-size 1024" "--block-size 4096 --data journal" "--block-size 2048 --data writeback" \
	"--block-size 1024 --kernel 5.15 --nodelalloc"; do
	# shellcheck disable=SC2086
	"$sim" explore --steps 2 --kinds $all $cfg --no-minimize > "$tmp/exk.out" 2>&1
	if [ $? = 0 ] && grep -q "31 grammar step(s), sequences of 1..2: space 992" "$tmp/exk.out" &&
	   grep -q "run 988, pruned 4" "$tmp/exk.out"; then ok; else
		bad "explore over every kind ($cfg): $(head -c 300 "$tmp/exk.out")"; fi
done
# random runs: lengths drawn in 1..K, the same bytes for the same seed; --fixed-length gives K
for i in 1 2; do
	"$sim" explore --seed 9 --count 30 --steps 8 --json > "$tmp/exr$i.json" 2>/dev/null
	"$sim" explore --seed 9 --count 8 --steps 40 --kinds $all --json > "$tmp/exl$i.json" 2>/dev/null
done
"$sim" explore --seed 9 --count 8 --steps 40 --kinds $all --fixed-length --json > "$tmp/exx.json" 2>/dev/null
if [ -s "$tmp/exr1.json" ] && cmp -s "$tmp/exr1.json" "$tmp/exr2.json" &&
   cmp -s "$tmp/exl1.json" "$tmp/exl2.json" && grep -q '"run": 8, ' "$tmp/exl1.json" &&
   ! grep -q '"steps_run": 320,' "$tmp/exl1.json" && grep -q '"steps_run": 320,' "$tmp/exx.json"; then
	ok; else bad "explore random lengths: $(head -c 300 "$tmp/exl1.json")"; fi
# a long run streams: 20,000 steps, crash states judged at its crash steps
"$sim" explore --seed 1 --count 1 --steps 20000 --fixed-length > "$tmp/exlong.out" 2>&1
if [ $? = 0 ] && grep -q "long runs: 20000 step(s) run, [1-9][0-9]* crash point(s) judged" \
	"$tmp/exlong.out"; then ok; else bad "explore long run: $(head -c 300 "$tmp/exlong.out")"; fi
# a long run's finding: the printed command runs that run alone and finds it at the same step
lr=(--seed 1 --count 4 --steps 50 --kinds write,truncate,mwrite --kernel 6.12 --block-size 1024)
"$sim" explore "${lr[@]}" > "$tmp/exf1.out" 2>&1
line=$(grep "reproduce: " "$tmp/exf1.out" | head -1)
cmd=${line#*reproduce: ext4sim }
# shellcheck disable=SC2086
[ -n "$line" ] && "$sim" $cmd > "$tmp/exf2.out" 2>&1
if [ -n "$line" ] && grep -qF "$line" "$tmp/exf2.out" && grep -q "^  run 1, " "$tmp/exf2.out"; then
	ok; else bad "explore long-run reproduce: $(head -c 400 "$tmp/exf1.out")"; fi
# minimize: the short-copy bug on 5.15 with noise steps shrinks to the 3 steps that matter
printf 'name: f2-noise\nconfig: {block_size: 1024, kernel: "5.15"}\nsteps:\n%s\n' \
	"  - pwrite -S 0x11 0 1000
  - sync
  - pwrite -S 0x11 0 1536
  - pread 0 100
  - fsync
  - commit
  - close
  - evict
  - pwrite --short 768 -S 0x22 1024 1024
  - fsync" > "$tmp/f2.yaml"
"$sim" minimize "$tmp/f2.yaml" -o "$tmp/f2min.yaml" > "$tmp/min.out" 2>&1
if grep -q "10 step(s) -> 3, variant default still violates disksize_le_size" "$tmp/min.out" &&
   "$sim" run --summary "$tmp/f2min.yaml" > /dev/null 2>&1; then ok; else
	bad "minimize: $(cat "$tmp/min.out")"; fi
expect_exit2 "minimize over its input" "$sim" minimize "$tmp/f2.yaml" -o "$tmp/f2.yaml"

# 8. the real-kernel oracle: export, import, gen, the recorded kernel-check campaign
echo "before the real-kernel oracle: $pass passed, $fail failed so far"
mkdir -p "$tmp/x" "$tmp/ft" "$tmp/md"
for f in scenarios/crash/two-crashes.yaml scenarios/crash/auto-da-alloc-close.yaml \
	scenarios/fallocate/mwrite-eof-pollution.yaml scenarios/modes/journal-data-fsync.yaml \
	scenarios/crash/chattr-sync-write.yaml scenarios/basic/remount-clean.yaml; do
	n=$(basename "$f" .yaml)
	"$sim" export --format xfs_io -o "$tmp/x" "$f" > "$tmp/x.out" 2>&1
	if [ $? = 0 ] && bash -n "$tmp/x/$n.sh" && grep -q '^# model: pre 1 size ' "$tmp/x/$n.sh" &&
	   grep -q 'xfs_io -x -r -c shutdown' "$tmp/x/$n.sh" && [ -x "$tmp/x/$n.sh" ]; then ok; else
		bad "export --format xfs_io $f: $(head -3 "$tmp/x.out")"; fi
	# the same script on stdout
	"$sim" export "$f" > "$tmp/x.sh" 2> /dev/null
	if cmp -s "$tmp/x.sh" "$tmp/x/$n.sh"; then ok; else bad "export $f to stdout and to -o differ"; fi
done
# fstests: the layout's required lines, the golden output's MD5s are the model's bytes
f=scenarios/fallocate/falloc-extend-crash.yaml
"$sim" export --format fstests --test-number 042 -o "$tmp/ft" --model-dir "$tmp/md" "$f" \
	> "$tmp/ft.out" 2>&1
missing=""
for l in '^#! /bin/bash$' '^# SPDX-License-Identifier: GPL-2.0$' '^# FS QA Test No. 042$' \
	'^\. \./common/preamble$' '^_begin_fstest auto quick ' '^_require_scratch_shutdown$' \
	'^_scratch_mkfs_sized ' '^_scratch_mount ' '^_scratch_shutdown$' \
	'^_scratch_cycle_mount ' '\$XFS_IO_PROG ' '^_require_xfs_io_command "falloc"$' \
	'^status=0$' '^exit$'; do
	grep -q "$l" "$tmp/ft/042" || missing+=" $l"
done
if [ -z "$missing" ] && bash -n "$tmp/ft/042" && [ "$(head -1 "$tmp/ft/042.out")" = "QA output created by 042" ] &&
   [ "$(grep -c '^print_state \|^check_state ' "$tmp/ft/042")" = "$(($(wc -l < "$tmp/ft/042.out") - 1))" ] &&
   grep -q "^pre-crash 1: size 10000 md5 $(md5sum < "$tmp/md/pre1" | cut -d' ' -f1)$" "$tmp/ft/042.out" &&
   grep -q "^post-crash 1: size 5000 md5 $(md5sum < "$tmp/md/post1" | cut -d' ' -f1)$" "$tmp/ft/042.out"; then
	ok; else bad "export --format fstests $f: missing:$missing; $(head -c 300 "$tmp/ft/042.out")"; fi
# several states at a crash point: the test checks membership, the golden line says so
"$sim" export --format fstests scenarios/crash/shutdown-completes-inflight.yaml > "$tmp/ft2" 2>&1
if grep -q '^check_state "post-crash 1"' "$tmp/ft2" || grep -q '^post-crash 1: size ' "$tmp/ft2"; then
	ok; else bad "export --format fstests to stdout: $(head -c 300 "$tmp/ft2")"; fi
# refusals: a model-only step exits 2 with FILE:LINE:COL, nothing on stdout
expect_exit2 "export of a checkpoint" "$sim" export scenarios/basic/checkpoint-then-crash.yaml
grep -q "^scenarios/basic/checkpoint-then-crash.yaml:8:5: export: checkpoint is model only" \
	"$tmp/cli.err" && ok || bad "export checkpoint message: $(cat "$tmp/cli.err")"
expect_exit2 "export of pwrite --short" "$sim" export --format fstests scenarios/basic/short-copy.yaml
grep -q "^scenarios/basic/short-copy.yaml:13:5: export: pwrite --short is model only" \
	"$tmp/cli.err" && ok || bad "export --short message: $(cat "$tmp/cli.err")"
expect_exit2 "export of crash --keep" "$sim" export scenarios/crash/keep-none-no-residue.yaml
expect_exit2 "export of an mmap store past EOF" "$sim" export scenarios/fallocate/mwrite-sigbus.yaml
expect_exit2 "export of an inline checkpoint" "$sim" export -c "pwrite 0 10" -c checkpoint
expect_exit2 "export --format nonsense" "$sim" export --format nonsense scenarios/crash/two-crashes.yaml
expect_exit2 "export -o to a missing directory" "$sim" export -o "$tmp/nodir" scenarios/crash/two-crashes.yaml
# export --format yaml: the scenario as run loads, and exporting it again changes no step
"$sim" export --format yaml scenarios/crash/auto-da-alloc-close.yaml > "$tmp/asrun.yaml" 2>&1
"$sim" export --format yaml "$tmp/asrun.yaml" > "$tmp/asrun2.yaml" 2>&1
if "$sim" run --quiet "$tmp/asrun.yaml" > /dev/null 2>&1 &&
   diff <(sed -n '/^steps:/,$p' "$tmp/asrun.yaml") <(sed -n '/^steps:/,$p' "$tmp/asrun2.yaml") > /dev/null &&
   grep -q '^  - sync_range -a 0 0$' "$tmp/asrun.yaml"; then ok; else
	bad "export --format yaml: $(head -c 300 "$tmp/asrun.yaml")"; fi
# import: an fsx log and an xfs_io list give the expected YAML, which loads
for f in small.fsxops small.xfs_io; do
	args=()
	[ $f = small.xfs_io ] && args=(--block-size 1024 --data journal)
	"$sim" import "${args[@]}" "tests/data/import/$f" > "$tmp/imp.yaml" 2> "$tmp/imp.err"
	if [ $? = 0 ] && cmp -s "$tmp/imp.yaml" "tests/data/import/$f.yaml" &&
	   "$sim" run --quiet "$tmp/imp.yaml" > /dev/null 2>&1; then ok; else
		bad "import $f: $(head -3 "$tmp/imp.err") $(diff "$tmp/imp.yaml" "tests/data/import/$f.yaml" | head -5)"; fi
done
expect_exit2 "import of a bad number" "$sim" import tests/data/import/bad-number.fsxops
grep -q "^tests/data/import/bad-number.fsxops:2:13: '0xzz' is not a number" "$tmp/cli.err" &&
	ok || bad "import bad number: $(cat "$tmp/cli.err")"
expect_exit2 "import of clone_range" "$sim" import tests/data/import/clone.fsxops
grep -q "^tests/data/import/clone.fsxops:2:1: fsx 'clone_range' has no counterpart" "$tmp/cli.err" &&
	ok || bad "import clone_range: $(cat "$tmp/cli.err")"
expect_exit2 "import of a bad step" "$sim" import tests/data/import/bad-step.xfs_io
grep -q "^tests/data/import/bad-step.xfs_io:3:14: pwrite: missing LEN" "$tmp/cli.err" &&
	ok || bad "import bad step: $(cat "$tmp/cli.err")"
expect_exit2 "import of a missing file" "$sim" import "$tmp/nonexistent"
# gen: the same seed gives the same bytes, another seed others; every scenario loads,
# runs, exports, and comes back step for step through import of its step list
"$sim" gen --seed 7 --count 40 > "$tmp/g1" 2>&1
"$sim" gen --seed 7 --count 40 > "$tmp/g2" 2>&1
"$sim" gen --seed 8 --count 40 > "$tmp/g3" 2>&1
if [ -s "$tmp/g1" ] && cmp -s "$tmp/g1" "$tmp/g2" && ! cmp -s "$tmp/g1" "$tmp/g3"; then ok; else
	bad "gen is not deterministic in its seed"; fi
mkdir -p "$tmp/gd"
"$sim" gen --seed 7 --count 40 --out "$tmp/gd" > /dev/null 2>&1
cat "$tmp"/gd/*.yaml | awk 'NR > 1 && /^name: / { print "---" } { print }' > "$tmp/g4"
if cmp -s "$tmp/g1" "$tmp/g4" && [ "$(ls "$tmp/gd" | wc -l)" = 40 ]; then ok; else
	bad "gen --out differs from gen to stdout"; fi
"$sim" run --summary "$tmp/gd" > "$tmp/gr.out" 2>&1
rc=$?
if [ $rc -le 1 ] && [ "$(grep -c ' default ' "$tmp/gr.out")" = 40 ]; then ok; else
	bad "generated scenarios do not all load and run: exit $rc, $(tail -2 "$tmp/gr.out")"; fi
nexp=0 nrt=0
for f in "$tmp"/gd/*.yaml; do
	"$sim" export --format xfs_io "$f" > /dev/null 2>&1 && nexp=$((nexp + 1))
	sed -n 's/^  - //p' "$f" > "$tmp/list"
	"$sim" import --from xfs_io "$tmp/list" > "$tmp/rt.yaml" 2> /dev/null &&
		cmp -s <(sed -n 's/^  - //p' "$tmp/rt.yaml") "$tmp/list" && nrt=$((nrt + 1))
done
if [ $nexp = 40 ] && [ $nrt = 40 ]; then ok; else
	bad "generated scenarios: $nexp of 40 export, $nrt of 40 round-trip through import"; fi
expect_exit2 "gen without --count" "$sim" gen --seed 1
expect_exit2 "gen with a bad seed" "$sim" gen --seed x --count 1
# the model fixes kernel-check found, against what 6.18 showed: data=journal writeback
# commits only with a dirty folio; a write into an unwritten extent inside i_disksize
# zeroes out and converts the whole extent (up to 32 KiB)
"$sim" run --quiet --dump-file "$tmp/jp" scenarios/modes/journal-data-clean-punch-no-commit.yaml > /dev/null 2>&1
"$sim" run --quiet --dump-file "$tmp/jz" scenarios/modes/journal-data-clean-zero-no-commit.yaml > /dev/null 2>&1
if [ "$(stat -c %s "$tmp/jp")" = 8192 ] && [ "$(stat -c %s "$tmp/jz")" = 0 ]; then ok; else
	bad "data=journal clean writeback commits: sizes $(stat -c %s "$tmp/jp") and $(stat -c %s "$tmp/jz"), the kernel shows 8192 and 0"; fi
"$sim" run --quiet --dump-file "$tmp/uz" scenarios/crash/unwritten-zeroout-converts-extent.yaml > /dev/null 2>&1
if [ "$(od -An -tx1 -j1024 -N2 "$tmp/uz" | tr -d ' ')" = 6d6d ] &&
   [ "$(sha256sum < "$tmp/uz" | cut -c1-16)" = 0708b515a0f6a01a ]; then ok; else
	bad "unwritten-zeroout-converts-extent: after the crash the model's file is not the kernel's"; fi
# the recorded kernel-check campaigns (this machine's kernel, and the Debian kernels
# booted under qemu), each replayed against the model under its recorded profile
for truth in tests/kernel/kernel-check-*.txt; do
	tests/kernel/kernel-check-replay.sh -b "$build" -t "$truth" > "$tmp/kr.out" 2>&1
	grep '^FAIL' -A4 "$tmp/kr.out" | head -20
	tally "$tmp/kr.out" "kernel-check replay" "kernel-check replay of $truth"
done
# kernel-check says why it skips without root (run as an unprivileged user where we are root)
if [ "$(id -u)" != 0 ]; then
	scripts/kernel-check -b "$build" > "$tmp/kc.out" 2>&1
	rc=$?
elif command -v setpriv > /dev/null && [ -x "$sim" ] && setpriv --reuid 65534 --regid 65534 \
	--clear-groups test -x "$sim" 2> /dev/null; then
	setpriv --reuid 65534 --regid 65534 --clear-groups scripts/kernel-check -b "$build" \
		> "$tmp/kc.out" 2>&1
	rc=$?
else
	rc=0
	echo "kernel-check: skipped: (not tried)" > "$tmp/kc.out"
	echo "0 passed, 0 failed" >> "$tmp/kc.out"
fi
if [ $rc = 0 ] && grep -q '^kernel-check: skipped: ' "$tmp/kc.out" &&
   [ "$(tail -1 "$tmp/kc.out")" = "0 passed, 0 failed" ]; then ok; else
	bad "kernel-check without root: exit $rc, $(head -2 "$tmp/kc.out")"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
