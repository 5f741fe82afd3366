# robust.sh - bad input and big work (docs/performance.md, "Limits"): each input under
# tests/data/robust/ that once crashed, hung, lost output or went quadratic, and what it
# must do now; exit statuses on a full stdout, atomic files, the limits' messages,
# strict numeric flags, merge refusing an incomplete report.

# a collapse reaching EOF (and an insert past it) in data=journal before 6.5: a crash
# point inside the forced commit comes before the step's EINVAL (was a model assertion)
run "$sim" run --crash-everywhere --summary tests/data/robust/collapse-past-eof-jdata.yaml
check collapse-past-eof-jdata '[ "$rc" = 0 ] && [ "$(grep -c " PASS " "$out")" = 5 ]'
run "$sim" run --crash-everywhere --data journal --kernel 5.14 -c "pwrite 0 4096" -c "fcollapse 0 8192"
check collapse-past-eof-inline '[ "$rc" = 0 ] && grep -q "fallocate refused" "$out"'

# dio_read keeps its operands through import, export --format yaml and the scripts,
# where it is a process of its own opened O_DIRECT (was a bare "dio_read")
run "$sim" import tests/data/robust/dio-read.xfs_io
cp "$out" "$tmp/dio.yaml"
check import-dio-read '[ "$rc" = 0 ] && grep -q "^  - dio_read 0 4096$" "$tmp/dio.yaml" &&
	grep -q "^  - dio_read -v 512 1024$" "$tmp/dio.yaml"'
run "$sim" run --quiet "$tmp/dio.yaml"
check import-dio-read-loads '[ "$rc" = 0 ]'
run "$sim" export --format yaml "$tmp/dio.yaml"
check export-yaml-dio-read '[ "$rc" = 0 ] && grep -q "^  - dio_read -v 512 1024$" "$out"'
run "$sim" export -c "pwrite 0 8192" -c "dio_read 0 4096" -c "pread 0 10"
check export-xfs_io-dio-read '[ "$rc" = 0 ] && grep -q "^io -d -c '\''pread 0 4096'\''$" "$out" &&
	! grep -q "dio_read'\''" "$out"'
run "$sim" export --format fstests -c "pwrite 0 8192" -c "dio_read 0 4096"
check export-fstests-dio-read '[ "$rc" = 0 ] && grep -q "^io -d -c \"pread 0 4096\"\$" "$out" &&
	grep -q "^read 4096/4096 bytes at offset 0\$" "$out"'

# --crash-everywhere with data=journal at 1 KiB blocks: every fsync leaves one more
# transaction in the log and each crash point mounts hundreds of outcomes; they share the
# replay of the log's durable prefix, so recovery's work (log blocks read plus blocks
# written home, "recovery_blocks") about doubles with the steps (was four times: each
# outcome replayed the whole log); counted, not timed.  Measured: 37801 for 10, 88161 for
# 20 (2.33: the same 5036 blocks a step as the model's own layout had, 11063 fewer at the
# start), bound 2.5
jrec() {
	local cmds=() i
	for i in $(seq 1 "$1"); do cmds+=(-c "pwrite -S 0x11 0 8k" -c fsync); done
	run "$sim" run --json --crash-everywhere --block-size 1024 --data journal "${cmds[@]}"
	[ "$rc" = 0 ] && grep -o '"recovery_blocks": [0-9]*' "$out" | awk '{ s += $2 } END { print s + 0 }'
}
r10=$(jrec 10)
r20=$(jrec 20)
check jdata-crash-everywhere-linear '[ -n "$r10" ] && [ -n "$r20" ] && [ "$r10" -gt 0 ] &&
	[ $((10 * r20)) -le $((25 * r10)) ]'

# the quadratic paths: 32 MiB written and fsynced with 1 KiB blocks, nodelalloc (was
# 32 s in the io list and the device's flush), and a delalloc 256 MiB write (was the
# checker's linear punch and read); a generous bound that a quadratic path misses
slow=1
[ "$build" = build-asan ] && slow=4        # the sanitizer build is slower
SECONDS=0
run "$sim" run --quiet --block-size 1024 --nodelalloc --disk-blocks 1m -c "pwrite 0 32m" -c fsync
t1=$SECONDS
check big-write-1k-nodelalloc '[ "$rc" = 0 ] && [ $t1 -le $((8 * slow)) ]'
SECONDS=0
run "$sim" run --quiet --disk-blocks 1m -c "pwrite 0 256m" -c fsync -c "pread 0 4096"
t2=$SECONDS
check big-write-4k-delalloc '[ "$rc" = 0 ] && [ $t2 -le $((15 * slow)) ]'

