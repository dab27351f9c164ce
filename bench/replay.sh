#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The published replay run: a generated play session, a bundle built from a capture of it, warmed on this
# machine's GPU (`shaderbake warm`), then `shaderbake-replay --mode all`: no bundle, the bundle, the runtime
# router over the bundle (hybrid), and both with the bundle's driver cache, side by side on one device in one
# process (samples/replay/README.md).
#
# Usage: bench/replay.sh [options] [-- extra shaderbake-replay options]
#   --device SUBSTRING     Vulkan device (default: lavapipe); on the H200 machine: --device nvidia
#   --capture PERCENTS     comma-separated capture sizes, in percent of the session's frames (default 100,80):
#                          one bundle, warm and replay each. 100: the bundle holds every state the session draws
#                          (the stall figures of a fully covered game); below 100 the last frames meet states no
#                          capture saw, which the fallback route serves (or, when it cannot, a compile now)
#   --frames N --draws-per-frame N --states N --seed N   the generated session (defaults 3000, 20, 800, 1)
#   --out DIR              where the trace, bundles and reports go (default $TMPDIR/shaderbake-replay-bench)
#   --validate             run the replay under the validation layer (slower pipeline creation: not for timing)
#   --workers N            the router modes' worker threads (default: the replay's, 8 capped at the cores less one)
#   --worker-scaling       also replay mode hybrid with 1, 2, 4 and 8 workers on the first capture's bundle: its
#                          load time (sbk_router_create + sbk_router_load) and promotion latency by worker count
#   --compare-pixels       read back every frame in modes bundle and hybrid(+cache) and compare them (slower)
#   --frame-interval-ms MS pace the frames as a game at a fixed rate does (16.667: 60 Hz): the router's workers
#                          get the wall-clock time between frames a game gives them (default 0: frames run back to
#                          back, a session of 3,000 frames in well under a second on a GPU: promotion's worst case)
# Output: the text reports on stdout; DIR/replay_<percent>.json (with per-frame figures), .txt and .html (the
# coverage page with the replay's stalls per mode: `report coverage --html --replay`); with
# --worker-scaling DIR/workers_<n>.json and a table on stdout.
#
# Driver disk caches are off for the replay (it sets MESA_SHADER_CACHE_DISABLE=true and __GL_SHADER_DISK_CACHE=0
# itself) and for the warm step (so the blob holds what the driver compiled in that process).
#
# Binaries: $SHADERBAKE, $SHADERBAKE_REPLAY, $SHADERBAKE_TRACEGEN, else build/ (or $BUILD_DIR), which this
# script builds first when it is configured for this checkout and cmake is there. On a machine without a build
# (the H200 one) carry the three binaries and set the variables; they need libvulkan.so.1 with a driver
# (VK_DRIVER_FILES may name its ICD manifest), libzstd, libxxhash and libsimdjson.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

device=""
captures="100,80"
frames=3000
draws_per_frame=20
states=800
seed=1
out=${TMPDIR:-/tmp}/shaderbake-replay-bench
validate=0
workers=""
worker_scaling=0
compare_pixels=0
frame_interval_ms=0
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --device) device=$2; shift 2 ;;
    --capture) captures=$2; shift 2 ;;
    --frames) frames=$2; shift 2 ;;
    --draws-per-frame) draws_per_frame=$2; shift 2 ;;
    --states) states=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --validate) validate=1; shift ;;
    --workers) workers=$2; shift 2 ;;
    --worker-scaling) worker_scaling=1; shift ;;
    --compare-pixels) compare_pixels=1; shift ;;
    --frame-interval-ms) frame_interval_ms=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '3,33p' "$0"; exit 0 ;;
    *) echo "error: unknown option $1 (bench/replay.sh --help)" >&2; exit 2 ;;
  esac
done

build_dir=${BUILD_DIR:-$root/build}
if [[ -z ${SHADERBAKE:-} || -z ${SHADERBAKE_REPLAY:-} || -z ${SHADERBAKE_TRACEGEN:-} ]]; then
  if grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$root" "$build_dir/CMakeCache.txt" 2>/dev/null && command -v cmake >/dev/null; then
    cmake --build "$build_dir" --target shaderbake shaderbake-replay shaderbake-tracegen >&2
  fi
fi
shaderbake=${SHADERBAKE:-$build_dir/shaderbake}
replay=${SHADERBAKE_REPLAY:-$build_dir/samples/shaderbake-replay}
tracegen=${SHADERBAKE_TRACEGEN:-$build_dir/samples/shaderbake-tracegen}
for b in "$shaderbake" "$replay" "$tracegen"; do
  [[ -x $b ]] || { echo "error: $b is not there: build it (scripts/build) or set SHADERBAKE, SHADERBAKE_REPLAY, SHADERBAKE_TRACEGEN" >&2; exit 2; }
