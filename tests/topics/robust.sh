# robust.sh - bad input and big work (docs/performance.md, "Limits"): each input under
# tests/data/robust/ that once crashed, hung, lost output or went quadratic, and what it
# must do now; exit statuses on a full stdout, atomic files, the limits' messages,
# strict numeric flags, merge refusing an incomplete report.

# a collapse reaching EOF (and an insert past it) in data=journal before 6.5: a crash
# point inside the forced commit comes before the step's EINVAL (was a model assertion)
run "$sim" run --crash-everywhere --summary tests/data/robust/collapse-past-eof-jdata.yaml
check collapse-past-eof-jdata '[ "$rc" = 0 ] && [ "$(grep -c " PASS " "$out")" = 5 ]'
run "$sim" run --crash-everywhere --data journal --kernel 5.14 -c "pwrite 0 4096" -c "fcollapse 0 8192"
check collapse-past-eof-inline '[ "$rc" = 0 ] && grep -q "fallocate refused" "$out"'

# dio_read keeps its operands through import, export --format yaml and the scripts,
# where it is a process of its own opened O_DIRECT (was a bare "dio_read")
run "$sim" import tests/data/robust/dio-read.xfs_io
cp "$out" "$tmp/dio.yaml"
check import-dio-read '[ "$rc" = 0 ] && grep -q "^  - dio_read 0 4096$" "$tmp/dio.yaml" &&
	grep -q "^  - dio_read -v 512 1024$" "$tmp/dio.yaml"'
run "$sim" run --quiet "$tmp/dio.yaml"
check import-dio-read-loads '[ "$rc" = 0 ]'
run "$sim" export --format yaml "$tmp/dio.yaml"
check export-yaml-dio-read '[ "$rc" = 0 ] && grep -q "^  - dio_read -v 512 1024$" "$out"'
run "$sim" export -c "pwrite 0 8192" -c "dio_read 0 4096" -c "pread 0 10"
check export-xfs_io-dio-read '[ "$rc" = 0 ] && grep -q "^io -d -c '\''pread 0 4096'\''$" "$out" &&
	! grep -q "dio_read'\''" "$out"'
run "$sim" export --format fstests -c "pwrite 0 8192" -c "dio_read 0 4096"
check export-fstests-dio-read '[ "$rc" = 0 ] && grep -q "^\$XFS_IO_PROG -d -c \"pread 0 4096\" \$file" "$out"'
