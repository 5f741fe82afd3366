# scenarios.sh - every scenario in scenarios/ meets its expect: (one count per variant,
# from the summary lines), and does so again with a crash judged after every step; the
# pairs of variants of tests/data/crash-equal.txt have the same crash outcomes, or not.

run "$sim" run --summary scenarios
[ "$rc" -le 1 ] || failed "run-all" "ext4sim run scenarios exited $rc"
while read -r name variant verdict rest; do
	case $verdict in
	PASS) ok ;;
	FAIL) fail=$((fail + 1))
	      echo "FAIL $topic/$name: variant $variant: violated $rest" \
		   "(reproduce: $sim run \$(grep -rl '^name: $name\$' scenarios) --variant $variant)"
	      keep_tmp=1 ;;
	esac
done < "$out"

# --crash-everywhere: every variant still as expected
run "$sim" run --summary --crash-everywhere scenarios
check crash-everywhere '[ "$rc" = 0 ] && tail -1 "$out" | grep -q " 0 not\$" ||
	{ grep " FAIL " "$out" | head -5 | sed "s/^/  /"; false; }'

# crash outcomes compared across variants (tests/data/crash-equal.txt): every crash step's
# distinct states as "step size sha256 violations" lines, sorted, the same or not
crash_outcomes() {
	"$sim" crashstates --json "$1" --variant "$2" |
		grep -oE '"step": [0-9]+, "where": "[a-z_]+"|\{"size": [0-9]+, "sha256": "[0-9a-f]+", "violations": \[[^]]*\]' |
		awk '/^"step"/ { gsub(/[",]/, ""); step = "step " $2 " " $4; next } { print step, $0 }' |
		sort
}
while read -r file a b relation; do
	case $file in '#'* | '') continue ;; esac
	crash_outcomes "$file" "$a" > "$tmp/cs-a"
	crash_outcomes "$file" "$b" > "$tmp/cs-b"
	cmdline="$sim crashstates --json $file --variant $a (and --variant $b; crash_outcomes in tests/topics/scenarios.sh)"
	case $relation in
	same) check "crash-outcomes-same ${file##*/} $a $b" '[ -s "$tmp/cs-a" ] &&
		{ cmp -s "$tmp/cs-a" "$tmp/cs-b" ||
		  { diff "$tmp/cs-a" "$tmp/cs-b" | head -8 | sed "s/^/  /"; false; }; }' ;;
	differs) check "crash-outcomes-differ ${file##*/} $a $b" '[ -s "$tmp/cs-a" ] &&
		[ -s "$tmp/cs-b" ] && ! cmp -s "$tmp/cs-a" "$tmp/cs-b"' ;;
	*) bad "tests/data/crash-equal.txt: relation '$relation' is neither same nor differs" ;;
	esac
done < tests/data/crash-equal.txt
