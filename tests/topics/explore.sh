# explore.sh - explore, merge and minimize: the known 6.12 bug found and minimized, shards
# that cover the space once, grammar files against the built-in grammar, bad grammar
# files, every kind under several settings, random and long runs (goldens under
# tests/golden/explore/).

ex=(--steps 3 --kernel 6.12 --block-size 1024 --kinds write,truncate,mwrite --json)
run "$sim" explore "${ex[@]}" --out "$tmp/ex"
cp "$out" "$tmp/ex.json"
for i in 0 1; do
	run "$sim" explore "${ex[@]}" --shard $i/2
	cp "$out" "$tmp/ex$i.json"
done
run "$sim" merge --json "$tmp/ex0.json" "$tmp/ex1.json"
cp "$out" "$tmp/exm.json"
# the known mmap-pollution bug of 6.12 is found, minimized and written as a scenario that
# fails (the report whole: its findings and their hashes)
run "$sim" run --summary "$tmp"/ex/gap_zero_on_extend-*.yaml
check finds-gap-zero-on-extend 'golden explore-6.12 "$tmp/ex.json" &&
	[ "$(ls "$tmp/ex" | wc -l)" -ge 1 ] && [ "$rc" = 0 ]'
# shards cover the space exactly once: merged counts equal the single run's
h1=$(head -1 "$tmp/ex.json" | sed 's/"shard": [0-9]*, "shards": [0-9]*, //')
h2=$(head -1 "$tmp/exm.json" | sed 's/"shard": [0-9]*, "shards": [0-9]*, //')
check shards-cover-once '[ -n "$h1" ] && [ "$h1" = "$h2" ] || { echo "  $h1 vs $h2"; false; }'
expect_exit2 merge-shard-missing "$sim" merge "$tmp/ex0.json"
expect_exit2 merge-non-report "$sim" merge scenarios/basic/short-copy.yaml
expect_exit2 bad-shard "$sim" explore --shard 2/2
expect_exit2 unknown-kind "$sim" explore --kinds write,nope

# --grammar: the file that spells out the built-in grammar gives the same report, byte for
# byte (findings and their hashes included)
run "$sim" explore "${ex[@]}"
cp "$out" "$tmp/exb.json"
run "$sim" explore "${ex[@]}" --grammar docs/grammars/default.yaml
check grammar-file-equals-built-in '[ -s "$tmp/exb.json" ] && cmp -s "$tmp/exb.json" "$out" &&
	grep -q "\"with_finding\": [1-9]" "$out"'
run "$sim" explore --steps 2 --block-size 2048
cat "$err" >> "$out"
cp "$out" "$tmp/exb.out"
run "$sim" explore --steps 2 --block-size 2048 --grammar docs/grammars/default.yaml
cat "$err" >> "$out"
check grammar-file-block-size-2048 'golden grammar-2048 "$tmp/exb.out" && cmp -s "$tmp/exb.out" "$out"'
# a bad grammar file: FILE:LINE:COL: message (its first line says which), exit 2, nothing
# on stdout
for f in tests/data/grammar-bad/*.yaml; do
	expect_exit2 "bad-grammar ${f##*/}" "$sim" explore --grammar "$f"
	want=$(sed -n '1s/^# expect: //p' "$f")
	if [ -z "$want" ] || ! grep -qF "$f:$want" "$err" || [ "$(wc -l < "$err")" != 1 ]; then
		failed "bad-grammar-message ${f##*/}" "error '$(cat "$err")' is not '$want'"; fi
done
expect_exit2 missing-grammar-file "$sim" explore --grammar "$tmp/none.yaml"

# ACE's spaces (space: in a grammar file, explore/ace.c): the size line comes first on
# stderr with ACE's count (B3's seq-1 300, seq-2 254032); a shard of one workload runs it;
# seq-1's workload 25 (ACE's j-lang 26: write 4 KiB, zero range it, fsync) loses the size
# on 4.4 and not with the fix (disksize_before_punch), as its imported scenario does
# (tests/data/ace/); a walked workload equals its imported file (tests/unit/ns/test_ace_space.c)
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --shard 0/300
check ace-seq1-count '[ "$rc" = 0 ] && head -1 "$err" | grep -q "b3-seq1: 300 workloads (ACE.s count), 1 to run" &&
	grep -q "here 1: run 1," "$out"'
run "$sim" explore --grammar docs/grammars/ace-seq2.yaml --shard 0/254032
check ace-seq2-count '[ "$rc" = 0 ] && head -1 "$err" | grep -q "b3-seq2: 254032 workloads (ACE.s count), 1 to run"'
run "$sim" explore --grammar docs/grammars/ace-seq3-meta.yaml --max-space 1
check ace-seq3-meta-count '[ "$rc" = 2 ] && [ ! -s "$out" ] &&
	grep -q "b3-seq3-meta holds 1520892 workloads" "$err"'
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --kernel 4.4 --shard 24/300 \
	--diff disksize_before_punch
check ace-seq1-zero-range-4.4 '[ "$rc" = 0 ] &&
	grep -q "ns_file_fsync  *patch off x1  *first: workload 25 (--shard 24/300)" "$out"'
# The whole seq-1 space with --diff: its crash points shared (crash/cpmemo.c, across the
# sides where the mount reads no toggle they differ in) and not: the same report, the
# 8 zero-range findings; the memo answered some points; three contiguous shards make it up
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --kernel 4.4 --diff disksize_before_punch \
	--share-stats
