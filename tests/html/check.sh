#!/usr/bin/env bash
# check.sh - `ext4sim html` pages in a real browser (docs/html.md): headless chromium
# loads each page from a file:// URL (a #step=N hash selects a step), and the checks
# below read the DOM it dumps after the page's script ran.
#
#   - the timeline has one entry per step (the step count from `ext4sim run`), also for a
#     generated scenario of 1200 steps, whose step 1100 can be selected;
#   - at a crash step (crash --keep), the crash point is open, every distinct state
#     `ext4sim crashstates` lists is there (its sha256 prefix), each with its verdict;
#   - a crash state shows the recovered file's bytes as runs (crashstates --json "bytes");
#   - a step that changed i_size marks the i_size cell `changed`;
#   - the journal's log bar spans the part of the log the run uses;
#   - the block timeline of a commit: a row per block (data, bitmap, inode table, extent
#     block, TxB, TxE), a column per event, the data going in flight, into the cache and
#     onto the media, the log copies durable before TxE; stepping event by event (the
#     buttons, the . key and the slider, pressed by a script added to a copy of the page;
#     #col=N) moves the current column and marks its event;
#   - a step's event list has as many entries as `ext4sim run --events` lists for it;
#   - two variants and a --diff page show two sides, the differences marked `differs`;
#   - no request: the page names nothing external (no http:, https:, //, src=, url(,
#     @import), and chromium's network log shows no request made for a file:// page;
#     the log is shown to catch one (a control page without a policy that loads an
#     image) and the page's Content-Security-Policy to block one (the page with that
#     image added);
#   - a namespace scenario: the tree after a step, one line per name the trace lists,
#     indented by depth, hard links marked with their other names, only what the step
#     changed highlighted, the steps that changed names marked, an unlinked name struck
#     through; every crash state's recovered tree, what the crash lost highlighted; a
#     scenario of one file has no tree;
#   - a screenshot is written.
#
# usage: tests/html/check.sh [BUILD_DIR]     (default build; needs BUILD_DIR/ext4sim)
# Last line: "html: N passed, N failed".  Without chromium (or chromium-browser, or
# $CHROMIUM) it prints why it skipped and "html: 0 passed, 0 failed".  Exit 1 on a
# failure.  Scratch files go to a temporary directory, removed at the end
# (HTML_KEEP=1 keeps it and prints its path).
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
sim=$build/ext4sim
pass=0 fail=0

browser=${CHROMIUM:-}
[ -n "$browser" ] || browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "skipped: chromium is not installed (scripts/install-deps installs it as root)"
	echo "html: 0 passed, 0 failed"
	exit 0
fi
if [ ! -x "$sim" ]; then
	echo "FAIL html: $sim is missing (make BUILD=$build all)"
	echo "html: 0 passed, 1 failed"
	exit 1
fi
tmp=$(mktemp -d)
cleanup() { if [ "${HTML_KEEP:-0}" = 1 ]; then echo "scratch files in $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL html: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

# browse MODE OUT URL: chromium on URL; MODE dom (the DOM to OUT), net (the network log
# to OUT), shot (a 1280x900 screenshot to OUT).
browse() {
	local ud rc
	ud=$(mktemp -d "$tmp/profile.XXXXXX")
	local args=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
		    --disable-background-networking --disable-component-update --disable-sync
		    --user-data-dir="$ud")
	case $1 in
	dom) timeout 120 "$browser" "${args[@]}" --dump-dom "$3" > "$2" 2> "$tmp/browser.err" ;;
	net) timeout 120 "$browser" "${args[@]}" --log-net-log="$2" --dump-dom "$3" > /dev/null \
		2> "$tmp/browser.err" ;;
	shot) timeout 120 "$browser" "${args[@]}" --window-size=1280,900 --screenshot="$2" "$3" \
		> /dev/null 2> "$tmp/browser.err" ;;
	esac
	rc=$?
	rm -rf "$ud"
	return $rc
}

