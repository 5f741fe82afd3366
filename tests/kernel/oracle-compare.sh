# oracle-compare.sh - sourced by scripts/kernel-check and tests/kernel/kernel-check-replay.sh:
# compare what an exported script printed on a real ext4 with the model's predictions
# (the "# model:" lines `ext4sim export --format xfs_io` writes into the script).
#
#   oracle_compare SCRIPT KERNEL_OUT [SAVE_DIR MODEL_DIR]
#
# KERNEL_OUT holds the script's output: "pre N size S sha256 H", "post N size S sha256 H",
# "final size S sha256 H"; a namespace scenario's script prints the tree instead, "pre N ns
# LINE" (nsnap_text's lines) per name, and "post N fsck RC" after each recovery, compared
# with the model's "# model: ns ..." lines: inode numbers only as sharing, e2fsck clean.  Before a crash and at the end, size and SHA-256 must be the
# model's; after a crash, the kernel's state must be one of the states the model lists
# for that crash point.  With SAVE_DIR (the kernel's bytes, as the script kept them) and
# MODEL_DIR (the model's, from export --model-dir) a difference also names the first
# differing byte.  Sets:
#   oc_ok                 1 if everything agreed
#   oc_pre, oc_pre_ok     points compared byte for byte (before crashes, the end), agreeing
#   oc_post, oc_post_ok   crash points, where the kernel's state is a listed one
#   oc_states             states the model listed, summed over the crash points
#   oc_report             what disagreed, two-space indented lines

# oc_ns_canon: a namespace's lines (nsnap_text's) on stdin as they are compared: the
# names' lines only (the unreachable and orphan lines left to e2fsck), each inode number
# replaced by its rank among the inodes in order of first appearance (numbers only as
# sharing: which names are hard links of one inode)
oc_ns_canon() {
	awk '$1 ~ /^\// && $3 == "ino" { if (!($4 in m)) m[$4] = ++n; $4 = "#" m[$4]; print }'
}

# oc_ns_point WHAT: a namespace scenario's point before a crash or at the end, where
# the kernel's tree must be the model's
oc_ns_point() {
	local what=$1 k m
	oc_pre=$((oc_pre + 1))
	k=$(printf '%s' "${oc_kns[$what]:-}" | oc_ns_canon)
	m=$(printf '%s' "${oc_mns[$what]:-}" | oc_ns_canon)
	if [ -n "$k" ] && [ "$k" = "$m" ]; then
		oc_pre_ok=$((oc_pre_ok + 1))
		return
	fi
	oc_ok=0
	oc_report+="  $what: the kernel's namespace is not the model's (- kernel, + model):"$'\n'
	oc_report+=$(diff <(printf '%s\n' "$k") <(printf '%s\n' "$m") | grep '^[<>]' |
		sed 's/^</      -/; s/^>/      +/')$'\n'
}

# oc_ns_post_point N STATES REST: a namespace scenario's crash point: the kernel's tree
# after recovery must be one the model lists, and e2fsck -fn must have found nothing
oc_ns_post_point() {
	local n=$1 states=$2 rest2=$3 k j found=0 fsck
	oc_post=$((oc_post + 1))
	oc_states=$((oc_states + states))
	k=$(printf '%s' "${oc_kns[post $n]:-}" | oc_ns_canon)
	for ((j = 1; j <= states && !found; j++)); do
		[ "$k" = "$(printf '%s' "${oc_mns[post $n state $j]:-}" | oc_ns_canon)" ] && found=1
	done
	fsck=${oc_kfsck[$n]:-?}
	if [ -n "$k" ] && [ $found = 1 ] && [ "$fsck" = 0 ]; then
		oc_post_ok=$((oc_post_ok + 1))
		return
	fi
	oc_ok=0
	[ "$fsck" = 0 ] || oc_report+="  post $n: e2fsck -fn after the kernel's recovery exited $fsck"$'\n'
	[ $found = 1 ] && [ -n "$k" ] && return
	oc_report+="  post $n: the kernel's namespace is not one of the $states state(s) the model lists ($rest2):"$'\n'
	oc_report+=$(printf '%s\n' "$k" | sed 's/^/      kernel: /')$'\n'
	for ((j = 1; j <= states; j++)); do
		oc_report+=$(printf '%s' "${oc_mns[post $n state $j]:-}" | oc_ns_canon |
			sed "s/^/      model state $j: /")$'\n'
	done
}

