#!/usr/bin/env bash
# record.sh BUILD OUT-PREFIX - record what this machine's ext4 does with the
# extended-attribute steps of layout.yaml and of scenarios/namespace/xattr-errors.yaml
# (as root, with loop devices and python3): the model makes the image up to the sync,
# the kernel mounts it and makes the same setxattr and removexattr calls; dump.sh's dump
# of layout.yaml's unmounted image goes to OUT-PREFIX-VARIANT.txt, each call of
# xattr-errors.yaml with its result (ok, or strerror's words) to OUT-PREFIX-errors.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$1 out=$2 tmp=$(mktemp -d)
trap 'umount "$tmp/mnt" 2> /dev/null || true; rm -rf "$tmp"' EXIT
mkdir "$tmp/mnt"
# each line "setxattr PATH NAME [VALUE]" or "removexattr PATH NAME" as the call, printed
# with its result: "LINE<tab>ok" or "LINE<tab>strerror"
calls='
import os, sys
root = sys.argv[1]
for line in sys.stdin:
    w = line.split()
    path = os.path.join(root, w[1])
    try:
        if w[0] == "setxattr":
            os.setxattr(path, w[2], (w[3] if len(w) > 3 else "").encode())
        else:
            os.removexattr(path, w[2])
        print(line.rstrip("\n") + "\tok")
    except OSError as e:
        print(line.rstrip("\n") + "\t" + os.strerror(e.errno))'
for v in 1k 4k; do
	bs=$([ $v = 1k ] && echo 1024 || echo 4096)
	"$build/ext4sim" run --block-size $bs --image "$tmp/$v.img" -c "mkdir A" -c "creat A/foo" \
		-c "creat A/bar" -c "creat A/baz" -c sync > /dev/null
	mount -o loop "$tmp/$v.img" "$tmp/mnt"
	grep -E '^  - (set|remove)xattr ' "$here/layout.yaml" | sed 's/^  - //' |
		python3 -c "$calls" "$tmp/mnt" > /dev/null
	umount "$tmp/mnt"
	{ echo "# $(uname -r): tests/data/xattr/record.sh"; "$here/dump.sh" "$tmp/$v.img"; } \
		> "$out-$v.txt"
done
"$build/ext4sim" run --block-size 1024 --image "$tmp/e.img" -c "creat a" -c sync > /dev/null
mount -o loop "$tmp/e.img" "$tmp/mnt"
grep -E '^  - (set|remove)xattr ' "$here/../../../scenarios/namespace/xattr-errors.yaml" |
	sed 's/^  - //' | python3 -c "$calls" "$tmp/mnt" > "$out-errors.txt"
umount "$tmp/mnt"