cp "$out" "$tmp/ace1-shared.txt"
check ace-seq1-diff-shared '[ "$rc" = 0 ] && grep -q "with a finding 8, causes 3" "$out" &&
	grep -q "run 292, .* refused 8 (mknod" "$out" &&
	grep -q "^explore: [1-9][0-9]* crash point(s) met again, judged once" "$err"'
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --kernel 4.4 --diff disksize_before_punch \
	--no-share
check ace-seq1-diff-unshared-same '[ "$rc" = 0 ] && cmp -s "$out" "$tmp/ace1-shared.txt"'
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --kernel 4.4 --shard 0/3
check ace-seq1-shard-contiguous '[ "$rc" = 0 ] && grep -q "100 to run here" "$err" &&
	grep -q "with a finding 8, causes 1" "$out" &&
	grep -q "first: workload 25 (--shard 24/300)" "$out"'
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --kernel 4.4 --shard 2/3
check ace-seq1-shard-last '[ "$rc" = 0 ] && grep -q "with a finding 0" "$out"'
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --shard 24/300
check ace-seq1-zero-range-6.18 '[ "$rc" = 0 ] && grep -q "with a finding 0" "$out"'
run "$sim" import --from ace tests/data/ace/b3-seq1-26.jlang
cp "$out" "$tmp/ace26.yaml"
run "$sim" run --kernel 4.4 "$tmp/ace26.yaml"
check ace-seq1-zero-range-imported-4.4 '[ "$rc" = 1 ] && grep -q "VIOLATION ns_file_fsync" "$out"'
expect_exit2 ace-space-json "$sim" explore --grammar docs/grammars/ace-seq1.yaml --json
expect_exit2 ace-space-seed "$sim" explore --grammar docs/grammars/ace-seq1.yaml --seed 1 --count 2
check ace-space-seed-message 'grep -q "not with --seed, --json or --diff-states" "$err"'
# --out: each cause's first workload as a scenario, minimized (the crash step goes:
# crash_everywhere judges the fsync's point), or as it is with --no-minimize; with --diff
# both variants; each file runs as it expects
mkdir -p "$tmp/ace-out" "$tmp/ace-out2"
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --kernel 4.4 --shard 0/3 --out "$tmp/ace-out"
check ace-seq1-out '[ "$rc" = 0 ] && [ "$(ls "$tmp/ace-out")" = ns_file_fsync-4.4-w25.yaml ] &&
	grep -q "^    $tmp/ace-out/ns_file_fsync-4.4-w25.yaml (4 step(s) of 5)$" "$out" &&
	! grep -q "crash\"$" "$tmp/ace-out/ns_file_fsync-4.4-w25.yaml"'
run "$sim" run --quiet "$tmp/ace-out/ns_file_fsync-4.4-w25.yaml"
check ace-seq1-out-runs '[ "$rc" = 0 ] && grep -q "1 as expected, 0 not" "$out"'
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --kernel 4.4 --shard 0/3 --no-minimize \
	--diff disksize_before_punch --out "$tmp/ace-out2"
check ace-seq1-out-diff '[ "$rc" = 0 ] && [ -f "$tmp/ace-out2/ns_file_fsync-4.4-w25-off.yaml" ] &&
	grep -q "(5 step(s) of 5)" "$out" && grep -q "^  on: \[\]$" "$tmp/ace-out2/ns_file_fsync-4.4-w25-off.yaml"'
run "$sim" run --quiet "$tmp/ace-out2/ns_file_fsync-4.4-w25-off.yaml"
check ace-seq1-out-diff-runs '[ "$rc" = 0 ] && grep -q "2 variant(s): 2 as expected, 0 not" "$out"'
# A sweep: each workload judged under every configuration (one mounting as another is
# left out), a report per configuration; 4.4's eight zero-range findings only under 4.4
run "$sim" explore --grammar docs/grammars/ace-seq1.yaml --kernel 6.18,4.4
check ace-seq1-sweep '[ "$rc" = 0 ] && grep -q "under each of 2 configurations:" "$out" &&
	grep -q "^    cause: ns_file_fsync: gone in 4.9 with disksize_before_punch on$" "$out" &&
	grep -q "^configuration 1/2: kernel 6.18: with a finding 0, causes 0$" "$out" &&
	grep -q "^configuration 2/2: kernel 4.4: with a finding 8, causes 1$" "$out" &&
	[ "$(grep -c "first: workload 25" "$out")" = 1 ]'
cp "$out" "$tmp/ace1-sweep.txt"
# scripts/ace-space runs a space in contiguous shards side by side and merges their
# reports: the same counts and causes as the whole walk in one process
run env BUILD="${BUILD:-build}" scripts/ace-space docs/grammars/ace-seq1.yaml "$tmp/ace-space" 3 2 \
	--kernel 6.18,4.4
check ace-space-merged '[ "$rc" = 0 ] && grep -q "of CPU in all" "$out" &&
	head -1 "$tmp/ace-space/merged.txt" | grep -q "300 workloads (ACE.s count); 3 shards merged" &&
	cmp -s <(tail -n +2 "$tmp/ace1-sweep.txt") <(tail -n +2 "$tmp/ace-space/merged.txt")'
expect_exit2 steps-9-without-seed "$sim" explore --steps 9
expect_exit2 crash-at-on-short-runs "$sim" explore --crash-at crash
expect_exit2 run-out-of-range "$sim" explore --seed 1 --count 2 --run 2
expect_exit2 fixed-length-without-seed "$sim" explore --fixed-length

