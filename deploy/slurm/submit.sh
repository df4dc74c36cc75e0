#!/usr/bin/env bash
# Queues the array and, once every task has ended (afterany: a failed shard is named by the merge,
# not hidden), the merge.   deploy/slurm/submit.sh [RUN_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
export RUN_DIR=${1:-runs/sweep-$(date -u +%Y%m%dT%H%M%SZ)}
array=$(sbatch --parsable --export=ALL deploy/slurm/sweep.sbatch)
sbatch --dependency="afterany:${array%%;*}" --export=ALL deploy/slurm/merge.sbatch
echo "shards in $RUN_DIR/shard-*-of-4, merged into $RUN_DIR/merged when the array ends"
