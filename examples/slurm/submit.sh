#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A sharded shaderbake build on Slurm: a job array of SHARDS shard builds and a merge job that runs when all
# of them succeed. Prints the two job ids (array, merge). Run it from the directory the paths are relative to.
# Usage: examples/slurm/submit.sh SHARDS OUT_DIR OUTPUT TRACE...
#   SHADERBAKE   the shaderbake binary the jobs run (default: shaderbake on the nodes' PATH)
#   extra sbatch options (partition, account, time) go in SBATCH_* variables, e.g. SBATCH_PARTITION.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ $# -lt 4 ]]; then
  echo "usage: $0 SHARDS OUT_DIR OUTPUT TRACE..." >&2
  exit 2
fi
shards=$1
out_dir=$2
output=$3
shift 3
mkdir -p "$out_dir"
array=$(sbatch --parsable --array="0-$((shards - 1))" "$here/build-shard.sbatch" "$shards" "$out_dir" "$@")
merge=$(sbatch --parsable --dependency="afterok:$array" "$here/merge.sbatch" "$out_dir" "$output")
echo "$array $merge"
