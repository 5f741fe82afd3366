# tutorial.sh - the tutorial cannot rot (docs/tutorial/): every command of every lesson
# and of the lab sheet runs, its whole output must equal its golden, and the output a page
# shows must be what the command prints now; run --quiz and --reveal; ext4sim quiz, whose
# answer key must be exactly the crash states crashstates computes for the same problem.
#
# A lesson's commands are its ```console blocks: a line "$ COMMAND" then the output the
# page shows, where a line "..." stands for any number of lines.  Each command runs with
# sh -c in a scratch directory holding build/ext4sim and scenarios/ (so a page's commands
# may write files); it must exit 0 or 1 with nothing on stderr but the version line
# debugfs and e2fsck print there.  The commands run in the order of the pages and, within
# a page, of its blocks, all in the same directory, so that a later
# command may open a file an earlier one wrote; TZ is UTC (debugfs prints local times).
# A ```console root block holds commands that need root and a loop device (a mount): they
# run after all the others, only where both are there, and say so where not.

root=$tmp/root
mkdir -p "$root/build"
ln -s "$(cd "$(dirname "$sim")" && pwd)/$(basename "$sim")" "$root/build/ext4sim"
ln -s "$(pwd)/scenarios" "$root/scenarios"

# split docs/tutorial/*.md into $tmp/tut/PAGE-N.cmd and PAGE-N.exp
mkdir -p "$tmp/tut"
for page in docs/tutorial/*.md; do
	awk -v dir="$tmp/tut" -v base="$(basename "$page" .md)" '
		/^```console$/ { inblock = 1; next }
		/^```$/ { inblock = 0; next }
		/^```console root$/ { inblock = 2; next }
		inblock == 1 && /^\$ / { n++; f = sprintf("%s/%s-%d", dir, base, n)
			print substr($0, 3) > (f ".cmd"); printf "" > (f ".exp"); next }
		inblock == 2 && /^\$ / { r++; f = sprintf("%s/%s-root%d", dir, base, r)
			print substr($0, 3) > (f ".rcmd"); printf "" > (f ".exp"); next }
		inblock && f { print > (f ".exp") }' "$page"
done

# match EXPECTED ACTUAL: equal line by line, a line "..." matching any run of lines
excerpt_matches() {
	awk 'NR == FNR { e[++ne] = $0; next } { a[++na] = $0 }
	     END { i = 1; j = 1
		   while (i <= ne) {
			if (e[i] == "...") {
				if (i == ne) exit 0
				while (j <= na && a[j] != e[i + 1]) j++
				if (j > na) { print "  no line \"" e[i + 1] "\" after a ... line"; exit 1 }
				i++; continue
			}
			if (j > na || a[j] != e[i]) {
				printf "  page line %d: \"%s\"\n  output line %d: \"%s\"\n", i, e[i], j, a[j]
				exit 1
			}
			i++; j++
		   }
		   if (j <= na) { print "  the output goes on past the page: \"" a[j] "\""; exit 1 }
	     }' "$1" "$2"
}

# page_command FILE.cmd|FILE.rcmd: run one command, three checks
page_command() {
	local c=$1 name line
	name=$(basename "${1%.*}")
	line=$(cat "$c")
	cmdline="(in a directory with build/ext4sim and scenarios/) $line"
	(cd "$root" && TZ=UTC sh -c "$line") > "$tmp/last.out" 2> "$tmp/last.raw"
	rc=$? out=$tmp/last.out err=$tmp/last.err
	grep -Ev '^(debugfs|e2fsck) [0-9][0-9.]* \([^)]*\)$' "$tmp/last.raw" > "$err"
	check "$name-runs" '[ "$rc" -le 1 ] && [ ! -s "$err" ]'
	check "$name-golden" 'golden "$name" "$out"'
	check "$name-page" 'excerpt_matches "${c%.*}.exp" "$out"'
}
for c in $(ls "$tmp"/tut/*.cmd | sort -V); do
	page_command "$c"
done
if ! ls "$tmp"/tut/*.rcmd > /dev/null 2>&1; then
	bad "no \`\`\`console root block (lesson 11's kernel replay)"
elif [ "$(id -u)" != 0 ]; then
	echo "  tutorial: skipped: the \`\`\`console root commands (a loop mount) need root"
elif ! command -v losetup > /dev/null || [ ! -e /dev/loop-control ]; then
	echo "  tutorial: skipped: the \`\`\`console root commands need loop devices"
else
	for c in $(ls "$tmp"/tut/*.rcmd | sort -V); do
		page_command "$c"
	done
	# a failed command must not leave the image mounted
	mountpoint -q "$root/mnt" 2> /dev/null && umount "$root/mnt"
fi
# An event a page's prose quotes (`eN function: ...`) is one its commands print, with
# that number: the numbers move whenever the model's events do.
events_printed() {
	local q
	while read -r q; do
		# grep reads the files itself: `cat | grep -q` fails under pipefail when
		# grep stops at its match before cat has written everything (SIGPIPE)
		grep -qF -- "        $q" tests/golden/tutorial/"$1"-*.out ||
			{ echo "  not printed: $q"; return 1; }
	done < "$tmp/quoted"
}
for page in docs/tutorial/*.md; do
	b=$(basename "$page" .md)
	grep -o '`e[0-9][0-9]* [a-z_0-9]*: [^`]*`' "$page" | tr -d '`' > "$tmp/quoted"
	[ -s "$tmp/quoted" ] || continue
	cmdline=""
	check "prose-events-$b" 'events_printed "$b"'
done
# A lesson asks first (its "## Predict" section), then shows what answers it folded: every
# console block but a --quiz run or a bare `quiz --seed S` comes after the Predict heading,
# inside a <details> block.
lesson_folds() {
	awk '/^## Predict/ { asked = 1 }
	     /^<details>/ { fold++ } /^<\/details>/ { fold-- }
	     /^```console$/ { getline cmd
		if (cmd ~ /--quiz/ || cmd ~ /quiz --seed [0-9]+$/) next
		if (!asked) { print "  line " NR ": shown before the question: " cmd; bad = 1 }
		else if (fold < 1) { print "  line " NR ": not folded: " cmd; bad = 1 } }
	     END { exit bad || !asked }' "$1"
}
for page in docs/tutorial/[0-9][0-9]-*.md; do
	check "lesson-asks-before-it-shows-$(basename "$page" .md)" 'lesson_folds "$page"'
done
check lessons-have-commands '[ "$(ls "$tmp"/tut/*.cmd | wc -l)" -ge 20 ]'

# The commands the lessons' questions give inline (not console blocks), checked against
# the facts their answers in docs/tutorial/answers.md rest on.
run "$sim" run -c "pwrite -S 0xbb 0 5000" -c "sync_range -w 0 0" -c crash -c "pread -v 0 16"
check question-1-2-transaction-lost '[ "$rc" = 0 ] && grep -q "running transaction 1 lost" "$out" &&
	grep -q "read 0 bytes at 0" "$out"'
run "$sim" run --data journal --events scenarios/tutorial/05-ordered-mode.yaml
check question-5-2-journal-copy '[ "$rc" = 0 ] &&
	grep -q "submit journal copy of data block 0 of the file" "$out" &&
	grep -q "00000000: aa aa" "$out"'
for m in ordered writeback; do
	run "$sim" run --delalloc --data "$m" scenarios/tutorial/05-ordered-mode.yaml
	check "question-5-3-empty-$m" '[ "$rc" = 0 ] && tail -3 "$out" | grep -q "read 0 bytes at 0"'
done
run "$sim" run -c "pwrite -S 0xaa 0 8192" -c "sync_range -w 0 0" -c commit -c crash \
	-c "pread -v 0 16" --block-size 1024 --kernel 6.1
check question-7-2-dioread-lock '[ "$rc" = 0 ] && grep -Eq "extents: 0-7 written@[0-9]+$" "$out" &&
	grep -q "ordered data" "$out" && grep -q "00000000: aa aa" "$out"'
# the header names dioread_nolock only where the mount uses it (ext4_should_dioread_nolock:
# delalloc, not data=journal, and before 6.8 only with page-sized blocks)
check question-7-2-header-no-dioread-nolock '! head -2 "$out" | grep -q dioread_nolock &&
	head -2 "$out" | grep -q "kernel 6.1; block size 1024, data=ordered, delalloc, "'
for a in "--data journal" "--nodelalloc" "--block-size 1024 --kernel 6.1"; do
	run "$sim" run $a scenarios/tutorial/07-unwritten.yaml
	check "header-dioread-nolock-applies$(echo "$a" | tr -c 'a-z0-9\n' '-')" \
		'[ "$rc" -le 1 ] && ! grep -q "^-- variant .*dioread_nolock" "$out"'
done
run "$sim" run --block-size 1024 scenarios/tutorial/07-unwritten.yaml
check header-dioread-nolock-1024-6.18 'grep -q "^-- variant .*delalloc, dioread_nolock, " "$out"'
run "$sim" html scenarios/tutorial/10-page-cache-half.yaml --diff eof_zero_dirty_folio_mm \
	-o "$tmp/question-10.html"
check question-10-html-diff '[ "$rc" = 0 ] && [ -s "$tmp/question-10.html" ]'

# Lesson 12's questions: a directory's fsync commits the rename, not the renamed file's
# delayed data; a file's fsync makes its name and its bytes durable; data=journal carries
# the data with the rename under every mount of the scenario (exit 1: the variants'
# expectations are for the default data=ordered).
run "$sim" crashstates --quiet --noauto-da-alloc --dioread-lock -c "pwrite -S 0xaa 0 8192" -c fsync \
	-c "open -f tmp" -c "pwrite -S 0xbb 0 8192" -c "rename tmp f" -c "fsync /" -c crash
check question-12-1-dir-fsync-no-data '[ "$rc" = 0 ] && grep -q "^        /f reg ino 13 nlink 1 size 0 " "$out" &&
	grep -q "1 distinct$" "$out" && grep -q replace_via_rename "$out"'
run "$sim" crashstates --quiet -c "mkdir d" -c sync -c "open -f d/b" -c "pwrite -S 0x33 0 3000" \
	-c "fsync d/b" -c crash
check question-12-2-file-fsync-name-and-data '[ "$rc" = 0 ] &&
	grep -q "^        /d/b reg ino 14 nlink 1 size 3000 " "$out"'
for v in auto_da_alloc noauto_da_alloc default-mount; do
	run "$sim" crashstates --quiet --data journal --variant "$v" scenarios/tutorial/12-replace-via-rename.yaml
	check "question-12-3-journal-$v" '[ "$rc" -le 1 ] && grep -q "bytes: 0-8191: 0xbb$" "$out" &&
		! grep -q replace_via_rename "$out"'
done
# Lesson 12's prose: the three mounts leave what the page says (the page's console blocks
# are checked whole above; this pins the claims the prose draws from them).
run "$sim" run --summary scenarios/tutorial/12-replace-via-rename.yaml scenarios/tutorial/12-new-file-fsync.yaml
check lesson-12-verdicts '[ "$rc" = 0 ] && grep -q "auto_da_alloc PASS \[\]$" "$out" &&
	grep -q "noauto_da_alloc PASS \[replace_via_rename\]$" "$out" &&
	grep -q "default-mount PASS \[replace_via_rename\]$" "$out" && grep -q "12-new-file-fsync .* PASS \[\]$" "$out"'

# The slips the lessons once had, checked against the model.  Lesson 9, question 3: with
# 1 KiB blocks and an old size of 2048 the EOF is block-aligned: the ext4 half zeroes
# nothing (the truncate dirties no folio, orders no data), the gap is blocks 2 and 3.
run "$sim" run --events --variant fs-half scenarios/tutorial/10-page-cache-half.yaml
sed -n '/^  \[3\] /,/^  \[4\] /p' "$out" > "$tmp/truncate.out"
check question-9-3-ext4-half-zeroes-nothing '[ -s "$tmp/truncate.out" ] &&
	! grep -q "folio_mark_dirty\|ordered data" "$tmp/truncate.out" &&
	sed -n "/^## Lesson 9/,/^## Lesson 10/p" docs/tutorial/answers.md | grep -q "blocks 2 and 3" &&
	! sed -n "/^## Lesson 9/,/^## Lesson 10/p" docs/tutorial/answers.md | grep -q 3072'
# Lesson 7: the conversion joins the transaction running when the I/O completes: tid 1 in
# lesson 2 (still running), tid 2 after a commit (the page's "Look" shows that run).
check lesson-2-conversion-in-tid-1 'grep -q "ext4_convert_unwritten_io_end_vec: start a handle in tid 1" \
	tests/golden/tutorial/02-page-cache-1.out && grep -q "both are in tid 1" docs/tutorial/07-unwritten.md &&
	! grep -q "to written, in$" docs/tutorial/07-unwritten.md'
# Lesson 8 writes 0x66 ("fff") then 0x6f ("ooo"): its description and titles say so.
check lesson-8-bytes 'grep -q "pwrite -S 0x66 0 3" scenarios/tutorial/08-size-before-data.yaml &&
	! grep -q foo scenarios/tutorial/08-size-before-data.yaml docs/tutorial/README.md \
		docs/tutorial/08-size-before-data.md'

# A tutorial scenario's description sets up the steps and asks; it does not tell the
# outcome (the run's numbers and bytes are the quiz's blanks).
for f in scenarios/tutorial/*.yaml; do
	awk '/^description: >/ { d = 1; next } /^[a-z_]*:/ { d = 0 } d' "$f" > "$tmp/desc"
	check "description-asks-$(basename "$f" .yaml)" 'grep -q Predict "$tmp/desc" &&
		! tr "\n" " " < "$tmp/desc" | grep -Eqi "survive|four states|[0-9] distinct|reads zeros|never the|appear in|are zeroed|misses them|legal|the file is"'
done

# every tutorial scenario is used by a lesson
for f in scenarios/tutorial/*.yaml; do
	check "used-$(basename "$f" .yaml)" 'grep -q "$(basename "$f")" docs/tutorial/*.md'
done

# run --quiz: the blanks' answers are the values the plain trace (and --json) prints, in
# order, and the quiz shows none of them: no size, crash-state count, unflushed-write count,
# recovery line, read count or hex dump, no state line of a crash step, no verdict; every
# step has its (blanked) size line, so that a missing line tells nothing.
quiz_hides='i_size [0-9]|i_disksize [0-9]| [0-9]+ (raw|distinct|violating|unflushed)|replayed [0-9]|'
quiz_hides=$quiz_hides'in-flight|read [0-9]|^      [0-9a-f]{8}: |PASS|FAIL|VIOLATION|violation:|kept:|lost:'
for f in scenarios/tutorial/*.yaml; do
	b=$(basename "$f" .yaml)
	run "$sim" run "$f"
	sed -n 's/^      crash states: \([0-9]*\) raw (\([0-9]*\) unflushed write(s) to \([0-9]*\) block(s)), .*, \([0-9]*\) distinct, \([0-9]*\) violating$/raw crash states \1\nunflushed writes \2\nblocks written \3\ndistinct crash states \4\nviolating crash states \5/p
		s/^      read \([0-9]*\) bytes at .*/bytes read \1/p' "$out" > "$tmp/plain.nums"
	run "$sim" run --json "$f"
	grep -o '"bytes": -*[0-9]*, "i_size": [0-9]*, "i_disksize": [0-9]*' "$out" | cut -d, -f2- |
		sed 's/ *"i_size": \([0-9]*\), "i_disksize": \([0-9]*\)/i_size \1\ni_disksize \2/' \
		> "$tmp/json.sizes"
	run "$sim" run --reveal "$f"
	sed -n 's/^  ?[0-9]* *\[[0-9]*\] \([a-z_ ]*\): \([0-9]*\)$/\1 \2/p' "$out" > "$tmp/key.all"
	grep -v '^i_size \|^i_disksize ' "$tmp/key.all" > "$tmp/key.nums"
	grep '^i_size \|^i_disksize ' "$tmp/key.all" > "$tmp/key.sizes"
	check "quiz-key-$b" 'cmp -s "$tmp/plain.nums" "$tmp/key.nums"'
	check "quiz-key-sizes-$b" 'cmp -s "$tmp/json.sizes" "$tmp/key.sizes" && [ -s "$tmp/key.sizes" ]'
	keys=$(sed -n '/^answers/,$p' "$out" | grep -c '^  ?[0-9]')
	run "$sim" run --quiz "$f"
	check "quiz-hides-$b" '[ "$rc" = 0 ] && ! grep -Eq "$quiz_hides" "$out" &&
		[ "$(grep -o "?[0-9][0-9]*" "$out" | sort -u | wc -l)" = "$keys" ]'
	check "quiz-size-every-step-$b" '[ "$(grep -c "^  \[[0-9]*\] " "$out")" = \
		"$(grep -c "^      size:    i_size ?[0-9]*, i_disksize ?[0-9]*$" "$out")" ]'
	check "quiz-crash-state-blanked-$b" '! awk "/^  \[[0-9]+\] (crash|shutdown)/ { c = 1; next }
		/^  [^ ]/ { c = 0 } c && /^      (extents|cache|journal|crash): / && !/: +\?[0-9]+$/ { bad = 1 }
		END { exit !bad }" "$out"'
