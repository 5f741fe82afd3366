# kernel-replay.sh - the model against what real kernels did, as recorded in tests/kernel/
# (docs/kernel-comparison.md, docs/real-kernel.md):
#   - the corpora of cases (hand-written, random, fallocate/mmap: every
#     ground-truth-*.txt) replayed in one process each by $build/tests/replay: every recorded point compared byte for byte,
#     one count per record, and every post-crash state one of those crashstates lists,
#     one count per postN record; a corpus copy with one record changed must fail once;
#   - the recorded kernel-check campaigns (this machine's kernel, its gen --dio campaign,
#     Debian's 5.10 to 7.2, and
#     the namespace campaigns of gen --namespace on 6.18 and Debian's 5.10, 6.1, 6.12, 7.2,
#     with their known disagreements, NAME.known),
#     one count per scenario (tests/kernel/kernel-check-replay.sh);
#   - the toggles and the model fixes the kernels told apart: the file after the crash is
#     what the kernel showed.

replay=$build/tests/replay
truth=tests/kernel/ground-truth-6.18.txt
# the hand-written corpus with one size changed, and with one post-crash byte changed
awk '!done && !/^#/ && NF > 5 { sub(/ size=[0-9]+/, " size=" substr($5, 6) + 1); done = 1 } 1' \
	"$truth" > "$tmp/wrong-size.txt"
awk '!done && !/^#/ && $4 ~ /^post/ && $6 ~ /^runs=[0-9a-f][0-9a-f]\*/ {
	b = substr($6, 6, 2); sub(/runs=../, "runs=" (b == "00" ? "01" : "00")); done = 1 } 1' \
	"$truth" > "$tmp/wrong-byte.txt"
# a kernel-check campaign with one SHA-256 changed
awk '!done && !/^#/ && $3 == "final" { $7 = ($7 ~ /^0/ ? "1" : "0") substr($7, 2); done = 1 } 1' \
	tests/kernel/kernel-check-6.18.txt > "$tmp/wrong-campaign.txt"

# every ground-truth-[SET-]KERNEL.txt with its cases[-SET].txt
corpora=()
for truth in tests/kernel/ground-truth-*.txt; do
	case $truth in *.details.txt) continue ;; esac
	corpus=${truth#tests/kernel/ground-truth-}
	corpus=${corpus%.txt}
	cases=tests/kernel/cases.txt
	[[ $corpus == *-* ]] && cases=tests/kernel/cases-${corpus%-*}.txt
	corpora+=("$corpus")
	spawn "compare-$corpus" "$replay" compare -x "$sim" "$cases" "$truth"
	spawn "membership-$corpus" "$replay" membership -x "$sim" "$cases" "$truth"
done
spawn wrong-size "$replay" compare -x "$sim" tests/kernel/cases.txt "$tmp/wrong-size.txt"
spawn wrong-byte "$replay" membership -x "$sim" tests/kernel/cases.txt "$tmp/wrong-byte.txt"
campaigns=(tests/kernel/kernel-check-*.txt)
# under the sanitizers (make asan) the namespace campaigns of Debian's kernels are left to
# make check: they run the paths the 6.18 namespace campaign runs, at four times its cost.
# grep reads nm's whole output (no -q: under pipefail an early exit would fail nm)
sanitized=0
if nm "$sim" 2> /dev/null | grep __asan_init > /dev/null; then
	sanitized=1
	mapfile -t campaigns < <(printf '%s\n' "${campaigns[@]}" | grep -v 'kernel-check-ns-debian-')
	echo "  kernel-replay: sanitized build: the namespace campaigns of Debian's kernels are make check's"
fi
for truth in "${campaigns[@]}"; do
	# a campaign's known disagreements (the model's bugs it found) beside it, NAME.known
	known=()
	[ ! -r "${truth%.txt}.known" ] || known=(-x "${truth%.txt}.known")
	spawn "${truth##*/}" tests/kernel/kernel-check-replay.sh -b "$build" -t "$truth" "${known[@]}"
done
spawn wrong-campaign tests/kernel/kernel-check-replay.sh -b "$build" -t "$tmp/wrong-campaign.txt"
# the namespace campaign's known disagreements: two of its scenarios, one the model agrees
# with (0000), one made a disagreement here (0021: the first file's hash changed, as a
# kernel that kept other bytes); the list must name exactly the second
ns=tests/kernel/kernel-check-ns-6.18.txt
grep -E '^#|^gen-ns-20261202-00(00|21) ' "$ns" |
	awk '!done && $1 == "gen-ns-20261202-0021" && $3 == "post" && $7 == "reg" {
		$NF = ($NF ~ /^0/ ? "1" : "0") substr($NF, 2); done = 1 } 1' > "$tmp/ns-two.txt"
