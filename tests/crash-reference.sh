#!/usr/bin/env bash
# crash-reference.sh - the fast crash-state evaluation against the reference.
#
# crash/crashstates.c judges a crash state by parts (metadata outcome mounted
# once, each data block version judged once); --crash-reference judges every
# state whole: its own overlay, mount, read and check.  Both must print the
# same crash points, distinct states, digests, counts and examples.  Run over
# every scenario and over the seeded random kernel-comparison cases in four
# modes and two block sizes, each with a hypothetical crash after every step.
#
# usage: tests/crash-reference.sh [-b BUILD]; ends with "N passed, N failed"
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=build
while getopts "b:" o; do
	case $o in
	b) build=$OPTARG ;;
	*) echo "usage: $0 [-b BUILD]" >&2; exit 2 ;;
	esac
done
sim=$build/ext4sim
[ -x "$sim" ] || { echo "crash-reference.sh: $sim not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

same() {        # DESCRIPTION, then the ext4sim arguments
	local what=$1
	shift
	"$sim" "$@" > "$tmp/fast" 2>&1
	"$sim" "$@" --crash-reference > "$tmp/ref" 2>&1
	if cmp -s "$tmp/fast" "$tmp/ref" && grep -q '"crash_points"\|"states"' "$tmp/fast"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $what: by parts and whole differ: $sim $(printf "%q " "$@")"
	fi
}

for f in "$here"/../scenarios/*/*.yaml; do
	same "$(basename "$f")" crashstates --json --crash-everywhere "$f"
done
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	name=${line%%:*}
	args=()
	IFS=';' read -r -a arr <<< "${line#*: }"
	for s in "${arr[@]}"; do
		s=$(echo "$s" | sed 's/^ *//; s/ *$//')
		args+=(-c "$s")
	done
	for bs in 1024 4096; do
		for mode in "--data ordered" "--data ordered --nodelalloc" "--data writeback" \
			    "--data journal"; do
			# shellcheck disable=SC2086
			same "$name $bs $mode" run --json --crash-everywhere --block-size $bs $mode \
				"${args[@]}"
		done
	done
done < "$here/kernel/cases-random.txt"
echo "crash-state reference: $pass passed, $fail failed"
[ $fail = 0 ]
