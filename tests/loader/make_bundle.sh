#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the bundle the loader tests read (a CTest fixture): make_bundle.sh SHADERBAKE OUTPUT TRACE...
# Never touches an artifact cache (--no-cache, and SHADERBAKE_CACHE_DIR naming a directory of its own that must
# stay unused: --cache-dir with --no-cache is a contradiction the CLI refuses).
# `shaderbake build` exits 1 when some keys fail to generate and still writes the bundle (the reference trace
# has known failures), so 0 and 1 with a bundle written pass; anything else fails the fixture.
set -euo pipefail
shaderbake=$1
out=$2
shift 2
dir=$(dirname "$out")
mkdir -p "$dir"
rm -f "$out"
rc=0
SHADERBAKE_CACHE_DIR="$dir/unused-cache" "$shaderbake" build "$@" -o "$out" --no-cache >"$out.log" 2>&1 || rc=$?
if [[ $rc -ne 0 && $rc -ne 1 ]] || [[ ! -s "$out" ]]; then
  cat "$out.log" >&2
  echo "error: make_bundle.sh: shaderbake build exited $rc and wrote no bundle at $out" >&2
  exit 1
fi
if [[ -e "$dir/unused-cache" ]]; then
  echo "error: make_bundle.sh: shaderbake build --no-cache wrote to its cache directory $dir/unused-cache" >&2
  exit 1
fi
echo "make_bundle.sh: $out ($(wc -c <"$out") bytes, shaderbake build exit $rc)"