echo "gen-ns-20261202-0021  # new-fdatasync" > "$tmp/ns-known.txt"
printf '%s\n' "gen-ns-20261202-0000  # not one" "gen-ns-20261202-0021" > "$tmp/ns-known-extra.txt"
spawn ns-known tests/kernel/kernel-check-replay.sh -b "$build" -t "$tmp/ns-two.txt" -x "$tmp/ns-known.txt"
spawn ns-unlisted tests/kernel/kernel-check-replay.sh -b "$build" -t "$tmp/ns-two.txt"
spawn ns-listed-agrees tests/kernel/kernel-check-replay.sh -b "$build" -t "$tmp/ns-two.txt" -x "$tmp/ns-known-extra.txt"
# Debian 6.1.192's namespace campaign replayed under the 6.12 profile: the profiles are told
# apart by it (three data=journal scenarios, jdata_dirty_folio of 6.5; docs/real-kernel.md)
sed 's/^# profile: .*/# profile: 6.12/' tests/kernel/kernel-check-ns-debian-6.1.192.txt > "$tmp/ns-61-as-612.txt"
[ $sanitized = 1 ] ||
	spawn ns-61-as-612 tests/kernel/kernel-check-replay.sh -b "$build" -t "$tmp/ns-61-as-612.txt"

for corpus in "${corpora[@]}"; do
	collect "compare-$corpus"
	cat "$err" >> "$out"
	grep '^FAIL' -A1 "$out" | head -20
	tally "compare $corpus" "$out" "kernel comparison"
	collect "membership-$corpus"
	cat "$err" >> "$out"
	grep '^FAIL' -A3 "$out" | head -20
	tally "membership $corpus" "$out" "crash membership"