# the space's size comes first on stderr; a space past --max-space (default 10^9 sequences
# run here) is refused before anything runs: one line with its size, naming the flags that
# take it; raised, sharded or sampled (--seed/--count), the same space runs
{ echo "name: wide"; echo "templates:"; echo "  write:"
  for i in $(seq 1 128); do echo "    - pwrite $((i * 7)) 3"; done; } > "$tmp/wide.yaml"
expect_exit2 space-past-the-limit "$sim" explore --grammar "$tmp/wide.yaml" --steps 8
check space-refused-in-one-line '[ "$(wc -l < "$err")" = 1 ] &&
	grep -q "the space holds 72624976668147840 sequence(s) of 1..8 steps over 128 grammar step(s), 72624976668147840 to run here, past the limit of 1000000000 (--max-space N raises it; --seed S --count N runs a random sample)$" "$err"'
expect_exit2 space-past-max-space "$sim" explore --steps 3 --kinds write --max-space 583
expect_exit2 max-space-zero "$sim" explore --steps 1 --max-space 0
run "$sim" explore --steps 3 --kinds write --max-space 584
check space-at-max-space-runs '[ "$rc" = 0 ] &&
	head -1 "$err" | grep -q "^explore: bounded exhaustive, 8 grammar step(s), sequences of 1..3: space 584, 584 to run here"'
run "$sim" explore --steps 3 --kinds write --max-space 300 --shard 1/2
check space-shard-under-max-space '[ "$rc" = 0 ] && grep -q "space 584, [0-9]* to run here (shard 1/2)" "$err"'
run "$sim" explore --grammar "$tmp/wide.yaml" --steps 8 --seed 1 --count 2
check space-sampled-runs '[ "$rc" = 0 ] && head -1 "$err" | grep -q "^explore: seeded random, 128 grammar step(s), sequences of 1..8: space 2,"'

# a sweep (--kernel 6.1,6.12, a flag repeated, both flags of a mount pair): each
# configuration runs in turn, and the report sums them: its runs and findings are the
# separate runs' (a finding per kernel), grouped by cause across them; configurations that
# mount alike (data=journal turns delalloc off) run once
sw=(--steps 3 --kinds write,truncate,mwrite)
sum_run=0 sum_with=0 sum_distinct=0
for k in 6.1 6.12; do for b in 1024 4096; do
	"$sim" explore "${sw[@]}" --kernel $k --block-size $b > "$tmp/sw1.out" 2> /dev/null
	read -r r w d <<< "$(sed -n 's/^  run \([0-9]*\), pruned [0-9]* .*, with a finding \([0-9]*\), distinct findings \([0-9]*\),.*/\1 \2 \3/p' "$tmp/sw1.out")"
	sum_run=$((sum_run + r)) sum_with=$((sum_with + w)) sum_distinct=$((sum_distinct + d))
done; done
run "$sim" explore "${sw[@]}" --kernel 6.1,6.12 --block-size 1024 --block-size 4096 --out "$tmp/sw"
cat "$err" >> "$out"
check sweep-sums-the-separate-runs '[ "$rc" = 0 ] && golden sweep-kernels-block-sizes "$out" &&
	grep -q "^  run $sum_run, pruned 0 (a persistence step repeated), with a finding $sum_with, distinct findings $sum_distinct, causes 1$" "$out" &&
	[ "$sum_with" -gt 0 ] && head -1 "$err" | grep -q "^explore: a sweep of 4 configuration(s), 4 distinct: kernel 6.1,6.12; block-size 1024,4096; space 7536 in all$"'
run "$sim" explore --steps 1 --kinds write --data ordered,journal --delalloc --nodelalloc --no-minimize
check sweep-runs-a-mount-once '[ "$rc" = 0 ] && grep -q "^  run 24, " "$out" &&
	grep -q "^explore: configuration 4/4: data=journal, nodelalloc: mounts as configuration 2, not run again$" "$err"'
run "$sim" explore --steps 3 --kinds write,truncate,mwrite --diff exp_grow_zero_written_only \
	--dioread-nolock --dioread-lock --noauto-da-alloc --auto-da-alloc --out "$tmp/swd"
check sweep-diff-mount-modes '[ "$rc" = 0 ] && grep -q "^  a sweep of 4 configuration(s), 4 distinct: dioread_nolock,dioread_lock; auto_da_alloc,noauto_da_alloc; the space is their sum$" "$out" &&
	grep -q "causes 1$" "$out" && [ "$(ls "$tmp/swd" | wc -l)" = 1 ]'
# --json lists the sweep's configurations (the text report's line, each configuration's
# swept values, the one a configuration mounts as); shards of a sweep merge into the
# single run's report, sweep included; a report of another sweep (the same space) is refused
run "$sim" explore --steps 1 --kinds write --data ordered,journal --delalloc --nodelalloc --no-minimize --json
check sweep-json-configurations '[ "$rc" = 0 ] && head -1 "$out" | grep -qF "\"ext4sim_explore\": 2, " &&
	head -1 "$out" | grep -qF ", \"sweep\": {\"summary\": \"data ordered,journal; delalloc,nodelalloc\", \"count\": 4, \"distinct\": 3, \"configurations\": [{\"configuration\": 1, \"data\": \"ordered\", \"delalloc\": true}, {\"configuration\": 2, \"data\": \"journal\", \"delalloc\": true}, {\"configuration\": 3, \"data\": \"ordered\", \"delalloc\": false}, {\"configuration\": 4, \"data\": \"journal\", \"delalloc\": false, \"mounts_as\": 2}]}, \"findings\": [" &&
	"$build/tests/json-check" "$out"'
