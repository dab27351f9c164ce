#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The specconst guest's real-driver figures, run ON the GPU machine over a checkout that carries what
# bench/device_pack.sh packs (.devbin/, .gl/): specconst_bench (frozen, specialized and fallback columns,
# the compute kernel) and the replay of samples/specconst/traces/session.jsonl in every mode against a frozen
# and a specialized bundle, each warmed there first. Figures go to $OUT (the device tool's output folder);
# nothing is asserted. Driver disk caches are off (cold figures).
# Usage (device tool): bench/device_pack.sh here, then run `bench/specconst_device_run.sh` with carry
# [".devbin", ".gl"]; DEVICE picks the Vulkan device by name (default nvidia).
set -u
out=${OUT:?OUT names the folder the figures go to}
device=${DEVICE:-nvidia}
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export LD_LIBRARY_PATH=$PWD/.devbin/lib MESA_SHADER_CACHE_DISABLE=true __GL_SHADER_DISK_CACHE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1
trace=samples/specconst/traces/session.jsonl
work=$(mktemp -d)
.devbin/shaderbake build "$trace" -o "$work/frozen.sbk" --cache-dir "$work/cache" >"$out/build_frozen.txt" 2>&1
echo "build frozen: exit $?"
.devbin/shaderbake build --specialize "$trace" -o "$work/specialized.sbk" --cache-dir "$work/cache" >"$out/build_specialized.txt" 2>&1
echo "build specialized: exit $?"
for bundle in frozen specialized; do
  .devbin/shaderbake warm "$work/$bundle.sbk" --device "$device" >"$out/warm_$bundle.txt" 2>&1
  echo "warm $bundle: exit $?"
  .devbin/shaderbake-replay "$trace" --bundle "$work/$bundle.sbk" --device "$device" --no-validation --mode all \
    --compare-pixels --json-out "$out/replay_$bundle.json" >"$out/replay_$bundle.txt" 2>"$out/replay_$bundle.err"
  echo "replay $bundle: exit $?"
done
.devbin/specconst_bench --shaders samples/specconst/shaders --skip-shell --device "$device" -j "$(nproc)" \
  --json "$out/specconst_bench.json" >"$out/specconst_bench.txt" 2>&1
echo "specconst_bench: exit $?"
