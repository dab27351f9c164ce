#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `cmake --install` into a fresh prefix, then used as a renderer's build would use it: the installed shaderbake
# builds the sample session; tests/consumer (a project outside the tree, a C99 and a C++17 program) configures
# against the prefix with find_package(shaderbake CONFIG) and, separately, compiles through pkg-config
# (shaderbake.pc, shaderbake-vulkan.pc); both programs open the bundle, find every entry by its key, read every
# module, fill every graphics pipeline's create-info.
# Usage: install_consumer_test.sh BUILD_DIR SOURCE_ROOT
build=$(realpath "$1")
root=$(realpath "$2")
source "$(dirname "$0")/common.sh"

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.out" 2>&1
rc=$?
check "cmake --install succeeds ($(tail -c 300 "$tmp/install.out"))" test $rc -eq 0
for f in bin/shaderbake include/shaderbake/shaderbake.h include/shaderbake/shaderbake_nv2a.h \
         include/shaderbake/shaderbake_specconst.h include/shaderbake/shaderbake_spirv.h \
         include/shaderbake/shaderbake_vulkan.h include/shaderbake/shaderbake_router.h; do
  check "installed: $f" test -f "$prefix/$f"
done
config=$(find "$prefix" -name shaderbakeConfig.cmake | head -1)
pc_dir=$(dirname "$(find "$prefix" -name shaderbake.pc | head -1)")
check "installed: the CMake package" test -n "$config"
check "installed: shaderbake.pc and shaderbake-vulkan.pc" test -f "$pc_dir/shaderbake.pc" -a -f "$pc_dir/shaderbake-vulkan.pc"

"$prefix/bin/shaderbake" build "$root/samples/traces/session_ref.jsonl" -o "$tmp/game.sbk" --no-cache >"$tmp/build.out" 2>&1
rc=$?
check "the installed shaderbake builds the sample ($(tail -c 200 "$tmp/build.out"))" test $rc -eq 0

# find_package
cmake -S "$root/tests/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.out" 2>&1
rc=$?
check "the consumer configures with find_package(shaderbake) ($(tail -c 300 "$tmp/configure.out"))" test $rc -eq 0
cmake --build "$tmp/consumer" >"$tmp/consumer-build.out" 2>&1
rc=$?
check "the consumer builds against the installed package ($(tail -c 400 "$tmp/consumer-build.out"))" test $rc -eq 0
for program in consumer_c consumer_cpp; do
  "$tmp/consumer/$program" "$tmp/game.sbk" >"$tmp/$program.out" 2>&1
  rc=$?
  check "find_package: $program reads the bundle ($(head -c 300 "$tmp/$program.out"))" test $rc -eq 0
done
check "find_package: consumer_c found every entry and read every module" \
  grep -Eq '^consumer_c: ([0-9]+) of \1 entries found by key, ([0-9]+) of \2 modules read' "$tmp/consumer_c.out"

# pkg-config
export PKG_CONFIG_PATH=$pc_dir
cc -std=c99 -Wall -Wextra -pedantic -Werror "$root/tests/consumer/consumer.c" -o "$tmp/pc_consumer_c" \
  $(pkg-config --cflags --libs shaderbake) >"$tmp/pc_c.out" 2>&1
rc=$?
check "pkg-config shaderbake: the C consumer compiles ($(head -c 400 "$tmp/pc_c.out"))" test $rc -eq 0
c++ -std=c++17 -Wall -Wextra -Werror "$root/tests/consumer/consumer.cpp" -o "$tmp/pc_consumer_cpp" \
  $(pkg-config --cflags --libs shaderbake-vulkan) >"$tmp/pc_cpp.out" 2>&1
rc=$?
check "pkg-config shaderbake-vulkan: the C++ consumer compiles ($(head -c 400 "$tmp/pc_cpp.out"))" test $rc -eq 0
for program in pc_consumer_c pc_consumer_cpp; do
  "$tmp/$program" "$tmp/game.sbk" >"$tmp/$program.out" 2>&1
  rc=$?
  check "pkg-config: $program reads the bundle ($(head -c 300 "$tmp/$program.out"))" test $rc -eq 0
done
check "both ways give the same reading" cmp -s "$tmp/consumer_c.out" "$tmp/pc_consumer_c.out"

finish install_consumer