swj=(--steps 2 --kinds write,persist --block-size 1024,4096 --no-minimize --json)
"$sim" explore "${swj[@]}" --kernel 6.1,6.12 > "$tmp/swj.json" 2> /dev/null
"$sim" explore "${swj[@]}" --kernel 6.1,6.12 --shard 0/2 > "$tmp/swj0.json" 2> /dev/null
"$sim" explore "${swj[@]}" --kernel 6.1,6.12 --shard 1/2 > "$tmp/swj1.json" 2> /dev/null
"$sim" explore "${swj[@]}" --kernel 6.1,6.6 --shard 1/2 > "$tmp/swj1-other.json" 2> /dev/null
run "$sim" merge --json "$tmp/swj0.json" "$tmp/swj1.json"
check sweep-merge-json '[ "$rc" = 0 ] && grep -q "\"sweep\": {\"summary\": \"kernel 6.1,6.12; block-size 1024,4096\", \"count\": 4," "$out" &&
	sed "1s/\"shards\": 2,/\"shards\": 1,/" "$out" | cmp -s - "$tmp/swj.json"'
run "$sim" merge "$tmp/swj0.json" "$tmp/swj1.json"
check sweep-merge-text '[ "$rc" = 0 ] && grep -q "^  a sweep of 4 configuration(s), 4 distinct: kernel 6.1,6.12; block-size 1024,4096; the space is their sum$" "$out"'
expect_exit2 sweep-merge-other-sweep "$sim" merge "$tmp/swj0.json" "$tmp/swj1-other.json"
check sweep-merge-other-sweep-says 'grep -q "swj1-other.json:1:1: a different exploration (mode, grammar, steps, space, sweep or shard count)" "$err"'
expect_exit2 sweep-value-twice "$sim" explore --kernel 6.1,6.1
expect_exit2 sweep-empty-value "$sim" explore --block-size 1024,
expect_exit2 sweep-bad-value "$sim" explore --data ordered,nope
expect_exit2 sweep-long-runs "$sim" explore --kernel 6.1,6.12 --seed 1 --count 1 --steps 9
expect_exit2 sweep-past-max-space "$sim" explore --steps 3 --kinds write --max-space 1000 --kernel 6.1,6.12
check sweep-space-counts-configurations 'grep -q "the space holds 1168 sequence(s) of 1..3 steps over 8 grammar step(s) in 2 configurations, 1168 to run here, past the limit of 1000" "$err"'

# --diff-states: a sequence whose crash states differ off and on (the distinct states, their
# bytes or their violations, at any crash point) is a finding even when no verdict differs:
# dioread_nolock's sub-page default changes what a crash inside sync leaves, no invariant
# tells; the findings group as one cause, are written, and merge across shards
ds=(--steps 2 --kinds write,persist,crash --diff dioread_nolock_subpage --block-size 1024)
run "$sim" explore "${ds[@]}"
check diff-verdicts-only-finds-none '[ "$rc" = 0 ] && grep -q "with a finding 0, distinct findings 0, causes 0$" "$out"'
run "$sim" explore "${ds[@]}" --diff-states --out "$tmp/ds"
check diff-states-finds-them '[ "$rc" = 0 ] && golden diff-states "$out" &&
	grep -q "with a finding 8, distinct findings 8, causes 1$" "$out" &&
	grep -q "cause: crash_states: the crash states differ with dioread_nolock_subpage off and on, no verdict does$" "$out" &&
	[ "$(ls "$tmp/ds" | wc -l)" = 1 ] && "$sim" run --summary "$tmp"/ds/crash_states-*.yaml > /dev/null'
for i in 0 1; do
	"$sim" explore "${ds[@]}" --diff-states --json --shard $i/2 > "$tmp/ds$i.json" 2> /dev/null
done
run "$sim" merge "$tmp/ds0.json" "$tmp/ds1.json"
check diff-states-merge '[ "$rc" = 0 ] && grep -q "with a finding 8, " "$out" && grep -q "crash_states " "$out"'
expect_exit2 diff-states-without-diff "$sim" explore --diff-states

# every kind, every sequence of 1..2 steps, under several settings: no assertion fires,
# and the space, the runs and the pruned ones are as before
all=write,truncate,persist,crash,falloc,mwrite,short,chattr,close,remount,evict,collapse,insert
for cfg in "--block-size 1024" "--block-size 4096 --data journal" "--block-size 2048 --data writeback" \
	"--block-size 1024 --kernel 5.15 --nodelalloc"; do
	# shellcheck disable=SC2086
	run "$sim" explore --steps 2 --kinds $all $cfg --no-minimize
	cat "$err" >> "$out"
	g=every-kind-$(echo "$cfg" | sed 's/--//g; s/ /-/g')
	check "$g" '[ "$rc" = 0 ] && golden "$g" "$out"'
done