# page NAME ARGS...: ext4sim html ARGS -o $tmp/NAME.html; counts one check.
page() {
	local name=$1
	shift
	if "$sim" html "$@" -o "$tmp/$name.html" > "$tmp/$name.gen" 2>&1 && [ -s "$tmp/$name.html" ]
	then ok; else bad "ext4sim html $* -o $name.html: $(head -3 "$tmp/$name.gen")"; fi
}
url() { echo "file://$tmp/$1.html${2:+#$2}"; }
count() { grep -o "$1" "$2" | wc -l; }
# The tags of FILE holding both strings.
tags_with() { grep -o '<[^>]*>' "$3" | grep -F -- "$1" | grep -cF -- "$2"; }
# The steps `ext4sim run` prints for FILE (first variant).
run_steps() { "$sim" run --variant "$2" "$1" | grep -c '^  \[[0-9]*\] '; }
# The events `ext4sim run --events` lists for step N of FILE.
run_events() {
	"$sim" run --events "$1" | awk -v n="$2" '
		/^  \[[0-9]+\] / { cur = substr($1, 2, length($1) - 2) + 0 }
		cur == n && /^        e[0-9]+ / { c++ }
		END { print c + 0 }'
}

# --- a crash --keep step: keep-none-no-residue, step 6 ---
crash=scenarios/crash/keep-none-no-residue.yaml
page crash "$crash"
browse dom "$tmp/crash.dom" "$(url crash step=6)"
check "crash: one timeline entry per step" \
	'[ "$(count "<li class=\"tstep" "$tmp/crash.dom")" = "$(run_steps "$crash" default)" ]'
check "crash: step 6 selected" 'grep -q ">Step 6 of 7<" "$tmp/crash.dom"'
check "crash: the crash point is open" 'grep -q "<details class=\"cpoint\" open=\"\"" "$tmp/crash.dom"'
"$sim" crashstates "$crash" | sed -n 's/^    size [0-9]* sha256 \([0-9a-f]\{16\}\).*/\1/p' > "$tmp/shas"
check "crash: crashstates lists states" '[ -s "$tmp/shas" ]'
while read -r sha; do
	check "crash: state $sha is shown" 'grep -q "sha256 $sha" "$tmp/crash.dom"'
done < "$tmp/shas"
"$sim" crashstates --json "$crash" | grep -o '"bytes": "[^"]*"' | sed 's/^"bytes": "//; s/"$//' > "$tmp/bytes"
check "crash: crashstates gives the states' bytes" '[ -s "$tmp/bytes" ]'
while read -r by; do
	check "crash: a state's bytes are shown as runs ($by)" 'grep -qF "<code>$by</code>" "$tmp/crash.dom"'
done < "$tmp/bytes"
check "crash: no sha256 prefix in a state's text" '! grep -q "bytes, sha256 " "$tmp/crash.dom"'
check "crash: each state has its verdict" \
	'[ "$(count "class=\"cverdict [a-z]*\">verdict: " "$tmp/crash.dom")" = "$(wc -l < "$tmp/shas")" ]'
check "crash: a state says no violation" 'grep -q "verdict: no violation" "$tmp/crash.dom"'
check "crash: the writes a state kept" 'grep -q "writes kept: " "$tmp/crash.dom"'
check "crash: the example --keep" 'grep -q "<code>crash --keep " "$tmp/crash.dom"'
check "crash: the step's own --keep" 'grep -q "crash --keep: kept: none" "$tmp/crash.dom"'

# --- the config line says what the text run header says: 1 KiB blocks before 6.8 mount
# dioread_lock although dioread_nolock is set, noauto_da_alloc, a crash bound not the
# default ---
cfgf=(scenarios/crash/ordered-waits-for-data.yaml --block-size 1024 --kernel 6.1 --noauto-da-alloc --crash-bound 64)
page config "${cfgf[@]}"
browse dom "$tmp/config.dom" "$(url config step=1)"
"$sim" run "${cfgf[@]}" | sed -n 's/^-- variant [^:]*: //p' > "$tmp/config.header"
check "config: the run header names dioread_lock" 'grep -q "delalloc, dioread_lock, noauto_da_alloc, 16384 blocks; crash bound 64$" "$tmp/config.header"'
grep -o '<div class="hint" title="on: [^"]*">kernel [^<]*</div>' "$tmp/config.dom" | sed 's/^[^>]*>//; s/<.*//' > "$tmp/config.line"
check "config: the page's line is the run header's" \
	'[ -s "$tmp/config.header" ] && grep -qF "$(cat "$tmp/config.header"); " "$tmp/config.line"'
