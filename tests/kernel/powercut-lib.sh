# powercut-lib.sh - the state of a crash point as the power-cut campaign compares it,
# sourced by scripts/kernel-powercut and tests/kernel/powercut-replay.sh (docs/real-kernel.md,
# "Power cuts").  A one-file export's state is "size S sha256 H" of its file; a namespace
# export's (one with `# model: ns` lines) is "ns H", H the SHA-256 of the namespace listing
# the exported script prints (its NS_LIST reader: one line per name, with inode numbers,
# link counts, sizes and content hashes), the lines sorted in the C locale.

# pc_model_states SCRIPT N: the states the export's header lists for crash point N, one a
# line, each once
pc_model_states() {
	local script=$1 n=$2 k
	if grep -q "^# model: ns post $n state " "$script"; then
		for k in $(awk -v n="$n" '$3 == "ns" && $4 == "post" && $5 == n && $6 == "state" { print $7 }' \
			"$script" | sort -un); do
			echo "ns $(grep "^# model: ns post $n state $k " "$script" |
				sed "s/^# model: ns post $n state $k //" | LC_ALL=C sort | sha256sum | cut -c1-64)"
		done | sort -u
	else
		grep "^# model: post $n state " "$script" | sed "s/^# model: post $n state //" | sort -u
	fi
}

# pc_real_state MNT SCRIPT: the state of the file system mounted at MNT, in SCRIPT's form
# (a namespace listing by SCRIPT's own reader, or MNT/f's size and SHA-256)
pc_real_state() {
	local mnt=$1 script=$2 size sum list
	if grep -q "^NS_LIST='" "$script"; then
		list=$(sed -n "/^NS_LIST='/,/^'\$/p" "$script" | sed "1s/^NS_LIST='//; \$d")
		sum=$(perl -e "$list" "$mnt" 2> /dev/null | LC_ALL=C sort | sha256sum) || sum=unreadable
		echo "ns ${sum%% *}"
	else
		size=$(stat -c %s "$mnt/f" 2> /dev/null || echo missing)
		sum=$(sha256sum < "$mnt/f" 2> /dev/null || echo unreadable)
		echo "size $size sha256 ${sum%% *}"
	fi
}