oc_hexbyte() { printf '0x%02x' "$((8#$1))"; }

# oc_first_difference KERNELFILE MODELFILE: where the bytes first differ
oc_first_difference() {
	local l
	[ -r "$1" ] && [ -r "$2" ] || { echo "(no bytes kept to compare)"; return; }
	l=$(cmp -l "$1" "$2" 2> /dev/null | head -1)
	if [ -n "$l" ]; then
		set -- $l
		echo "first differing byte at offset $(($1 - 1)): kernel $(oc_hexbyte "$2"), model $(oc_hexbyte "$3")"
	else
		echo "the common part is equal; the sizes differ"
	fi
}

# oc_read_kernel KERNEL_OUT: its first line per point, as grep -m1 "^WHAT size " found it:
# oc_kline["pre N"], oc_kline["post N"], oc_kline[final]
oc_read_kernel() {
	local -a w
	local line key
	oc_kline=()
	oc_kns=() oc_kfsck=()
	while IFS= read -r line; do
		read -r -a w <<< "$line"
		if [ "${w[0]:-}" = final ] && [ "${w[1]:-}" = ns ]; then
			oc_kns[final]+="${line#final ns }"$'\n'
			continue
		fi
		case "${w[0]:-} ${w[2]:-}" in
		"pre ns"|"post ns") oc_kns[${w[0]} ${w[1]}]+="${line#* ns }"$'\n'; continue ;;
		"post fsck") oc_kfsck[${w[1]}]=${w[3]:-?}; continue ;;
		esac
		case ${w[0]:-} in
		final) key=final; [ "${w[1]:-}" = size ] || continue ;;
		pre|post) key="${w[0]} ${w[1]:-}"; [ "${w[2]:-}" = size ] || continue ;;
		*) continue ;;
		esac
		[ -n "${oc_kline[$key]+x}" ] || oc_kline[$key]=$line
	done < "$1"
}

# oc_read_model SCRIPT: its "# model:" lines: the points to compare in order (oc_points),
# the states listed per crash point (oc_listed[N]: " SIZE:SHA ...") and the state each
# run continues from (oc_cont[N]: "SIZE:SHA", the first such line)
oc_read_model() {
	local -a w
	local line
	oc_points=() oc_listed=() oc_cont=() oc_mns=() oc_ns=0
	while IFS= read -r line; do
		[ "${line#"# model: "}" != "$line" ] || continue
		read -r -a w <<< "$line"
		if [ "${w[2]}" = ns ]; then     # "# model: ns pre N LINE", "ns final LINE", "ns post N state J LINE"
			oc_ns=1
			case ${w[3]} in
			final) oc_mns[final]+="${line#"# model: ns final "}"$'\n' ;;
			pre) oc_mns[pre ${w[4]}]+="${line#"# model: ns pre ${w[4]} "}"$'\n' ;;
			post) oc_mns[post ${w[4]} state ${w[6]}]+="${line#"# model: ns post ${w[4]} state ${w[6]} "}"$'\n' ;;
			esac
			continue
		fi
		case "${w[2]} ${w[4]:-}" in
		"pre "*|"final "*|"post states") oc_points+=("${line#"# model: "}") ;;
		"post state") [ "${w[5]:-}" = size ] && oc_listed[${w[3]}]+=" ${w[6]:-}:${w[8]:-}" ;;
		"post continue")
			[ "${w[5]:-}" = size ] && [ -z "${oc_cont[${w[3]}]+x}" ] &&
				oc_cont[${w[3]}]="${w[6]:-}:${w[8]:-}" ;;
		esac
	done < "$1"
}