done
device_args=()
[[ -n $device ]] && device_args=(--device "$device")
validation_args=(--no-validation)
[[ $validate -eq 1 ]] && validation_args=()
router_args=()
[[ -n $workers ]] && router_args+=(--workers "$workers")
[[ $compare_pixels -eq 1 ]] && router_args+=(--compare-pixels)
pacing_args=(--frame-interval-ms "$frame_interval_ms")

export MESA_SHADER_CACHE_DISABLE=true __GL_SHADER_DISK_CACHE=0
mkdir -p "$out"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
if command -v nvidia-smi >/dev/null; then
  echo "nvidia: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
fi

session=$out/session.jsonl
"$tracegen" --seed "$seed" --shape ref --frames "$frames" --draws-per-frame "$draws_per_frame" --states "$states" \
  --title "shaderbake replay bench session" -o "$session"

IFS=, read -r -a percents <<<"$captures"
for pct in "${percents[@]}"; do
  echo
  echo "== capture: the first $pct% of $frames frames"
  capture=$out/capture_$pct.jsonl
  bundle=$out/bundle_$pct.sbk
  # The capture: every record but the draws of frames past the cut (ref shape: state records may stay unused).
  awk -v cut=$((frames * pct / 100)) '/"type":"draw"/ && match($0, /"frame":[0-9]+/) {
      if (substr($0, RSTART + 8, RLENGTH - 8) + 0 >= cut) next
    } { print }' "$session" >"$capture"
  rc=0
  "$shaderbake" build "$capture" -o "$bundle" --cache-dir "$out/cache" >"$out/build_$pct.txt" 2>&1 || rc=$?
  # 1 is normal: programs with texture modes the exact emitter does not implement yet are reported and skipped.
  [[ $rc -le 1 ]] || { cat "$out/build_$pct.txt" >&2; exit "$rc"; }
  grep -v '^error: exact key' "$out/build_$pct.txt" | tail -n 3
  "$shaderbake" warm "$bundle" "${device_args[@]}" | tee "$out/warm_$pct.txt" ||
    echo "warning: shaderbake warm exited non-zero (see above)" >&2
  # Mode none does not depend on the bundle: it runs with the first capture only.
  modes=all
  [[ $pct == "${percents[0]}" ]] || modes=bundle,hybrid,bundle+cache,hybrid+cache
  rc=0
  "$replay" "$session" --bundle "$bundle" --mode "$modes" "${device_args[@]}" "${validation_args[@]}" "${router_args[@]}" "${pacing_args[@]}" \
    --json-out "$out/replay_$pct.json" --per-frame "${extra[@]}" | tee "$out/replay_$pct.txt" || rc=$?
  [[ $rc -eq 0 ]] || echo "warning: shaderbake-replay exited $rc (see above and $out/replay_$pct.json)" >&2
  # The run's page: the session's first uses against this bundle, with the replay's stalls per mode.
  "$shaderbake" report coverage "$bundle" --traces "$session" --html "$out/replay_$pct.html" --replay "$out/replay_$pct.json" \
    >/dev/null || echo "warning: the coverage page of capture $pct% was not written" >&2
  echo "page: $out/replay_$pct.html"
done

if [[ $worker_scaling -eq 1 ]]; then
  bundle=$out/bundle_${percents[0]}.sbk
  echo
  echo "== worker scaling: mode hybrid on the ${percents[0]}% capture's bundle"
  for n in 1 2 4 8; do
    rc=0
    "$replay" "$session" --bundle "$bundle" --mode hybrid --workers "$n" "${device_args[@]}" "${validation_args[@]}" "${pacing_args[@]}" \
      --json-out "$out/workers_$n.json" "${extra[@]}" >"$out/workers_$n.txt" || rc=$?
    [[ $rc -eq 0 ]] || echo "warning: shaderbake-replay --workers $n exited $rc (see $out/workers_$n.txt)" >&2
  done
  python3 - "$out" <<'EOF'
import json, sys
print(f"{'workers':>7} {'load ms':>9} {'router load ms':>15} {'worker CPU ms (load)':>21} {'promotion ms p50/p99':>21} {'ready before demand':>20}")
for n in (1, 2, 4, 8):
    try:
        m = json.load(open(f"{sys.argv[1]}/workers_{n}.json"))["modes"][0]
    except (OSError, ValueError, KeyError, IndexError):
        print(f"{n:>7} (no report)")
        continue
    r = m["router"]
    p = r["promotions"]["ms"]
    promotion = f"{p['p50']:.1f}/{p['p99']:.1f}" if r["promotions"]["count"] else "- (none)"
    ratio = r["ready_before_demand_ratio"]
    print(f"{r['workers']:>7} {m['load_ms']:>9.1f} {r['load_ms']:>15.1f} {r['worker_cpu_ms']['load']:>21.1f} "
          f"{promotion:>21} {'-' if ratio is None else format(ratio, '.3f'):>20}")
EOF
fi
