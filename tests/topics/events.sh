# events.sh - what the model's inside shows (docs/events.md): the events of a data=ordered
# commit in their order, the rules behind size changes, the pending writes crash states
# and crash --keep name, the verdict in words, informational notes only with --notes; the
# same bytes twice; the JSON carries the same events as the trace.

# the commit waits for the ordered data, the flush, then the commit block with FUA
run "$sim" run --events --explain scenarios/crash/ordered-waits-for-data.yaml
check ordered-commit-trace 'golden ordered-commit-trace "$out"'
wait_line=$(grep -n "waits for the ordered data writes" "$out" | head -1 | cut -d: -f1)
commit_line=$(grep -n "submit journal commit block of tid 1 .*, FUA" "$out" | head -1 | cut -d: -f1)
flush_line=$(grep -n "flush the device cache: 7 completed" "$out" | head -1 | cut -d: -f1)
check ordered-wait-flush-commit-order '[ -n "$wait_line" ] && [ -n "$flush_line" ] &&
	[ -n "$commit_line" ] && [ "$wait_line" -lt "$flush_line" ] &&
	[ "$flush_line" -lt "$commit_line" ]'
# a commit walks a transaction through fs/jbd2/commit.c's states, in its order: T_COMMIT
# before the first log block, T_COMMIT_JFLUSH before the commit block; the ordered data of
# a nodelalloc write goes out at T_FLUSH
run "$sim" run --events scenarios/tutorial/05-ordered-mode.yaml
tx_order=$(sed -n '/^  \[2\] commit/,/^  \[3\]/p' "$out" | sed -n \
	-e 's/.*tid 1 is now \(T_[A-Z_]*\).*/\1/p' \
	-e 's/.*submit data block 0 of the file.*\[ordered\]$/DATA/p' \
	-e 's/.*submit journal descriptor block of tid 1.*/DESC/p' \
	-e 's/.*submit journal commit block of tid 1.*/COMMIT_BLOCK/p' | tr '\n' ' ')
check commit-states-in-kernel-order '[ "$tx_order" = "T_LOCKED T_SWITCH T_FLUSH DATA T_COMMIT DESC T_COMMIT_DFLUSH T_COMMIT_JFLUSH COMMIT_BLOCK T_COMMIT_CALLBACK T_FINISHED " ]'
run "$sim" run --events --explain scenarios/crash/ordered-waits-for-data.yaml
check disksize-rule 'grep -q "why: e[0-9]* i_disksize 0 -> 8192: mpage_map_and_submit_extent (" "$out"'
# the same run twice, and the events in the JSON are the events in the trace
cp "$out" "$tmp/ev1"
run "$sim" run --events --explain scenarios/crash/ordered-waits-for-data.yaml
check events-twice 'cmp -s "$tmp/ev1" "$out"'
run "$sim" run --json scenarios/crash/ordered-waits-for-data.yaml
check json-events-equal-trace '[ "$(grep -o "\"event\": [0-9]*, \"type\"" "$out" | wc -l)" = \
	"$(grep -c "^        e[0-9]* " "$tmp/ev1")" ]'

# crash --keep names what it kept and lost; crashstates --events names pending writes
run "$sim" run --events scenarios/crash/keep-none-no-residue.yaml
check keep-names-writes 'grep -q "^      kept: none; lost: 1 (e[0-9]*) data block 0 of the file (disk [0-9]*)$" "$out"'
run "$sim" crashstates --events scenarios/crash/shutdown-completes-inflight.yaml
check crashstates-events 'golden crashstates-events "$out"'
# in a namespace scenario a pending write says whose block it is: a file's data block by its
# first path and inode (a hard link's other name not), a directory block, an inode-table
# block by the inodes it holds; crash --keep's note, crashstates and the JSON's "what" alike
ns_keep=(-c "mkdir A" -c "open -f A/foo" -c "pwrite -S 0xcc 0 8192" -c "link A/foo g"
	-c "sync_range -w 0 0")
run "$sim" run "${ns_keep[@]}" -c "crash --keep 1"
check keep-names-owner 'grep -qx "      kept: 1 data block 0 of /A/foo (inode 14, disk 2066); lost: 2 data block 1 of /A/foo (inode 14, disk 2067)" "$out"'
run "$sim" crashstates --json "${ns_keep[@]}" -c crash
check pending-json-names-owner '[ "$(grep -o "\"what\": \"data block [01] of /A/foo (inode 14, disk 206[67])\"" "$out" | wc -l)" = 2 ]'
run "$sim" crashstates --crash-everywhere scenarios/namespace/dir-fsync.yaml
check crashstates-names-dir-and-itable 'grep -q ", 9 journal copy of the directory block 0 of /A (inode 13, disk 1172) for tid 1 (disk 8330)," "$out" &&
	grep -q ", 7 journal copy of the inode table (inodes 13-16, disk 137) for tid 1 (disk 8328)," "$out"'

