#!/usr/bin/env bash
# loopcheck.sh -- collect ground truth from a real ext4 for ext4sim.
#
# What it does
#   Reads the cases in tests/kernel/cases.txt (lines "NAME: step; step; ...", '#' comments)
#   and runs every case on a fresh ext4 loop-device filesystem under each configuration of
#       block size {1024, 2048, 4096} x mode {ordered, ordered-nodelalloc, writeback, journal}
#   (mount options data=ordered | data=ordered,nodelalloc | data=writeback | data=journal,
#   always plus commit=600,noatime so the jbd2 commit timer never fires).
#   Per run: a 64 MiB image pre-filled with 0xee (stale device data stays visible) is made
#   with mkfs.ext4 (fixed UUID and hash_seed), attached with losetup and mounted; the empty
#   file f is created and sync'ed.  The steps are split at each `crash`; every segment runs
#   as one xfs_io process on f (`close` ends that process and starts a new one; `evict`
#   ends it and drops the clean page cache with `echo 1 > /proc/sys/vm/drop_caches`, which
#   writes nothing back, unlike `fadvise -d`; `chattr +S`/`-S` ends it and runs e2fsprogs'
#   chattr (as the corpus was recorded; xfs_io's `chattr +s` sets the same flag); `mwrite` is preceded, once per
#   xfs_io process, by `mmap -rw 0 1m`, as xfs_io stores only through a mapping; `pread`
#   reads through the page cache (to fill it); every
#   other step is passed to xfs_io unchanged).  A fallocate the kernel refuses (xfs_io
#   prints "fallocate: Invalid argument" and the like, exits 1) is recorded in the
#   details file as `errors=` and the case goes on, as a scenario does.  After each
#   segment the size and bytes of f are read through the page cache (record preN); a
#   `crash` is `xfs_io -x -c shutdown` (NOLOGFLUSH) on the mount, umount, mount again
#   (journal replay + orphan cleanup), then f is read again (record postN).  If the case does
#   not end with crash, the final state is recorded as `final`.
#   After the run the filesystem is unmounted and checked with `e2fsck -fn`.
#
# Output
#   tests/kernel/ground-truth-<major.minor>.txt, one line per record, in case-file order,
#   then configuration order, then chronological order:
#       CASE BS MODE POINT size=N runs=HEX*COUNT,HEX*COUNT,...
#   (runs = run-length encoding of the file's bytes, empty for an empty file), after
#   '#' header lines with kernel/tool versions and the command line.
#   tests/kernel/ground-truth-<major.minor>.details.txt (informational, not part of the
#   format above): for every pre/post-crash point the extent map of f (filefrag -v,
#   which does not set FIEMAP_FLAG_SYNC and so has no side effects), in fs blocks
#   LOGICAL+LEN@PHYSICAL[:flags] with PHYSICAL '-' for delalloc (pre points show what is
#   still delalloc); for every post point the ext4/jbd2 kernel messages of the shutdown and
#   recovery mount (normalised, minus the lines every crash prints; "-" if none); and the
#   e2fsck -fn result of each run.  xfs_io runs pinned to CPU 0 so that block placement
#   (per-CPU mballoc locality groups) is repeatable.
#   A human-readable summary table and timing go to stdout.
#
# How to run (as root):
#   tests/kernel/loopcheck.sh                 # all cases; writes the two files above
#   tests/kernel/loopcheck.sh -k 'REGEX'      # only cases whose name matches REGEX; prints
#                                             # the summary only, writes files only with -o
#   options: -c CASEFILE  -o OUTFILE  -d DETAILSFILE  -k CASE_REGEX
#
# Needs: root, Linux with loop devices and ext4, xfs_io (xfsprogs), mkfs.ext4/e2fsck/filefrag
#   (e2fsprogs), losetup/mount/taskset (util-linux), coreutils, gawk or mawk, od, dmesg.
#   Writes one marker line per crash to /dev/kmsg ("loopcheck-mark ...") to find the
#   kernel messages of that crash.
#   Temporarily sets vm.dirty_writeback_centisecs=0, vm.dirty_expire_centisecs=360000,
#   vm.dirty_background_bytes=268435456, vm.dirty_bytes=419430400 (restored on exit, also on
#   error or interrupt).  Images live on a private tmpfs inside a `mktemp -d` dir in /tmp,
#   so global sync(2) calls do not write the images to the host disk.