# the namespace kinds: every sequence of 1..2 steps of all of them (with writes, fsync and
# crashes), judged as namespace scenarios, under two settings: no assertion fires, the
# space, runs and pruned ones as recorded
nsk=write,persist,crash,creat,mkdir,rmdir,link,unlink,rename,symlink,fsyncpath,xattr
for cfg in "--block-size 1024" "--block-size 4096 --data journal"; do
	# shellcheck disable=SC2086
	run "$sim" explore --steps 2 --kinds $nsk $cfg --no-minimize
	cat "$err" >> "$out"
	g=namespace-kinds-$(echo "$cfg" | sed 's/--//g; s/ /-/g')
	check "$g" '[ "$rc" = 0 ] && golden "$g" "$out"'
done
# docs/grammars/namespace.yaml: its paths are kept as written (no expression in /A/x),
# its 18 templates load and run
run "$sim" explore --grammar docs/grammars/namespace.yaml --steps 1 --no-minimize
check namespace-grammar '[ "$rc" = 0 ] && grep -q "^explore: bounded exhaustive, 18 grammar step(s), sequences of 1..1: space 18; shard 0/1$" "$out" &&
	grep -q "^  run 18, pruned 0" "$out"'
# minimize drops the steps on the names a namespace finding does not need all at once: a
# replace-via-rename (informational, counted here) among steps on /B shrinks to its four
# steps, in fewer runs than dropping them a chunk at a time took (27)
printf 'name: ns-names
config:
  fail_on: [replace_via_rename]
  crash_everywhere: true
steps:
%s
expect:
  default: [replace_via_rename]
' \
	"  - mkdir /B
  - open -f /B/x
  - pwrite -S 0x11 0 5000
  - link /B/x /B/y
  - open -f /g
  - pwrite -S 0xbb 0 8192
  - rename /g /f
  - fsync /B
  - commit" > "$tmp/nsn.yaml"
run "$sim" minimize "$tmp/nsn.yaml" -o "$tmp/nsn-min.yaml"
runs=$(sed -n 's/.*replace_via_rename (\([0-9]*\) runs).*/\1/p' "$out")
check minimize-namespace-names '[ "$rc" = 0 ] && grep -q "9 step(s) -> 4," "$out" &&
	! grep -q "/B" "$tmp/nsn-min.yaml" && grep -q "rename /g /f" "$tmp/nsn-min.yaml" &&
	[ -n "$runs" ] && [ "$runs" -lt 27 ] || { echo "  $(cat "$out")"; false; }'

# random runs: lengths drawn in 1..K, the same bytes for the same seed; --fixed-length
# gives K steps per run
for i in 1 2; do
	run "$sim" explore --seed 9 --count 30 --steps 8 --json
	cp "$out" "$tmp/exr$i.json"
	run "$sim" explore --seed 9 --count 8 --steps 40 --kinds $all --json
	cp "$out" "$tmp/exl$i.json"
done
run "$sim" explore --seed 9 --count 8 --steps 40 --kinds $all --fixed-length --json
check random-lengths '[ -s "$tmp/exr1.json" ] && cmp -s "$tmp/exr1.json" "$tmp/exr2.json" &&
	cmp -s "$tmp/exl1.json" "$tmp/exl2.json" && grep -q "\"run\": 8, " "$tmp/exl1.json" &&
	! grep -q "\"steps_run\": $((8 * 40))," "$tmp/exl1.json" &&
	grep -q "\"steps_run\": $((8 * 40))," "$out"'
# a long run streams: 20,000 steps, crash states judged at its crash steps
run "$sim" explore --seed 1 --count 1 --steps 20000 --fixed-length
cat "$err" >> "$out"
check long-run '[ "$rc" = 0 ] && golden long-run "$out"'
# a long run's finding: the printed command runs that run alone and finds it at the same step
run "$sim" explore --seed 1 --count 4 --steps 50 --kinds write,truncate,mwrite --kernel 6.12 \
	--block-size 1024
