#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs what a run on the GPU machine needs (it has a driver but no build tools and no Vulkan loader) into
# .devbin/ and .gl/ of this checkout, both git-ignored locally (.git/info/exclude), for the device tool's
# `carry`:
#   .devbin/            shaderbake, shaderbake-replay, route_bench and specconst_bench built with -static-libstdc++
#                       -static-libgcc (build-device/), stripped; with --before REV, route_bench of REV too (route_bench_REV), for before/after
#   .devbin/lib/        the shared libraries they load that the machine lacks (libzstd, libxxhash, libsimdjson,
#                       libcrypto, libstdc++, libgcc_s)
#   .gl/                Debian's amd64 libvulkan1 and libglvnd packages (the NVIDIA ICD needs libglvnd)
# On the machine: for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json LD_LIBRARY_PATH=$PWD/.devbin/lib
# then e.g. `.devbin/shaderbake check-vectors --engine all --device NVIDIA tests/guests/nv2a/vectors/*.json` or
# `.devbin/route_bench --device nvidia [--texture-shader]`.
# Usage: bench/device_pack.sh [--before REV]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
before=""
if [[ ${1:-} == --before ]]; then before=${2:?--before needs a revision}; fi
cd "$root"
for p in /.devbin/ /.gl/; do grep -qxF "$p" .git/info/exclude 2>/dev/null || echo "$p" >>.git/info/exclude; done

build_static() {  # build_static SOURCE_DIR TARGETS...
  local src=$1
  shift
  CCACHE_BASEDIR=$src CCACHE_NOHASHDIR=true cmake -S "$src" -B "$src/build-device" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSHADERBAKE_WERROR=ON -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
  CCACHE_BASEDIR=$src CCACHE_NOHASHDIR=true cmake --build "$src/build-device" -j "$(nproc)" --target "$@" >&2
}

rm -rf .devbin && mkdir -p .devbin/lib
build_static "$root" shaderbake shaderbake-replay route_bench specconst_bench
cp build-device/shaderbake build-device/samples/shaderbake-replay build-device/bench/route_bench build-device/bench/specconst_bench .devbin/
if [[ -n $before ]]; then
  old=$(mktemp -d)
  git worktree add -f "$old/src" "$before" >/dev/null
  build_static "$old/src" route_bench
  cp "$old/src/build-device/bench/route_bench" ".devbin/route_bench_$before"
  git worktree remove --force "$old/src"
  rm -rf "$old"
fi
strip .devbin/shaderbake .devbin/shaderbake-replay .devbin/route_bench* .devbin/specconst_bench
for lib in libzstd.so.1 libxxhash.so.0 libsimdjson.so.14 libcrypto.so.3 libstdc++.so.6 libgcc_s.so.1; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ && !found {print $NF; found = 1}')  # no early exit: SIGPIPE under pipefail
  [[ -n $path ]] || { echo "error: $lib is not installed here" >&2; exit 1; }
  cp -L "$path" .devbin/lib/
done

mkdir -p .gl /tmp/amd64/partial
apt_amd64=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
apt-get "${apt_amd64[@]}" update >/dev/null
(cd .gl && apt-get "${apt_amd64[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null 2>&1)
du -sh .devbin .gl
