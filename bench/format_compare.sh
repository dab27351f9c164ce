#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bundle format 2 against the current format (4), side by side in one run, on the trace of bench/bundle_size.sh:
#   sizes  the whole file and each section of both bundles (read from the files' own section tables, so no
#          tool's output format matters), with the ratio and how many times smaller than the raw SPIR-V;
#   speed  each build's own bench/bundle_bench (open, probe, module read) against its own bundle, run in
#          alternation (baseline, current, baseline, current, ...) so that a noisy stretch of the machine hits
#          both; medians of every repetition of every round, side by side, for the benchmarks both builds have.
# The baseline is a commit holding format 2, checked out as a git worktree and built under
# $TMPDIR/shaderbake-bench/format2-{src,build} (created once, reused after); the current tree's build is
# BUILD_DIR (default build/).
# Usage: bench/format_compare.sh [options] [-- bundle_bench options]
#   --baseline COMMIT     the format 2 commit (default 7d7cc90)
#   --current-build DIR   build directory of the current side (default BUILD_DIR, else build/); any build of
#                         this repository, e.g. the baseline's own to check this script against itself
#   --no-build            build nothing: use the binaries already in both build directories
#   --rounds N            bundle_bench runs per side, alternating (default 2)
#   --no-bench            sizes only
#   --save                the summary to bench/results/format_compare_<date>[<letter>].txt and the raw bundle_bench
#                         output beside it, ..._{format2,current}.txt (default: the work directory only)
#   options after --      go to both bundle_bench runs (e.g. --sbk-sizes=1000 --benchmark_filter=read_module)
# JOBS caps the build's parallel jobs; TMPDIR picks the work directory. Prints figures; asserts nothing about
# size or time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '3,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

baseline=7d7cc90
build_dir=${BUILD_DIR:-$root/build}
do_build=1
do_bench=1
rounds=2
save=0
bench_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --baseline) baseline=${2:?--baseline needs a commit}; shift 2 ;;
    --baseline=*) baseline=${1#*=}; shift ;;
    --current-build) build_dir=${2:?--current-build needs a directory}; shift 2 ;;
    --current-build=*) build_dir=${1#*=}; shift ;;
    --no-build) do_build=0; shift ;;
    --no-bench) do_bench=0; shift ;;
    --rounds) rounds=${2:?--rounds needs a count}; shift 2 ;;
    --rounds=*) rounds=${1#*=}; shift ;;
    --save) save=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "format_compare.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "format_compare.sh: --rounds needs a positive count" >&2; exit 2; }
build_dir=$(realpath -m "$build_dir")

bench_root=${TMPDIR:-/tmp}/shaderbake-bench
work=$bench_root/bundle
old_src=$bench_root/format2-src
old_build=$bench_root/format2-build
mkdir -p "$work"

targets=(shaderbake shaderbake-tracegen extract_modules bundle_bench)
jobs=()
[[ -n ${JOBS:-} ]] && jobs=(-j "$JOBS")

# ---- the baseline worktree and both builds ----
commit=$(git -C "$root" rev-parse --verify "$baseline^{commit}")
if [[ -e $old_src ]]; then
  # Reuse it only when it is a worktree of this repository; move it to the commit when it is elsewhere and clean.
  if [[ $(git -C "$old_src" rev-parse --show-toplevel 2>/dev/null || true) != "$(realpath "$old_src")" ||
        $(git -C "$old_src" rev-parse --path-format=absolute --git-common-dir) != \
        "$(git -C "$root" rev-parse --path-format=absolute --git-common-dir)" ]]; then
    echo "format_compare.sh: $old_src exists and is not a worktree of $root: remove it" >&2
    exit 1
  fi
  if [[ $(git -C "$old_src" rev-parse HEAD) != "$commit" ]]; then
    if [[ -n $(git -C "$old_src" status --porcelain --untracked-files=no) ]]; then
      echo "format_compare.sh: $old_src has local changes and is not at $baseline: remove it" >&2
      exit 1
    fi
    echo "format_compare.sh: moving $old_src to $baseline" >&2
    git -C "$old_src" checkout -q --detach "$commit"
  fi