done
# the replay fails when the model's answer is not the kernel's
truth=tests/kernel/ground-truth-6.18.txt
collect wrong-size
check compare-fails-on-a-wrong-size '[ "$rc" = 1 ] && [ "$(grep -c "^FAIL " "$out")" = 1 ] &&
	[ "$(tail -1 "$out")" = "kernel comparison: $(($(grep -vc "^#" "$truth") - 1)) passed, 1 failed" ]'
collect wrong-byte
check membership-fails-on-a-wrong-byte '[ "$rc" = 1 ] && [ "$(grep -c "^FAIL " "$out")" = 1 ] &&
	[ "$(tail -1 "$out")" = "crash membership: $(($(awk "\$4 ~ /^post/" "$truth" | wc -l) - 1)) passed, 1 failed" ]'

# the recorded kernel-check campaigns, each replayed under its recorded profile
for truth in "${campaigns[@]}"; do
	collect "${truth##*/}"
	cat "$err" >> "$out"
	grep '^FAIL' -A4 "$out" | head -20
	tally "kernel-check ${truth##*/}" "$out" "kernel-check replay"
done
collect wrong-campaign
check kernel-check-fails-on-a-wrong-sha '[ "$rc" = 1 ] && [ "$(grep -c "^FAIL " "$out")" = 1 ]'
collect ns-known
check kernel-check-ns-known-passes '[ "$rc" = 0 ] && [ "$(tail -1 "$out")" = "kernel-check replay: 2 passed, 0 failed" ] &&
	grep -q "^kernel-check replay: 1 of the passed are known disagreements" "$out"'
collect ns-unlisted
check kernel-check-ns-disagreement-fails '[ "$rc" = 1 ] && [ "$(grep -c "^FAIL gen-ns-20261202-0021: the model disagrees" "$out")" = 1 ] &&
	grep -q "^  post 1: the kernel.s namespace is not one of the 1 state(s) the model lists" "$out" &&
	[ "$(tail -1 "$out")" = "kernel-check replay: 1 passed, 1 failed" ]'
collect ns-listed-agrees
check kernel-check-ns-listed-agreement-fails '[ "$rc" = 1 ] &&
	grep -q "^FAIL gen-ns-20261202-0000: listed in .* as a known disagreement, but the model now agrees" "$out" &&
	[ "$(tail -1 "$out")" = "kernel-check replay: 1 passed, 1 failed" ]'
[ $sanitized = 1 ] || collect ns-61-as-612
[ $sanitized = 1 ] || check kernel-check-ns-6.1-differs-under-6.12 '[ "$rc" = 1 ] &&
	[ "$(grep "^FAIL gen-ns-" "$out" | cut -d: -f1 | tr "\n" " ")" = "FAIL gen-ns-20261202-0004 FAIL gen-ns-20261202-0029 FAIL gen-ns-20261202-0144 " ] &&
	[ "$(tail -1 "$out")" = "kernel-check replay: 197 passed, 3 failed" ]'

# the toggles the Debian kernels under qemu told apart: each variant's file after the crash
# is what the kernel of that side showed (6.1.192 before, 6.12.117 or 6.18 after)
tog_check() {   # tog_check SCENARIO VARIANT SIZE OFFSET HEXBYTE
	local tog_sz tog_b tog_want_sz=$3 tog_off=$4 tog_want_b=$5
	rm -f "$tmp/tog"
	run "$sim" run --quiet --variant "$2" --dump-file "$tmp/tog" "scenarios/patches/$1.yaml"
	tog_sz=$(stat -c %s "$tmp/tog" 2> /dev/null)
	tog_b=$(od -An -tx1 -j"$tog_off" -N1 "$tmp/tog" 2> /dev/null | tr -d ' ')
	check "toggle $1 $2" '[ "$tog_sz" = "$tog_want_sz" ] && [ "$tog_b" = "$tog_want_b" ] ||
		{ echo "  after the crash size ${tog_sz:-?} byte $tog_off ${tog_b:-?}," \
			"the kernel showed $tog_want_sz and $tog_want_b"; false; }'
}
tog_check jdata-writeback-commit before-6.5 0 0 ""
tog_check jdata-writeback-commit after-6.6 12288 4096 d1
tog_check punch-writeback before-6.14 8192 0 43
tog_check punch-writeback after-6.18 8192 0 75
tog_check dioread-nolock-subpage before-6.8 8192 2048 22
tog_check dioread-nolock-subpage after-6.12 8192 2048 00

# the partial-block zeroing series on the real kernels (scenarios/zeroing/): the file
# after the last crash, as 6.18.44 (loop devices; variant k6.18) and Debian's 7.2.13
# (qemu; k7.2) left it: SCENARIO VARIANT SIZE OFFSET HEXBYTE
while read -r zs zv zsize zoff zbyte; do
	rm -f "$tmp/zero"
	run "$sim" run --quiet --variant "$zv" --dump-file "$tmp/zero" "scenarios/zeroing/$zs.yaml"
	zero_sz=$(stat -c %s "$tmp/zero" 2> /dev/null)
	zero_b=$(od -An -tx1 -j"$zoff" -N1 "$tmp/zero" 2> /dev/null | tr -d ' ')
	check "zeroing $zs $zv @$zoff" '[ "$zero_sz" = '"$zsize"' ] && [ "$zero_b" = '"$zbyte"' ] ||
		{ echo "  after the crash size ${zero_sz:-?} byte '"$zoff"' ${zero_b:-?}," \
			"the kernel showed '"$zsize $zbyte"'"; false; }'
done <<'ZEROING'
punch-edges-commit-crash-1k k6.18 8192 1500 00
punch-edges-commit-crash-1k k7.2 8192 1500 aa
punch-edges-commit-crash-1k k7.2 8192 4400 aa
zero-range-edges-commit-crash k6.18 16384 1000 00
zero-range-edges-commit-crash k7.2 16384 1000 aa
zero-range-edges-commit-crash k7.2 16384 4096 00
zero-range-edges-commit-crash k7.2 16384 10999 aa
punch-to-eof-commit-crash k6.18 6000 4096 00
punch-to-eof-commit-crash k7.2 6000 4096 00
punch-to-eof-commit-crash-1k k6.18 1500 100 00
punch-to-eof-commit-crash-1k k7.2 1500 100 aa
punch-to-eof-commit-crash-1k k7.2 1500 1024 00
sync-flag-punch-zero-1k k6.18 8192 5000 aa
sync-flag-punch-zero-1k k7.2 8192 5000 00
sync-flag-punch-zero-1k k7.2 8192 1500 00
append-unaligned-eof-nodelalloc-1k k6.18 3100 1600 00
append-unaligned-eof-nodelalloc-1k k7.2 3100 2500 00
append-unaligned-eof-fsync-4k k7.2 6100 1500 00
ZEROING

# the model fixes kernel-check found, against what 6.18 showed: data=journal writeback
# commits only with a dirty folio; a write into an unwritten extent inside i_disksize
# zeroes out and converts the whole extent (up to 32 KiB)
run "$sim" run --quiet --dump-file "$tmp/jp" scenarios/modes/journal-data-clean-punch-no-commit.yaml
run "$sim" run --quiet --dump-file "$tmp/jz" scenarios/modes/journal-data-clean-zero-no-commit.yaml
check journal-clean-writeback '[ "$(stat -c %s "$tmp/jp")" = 8192 ] && [ "$(stat -c %s "$tmp/jz")" = 0 ] ||
	{ echo "  sizes $(stat -c %s "$tmp/jp") and $(stat -c %s "$tmp/jz"), the kernel shows 8192 and 0"; false; }'
# the steps the model gained for xfs_io's syntax, against what 6.18.44 left after the
# same xfs_io commands on a loop-mounted ext4 (size and the first 16 hex digits of SHA-256);
# a fourth column names the variant, and the kernel when it is not 6.18.44
while read -r name size sha variant kname; do
	run "$sim" run --quiet ${variant:+--variant "$variant"} --dump-file "$tmp/x-$name$variant" \
		"scenarios/xfs_io/$name.yaml"
	check "kernel-${kname:-6.18}-$name" '[ "$rc" = 0 ] && [ "$(stat -c %s "$tmp/x-$name$variant")" = '"$size"' ] &&
		[ "$(sha256sum < "$tmp/x-$name$variant" | cut -c1-16)" = '"$sha"' ] ||
		{ echo "  the kernel left '"$size $sha"'"; false; }'
done <<'KERNEL'
copy-range-source-eof 18192 8af6c3ff8b611ddf
copy-range-overlap 8192 62e8ebf079693d28
msync-sync-range 4096 4f7b50dfa9882c0f
msync-no-flag 0 e3b0c44298fc1c14
shutdown-logflush 65536 dd8a8dd81fef2236 k6.18
shutdown-logflush 65536 de2f256064a0af79 k6.17 6.17.13
KERNEL
run "$sim" run --quiet --dump-file "$tmp/uz" scenarios/crash/unwritten-zeroout-converts-extent.yaml
check unwritten-zeroout-converts-extent '[ "$(od -An -tx1 -j1024 -N2 "$tmp/uz" | tr -d " ")" = 6d6d ] &&
	[ "$(sha256sum < "$tmp/uz" | cut -c1-16)" = 0708b515a0f6a01a ]'

# the power-cut campaigns (scripts/kernel-powercut --record): every real state of every
# crash point is one of the states the model lists; a record with one real state changed
# must fail once
for truth in tests/kernel/powercut-*.txt; do
	[ -r "$truth" ] || continue
	run tests/kernel/powercut-replay.sh -b "$build" -t "$truth"
	grep '^FAIL' "$out" | head -20
	tally "power-cut ${truth##*/}" "$out" "power-cut replay"
	awk '!done && !/^#/ && $3 == "real" && $5 == "size" {
		$8 = ($8 ~ /^0/ ? "1" : "0") substr($8, 2); done = 1 } 1' "$truth" > "$tmp/wrong-powercut.txt"
	run tests/kernel/powercut-replay.sh -b "$build" -t "$tmp/wrong-powercut.txt"
	check "power-cut-fails-on-a-wrong-state ${truth##*/}" '[ "$rc" = 1 ] && [ "$(grep -c "^FAIL " "$out")" = 1 ]'
	grep -q '^[^#][^ ]* [^ ]* real [0-9]* ns ' "$truth" || continue
	awk '!done && !/^#/ && $3 == "real" && $5 == "ns" {
		$6 = ($6 ~ /^0/ ? "1" : "0") substr($6, 2); done = 1 } 1' "$truth" > "$tmp/wrong-powercut.txt"
	run tests/kernel/powercut-replay.sh -b "$build" -t "$tmp/wrong-powercut.txt"
	check "power-cut-fails-on-a-wrong-namespace ${truth##*/}" '[ "$rc" = 1 ] && [ "$(grep -c "^FAIL " "$out")" = 1 ]'