set -Eeuo pipefail
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KVER=$(uname -r | grep -oE '^[0-9]+\.[0-9]+')
CASEFILE=$SCRIPT_DIR/cases.txt
OUT=""
DETAILS=""
FILTER=""
ORIG_CMD="tests/kernel/loopcheck.sh${*:+ $*}"

usage() { sed -n '2,49p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while getopts "c:o:d:k:h" opt; do
    case $opt in
        c) CASEFILE=$OPTARG ;;
        o) OUT=$OPTARG ;;
        d) DETAILS=$OPTARG ;;
        k) FILTER=$OPTARG ;;
        h) usage 0 ;;
        *) usage 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -eq 0 ]] || usage 2

die() { echo "loopcheck: ERROR: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root"
for t in xfs_io mkfs.ext4 e2fsck filefrag losetup mount umount mountpoint od awk dmesg stat sysctl taskset; do
    command -v "$t" >/dev/null || die "missing tool: $t"
done
[[ -r $CASEFILE ]] || die "cannot read case file $CASEFILE"

# ---------------------------------------------------------------- fixed parameters
IMG_MB=64
FS_UUID=0b7d3c2e-1f2a-4b5c-8d9e-0a1b2c3d4e5f
HASH_SEED=6a1c2b3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d
COMMON_OPTS=commit=600,noatime
PIN_CPU=0
BLOCKSIZES=(1024 2048 4096)
MODES=(ordered ordered-nodelalloc writeback journal)
mode_opts() {
    case $1 in
        ordered) echo "data=ordered,$COMMON_OPTS" ;;
        ordered-nodelalloc) echo "data=ordered,nodelalloc,$COMMON_OPTS" ;;
        writeback) echo "data=writeback,$COMMON_OPTS" ;;
        journal) echo "data=journal,$COMMON_OPTS" ;;
        *) die "unknown mode $1" ;;
    esac
}

# ---------------------------------------------------------------- state + cleanup
WORK=""
MNT=""
LOOP=""
TMPFS_MOUNTED=0
declare -A OLD_SYSCTL=()
SYSCTL_KEYS=(dirty_writeback_centisecs dirty_expire_centisecs dirty_background_bytes
             dirty_background_ratio dirty_bytes dirty_ratio)
CUR=""   # "CASE BS MODE" of the run in progress, for error messages

teardown_fs() {   # unmount + detach the current run's fs (no-op if nothing attached)
    local ok=0
    if [[ -n $MNT ]] && mountpoint -q "$MNT"; then
        umount "$MNT" || { echo "loopcheck: umount $MNT failed; trying lazy umount" >&2; umount -l "$MNT" || ok=1; }
    fi
    if [[ -n $LOOP ]]; then
        losetup -d "$LOOP" || { echo "loopcheck: losetup -d $LOOP failed" >&2; ok=1; }
        LOOP=""
    fi
    return $ok
}