else
  mkdir -p "$bench_root"
  # -f: a worktree removed by hand but still registered is added again.
  git -C "$root" worktree add -f -q --detach "$old_src" "$commit" >&2
fi
if ((do_build)); then
  # The baseline is built once without its test suite (nothing here runs it); later runs rebuild the targets.
  [[ -f $old_build/CMakeCache.txt ]] || BUILD_DIR=$old_build "$old_src/scripts/build" -DSHADERBAKE_BUILD_TESTS=OFF >&2
  cmake --build "$old_build" "${jobs[@]}" --target "${targets[@]}" >&2
  [[ -f $build_dir/CMakeCache.txt ]] || BUILD_DIR=$build_dir "$root/scripts/build" >&2
  cmake --build "$build_dir" "${jobs[@]}" --target "${targets[@]}" >&2
fi
for d in "$old_build" "$build_dir"; do
  for t in shaderbake bench/bundle_bench; do
    [[ -x $d/$t ]] || { echo "format_compare.sh: no $d/$t (build it, or drop --no-build)" >&2; exit 1; }
  done
done
source_of() { sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null; }
describe() { # build dir: its source tree, commit and whether that tree has local changes
  local src
  src=$(source_of "$1")
  [[ -n $src ]] || { echo "$1"; return; }
  local rev dirty=""
  rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "?")
  [[ -n $(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null) ]] && dirty=" + local changes"
  echo "$1 (source $src at $rev$dirty)"
}

# ---- the trace (bench/bundle_size.sh's) ----
trace=$work/seed12.jsonl
if [[ ! -f $trace ]]; then
  tracegen=$build_dir/samples/shaderbake-tracegen
  [[ -x $tracegen ]] || tracegen=$old_build/samples/shaderbake-tracegen
  "$tracegen" --seed 12 --frames 6000 --draws-per-frame 60 --states 8000 -o "$trace"
fi

# With --save, this run's tag (the date, then a letter for a later run on the same day: the first letter no file
# of bench/results/ uses yet) names the summary printed from here on and the raw outputs.
tag=$(date +%F)
if ((save && do_bench)); then
  results=$root/bench/results
  mkdir -p "$results"
  for letter in "" b c d e f g h i j k l m n o p q r s t u v w x y z; do
    compgen -G "$results/format_compare_$(date +%F)${letter}[._]*" >/dev/null || { tag=$(date +%F)$letter; break; }
  done
  summary=$results/format_compare_$tag.txt
  exec > >(tee "$summary")
  tee_pid=$!
  trap 'exec >&-; wait "$tee_pid"' EXIT # the summary is whole when the script returns
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
echo "trace: samples/generate --seed 12 --frames 6000 --draws-per-frame 60 --states 8000 ($(stat -c %s "$trace") bytes)"
echo "baseline (format2): $(describe "$old_build")"
echo "current:  $(describe "$build_dir")"

# ---- the two bundles ----
export MESA_SHADER_CACHE_DISABLE=true
build_bundle() { # build dir, name
  local rc=0
  "$1/shaderbake" build --no-cache --json "$trace" -o "$work/$2.sbk" >"$work/$2_build.json" 2>"$work/$2_build.err" || rc=$?
  # Exit 1 is a build with per-key failures (keys whose emitter is not implemented yet): the bundle is written.
  if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    echo "format_compare.sh: $1/shaderbake build exited $rc:" >&2
    cat "$work/$2_build.err" >&2
    exit "$rc"
  fi
  echo "$rc" >"$work/$2_build.rc"
}
build_bundle "$old_build" format2
build_bundle "$build_dir" current

echo
python3 - "$work" <<'EOF'
import json, os, struct, sys

