#!/usr/bin/env bash
# cli.sh - `ext4sim html` without a browser (docs/html.md): bad input exits 2 with one
# message on stderr, nothing on stdout and no file written (a missing scenario, an
# unknown flag, an unknown --diff patch, an unknown variant, an -o in a folder that
# does not exist or cannot be written); the page is written whole and the same
# command twice gives the same bytes; cli/html_page.c is what scripts/html-page makes
# of its sources.
#
# usage: tests/html/cli.sh [BUILD_DIR]      (default build; needs BUILD_DIR/ext4sim)
# Last line: "html-cli: N passed, N failed"; exit 1 on a failure.
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
sim=$(cd "$build" 2> /dev/null && pwd)/ext4sim
pass=0 fail=0
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL html-cli: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
scn=scenarios/crash/ordered-waits-for-data.yaml

# bad NAME ARGS...: ext4sim html ARGS, run in an empty folder, exits 2 with one line of
# message (and the usage hint) on stderr, nothing on stdout, no file left anywhere.
bad_input() {
	local name=$1 rc
	shift
	rm -rf "$tmp/w" && mkdir -p "$tmp/w/ro" && chmod a-w "$tmp/w/ro"
	(cd "$tmp/w" && "$sim" html "$@") > "$tmp/out" 2> "$tmp/err"
	rc=$?
	check "$name: exit 2" '[ $rc = 2 ]'
	check "$name: a message on stderr" '[ -s "$tmp/err" ] && [ "$(grep -vc "^(ext4sim --help" "$tmp/err")" = 1 ]'
	check "$name: nothing on stdout" '[ ! -s "$tmp/out" ]'
	check "$name: nothing written" '[ -z "$(find "$tmp/w" -type f)" ]'
}
abs=$PWD/$scn
bad_input "missing file" "$PWD/scenarios/no-such-file.yaml"
bad_input "bad flag" "$abs" --no-such-flag
bad_input "flag without value" "$abs" -o
bad_input "unknown --diff patch" "$abs" --diff no_such_patch
bad_input "unknown variant" "$abs" --variant no-such-variant
bad_input "no scenario" -o x.html
bad_input "two scenarios" "$abs" "$abs"
bad_input "-o in a missing folder" "$abs" -o no-such-dir/x.html
if [ "$(id -u)" != 0 ]; then
	bad_input "-o in an unwritable folder" "$abs" -o ro/x.html
fi

# the page: written whole, named after the scenario by default, the same twice
mkdir -p "$tmp/a" "$tmp/b"
(cd "$tmp/a" && "$sim" html "$OLDPWD/$scn") > "$tmp/out" 2> "$tmp/err"
rc=$?
check "default name: exit 0" '[ $rc = 0 ]'
check "default name: ordered-waits-for-data.html" '[ -s "$tmp/a/ordered-waits-for-data.html" ]'
check "default name: no temporary file left" '[ "$(ls "$tmp/a")" = ordered-waits-for-data.html ]'

"$sim" html "$scn" -o "$tmp/b/one.html" > /dev/null 2>&1
"$sim" html "$scn" -o "$tmp/b/two.html" > /dev/null 2>&1
check "deterministic" 'cmp -s "$tmp/b/one.html" "$tmp/b/two.html"'
"$sim" html "$scn" -o "$tmp/a/other.html" > /dev/null 2>&1
check "same bytes in another folder" 'cmp -s "$tmp/a/other.html" "$tmp/b/one.html"'
check "the page ends" 'tail -1 "$tmp/b/one.html" | grep -q "^</html>$"'
check "one JSON element, no raw </ inside it" \
	'[ "$(sed -n "/<script type=\"application\/json\" id=\"data\">/,/<\/script>/p" "$tmp/b/one.html" | grep -c "</")" = 1 ]'
"$sim" html "$scn" --diff short_copy_zero --variant default -o "$tmp/b/diff.html" > /dev/null 2>&1
check "--diff: a page with both sides" 'grep -q "\"patch\": \"short_copy_zero\"" "$tmp/b/diff.html"'
"$sim" html "$scn" --block-size 1024 --kernel 6.1 -o "$tmp/b/flags.html" > /dev/null 2>&1
check "config flags reach the run" 'grep -q "\"kernel\": \"6.1\", \"config\": {\"block_size\": 1024" "$tmp/b/flags.html"'
check "cli/html_page.c is up to date" 'scripts/html-page --check'

echo "html-cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