cat "$err" >> "$out"
cp "$out" "$tmp/exf1.out"
line=$(grep "reproduce: " "$tmp/exf1.out" | head -1)
repro=${line#*reproduce: ext4sim }
# shellcheck disable=SC2086
[ -n "$line" ] && run "$sim" $repro && cat "$err" >> "$out"
check long-run-reproduce 'golden long-run-finding "$tmp/exf1.out" && [ -n "$line" ] &&
	grep -qF "$line" "$out" && golden long-run-reproduced "$out"'

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
run "$sim" minimize "$tmp/f2.yaml" -o "$tmp/f2min.yaml"
cat "$err" >> "$out"
cp "$out" "$tmp/min.out"
run "$sim" run --summary "$tmp/f2min.yaml"
check minimize 'golden minimize "$tmp/min.out" && golden minimized-scenario "$tmp/f2min.yaml" &&
	[ "$rc" = 0 ]'
expect_exit2 minimize-over-its-input "$sim" minimize "$tmp/f2.yaml" -o "$tmp/f2.yaml"

# findings grouped by cause: the EOF-pollution search under 6.1 (mwrite past EOF, then
# extend) is one cause, the change that removes it named, one file for it
run "$sim" explore --steps 3 --kernel 6.1 --kinds write,truncate,mwrite --out "$tmp/ex61"
check eof-pollution-6.1-one-cause '[ "$rc" = 0 ] && grep -q "distinct findings [0-9]*, causes 1$" "$out" &&
	grep -q "cause: gap_zero_on_extend: gone in 6.13 with eof_zero_fs on" "$out" &&
	[ "$(ls "$tmp/ex61" | wc -l)" = 1 ]'
# an experimental idea's findings name the idea; --diff findings keep both sides through
# minimize
run "$sim" explore --steps 3 --kinds write,truncate,mwrite --diff exp_grow_zero_written_only \
	--out "$tmp/exd"
check explore-diff-experimental '[ "$rc" = 0 ] && grep -q "causes 1$" "$out" &&
	[ "$(ls "$tmp/exd" | wc -l)" = 1 ]'
cp "$tmp"/exd/*.yaml "$tmp/exd.yaml"
run "$sim" minimize "$tmp/exd.yaml" -o "$tmp/exd.min.yaml"
check minimize-diff-keeps-both '[ "$rc" = 0 ] && grep -q "^  off: \[\]$" "$tmp/exd.min.yaml" &&
	grep -q "^  on: \[gap_zero_on_extend" "$tmp/exd.min.yaml" &&
	"$sim" run --summary "$tmp/exd.min.yaml" > /dev/null'
run "$sim" explore --steps 3 --kinds write,truncate,mwrite --patch exp_grow_zero_written_only=on
check explore-experimental-cause '[ "$rc" = 0 ] &&
	grep -q "cause: gap_zero_on_extend: gone with exp_grow_zero_written_only off (as in 6.18)" "$out"'

# replay_findings NAME REPORT [diff]: every finding file an explore report names (the last
# column of each cause's line, its invariant the first, its cause on the next line), run
# alone and minimized alone, gives its finding: `run` meets its expect: with the invariant
# counted as violated, `minimize` keeps that invariant (for a --diff finding, with the side
# that does not violate it) and names the same cause, and its result replays the same
# way.  One check per report, which must name a file.
replay_one() {
	local inv=$1 file=$2 cause=$3 diff=$4
	"$sim" run --summary "$file" > "$tmp/rp.out" 2>&1 &&
		grep -q "PASS \[\(.*, \)\?$inv[],]" "$tmp/rp.out" || { echo "run"; return; }
	"$sim" minimize "$file" -o "$tmp/rp.min.yaml" > "$tmp/rp.out" 2>&1 &&
		grep -q "still violates $inv" "$tmp/rp.out" || { echo "minimize"; return; }
	[ -z "$diff" ] || grep -q "still violates $inv, not variant o[nf]f\? " "$tmp/rp.out" ||
		{ echo "minimize-one-side"; return; }
	grep -qxF "    cause: $cause" "$tmp/rp.out" || { echo "minimize-cause"; return; }
	"$sim" run --summary "$tmp/rp.min.yaml" > "$tmp/rp.out" 2>&1 &&
		grep -q "PASS \[\(.*, \)\?$inv[],]" "$tmp/rp.out" || echo "run-minimized"
}
replay_findings() {
	local name=$1 report=$2 diff=$3 inv file cause what n=0 bad=""
	while IFS='|' read -r inv file cause; do
		n=$((n + 1))
		what=$(replay_one "$inv" "$file" "$cause" "$diff")
		[ -z "$what" ] || bad+=" $what:${file##*/}"
	done < <(awk '/^  [a-z_]+ +[0-9a-f]+ +x[0-9]+ +[0-9]+ distinct +.*\.yaml$/ { inv = $1; f = $NF; next }
		f != "" && /^      cause: / { sub(/^      cause: /, ""); print inv "|" f "|" $0; f = "" }' "$report")
	run cat "$report"
	check "replay-findings-$name" '[ "$n" -gt 0 ] && [ -z "$bad" ] ||
		{ echo "  $n finding file(s); not replayed alone:$bad"; false; }'
}

# prefix sharing (explore/tree.c) and equal states sharing their future (explore/memo.c)
# change nothing a run prints: the report, the finding files and their bytes, with and
# without them (--no-share-states, --no-share), on several grammars, kernels, block sizes,
# --diff and a shard
share_cases=(
	"--steps 3 --kernel 6.12 --block-size 1024 --kinds write,truncate,mwrite"
	"--steps 3 --kernel 6.1 --block-size 2048 --kinds write,truncate,mwrite,persist"
	"--steps 3 --kinds write,persist,short,evict --block-size 1024 --kernel 5.15 --diff short_copy_zero"
	"--steps 3 --kinds write,truncate,persist,crash,falloc --kernel 7.1 --diff zero_eof_in_write_checks"
	"--steps 2 --kinds write,truncate,persist,crash,falloc,mwrite,short,chattr,close,remount,evict,collapse,insert --block-size 1024 --kernel 6.6"
	"--grammar docs/grammars/eof-games.yaml --steps 3 --kernel 6.12"
	"--steps 4 --kinds write,persist --block-size 4096 --data journal --shard 1/3 --no-minimize"
	"--steps 2 --kinds write,persist,crash,mkdir,creat,rename,fsyncpath,unlink --diff fsync_nonreg_force_commit"
)
k=0
for c in "${share_cases[@]}"; do
	k=$((k + 1))
	read -ra a <<< "$c"
	for m in share states none; do
		flag=()
		[ "$m" = states ] && flag=(--no-share-states)
		[ "$m" = none ] && flag=(--no-share)
		rm -rf "$tmp/sh-$m"
		"$sim" explore "${a[@]}" "${flag[@]}" --out "$tmp/sh-$m" > "$tmp/sh-$m.out" 2> /dev/null
		echo "rc $?" >> "$tmp/sh-$m.out"
		[ "$m" = share ] && cp "$tmp/sh-$m.out" "$tmp/sh-$k.report"
		sed -i "s|$tmp/sh-$m|OUT|g" "$tmp/sh-$m.out"
	done
	run cat "$tmp/sh-share.out"
	check "share-identical-$k" 'cmp -s "$tmp/sh-share.out" "$tmp/sh-none.out" &&
		cmp -s "$tmp/sh-states.out" "$tmp/sh-none.out" &&
		diff -r "$tmp/sh-share" "$tmp/sh-none" > /dev/null &&
		diff -r "$tmp/sh-states" "$tmp/sh-none" > /dev/null &&
		grep -q "^rc [01]$" "$tmp/sh-none.out" ||
		{ echo "  explore '"$c"' differs with and without sharing"; false; }'
	rm -rf "$tmp/sh-$k" && mv "$tmp/sh-share" "$tmp/sh-$k"
	sed -i "s|$tmp/sh-share/|$tmp/sh-$k/|" "$tmp/sh-$k.report"
	case $c in *--diff*) d=diff ;; *) d="" ;; esac
	# (the searches that find nothing are counted above only)
	! grep -q '\.yaml$' "$tmp/sh-$k.report" || replay_findings "$k" "$tmp/sh-$k.report" "$d"
