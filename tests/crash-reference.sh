#!/usr/bin/env bash
# crash-reference.sh - the fast crash-state evaluation against the reference.
#
# crash/crashstates.c judges a crash state by parts (metadata outcome mounted
# once, each data block version judged once); --crash-reference judges every
# state whole: its own overlay, mount, read and check.  Both must print the
# same crash points, distinct states, digests, counts and examples.  Run over
# every scenario and over the seeded random kernel-comparison cases in four
# modes and two block sizes, each with a hypothetical crash after every step.
# The random cases run as scenario files, all of one configuration in one process
# each way (the JSON holds one scenario per line), one count per case and
# configuration.  The runs go JOBS at a time (default 2); the results are
# compared and printed in a fixed order.
#
# usage: tests/crash-reference.sh [-b BUILD] [-j JOBS]; ends with
# "crash-state reference: N passed, N failed"
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=build
njobs=2
while getopts "b:j:" o; do
	case $o in
	b) build=$OPTARG ;;
	j) njobs=$OPTARG ;;
	*) echo "usage: $0 [-b BUILD] [-j JOBS]" >&2; exit 2 ;;
	esac
done
sim=$build/ext4sim
[ -x "$sim" ] || { echo "crash-reference.sh: $sim not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# start K ARGS...: run ext4sim ARGS by parts and whole in the background, into $tmp/K.fast
# and $tmp/K.ref, with at most $njobs such runs at a time; recovery_blocks (the work,
# which the reference does not share between outcomes) is left out
start() {
	local k=$1
	shift
	while [ "$(jobs -rp | wc -l)" -ge "$njobs" ]; do wait -n; done
	{
		"$sim" "$@" 2>&1 | sed 's/, "recovery_blocks": [0-9]*//g' > "$tmp/$k.fast"
		"$sim" "$@" --crash-reference 2>&1 | sed 's/, "recovery_blocks": [0-9]*//g' \
			> "$tmp/$k.ref"
	} &
}

# the scenarios, one crashstates run each way per file
scen=("$here"/../scenarios/*/*.yaml)
for i in "${!scen[@]}"; do
	start "s$i" crashstates --json --crash-everywhere "${scen[i]}"
done

# the random cases: one scenario file each; args[NAME]: its steps as -c flags
mkdir "$tmp/cases"
declare -A args
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	name=${line%%:*}
	IFS=';' read -r -a arr <<< "${line#*: }"
	args[$name]=""
	{
		echo "name: $name"
		echo "steps:"
		for s in "${arr[@]}"; do
			s=${s#"${s%%[! ]*}"}
			s=${s%"${s##*[! ]}"}
			args[$name]+=" -c $(printf '%q' "$s")"
			echo "  - '${s//\'/\'\'}'"
		done
	} > "$tmp/cases/$name.yaml"
done < "$here/kernel/cases-random.txt"
names=()
for f in "$tmp"/cases/*.yaml; do names+=("$(basename "$f" .yaml)"); done
configs=()
for bs in 1024 4096; do
	for mode in "--data ordered" "--data ordered --nodelalloc" "--data writeback" \
		    "--data journal"; do
		configs+=("--block-size $bs $mode")
	done
done
for i in "${!configs[@]}"; do
	# shellcheck disable=SC2086
	start "c$i" run --json --crash-everywhere ${configs[i]} "$tmp/cases"
done
wait

for i in "${!scen[@]}"; do
	if cmp -s "$tmp/s$i.fast" "$tmp/s$i.ref" && grep -q '"crash_points"' "$tmp/s$i.fast"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $(basename "${scen[i]}"): by parts and whole differ:" \
			"$sim crashstates --json --crash-everywhere ${scen[i]}"
	fi
done
# one line of JSON per case
for i in "${!configs[@]}"; do
	mapfile -t fast < "$tmp/c$i.fast"
	mapfile -t ref < "$tmp/c$i.ref"
	for k in "${!names[@]}"; do
		if [ ${#fast[@]} = ${#names[@]} ] && [ "${fast[k]}" = "${ref[k]:-}" ] &&
		   [[ ${fast[k]} == *'"crash_points"'* ]]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL ${names[k]} ${configs[i]}: by parts and whole differ:" \
				"$sim run --json --crash-everywhere ${configs[i]}${args[${names[k]}]}"
		fi
	done
done
echo "crash-state reference: $pass passed, $fail failed"
[ $fail = 0 ]