check "config: no dioread_nolock where the mount does not use it" '[ -s "$tmp/config.line" ] && ! grep -q "dioread_nolock" "$tmp/config.line"'

# --- sizes and events: ordered-waits-for-data ---
ord=scenarios/crash/ordered-waits-for-data.yaml
page ordered "$ord"
browse dom "$tmp/ord1.dom" "$(url ordered step=1)"
browse dom "$tmp/ord3.dom" "$(url ordered step=3)"
check "sizes: step 1 marks i_size changed" '[ "$(tags_with "changed" "data-k=\"i_size\"" "$tmp/ord1.dom")" = 1 ]'
check "sizes: step 3 leaves i_size unmarked" '[ "$(tags_with "changed" "data-k=\"i_size\"" "$tmp/ord3.dom")" = 0 ]'
check "sizes: step 3 marks the durable size changed" \
	'[ "$(tags_with "changed" "data-k=\"durable size\"" "$tmp/ord3.dom")" = 1 ]'
for n in 1 3; do
	check "events: step $n lists the events run --events lists" \
		'[ "$(count "<li class=\"ev\"" "$tmp/ord$n.dom")" = "$(run_events "$ord" $n)" ]'
done
check "events: step 3 shows the ordered-data wait" 'grep -q "waits for the ordered data writes" "$tmp/ord3.dom"'
check "events: step 1 says why i_size moved" 'grep -q "<ul class=\"why\"><li>e4 i_size 0 -&gt; 4096" "$tmp/ord1.dom"'
check "log bar: scaled to the log's used part, not its 1023 blocks" \
	'span=$(grep -o "data-span=\"[0-9]*\"" "$tmp/ord3.dom" | head -1 | tr -dc 0-9); [ -n "$span" ] && [ "$span" -lt 64 ]'

# --- the block timeline of the commit step, and stepping through it ---
# tl_rows DOM: each block's name, then each place as "place-key|cell|cell|...".
tl_rows() {
	sed 's/<tr/\n<tr/g' "$1" | grep -E '^<tr class="tl(block|place)"' |
		sed -E 's/^<tr class="tlblock"><td[^>]*>([^<]*)<\/td>.*/\1/;
			s/^<tr class="tlplace" data-place="([a-z_]+)"><td[^>]*>[^<]*<\/td>/\1/;
			s/<td[^>]*>([^<]*)<\/td>/|\1/g; s/<\/tr>.*//'
}
# the place row PLACE under block NAME
tl_place() { tl_rows "$1" | awk -v b="$2" -v p="$3" '$0 == b { on = 1; next } on && index($0, "|") == 0 { on = 0 } on && index($0, p "|") == 1 { print; exit }'; }
tl_rows "$tmp/ord3.dom" > "$tmp/ord3.rows"
for b in "file block 0 (disk 2065)" "file block 1 (disk 2066)" "group descriptors (disk 1)" \
	 "block bitmap (disk 9)" "inode table (disk 41)" "TxB: descriptor of tid 1 (disk 16)" \
	 "TxE: commit block of tid 1 (disk 20)"; do
	check "timeline: a row for $b" 'grep -qxF "$b" "$tmp/ord3.rows"'
done
check "timeline: one column per event, and before" \
	'[ "$(count "<th class=\"tlcol" "$tmp/ord3.dom")" = "$(($(run_events "$ord" 3) + 1))" ]'
home0=$(tl_place "$tmp/ord3.dom" "file block 0 (disk 2065)" home_media)
check "timeline: data block 0 on the media goes from ee to aa" \
	'case $home0 in "home_media|ee|"*"|aa") true ;; *) false ;; esac'
pend0=$(tl_place "$tmp/ord3.dom" "file block 0 (disk 2065)" home_pending)
check "timeline: data block 0 is in flight, then in the cache, then gone" \
	'case $pend0 in "home_pending|aa|"*"|aa|"*"|") true ;; *) false ;; esac &&
	 grep -q "<td class=\"tc inflight[^\"]*\" data-col=\"0\"[^>]*>aa</td>" "$tmp/ord3.dom"'
