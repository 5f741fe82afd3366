# tutorial.sh - the tutorial cannot rot (docs/tutorial/): every command of every lesson
# and of the lab sheet runs, its whole output must equal its golden, and the output a page
# shows must be what the command prints now; run --quiz and --reveal; ext4sim quiz, whose
# answer key must be exactly the crash states crashstates computes for the same problem.
#
# A lesson's commands are its ```console blocks: a line "$ COMMAND" then the output the
# page shows, where a line "..." stands for any number of lines.  Each command runs with
# sh -c in a scratch directory holding build/ext4sim and scenarios/ (so a page's commands
# may write files); it must exit 0 or 1 with nothing on stderr.

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
		inblock && /^\$ / { n++; f = sprintf("%s/%s-%d", dir, base, n)
			print substr($0, 3) > (f ".cmd"); printf "" > (f ".exp"); next }
		inblock && n { print > (f ".exp") }' "$page"
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

for c in "$tmp"/tut/*.cmd; do
	name=$(basename "$c" .cmd)
	line=$(cat "$c")
	cmdline="(in a directory with build/ext4sim and scenarios/) $line"
	(cd "$root" && sh -c "$line") > "$tmp/last.out" 2> "$tmp/last.err"
	rc=$? out=$tmp/last.out err=$tmp/last.err
	check "$name-runs" '[ "$rc" -le 1 ] && [ ! -s "$err" ]'
	check "$name-golden" 'golden "$name" "$out"'
	check "$name-page" 'excerpt_matches "${c%.cmd}.exp" "$out"'
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
check question-7-2-dioread-lock '[ "$rc" = 0 ] && grep -q "extents: 0-7 written@1044" "$out" &&
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

# every tutorial scenario is used by a lesson
for f in scenarios/tutorial/*.yaml; do
	check "used-$(basename "$f" .yaml)" 'grep -q "$(basename "$f")" docs/tutorial/*.md'
done

# run --quiz: the blanks' answers are the numbers the plain trace prints, in order
for f in scenarios/tutorial/*.yaml; do
	b=$(basename "$f" .yaml)
	run "$sim" run "$f"
	sed -n 's/^      size:    i_size \([0-9]*\), i_disksize \([0-9]*\).*/\1\n\2/p;
		s/^      crash states: \([0-9]*\) raw .*, \([0-9]*\) distinct, \([0-9]*\) violating$/\1\n\2\n\3/p' \
		"$out" > "$tmp/plain.nums"
	run "$sim" run --reveal "$f"
	sed -n 's/^  ?[0-9]* *\[[0-9]*\] [a-z_ ]*: \([0-9]*\)$/\1/p' "$out" > "$tmp/key.nums"
	check "quiz-key-$b" 'cmp -s "$tmp/plain.nums" "$tmp/key.nums" && [ -s "$tmp/key.nums" ]'
	keys=$(sed -n '/^answers/,$p' "$out" | grep -c '^  ?[0-9]')
	run "$sim" run --quiz "$f"
	check "quiz-hides-$b" '[ "$rc" = 0 ] &&
		! grep -Eq "i_size [0-9]| [0-9]+ distinct|PASS|FAIL|VIOLATION|violation:" "$out" &&
		[ "$(grep -o "?[0-9][0-9]*" "$out" | sort -u | wc -l)" = "$keys" ]'
done
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
