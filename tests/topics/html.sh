# html.sh - ext4sim html (docs/html.md): bad input, determinism and the template's C copy
# (tests/html/cli.sh, no browser); the page in a real headless chromium: timeline, crash
# states, highlighted changes, events, two sides, and no network request
# (tests/html/check.sh, which skips with a message where chromium is not installed).

run tests/html/cli.sh "$build"
tally html-cli "$out" html-cli
run tests/html/check.sh "$build"
grep '^skipped: ' "$out" | sed 's/^/  /'
tally html "$out" html
