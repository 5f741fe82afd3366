# checker-log.sh - the checker's log summary (checker/log.c, docs/invariants.md "The
# checker's log") changes no judgment, end to end (tests/unit/test_checker.c compares
# the judgments step by step, with damaged devices): the same runs with the log kept in full
# (--checker-log full), summarised as by default, and summarised after every change
# (eager) print the same bytes.  Random scenarios (gen: every kind of step, crash steps,
# unaligned offsets, several fill bytes) under several kernels, block sizes and data modes
# with a crash judged after and inside every step; the scenario suite; long random explore
# runs with every kind (collapse and insert included) and crash states judged at
# persistence steps and at crash steps.

# --checker-log appears in reproduce lines: strip it before comparing
same_modes() {         # NAME CMD ARGS...: full, summary and eager print the same bytes
	local name=$1 m
	shift
	for m in full summary eager; do
		run "$@" --checker-log $m
		sed "s/ --checker-log $m//g" "$out" > "$tmp/cl-$m"
	done
	check "$name" 'cmp -s "$tmp/cl-full" "$tmp/cl-summary" && cmp -s "$tmp/cl-full" "$tmp/cl-eager" &&
		[ -s "$tmp/cl-full" ] || { echo "  the log modes judge differently"; false; }'
}

seed=100
for cfg in "--kernel 6.1 --block-size 1024" "--kernel 5.15 --block-size 4096 --data journal" \
	"--kernel 6.12 --block-size 2048 --data writeback" "--kernel 7.1 --block-size 4096 --nodelalloc"; do
	seed=$((seed + 1))
	mkdir -p "$tmp/gen$seed"
	# shellcheck disable=SC2086
	run "$sim" gen --seed $seed --count 15 $cfg --out "$tmp/gen$seed"
	# shellcheck disable=SC2086
	same_modes "gen-${cfg// /}" "$sim" run --json --crash-everywhere $cfg "$tmp/gen$seed"
done
same_modes scenario-suite "$sim" run --json scenarios
all=write,truncate,persist,crash,falloc,mwrite,short,chattr,close,remount,evict,collapse,insert
for at in persist crash; do
	same_modes "long-runs-$at" "$sim" explore --seed 7 --count 12 --steps 400 --kinds $all \
		--crash-at $at --no-minimize --json --block-size 1024
done
same_modes long-runs-default-kinds "$sim" explore --seed 4 --count 3 --steps 3000 --fixed-length \
	--crash-at persist --no-minimize --json
same_modes bounded-space "$sim" explore --steps 3 --kinds $all --block-size 2048 --json --no-minimize
expect_exit2 checker-log-bad-mode "$sim" run --checker-log most -c "pwrite 0 1"
