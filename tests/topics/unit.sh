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
