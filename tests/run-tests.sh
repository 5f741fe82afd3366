#!/usr/bin/env bash
# run-tests.sh - everything `make check` runs, topic by topic (tests/README.md); the last
# line is "N passed, N failed" and the exit status is 1 when anything failed.
#
#   BUILD=DIR    the build directory (default build): DIR/ext4sim, DIR/tests/*
#   T=TOPICS     only these topics, a comma list (default: all, in the order below)
#   UPDATE=1     rewrite the golden outputs under tests/golden/ instead of comparing
#
# Each topic is tests/topics/TOPIC.sh, sourced with the helpers of tests/lib.sh; after it
# a line "TOPIC: N passed, N failed (S s)" gives its counts and its time.
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
all_topics=(tidy unit e2fs scenarios cli images events html tutorial determinism kernel-replay crash-reference checker-log explore oracle robust)
build=${BUILD:-build}
sim=$build/ext4sim
pass=0
fail=0
keep_tmp=0
tmp_root=$(mktemp -d)
tmp=$tmp_root
topic=run-tests

cleanup() { [ "$keep_tmp" = 1 ] || rm -rf "$tmp_root"; }
trap cleanup EXIT

# The topics T names, checked against tests/topics/.
select_topics() {
	local t
	topics=()
	if [ -z "${T:-}" ]; then
		topics=("${all_topics[@]}")
		return
	fi
	IFS=, read -r -a topics <<< "$T"
	for t in "${topics[@]}"; do
		if [ ! -f "tests/topics/$t.sh" ]; then
			echo "run-tests.sh: no topic '$t' (topics: ${all_topics[*]})" >&2
			exit 2
		fi
	done
}

select_topics
. tests/lib.sh
[ -x "$sim" ] || { echo "run-tests.sh: $sim is not built (make BUILD=$build)" >&2; exit 2; }
for topic in "${topics[@]}"; do
	tmp=$tmp_root/$topic
	mkdir -p "$tmp"
	out=$tmp/last.out err=$tmp/last.err cmdline=""
	p0=$pass f0=$fail t0=$(date +%s%N)
	. "tests/topics/$topic.sh"
	t1=$(date +%s%N)
	printf '%s: %d passed, %d failed (%d.%d s)\n' "$topic" $((pass - p0)) $((fail - f0)) \
		$(((t1 - t0) / 1000000000)) $(((t1 - t0) / 100000000 % 10))
done
[ "$keep_tmp" = 0 ] || echo "(the failed checks' files are kept in $tmp_root)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