txe=$(tl_place "$tmp/ord3.dom" "TxE: commit block of tid 1 (disk 20)" log_media)
check "timeline: the commit block reaches the media last" \
	'case $txe in "log_media||"*"|TxE") true ;; *) false ;; esac'
logbm=$(tl_place "$tmp/ord3.dom" "block bitmap (disk 9)" log_media)
check "timeline: the bitmap's copy is on the media in the log before TxE" \
	'[ "$(echo "$logbm" | tr "|" "\n" | grep -c "^v1$")" -gt "$(echo "$txe" | tr "|" "\n" | grep -c "^TxE$")" ]'
check "timeline: before the step is selected" 'grep -q "<th class=\"tlcol cur\" data-col=\"0\"[^>]*>before</th>" "$tmp/ord3.dom"'
# stepping: a copy of the page whose added script presses the buttons, a key and the slider
first=$("$sim" run --events "$ord" | awk '/^  \[3\] / { on = 1 } on && /^        e[0-9]+ / { print substr($1, 2); exit }')
stepper() {
	sed "s|^</body>\$|<script>$1</script></body>|" "$tmp/ordered.html" > "$tmp/$2.html"
	browse dom "$tmp/$2.dom" "$(url "$2" step=3)"
}
stepper "for (var i = 0; i < 3; i++) document.querySelector('.tlnext').click(); document.querySelector('.tlprev').click();" step2
check "stepping: next x3, prev: the second event is current" \
	'grep -q "<th class=\"tlcol cur\" data-col=\"2\"[^>]*>e$((first + 1))</th>" "$tmp/step2.dom"'
check "stepping: the current event is named" 'grep -q "<div class=\"tlnow\"><b class=\"mono\">e$((first + 1))</b>" "$tmp/step2.dom"'
check "stepping: the events list marks it" 'grep -q "<li class=\"ev cur\" data-ev=\"$((first + 1))\">" "$tmp/step2.dom"'
check "stepping: the position reads 3 of the columns" 'grep -q "class=\"tlpos\">3 / " "$tmp/step2.dom"'
stepper "document.dispatchEvent(new KeyboardEvent('keydown', { key: '.' })); document.dispatchEvent(new KeyboardEvent('keydown', { key: '.' }));" stepkey
check "stepping: the . key twice" 'grep -q "<th class=\"tlcol cur\" data-col=\"2\"" "$tmp/stepkey.dom"'
stepper "var r = document.querySelector('.tlrange'); r.value = r.max; r.dispatchEvent(new Event('input'));" stepend
ncol=$(count "<th class=\"tlcol" "$tmp/ord3.dom")
check "stepping: the slider to its end selects the last column" \
	'grep -q "<th class=\"tlcol cur\" data-col=\"$((ncol - 1))\"" "$tmp/stepend.dom" &&
	 grep -q "class=\"tlnext\" disabled=\"\"" "$tmp/stepend.dom"'
browse dom "$tmp/ordcol.dom" "$(url ordered "step=3&col=4")"
check "stepping: #col=4 opens the fourth event" 'grep -q "<th class=\"tlcol cur\" data-col=\"4\"[^>]*>e$((first + 3))</th>" "$tmp/ordcol.dom"'
printf 'name: mixed\nsteps:\n  - pwrite -S 0xaa 0 4096\n  - pwrite -S 0xbb 100 200\n' > "$tmp/mixed.yaml"
page mixed "$tmp/mixed.yaml"
browse dom "$tmp/mixed.dom" "$(url mixed step=2)"
check "timeline: a mixed data version's bytes as its tooltip" \
	'grep -q "title=\"v1: bytes 0-99: 0xaa, 100-299: 0xbb, 300-4095: 0xaa\">v1\*</td>" "$tmp/mixed.dom"'
browse shot "$tmp/ordered.png" "$(url ordered step=3)"
check "screenshot written" '[ "$(stat -c %s "$tmp/ordered.png" 2>/dev/null || echo 0)" -gt 20000 ]'

