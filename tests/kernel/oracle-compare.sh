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

oracle_compare() {
	local script=$1 kout=$2 save=${3:-} mdir=${4:-}
	local kind n rest what size sha line ksize ksha f sub rest2 states listed cont _
	oc_ok=1 oc_pre=0 oc_pre_ok=0 oc_post=0 oc_post_ok=0 oc_states=0 oc_report=""
	while read -r kind n rest; do
		case $kind in
		pre|final)
			if [ "$kind" = final ]; then
				what=final
				read -r _ size _ sha <<< "$n $rest"
			else
				what="pre $n"
				read -r _ size _ sha <<< "$rest"
			fi
			oc_pre=$((oc_pre + 1))
			line=$(grep -m1 "^$what size " "$kout")
			ksize=$(echo "$line" | awk '{ print $(NF - 2) }')
			ksha=$(echo "$line" | awk '{ print $NF }')
			if [ -n "$line" ] && [ "$ksize" = "$size" ] && [ "$ksha" = "$sha" ]; then
				oc_pre_ok=$((oc_pre_ok + 1))
				continue
			fi
			oc_ok=0
			f=${what/ /}
			oc_report+="  $what: kernel size ${ksize:-?} sha256 ${ksha:-?}"$'\n'
			oc_report+="  $what: model  size $size sha256 $sha"$'\n'
			if [ -n "$line" ] && [ -n "$save" ]; then
				oc_report+="  $what: $(oc_first_difference "$save/$f" "$mdir/$f")"$'\n'
			fi
			;;
		post)
			read -r sub rest2 <<< "$rest"
			[ "$sub" = states ] || continue
			states=$(echo "$rest2" | awk '{ print $1 }')
			oc_post=$((oc_post + 1))
			oc_states=$((oc_states + states))
			line=$(grep -m1 "^post $n size " "$kout")
			ksize=$(echo "$line" | awk '{ print $4 }')
			ksha=$(echo "$line" | awk '{ print $6 }')
			listed=$(grep "^# model: post $n state size " "$script" | awk '{ print $7 ":" $9 }')
			cont=$(grep -m1 "^# model: post $n continue " "$script" | awk '{ print $7 ":" $9 }')
			if [ -n "$line" ] && printf '%s\n' $listed | grep -qxF "$ksize:$ksha"; then
				oc_post_ok=$((oc_post_ok + 1))
				continue
			fi
			oc_ok=0
			oc_report+="  post $n: kernel size ${ksize:-?} sha256 ${ksha:-?}, not one of the $states state(s) the model lists ($rest2):"$'\n'
			oc_report+="$(printf '%s\n' $listed | sed 's/^/      size /; s/:/ sha256 /')"$'\n'
			oc_report+="  post $n: the model's run continues from size ${cont%%:*} sha256 ${cont#*:}"$'\n'
			if [ -n "$line" ] && [ -n "$save" ]; then
				oc_report+="  post $n: against that state: $(oc_first_difference "$save/post$n" "$mdir/post$n")"$'\n'
			fi
			;;
		esac
	done < <(sed -n 's/^# model: //p' "$script" | grep -E '^(pre|final|post [0-9]+ states)')
}
