# cli.sh - the command line: bad input exits 2 with one message on stderr and nothing on
# stdout; --dump-file; the outputs of crashstates, diff and patches (goldens under
# tests/golden/cli/); docs/patches.md is what the code prints; the 4.19 backport's counters and
# diff command in docs/bug-library.md are what the model measures; the docs' quoted outputs of
# `$ build/ext4sim ...` are what those commands print.

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
# a namespace step's bad path on the command line: its column, one line, nothing on stdout
expect_exit2 namespace-step-c "$sim" run -c "pwrite 0 4k" -c "link f d//g"
printf '%s\n' "ext4sim: -c 'link f d//g': column 10: link: NEW 'd//g' has an empty component (names are separated by one '/', and a path does not end with one)" > "$tmp/ns-c.want"
check namespace-step-c-message 'cmp -s "$tmp/ns-c.want" "$err"'
expect_exit2 namespace-step-c-depth "$sim" run -c "mkdir a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q"
check namespace-step-c-depth-message 'grep -qx "ext4sim: -c .*: column 39: mkdir: PATH .* has more than 16 components" "$err"'
expect_exit2 bad-block-size "$sim" run --block-size 512 -c fsync
# the smallest device is mke2fs's smallest with a journal, and the message says so
expect_exit2 disk-blocks-below-journal "$sim" run --disk-blocks 2047 -c fsync
check disk-blocks-below-journal-why 'grep -q "no journal below 2048 blocks" "$err"'
run "$sim" run --quiet --disk-blocks 2048 -c fsync
check disk-blocks-smallest '[ "$rc" = 0 ]'
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