# the work budget: bytes written and read past --max-bytes are refused before anything
# runs, at the step (FILE:LINE:COL), and --max-bytes is checked
expect_exit2 budget-inline "$sim" run -c "pwrite 0 1g" -c "pread 0 1"
check budget-inline-message 'grep -q "^ext4sim: -c step 2: .*past the limit of 1073741824" "$err"'
expect_exit2 budget-file "$sim" run --max-bytes 4k tests/data/robust/collapse-past-eof-jdata.yaml
check budget-file-message 'grep -q "^tests/data/robust/collapse-past-eof-jdata.yaml:11:5: " "$err"'
expect_exit2 max-bytes-zero "$sim" run --max-bytes 0 -c fsync
expect_exit2 max-bytes-huge "$sim" run --max-bytes 17g -c fsync

# import checks the budget run checks (a scenario file has no key to raise it): refused at
# the input line, nothing on stdout (imported with exit 0, then refused by run)
expect_exit2 import-budget-xfs_io "$sim" import tests/data/robust/budget-dio-read.xfs_io
check import-budget-xfs_io-message 'grep -q "^tests/data/robust/budget-dio-read.xfs_io:3:1: .*past the limit of 1073741824" "$err"'
printf 'pwrite 0 17g\n' > "$tmp/17g.xfs_io"
expect_exit2 import-budget-17g "$sim" import "$tmp/17g.xfs_io"
check import-budget-17g-message 'grep -q "17g.xfs_io:1:1: .*past the limit" "$err"'
expect_exit2 import-budget-fsx "$sim" import tests/data/robust/budget-write.fsxops
check import-budget-fsx-message 'grep -q "^tests/data/robust/budget-write.fsxops:2:1: " "$err"'

# the memory a run needs (2.4 bytes a byte written) against the physical memory or an
# address-space limit: refused at the step before anything runs (was a failed allocation:
# an assertion's abort, exit 134); not under ASan, whose shadow needs the address space
if [ $slow = 1 ]; then
	run bash -c "ulimit -v 1000000; exec \"$sim\" run --max-bytes 2g --disk-blocks 1m -c fsync -c \"pwrite 0 1g\""
	check memory-address-limit '[ "$rc" = 2 ] && [ ! -s "$out" ] &&
		grep -q "^ext4sim: -c step 2: .*memory the run needs to about 2521 MiB .*address-space limit" "$err"'
fi
if [ "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" -lt 38000000 ]; then
	expect_exit2 memory-physical "$sim" run --max-bytes 16g --disk-blocks 16m -c "pwrite 0 16g"
	check memory-physical-message 'grep -q "^ext4sim: -c step 1: .*of the physical memory$" "$err"'
fi

# import's limits: a line, the whole input (an endless device), a NUL byte; the
# position of "nothing to import"
expect_exit2 import-dev-zero timeout 20 "$sim" import /dev/zero
head -c 5000 /dev/zero | tr '\0' a > "$tmp/long.xfs_io"
expect_exit2 import-long-line "$sim" import "$tmp/long.xfs_io"
check import-long-line-message 'grep -q ":1:4097: a line longer than 4096 bytes" "$err"'
yes "fsync" | head -c 17000000 > "$tmp/big.xfs_io"
expect_exit2 import-too-big "$sim" import "$tmp/big.xfs_io"
expect_exit2 import-nothing "$sim" import tests/data/robust/nothing.xfs_io
check import-nothing-position 'grep -q "^tests/data/robust/nothing.xfs_io:3:1: no operations" "$err"'

# scenario directories: one at a time (memory does not grow with their number), at
# most 10000 entries a directory, a symlink loop named as such, no scenario at all
mkdir -p "$tmp/many"
for i in $(seq 1 1000); do printf 'name: s%d\nsteps: [pwrite 0 4096, fsync]\n' "$i" > "$tmp/many/s$i.yaml"; done
# GNU time: the peak memory (was 128 MB, all loaded first); not under ASan, whose
# quarantine keeps up to 256 MB of freed memory by design
if [ -x /usr/bin/time ] && [ $slow = 1 ]; then
	run /usr/bin/time -f %M "$sim" run --summary "$tmp/many"
	check many-scenarios '[ "$rc" = 0 ] && [ "$(tail -1 "$err")" -lt 30000 ] &&
		grep -q "^1000 scenario(s), 1000 variant(s)" "$out"'