done
# and the searches whose findings need how they were judged: a crash inside a step (the
# no_stale_data of 6.6's writeback mode, a crash inside sync, as a --diff of the toggle
# that removes it and plain), a crash bound, an informational invariant counted; each
# finds something (the grammar: 2 KiB blocks, a write then a persistence step)
printf 'name: replay-grammar\nsteps: 2\nblock_size: 2048\ntemplates:\n  write:\n    - pwrite 0 BS/2\n    - pwrite PAGE+BS/2 BS\n  persist:\n    - sync\n    - fsync\n' > "$tmp/replay-grammar.yaml"
replay_cases=(
	"--steps 2 --kernel 6.6 --block-size 1024 --data writeback --diff dioread_nolock_subpage"
	"--steps 2 --kernel 6.6 --block-size 1024 --data writeback --kinds write,truncate,persist,crash,falloc"
	"--steps 2 --kernel 6.6 --block-size 1024 --data writeback --crash-bound 1"
	"--steps 2 --kernel 5.15 --block-size 1024 --kinds write,truncate,persist --fail-on no_folio_lock_under_handle"
	"--grammar $tmp/replay-grammar.yaml --kernel 6.1 --data writeback --diff dioread_nolock_subpage"
)
for c in "${replay_cases[@]}"; do
	k=$((k + 1))
	read -ra a <<< "$c"
	rm -rf "$tmp/sh-$k"
	"$sim" explore "${a[@]}" --out "$tmp/sh-$k" > "$tmp/sh-$k.report" 2> /dev/null
	case $c in *--diff*) d=diff ;; *) d="" ;; esac
	replay_findings "$k" "$tmp/sh-$k.report" "$d"
	[ "$c" != "${replay_cases[0]}" ] || cp "$tmp/sh-$k"/no_stale_data-*.yaml "$tmp/judged.yaml"
done
# the first case's file (the crash inside sync, a --diff finding) carries how it was
# judged, and every command that reads it honours that: diff sees the verdicts differ,
# export says what a real kernel cannot check; an explicit --crash-bound wins over the
# file's, and another file run with it does not inherit its keys
run "$sim" diff "$tmp/judged.yaml" --patch dioread_nolock_subpage
check judged-diff '[ "$rc" = 1 ] && grep -q "^  crash_everywhere: true$" "$tmp/judged.yaml" &&
	grep -q "expect: met? \[violated\]  *as expected \[no_stale_data\]  *not as expected \[\]   <- differs" "$out"'
run "$sim" export "$tmp/judged.yaml" --variant off
check judged-export-says '[ "$rc" = 0 ] && [ -s "$out" ] &&
	grep -q "judged.yaml: export: note: crash_everywhere is model only" "$err"'
sed 's/^  crash_everywhere: true$/  crash_everywhere: true\n  crash_bound: 64/' "$tmp/judged.yaml" > "$tmp/judged-b.yaml"
sed '/^  crash_everywhere: true$/d; s/^  off: \[no_stale_data\]$/  off: []/' "$tmp/judged.yaml" > "$tmp/plain.yaml"
run "$sim" run --summary "$tmp/judged-b.yaml" "$tmp/plain.yaml"
check judged-keys-per-file '[ "$rc" = 0 ] && grep -q "4 as expected, 0 not" "$out"'
run "$sim" run --summary "$tmp/judged-b.yaml" --crash-bound 0
check judged-flag-wins '[ "$rc" = 1 ] && grep -q "off  *FAIL \[\]" "$out" &&
	grep -q "^  crash_bound: 64$" "$tmp/judged-b.yaml"'
sed 's/^  crash_bound: 64$/  crash_bound: 0/' "$tmp/judged-b.yaml" > "$tmp/judged-0.yaml"
run "$sim" run --summary "$tmp/judged-0.yaml"
check judged-bound-honoured '[ "$rc" = 1 ] && grep -q "off  *FAIL \[\]" "$out" &&
	grep -q "^  crash_bound: 0$" "$tmp/judged-0.yaml" &&
	grep -q "^  crash_everywhere: true$" "$tmp/judged-0.yaml"'