# crashstates: the JSON keys of docs/scenario-format.md, and a hand-counted case (2 unflushed writes to
# 2 blocks: 4 raw states, 2 distinct)
run "$sim" crashstates --json scenarios/crash/shutdown-completes-inflight.yaml
check crashstates-json 'golden crashstates-json "$out"'
# the text lists each state's bytes as runs under its line, as the JSON's "bytes", and
# keeps the line's "size N sha256 PREFIX..." (the JSON's sha256, 16 digits) for scripts
for f in scenarios/crash/shutdown-completes-inflight.yaml scenarios/crash/keep-none-no-residue.yaml; do
	"$sim" crashstates --json "$f" > "$tmp/cs.json"
	run "$sim" crashstates "$f"
	check "crashstates-text-bytes-$(basename "$f" .yaml)" '[ "$rc" = 0 ] &&
		[ "$(grep -c "^    size [0-9]* sha256 " "$out")" -gt 1 ] &&
		diff <(grep -o "\"bytes\": \"[^\"]*\"" "$tmp/cs.json" | sed "s/^\"bytes\": \"//; s/\"$//") \
			<(sed -n "s/^      bytes: //p" "$out") &&
		diff <(grep -o "\"sha256\": \"[0-9a-f]\{16\}" "$tmp/cs.json" | cut -d\" -f4) \
			<(sed -n "s/^    size [0-9]* sha256 \([0-9a-f]\{16\}\)\.\.\. .*/\1/p" "$out") &&
		[ "$(grep -c "^      bytes: " "$out")" = "$(grep -c "^    size " "$out")" ]'
done
# a namespace scenario's trace: the tree after each step that changed it (a hard link shares
# its inode number, a link shows its target), each distinct crash state's tree after the
# crash step; run --json gives every step's state and every crash state the tree as an
# array, the crash states' lines as namespace_text; a scenario of one file has none of it
ns_steps=(-c "mkdir A" -c "open -f A/foo" -c "pwrite -S 0xcc 0 8192" -c "link A/foo g"
	-c "fsync A/foo" -c "symlink A/foo l" -c "pwrite -S 0xdd 0 4096" -c "sync_range -w 0 0"
	-c "crash")
run "$sim" run "${ns_steps[@]}"
check namespace-trace '[ "$rc" = 0 ] && golden namespace-trace "$out"'
run "$sim" run --json "${ns_steps[@]}"
check namespace-json '[ "$rc" = 0 ] && "$build/tests/json-check" "$out" &&
	[ "$(grep -o "\"namespace\": \[{\"path\": \"/\", \"type\": \"dir\", \"ino\": 2," "$out" |
	     wc -l)" = 11 ] &&
	[ "$(grep -o "{\"path\": \"/g\", \"type\": \"reg\", \"ino\": 14, \"nlink\": 2," "$out" |
	     wc -l)" = 8 ] &&
	grep -q "{\"path\": \"/l\", \"type\": \"lnk\", \"ino\": 15, \"nlink\": 1, \"size\": 5, \"hash\": \"[0-9a-f]\{32\}\", \"target\": \"A/foo\"}" "$out" &&
	[ "$(grep -o "\"namespace_text\": \"/ dir ino 2 " "$out" | wc -l)" = 2 ]'
run "$sim" run --json scenarios/crash/two-crashes.yaml
check namespace-json-one-file '[ "$rc" = 0 ] && ! grep -q namespace "$out"'
expect_exit2 crashstates-without-file "$sim" crashstates
expect_exit2 diff-without-patch "$sim" diff scenarios/basic/short-copy.yaml
expect_exit2 diff-unknown-patch "$sim" diff scenarios/basic/short-copy.yaml --patch no_such_patch
expect_exit2 run-unknown-patch "$sim" run --patch no_such_patch=on scenarios/basic/short-copy.yaml

# diff: the short-copy fix turns its violation off on 5.15, and the JSON holds both runs
run "$sim" diff scenarios/basic/short-copy.yaml --patch short_copy_zero --kernel 5.15
check diff-text 'golden diff-text "$out"'
run "$sim" diff --json scenarios/basic/short-copy.yaml --patch short_copy_zero --kernel 5.15
check diff-json 'golden diff-json "$out"'

# patches: every toggle listed has its commit line; every profile a recorded kernel-check
# campaign names is listed (counts from the output itself, not from here)
run "$sim" patches
cp "$out" "$tmp/patches.out"
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

# every mount option the model tells apart is a flag and a variant key: the flag gives the
# run the variant's trace (its header names the mode), explore's finding under them records
# them and replays, export mounts with them, a later flag overrides a variant
mo=scenarios/crash/mount-options-per-variant.yaml
for pair in "dioread-lock --dioread-lock" "noauto-da-alloc --noauto-da-alloc"; do
	set -- $pair
	"$sim" run --variant "$1" "$mo" | sed '1d; /^  verdict/,$d' > "$tmp/mo-variant.out"
	run "$sim" run --variant defaults "$2" "$mo"
	sed "1d; /^  verdict/,\$d; s/variant defaults:/variant $1:/" "$out" > "$tmp/mo-flag.out"
	check "mount-flag$2-is-the-variant" '[ "$rc" = 1 ] && [ -s "$tmp/mo-variant.out" ] &&
		cmp -s "$tmp/mo-variant.out" "$tmp/mo-flag.out" &&
		grep -q "^  crash_states at step 7: expected raw 4, distinct 1, violating 0 (-1: any); got raw 1," "$out"'
done
run "$sim" run --dioread-nolock --auto-da-alloc --variant noauto-da-alloc "$mo"
check mount-flags-over-a-variant '[ "$rc" = 1 ] &&
	grep -q "^-- variant noauto-da-alloc: kernel 6.18; block size 4096, data=ordered, delalloc, dioread_nolock, 16384 blocks$" "$out"'
run "$sim" run --json --dioread-lock --noauto-da-alloc -c "pwrite 0 1"
check mount-flags-json '[ "$rc" = 0 ] && grep -q "\"dioread_nolock\": false, \"auto_da_alloc\": false," "$out"'
run "$sim" explore --steps 3 --kernel 6.1 --kinds write,truncate,mwrite --dioread-lock --noauto-da-alloc \
	--out "$tmp/mo-ex"
f=$(ls "$tmp"/mo-ex/*.yaml 2>/dev/null | head -1)
check explore-records-mount-flags '[ "$rc" = 0 ] && [ -n "$f" ] && grep -q "^  dioread_nolock: false$" "$f" &&
	grep -q "^  auto_da_alloc: false$" "$f" && "$sim" run --summary "$f" > /dev/null &&
	"$sim" run "$f" | grep "delalloc, dioread_lock, noauto_da_alloc," > /dev/null'
run "$sim" export --format xfs_io --variant noauto-da-alloc "$mo"
check export-mounts-noauto-da-alloc '[ "$rc" = 0 ] && grep -q "noauto_da_alloc" "$out"'
run "$sim" gen --seed 1 --count 1 --dioread-lock --noauto-da-alloc
check gen-mount-flags '[ "$rc" = 0 ] && grep -q "^  dioread_nolock: false$" "$out" &&
	grep -q "^  auto_da_alloc: false$" "$out"'
run "$sim" quiz --seed 3 --dioread-lock --noauto-da-alloc --nodelalloc --data ordered
check quiz-mount-flags '[ "$rc" = 0 ] && grep -q "noauto_da_alloc" "$out"'

# docs/patches.md is what the code produces, and covers every toggle with a difference shown
run scripts/patches-doc -b "$build"
check patches-doc-current 'cmp -s "$out" docs/patches.md ||
	{ echo "  docs/patches.md is stale: run scripts/patches-doc > docs/patches.md"; false; }'
# docs/bug-kernels.md (the kernels each bug scenario violates on) is what the code produces
run scripts/bug-kernels-doc -b "$build"
check bug-kernels-doc-current 'cmp -s "$out" docs/bug-kernels.md ||
	{ echo "  docs/bug-kernels.md is stale: run scripts/bug-kernels-doc > docs/bug-kernels.md"; false; }'
run "$sim" patches
# (a section whose diff shows nothing is named: its toggle needs a scenario that shows it)
check patches-doc-every-toggle '[ "$(grep -c "^## \`" docs/patches.md)" = "$(grep -c "^    commit:" "$out")" ] &&
	awk "function done() {if (n && !d) {print \"  docs/patches.md: the diff of \" n \" shows no \" \\
		\"difference; give the toggle a scenario that shows one (.shown_by)\"; bad = 1}}
	     /^## /{done(); n = \$2; d = 0} /<- differs|only (on|off):/{d = 1}
	     END{done(); exit bad}" docs/patches.md'

# crash --keep naming a write that is not pending: FILE:LINE:COL, exit 2, nothing on stdout
printf 'name: keep-bad\nsteps:\n  - pwrite 0 10\n  - fsync\n  - crash --keep 5\n' > "$tmp/keep-bad.yaml"
expect_exit2 keep-not-pending "$sim" run "$tmp/keep-bad.yaml"
check keep-not-pending-position 'grep -q "^$tmp/keep-bad.yaml:5:11: crash --keep names a write" "$err"'
expect_exit2 keep-not-pending-inline "$sim" crashstates -c "pwrite 0 10" -c "crash --keep 1"

# -c steps for crashstates and diff: the same as the scenario file they spell
run "$sim" crashstates -c "pwrite -S 0xaa 0 8k" -c "sync_range -w 0 0" -c commit -c crash
check crashstates-inline '[ "$rc" = 0 ] && grep -q "point 1, crash at step 4: 4 raw state" "$out"'
run "$sim" diff --block-size 1024 --kernel 5.15 --patch short_copy_zero -c "pwrite -S 0x11 0 1536" \
	-c fsync -c evict -c "pwrite --short 768 -S 0x22 1024 1024" -c fsync -c crash
check diff-inline '[ "$rc" = 1 ] &&
	grep -q "^  expect: met? \[violated\] .* not as expected \[disksize_le_size\] .* as expected \[\]" "$out"'

# diff: exit 1 when a verdict differs off and on, 0 when none does; one block for variants
# that differ only in the toggle; the bytes where one-side crash states differ
f=scenarios/patches/exp-grow-zero-written-only.yaml
run "$sim" diff "$f" --patch exp_grow_zero_written_only
check diff-experimental 'golden diff-experimental "$out" && [ "$rc" = 1 ] &&
	[ "$(grep -c "^== " "$out")" = 2 ] && grep -q "bytes \[32, 64): 0x00 | 0x22" "$out"'
run "$sim" diff scenarios/patches/da-write-handle-overwrite.yaml --patch da_write_no_handle
check diff-equal-verdicts-exit-0 '[ "$rc" = 0 ]'

# bytes past one side's EOF are past EOF, not zeros: off never writes the file back (size 0)
run "$sim" diff scenarios/patches/jdata-writeback-commit.yaml --patch jdata_dirty_folio \
	--variant before-6.5
check diff-past-eof '[ "$rc" = 0 ] && grep -q "^      bytes size 0 | 12288 (off | on)\$" "$out" &&
	grep -q "^      bytes \[0, 12288): past EOF | 0xd1 (off | on)\$" "$out" && ! grep -q "0x00 | 0xd1" "$out"'
# an O_SYNC collapse and insert commit under the unified SYNC check (7.2.13's extents.c):
# only with unified_sync_check on does the crash keep them
run "$sim" diff scenarios/patches/unified-sync-collapse-insert.yaml --patch unified_sync_check \
	--variant after-7.1
check diff-osync-collapse-insert '[ "$rc" = 0 ] &&
	grep -A6 "^  step 6 (crash): the crash\$" "$out" | grep -q "^      only on: size 12288 " &&
	grep -A1 "^  step 11 (crash): the crash\$" "$out" | grep -q "differs (the states)\$"'
# diff --crash-everywhere pairs crash points by place (step, and moment inside it): the on
# side's extra flush inside step 11 leaves the later points paired (17 with 18), not shifted;
# equal counts over other states are marked
run "$sim" diff --crash-everywhere scenarios/bugs/2026-punch-edges-nonatomic.yaml \
	--patch sync_persist_zero --variant after-7.0-with-05
check diff-points-by-place 'golden diff-points-by-place "$out" && [ "$rc" = 0 ] &&
	grep -A1 "^  step 11 (fpunch), point 2: before a cache flush\$" "$out" |
		grep -q "^    the run.s point - | 17 .*no crash point here" &&
	grep -A1 "^  step 11 (fpunch): after it\$" "$out" |
		grep -q "^    the run.s point 17 | 18 .*   <- differs (the states)\$" &&
	grep -A1 "^  step 14 (pread): after it\$" "$out" | grep -q "^    the run.s point 20 | 21 "'

# matrix: every profile in release order, the rows that change marked; --toggles
run "$sim" matrix scenarios/bugs/2024-eof-pollution-extend.yaml
check matrix-profiles 'golden matrix-profiles "$out" && [ "$rc" = 0 ]'
run "$sim" matrix --json --toggles --kernel 6.18 "$f"
# (one row per toggle, counted from `ext4sim patches`; the experimental one fails)
check matrix-toggles-json '[ "$rc" = 0 ] &&
	[ "$(grep -c "\"toggle\": " "$out")" = "$(sed -n "/^patch toggles/,/^not modelled/p" \
		"$tmp/patches.out" | grep -c "^  [a-z0-9_]*\$")" ] &&
	grep -q "\"toggle\": \"exp_grow_zero_written_only\", \"on\": true, \"verdict\": \"fail\", \"violated\": \[\"gap_zero_on_extend\", \"read_posix\", \"fsync_durable\"\]" "$out"'
# the text of --toggles: one row per toggle and the profile's own, every digest in the column
# the header puts it (a name too long for the column stands on a line of its own, and never
# pushes a row's columns), each row "same" or "differs" against the profile, verdicts as
# "violates ..." (expect: set aside), no PASS/FAIL
run "$sim" matrix --toggles --kernel 6.18 "$f"
check matrix-toggles-text '[ "$rc" = 0 ] &&
	[ "$(awk "NR == 3 {pos = index(\$0, \"bytes\")} NR > 3 && pos &&
		substr(\$0, pos, 18) ~ /^[0-9a-f]+ [0-9a-f]+ \$/ && substr(\$0, pos + 8, 1) == \" \" &&
		substr(\$0, pos + 18) ~ /^(same   |differs|-      ) violates / {n++}
		END {print n + 0}" "$out")" = "$(( $(sed -n "/^patch toggles/,/^not modelled/p" \
		"$tmp/patches.out" | grep -c "^  [a-z0-9_]*\$") + 1 ))" ] &&
	grep -q "^  none (the profile) .* - *violates nothing\$" "$out" &&
	grep -A1 "^  disksize_before_punch_partial off\$" "$out" | tail -1 | grep -q "^  *[0-9a-f]\{8\} [0-9a-f]\{8\} same  *violates nothing\$" &&
	grep -q "^  exp_grow_zero_written_only on .* differs violates gap_zero_on_extend" "$out" &&
	! grep -q "PASS\|FAIL" "$out"'
expect_exit2 matrix-two-files "$sim" matrix "$f" "$f"
expect_exit2 bisect-unknown-side "$sim" bisect "$f" --good nosuch --bad 6.1
expect_exit2 bisect-no-bad "$sim" bisect "$f" --good 6.18

# bisect names each bug scenario's toggle between its before-* and after-* variants
# (tests/data/bisect/bugs.txt); a bug scenario with both kinds of variants needs a line there
run "$sim" bisect scenarios/bugs/2024-eof-pollution-extend.yaml --good after-6.13 --bad before-6.12
check bisect-text 'golden bisect-text "$out" && [ "$rc" = 0 ]'
for f in scenarios/bugs/*.yaml; do
	name=$(basename "$f" .yaml)
	vars=$(sed -n 's/^  - {name: \([a-z0-9.-]*\),.*/\1/p' "$f")
	echo "$vars" | grep -q '^before-' && echo "$vars" | grep -q '^after-' || continue
	want=$(awk -v n="$name" '$1 == n {print $2}' tests/data/bisect/bugs.txt)
	if [ -z "$want" ]; then failed "bisect-listed $name" "no line in tests/data/bisect/bugs.txt"; continue; fi
	for good in $(echo "$vars" | grep '^after-'); do
		for bad in $(echo "$vars" | grep '^before-'); do
			run "$sim" bisect --json "$f" --good "$good" --bad "$bad"
			check "bisect $name $good $bad" '{ [ "$rc" = 0 ] && grep -q "\"toggle\": \"$want\"" "$out"; } ||
				{ [ "$rc" = 1 ] && grep -E "name: ($good|$bad)," "$f" | grep -q "$want"; }'
		done
	done
done

# the command line's one table (cli/commands.c): every command answers --help with exit 0
# and its flags, the top help names every command, --flag=value works, a mistyped flag or
# command gets the closest name, the man page and the bash completion come from the table
cmds=$("$sim" help --completion | sed -n 's/^\t\([a-z]*\)) flags=.*/\1/p')
for cmd in $cmds; do
	run "$sim" "$cmd" --help
	check "help-$cmd" '[ "$rc" = 0 ] && grep -q "^usage: ext4sim $cmd" "$out" && [ ! -s "$err" ]'
done
run "$sim" --help
check help-every-command '[ "$rc" = 0 ] && [ "$(grep -c "^  ext4sim [a-z]" "$out")" -ge $(echo $cmds | wc -w) ] &&
	grep -q "ext4sim explore" "$out" && grep -q "ext4sim minimize" "$out" && grep -q "ext4sim merge" "$out"'
run "$sim" run --block-size=1024 --summary -c "pwrite 0 1500"
check flag-equals-value '[ "$rc" = 0 ] && grep -q "^inline .*PASS" "$out"'
expect_exit2 flag-typo "$sim" run --blok-size 1024 -c fsync
check flag-typo-hint 'grep -q "did you mean .--block-size.?" "$err"'
expect_exit2 command-typo "$sim" rn x.yaml
check command-typo-hint 'grep -q "did you mean .run.?" "$err"'
expect_exit2 step-typo "$sim" run -c "pwirte 0 1"
check step-typo-hint 'grep -q "did you mean .pwrite.?" "$err"'
# every flag of every command reaches code (the table is the parser, cli/commands.c): each
# one, with a value when it takes one, then a bad --block-size so nothing runs; refused
# for its value or the rest, never with "has no code" (merge has no --block-size)
for cmd in $cmds; do
	"$sim" "$cmd" --help | awk 'substr($0, 1, 3) ~ /^  -/ { print substr($0, 3, 28) }' |
	while read -r flag arg; do
		run "$sim" "$cmd" "$flag" ${arg:+x} --block-size 3 < /dev/null
		grep -q "has no code" "$err" && echo "$cmd $flag"
	done
done > "$tmp/nocode"
check every-flag-has-code '[ ! -s "$tmp/nocode" ] || { cat "$tmp/nocode" >&2; false; }'
run "$sim" help --man
check man-page '[ "$rc" = 0 ] && head -1 "$out" | grep -q "^\.TH EXT4SIM 1" &&
	{ ! command -v groff > /dev/null || groff -man -Tutf8 -ww "$out" > /dev/null 2>&1; }'
# the man page's FILES name real paths: those make install writes (PREFIX its own), and
# each of its EXAMPLES runs from the installed documentation directory (exit 0, or diff's 1)
run make -s install BUILD="$build" DESTDIR="$tmp/inst" PREFIX=/opt/e4
man_paths=$(sed -n '/^\.SH FILES/,/^\.SH /{/^\.I /s/^\.I //p}' "$tmp/inst/opt/e4/share/man/man1/ext4sim.1" 2> /dev/null)
nmiss=0
for pth in $man_paths; do [ -e "$tmp/inst$pth" ] || { echo "  $pth" >> "$tmp/man.missing"; nmiss=$((nmiss + 1)); }; done
check man-files-installed '[ "$rc" = 0 ] && [ -n "$man_paths" ] && [ "$nmiss" = 0 ] &&
	! grep -q "/usr/local" "$tmp/inst/opt/e4/share/man/man1/ext4sim.1" ||
	{ cat "$tmp/man.missing" 2> /dev/null; false; }'
sed -n '/^\.SH EXAMPLES/,/^\.SH /{/^\.B /s/^\.B //p}' "$tmp/inst/opt/e4/share/man/man1/ext4sim.1" 2> /dev/null |
	sed 's/\\-/-/g; s/\\e/\\/g' > "$tmp/man.examples"
absbuild=$(cd "$build" && pwd)
nex=0 nexbad=0
while read -r ex; do
	nex=$((nex + 1))
	(cd "$tmp/inst/opt/e4/share/doc/ext4sim" && PATH="$absbuild:$PATH" bash -c "$ex") > /dev/null 2>&1
	exrc=$?
	[ $exrc -le 1 ] || { echo "  $ex: exit $exrc"; nexbad=$((nexbad + 1)); }
done < "$tmp/man.examples" > "$tmp/man.exbad"
cmdline="ext4sim help --man: each command of EXAMPLES, in the installed doc directory"
check man-examples-run '[ "$nex" -ge 5 ] && [ "$nexbad" = 0 ] || { cat "$tmp/man.exbad"; false; }'
run "$sim" help --completion
check completion '[ "$rc" = 0 ] && bash -n "$out" && grep -q -- "--block-size" "$out"'
# the completion through bash's own machinery: COMP_WORDS and COMP_CWORD set as bash sets
# them, the function `complete` registered called, COMPREPLY read back
cp "$out" "$tmp/completion.bash"
comp() {
	bash -c '. "$1"; shift; f=$(complete -p ext4sim | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"$f" ext4sim "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		echo "${COMPREPLY[*]}"' _ "$tmp/completion.bash" "$@"
}
profiles=$("$sim" patches | sed -n '/^kernel profiles/,/^$/s/^  \([^ ]\+\) .*/\1/p' | tr '\n' ' ')
ncomp=0
while IFS='|' read -r words want; do
	read -ra w <<< "$words"
	[ "${w[-1]}" = '""' ] && w[-1]=
	got=$(comp ext4sim "${w[@]}")
	[ "$got" = "$want" ] || { echo "  ext4sim ${words}<TAB>: '$got', not '$want'"; ncomp=$((ncomp + 1)); }
done > "$tmp/comp.diff" <<EOF
export --format ""|xfs_io fstests yaml
run --data j|journal
run --data = jo|journal
run --data =|ordered writeback journal
import --from ""|fsx xfs_io ace fstests
diff --kernel ""|${profiles% }
run --block-size 1|1024
explore --crash-at e|everywhere
help ""|$(echo $cmds) --man --completion
help ex|explore export
exp|explore export
export --for|--format
EOF
cmdline="bash: . <(ext4sim help --completion); COMP_WORDS=(ext4sim WORDS...); _ext4sim"
check completion-values '[ "$ncomp" = 0 ] && [ -n "$profiles" ] || { cat "$tmp/comp.diff"; false; }'
# each value the completion offers is one the program takes
nval=0
for v in xfs_io fstests yaml; do "$sim" export --format $v -c "pwrite 0 1" > /dev/null 2>&1 || nval=$((nval + 1)); done
for v in ordered writeback journal; do "$sim" run --quiet --data $v -c fsync > /dev/null 2>&1 || nval=$((nval + 1)); done
for v in $profiles; do "$sim" run --quiet --kernel $v -c fsync > /dev/null 2>&1 || nval=$((nval + 1)); done
for v in fsx xfs_io; do "$sim" import --from $v tests/data/import/small.$([ $v = fsx ] && echo fsxops || echo xfs_io) > /dev/null 2>&1 || nval=$((nval + 1)); done
"$sim" import --from ace tests/data/ace/b3-seq1-26.jlang > /dev/null 2>&1 || nval=$((nval + 1))
for v in summary full eager; do "$sim" run --quiet --checker-log $v -c fsync > /dev/null 2>&1 || nval=$((nval + 1)); done
for v in 1024 2048 4096; do "$sim" run --quiet --block-size $v -c fsync > /dev/null 2>&1 || nval=$((nval + 1)); done
cmdline="ext4sim CMD FLAG VALUE ... for each value the completion offers"
check completion-values-taken '[ "$nval" = 0 ]'

# export --help lists only flags that change what export writes: each flag of its table,
# added to a base command, changes the output (stdout, exit status, files written)
xo() {  # the exit status, stdout and the files of one export
	rm -rf "$tmp/xo" && mkdir -p "$tmp/xo/o" "$tmp/xo/m"
	"$sim" export "$@" > "$tmp/xo.out" 2> /dev/null
	echo "rc $?"; cat "$tmp/xo.out"; (cd "$tmp/xo" && find . -type f | sort)
}
vsc=scenarios/tutorial/10-page-cache-half.yaml
nfx=0 listed=0
while IFS='|' read -r flag base; do
	read -ra b <<< "$base"
	read -ra fl <<< "$flag"
	for i in "${!b[@]}"; do [ "${b[$i]}" = PW ] && b[$i]="pwrite 0 10"; done
	for i in "${!fl[@]}"; do [ "${fl[$i]}" = FS ] && fl[$i]="fsync"; done
	if [ "${fl[0]}" = --variant ]; then
		differs=0
		for v in neither fs-half mm-half both; do
			[ "$(xo "${b[@]}" --variant $v)" != "$(xo "${b[@]}")" ] && differs=1
		done
	else
		differs=0
		[ "$(xo "${b[@]}" "${fl[@]}")" != "$(xo "${b[@]}")" ] && differs=1
	fi
	[ $differs = 1 ] || { echo "  export ${b[*]} ${fl[*]}: the same output as without ${fl[0]}"; nfx=$((nfx + 1)); }
	echo "${fl[0]}" >> "$tmp/xflags.tested"
done > "$tmp/xflags.diff" <<EOF
--block-size 1024|--format yaml -c PW
--data journal|--format yaml -c PW
--delalloc|--format yaml --nodelalloc -c PW
--nodelalloc|--format yaml -c PW
--dioread-lock|--format yaml -c PW
--dioread-nolock|--format yaml --dioread-lock -c PW
--noauto-da-alloc|--format yaml -c PW
--auto-da-alloc|--format yaml --noauto-da-alloc -c PW
--kernel 6.1|--format yaml -c PW
--disk-blocks 4096|--format yaml -c PW
--patch short_copy_zero=off|--format yaml -c PW
--variant|--format yaml $vsc
--crash-bound 1|scenarios/crash/shutdown-completes-inflight.yaml
--max-bytes 1|--format yaml -c PW
-c FS|--format yaml -c PW
--format fstests|-c PW
-o $tmp/xo/o|--format yaml -c PW
--model-dir $tmp/xo/m|--format yaml -c PW
--test-number 123|--format fstests -c PW
--copyright-year 2030|--format fstests -c PW
EOF
"$sim" export --help | awk 'substr($0, 1, 3) ~ /^  -/ { print $1 }' | sort > "$tmp/xflags.listed"
cmdline="ext4sim export BASE [FLAG]: for each flag of export --help"
check export-flags-do-something '[ "$nfx" = 0 ] && diff "$tmp/xflags.listed" <(sort "$tmp/xflags.tested") > /dev/null ||
	{ cat "$tmp/xflags.diff"; diff "$tmp/xflags.listed" <(sort "$tmp/xflags.tested"); false; }'

# a truncated name (a command, a flag, a step) gets the name or names it starts
expect_exit2 truncated-command "$sim" expl x.yaml
check truncated-command-hint 'grep -q "unknown command .expl. (did you mean .explore.?)" "$err"'
expect_exit2 truncated-command-several "$sim" ex x.yaml
check truncated-command-several-hint 'grep -q "(did you mean .explore. or .export.?)" "$err"'
expect_exit2 truncated-flag "$sim" run --crash -c fsync
check truncated-flag-hint 'grep -q "did you mean .--crash-bound., .--crash-everywhere. or .--crash-reference.?" "$err"'
expect_exit2 truncated-help "$sim" help expl
check truncated-help-hint 'grep -q "help: unknown command .expl. (did you mean .explore.?)" "$err"'
expect_exit2 truncated-step "$sim" run -c "pwr 0 1"
check truncated-step-hint 'grep -q "did you mean .pwrite.?" "$err"'

# docs/scenario-format.md's JSON example parses, names json_version, toggles_on and
# pending_writes, and each of its keys is one run --json writes
sed -n '/^## JSON/,/^## Explore/p' docs/scenario-format.md | sed -n '/^```json$/,/^```$/p' | sed '1d;$d' > "$tmp/doc.json"
run "$sim" run --json scenarios/crash/shutdown-completes-inflight.yaml
grep -o '"[a-z_0-9]*":' "$tmp/doc.json" | sort -u > "$tmp/doc.keys"
grep -o '"[a-z_0-9]*":' "$out" | sort -u > "$tmp/run.keys"
cmdline="docs/scenario-format.md's JSON example against $cmdline"
check json-doc-example '[ "$rc" = 0 ] && "$build/tests/json-check" "$tmp/doc.json" &&
	grep -qx "\"json_version\":" "$tmp/doc.keys" && grep -qx "\"toggles_on\":" "$tmp/doc.keys" &&
	grep -qx "\"pending_writes\":" "$tmp/doc.keys" &&
	[ -z "$(comm -23 "$tmp/doc.keys" "$tmp/run.keys")" ] || { comm -23 "$tmp/doc.keys" "$tmp/run.keys"; false; }'

# JSON is valid UTF-8 whatever the input: a file name with the byte 0xff
bad_name="$tmp/a$(printf '\377')b.yaml"
printf 'name: x\nsteps:\n  - fsync\n' > "$bad_name"
run "$sim" run --json "$bad_name"
check json-utf8-file-name '[ "$rc" = 0 ] && iconv -f UTF-8 -t UTF-8 "$out" > /dev/null 2>&1 &&
	grep -q "a\\\\ufffdb.yaml" "$out"'
expect_exit2 kernel-typo "$sim" run --kernel 6.188 -c fsync
check kernel-typo-hint 'grep -q "did you mean .6.18.?" "$err"'
expect_exit2 invariant-typo "$sim" run --fail-on post_eof_zero_strik -c fsync
check invariant-typo-hint 'grep -q "did you mean .post_eof_zero_strict.?" "$err"'

# xfs_io's forms on a mapping and its advice (scenarios/xfs_io/mapped-forms.yaml): the
# whole trace, checked against what 6.18.44 showed for the mread dumps and the errors
run "$sim" run scenarios/xfs_io/mapped-forms.yaml
check xfs-io-mapped-forms '[ "$rc" = 0 ] && golden xfs-io-mapped-forms "$out"'
# pwrite -R -Z N writes where xfs_io writes: the file's size and MD5 as xfs_io 6.1 left
# them on 6.18.44 for `pwrite -q -R -Z N -S 0x11 -b 4096 8000 65536` on a new file
for zm in 7:65536:08cdf1c647efac484b267db54b0fc56b 12345:65536:d97ae63feced8722a799841de4c02477 \
	4294967295:57344:a96fb181a9e7ba4648ad64f332477db2; do
	z=${zm%%:*} m=${zm##*:} n=${zm#*:} n=${n%%:*}
	run "$sim" run --quiet --dump-file "$tmp/rand.bin" -c "pwrite -R -Z $z -S 0x11 -b 4096 8000 65536"
	check "pwrite-random-Z$z" '[ "$rc" = 0 ] && [ "$(stat -c %s "$tmp/rand.bin")" = "$n" ] &&
		[ "$(md5sum < "$tmp/rand.bin" | cut -d" " -f1)" = "$m" ]'
done
# xfs_io's abbreviations are its commands
run "$sim" run -c "w -S 0x61 0 10" -c "mm -rw 0 4096" -c "mw -S 0x62 2 2" -c "ms -s" \
	-c "mr -v 0 10" -c "ma -d 0 4096" -c "mu" -c "t 4" -c "r -v 0 4"
check xfs-io-abbreviations '[ "$rc" = 0 ] && golden xfs-io-abbreviations "$out"'
# shutdown -f across the history (scenarios/xfs_io/shutdown-logflush.yaml, its first part):
# the commit's ordered-data writeout refuses after the shutdown flag through ext4_writepage
# before 59205c8d4eae (6.2) and through ext4_do_writepages from 6.16; the flag is set first
# unless logflush_commit_first (backported to 5.10 and 6.1): the write is lost on 4.14.336,
# 5.4.302, 5.10.0 and 6.1.0, kept on Debian's 5.10.262 and 6.1.192, on 6.4, 6.12 and 6.18,
# lost on Debian's 6.17.13
for kb in 4.14.336:00 5.4.302:00 5.10:00 debian-5.10.262:aa 6.1:00 debian-6.1.192:aa 6.4:aa 6.12:aa \
	debian-6.17.13:00 6.18:aa; do
	k=${kb%%:*} b=${kb##*:}
	run "$sim" run --quiet --kernel "$k" --variant k6.18 --dump-file "$tmp/lf.bin" \
		scenarios/xfs_io/shutdown-logflush.yaml
	check "shutdown-logflush-$k" '[ "$rc" = 0 ] && [ "$(od -An -tx1 -N1 "$tmp/lf.bin" | tr -d " ")" = "$b" ]'
done
# before 783d94854499 (4.11) ext4 has no shutdown ioctl: ENOTTY and nothing happens
run "$sim" run scenarios/xfs_io/shutdown-enotty.yaml
check shutdown-enotty '[ "$rc" = 0 ] && [ "$(grep -c "error: Inappropriate ioctl for device" "$out")" = 2 ] &&
	[ "$(grep -c "running transaction 1 lost" "$out")" = 1 ]'
# an export whose kernel has no shutdown ioctl says that its crashes cannot run there
mkdir -p "$tmp/exp-old"
run "$sim" export --format xfs_io -o "$tmp/exp-old" --kernel 4.9 -c "pwrite 0 4k" -c fsync -c crash
check export-no-shutdown-warning '[ "$rc" = 0 ] && grep -q "has no shutdown ioctl for ext4" "$err"'
run "$sim" export --format xfs_io -o "$tmp/exp-old" --kernel 4.14 -c "pwrite 0 4k" -c fsync -c crash
check export-shutdown-no-warning '[ "$rc" = 0 ] && ! grep -q "shutdown ioctl" "$err"'
# system calls older kernels lack (scenarios/xfs_io/old-syscalls.yaml): each step's error
# per kernel, and the final bytes (4.4 copies and writes nothing)
run "$sim" run scenarios/xfs_io/old-syscalls.yaml
check old-syscalls '[ "$rc" = 0 ] && [ "$(grep -c "error: Function not implemented" "$out")" = 2 ] &&
	[ "$(grep -c "error: Invalid argument" "$out")" = 5 ] &&
	[ "$(grep -c "error: Operation not supported" "$out")" = 2 ]'
for kb in 4.4:8192 4.9:16384 5.14:16384; do
	k=${kb%%:*} n=${kb##*:}
	run "$sim" run --quiet --variant "k$k" --dump-file "$tmp/os.bin" scenarios/xfs_io/old-syscalls.yaml
	check "old-syscalls-size-$k" '[ "$rc" = 0 ] && [ "$(stat -c %s "$tmp/os.bin")" = "$n" ]'
done
# the pwritev2 flags without -V, and -R without -Z, are refused with the reason
expect_exit2 pwrite-D-without-V "$sim" run -c "pwrite -D 0 4096"
check pwrite-D-without-V-reason 'grep -q "passes only with -V N" "$err"'
expect_exit2 pwrite-R-without-Z "$sim" run -c "pwrite -R 0 4096"

# docs/bug-library.md's counters of the 4.19 backport are what `run --json` measures (each
# variant's row: h, copy, locks by site, dirty, disksize), and its diff command shows the
# handles, copies and write_begin locks the series removes
bp=scenarios/patches/backport-4.19-delalloc-series.yaml
for v in $(sed -n 's/^  - {name: \([a-z0-9.-]*\),.*/\1/p' "$bp"); do
	run "$sim" run --json --variant "$v" "$bp"
	row=$(grep -o '"counters": {[^}]*{[^}]*}[^}]*}' "$out" | head -1 | tr -d '{}":,' | awk '{
		for (i = 1; i < NF; i++) c[$i] = $(i + 1)
		split("write_begin writepages zero_partial isize_ext read page_mkwrite", site, " ")
		locks = ""
		for (s = 1; s <= 6; s++) if (c[site[s]] > 0)
			locks = locks (locks == "" ? "" : ", ") site[s] " " c[site[s]]
		printf "| %s | %s | %s | %s | %s |", c["handles_started"], c["copy_under_handle"],
			locks == "" ? "0" : locks, c["mark_dirty_calls"], c["update_i_disksize_calls"] }')
	check "bug-library-backport-row $v" '[ "$rc" = 0 ] && [ -n "$row" ] &&
		grep "^| $v | " docs/bug-library.md | grep -qF -- " $row" ||
		{ echo "  docs/bug-library.md: the row of $v should end \"$row\""; false; }'
done
cmd=$(tr '\n' ' ' < docs/bug-library.md |
	grep -o 'build/ext4sim diff scenarios/patches/backport-4.19-delalloc-series.yaml --patch [^`]*' |
	head -1 | sed "s|^build/ext4sim |$sim |")
run $cmd
check bug-library-backport-diff '[ "$rc" = 0 ] && [ -n "$cmd" ] &&
	grep -q "^  handles_started  *502  *302 (-200)   <- differs\$" "$out" &&
	grep -q "^  copy_under_handle  *500  *0 (-500)   <- differs\$" "$out" &&
	grep -q "^  folio_lock_under_handle.write_begin 500  *0 (-500)   <- differs\$" "$out"'

# the quoted outputs of the docs (README.md and docs/*.md; the tutorial topic checks
# docs/tutorial/, docs/patches.md is compared whole above): a fenced block that starts with
# "$ build/ext4sim ARGS" (or "$ ext4sim") is what that command prints on stdout, cut where
# a line starts with "..." (its other lines appear in the output, in that order); "$ echo $?" then
# a line is the command's exit status.  Commands run in a scratch directory that sees
# scenarios/ (explore --out writes there).
mkdir -p "$tmp/dq/run"
ln -s "$PWD/scenarios" "$tmp/dq/run/scenarios"
simabs=$(cd "$(dirname "$sim")" && pwd)/ext4sim
for doc in README.md docs/*.md; do
	[ "$doc" = docs/patches.md ] && continue
	awk -v pre="$tmp/dq/${doc//\//_}" '
		/^```/ { state = state ? 0 : 1; next }
		state == 1 { if ($0 ~ /^\$ (build\/)?ext4sim /) { n++; seg = 0; state = 2 } else state = 3 }
		state == 2 && /^\$ / { f = pre "." n "." (++seg); print substr($0, 3) > (f ".cmd")
			printf "" > (f ".exp"); close(f ".cmd"); close(f ".exp"); next }
		state == 2 { print >> (f ".exp"); close(f ".exp") }' "$doc"
done
for c in "$tmp"/dq/*.cmd; do
	[ -e "$c" ] || continue
	q=${c%.cmd} words=$(cat "$c")
	case $words in
	"echo \$?") check "doc-quote-status ${q##*/}" '[ "$(head -1 "$q.exp")" = "$qrc" ]'; continue ;;
	ext4sim\ * | build/ext4sim\ *) ;;
	*) continue ;;
	esac
	cmdline="(the quote ${q##*/}) $words"
	(cd "$tmp/dq/run" && eval "\"\$simabs\" ${words#*ext4sim }") > "$q.got" 2> /dev/null
	qrc=$?
	# the quoted lines not found, in order, in the output
	missing=$(awk 'NR == FNR { got[++n] = $0; next }
		/^[ \t]*\.\.\./ || $0 == "" { next }
		{ while (i < n && got[i + 1] != $0) i++; if (i >= n) { print; exit } i++ }' "$q.got" "$q.exp")
	check "doc-quote ${q##*/}" '[ -z "$missing" ] ||
		{ echo "  $words: the quoted line is not in its output (in order): $missing"; false; }'
done