else
	run "$sim" run --summary "$tmp/many"
	check many-scenarios '[ "$rc" = 0 ] && grep -q "^1000 scenario(s), 1000 variant(s)" "$out"'
fi
mkdir -p "$tmp/loop/sub" && cp tests/data/robust/collapse-past-eof-jdata.yaml "$tmp/loop/"
ln -sfn .. "$tmp/loop/sub/up"
expect_exit2 dir-symlink-loop "$sim" run "$tmp/loop"
check dir-symlink-loop-message 'grep -q "a directory loop" "$err"'
mkdir -p "$tmp/empty"
expect_exit2 run-empty-dir "$sim" run "$tmp/empty"
mkfifo "$tmp/fifo.yaml"
expect_exit2 fifo-scenario timeout 10 "$sim" run "$tmp/fifo.yaml"
mkdir -p "$tmp/toomany" && (cd "$tmp/toomany" && seq 1 10001 | sed 's/$/.txt/' | xargs touch)
expect_exit2 dir-too-many "$sim" run "$tmp/toomany"

# every output checked: a full stdout is exit 2 with a message, never 0
for cmd in "run -c fsync" "run --json -c fsync" "patches" "import tests/data/robust/small.xfs_io" \
	"export -c fsync" "export --format fstests -c fsync" "explore --steps 1 --json" \
	"crashstates scenarios/crash/two-crashes.yaml" "gen --seed 1 --count 2"; do
	# shellcheck disable=SC2086
	run "$sim" $cmd
	cmdline="$sim $cmd > /dev/full"
	# shellcheck disable=SC2086
	"$sim" $cmd > /dev/full 2> "$err"
	rc=$?
	check "full-stdout ${cmd%% *}-${cmd##* }" '[ "$rc" = 2 ] && grep -q "cannot write the output" "$err"'
done

# files written whole or not at all (a temporary made with mkstemp, renamed): a write
# that fails (a file size limit stands for a full disk) leaves nothing behind
mkdir -p "$tmp/g" "$tmp/x"
run bash -c "ulimit -f 0; trap '' XFSZ; exec \"$sim\" gen --seed 1 --count 3 --out \"$tmp/g\""
check gen-full-disk '[ "$rc" = 2 ] && [ -z "$(ls -A "$tmp/g")" ]'
run bash -c "ulimit -f 0; trap '' XFSZ; exec \"$sim\" export --format fstests --test-number 999 -o \"$tmp/x\" scenarios/crash/two-crashes.yaml"
check export-full-disk '[ "$rc" = 2 ] && [ -z "$(ls -A "$tmp/x")" ]'
run "$sim" export --format fstests --test-number 999 -o "$tmp/x" scenarios/crash/two-crashes.yaml
check export-whole '[ "$rc" = 0 ] && [ "$(ls -A "$tmp/x" | tr "\n" " ")" = "999 999.out " ] && [ -x "$tmp/x/999" ]'
run bash -c "ulimit -f 0; trap '' XFSZ; exec \"$sim\" run --quiet --dump-file \"$tmp/x/d\" -c \"pwrite 0 8192\""
check dump-full-disk '[ "$rc" = 2 ] && [ ! -e "$tmp/x/d" ] && [ -z "$(ls -A "$tmp/x" | grep -v ^999)" ]'
# a file size limit without the shell's trap: SIGXFSZ ignored, the write's EFBIG ends
# it as a full disk does (was: killed by the signal, exit 153, the temporary left); 8 KiB
# is room for the messages, whose files the limit covers too
mkdir -p "$tmp/fs"
run bash -c "ulimit -f 8; exec \"$sim\" run --quiet --dump-file \"$tmp/fs/d\" -c \"pwrite 0 64k\""
check dump-file-size-limit '[ "$rc" = 2 ] && grep -q "cannot write .*/d: File too large" "$err" &&
	[ -z "$(ls -A "$tmp/fs")" ]'
