# e2fs.sh - the model's mkfs is e2fsprogs' (e2fs/, docs/architecture.md): for 1, 2 and 4
# KiB blocks and several sizes (the smallest the model takes, 16384 and 65536 blocks,
# one block past 512 MiB, where mke2fs's usage type goes from "small" to "default"; and
# two whose last group is short: 10000 blocks of 1 KiB, 32769 of 4 KiB), the
# image of `test_mke2fs --image` equals what the real mke2fs and debugfs make on a
# device of sentinel bytes, with the options and the time of e2fs/mke2fs.h: byte for
# byte but s_kbytes_written and the superblock checksum over it in every superblock copy
# (mke2fs counts the bytes its unix I/O manager wrote, then debugfs adds its own; the
# model's channel keeps mke2fs's starting 1); dumpe2fs agrees but for those two lines;
# `e2fsck -fn` passes the image.  One count per geometry; skipped with a message
# where mke2fs, debugfs, dumpe2fs or e2fsck is missing.

e2fs_uuid=0b7d3c2e-1f2a-4b5c-8d9e-0a1b2c3d4e5f
e2fs_seed=6a1c2b3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d
e2fs_time=$(sed -n 's/^#define E2FS_MKFS_TIME \([0-9]*\)u.*/\1/p' e2fs/mke2fs.h)
e2fs_tools=1
for t in mke2fs debugfs dumpe2fs e2fsck; do
	command -v "$t" > /dev/null || PATH=$PATH:/sbin:/usr/sbin command -v "$t" > /dev/null ||
		e2fs_tools=0
done

# The real image of $1 blocks of $2 bytes in $tmp/real.img: sentinel bytes, mke2fs, then
# debugfs writing an empty file of mode 0644 as f.
e2fs_real() {
	head -c $(($1 * $2)) /dev/zero | tr '\0' '\356' > "$tmp/real.img"
	: > "$tmp/empty" && chmod 644 "$tmp/empty"
	E2FSPROGS_FAKE_TIME=$e2fs_time mke2fs -q -F -t ext4 -b "$2" -U $e2fs_uuid \
		-E nodiscard,lazy_itable_init=0,lazy_journal_init=0,hash_seed=$e2fs_seed \
		"$tmp/real.img" "$1" > "$tmp/mkfs.out" 2>&1 &&
	E2FSPROGS_FAKE_TIME=$e2fs_time debugfs -w -R "write $tmp/empty f" "$tmp/real.img" \
		> "$tmp/debugfs.out" 2>&1
}

# The bytes of $tmp/model.img and $tmp/real.img that differ, less those of s_kbytes_written
# (superblock offset 0x178, 8 bytes) and s_checksum (0x3fc, 4 bytes) in every superblock
# copy dumpe2fs lists; block size $1.  Prints the offsets left (nothing: the same).
e2fs_diff() {
	dumpe2fs "$tmp/real.img" 2> /dev/null |
		sed -n 's/.*[Ss]uperblock at \([0-9]*\).*/\1/p' > "$tmp/sb.txt"
	cmp -l "$tmp/model.img" "$tmp/real.img" | awk -v bs="$1" -v sbs="$tmp/sb.txt" '
		BEGIN { while ((getline b < sbs) > 0) {
			o = b * bs + (b == 0 && bs > 1024 ? 1024 : 0)
			for (i = 0; i < 8; i++) ok[o + 376 + i] = 1
			for (i = 0; i < 4; i++) ok[o + 1020 + i] = 1 } }
		!(($1 - 1) in ok) { print $1 - 1 }' | head -5
}

# One geometry: $1 blocks of $2 bytes.
e2fs_check() {
	local name=mke2fs-$2-$1 left
	run "$build/tests/test_mke2fs" --image "$tmp/model.img" "$1" "$2"
	if [ "$rc" != 0 ] || ! e2fs_real "$1" "$2"; then
		bad "$name: an image was not made"; sed 's/^/  /' "$err" "$tmp/mkfs.out"; return
	fi
	left=$(e2fs_diff "$2")
	dumpe2fs "$tmp/model.img" 2>&1 | grep -v '^Lifetime writes:\|^Checksum:' > "$tmp/model.dump"
	dumpe2fs "$tmp/real.img" 2>&1 | grep -v '^Lifetime writes:\|^Checksum:' > "$tmp/real.dump"
	e2fsck -fn "$tmp/model.img" > "$tmp/fsck.out" 2>&1
	frc=$?
	check "$name" '[ -z "$left" ] && cmp -s "$tmp/model.dump" "$tmp/real.dump" && [ $frc = 0 ] ||
		{ echo "  bytes differ at: $left; e2fsck: $frc"; diff "$tmp/model.dump" "$tmp/real.dump" | head; false; }'
	rm -f "$tmp/model.img" "$tmp/real.img"
}

if [ $e2fs_tools = 0 ]; then
	echo "e2fs: mke2fs, debugfs, dumpe2fs or e2fsck is not installed: the comparison with e2fsprogs is skipped"
else
	PATH=$PATH:/sbin:/usr/sbin
	for bs in 1024 2048 4096; do
		for nr in 2048 16384 65536 $((512 * 1024 * 1024 / bs + 1)); do
			e2fs_check $nr $bs
		done
	done
	e2fs_check 10000 1024
	e2fs_check 32769 4096
fi
