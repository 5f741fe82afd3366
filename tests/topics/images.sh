# images.sh - the device as image files (docs/scenario-format.md, "Images"): run --image
# then run --from-image gives back the same file (bytes, size, holes) and the same device;
# crashstates --images writes one image per distinct state, as many as it reports, named
# in its JSON; a bound too small, a wrong size, an image the mount refuses, a scenario with
# several variants and a directory that is not empty are refused with nothing left behind;
# extended attributes laid out byte for byte as a real kernel wrote them, and the errors it
# returned (tests/data/xattr).

steps=(-c "pwrite -S 0xab 0 10000" -c "pwrite -S 0xcd 40000 5000" -c "truncate 60000")
run "$sim" run --quiet --image "$tmp/a.img" --dump-file "$tmp/d0" "${steps[@]}"
check image-written '[ "$rc" = 0 ] && [ "$(stat -c %s "$tmp/a.img")" = $((16384 * 4096)) ] &&
	[ "$(stat -c %b "$tmp/a.img")" -lt $((16384 * 8)) ]'
run "$sim" run --quiet --from-image "$tmp/a.img" --image "$tmp/b.img" --dump-file "$tmp/d1" \
	-c "pread 0 1"
# the file the mount finds is the one the first run left: bytes, size, and its holes (the
# blocks allocated to each dump); and a clean mount and unmount gives the same device back
# but the superblock's mount count (s_mnt_count, byte 0x34, one more) and its checksum
# (0x3fc-0x3ff), as ext4_setup_super leaves a real one
check image-round-trip-file '[ "$rc" = 0 ] && cmp "$tmp/d0" "$tmp/d1" &&
	[ "$(stat -c %s "$tmp/d1")" = 60000 ] &&
	[ "$(stat -c %b "$tmp/d0")" = "$(stat -c %b "$tmp/d1")" ]'
check image-round-trip-device '[ "$(cmp -l "$tmp/a.img" "$tmp/b.img" |
		awk "\$1 != 1077 && (\$1 < 2045 || \$1 > 2048)" | wc -l)" = 0 ] &&
	[ "$(cmp -l "$tmp/a.img" "$tmp/b.img" | awk "\$1 == 1077 { print \$3 - \$2 }")" = 1 ] &&
	[ "$(stat -c %b "$tmp/a.img")" = "$(stat -c %b "$tmp/b.img")" ]'
# the checker starts from the image's file: reading it back and crashing after a rewrite
# of part of it violates nothing
run "$sim" run --from-image "$tmp/a.img" -c "pread -v 39998 4" -c "pwrite -S 0x11 100 10" \
	-c crash -c "pread -v 40000 2"
check from-image-reads-image '[ "$rc" = 0 ] && grep -q "00009c3e: 00 00 cd cd" "$out" &&
	grep -q "00009c40: cd cd" "$out"'

# a wrong size: exit 2, "FILE: " and both sizes; an image the mount refuses: its reason
expect_exit2 from-image-wrong-size "$sim" run --from-image "$tmp/a.img" --block-size 1024 \
	-c "pread 0 1"
check from-image-wrong-size-message 'grep -q "^$tmp/a.img: the image is 67108864 bytes, the device 16777216 (block size 1024 times disk_blocks 16384)\$" "$err"'
truncate -s $((16384 * 4096)) "$tmp/zero.img"
expect_exit2 from-image-refused "$sim" run --from-image "$tmp/zero.img" -c "pread 0 1"
check from-image-refused-message '[ "$(wc -l < "$err")" = 1 ] &&
	grep -q "^$tmp/zero.img: the mount refuses it (variant default): ." "$err"'
expect_exit2 from-image-missing "$sim" run --from-image "$tmp/nosuch.img" -c "pread 0 1"
check from-image-missing-message 'grep -q "^$tmp/nosuch.img: No such file or directory\$" "$err"'
expect_exit2 image-several-variants "$sim" run --image "$tmp/v.img" \
	scenarios/crash/mount-options-per-variant.yaml
