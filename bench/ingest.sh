#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Ingest benchmark over 1 GB traces in both shapes (generated reproducibly from a seed into $TMPDIR).
# Usage: bench/ingest.sh [BYTES]   (default 1000000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bytes=${1:-1000000000}
dir=${TMPDIR:-/tmp}/shaderbake-bench
mkdir -p "$dir"
"$root/scripts/build" >/dev/null
gen="$root/build/samples/shaderbake-tracegen"
[[ -f "$dir/inline_$bytes.jsonl" ]] || "$gen" --seed 7 --shape inline --target-bytes "$bytes" -o "$dir/inline_$bytes.jsonl"
[[ -f "$dir/ref_$bytes.jsonl" ]] || "$gen" --seed 7 --shape ref --target-bytes "$bytes" -o "$dir/ref_$bytes.jsonl"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
"$root/build/bench/ingest_bench" --repeat "${REPEAT:-3}" "$dir/inline_$bytes.jsonl" "$dir/ref_$bytes.jsonl"
