#!/usr/bin/env bash
# record.sh BUILD OUT-PREFIX - record what this machine's ext4 writes for layout.yaml's
# extended-attribute steps (as root, with loop devices and python3): the model makes the
# image up to the sync, the kernel mounts it and makes the same setxattr and removexattr
# calls, and dump.sh's dump of the unmounted image goes to OUT-PREFIX-VARIANT.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$1 out=$2 tmp=$(mktemp -d)
trap 'umount "$tmp/mnt" 2> /dev/null || true; rm -rf "$tmp"' EXIT
mkdir "$tmp/mnt"
for v in 1k 4k; do
	bs=$([ $v = 1k ] && echo 1024 || echo 4096)
	"$build/ext4sim" run --block-size $bs --image "$tmp/$v.img" -c "mkdir A" -c "creat A/foo" \
		-c sync > /dev/null
	mount -o loop "$tmp/$v.img" "$tmp/mnt"
	grep -E '^  - (set|remove)xattr ' "$here/layout.yaml" | sed 's/^  - //' |
		python3 -c '
import os, sys
root = sys.argv[1]
for line in sys.stdin:
    w = line.split()
    path = os.path.join(root, w[1])
    if w[0] == "setxattr":
        os.setxattr(path, w[2], (w[3] if len(w) > 3 else "").encode())
    else:
        os.removexattr(path, w[2])' "$tmp/mnt"
	umount "$tmp/mnt"
	{ echo "# $(uname -r): tests/data/xattr/record.sh"; "$here/dump.sh" "$tmp/$v.img"; } \
		> "$out-$v.txt"
done
