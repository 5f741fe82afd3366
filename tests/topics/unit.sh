# unit.sh - the cmocka unit tests ($build/tests/test_*, from tests/unit/): one count per
# test case, from each binary's own summary; a binary that stops without one is a failure.

units=()
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	units+=("$t")
	spawn "${t##*/}" "$t"
done
for t in "${units[@]}"; do
	collect "${t##*/}"
	cat "$err" >> "$out"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	if [ -z "$p" ] && [ -z "$f" ]; then
		failed "${t##*/}" "exited $rc without a cmocka summary; it ended:"
		tail -20 "$out" | sed 's/^/  /'
		continue
	fi
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
	if [ "${f:-0}" != 0 ] || [ "$rc" != 0 ]; then
		grep -E '^\[  (FAILED|ERROR) |^\[   LINE   \]' "$out" | head -20 | sed 's/^/  /'
		if [ "${f:-0}" = 0 ]; then failed "${t##*/}" "exited $rc"; else
			echo "  reproduce: $cmdline (one test: CMOCKA_TEST_FILTER=NAME $cmdline)"
			keep_tmp=1
		fi
	fi
done

# jbd2's log as e2fsprogs reads it: test_jbd2__e2fsprogs_image writes the model's log (64bit,
# csum v3, three transactions: two descriptors, an escaped block, a revoke) into the journal
# inode of an mke2fs image; debugfs's logdump lists them, e2fsck replays them without a
# checksum complaint and leaves a clean file system, and the replayed blocks are the model's.
# Skipped, with a message, where e2fsprogs is not installed.
e2p=$(PATH="$PATH:/usr/sbin:/sbin" command -v mke2fs debugfs e2fsck 2>/dev/null | wc -l)
if [ "$e2p" = 3 ] && [ -x "$build/tests/test_jbd2" ]; then
	PATH="$PATH:/usr/sbin:/sbin"
	img=$tmp/jbd2.img
	rm -f "$img" && truncate -s 8M "$img"
	run mke2fs -q -F -t ext4 -b 1024 -U 0b7d3c2e-1f2a-4b5c-8d9e-0a1b2c3d4e5f \
		-E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$img"
	jmap=$(debugfs -R "stat <8>" "$img" 2>/dev/null | sed -n '/^EXTENTS:/{n;p;}')
	jhome=$(debugfs -R "ffb 70 4000" "$img" 2>/dev/null | sed -n 's/^Free blocks found: //p')
	jenv=(env EXT4SIM_JBD2_IMAGE="$img" EXT4SIM_JBD2_MAP="$jmap" EXT4SIM_JBD2_HOME="$jhome"
		CMOCKA_TEST_FILTER=test_jbd2__e2fsprogs_image "$build/tests/test_jbd2")
	run "${jenv[@]}"
	check jbd2-e2fsprogs-log-written '[ $rc = 0 ] && grep -q "^\[  PASSED  \] 1 test" "$out" "$err"'
	run debugfs -R logdump "$img"
	check jbd2-e2fsprogs-logdump 'grep -q "^Journal starts at block 1, transaction 1$" "$out" &&
		[ "$(grep -c "type 2 (commit block)" "$out")" = 3 ] &&
		[ "$(grep -c "type 1 (descriptor block)" "$out")" = 4 ] &&
		grep -q "^Found expected sequence 3, type 5 (revoke table)" "$out" &&
		grep -q "^No magic number at block 81: end of journal.$" "$out" ||
		{ echo "  logdump does not list the model'"'"'s three transactions:"; sed "s/^/    /" "$out"; false; }'
	cp "$img" "$img.replayed"
	debugfs -w -R "feature needs_recovery" "$img.replayed" > /dev/null 2>&1
	run e2fsck -fy "$img.replayed"
	check jbd2-e2fsprogs-replay '[ $rc = 0 ] && grep -q "recovering journal" "$out" &&
		! grep -qiE "checksum|invalid|corrupt|error" "$out" "$err"'
	run e2fsck -fn "$img.replayed"
	check jbd2-e2fsprogs-clean-after-replay '[ $rc = 0 ]'
	jenv[1]=EXT4SIM_JBD2_IMAGE="$img.replayed"
	run env EXT4SIM_JBD2_VERIFY=1 "${jenv[@]:1}"
	check jbd2-e2fsprogs-replayed-blocks '[ $rc = 0 ] && grep -q "^\[  PASSED  \] 1 test" "$out" "$err"'
else
	echo "unit: mke2fs, debugfs or e2fsck not installed: the e2fsprogs checks of jbd2's log are skipped"
fi
