#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Route benchmark: the cost of the nv2a fallback route (one ubershader per family) next to the exact route
# (one straight-line shader per program), pipeline creation and fragment cost, on one Vulkan device.
# Usage: bench/route_bench.sh [route_bench options]
#   bench/route_bench.sh                                   lavapipe (Mesa's CPU driver), the defaults
#   bench/route_bench.sh --device nvidia --json route.json an NVIDIA GPU, figures also as JSON
#   bench/route_bench.sh --texture-shader                  programs running every texture-shader mode
#   bench/route_bench.sh --help                            every option
#
# Driver shader caches off, so that every pipeline creation is a cold compile:
#   MESA_SHADER_CACHE_DISABLE=true  Mesa's disk cache (lavapipe, radv, anv)
#   __GL_SHADER_DISK_CACHE=0        the NVIDIA driver's disk cache
# The binary sets both itself too, before it creates the Vulkan instance. It uses no VkPipelineCache, and
# it gives every pipeline modules no driver has seen in the process (an OpSourceExtension salt; --no-salt
# turns that off), which an in-memory cache keyed by module contents cannot answer.
#
# Where this checkout has a build/ configured for it and cmake, the script builds route_bench first. Copied to
# another machine (an NVIDIA one, say) with a binary built elsewhere, it runs, in this order: $ROUTE_BENCH,
# route_bench next to this script, build/bench/route_bench. The binary reads no files; it needs
# libvulkan.so.1 with a driver (VK_DRIVER_FILES may point at its ICD manifest), libxxhash.so.0 and a
# libstdc++ at least as new as Debian 12's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

export MESA_SHADER_CACHE_DISABLE=true
export __GL_SHADER_DISK_CACHE=0

bin=${ROUTE_BENCH:-}
if [[ -z $bin ]]; then
  # Build only a build/ configured for this very checkout (a copied one names another source directory).
  if grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$root" "$root/build/CMakeCache.txt" 2>/dev/null &&
    command -v cmake >/dev/null; then
    cmake --build "$root/build" --target route_bench >&2
    bin=$root/build/bench/route_bench
  elif [[ -x $here/route_bench ]]; then
    bin=$here/route_bench
  elif [[ -x $root/build/bench/route_bench ]]; then
    bin=$root/build/bench/route_bench
  else
    echo "error: no route_bench binary: configure build/ (cmake -S . -B build -G Ninja), or set ROUTE_BENCH" >&2
    exit 2
  fi
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
if command -v nvidia-smi >/dev/null; then
  echo "nvidia: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
fi
exec "$bin" "$@"