work = sys.argv[1]
NAMES = {1: "META", 2: "INDEX", 3: "RECORDS", 4: "MODULES", 5: "MODULE_DATA", 6: "DICTIONARY", 7: "LAYOUTS",
         8: "REPORT", 9: "DRIVER_CACHE", 10: "DYNAMIC_FALLBACKS", 11: "PREWARM", 12: "SHADER_KEYS",
         13: "HOST_STATES", 14: "HOST_STATE_PARTS", 15: "SPECIALIZATION_DATA"}
MAGIC = b"\x89SBK\r\n\x1a\n"

def read_bundle(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 64 or data[:8] != MAGIC:
        sys.exit(f"format_compare.sh: {path} is not a bundle")
    major, minor, header_size = struct.unpack_from("<HHI", data, 8)
    (count,) = struct.unpack_from("<I", data, 24)
    if header_size + 32 * count > len(data):
        sys.exit(f"format_compare.sh: {path}: the section table runs past the file")
    sections = {}
    for i in range(count):
        kind, _flags, offset, size, _check = struct.unpack_from("<IIQQQ", data, header_size + 32 * i)
        if offset + size > len(data):
            sys.exit(f"format_compare.sh: {path}: section type {kind} runs past the file")
        sections[kind] = sections.get(kind, 0) + size
    return {"major": major, "minor": minor, "file": len(data), "sections": sections,
            "table": header_size + 32 * count}

sides = []
for name in ("format2", "current"):
    b = read_bundle(os.path.join(work, name + ".sbk"))
    with open(os.path.join(work, name + "_build.json")) as f:
        b["build"] = json.load(f)
    with open(os.path.join(work, name + "_build.rc")) as f:
        b["rc"] = f.read().strip()
    sides.append(b)
old, new = sides

def num(b, k):
    v = b["build"].get(k)
    return "?" if v is None else v

for label, b in (("format2", old), ("current", new)):
    print(f"{label}: format {b['major']}.{b['minor']}, {b['file']} bytes, {len(b['sections'])} sections; "
          f"build exit {b['rc']}, {num(b, 'failures')} failed keys, {num(b, 'specializations')} exact keys, "
          f"{num(b, 'modules')} modules, {num(b, 'raw_module_bytes')} raw SPIR-V bytes")
raw = [b["build"].get("raw_module_bytes") for b in sides]
if raw[0] != raw[1]:
    print(f"note: the two builds report different raw SPIR-V ({raw[0]} and {raw[1]} bytes): each side's x raw uses its own")
print()

c2, c3 = (f"format {b['major']}.{b['minor']}" for b in sides)
print(f"ratio = {c3} / {c2}; x raw = raw SPIR-V / size (how many times smaller than raw)")
print(f"| what | {c2} bytes | {c3} bytes | ratio | x raw, {c2} | x raw, {c3} |")
print("|---|---:|---:|---:|---:|---:|")

def cell(v):
    return "-" if v is None else f"{v:,}"

def ratio(a, b):
    return f"{b / a:.3f}" if a and b is not None else "-"

def xraw(r, v):
    return f"{r / v:.2f}x" if r and v else ""

def row(label, a, b, with_raw=False):
    xa = xraw(raw[0], a) if with_raw else ""
    xb = xraw(raw[1], b) if with_raw else ""
    print(f"| {label} | {cell(a)} | {cell(b)} | {ratio(a, b)} | {xa} | {xb} |")

row("raw SPIR-V, every module once (raw_module_bytes)", raw[0], raw[1])
row("whole file", old["file"], new["file"], True)
def storage(b):
    s = b["sections"]
    return s.get(5, 0) + s.get(6, 0) if 5 in s or 6 in s else None
row("modules' storage: MODULE_DATA + DICTIONARY", storage(old), storage(new), True)
row("header + section table", old["table"], new["table"])
for kind in sorted(set(old["sections"]) | set(new["sections"])):
    row(f"section {NAMES.get(kind, f'type {kind}')}", old["sections"].get(kind), new["sections"].get(kind))
pad = [b["file"] - b["table"] - sum(b["sections"].values()) for b in sides]
row("padding between sections", pad[0], pad[1])
EOF

((do_bench)) || exit 0

# ---- bundle_bench, alternating ----
((save)) || results=$work
out2=$results/format_compare_${tag}_format2.txt
out3=$results/format_compare_${tag}_current.txt
: >"$out2"
: >"$out3"
# bundle_size.sh's options (5 repetitions, aggregates on the console); every repetition goes to the JSON files
# so that the medians below are over all rounds' repetitions.
common=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=false --benchmark_display_aggregates_only=true)
run_bench() { # build dir, name, round, raw output
  local j=$work/format_compare_$2_round$3.json
  echo "== round $3: $1/bench/bundle_bench --sbk-bundle=$work/$2.sbk ${common[*]} ${bench_args[*]}" >>"$4"
  if ! "$1/bench/bundle_bench" --sbk-bundle="$work/$2.sbk" "${common[@]}" --benchmark_out="$j" \
    --benchmark_out_format=json "${bench_args[@]}" >>"$4" 2>&1; then
    echo "format_compare.sh: $1/bench/bundle_bench failed; the end of $4:" >&2
    tail -n 20 "$4" >&2
    exit 1
  fi
}
rm -f "$work"/format_compare_format2_round*.json "$work"/format_compare_current_round*.json
for ((r = 1; r <= rounds; r++)); do
  echo "bundle_bench round $r of $rounds: format2" >&2
  run_bench "$old_build" format2 "$r" "$out2"
  echo "bundle_bench round $r of $rounds: current" >&2
  run_bench "$build_dir" current "$r" "$out3"
