#!/usr/bin/env bash
# kernel-check-replay.sh - compare the model with what a real ext4 printed for the
# scenarios of an ext4sim gen campaign, as scripts/kernel-check --record recorded it
# (tests/kernel/kernel-check-6.18.txt); no root, no loop device.
#
# The campaign is generated again from the seed and count in the file's header; each
# scenario must be the one recorded (the SHA-256 of its file; a scenario that changed,
# because gen changed or the model's sizes changed the mmap stores gen places, is a
# failure: record again with scripts/kernel-check --record as root).  Each is exported
# with the recorded profile and compared as kernel-check compares: before a crash and at
# the end, size and SHA-256 equal; after a crash, one of the states the model lists.
#
# With -x KNOWN (a list of the campaign's known disagreements, one "NAME  # reason" a line:
# the model's bugs found by the campaign, kept until the model is fixed) a scenario listed
# there passes when the model still disagrees with the recorded output, and fails when it
# agrees (take it off the list); the others as without it.
#
# usage: tests/kernel/kernel-check-replay.sh [-b BUILD] [-t FILE] [-x KNOWN] [-v]
# Prints one block per disagreement and ends with
# "kernel-check replay: N passed, N failed" (one count per scenario).
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=build
truth=$here/kernel-check-6.18.txt
verbose=0
known=""
while getopts "b:t:x:v" o; do
	case $o in
	b) build=$OPTARG ;;
	t) truth=$OPTARG ;;
	x) known=$OPTARG ;;
	v) verbose=1 ;;
	*) echo "usage: $0 [-b BUILD] [-t FILE] [-x KNOWN] [-v]" >&2; exit 2 ;;
	esac
done
declare -A is_known=()
if [ -n "$known" ]; then
	[ -r "$known" ] || { echo "kernel-check-replay.sh: cannot read $known" >&2; exit 2; }
	while read -r k _; do is_known[$k]=1; done < <(grep -v '^#' "$known" | grep .)
fi
sim=$build/ext4sim
[ -x "$sim" ] || { echo "kernel-check-replay.sh: $sim not built" >&2; exit 2; }
[ -r "$truth" ] || { echo "kernel-check-replay.sh: cannot read $truth" >&2; exit 2; }
. "$here/oracle-compare.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

profile=$(sed -n 's/^# profile: //p' "$truth")
gen=$(sed -n 's/^# gen: //p' "$truth")
[ -n "$profile" ] && [ -n "$gen" ] || { echo "kernel-check-replay.sh: $truth has no profile or gen header" >&2; exit 2; }
mkdir "$tmp/gen" "$tmp/out" "$tmp/s"
# shellcheck disable=SC2086
"$sim" gen $gen --out "$tmp/gen" || exit 2
# the recorded lines, one file of kernel output per scenario; rec_sum[NAME]: the recorded
# SHA-256 prefix of its scenario file, in the order of the file
declare -A rec_sum gen_sum
names=()
while read -r name sum; do
	names+=("$name")
	rec_sum[$name]=$sum
done < <(awk -v dir="$tmp/out" '!/^#/ && NF > 2 {
	f = dir "/" $1; if (!($1 in seen)) { seen[$1] = 1; print $1, $2 }
	line = $3; for (i = 4; i <= NF; i++) line = line " " $i; print line >> f; close(f)
}' "$truth" | sort)
# the SHA-256 of every scenario gen wrote, in one call
while read -r sum file; do
	gen_sum[${file%.yaml}]=${sum:0:16}
done < <(cd "$tmp/gen" && sha256sum -- *.yaml 2> /dev/null)

pass=0 fail=0 nknown=0
for name in "${names[@]}"; do
	yaml=$tmp/gen/$name.yaml
	if [ ! -r "$yaml" ] || [ "${gen_sum[$name]:-}" != "${rec_sum[$name]}" ]; then
		fail=$((fail + 1))
		echo "FAIL $name: the scenario gen writes is not the one recorded; record again" \
			"(scripts/kernel-check --record $truth, as root)"
		continue
	fi
	if ! "$sim" export --kernel "$profile" --format xfs_io -o "$tmp/s" "$yaml" \
		> /dev/null 2> "$tmp/err"; then
		fail=$((fail + 1))
		echo "FAIL $name: export: $(head -1 "$tmp/err")"
		continue
	fi
	oracle_compare "$tmp/s/$name.sh" "$tmp/out/$name"
	if [ -n "${is_known[$name]+x}" ]; then
		if [ "$oc_ok" = 1 ]; then
			fail=$((fail + 1))
			echo "FAIL $name: listed in $known as a known disagreement, but the model now" \
				"agrees with the recorded kernel output: take it off the list"
		else
			pass=$((pass + 1))
			nknown=$((nknown + 1))
			[ $verbose = 0 ] || echo "ok   $name (a known disagreement: $known)"
		fi
		continue
	fi
	if [ "$oc_ok" = 1 ]; then
		pass=$((pass + 1))
		[ $verbose = 0 ] || echo "ok   $name ($oc_pre_ok/$oc_pre before crashes, $oc_post_ok/$oc_post after)"
	else
		fail=$((fail + 1))
		echo "FAIL $name: the model disagrees with the recorded kernel output"
		printf '%s' "$oc_report"
		echo "  the scenario: $sim gen $gen --out DIR, then DIR/$name.yaml;" \
			"on a kernel: scripts/kernel-check DIR/$name.yaml (root)"
	fi
done
[ -z "$known" ] || echo "kernel-check replay: $nknown of the passed are known disagreements ($known)"
echo "kernel-check replay: $pass passed, $fail failed"
[ $fail = 0 ]
