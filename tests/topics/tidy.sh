# tidy.sh - the source rules the compiler does not check (scripts/tidy): no function over
# 70 lines, one PRNG, at most 20 source files a folder, an opening comment in every file.

run scripts/tidy
check source-rules '[ "$rc" = 0 ] && [ "$(tail -1 "$out")" = "tidy: 0 problem(s)" ] ||
	{ sed "s/^/  /" "$out"; false; }'