done

# logreplay (the write-log replay of the power-cut campaign) on a log made here: A
# (sectors 0-1, 0x11), flush, B (sector 2, 0x22), C (sector 0, 0x33, FUA), the mark of
# crash point 1 past the 8-sector device, D (sector 3, 0x44)
lr=$build/logreplay
le64() { local i; for i in 0 1 2 3 4 5 6 7; do printf "\\x$(printf %02x $(($1 >> 8 * i & 255)))"; done; }
pad() { head -c "$1" /dev/zero; }
entry() {   # entry SECTOR COUNT FLAGS BYTE: a header and COUNT sectors of BYTE
	le64 "$1"; le64 "$2"; le64 "$3"; le64 0; pad 480
	[ "$2" = 0 ] || head -c $(($2 * 512)) /dev/zero | tr '\0' "\\$(printf %03o "$4")"
}
{
	le64 0x6a736677736872; le64 1; le64 6; printf '\x00\x02\x00\x00'; pad 484
	entry 0 2 0 0x11; entry 0 0 1 0; entry 2 1 0 0x22; entry 0 1 2 0x33
	le64 8; le64 1; le64 0; le64 0; pad 480
	printf 'ext4sim-crashpoint 1\n'; pad 491
	entry 3 1 0 0x44
} > "$tmp/small.log"
pad 4096 | tr '\0' '\356' > "$tmp/base.img"
run "$lr" info "$tmp/small.log"
check logreplay-info '[ "$rc" = 0 ] && golden info "$out"'
run "$lr" states "$tmp/small.log" "$tmp/base.img" --point 1
check logreplay-states '[ "$rc" = 0 ] && golden states "$out"'
run "$lr" image "$tmp/small.log" "$tmp/base.img" "$tmp/s.img" --point 1 --keep 1
check logreplay-image '[ "$rc" = 0 ] && [ "$(od -An -tx1 -v "$tmp/s.img" | tr -s " \n" " " |
	awk "{ print \$1, \$513, \$1025, \$1537, \$2049 }")" = "33 11 22 ee ee" ]'