# how a file is judged is shown: the run header names the keys that are not the default
# (and nothing for a file without them), run --json's "judging" gives all three, and
# export --format yaml carries crash_bound and fail_on into what it writes (which then
# runs judged so), not crash_everywhere (model only: the exported test has no crash
# inside a step)
run "$sim" run "$tmp/judged-b.yaml" --fail-on post_eof_zero_strict
check judged-header '[ "$(grep -c "^-- variant .* blocks; crash judged inside every step, crash bound 64, fail on post_eof_zero_strict$" "$out")" = 2 ]'
run "$sim" run "$tmp/plain.yaml"
check judged-header-default '[ "$rc" = 0 ] && grep -q "^-- variant off: .*, [0-9]* blocks$" "$out"'
run "$sim" run --json "$tmp/judged-b.yaml" --variant off
check judged-json '[ "$rc" = 0 ] && grep -q "\"json_version\": 5," "$out" &&
	grep -q "\"judging\": {\"crash_everywhere\": true, \"crash_bound\": 64, \"fail_on\": \[\]}" "$out"'
sed 's/^  crash_bound: 64$/  crash_bound: 64\n  fail_on: [post_eof_zero_strict]/' "$tmp/judged-b.yaml" > "$tmp/judged-f.yaml"
run "$sim" export --format yaml "$tmp/judged-f.yaml" --variant off
cp "$out" "$tmp/judged-x.yaml"
run "$sim" run "$tmp/judged-x.yaml"
check judged-export-yaml 'grep -q "^  crash_bound: 64$" "$tmp/judged-x.yaml" &&
	grep -q "^  fail_on: \[post_eof_zero_strict\]$" "$tmp/judged-x.yaml" &&
	! grep -q crash_everywhere "$tmp/judged-x.yaml" &&
	grep -q "^-- variant default: .* blocks; crash bound 64, fail on post_eof_zero_strict$" "$out"'
# equal states are met again and counted (stderr), and their subtrees are not run
run "$sim" explore --steps 4 --kinds write,persist,short,evict --block-size 1024 --kernel 5.15 \
	--diff short_copy_zero --no-minimize --json --share-stats
check share-states-counted '[ "$rc" = 0 ] && grep -q "prefix sharing: [1-9][0-9]* world(s) forked; [1-9][0-9]* state(s) met again" "$err"'

# the multi-host recipe (docs/cluster/parallel-explore.sh): 2 shards by GNU parallel
# --sshlogin to two loopback hosts, then merge; the merged report equals the single
# process's byte for byte but the "shards" count.  No ssh server runs here, so parallel's
# --ssh is tests/cluster/ssh-here.sh, which runs the command on this machine as sshd would.
# scripts/explore-space, the whole-space runs of docs/performance.md: 2 shards side by side,
# shared and unshared, merged reports byte for byte equal.
if [ -x /usr/bin/time ]; then
	run env BUILD="${BUILD:-build}" scripts/explore-space 2 "$tmp/space" 2
	check explore-space-shared '[ "$rc" = 0 ] && [ -s "$tmp/space/merged.json" ] &&
		grep -q "^space $(sed -n "1s/.*\"space\": \([0-9]*\),.*/\1/p" "$tmp/space/merged.json"): " "$out"'
	run env BUILD="${BUILD:-build}" scripts/explore-space 2 "$tmp/space-ns" 2 --no-share
	check explore-space-unshared-equal '[ "$rc" = 0 ] &&
		cmp "$tmp/space/merged.json" "$tmp/space-ns/merged.json"'
else
	echo "explore: GNU time (/usr/bin/time) is not installed: the explore-space checks are" \
		"skipped (scripts/install-deps installs it)"
fi
if command -v parallel > /dev/null; then
	pex=(--steps 3 --kernel 6.12 --block-size 1024 --kinds write,truncate,mwrite)
	run "$sim" explore "${pex[@]}" --json
	cp "$out" "$tmp/pex-single.json"
	# env -i: CI's environment has no SHELL, which parallel's remote side needs (sshd sets it;
	# ssh-here.sh must too), so the check runs without the caller's environment.
	run env -i PATH="$PATH" EXT4SIM="$PWD/$sim" PARALLEL_SSH="$PWD/tests/cluster/ssh-here.sh" \
		HOME="$tmp" docs/cluster/parallel-explore.sh 1/127.0.0.1,1/localhost 2 "$tmp/pex" "${pex[@]}"
	check parallel-sshlogin-recipe '[ "$rc" = 0 ] && [ -s "$tmp/pex/r0.json" ] &&
		[ -s "$tmp/pex/r1.json" ] && grep -q "\"shards\": 2," "$tmp/pex/merged.json" &&
		sed "1s/\"shards\": 2,/\"shards\": 1,/" "$tmp/pex/merged.json" | cmp -s - "$tmp/pex-single.json" ||
		{ echo "  the merged report of the 2 shards differs from the single run"; false; }'
	# A host that runs nothing (an ssh that exits 0 at once): parallel still exits 0, the
	# recipe must not merge what is missing.
	run env EXT4SIM="$PWD/$sim" PARALLEL_SSH=true HOME="$tmp" \
		docs/cluster/parallel-explore.sh 1/127.0.0.1 2 "$tmp/pex-none" --steps 2
	check parallel-recipe-missing-shard '[ "$rc" = 1 ] && grep -q "shard 0/2 wrote no report" "$err" &&
		[ ! -s "$tmp/pex-none/merged.json" ]'
else
	echo "explore: GNU parallel is not installed: the multi-host recipe check is skipped" \
		"(scripts/install-deps installs it)"
fi
