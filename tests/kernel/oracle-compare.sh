# oracle-compare.sh - sourced by scripts/kernel-check and tests/kernel/kernel-check-replay.sh:
# compare what an exported script printed on a real ext4 with the model's predictions
# (the "# model:" lines `ext4sim export --format xfs_io` writes into the script).
#
#   oracle_compare SCRIPT KERNEL_OUT [SAVE_DIR MODEL_DIR]
#
# KERNEL_OUT holds the script's output: "pre N size S sha256 H", "post N size S sha256 H",
# "final size S sha256 H".  Before a crash and at the end, size and SHA-256 must be the
# model's; after a crash, the kernel's state must be one of the states the model lists
# for that crash point.  With SAVE_DIR (the kernel's bytes, as the script kept them) and
# MODEL_DIR (the model's, from export --model-dir) a difference also names the first
# differing byte.  Sets:
#   oc_ok                 1 if everything agreed
#   oc_pre, oc_pre_ok     points compared byte for byte (before crashes, the end), agreeing
#   oc_post, oc_post_ok   crash points, where the kernel's state is a listed one
#   oc_states             states the model listed, summed over the crash points
#   oc_report             what disagreed, two-space indented lines

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
	while IFS= read -r line; do
		read -r -a w <<< "$line"
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
	oc_points=() oc_listed=() oc_cont=()
	while IFS= read -r line; do
		[ "${line#"# model: "}" != "$line" ] || continue
		read -r -a w <<< "$line"
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
	declare -gA oc_kline oc_listed oc_cont
	oc_save=${3:-} oc_mdir=${4:-}
	oc_ok=1 oc_pre=0 oc_pre_ok=0 oc_post=0 oc_post_ok=0 oc_states=0 oc_report=""
	oc_read_kernel "$2"
	oc_read_model "$1"
	for p in "${oc_points[@]}"; do
		read -r -a w <<< "$p"
		case ${w[0]} in
		final) oc_pre_point final "${w[2]:-}" "${w[4]:-}" ;;
		pre) oc_pre_point "pre ${w[1]}" "${w[3]:-}" "${w[5]:-}" ;;
		post) oc_post_point "${w[1]}" "${w[3]:-}" "${p#post "${w[1]}" states }" ;;
		esac
	done
}