# --- two variants side by side ---
var=scenarios/bugs/2024-eof-pollution-extend.yaml
page variants "$var"
browse dom "$tmp/var.dom" "$(url variants "step=4&a=0&b=3")"
check "variants: two sides" '[ "$(count "<div class=\"side\">" "$tmp/var.dom")" = 2 ]'
check "variants: the left violates, the right does not" \
	'grep -q "invariants violated: gap_zero_on_extend, read_posix, fsync_durable" "$tmp/var.dom" &&
	 grep -q "invariants violated: none" "$tmp/var.dom"'
check "variants: differences marked" '[ "$(count "differs" "$tmp/var.dom")" -gt 0 ]'
check "variants: the timeline marks differing steps" 'grep -q "class=\"mk dif\"" "$tmp/var.dom"'

# --- --diff: a toggle off and on ---
page diff scenarios/bugs/2023-short-copy-disksize.yaml --diff short_copy_zero
browse dom "$tmp/diff.dom" "$(url diff)"
check "diff: two sides" '[ "$(count "<div class=\"side\">" "$tmp/diff.dom")" = 2 ]'
check "diff: off and on named" 'grep -q "short_copy_zero off" "$tmp/diff.dom" && grep -q "short_copy_zero on" "$tmp/diff.dom"'

# --- a long scenario: 1200 steps ---
{
	echo "name: long-generated"
	echo "steps:"
	for i in $(seq 0 1199); do
		case $((i % 40)) in
		39) echo "  - fsync" ;;
		19) echo "  - sync_range -w 0 0" ;;
		*) echo "  - pwrite -S 0x$(printf %02x $((i % 251 + 1))) $(((i * 1536) % 1048576)) 1000" ;;
		esac
	done
} > "$tmp/long.yaml"
page long "$tmp/long.yaml"
browse dom "$tmp/long.dom" "$(url long step=1100)"
check "long: one timeline entry per step" '[ "$(count "<li class=\"tstep" "$tmp/long.dom")" = 1200 ]'
check "long: step 1100 selected" 'grep -q ">Step 1100 of 1200<" "$tmp/long.dom" && grep -q "class=\"tstep sel\" data-step=\"1100\"" "$tmp/long.dom"'
check "long: only one step drawn" '[ "$(count "<div class=\"side\">" "$tmp/long.dom")" = 1 ]'

# --- a namespace scenario: the tree per step and per crash state ---
cat > "$tmp/ns.yaml" << 'EOF'
name: namespace-tree
steps:
  - mkdir A
  - open -f A/foo
  - pwrite -S 0xcc 0 8192
  - link A/foo g
  - fsync A/foo
  - symlink A/foo l
  - pwrite -S 0xdd 0 4096
  - sync_range -w 0 0
  - unlink g
  - crash
EOF
page ns "$tmp/ns.yaml"
browse dom "$tmp/ns4.dom" "$(url ns step=4)"
# the names the trace lists after step 4, each drawn once, indented by its depth
"$sim" run "$tmp/ns.yaml" | sed -n '/^  \[4\] /,/^  \[5\] /s/^        \(\/[^ ]*\) .*/\1/p' > "$tmp/ns4.paths"
check "ns: the trace lists the tree after step 4" '[ "$(wc -l < "$tmp/ns4.paths")" = 6 ]'
check "ns: one line per name at step 4" \
	'[ "$(count "<li class=\"ns " "$tmp/ns4.dom")" = "$(wc -l < "$tmp/ns4.paths")" ]'
while read -r path; do
	check "ns: $path is drawn" 'grep -qF "data-path=\"$path\"" "$tmp/ns4.dom"'
done < "$tmp/ns4.paths"
check "ns: names indented by depth" \
	'[ "$(tags_with "data-path=\"/A/foo\"" "padding-left: 40px" "$tmp/ns4.dom")" = 1 ] &&
	 [ "$(tags_with "data-path=\"/g\"" "padding-left: 22px" "$tmp/ns4.dom")" = 1 ] &&
	 [ "$(tags_with "data-path=\"/\"" "padding-left: 4px" "$tmp/ns4.dom")" = 1 ]'
