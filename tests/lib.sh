# lib.sh - the helpers every test topic uses (sourced by tests/run-tests.sh; see
# tests/README.md).
#
# The driver sets: build (the build directory), sim ($build/ext4sim), tmp (a scratch
# directory), topic (the topic being run) and the counts pass and fail.
#
#   run CMD ARGS...        run a command from the repository root: stdout in $out, stderr
#                          in $err, its exit status in $rc; remembered as the command that
#                          reproduces the checks that follow
#   check NAME TEST        one count: TEST (a shell condition, evaluated in the caller's
#                          variables; in single quotes) must hold; a failure prints
#                          "FAIL TOPIC/NAME", the command to run again and the head of
#                          its stderr
#   expect_exit2 NAME CMD ARGS...
#                          one count: CMD exits 2 with a message on stderr and nothing on
#                          stdout (bad input)
#   golden NAME FILE       a condition for check: FILE (with $tmp written as TMP) equals
#                          tests/golden/TOPIC/NAME.out; with UPDATE=1 rewrites that file
#                          instead (and says so)
#   tally NAME FILE PREFIX add a sub-program's "PREFIX: N passed, N failed" line to the
#                          counts (a missing line is one failure)
#   spawn KEY CMD ARGS...  start a slow command in the background (at most $JOBS at a time,
#                          default 2); collect KEY waits for every one and then sets out,
#                          err, rc and the reproduce command as run would have
#   ok / bad MESSAGE       count a pass / a failure by hand

out=$tmp/last.out
err=$tmp/last.err
rc=0
cmdline=""

ok() { pass=$((pass + 1)); }

bad() {
	fail=$((fail + 1))
	echo "FAIL $topic: $*"
}

# The arguments as one shell-quoted line.
quote_cmd() {
	local a line=""
	for a in "$@"; do line+=" $(printf '%q' "$a")"; done
	echo "${line# }"
}

run() {
	cmdline=$(quote_cmd "$@")
	out=$tmp/last.out err=$tmp/last.err
	"$@" > "$out" 2> "$err"
	rc=$?
}

spawn() {
	local key=$1
	shift
	while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-2}" ]; do wait -n; done
	quote_cmd "$@" > "$tmp/$key.cmd"
	{
		"$@" > "$tmp/$key.out" 2> "$tmp/$key.err"
		echo $? > "$tmp/$key.rc"
	} &
}

collect() {
	wait
	out=$tmp/$1.out err=$tmp/$1.err
	rc=$(cat "$tmp/$1.rc")
	cmdline=$(cat "$tmp/$1.cmd")
}

# failed NAME [DETAIL]: report a failed check with the command that reproduces it
failed() {
	fail=$((fail + 1))
	echo "FAIL $topic/$1${2:+: $2}"
	[ -n "$cmdline" ] && echo "  reproduce (from the repository root): $cmdline"
	[ -s "$err" ] && head -5 "$err" | sed 's/^/  stderr: /'
	keep_tmp=1
}

check() {
	local check_name=$1 check_ok=0
	shift
	eval "$*" > "$tmp/check.msg" 2>&1 || check_ok=1
	if [ $check_ok = 0 ]; then ok; else failed "$check_name"; fi
	cat "$tmp/check.msg"
}

expect_exit2() {
	local name=$1
	shift
	run "$@"
	if [ $rc = 2 ] && [ ! -s "$out" ] && [ -s "$err" ]; then ok; else
		failed "$name" "exit $rc, stdout $(wc -c < "$out") bytes (bad input must exit 2, stdout empty)"; fi
}

updating() { [ -n "${UPDATE:-}" ] && [ "$UPDATE" != 0 ]; }

golden() {
	local g=tests/golden/$topic/$1.out
	sed "s|$tmp|TMP|g" "$2" > "$tmp/golden.cmp"
	if updating; then
		mkdir -p "${g%/*}"
		cmp -s "$tmp/golden.cmp" "$g" || { cp "$tmp/golden.cmp" "$g"; echo "golden: rewrote $g"; }
		return 0
	fi
	if [ ! -f "$g" ]; then
		echo "  $g is missing (make check T=$topic UPDATE=1 writes it)"
		return 1
	fi
	cmp -s "$tmp/golden.cmp" "$g" && return 0
	echo "  the output differs from $g (- expected, + now):"
	diff -u "$g" "$tmp/golden.cmp" | sed -n '3,22s/^/  /p'
	return 1
}

tally() {
	local n f
	n=$(sed -n "s/^$3: \([0-9]*\) passed, \([0-9]*\) failed\$/\1/p" "$2")
	f=$(sed -n "s/^$3: \([0-9]*\) passed, \([0-9]*\) failed\$/\2/p" "$2")
	if [ -z "$n" ]; then
		failed "$1" "no '$3: N passed, N failed' line; it ended: $(tail -2 "$2" | tr '\n' ' ')"
	else
		pass=$((pass + n))
		fail=$((fail + f))
		[ "$f" = 0 ] || keep_tmp=1
	fi
}