expect_exit2 logreplay-no-mark "$lr" states "$tmp/small.log" "$tmp/base.img" --point 2
check logreplay-no-mark-message 'grep -qx "$tmp/small.log: no mark of crash point 2" "$err"'
head -c 3200 "$tmp/small.log" > "$tmp/cut.log"
expect_exit2 logreplay-truncated "$lr" info "$tmp/cut.log"
check logreplay-truncated-message 'grep -q "entry 2 (byte 2560): its data runs past the end of the log" "$err"'
expect_exit2 logreplay-bad-keep "$lr" image "$tmp/small.log" "$tmp/base.img" "$tmp/k.img" --point 1 --keep 4
check logreplay-bad-keep-no-file '[ ! -e "$tmp/k.img" ] && grep -q "not a range of the 2 pending" "$err"'
expect_exit2 logreplay-small-device "$lr" states "$tmp/small.log" "$tmp/cut.log" --end 6
expect_exit2 logreplay-not-a-log "$lr" info "$tmp/base.img"
expect_exit2 logreplay-usage "$lr" states "$tmp/small.log"
expect_exit2 logreplay-bound "$lr" states "$tmp/small.log" "$tmp/base.img" --end 2 --bound 1

# a record keys a scenario file by what a run reads: a reworded description or comment
# keeps the key (tests/kernel/scenario-sum), a changed step or expectation does not
sc=scenarios/tutorial/05-ordered-mode.yaml
sed 's/^description: >$/description: >\n  Reworded./; 1i # a new comment' "$sc" > "$tmp/reworded.yaml"
sed 's/pwrite -S 0xaa 0 8192/pwrite -S 0xab 0 8192/' "$sc" > "$tmp/restepped.yaml"
sed 's/^  default: .*/  default: [no_stale_data]/' "$sc" > "$tmp/reexpected.yaml"
k=$(tests/kernel/scenario-sum "$sc")
check scenario-sum-ignores-description '[ "$(tests/kernel/scenario-sum "$tmp/reworded.yaml")" = "$k" ] &&
	! cmp -s "$sc" "$tmp/reworded.yaml"'
check scenario-sum-sees-steps '[ "$(tests/kernel/scenario-sum "$tmp/restepped.yaml")" != "$k" ] &&
	[ "$(tests/kernel/scenario-sum "$tmp/reexpected.yaml")" != "$k" ]'