restore_sysctl() {
    [[ ${#OLD_SYSCTL[@]} -gt 0 ]] || return 0
    local p=/proc/sys/vm
    echo "${OLD_SYSCTL[dirty_writeback_centisecs]}" > $p/dirty_writeback_centisecs || true
    echo "${OLD_SYSCTL[dirty_expire_centisecs]}" > $p/dirty_expire_centisecs || true
    # *_bytes and *_ratio are mutually exclusive: writing one zeroes the other.
    if [[ ${OLD_SYSCTL[dirty_background_bytes]} != 0 ]]; then
        echo "${OLD_SYSCTL[dirty_background_bytes]}" > $p/dirty_background_bytes || true
    else
        echo "${OLD_SYSCTL[dirty_background_ratio]}" > $p/dirty_background_ratio || true
    fi
    if [[ ${OLD_SYSCTL[dirty_bytes]} != 0 ]]; then
        echo "${OLD_SYSCTL[dirty_bytes]}" > $p/dirty_bytes || true
    else
        echo "${OLD_SYSCTL[dirty_ratio]}" > $p/dirty_ratio || true
    fi
    OLD_SYSCTL=()
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP ERR
    set +e
    teardown_fs
    restore_sysctl
    if [[ -n $WORK ]]; then
        [[ $TMPFS_MOUNTED -eq 1 ]] && umount "$WORK/img"
        rm -rf "$WORK"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'echo "loopcheck: interrupted${CUR:+ during $CUR}" >&2; exit 130' INT
trap 'echo "loopcheck: terminated${CUR:+ during $CUR}" >&2; exit 143' TERM HUP
trap 'echo "loopcheck: ERROR: command failed (line $LINENO: $BASH_COMMAND)${CUR:+ in $CUR}" >&2' ERR

WORK=$(mktemp -d /tmp/loopcheck.XXXXXX)
mkdir "$WORK/img" "$WORK/mnt" "$WORK/log"
mount -t tmpfs -o size=$((IMG_MB * 3))m,mode=0700 loopcheck-tmpfs "$WORK/img"
TMPFS_MOUNTED=1
MNT=$WORK/mnt

for k in "${SYSCTL_KEYS[@]}"; do OLD_SYSCTL[$k]=$(cat /proc/sys/vm/$k); done
sysctl -q -w vm.dirty_writeback_centisecs=0 vm.dirty_expire_centisecs=360000 \
    vm.dirty_background_bytes=268435456 vm.dirty_bytes=419430400

# template image: 64 MiB of 0xee, copied for every run
head -c $((IMG_MB * 1024 * 1024)) /dev/zero | tr '\0' '\356' > "$WORK/img/template"

# ---------------------------------------------------------------- parse cases
CASE_NAMES=()
declare -A CASE_STEPS=() ALL_NAMES=()
lineno=0
while IFS= read -r line || [[ -n $line ]]; do
    lineno=$((lineno + 1))
    line=${line%$'\r'}
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    [[ $line =~ ^([A-Za-z0-9._-]+):[[:space:]]*(.*)$ ]] || die "$CASEFILE:$lineno: cannot parse: $line"
    name=${BASH_REMATCH[1]}
    steps=${BASH_REMATCH[2]}
    [[ -z ${ALL_NAMES[$name]+x} ]] || die "$CASEFILE:$lineno: duplicate case $name"
    ALL_NAMES[$name]=1
    [[ -z $FILTER || $name =~ $FILTER ]] || continue
    CASE_NAMES+=("$name")
    CASE_STEPS[$name]=$steps
done < "$CASEFILE"
[[ ${#CASE_NAMES[@]} -gt 0 ]] || die "no cases selected"

NUM='(0|[1-9][0-9]*)'
# Translate one step to an xfs_io command (or the markers CRASH / CLOSE); reject anything
# unknown, because xfs_io itself exits 0 on unknown commands and silently parses bad seeds.
translate_step() {
    local s=$1
    case $s in
        crash) echo CRASH ;;
        close) echo CLOSE ;;
        evict) echo EVICT ;;
        "chattr +S"|"chattr -S") echo "CHATTR ${s#chattr }" ;;
        *)
            if [[ $s =~ ^pwrite(\ -S\ 0x[0-9a-fA-F]{1,2})?\ $NUM\ $NUM$ ||
                  $s =~ ^truncate\ $NUM$ ||
                  $s =~ ^(fsync|fdatasync|sync)$ ||
                  $s =~ ^sync_range\ -[abw]\ $NUM\ $NUM$ ||
                  $s =~ ^fadvise\ -d\ $NUM\ $NUM$ ||
                  $s =~ ^(falloc|fzero)(\ -k)?\ $NUM\ $NUM$ ||
                  $s =~ ^(fpunch|fcollapse|finsert)\ $NUM\ $NUM$ ||
                  $s =~ ^pread\ $NUM\ $NUM$ ||
                  $s =~ ^mwrite(\ -S\ 0x[0-9a-fA-F]{1,2})?\ $NUM\ $NUM$ ]]; then
                echo "$s"
            else
                return 1
            fi ;;
    esac
}

# validate every selected case before touching any device
for name in "${CASE_NAMES[@]}"; do
    IFS=';' read -ra steps <<< "${CASE_STEPS[$name]}"
    for s in "${steps[@]}"; do
        s=$(echo "$s" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//; s/[[:space:]][[:space:]]*/ /g')
        [[ -n $s ]] || die "case $name: empty step"
        translate_step "$s" > /dev/null || die "case $name: unsupported step '$s'"
    done
done

# ---------------------------------------------------------------- helpers for one run
RECORDS=()     # ground-truth lines
DETAIL_LINES=()

rle_of() {   # run-length encode the bytes of file $1
    od -An -v -tx1 "$1" | awk '
        { for (i = 1; i <= NF; i++) { b = $i ""; if (n > 0 && b == p) n++; else { if (n) { out = out sep p "*" n; sep = "," } p = b; n = 1 } } }
        END { if (n) out = out sep p "*" n; print out }'
}

rle_len() {   # total byte count of an RLE string
    awk -v s="$1" 'BEGIN { t = 0; n = split(s, a, ","); for (i = 1; i <= n; i++) { split(a[i], b, "*"); t += b[2] } print t }'
}

record() {   # record POINT: size + bytes of f as seen through the page cache
    local point=$1 size runs
    size=$(stat -c %s "$MNT/f") || die "$CUR $point: stat failed"
    runs=$(rle_of "$MNT/f") || die "$CUR $point: reading f failed"
    [[ $(rle_len "$runs") -eq $size ]] || die "$CUR $point: read $(rle_len "$runs") bytes but size is $size"
    RECORDS+=("$CUR $point size=$size runs=$runs")
}

extents_of() {   # filefrag -v (no FIEMAP_FLAG_SYNC) -> LOGICAL+LEN@PHYSICAL[:flags],...
    filefrag -v "$MNT/f" | awk '
        /^ *[0-9]+:/ {
            gsub(/[.:]+/, " ");
            # fields: ext lstart lend pstart pend len [expected] [flags]
            # (filefrag prints length 0 for delalloc extents, so use the logical range)
            fl = ""; phys = $4;
            if (NF >= 7 && $NF !~ /^[0-9]+$/) fl = ":" $NF;
            if (fl ~ /unknown_loc/) phys = "-";
            out = out sep $2 "+" ($3 - $2 + 1) "@" phys fl; sep = ","
        }
        END { print (out == "" ? "none" : out) }'
}

kmsg_mark() { echo "loopcheck-mark $1" > /dev/kmsg; }
kmsg_since() {   # normalised EXT4/jbd2 kernel messages after mark $1
    dmesg | awk -v m="loopcheck-mark $1" '
        index($0, m) { on = 1; out = ""; sep = ""; next }   # last occurrence wins
        on && (/EXT4-fs|jbd2|JBD2|[Jj]ournal/) {
            sub(/^\[[^]]*\] */, ""); gsub(/loop[0-9]+/, "loopN"); gsub(/[0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+/, "UUID");
            # drop the lines every crash produces; keep recovery/orphan/error messages
            if ($0 ~ /shut down requested \(2\)$|^Aborting journal on device loopN-8\.$|unmounting filesystem UUID\.$|mounted filesystem UUID r\/w with (ordered|writeback|journalled) data mode\. Quota mode: none\.$/) next
            out = out sep $0; sep = " | "
        }
        END { print (out == "" ? "-" : out) }'
}

# the errors a case may expect from the kernel (EINVAL, ENOSPC, EFBIG, EOPNOTSUPP)
XFS_IO_ERRNOS='Invalid argument|No space left on device|File too large|Operation not supported'
MMAP_CMD='mmap -rw 0 1m'   # mapped before a process's first mwrite (xfs_io needs a mapping)

run_xfs_io() {   # run_xfs_io POINTTAG cmd...   (one xfs_io process on f)
    local tag=$1; shift
    local args=() c
    for c in "$@"; do args+=(-c "$c"); done
    local log=$WORK/log/xfs_io.out err=$WORK/log/xfs_io.err rc=0
    # pinned to one CPU: with nodelalloc/data=journal, blocks are allocated in the write
    # syscall from a per-CPU mballoc locality group, so CPU migration would change placement
    taskset -c "$PIN_CPU" xfs_io "${args[@]}" "$MNT/f" > "$log" 2> "$err" || rc=$?
    # a refused fallocate is a result, not a failure: xfs_io prints it and exits 1
    if [[ $rc -le 1 && -s $err ]] && ! grep -qvE "^fallocate: ($XFS_IO_ERRNOS)$" "$err"; then
        DETAIL_LINES+=("$CUR $tag errors=$(paste -sd'|' "$err")")
        rc=0; : > "$err"
    fi
    if [[ $rc -ne 0 || -s $err ]]; then
        echo "loopcheck: ERROR: case $CUR ($tag): xfs_io failed (rc=$rc)" >&2
        printf '  command: xfs_io'; printf ' -c %q' "$@"; printf ' %s\n' "$MNT/f"
        sed 's/^/  stderr: /' "$err" >&2
        exit 1
    fi >&2
}

mount_fs() {
    local opts=$1 o
    mount -t ext4 -o "$opts" "$LOOP" "$MNT" || die "$CUR: mount -o $opts failed"
    o=$(awk -v m="$MNT" '$2 == m { print $4 }' /proc/mounts)
    [[ ,$o, == *,rw,* ]] || die "$CUR: filesystem mounted with '$o' (not rw)"
}

RUN_TIMES=()
FSCK_PROBLEMS=()

run_case() {   # run_case NAME BS MODE
    local name=$1 bs=$2 mode=$3 opts steps s t
    opts=$(mode_opts "$mode")
    CUR="$name $bs $mode"
    local t0; t0=$(date +%s.%N)

    # split into segments (at crash) and processes (at close)
    local -a segs=() seg_ends_crash=()
    local cur="" n
    IFS=';' read -ra steps <<< "${CASE_STEPS[$name]}"
    for s in "${steps[@]}"; do
        s=$(echo "$s" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//; s/[[:space:]][[:space:]]*/ /g')
        [[ -n $s ]] || die "case $name: empty step"
        t=$(translate_step "$s") || die "case $name: unsupported step '$s'"
        if [[ $t == CRASH ]]; then
            segs+=("$cur"); seg_ends_crash+=(1); cur=""
        else
            cur+="$t"$'\n'
        fi
    done
    if [[ -n $cur ]]; then segs+=("$cur"); seg_ends_crash+=(0); fi

    # fresh filesystem
    local img=$WORK/img/disk.img
    cp "$WORK/img/template" "$img"
    mkfs.ext4 -q -F -b "$bs" -U "$FS_UUID" \
        -E nodiscard,lazy_itable_init=0,lazy_journal_init=0,hash_seed=$HASH_SEED "$img" \
        || die "$CUR: mkfs.ext4 failed"
    LOOP=$(losetup -f --show "$img") || die "$CUR: losetup failed"
    mount_fs "$opts"
    : > "$MNT/f"
    sync

    local i k procs=() cmds=() line
    for ((i = 0; i < ${#segs[@]}; i++)); do
        k=$((i + 1))
        # run the segment: one xfs_io process per close-delimited piece
        cmds=()
        while IFS= read -r line; do
            [[ -n $line ]] || continue
            if [[ $line == CLOSE || $line == CHATTR* || $line == EVICT ]]; then
                if [[ ${#cmds[@]} -gt 0 ]]; then run_xfs_io "seg$k" "${cmds[@]}"; fi
                cmds=()
                if [[ $line == CHATTR* ]]; then
                    chattr "${line#CHATTR }" "$MNT/f" || die "$CUR: chattr ${line#CHATTR } failed"
                fi
                if [[ $line == EVICT ]]; then   # clean page cache only: no writeback
                    echo 1 > /proc/sys/vm/drop_caches || die "$CUR: drop_caches failed"
                fi
            else
                if [[ $line == mwrite* && " ${cmds[*]} " != *" $MMAP_CMD "* ]]; then
                    cmds+=("$MMAP_CMD")
                fi
                cmds+=("$line")
            fi
        done <<< "${segs[$i]}"
        if [[ ${#cmds[@]} -gt 0 ]]; then run_xfs_io "seg$k" "${cmds[@]}"; fi

        if [[ ${seg_ends_crash[$i]} -eq 1 ]]; then
            record "pre$k"
            DETAIL_LINES+=("$CUR pre$k extents=$(extents_of)")
            local mark; mark="$$-$(date +%s%N)-$k"
            kmsg_mark "$mark"
            local err=$WORK/log/shutdown.err
            xfs_io -x -r -c shutdown "$MNT" > /dev/null 2> "$err" && [[ ! -s $err ]] \
                || { cat "$err" >&2; die "$CUR crash $k: shutdown ioctl failed"; }
            umount "$MNT" || die "$CUR crash $k: umount after shutdown failed"
            mount_fs "$opts"
            record "post$k"
            DETAIL_LINES+=("$CUR post$k extents=$(extents_of)")
            DETAIL_LINES+=("$CUR post$k kmsg=$(kmsg_since "$mark")")
        else
            record final
        fi
    done

    umount "$MNT" || die "$CUR: final umount failed"
    local fout=$WORK/log/fsck.out frc=0
    e2fsck -fn "$LOOP" > "$fout" 2>&1 || frc=$?
    if [[ $frc -eq 0 ]]; then
        DETAIL_LINES+=("$CUR fsck=clean")
    else
        DETAIL_LINES+=("$CUR fsck=rc$frc $(grep -vE '^(e2fsck|Pass [0-9]|/dev/)' "$fout" | tr '\n' ' ')")
        FSCK_PROBLEMS+=("$CUR: e2fsck -fn rc=$frc")
        echo "loopcheck: WARNING: $CUR: e2fsck -fn exit $frc" >&2
        sed 's/^/  /' "$fout" >&2
    fi
    losetup -d "$LOOP" || die "$CUR: losetup -d failed"
    LOOP=""
    rm -f "$img"
    local t1; t1=$(date +%s.%N)
    RUN_TIMES+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $CUR")
    CUR=""
}

# ---------------------------------------------------------------- main loop
T_START=$(date +%s.%N)
for name in "${CASE_NAMES[@]}"; do
    for bs in "${BLOCKSIZES[@]}"; do
        for mode in "${MODES[@]}"; do
            run_case "$name" "$bs" "$mode"
        done
    done
    printf '.' >&2
done
echo >&2
T_END=$(date +%s.%N)

# ---------------------------------------------------------------- write output
if [[ -z $OUT ]]; then
    if [[ -z $FILTER ]]; then OUT=$SCRIPT_DIR/ground-truth-$KVER.txt; else OUT=/dev/null; fi
fi
if [[ -z $DETAILS ]]; then
    if [[ $OUT == /dev/null ]]; then DETAILS=/dev/null; else DETAILS=${OUT%.txt}.details.txt; fi
fi

header() {
    echo "# ext4sim ground truth from a real ext4 on a loop device (tests/kernel/loopcheck.sh)"
    echo "# uname -r: $(uname -r)"
    echo "# xfsprogs: $(xfs_io -V)"
    echo "# e2fsprogs: $(mkfs.ext4 -V 2>&1 | head -1)"
    echo "# command: $ORIG_CMD"
    echo "# cases: $(basename "$CASEFILE") ($(sha256sum "$CASEFILE" | cut -c1-16))"
    echo "# mkfs: mkfs.ext4 -q -F -b BS -U $FS_UUID -E nodiscard,lazy_itable_init=0,lazy_journal_init=0,hash_seed=$HASH_SEED (64 MiB image pre-filled with 0xee)"
    echo "# mount: -o data=ordered|data=ordered,nodelalloc|data=writeback|data=journal + ,$COMMON_OPTS"
    echo "# sysctl: vm.dirty_writeback_centisecs=0 vm.dirty_expire_centisecs=360000 vm.dirty_background_bytes=268435456 vm.dirty_bytes=419430400"
    echo "# format: CASE BS MODE POINT size=N runs=HEX*COUNT,... (preN = page cache before crash N, postN = after shutdown+remount, final = end)"
}
if [[ $OUT != /dev/null ]]; then
    { header; printf '%s\n' "${RECORDS[@]}"; } > "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
fi
if [[ $DETAILS != /dev/null ]]; then
    { header | sed '1s/ground truth/ground truth details (extents: LOGICAL+LEN@PHYSICAL in fs blocks, filefrag -v)/'
      printf '%s\n' "${DETAIL_LINES[@]}"; } > "$DETAILS.tmp" && mv "$DETAILS.tmp" "$DETAILS"
fi

# ---------------------------------------------------------------- summary table
CONFIG_COLS=()
for bs in "${BLOCKSIZES[@]}"; do for mode in "${MODES[@]}"; do CONFIG_COLS+=("$bs/$mode"); done; done
printf '%s\n' "${RECORDS[@]}" | awk -v cols="${CONFIG_COLS[*]}" '
    BEGIN {
        nc = split(cols, col, " ")
        abbrev["ordered"] = "ord"; abbrev["ordered-nodelalloc"] = "ord-nodel"; abbrev["writeback"] = "wb"; abbrev["journal"] = "jnl"
    }
    {
        key = $1 " " $4; cfg = $2 "/" $3
        if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
        sz = substr($5, 6); r = substr($6, 6)
        size[key, cfg] = sz; runs[key, cfg] = r
    }
    END {
        printf "%-32s %-6s", "case", "point"
        for (c = 1; c <= nc; c++) { split(col[c], p, "/"); printf " %-12s", (p[1] == 1024 ? "1k" : "4k") "/" abbrev[p[2]] }
        printf "\n"
        ndiff = 0
        for (i = 1; i <= nk; i++) {
            key = order[i]; split(key, kp, " ")
            nl = 0; delete letter; delete lrun
            for (c = 1; c <= nc; c++) {
                r = runs[key, col[c]]
                if (!(r in letter)) { letter[r] = sprintf("%c", 65 + nl); lrun[nl] = r; nl++ }
            }
            mark = (nl > 1) ? "*" : " "
            printf "%-32s %-6s", kp[1] (mark == "*" ? " *" : ""), kp[2]
            for (c = 1; c <= nc; c++) printf " %-12s", size[key, col[c]] ":" letter[runs[key, col[c]]]
            printf "\n"
            for (l = 0; l < nl; l++) {
                s = lrun[l]; if (length(s) > 110) s = substr(s, 1, 107) "..."
                printf "      %c = %s\n", 65 + l, (s == "" ? "(empty)" : s)
            }
            if (nl > 1) ndiff++
        }
        printf "\n%d record rows, %d where configurations differ (marked *). Cells: size:content-letter.\n", nk, ndiff
    }'

TOTAL=$(awk -v a="$T_START" -v b="$T_END" 'BEGIN { printf "%.2f", b - a }')
NRUNS=${#RUN_TIMES[@]}
echo
echo "runs: $NRUNS  total: ${TOTAL}s  mean: $(awk -v t="$TOTAL" -v n="$NRUNS" 'BEGIN { printf "%.3f", t / n }')s/run  slowest: $(printf '%s\n' "${RUN_TIMES[@]}" | sort -rn | head -1)"
if [[ ${#FSCK_PROBLEMS[@]} -gt 0 ]]; then
    echo "e2fsck problems:"; printf '  %s\n' "${FSCK_PROBLEMS[@]}"
else
    echo "e2fsck -fn: clean after every run"
fi
[[ $OUT == /dev/null ]] || echo "wrote $OUT and $DETAILS"
