#!/bin/sh
# parallel-explore.sh - one exploration's shards run on several hosts by GNU parallel
# (--sshlogin), then merged (docs/explore.md, "Shards").
#
# usage: docs/cluster/parallel-explore.sh LOGINS N DIR EXPLORE-FLAGS...
#   LOGINS  parallel's --sshlogin list, JOBS/HOST separated by commas (e.g. 2/host1,2/host2;
#           ":" is this machine)
#   N       the shards: --shard I/N for I = 0 .. N-1, as parallel's jobs
#   DIR     a directory at the same path on every host (a shared checkout or volume):
#           the shards' reports DIR/rI.json and the merged report DIR/merged.json
#   EXPLORE-FLAGS  explore's flags but --shard and --json (words without spaces or shell
#           characters: they pass through the remote shell as they are)
# Each host runs in the directory this script was started in (parallel --workdir .).
# Environment: EXT4SIM, the ext4sim binary on the hosts and here (default: ext4sim on the
# PATH); PARALLEL_SSH, a command for parallel to use instead of ssh (its --ssh option; the
# tests use one that runs the command on this machine).  Each shard's stderr is kept in
# DIR/rI.err.  Exit status: parallel's (the number of failed shards), 1 when a shard left no
# report (parallel counts a job its remote side never started as a success), or merge's.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 LOGINS N DIR EXPLORE-FLAGS..." >&2; exit 2; }
logins=$1 n=$2 dir=$3
shift 3
sim=${EXT4SIM:-ext4sim}
mkdir -p "$dir"
rm -f "$dir"/r*.json "$dir"/r*.err "$dir/merged.json"
shards=$(seq 0 $((n - 1)))
# shellcheck disable=SC2086
parallel ${PARALLEL_SSH:+--ssh "$PARALLEL_SSH"} --sshlogin "$logins" --workdir . \
	"$sim" explore "$@" --shard "{}/$n" --json ">" "$dir/r{}.json" "2>" "$dir/r{}.err" ::: $shards
for i in $shards; do
	[ -s "$dir/r$i.json" ] || { echo "$0: shard $i/$n wrote no report ($dir/r$i.json)" >&2; exit 1; }
done
# shellcheck disable=SC2046
"$sim" merge --json $(for i in $shards; do echo "$dir/r$i.json"; done) > "$dir/merged.json"