check image-several-variants-nothing '[ ! -e "$tmp/v.img" ] && grep -q "give --variant NAME" "$err"'
run "$sim" run --quiet --image "$tmp/small.img" --max-image-bytes 4k "${steps[@]}"
check image-max-bytes '[ "$rc" = 2 ] && [ ! -e "$tmp/small.img" ] &&
	grep -q "^ext4sim: --max-image-bytes 4096: " "$err" &&
	[ -z "$(find "$tmp" -maxdepth 1 -name ".small.img.*")" ]'
expect_exit2 max-image-bytes-alone "$sim" run --max-image-bytes 1m -c "pread 0 1"
check max-image-bytes-alone-message 'grep -q "bounds the images of --image or --images" "$err"'

# crashstates --images: one file per distinct state, as many as it reports, each named in
# the JSON, every one of the device's size; the same bytes as the text run's
sc=scenarios/crash/intra-block-append-residue.yaml
run "$sim" crashstates --crash-everywhere "$sc"
nstates=$(grep -o '[0-9]* distinct$' "$out" | awk '{ s += $1 } END { print s + 0 }')
run "$sim" crashstates --crash-everywhere --json --images "$tmp/cs" "$sc"
check images-one-per-state '[ "$rc" = 0 ] && [ "$nstates" -gt 8 ] &&
	[ "$(ls "$tmp/cs" | wc -l)" = "$nstates" ] &&
	[ "$(grep -o "\"image\": \"[^\"]*\"" "$out" | wc -l)" = "$nstates" ] &&
	diff <(grep -o "\"image\": \"[^\"]*\"" "$out" | sed "s/.*\"\([^\"]*\)\"$/\1/" | sort) \
	     <(ls -d "$tmp/cs"/* | sort) &&
	[ "$(stat -c %s "$tmp/cs"/* | sort -u)" = $((16384 * 4096)) ] &&
	ls "$tmp/cs" | grep -q "^step-02-state-0002.img$"'
# every state's image, mounted by run --from-image (its recovery), reads back the file
# crashstates says that state recovers to (the JSON's sha256)
grep -o '"sha256": "[0-9a-f]*"[^{}]*"image": "[^"]*"' "$out" |
	sed 's/"sha256": "\([0-9a-f]*\)".*"image": "\([^"]*\)"/\1 \2/' > "$tmp/pairs"
: > "$tmp/pairs.bad"
while read -r want img; do
	rm -f "$tmp/st.bin"
	"$sim" run --quiet --from-image "$img" --dump-file "$tmp/st.bin" -c "pread 0 1" > /dev/null 2>&1
	got=$(sha256sum < "$tmp/st.bin" 2> /dev/null | cut -c1-64)
	[ "$got" = "$want" ] || echo "  $img: recovers to ${got:-nothing}, crashstates says $want" >> "$tmp/pairs.bad"
done < "$tmp/pairs"
cmdline="build/ext4sim run --from-image STATE.img --dump-file F -c 'pread 0 1' (each image of the run above)"
check images-recover-as-listed '[ "$(wc -l < "$tmp/pairs")" = "$nstates" ] && [ ! -s "$tmp/pairs.bad" ] ||
	{ cat "$tmp/pairs.bad"; false; }'
# crashstates --from-image: the states start from the image's file; --point/--keep: one image
run "$sim" crashstates --from-image "$tmp/a.img" -c "pwrite -S 0x22 0 100" -c "sync_range -w 0 0" -c crash
check crashstates-from-image '[ "$rc" = 0 ] && [ "$(grep -c "bytes: 0-99: 0x22, 100-9999: 0xab, 10000-39999: 0x00, 40000-44999: 0xcd" "$out")" = 1 ] &&
	grep -q "bytes: 0-9999: 0xab, 10000-39999: 0x00, 40000-44999: 0xcd" "$out"'
run "$sim" crashstates --crash-everywhere --point 5 --keep 1 --images "$tmp/pk" "$sc"
check images-point-keep '[ "$rc" = 0 ] && [ "$(ls "$tmp/pk")" = step-04-state-0001.img ] &&
	grep -q "^      image: $tmp/pk/step-04-state-0001.img\$" "$out"'
# a bound too small: exit 2, nothing on stdout, neither the directory nor its temporary
run "$sim" crashstates --crash-everywhere --images "$tmp/cs-small" --max-image-bytes 100k "$sc"
check images-max-bytes '[ "$rc" = 2 ] && [ ! -s "$out" ] && [ ! -e "$tmp/cs-small" ] &&
	[ -z "$(find "$tmp" -maxdepth 1 -name ".cs-small.*")" ] &&
	grep -q "^ext4sim: --max-image-bytes 102400: the images through step-" "$err"'
expect_exit2 images-not-empty "$sim" crashstates --images "$tmp/cs" "$sc"
check images-not-empty-kept '[ "$(ls "$tmp/cs" | wc -l)" = "$nstates" ] &&
	grep -q "^ext4sim: cannot write $tmp/cs: Directory not empty\$" "$err"'
mkdir "$tmp/empty"
run "$sim" crashstates --images "$tmp/empty" scenarios/crash/two-crashes.yaml
check images-into-empty-dir '[ "$rc" = 0 ] && [ "$(ls "$tmp/empty" | wc -l)" = 2 ]'
expect_exit2 images-several-variants "$sim" crashstates --images "$tmp/mv" \
	scenarios/crash/mount-options-per-variant.yaml
check images-several-variants-nothing '[ ! -e "$tmp/mv" ] && grep -q "give --variant NAME" "$err"'
run "$sim" crashstates --variant dioread-lock --images "$tmp/mv" \
	scenarios/crash/mount-options-per-variant.yaml
check images-one-variant '[ "$rc" = 0 ] && [ "$(ls "$tmp/mv" | wc -l)" -gt 0 ]'
# a file size limit stands for a full disk: exit 2, no image, no temporary
run bash -c "ulimit -f 16; exec \"\$0\" run --quiet --image \"\$1\" -c 'pwrite 0 4k'" "$sim" "$tmp/big.img"
check image-full-disk '[ "$rc" = 2 ] && [ ! -e "$tmp/big.img" ] &&
	[ -z "$(find "$tmp" -maxdepth 1 -name ".big.img.*")" ] &&
	grep -q "^ext4sim: cannot write $tmp/big.img: File too large\$" "$err"'
# extended attributes as the kernel lays them out: tests/data/xattr/layout.yaml's final
# image, dumped by debugfs (tests/data/xattr/dump.sh), byte for byte what this
# machine's 6.18 wrote for the same calls (tests/data/xattr/record.sh); e2fsck passes it
if PATH=$PATH:/sbin:/usr/sbin command -v debugfs > /dev/null &&
   PATH=$PATH:/sbin:/usr/sbin command -v e2fsck > /dev/null; then
	for v in 1k 4k; do
		run "$sim" run --quiet --variant $v --image "$tmp/xattr-$v.img" tests/data/xattr/layout.yaml
		PATH=$PATH:/sbin:/usr/sbin tests/data/xattr/dump.sh "$tmp/xattr-$v.img" > "$tmp/xattr-$v.txt"
		tail -n +2 tests/data/xattr/kernel-6.18-$v.txt > "$tmp/xattr-$v.want"
		check xattr-layout-kernel-$v '[ "$rc" = 0 ] && cmp -s "$tmp/xattr-$v.want" "$tmp/xattr-$v.txt" &&
			PATH=$PATH:/sbin:/usr/sbin e2fsck -fn "$tmp/xattr-$v.img" > /dev/null 2>&1'
	done
else
	echo "images: debugfs or e2fsck not installed: the xattr layout check is skipped"
fi
# and each call of scenarios/namespace/xattr-errors.yaml returns what it returned there
run "$sim" run scenarios/namespace/xattr-errors.yaml
awk '/^  \[[0-9]+\] /{ if (s != "") print s "\tok"; s = ""
		if ($2 == "setxattr" || $2 == "removexattr") { s = $0; sub(/^  \[[0-9]+\] /, "", s) }
		next }
	s != "" && /^      error: / { e = $0; sub(/^      error: /, "", e); print s "\t" e; s = "" }
	END { if (s != "") print s "\tok" }' "$out" > "$tmp/xattr-errors.txt"
check xattr-errors-kernel '[ "$rc" = 0 ] && cmp -s tests/data/xattr/kernel-6.18-errors.txt "$tmp/xattr-errors.txt"'