check "ns: a hard link is marked with its other name" \
	'grep -q ">hard link: also /g<" "$tmp/ns4.dom" && grep -q ">hard link: also /A/foo<" "$tmp/ns4.dom" &&
	 [ "$(count "<li class=\"ns [a-z]* hardlink" "$tmp/ns4.dom")" = 2 ]'
check "ns: what the link changed is highlighted, nothing else" \
	'[ "$(tags_with "data-path=\"/g\"" "changed" "$tmp/ns4.dom")" = 1 ] &&
	 [ "$(tags_with "data-path=\"/A/foo\"" "changed" "$tmp/ns4.dom")" = 1 ] &&
	 [ "$(count "<li class=\"ns [a-z ]*changed" "$tmp/ns4.dom")" = 2 ]'
grep -o '<li class="tstep[^"]*" data-step="[0-9]*">\(<[^l][^>]*>[^<]*</[a-z]*>\|[^<]\)*' "$tmp/ns4.dom" |
	grep '>names<' | sed 's/.*data-step="\([0-9]*\)".*/\1/' | tr '\n' ' ' > "$tmp/ns.marked"
check "ns: the steps that changed names are marked" '[ "$(cat "$tmp/ns.marked")" = "1 2 4 6 9 10 " ]'
browse dom "$tmp/ns9.dom" "$(url ns step=9)"
check "ns: an unlinked name is struck through" \
	'[ "$(tags_with "data-path=\"/g\"" "gone" "$tmp/ns9.dom")" = 1 ] && ! grep -q ">hard link: also" "$tmp/ns9.dom"'
browse dom "$tmp/ns10.dom" "$(url ns step=10)"
"$sim" crashstates "$tmp/ns.yaml" | grep -c "^      namespace:$" > "$tmp/ns.states"
check "ns: every crash state has its tree" \
	'[ "$(cat "$tmp/ns.states")" = 2 ] && [ "$(count "<div class=\"csns\">" "$tmp/ns10.dom")" = 2 ]'
check "ns: a crash state marks what differs from the tree before the crash" \
	'[ "$(count "<li class=\"ns lnk gone changed\" data-path=\"/l\"" "$tmp/ns10.dom")" = 3 ]'
check "ns: a scenario of one file has no tree" \
	'grep -q "<ul class=\"nstree\"" "$tmp/ns4.dom" && ! grep -q "<ul class=\"nstree\"\|<span class=\"mk names\"" "$tmp/crash.dom"'
browse shot "$tmp/ns.png" "$(url ns step=10)"
check "ns: screenshot written" '[ "$(stat -c %s "$tmp/ns.png" 2>/dev/null || echo 0)" -gt 20000 ]'

# --- no request ---
for p in crash ordered variants diff long; do
	check "no external reference in $p.html" \
		'! grep -qiE "https?:|//|src=|url\(|@import" "$tmp/$p.html"'
done
check "the policy forbids every load" \
	'grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src '\''none'\'';" "$tmp/crash.html"'
probe='<img src="http://127.0.0.1:9/probe.png">'
printf '<!DOCTYPE html><html><body>%s</body></html>\n' "$probe" > "$tmp/control.html"
sed "s|^<body>\$|<body>$probe|" "$tmp/crash.html" > "$tmp/probed.html"
check "the probe is in the page's copy" 'grep -qF "$probe" "$tmp/probed.html"'
browse net "$tmp/control.net" "$(url control)"
browse net "$tmp/probed.net" "$(url probed)"
browse net "$tmp/crash.net" "$(url crash step=6)"
browse net "$tmp/long.net" "$(url long step=1100)"
page_req='"network_isolation_key":"file:'
check "the network log shows a page's request (control)" 'grep -q "$page_req" "$tmp/control.net"'
check "the policy blocks a request the page would make" \
	'[ -s "$tmp/probed.net" ] && ! grep -q "$page_req" "$tmp/probed.net"'
for p in crash long; do
	check "no request from $p.html" '[ -s "$tmp/$p.net" ] && ! grep -q "$page_req" "$tmp/$p.net"'
done

echo "html: $pass passed, $fail failed"
[ "$fail" = 0 ]
