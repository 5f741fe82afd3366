#!/usr/bin/env bash
# crash-membership.sh - the state a real ext4 leaves after a crash must be one
# of the states ext4sim lists for that crash point.
#
# For every postN record of a ground-truth file written by loopcheck.sh
# (CASE BS MODE postN size=N runs=...), build a scenario of the case's steps up
# to and including its N-th crash (the same steps compare.sh replays: each run
# of steps between crashes ends with `close`), run
#     ext4sim crashstates --json --block-size BS MODE-FLAGS FILE.yaml
# and require that the crash point of that crash step lists a distinct state
# whose size and SHA-256 (of the file's bytes as a reader sees them) are the
# kernel's.  compare.sh checks that the model's continuing state equals the
# kernel's; this checks the weaker but independent claim that the kernel's
# state is among those the enumeration says a crash can leave.  ext4sim runs
# once per (case, configuration): the scenario goes up to the case's last
# recorded crash and every crash point is read from the one output.
#
# usage: tests/kernel/crash-membership.sh [-b BUILD] [-c CASEFILE] [-t TRUTHFILE] [-v]
# Prints one line per mismatch (with the model's listed states) and ends with
# "crash membership: N passed, N failed".  Exit 1 on any failure, 2 on usage errors.
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
shift $((OPTIND - 1))
[ $# = 0 ] || { echo "usage: $0 [-b BUILD] [-c CASES] [-t TRUTH] [-v]" >&2; exit 2; }
sim=$build/ext4sim
[ -x "$sim" ] || { echo "crash-membership.sh: $sim not built" >&2; exit 2; }
[ -r "$cases" ] || { echo "crash-membership.sh: cannot read $cases" >&2; exit 2; }
[ -r "$truth" ] || { echo "crash-membership.sh: cannot read $truth" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

declare -A steps_of
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	steps_of[${line%%:*}]=${line#*: }
done < "$cases"

# The configuration flags of a mode, as compare.sh's mode_flags gives them.
declare -A mode_flags=(
	[ordered]="--data ordered --delalloc"
	[ordered-nodelalloc]="--data ordered --nodelalloc"
	[writeback]="--data writeback --delalloc"
	[journal]="--data journal"
)

# The steps of a case up to and including its N-th crash, as compare.sh's
# steps_until builds them for postN, into the array `steps`.
steps_until_crash() {
	local want=$1 n=0 s arr
	steps=()
	IFS=';' read -r -a arr <<< "$2"
	for s in "${arr[@]}"; do
		s=${s#"${s%%[! ]*}"}
		s=${s%"${s##*[! ]}"}
		if [ "$s" = crash ]; then
			n=$((n + 1))
			steps+=(close crash)
			[ "$n" = "$want" ] && return
			continue
		fi
		case $s in
		# loopcheck ends the xfs_io process to run e2fsprogs' chattr or drop_caches
		"chattr +S"|"chattr -S"|evict) steps+=(close) ;;
		esac
		steps+=("$s")
	done
}

# 1. The postN records, grouped by (case, block size, mode).
#    rec_*[i]: one record; groups[key]: its record indices; maxn[key]: last crash.
declare -a rec_name rec_bs rec_mode rec_n rec_size rec_runs
declare -A groups maxn
order=()
nrec=0
while read -r name bs mode point size runs; do
	case $name in ''|'#'*) continue ;; esac
	case $point in post[0-9]*) ;; *) continue ;; esac
	if [ -z "${steps_of[$name]+x}" ]; then
		echo "crash-membership.sh: case $name of $truth not in $cases" >&2
		exit 2
	fi
	if [ -z "${mode_flags[$mode]+x}" ]; then
		echo "crash-membership.sh: unknown mode $mode in $truth" >&2
		exit 2
	fi
	rec_name[nrec]=$name rec_bs[nrec]=$bs rec_mode[nrec]=$mode rec_n[nrec]=${point#post}
	rec_size[nrec]=${size#size=} rec_runs[nrec]=${runs#runs=}
	key="$name $bs $mode"
	if [ -z "${groups[$key]+x}" ]; then
		order+=("$key")
		groups[$key]=$nrec
		maxn[$key]=${point#post}
	else
		groups[$key]+=" $nrec"
		[ "${point#post}" -gt "${maxn[$key]}" ] && maxn[$key]=${point#post}
	fi
	nrec=$((nrec + 1))
done < "$truth"

# 2. The kernel's bytes, expanded from the runs into one file per record, and
#    their SHA-256 in one sha256sum call.
mkdir "$tmp/k"
for ((i = 0; i < nrec; i++)); do echo "$i ${rec_runs[i]}"; done |
	awk -v dir="$tmp/k" '
	function hex(h,   i, v) {
		v = 0
		for (i = 1; i <= length(h); i++)
			v = v * 16 + index("0123456789abcdef", substr(tolower(h), i, 1)) - 1
		return v
	}
	{
		f = dir "/" $1
		printf "" > f
		n = split($2, run, ",")
		for (r = 1; r <= n; r++) {
			split(run[r], vc, "*")
			c = vc[2] + 0
			s = sprintf("%c", hex(vc[1]))
			out = ""
			while (c > 0) {            # binary doubling: s holds 2^k bytes
				if (c % 2) out = out s
				c = int(c / 2)
				if (c) s = s s
			}
			printf "%s", out > f
		}
		close(f)
	}'
declare -a rec_sha
if [ "$nrec" -gt 0 ]; then
	while read -r h f; do rec_sha[${f##*/}]=$h; done < <(cd "$tmp/k" && sha256sum -- *)
fi
declare -a got_size
if [ "$nrec" -gt 0 ]; then
	while read -r f z; do got_size[f]=$z; done < <(cd "$tmp/k" && stat -c '%n %s' -- *)
fi
for ((i = 0; i < nrec; i++)); do
	got=${got_size[i]}
	if [ "$got" != "${rec_size[i]}" ]; then
		echo "crash-membership.sh: record ${rec_name[i]} ${rec_bs[i]} ${rec_mode[i]} post${rec_n[i]}:" \
			"runs expand to $got bytes, not size=${rec_size[i]}" >&2
		exit 2
	fi
done
rm -rf "$tmp/k"

# 3. One crashstates run per group; the crash points parsed into
#    "POINT STEP HYPOTHETICAL EXHAUSTIVE EVALUATED REDUCED" and
#    "STATE STEP SIZE SHA" lines.
pass=0 fail=0
g=0
for key in "${order[@]}"; do
	read -r name bs mode <<< "$key"
	g=$((g + 1))
	yaml=$tmp/g$g.yaml
	steps_until_crash "${maxn[$key]}" "${steps_of[$name]}"
	crash_steps=()
	for k in "${!steps[@]}"; do [ "${steps[k]}" = crash ] && crash_steps+=($((k + 1))); done
	{
		echo "name: km-$g"
		echo "steps:"
		printf '  - "%s"\n' "${steps[@]}"
	} > "$yaml"
	read -r -a flags <<< "${mode_flags[$mode]}"
	"$sim" crashstates --json --block-size "$bs" "${flags[@]}" "$yaml" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc -ge 2 ] || [ ! -s "$tmp/out" ]; then
		for i in ${groups[$key]}; do
			echo "FAIL $name $bs $mode post${rec_n[i]}: ext4sim crashstates exit $rc: $(head -3 "$tmp/err")"
			fail=$((fail + 1))
		done
		continue
	fi
	awk '{
		s = $0
		while (match(s, /"step": [0-9]+, [^[]*"evaluated": [0-9]+|"size": [0-9]+, "sha256": "[0-9a-f]+"/)) {
			m = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			gsub(/[",:]/, "", m)
			n = split(m, w, " ")
			if (w[1] == "step") {
				for (i = 1; i < n; i++) v[w[i]] = w[i + 1]
				step = v["step"]
				print "POINT", step, v["hypothetical"], v["exhaustive"], v["evaluated"], v["reduced_states"]
			} else
				print "STATE", step, w[2], w[4]
		}
	}' "$tmp/out" > "$tmp/points"
	# point[STEP]: "EXHAUSTIVE EVALUATED REDUCED" of a real crash step;
	# listed[STEP], nlisted[STEP]: its states; has["STEP SIZE SHA"]: membership
	unset point listed nlisted has
	declare -A point listed nlisted has
	while read -r kind step a b c d; do
		if [ "$kind" = POINT ]; then
			[ "$a" = false ] && point[$step]="$b $c $d"
		else
			listed[$step]+="     size=$a sha256=$b"$'\n'
			nlisted[$step]=$((${nlisted[$step]:-0} + 1))
			has["$step $a $b"]=1
		fi
	done < "$tmp/points"
	for i in ${groups[$key]}; do
		n=${rec_n[i]}
		step=${crash_steps[n - 1]:-}
		ksize=${rec_size[i]} ksha=${rec_sha[i]}
		what="$name $bs $mode post$n"
		if [ -z "$step" ] || [ -z "${point[$step]+x}" ]; then
			fail=$((fail + 1))
			echo "FAIL $what: ext4sim lists no crash point for step ${step:-?} (crash $n)"
			continue
		fi
		nstates=${nlisted[$step]:-0}
		if [ -n "${has["$step $ksize $ksha"]+x}" ]; then
			pass=$((pass + 1))
			if [ $verbose = 1 ]; then
				read -r exh ev red <<< "${point[$step]}"
				[ "$exh" = true ] && cov=exhaustive || cov="sampled $ev of $red"
				echo "ok   $what (step $step, $nstates state(s), $cov)"
			fi
		else
			fail=$((fail + 1))
			read -r exh ev red <<< "${point[$step]}"
			echo "FAIL $what: kernel size=$ksize sha256=$ksha is not among the" \
				"$nstates state(s) listed at step $step ($ev of $red evaluated, exhaustive $exh):"
			printf '%s' "${listed[$step]:-}"
			replay=$(printf '; %s' "${steps[@]:0:step}")
			echo "     replay: $sim crashstates --block-size $bs ${mode_flags[$mode]} FILE.yaml," \
				"FILE.yaml holding the steps: ${replay#; }"
		fi
	done
done
echo "crash membership: $pass passed, $fail failed"
[ $fail = 0 ]
