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