# oc_kernel_fields KEY FIRST SECOND: oc_ksize and oc_ksha from the kernel's line for
# KEY, words FIRST and SECOND (0-based; negative: from the end); empty if none
oc_kernel_fields() {
	local -a w
	local a=$2 b=$3
	oc_kline_now=${oc_kline[$1]:-}
	read -r -a w <<< "$oc_kline_now"
	[ "$a" -ge 0 ] || a=$((${#w[@]} + a))
	[ "$b" -ge 0 ] || b=$((${#w[@]} + b))
	oc_ksize="" oc_ksha=""
	[ "$a" -lt 0 ] || oc_ksize=${w[a]:-}
	[ "$b" -lt 0 ] || oc_ksha=${w[b]:-}
}

# oc_pre_point WHAT SIZE SHA: a point compared byte for byte
oc_pre_point() {
	local what=$1 size=$2 sha=$3 f
	oc_pre=$((oc_pre + 1))
	oc_kernel_fields "$what" -3 -1
	if [ -n "$oc_kline_now" ] && [ "$oc_ksize" = "$size" ] && [ "$oc_ksha" = "$sha" ]; then
		oc_pre_ok=$((oc_pre_ok + 1))
		return
	fi
	oc_ok=0
	f=${what/ /}
	oc_report+="  $what: kernel size ${oc_ksize:-?} sha256 ${oc_ksha:-?}"$'\n'
	oc_report+="  $what: model  size $size sha256 $sha"$'\n'
	if [ -n "$oc_kline_now" ] && [ -n "$oc_save" ]; then
		oc_report+="  $what: $(oc_first_difference "$oc_save/$f" "$oc_mdir/$f")"$'\n'
	fi
}

# oc_post_point N STATES REST: a crash point, where the kernel's state must be listed
oc_post_point() {
	local n=$1 states=$2 rest2=$3 cont s
	oc_post=$((oc_post + 1))
	oc_states=$((oc_states + states))
	oc_kernel_fields "post $n" 3 5
	if [ -n "$oc_kline_now" ] && [[ "${oc_listed[$n]:-} " == *" $oc_ksize:$oc_ksha "* ]]; then
		oc_post_ok=$((oc_post_ok + 1))
		return
	fi
	oc_ok=0
	cont=${oc_cont[$n]:-}
	oc_report+="  post $n: kernel size ${oc_ksize:-?} sha256 ${oc_ksha:-?}, not one of the $states state(s) the model lists ($rest2):"$'\n'
	for s in ${oc_listed[$n]:-}; do oc_report+="      size ${s%%:*} sha256 ${s#*:}"$'\n'; done
	[ -n "${oc_listed[$n]:-}" ] || oc_report+="      size "$'\n'
	oc_report+="  post $n: the model's run continues from size ${cont%%:*} sha256 ${cont#*:}"$'\n'
	if [ -n "$oc_kline_now" ] && [ -n "$oc_save" ]; then
		oc_report+="  post $n: against that state: $(oc_first_difference "$oc_save/post$n" "$oc_mdir/post$n")"$'\n'
	fi
}

oracle_compare() {
	local -a w
	local p
	declare -gA oc_kline oc_listed oc_cont oc_kns oc_kfsck oc_mns
	oc_save=${3:-} oc_mdir=${4:-}
	oc_ok=1 oc_pre=0 oc_pre_ok=0 oc_post=0 oc_post_ok=0 oc_states=0 oc_report=""
	oc_read_kernel "$2"
	oc_read_model "$1"
	for p in "${oc_points[@]}"; do
		read -r -a w <<< "$p"
		case ${w[0]} in
		final) [ "${w[1]:-}" = namespace ] && { oc_ns_point final; continue; }
			oc_pre_point final "${w[2]:-}" "${w[4]:-}" ;;
		pre) [ "${w[2]:-}" = namespace ] && { oc_ns_point "pre ${w[1]}"; continue; }
			oc_pre_point "pre ${w[1]}" "${w[3]:-}" "${w[5]:-}" ;;
		post) [ $oc_ns = 1 ] && { oc_ns_post_point "${w[1]}" "${w[3]:-}" "${p#post "${w[1]}" states }"; continue; }
			oc_post_point "${w[1]}" "${w[3]:-}" "${p#post "${w[1]}" states }" ;;
		esac
	done
}