run bash -c "ulimit -f 0; exec \"$sim\" gen --seed 1 --count 2 --out \"$tmp/fs\""
check gen-size-limit '[ "$rc" = 2 ] && [ -z "$(ls -A "$tmp/fs")" ]'
run bash -c "ulimit -f 8; exec \"$sim\" patches > \"$tmp/fs/out\""
check stdout-size-limit '[ "$rc" = 2 ] && grep -q "cannot write the output: File too large" "$err"'
rm -f "$tmp/fs/out"

# output paths that are not regular files are written in place, never replaced: a
# device node (a scratch copy of /dev/full's numbers: its ENOSPC is the message), a FIFO
# (its reader gets the whole file, holes as zeros); a symbolic link is followed (the
# regular file it names replaced, the link kept), a link to nothing refused
mkdir -p "$tmp/op"
if mknod "$tmp/op/full" c 1 7 2> /dev/null; then
	run "$sim" run --quiet --dump-file "$tmp/op/full" -c "pwrite 0 8192"
	check dump-file-device-kept '[ "$rc" = 2 ] && [ -c "$tmp/op/full" ] &&
		grep -q "cannot write .*/full: No space left on device" "$err" &&
		[ "$(ls -A "$tmp/op")" = full ]'
	run "$sim" html -o "$tmp/op/full" -c "pwrite 0 10"
	check html-device-kept '[ "$rc" = 2 ] && [ -c "$tmp/op/full" ] && [ "$(ls -A "$tmp/op")" = full ]'
	rm -f "$tmp/op/full"
fi
mkfifo "$tmp/op/fifo"
cat "$tmp/op/fifo" > "$tmp/op-read" &
run timeout 20 "$sim" run --quiet --dump-file "$tmp/op/fifo" -c "pwrite -S 0x61 0 10" -c "pwrite -S 0x62 5000 3"
wait
check dump-file-fifo '[ "$rc" = 0 ] && [ -p "$tmp/op/fifo" ] && [ "$(wc -c < "$tmp/op-read")" = 5003 ] &&
	[ "$(head -c 10 "$tmp/op-read")" = aaaaaaaaaa ] && [ "$(tail -c 3 "$tmp/op-read")" = bbb ]'
printf 'old\n' > "$tmp/op/target"
ln -s target "$tmp/op/link"
run "$sim" run --quiet --dump-file "$tmp/op/link" -c "pwrite -S 0x63 0 4"
check dump-file-symlink-followed '[ "$rc" = 0 ] && [ -L "$tmp/op/link" ] &&
	[ "$(cat "$tmp/op/target")" = cccc ] && [ "$(ls -A "$tmp/op" | tr "\n" " ")" = "fifo link target " ]'
ln -s nothing "$tmp/op/dangling"
expect_exit2 dump-file-dangling-symlink "$sim" run --quiet --dump-file "$tmp/op/dangling" -c fsync
check dump-file-dangling-nothing-made '[ ! -s "$out" ] && [ ! -e "$tmp/op/nothing" ]'

# a scenario from a FIFO is read once: kept from the check for the run (was read
# twice: the run found it empty, exit 2 after the output)
mkfifo "$tmp/op/s.yaml"
printf 'name: s\nsteps: [pwrite 0 4096, fsync]\n' > "$tmp/op/s.yaml" &
run timeout 20 "$sim" run "$tmp/op/s.yaml"
wait
check fifo-scenario-read-once '[ "$rc" = 0 ] && grep -q "^1 scenario(s), 1 variant(s): 1 as expected" "$out" &&
	[ ! -s "$err" ]'
run "$sim" run --dump-file "$tmp/nodir/d" -c "pwrite 0 10"
check dump-bad-path-before-output '[ "$rc" = 2 ] && [ ! -s "$out" ]'
: > "$tmp/regular"
expect_exit2 explore-out-regular-file "$sim" explore --steps 1 --out "$tmp/regular"

