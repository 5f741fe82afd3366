# real-ext4.sh - the model's device is a real ext4 (docs/real-kernel.md, "The on-disk
# format"): scripts/real-ext4-check over scenarios/ and a generated campaign of 40:
# e2fsck -fn and debugfs on every final image; as root with loop devices, also every
# crash state mounted by this machine's kernel (its jbd2 replays the model's log: the size
# and bytes the model lists), e2fsck after that recovery, kernel-check images read back
# with --from-image, and real kernels' logs replayed by the model.  Without e2fsprogs,
# root or loop devices the script says what it skips; each of its checks is one count.

# under the sanitizers (make asan) the model's part only: part 1 on two folders, no mount.
# grep reads nm's whole output (no -q): under pipefail an early exit would end nm with
# SIGPIPE and fail the test
sanitized() { nm "$sim" 2> /dev/null | grep __asan_init > /dev/null; }
if sanitized; then
	run scripts/real-ext4-check -b "$build" --no-mount --cases 0 scenarios/basic/*.yaml \
		scenarios/crash/*.yaml
else
	run scripts/real-ext4-check -b "$build" --count 40 --cases 8
fi
grep '^real-ext4-check: skipped: \|^real-ext4: figures: ' "$out" | sed 's/^/  /'
grep '^FAIL ' "$out" | head -20 | sed 's/^/  /'
tally real-ext4 "$out" real-ext4

# a namespace scenario's crash state: the kernel must read the state's whole tree; an
# ext4sim that lists /A with another link count is caught, once, by that comparison
if [ "$(id -u)" = 0 ] && ! sanitized &&
	grep -q '(\([1-9][0-9]*\) of them a namespace scenario' "$out"; then
	mkdir -p "$tmp/fake"
	printf '%s\n' '#!/bin/bash' "real=$PWD/$sim" \
		'if [ "$1" = crashstates ]; then "$real" "$@" | sed "s|^\(        /A dir ino [0-9]* nlink\) 3 |\1 9 |"; exit "${PIPESTATUS[0]}"; fi' \
		'exec "$real" "$@"' > "$tmp/fake/ext4sim"
	chmod +x "$tmp/fake/ext4sim"
	run scripts/real-ext4-check -b "$tmp/fake" --count 0 --cases 0 scenarios/namespace/dir-fsync.yaml
	check real-ext4-namespace-differs '[ "$rc" = 1 ] && [ "$(grep -c "^FAIL " "$out")" = 1 ] &&
		grep -q "^FAIL .*dir-fsync.yaml (default) (step-07-state-0001.img): the kernel reads another namespace: < /A dir ino 13 nlink 9 " "$out"'
fi
