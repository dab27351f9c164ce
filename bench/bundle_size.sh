#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bundle size against the alternatives, on one generated trace, in one table:
#   raw SPIR-V of the bundle's modules (each stored once), plain per-module `zstd -19` of each module (with the
#   CLI's default 4-byte checksum, and with --no-check as the bundle's frames have none), `zstd -19` of all
#   modules concatenated (the bound without random access), the bundle's dictionary frames + dictionary, and
#   the whole bundle file (which also holds the index, a row per entry and the keys and host states the rows
#   refer to), plus the SPIR-V a store without module dedupe would hold (each entry's modules counted once per
#   entry).
# Usage: bench/bundle_size.sh [--bundle-bench [bundle_bench options]]
#   --bundle-bench  then runs build/bench/bundle_bench (open, probe, module read; medians of 5 repetitions)
#                   with this bundle's modules as the real ones; the options after it go to bundle_bench.
# BUILD_DIR picks the build directory (default build/), TMPDIR the work directory. Prints figures; asserts
# nothing about size or time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
run_bundle_bench=0
if [[ ${1:-} == --bundle-bench ]]; then
  run_bundle_bench=1
  shift
fi
work=${TMPDIR:-/tmp}/shaderbake-bench/bundle
mkdir -p "$work"

targets=(shaderbake shaderbake-tracegen extract_modules)
((run_bundle_bench)) && targets+=(bundle_bench)
[[ -f $build_dir/CMakeCache.txt ]] || BUILD_DIR=$build_dir "$root/scripts/build" >&2
cmake --build "$build_dir" --target "${targets[@]}" >&2

trace=$work/seed12.jsonl
[[ -f $trace ]] || "$build_dir/samples/shaderbake-tracegen" --seed 12 --frames 6000 --draws-per-frame 60 --states 8000 -o "$trace"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(zstd --version | grep -o 'v[0-9.]*' | head -n1 | sed 's/^/zstd /')"
echo "trace: samples/generate --seed 12 --frames 6000 --draws-per-frame 60 --states 8000 ($(stat -c %s "$trace") bytes)"
bundle=$work/size.sbk
# Exit 1 is a build with per-key failures (keys whose emitter is not implemented yet): the bundle is written.
rc=0
"$build_dir/shaderbake" build --no-cache --json "$trace" -o "$bundle" >"$work/size_build.json" 2>"$work/size_build.err" || rc=$?
if [[ $rc -ne 0 && $rc -ne 1 ]]; then
  cat "$work/size_build.err" >&2
  exit "$rc"
fi
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/size_build.json" "$1"; }
echo "shaderbake build --no-cache: exit $rc, $(field failures) failed keys, $(field specializations) exact keys, $(field families) families, $(field exact_pipelines) exact + $(field fallback_pipelines) fallback pipelines"

modules=$work/modules
rm -rf "$modules" "$work/z19" "$work/z19nc"
mkdir -p "$modules" "$work/z19" "$work/z19nc"
"$build_dir/bench/extract_modules" "$bundle" "$modules" >"$work/size_sections.txt"
# Per module, as a store of one file (or one blob) per module would keep them.
(cd "$modules" && ls) >"$work/size_list.txt"
(cd "$modules" && xargs -a "$work/size_list.txt" zstd -19 -q --output-dir-flat "$work/z19")
(cd "$modules" && xargs -a "$work/size_list.txt" zstd -19 -q --no-check --output-dir-flat "$work/z19nc")
sum_dir() { find "$1" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
per_module=$(sum_dir "$work/z19")
per_module_nc=$(sum_dir "$work/z19nc")
# Bundle (content-hash) order, one stream.
concat=$(cd "$modules" && xargs -a "$work/size_list.txt" cat | zstd -19 -q -c | wc -c)

raw=$(field raw_module_bytes)
frames=$(field compressed_module_bytes)
dictionary=$(field dictionary_bytes)
file=$(stat -c %s "$bundle")
extracted=$(awk '$1 == "modules" {print $3}' "$work/size_sections.txt")
module_count=$(awk '$1 == "modules" {print $2}' "$work/size_sections.txt")
[[ $extracted == "$raw" ]] || echo "warning: extracted $extracted SPIR-V bytes, the build reported $raw" >&2
per_entry=$(awk '$1 == "entries" {s += $7} END {print s + 0}' "$work/size_sections.txt")
section() { awk -v n="$1" '$1 == "section" && $2 == n {print $3}' "$work/size_sections.txt"; }

row() { # label bytes: a whole alternative, with its ratio to raw
  awk -v l="$1" -v b="$2" -v raw="$raw" -v file="$file" \
    'BEGIN {printf "| %-58s | %10d | %9.1f KiB | %7.2fx | %5.1f%% |\n", l, b, b / 1024, raw / b, 100 * b / file}'
}
part() { # label bytes: a part of the row above
  awk -v l="$1" -v b="$2" -v file="$file" \
    'BEGIN {printf "| %-58s | %10d | %9.1f KiB | %8s | %5.1f%% |\n", "  of which " l, b, b / 1024, "", 100 * b / file}'
}
echo
echo "$module_count modules. x raw = raw SPIR-V / size (how many times smaller than raw); % file = size / bundle file"
echo "| what | bytes | | x raw | % file |"
echo "|---|---|---|---|---|"
row "raw SPIR-V, every module once (raw_module_bytes)" "$raw"
row "per-module zstd -19 (CLI defaults: + 4 B checksum each)" "$per_module"
row "per-module zstd -19 --no-check" "$per_module_nc"
row "bundle: dictionary frames + dictionary" "$((frames + dictionary))"
part "frames" "$frames"
part "dictionary" "$dictionary"
row "zstd -19 of all modules concatenated (no random access)" "$concat"
row "whole bundle file" "$file"
for s in index records shader_keys host_states host_state_parts modules layouts meta report dynamic_fallbacks prewarm \
  specialization_data; do
  b=$(section "$s")
  [[ -n $b ]] && part "section $s" "$b"
done
echo
echo "Entries (full key sizes; the bundle stores each shader key and each host-state part once):"
awk '$1 == "entries" {printf "  %-15s %6d entries, %9d key bytes (%.0f B mean)\n", $2, $3, $5, $3 ? $5 / $3 : 0}' "$work/size_sections.txt"
awk -v pe="$per_entry" -v file="$file" -v raw="$raw" \
  'BEGIN {printf "SPIR-V without module dedupe (each entry'"'"'s modules, counted per entry): %d bytes = %.1fx raw; the bundle file is %.1fx smaller than it\n", pe, pe / raw, pe / file}'

if ((run_bundle_bench)); then
  echo
  "$build_dir/bench/bundle_bench" --sbk-bundle="$bundle" --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true "$@"
fi
