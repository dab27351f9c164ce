#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build benchmark on one generated trace, six variants:
#   cold -j2   a fresh --cache-dir;
#   cold plain the same with --no-build-memo (what the memo costs a cold build: its digests and its store);
#   warm       no change, the same cache dir again: the build memo answers;
#   staged     the same with --no-build-memo: every stage runs, every module from the artifact cache;
#   edited     the trace with one blank line added (no new record): a memo miss, which also pays the digests;
#   cold -j1   a fresh --cache-dir on one thread.
# Every bundle but the edited one (its report names another trace file) must be byte-identical. Runs are
# interleaved (cold, cold plain, warm, staged, edited, cold -j1, then again) so that a noisy stretch of the machine hits
# every variant; medians of RUNS (default 3) each, and the ratios of the medians.
# Usage: bench/build_bench.sh        BUILD_DIR picks the build directory (default build/), RUNS the run count,
#                                    TMPDIR the work directory.
# Prints figures; asserts nothing about time (it exits 1 only when the bundles differ).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
runs=${RUNS:-3}
work=${TMPDIR:-/tmp}/shaderbake-bench/bundle
mkdir -p "$work"
[[ -f $build_dir/CMakeCache.txt ]] || BUILD_DIR=$build_dir "$root/scripts/build" >&2
cmake --build "$build_dir" --target shaderbake shaderbake-tracegen >&2

trace=$work/seed12.jsonl
[[ -f $trace ]] || "$build_dir/samples/shaderbake-tracegen" --seed 12 --frames 6000 --draws-per-frame 60 --states 8000 -o "$trace"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "trace: samples/generate --seed 12 --frames 6000 --draws-per-frame 60 --states 8000 ($(stat -c %s "$trace") bytes)"

results=$work/build_times.txt
: >"$results"
# build NAME JOBS CACHE_DIR [ARGS...]: one timed `shaderbake build` of $build_trace; appends
# "NAME wall user+sys internal_seconds hits misses memo".
build_trace=$trace
build() {
  local name=$1 jobs=$2 cache=$3 out=$work/$1.sbk rc=0 t0 t1 cpu
  shift 3
  local -a cache_args=(--cache-dir "$cache" "$@")
  [[ $cache == none ]] && cache_args=(--no-cache)
  t0=$(date +%s.%N)
  # Exit 1 is a build with per-key failures (emitters not implemented yet): the bundle is written.
  /usr/bin/env time -f '%U %S' -o "$work/$name.cpu" "$build_dir/shaderbake" build "${cache_args[@]}" -j "$jobs" --json \
    "$build_trace" -o "$out" >"$work/$name.json" 2>"$work/$name.err" || rc=$?
  t1=$(date +%s.%N)
  if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    tail -n 5 "$work/$name.err" >&2
    echo "error: $name: shaderbake build exited $rc" >&2
    exit 2
  fi
  cpu=$(tail -n 1 "$work/$name.cpu" | awk '{print $1 + $2}')  # time adds a "Command exited..." line first on exit 1
  python3 - "$name" "$t0" "$t1" "$cpu" "$work/$name.json" >>"$results" <<'EOF'
import json, sys
name, t0, t1, cpu, path = sys.argv[1:]
s = json.load(open(path))
c = s.get("cache") or {}
print(name, round(float(t1) - float(t0), 3), cpu, round(s["seconds"], 3), c.get("hits", "-"), c.get("misses", "-"),
      s.get("build_memo", "-"))
EOF
  tail -n 1 "$results"
}

echo "run: name wall_s cpu_s(user+sys) internal_s cache_hits cache_misses build_memo"
for ((i = 1; i <= runs; ++i)); do
  rm -rf "$work/cache_$i" "$work/cache_plain_$i" "$work/cache_j1_$i" "$work"/*_j2_"$i".sbk "$work"/cold_j1_"$i".sbk
  build "cold_j2_$i" 2 "$work/cache_$i"
  build "coldplain_j2_$i" 2 "$work/cache_plain_$i" --no-build-memo
  build "warm_j2_$i" 2 "$work/cache_$i"
  build "staged_j2_$i" 2 "$work/cache_$i" --no-build-memo
  # The same trace with one more blank line (no new record): a memo miss that pays both digests.
  cp "$trace" "$work/edited.jsonl" && echo >>"$work/edited.jsonl"
  build_trace=$work/edited.jsonl build "edited_j2_$i" 2 "$work/cache_$i"
  build "cold_j1_$i" 1 "$work/cache_j1_$i"
done
build nocache_j2 2 none

python3 - "$results" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
def med(prefix, col):
    return statistics.median(float(r[col]) for r in rows if r[0].startswith(prefix))
print()
print("| build | wall s (median) | cpu s (median) | internal s (median) |")
print("|---|---|---|---|")
for label, prefix in [("cold -j2 (fresh cache dir)", "cold_j2_"),
                      ("cold -j2, --no-build-memo (fresh cache dir)", "coldplain_j2_"),
                      ("warm -j2, no change (same cache dir: memo)", "warm_j2_"),
                      ("warm -j2, every stage (--no-build-memo)", "staged_j2_"),
                      ("warm -j2, trace edited (memo miss, no new state)", "edited_j2_"),
                      ("cold -j1 (fresh cache dir)", "cold_j1_"), ("--no-cache -j2 (one run)", "nocache_j2")]:
    print(f"| {label} | {med(prefix, 1):.2f} | {med(prefix, 2):.2f} | {med(prefix, 3):.2f} |")
print()
def pair_median(prefix, col):
    cold = [r for r in rows if r[0].startswith("cold_j2_")]
    other = [r for r in rows if r[0].startswith(prefix)]
    return statistics.median(float(o[col]) / float(c[col]) for c, o in zip(cold, other))
for what, col in [("wall", 1), ("cpu", 2), ("internal", 3)]:
    warm, staged, cold, j1 = med("warm_j2_", col), med("staged_j2_", col), med("cold_j2_", col), med("cold_j1_", col)
    edited = med("edited_j2_", col)
    print(f"{what:8s}: warm/cold {100 * warm / cold:5.1f}% (per-pair median {100 * pair_median('warm_j2_', col):5.1f}%); "
          f"staged warm/cold {100 * staged / cold:5.1f}% (per-pair {100 * pair_median('staged_j2_', col):5.1f}%); "
          f"edited/cold {100 * edited / cold:5.1f}%; cold -j1/-j2 {j1 / cold:4.2f}x; "
          f"cold with/without memo {cold / med('coldplain_j2_', col):5.3f}x")
EOF

echo
first=""
differ=0
bundles=("$work"/cold_j2_*.sbk "$work"/coldplain_j2_*.sbk "$work"/warm_j2_*.sbk "$work"/staged_j2_*.sbk "$work"/cold_j1_*.sbk "$work"/nocache_j2.sbk)
for f in "${bundles[@]}"; do
  if [[ -z $first ]]; then
    first=$f
  elif ! cmp -s "$first" "$f"; then
    echo "DIFFERENT: $(basename "$f") vs $(basename "$first")"
    differ=1
  fi
done
n=${#bundles[@]}
if ((differ)); then
  echo "bundles: NOT byte-identical across the $n builds"
  exit 1
fi
echo "bundles: all $n byte-identical ($(stat -c %s "$first") bytes, sha256 $(sha256sum "$first" | cut -c1-16)...)"