done
run "$sim" run --quiz --crash-everywhere scenarios/tutorial/07-unwritten.yaml
check quiz-hides-crash-everywhere '[ "$rc" = 0 ] && grep -q "if it crashed here: ?[0-9]" "$out" &&
	! grep -Eq "$quiz_hides" "$out"'
expect_exit2 quiz-json "$sim" run --quiz --json scenarios/tutorial/01-not-on-disk.yaml
expect_exit2 quiz-events "$sim" run --reveal --events scenarios/tutorial/01-not-on-disk.yaml
expect_exit2 crashstates-quiz "$sim" crashstates --quiz scenarios/tutorial/06-crash-states.yaml

# ext4sim quiz: the key is the model's crash states, and nothing else
for s in $(seq 1 40); do
	run "$sim" quiz --seed "$s" --yaml
	cp "$out" "$tmp/q.yaml"
	run "$sim" crashstates --json "$tmp/q.yaml"
	grep -o '"sha256": "[0-9a-f]*"' "$out" | cut -d'"' -f4 | sort -u > "$tmp/states"
	run "$sim" quiz --seed "$s" --answers
	awk '/^  [A-Z]\. possible/ { p = 1; next } /^  [A-Z]\. not possible/ { p = 0; next }
	     /^     sha256 / { print $2 > (p ? "'"$tmp/yes"'" : "'"$tmp/no"'") }' "$out"
	touch "$tmp/yes" "$tmp/no"
	check "quiz-$s-possible-are-the-states" 'sort -u "$tmp/yes" | cmp -s - "$tmp/states"'
	check "quiz-$s-others-are-not" '[ -z "$(sort -u "$tmp/no" | comm -12 - "$tmp/states")" ]'
	# one reason per option, and a reason that agrees with the options: "after recovery f
	# has S" only for a size no possible option has, a byte range only for one that has it
	check "quiz-$s-reasons" 'awk "
		/^  [A-Z]\\. [0-9]+ byte/ { size[substr(\$1, 1, 1)] = \$2; next }
		/^  [A-Z]\\. possible: [0-9]+ of the [0-9]+ raw state\\(s\\), e\\.g\\. crash --keep [^ ]+ .*replay/ {
			ok[substr(\$1, 1, 1)] = \"yes\"; psize[size[substr(\$1, 1, 1)]] = 1; next }
		/^  [A-Z]\\. not possible: after recovery f has [0-9]+ / { ok[substr(\$1, 1, 1)] = \"size\"; next }
		/^  [A-Z]\\. not possible: (\\[[0-9]+, [0-9]+\\) holds|its bytes come) / {
			ok[substr(\$1, 1, 1)] = \"bytes\"; next }
		/^  [A-Z]\\. / { bad = 1 }
		END { for (o in size) { if (!(o in ok)) bad = 1
			  if (ok[o] == \"size\" && (size[o] in psize)) bad = 1
			  if (ok[o] == \"bytes\" && !(size[o] in psize)) bad = 1 }
		      exit bad }" "$out"'
	rm -f "$tmp/yes" "$tmp/no"
done
run "$sim" quiz --seed 4
check quiz-4 'golden quiz-4 "$out"'
run "$sim" quiz --seed 4 --answers
check quiz-4-answers 'golden quiz-4-answers "$out"'
cp "$out" "$tmp/q4"
run "$sim" quiz --seed 4 --answers
check quiz-twice 'cmp -s "$tmp/q4" "$out"'
run "$sim" quiz --seed 4 --data writeback --block-size 1024
check quiz-flags '[ "$rc" = 0 ] && head -1 "$out" | grep -q "^quiz 4: block size 1024, data=writeback, "'
expect_exit2 quiz-no-seed "$sim" quiz
expect_exit2 quiz-bad-seed "$sim" quiz --seed x
expect_exit2 quiz-bad-flag "$sim" quiz --seed 1 --bogus
expect_exit2 quiz-answers-yaml "$sim" quiz --seed 1 --answers --yaml
expect_exit2 quiz-bad-kernel "$sim" quiz --seed 1 --kernel 2.6
