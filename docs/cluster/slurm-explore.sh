#!/usr/bin/env bash
# slurm-explore.sh - one shard of an ext4sim exploration per Slurm array task
# (docs/explore.md, "Scale beyond one machine").  Submit from a checkout that
# every node sees, with ext4sim built:
#
#   sbatch --array=0-63 docs/cluster/slurm-explore.sh
#   sbatch --dependency=afterok:JOBID --wrap 'build/ext4sim merge --json results/r*.json > results/merged.json'
#
# The space, the kernel and the toggle are the ones the bench measures; change EXPLORE.
#SBATCH --job-name=ext4sim-explore
#SBATCH --cpus-per-task=1
#SBATCH --output=results/slurm-%A_%a.log
set -euo pipefail
EXPLORE=${EXPLORE:---steps 6 --kinds write,persist,short,evict --block-size 1024 --kernel 5.15 --diff short_copy_zero --no-minimize}
n=${SLURM_ARRAY_TASK_COUNT:?run as an array job}
i=${SLURM_ARRAY_TASK_ID:?run as an array job}
mkdir -p results
# shellcheck disable=SC2086
build/ext4sim explore $EXPLORE --shard "$i/$n" --json > "results/r$i.json.tmp"
mv "results/r$i.json.tmp" "results/r$i.json"
