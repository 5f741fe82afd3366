# determinism.sh - the whole scenario suite twice gives byte-identical JSON and traces, and
# the other build (build-asan against build), when it is up to date with every source
# folder, prints the same JSON.

run "$sim" run --json scenarios
cp "$out" "$tmp/j1"
run "$sim" run --json scenarios
check json-twice '[ -s "$tmp/j1" ] && cmp -s "$tmp/j1" "$out"'
run "$sim" run scenarios
cp "$out" "$tmp/t1"
run "$sim" run scenarios
check trace-twice '[ -s "$tmp/t1" ] && cmp -s "$tmp/t1" "$out"'
other=build-asan
[ "$build" = build-asan ] && other=build
# -O2 against -O1 + sanitizers: compared only when that binary is newer than every source
if [ -x "$other/ext4sim" ] && [ -z "$(find lib model checker scenario crash sim explore oracle cli \
	-name '*.[ch]' -newer "$other/ext4sim" | head -1)" ]; then
	run "$other/ext4sim" run --json scenarios
	check other-build-json 'cmp -s "$tmp/j1" "$out" ||
		{ echo "  $build and $other builds print different JSON"; false; }'
fi