# signals: an interrupted explore reports what it did, marked incomplete (exit 128 +
# the signal), and merge refuses that report, a cut one and a header alone
"$sim" explore --seed 1 --count 100000000 --steps 5 --json > "$tmp/int.json" 2> "$tmp/int.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
cmdline="ext4sim explore --seed 1 --count 100000000 --steps 5 --json (SIGINT after 1 s)"
check explore-sigint '[ "$rc" = 130 ] && tail -1 "$tmp/int.json" | grep -q "^\], \"complete\": false}$"'
run "$sim" merge "$tmp/int.json"
check merge-incomplete '[ "$rc" = 2 ] && grep -q "incomplete report" "$err" && [ ! -s "$out" ]'
run "$sim" explore --steps 2 --json --shard 0/2
head -1 "$out" > "$tmp/head.json"
cp "$out" "$tmp/s0.json"
run "$sim" merge "$tmp/head.json"
check merge-header-alone '[ "$rc" = 2 ] && grep -q "cut short" "$err"'
sed '$d' "$tmp/s0.json" > "$tmp/cut.json"
run "$sim" merge "$tmp/cut.json"
check merge-cut '[ "$rc" = 2 ] && grep -q "cut short" "$err"'
mkdir -p "$tmp/gs"
"$sim" gen --seed 3 --count 100000 --out "$tmp/gs" > /dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
cmdline="ext4sim gen --seed 3 --count 100000 --out DIR (SIGTERM after 1 s)"
check gen-sigterm-no-temporary '[ "$rc" = 143 ] && [ -z "$(ls -A "$tmp/gs" | grep "^\.")" ]'

# strict numeric flags
for v in 1/-1 0/2junk 0/4294967297 1/1 /2 1/ 0x1/2 " 0/2" 0/2/3; do
	expect_exit2 "shard '$v'" "$sim" explore --steps 1 --shard "$v"
done
expect_exit2 steps-junk "$sim" explore --steps 3x
expect_exit2 seed-negative "$sim" explore --seed -1 --count 2
expect_exit2 crash-bound-junk "$sim" run --crash-bound 12q -c fsync
expect_exit2 gen-count-zero "$sim" gen --seed 1 --count 0

# messages on one line: a grammar's control bytes and newlines, a flag error; JSON
# stays valid with a file name that is not UTF-8
expect_exit2 grammar-control-bytes "$sim" explore --grammar tests/data/robust/grammar-control-bytes.yaml
check grammar-control-bytes-one-line '[ "$(wc -l < "$err")" = 1 ] && ! grep -q "$(printf "\001")" "$err"'
expect_exit2 flag-error-one-line "$sim" run --frob -c fsync
check flag-error-one-line-count '[ "$(wc -l < "$err")" = 1 ]'
mkdir -p "$tmp/u8"
cp tests/data/robust/collapse-past-eof-jdata.yaml "$tmp/u8/$(printf 'a\377b').yaml"
run "$sim" run --json --variant k6-6 "$tmp/u8"
check json-non-utf8-path '[ "$rc" = 0 ] && "$build/tests/json-check" "$out"'

# a crash point with 1480 pending writes: 2^1480 raw states, past a double; the JSON
# count stays a number (was "inf"; found by fuzz_scenario)
run "$sim" run --json --crash-everywhere --crash-bound 16 tests/data/robust/states-past-double.yaml
check json-states-past-double '[ "$rc" = 0 ] && "$build/tests/json-check" "$out"'

# a long random run (streamed) through crash --keep steps: no leak (the ASan build's
# leak check fails the run otherwise; found by fuzz_steps)
run "$sim" explore --grammar tests/data/robust/grammar-keep.yaml --seed 6 --count 1 --steps 40 --fixed-length
check stream-keep-no-leak '[ "$rc" = 0 ] && grep -q "long runs: 40 step(s) run" "$out"'

# a grammar's writes with their own fill byte, spelled -S0x5a or -DS 0x6b: explore keeps
# them as they are (it added a second -S and asserted on the step it made)
run "$sim" explore --grammar tests/data/robust/grammar-own-fill.yaml --steps 2 --no-minimize --json
check grammar-own-fill '[ "$rc" = 0 ] && grep -q "\"space\": 20, .*\"run\": 20" "$out"'

# a data-synced write of many calls (each call commits; each commit's crash states scan
# the file): the scan is linear in the file and its writes, not their product (took
# 9.5 s for 1 MB in 4 KiB calls, 43.6 s for 2 MB; the fuzz harness timed out on it)
run "$sim" run --crash-everywhere --summary -c "pwrite -S 0x41 0 6144" -c "pwrite -DS 0xbb -V 1 29 1000000"
check dsync-many-calls '[ "$rc" = 0 ] && grep -q "PASS" "$out"'
