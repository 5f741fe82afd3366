# cli.sh - the command line: bad input exits 2 with one message on stderr and nothing on
# stdout; --dump-file; the outputs of crashstates, diff and patches (goldens under
# tests/golden/cli/); docs/patches.md is what the code prints.

# bad scenario files: exit 2, and the error at the position the file's first line names
for f in tests/data/yaml-bad/*.yaml; do
	expect_exit2 "bad-scenario ${f##*/}" "$sim" run "$f"
	want=$(sed -n '1s/^# expect: //p' "$f" | cut -d: -f1,2)
	sed -n 2p "$f" | grep -q '^# unit-only' && want=""
	if [ -n "$want" ] && ! grep -q "^$f:$want:" "$err"; then
		failed "bad-scenario-position ${f##*/}" "error '$(cat "$err")' is not at $want"
	fi
done
expect_exit2 unknown-command "$sim" frobnicate
expect_exit2 unknown-flag "$sim" run --frob scenarios
expect_exit2 bad-step "$sim" run -c "pwrite 0"
expect_exit2 bad-block-size "$sim" run --block-size 512 -c fsync
expect_exit2 unknown-kernel "$sim" run --kernel 2.6 -c fsync
expect_exit2 unknown-patch "$sim" run --patch nosuch=on -c fsync
expect_exit2 missing-file "$sim" run "$tmp/nonexistent.yaml"
expect_exit2 unknown-variant "$sim" run --variant nosuch scenarios
run "$sim" run --dump-file "$tmp/nodir/x" -c "pwrite 0 10"
check dump-into-missing-directory '[ "$rc" = 2 ] && [ ! -e "$tmp/nodir" ]'
# 1 MiB and 3 bytes of 0x41: the size and the tail as written
run "$sim" run --quiet --dump-file "$tmp/d" -c "pwrite -S 0x41 1m 3"
check dump-file-content '[ "$(stat -c %s "$tmp/d")" = $((1048576 + 3)) ] &&
	[ "$(tail -c 3 "$tmp/d")" = AAA ]'

# crashstates: the contract's JSON keys, and a hand-counted case (2 unflushed writes to
# 2 blocks: 4 raw states, 2 distinct)
run "$sim" crashstates --json scenarios/crash/shutdown-completes-inflight.yaml
check crashstates-json 'golden crashstates-json "$out"'
expect_exit2 crashstates-without-file "$sim" crashstates
expect_exit2 diff-without-patch "$sim" diff scenarios/basic/short-copy.yaml
expect_exit2 diff-unknown-patch "$sim" diff scenarios/basic/short-copy.yaml --patch no_such_patch
expect_exit2 run-unknown-patch "$sim" run --patch no_such_patch=on scenarios/basic/short-copy.yaml

# diff: the short-copy fix turns the F2 violation off on 5.15, and the JSON holds both runs
run "$sim" diff scenarios/basic/short-copy.yaml --patch short_copy_zero --kernel 5.15
check diff-text 'golden diff-text "$out"'
run "$sim" diff --json scenarios/basic/short-copy.yaml --patch short_copy_zero --kernel 5.15
check diff-json 'golden diff-json "$out"'

# patches: every toggle listed has its commit line; every profile a recorded kernel-check
# campaign names is listed (counts from the output itself, not from here)
run "$sim" patches
ntoggles=$(sed -n '/^patch toggles/,/^not modelled/p' "$out" | grep -c '^  [a-z0-9_]*$')
nprofiles_missing=0
for p in $(sed -n 's/^# profile: //p' tests/kernel/kernel-check-*.txt); do
	grep -q "^  $p " "$out" || nprofiles_missing=$((nprofiles_missing + 1))
done
check patches-toggles-and-profiles '[ "$ntoggles" -gt 0 ] &&
	[ "$(grep -c "^    commit:" "$out")" = "$ntoggles" ] && [ $nprofiles_missing = 0 ]'

expect_exit2 keep-without-point "$sim" crashstates --keep 1 scenarios/crash/two-crashes.yaml
expect_exit2 point-on-run "$sim" run --point 1 scenarios/crash/two-crashes.yaml
expect_exit2 keep-bad-list "$sim" crashstates --point 1 --keep 3-1 scenarios/crash/two-crashes.yaml
# --point/--keep shows exactly the state an example names, every message included
run "$sim" crashstates --crash-everywhere --point 3 --keep 2 scenarios/crash/foo-zero-tail.yaml
check crashstates-point-keep 'golden crashstates-point-keep "$out"'

# docs/patches.md is what the code produces, and covers every toggle with a difference shown
run scripts/patches-doc -b "$build"
check patches-doc-current 'cmp -s "$out" docs/patches.md ||
	{ echo "  docs/patches.md is stale: run scripts/patches-doc > docs/patches.md"; false; }'
run "$sim" patches
check patches-doc-every-toggle '[ "$(grep -c "^## \`" docs/patches.md)" = "$(grep -c "^    commit:" "$out")" ] &&
	! awk "/^## /{if (n && !d) bad = 1; n = 1; d = 0} /<- differs|only (on|off):/{d = 1}
	       END{exit !(bad || (n && !d))}" docs/patches.md'
