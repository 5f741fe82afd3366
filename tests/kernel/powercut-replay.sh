#!/usr/bin/env bash
# powercut-replay.sh - the model's crash states against the real power-cut states that
# scripts/kernel-powercut --record recorded (tests/kernel/powercut-*.txt); no root, no
# qemu.
#
# The generated scenarios are generated again from the header's gen line and must be
# the ones recorded (the SHA-256 of the file; of a scenario under scenarios/, without
# its comments and description: tests/kernel/scenario-sum); a scenario under
# scenarios/ that changed since the record is skipped and counted (record again).  Each is exported under the
# recorded profile; for each recorded crash point every real state (the file's size and
# SHA-256, or a namespace export's listing hash, after this machine's recovery of one
# subset of the unflushed writes: tests/kernel/powercut-lib.sh) must be one the model
# lists for that point (the export header's "# model: post N state" or "# model: ns post
# N state" lines, the states of ext4sim crashstates), and the model's states that no
# subset produced are counted (two states the model lists apart only by their violations
# count once).
#
# usage: tests/kernel/powercut-replay.sh [-b BUILD] -t FILE [-v]
# Ends with "power-cut: P points, R real states, C in the model (X%), M model states,
# O model-only, S skipped" and "power-cut replay: N passed, N failed" (one count per
# crash point).
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=powercut-lib.sh
. "$here/tests/kernel/powercut-lib.sh"
build=build
truth=""
verbose=0
while getopts "b:t:v" o; do
	case $o in
	b) build=$OPTARG ;;
	t) truth=$OPTARG ;;
	v) verbose=1 ;;
	*) echo "usage: $0 [-b BUILD] -t FILE [-v]" >&2; exit 2 ;;
	esac
done
sim=$build/ext4sim
[ -x "$sim" ] || { echo "powercut-replay.sh: $sim not built" >&2; exit 2; }
[ -r "$truth" ] || { echo "powercut-replay.sh: cannot read '$truth'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profile=$(sed -n 's/^# profile: //p' "$truth")
gen=$(sed -n 's/^# gen: //p' "$truth")
[ -n "$profile" ] && [ -n "$gen" ] || { echo "powercut-replay.sh: $truth has no profile or gen header" >&2; exit 2; }
mkdir "$tmp/gen" "$tmp/s"
# shellcheck disable=SC2086
"$sim" gen $gen --out "$tmp/gen" > /dev/null || exit 2

pass=0 fail=0 points=0 reals=0 inmodel=0 models=0 only=0 skipped=0
declare -A done_scen=()
while read -r name sum; do
	[ -n "${done_scen[$name]:-}" ] && continue
	done_scen[$name]=1
	case $name in
	gen-*) yaml=$tmp/gen/$name.yaml have=$(sha256sum < "$yaml" 2> /dev/null | cut -c1-16) ;;
	*) yaml=$here/$name have=$("$here/tests/kernel/scenario-sum" "$yaml" 2> /dev/null) ;;
	esac
	npts=$(awk -v n="$name" '$1 == n && $3 == "point"' "$truth" | wc -l)
	if [ "$have" != "$sum" ]; then
		if [[ $name == gen-* ]]; then
			fail=$((fail + npts))
			echo "FAIL $name: the scenario gen writes is not the one recorded; record again"
		else
			skipped=$((skipped + npts))
			[ $verbose = 0 ] || echo "skip $name: changed since the record"
		fi
		continue
	fi
	rm -f "$tmp/s"/*
	if ! "$sim" export --kernel "$profile" --format xfs_io -o "$tmp/s" "$yaml" > /dev/null 2> "$tmp/err"; then
		fail=$((fail + npts))
		echo "FAIL $name: export: $(head -1 "$tmp/err")"
		continue
	fi
	script=$(ls "$tmp/s"/*.sh)
	for n in $(awk -v n="$name" '$1 == n && $3 == "point" { print $4 }' "$truth"); do
		miss=0 real=0 ponly=0
		declare -A seen=() listed=()
		while IFS= read -r line; do listed[$line]=1; done < <(pc_model_states "$script" "$n")
		while read -r st; do
			real=$((real + 1))
			seen[$st]=1
			if [ -n "${listed[$st]:-}" ]; then
				inmodel=$((inmodel + 1))
			else
				miss=$((miss + 1))
				echo "FAIL $name point $n: the real state '$st' is not among the model's"
			fi
		done < <(awk -v n="$name" -v p="$n" '$1 == n && $3 == "real" && $4 == p {
			s = $5; for (i = 6; i <= NF; i++) s = s " " $i; print s }' "$truth")
		for line in "${!listed[@]}"; do
			models=$((models + 1))
			[ -n "${seen[$line]:-}" ] || ponly=$((ponly + 1))
		done
		unset seen listed
		points=$((points + 1)) reals=$((reals + real)) only=$((only + ponly))
		if [ $miss = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
		[ $verbose = 0 ] || echo "$name point $n: real $real, missing $miss, model-only $ponly"
	done
done < <(awk '!/^#/ && $3 == "point" { print $1, $2 }' "$truth")
echo "power-cut: $points points, $reals real states, $inmodel in the model" \
	"($(awk -v a=$inmodel -v b=$reals 'BEGIN { printf "%.1f", b ? 100 * a / b : 100 }')%)," \
	"$models model states, $only model-only, $skipped skipped"
echo "power-cut replay: $pass passed, $fail failed"
[ $fail = 0 ]
