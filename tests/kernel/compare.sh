#!/usr/bin/env bash
# compare.sh - check ext4sim against ground truth recorded on a real ext4.
#
# For every record of a ground-truth file written by loopcheck.sh
# (CASE BS MODE POINT size=N runs=...), replay the case's steps with ext4sim
# up to that point -- preN: just before the N-th crash, postN: just after
# it, final: the end -- and compare the file's size and bytes, as a reader
# sees them, with what the kernel showed.  Each run of steps between crashes
# ends with `close`, as the xfs_io process that ran them exited there.
#
# usage: tests/kernel/compare.sh [-b BUILD] [-c CASEFILE] [-t TRUTHFILE] [-v]
# Prints one line per mismatch and ends with "N passed, N failed".
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=build
truth=$here/ground-truth-6.18.txt
cases=$here/cases.txt
verbose=0
while getopts "b:c:t:v" o; do
	case $o in
	b) build=$OPTARG ;;
	c) cases=$OPTARG ;;
	t) truth=$OPTARG ;;
	v) verbose=1 ;;
	*) echo "usage: $0 [-b BUILD] [-c CASES] [-t TRUTH] [-v]" >&2; exit 2 ;;
	esac
done
sim=$build/ext4sim
[ -x "$sim" ] || { echo "compare.sh: $sim not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

declare -A steps_of
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	steps_of[${line%%:*}]=${line#*: }
done < "$cases"

mode_flags() {
	case $1 in
	ordered) echo "--data ordered --delalloc" ;;
	ordered-nodelalloc) echo "--data ordered --nodelalloc" ;;
	writeback) echo "--data writeback --delalloc" ;;
	journal) echo "--data journal" ;;
	esac
}

# The -c arguments of CASE up to POINT (preN, postN, final), one per line.
steps_until() {
	local point=$1 n=0 want kind
	kind=${point%%[0-9]*}
	want=${point#"$kind"}
	IFS=';' read -r -a arr <<< "$2"
	for s in "${arr[@]}"; do
		s=$(echo "$s" | sed 's/^ *//; s/ *$//')
		if [ "$s" = crash ]; then
			n=$((n + 1))
			echo close
			[ "$kind" = pre ] && [ "$n" = "$want" ] && return
			echo crash
			[ "$kind" = post ] && [ "$n" = "$want" ] && return
			continue
		fi
		case $s in
		# loopcheck ends the xfs_io process to run e2fsprogs' chattr or drop_caches
		"chattr +S"|"chattr -S"|evict) echo close ;;
		esac
		echo "$s"
	done
	echo close
}

rle() {
	od -An -v -tx1 "$1" | tr -s ' ' '\n' | grep -v '^$' |
		awk 'NR==1{v=$1;c=0} {if($1==v){c++}else{printf "%s%s*%d",s,v,c;s=",";v=$1;c=1}}
		     END{if(NR)printf "%s%s*%d",s,v,c}'
}

pass=0 fail=0
while read -r name bs mode point size runs; do
	case $name in ''|'#'*) continue ;; esac
	args=()
	while IFS= read -r s; do args+=(-c "$s"); done < <(steps_until "$point" "${steps_of[$name]}")
	# shellcheck disable=SC2046
	"$sim" run --quiet --block-size "$bs" $(mode_flags "$mode") --dump-file "$tmp/f" \
		"${args[@]}" > "$tmp/out" 2>&1
	rc=$?
	if [ $rc -ge 2 ]; then
		echo "FAIL $name $bs $mode $point: ext4sim exit $rc: $(head -3 "$tmp/out")"
		fail=$((fail + 1))
		continue
	fi
	got="size=$(stat -c %s "$tmp/f") runs=$(rle "$tmp/f")"
	if [ "$got" = "$size $runs" ]; then
		pass=$((pass + 1))
		[ $verbose = 1 ] && echo "ok   $name $bs $mode $point"
	else
		fail=$((fail + 1))
		echo "FAIL $name $bs $mode $point: kernel $size $runs, model $got"
		echo "     replay: $sim run --block-size $bs $(mode_flags "$mode") $(printf "%q " "${args[@]}")"
	fi
done < "$truth"
echo "kernel comparison: $pass passed, $fail failed"
[ $fail = 0 ]
