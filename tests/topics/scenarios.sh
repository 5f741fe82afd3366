# scenarios.sh - every scenario in scenarios/ meets its expect: (one count per variant,
# from the summary lines), and does so again with a crash judged after every step.

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