done
echo
echo "bundle_bench raw output: $out2, $out3"
python3 - "$work" "$rounds" <<'EOF'
import glob, json, os, statistics, sys

work, rounds = sys.argv[1], int(sys.argv[2])
SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

def load(name):
    """benchmark name -> (list of per-round medians, all repetitions) of real time in ns, in run order."""
    runs = {}
    for r in range(1, rounds + 1):
        with open(os.path.join(work, f"format_compare_{name}_round{r}.json")) as f:
            doc = json.load(f)
        per = {}
        for b in doc["benchmarks"]:
            if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
                continue
            base = b.get("run_name", b["name"])
            per.setdefault(base, []).append(b["real_time"] * SCALE.get(b.get("time_unit", "ns"), 1.0))
        for base, times in per.items():
            e = runs.setdefault(base, ([], []))
            e[0].append(statistics.median(times))
            e[1].extend(times)
    return runs

old = load("format2")
new = load("current")

def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns:.3g} ns"

both = [n for n in old if n in new]
reps = {len(old[n][1]) for n in both} | {len(new[n][1]) for n in both}
print(f"bundle_bench: real time, median of every repetition of {rounds} round(s) per side "
      f"({'/'.join(map(str, sorted(reps)))} samples), rounds run alternately; "
      f"per-round medians in run order; ratio = current / format2")
print("| benchmark | format2 | current | ratio | format2 rounds | current rounds |")
print("|---|---:|---:|---:|---|---|")
for n in both:
    a, b = statistics.median(old[n][1]), statistics.median(new[n][1])
    print(f"| {n} | {fmt(a)} | {fmt(b)} | {b / a:.3f} | {' '.join(fmt(x) for x in old[n][0])} "
          f"| {' '.join(fmt(x) for x in new[n][0])} |")
for label, mine, other in (("format2", old, new), ("current", new, old)):
    only = [n for n in mine if n not in other]
    if only:
        print(f"\nonly {label} has these (ratio: against format2's read_module/dctx+prepared of the same modules, "
              f"where both have it):")
        print(f"| benchmark | {label} | ratio | rounds |")
        print("|---|---:|---:|---|")
        for n in only:
            m = statistics.median(mine[n][1])
            ref = "read_module/dctx+prepared/" + ("largest" if n.endswith("/largest") else "all")
            r = f"{m / statistics.median(old[ref][1]):.3f}" if label == "current" and ref in old else "-"
            print(f"| {n} | {fmt(m)} | {r} | {' '.join(fmt(x) for x in mine[n][0])} |")
EOF