# a verdict says in words what happened; informational notes only with --notes
run "$sim" run scenarios/bugs/2023-short-copy-disksize.yaml
check verdict-in-words 'grep -q "^  what happened: the size recorded for the disk (i_disksize) ran ahead" "$out"'
# a byte lost in the crash: the message says what was written there, not only the durable 0x00
run "$sim" run --data writeback scenarios/tutorial/05-ordered-mode.yaml
check lost-write-named 'grep -q "^  VIOLATION no_stale_data at step 3: .* first at 0 reads 0xee, expected 0x00 (durable) or 0xaa (written since, lost)$" "$out"'

# a violating crash state says which size and extent changes recovery kept and which were
# lost, with the transaction they were in
run "$sim" crashstates --variant before-6.12 scenarios/bugs/f7-writeback-bailout-stale.yaml
check crash-state-lost-changes '[ "$(grep -c "^      size and extents: recovered i_disksize 16384, extents 0-5 written@1172; lost with tid 3 (running): extents 6-15 written@1178$" "$out")" = 3 ] &&
	[ "$(grep -c "^      size and extents:" "$out")" = 3 ]'
run "$sim" run --variant before-6.12 scenarios/bugs/f7-writeback-bailout-stale.yaml
check crash-step-lost-changes 'grep -q "^  VIOLATION no_stale_data at step 6: in 3072 of 4096 crash states (replay one as step 6: crash --keep none; replayed tids 1-2): .*; metadata lost with tid 3 (running): extents 6-15 written@1178$" "$out"'
run "$sim" crashstates --json --variant before-6.12 scenarios/bugs/f7-writeback-bailout-stale.yaml
check crash-state-lost-json '[ "$(grep -o "\"lost\": \"with tid 3 (running): extents 6-15 written@1178\"" "$out" | wc -l)" = 3 ]'

# alloc_consistent's words name the case it found, not blocks owned twice
run "$sim" run --variant before-6.12 scenarios/bugs/f7-writeback-bailout-past-eof.yaml
check alloc-case-in-words '[ "$(grep -c "^  what happened: " "$out")" = 1 ] &&
	grep -q "^  what happened: a written block lies past the EOF block of i_disksize while the inode is not on the orphan list: .* (alloc_consistent)$" "$out" &&
	! grep -q "owned twice" "$out"'
run "$sim" run scenarios/crash/ordered-waits-for-data.yaml
check notes-hidden '! grep -q "no_folio_lock_under_handle" "$out"'
run "$sim" run --notes scenarios/crash/ordered-waits-for-data.yaml
check notes-shown 'grep -q "^  note no_folio_lock_under_handle at step 2: " "$out"'

# diff names the size rules one side applied
run "$sim" diff scenarios/bugs/2023-foo-zero-tail.yaml --patch da_end_skip_dirty
check diff-rules 'grep -q "rule only on: .*i_disksize moved by ext4_da_do_write_end (" "$out" &&
	grep -q "rule only off: .*i_disksize moved by ext4_da_write_end ((before 6.6)" "$out"'

# the block timeline (run --timeline): where each version of each block is after each event;
# the golden writes each digit of an event number as N, so that events added elsewhere do not move it
run "$sim" run --timeline scenarios/crash/ordered-waits-for-data.yaml
sed -E ':a; s/(\be(N*))[0-9]/\1N/; ta' "$out" > "$tmp/timeline.txt"
check timeline-text 'golden timeline-text "$tmp/timeline.txt"'
check timeline-commit-block-last 'grep -A3 "^      journal commit block of tid 1 " "$out" |
	grep -q "^        log, on media  *\(\.  *\)*TxE *$"'
run "$sim" run --timeline --data journal -c "pwrite -S 0xab 0 4096" -c fsync
check timeline-journaled-data 'grep -A3 "^      file block 0 (disk [0-9]*)$" "$out" | grep -q "^        log, not durable .*~ab"'
run "$sim" run --json --timeline scenarios/crash/ordered-waits-for-data.yaml
check timeline-json '[ "$(grep -o "\"timeline\": {\"columns\": \[0, " "$out" | wc -l)" = 5 ]'
run "$sim" run --json scenarios/crash/ordered-waits-for-data.yaml
check timeline-json-only-when-asked '! grep -q "\"timeline\": " "$out"'
run "$sim" run --quiz --timeline scenarios/crash/ordered-waits-for-data.yaml
check timeline-not-with-quiz '[ "$rc" = 2 ] && [ ! -s "$out" ]'
run "$sim" run --timeline -c "pwrite -S 0xaa 0 4096" -c "pwrite -S 0xbb 100 200"
check timeline-mixed-version-bytes 'grep -q "^        file block 0 v1: 0-99: 0xaa, 100-299: 0xbb, 300-4095: 0xaa$" "$out"'
