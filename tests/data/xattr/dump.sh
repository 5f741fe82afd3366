#!/usr/bin/env bash
# dump.sh IMAGE - what the xattr layout check compares (tests/data/xattr/layout.yaml):
# debugfs's dumps of /A/foo's, /A/bar's, /A/baz's and /A's xattr areas in the inode,
# their i_file_acl and block counts, and each xattr block, byte for byte.
set -uo pipefail
img=$1
dfs() { debugfs -R "$1" "$img" 2> /dev/null; }
for f in A/foo A/bar A/baz A; do
	echo "== $f"
	dfs "stat $f" | grep -E '^File ACL|Blockcount' | sed 's/^Links: [0-9]*  *//'
	dfs "inode_dump -x $f"
	acl=$(dfs "stat $f" | sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
	[ "${acl:-0}" != 0 ] && dfs "bd $acl"
done
