# crash-reference.sh - crash states judged by parts against the same states judged whole
# (tests/crash-reference.sh): one count per scenario, and per random kernel-comparison
# case and configuration.

run tests/crash-reference.sh -b "$build"
cat "$err" >> "$out"
grep '^FAIL' "$out" | head -20
tally crash-reference "$out" "crash-state reference"
