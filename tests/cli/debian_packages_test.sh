#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages as a user meets them: CPack builds `shaderbake` and `libshaderbake-dev` from the build
# directory; lintian reports no error on either; apt installs both (`apt-get install ./...deb`, root or sudo);
# the installed /usr/bin/shaderbake builds the sample session; its man pages and bash completion are where
# man and bash look; tests/consumer builds against /usr with find_package and with pkg-config, and reads the
# bundle. Packages this test installed are removed at the end (ones installed before are left alone).
# Usage: debian_packages_test.sh BUILD_DIR SOURCE_ROOT
build=$(realpath "$1")
root=$(realpath "$2")
source "$(dirname "$0")/common.sh"

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo -n)
# The packages this test may remove at the end: those not installed before it ran.
ours=()
for p in shaderbake libshaderbake-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || ours+=("$p")
done
remove_packages() {
  if [[ ${#ours[@]} -gt 0 ]]; then
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get remove -y -qq "${ours[@]}" >/dev/null 2>&1
  fi
  rm -rf "$tmp"
}
trap remove_packages EXIT

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/packages" >"$tmp/cpack.out" 2>&1
rc=$?
check "cpack builds the packages ($(tail -c 300 "$tmp/cpack.out"))" test $rc -eq 0
cli_deb=$(ls "$tmp"/packages/shaderbake_*.deb 2>/dev/null | head -1)
dev_deb=$(ls "$tmp"/packages/libshaderbake-dev_*.deb 2>/dev/null | head -1)
check "shaderbake_*.deb and libshaderbake-dev_*.deb are written" test -f "$cli_deb" -a -f "$dev_deb"
check "shaderbake depends on the libraries it links (dpkg-shlibdeps)" \
  grep -q "libzstd1" <(dpkg-deb -f "$cli_deb" Depends)
check "libshaderbake-dev depends on the -dev packages its headers need" \
  test "$(dpkg-deb -f "$dev_deb" Depends)" = "libzstd-dev, libxxhash-dev"

check "lintian is installed (scripts/setup installs it)" command -v lintian
lintian --fail-on error --tag-display-limit 0 "$cli_deb" "$dev_deb" >"$tmp/lintian.out" 2>&1
rc=$?
check "lintian reports no error (exit $rc; $(grep '^E:' "$tmp/lintian.out" | head -5))" test $rc -eq 0
check "lintian read both packages" test "$(grep -c 'E:\|W:\|I:\|N:' "$tmp/lintian.out")" -gt 0

DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "$cli_deb" "$dev_deb" >"$tmp/apt.out" 2>&1
rc=$?
check "apt-get installs both packages ($(tail -c 300 "$tmp/apt.out"))" test $rc -eq 0
check "the tool is /usr/bin/shaderbake" test -x /usr/bin/shaderbake
/usr/bin/shaderbake build "$root/samples/traces/session_ref.jsonl" -o "$tmp/game.sbk" --no-cache >"$tmp/build.out" 2>&1
rc=$?
check "the installed shaderbake builds the sample session ($(tail -c 200 "$tmp/build.out"))" test $rc -eq 0
/usr/bin/shaderbake verify "$tmp/game.sbk" >"$tmp/verify.out" 2>&1
rc=$?
check "and verifies what it built" test $rc -eq 0
check "man pages: shaderbake(1) and a page per command" \
  test -f /usr/share/man/man1/shaderbake.1.gz -a -f /usr/share/man/man1/shaderbake-report-coverage.1.gz
check "the man page's NAME is the command's" grep -q "shaderbake-build \\\\- build a bundle from traces" \
  <(zcat /usr/share/man/man1/shaderbake-build.1.gz)
completion=/usr/share/bash-completion/completions/shaderbake
check "bash completion completes commands and options" test "$(bash -c "source $completion
  t() { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _shaderbake; echo \"\${COMPREPLY[*]}\"; }
  t shaderbake bu; t shaderbake build --sha; t shaderbake report c")" = "$(printf 'build\n--shard --shard-index-env\ncoverage')"

cmake -S "$root/tests/consumer" -B "$tmp/consumer" -G Ninja >"$tmp/configure.out" 2>&1
rc=$?
check "the consumer finds the installed package in /usr ($(tail -c 300 "$tmp/configure.out"))" test $rc -eq 0
check "find_package used /usr/share/cmake/shaderbake" grep -q "shaderbake_DIR:PATH=/usr/share/cmake/shaderbake" "$tmp/consumer/CMakeCache.txt"
cmake --build "$tmp/consumer" >"$tmp/consumer-build.out" 2>&1
rc=$?
check "the consumer builds against /usr ($(tail -c 300 "$tmp/consumer-build.out"))" test $rc -eq 0
"$tmp/consumer/consumer_c" "$tmp/game.sbk" >"$tmp/consumer_c.out" 2>&1
rc=$?
check "find_package: the C consumer reads the bundle ($(head -c 200 "$tmp/consumer_c.out"))" test $rc -eq 0
"$tmp/consumer/consumer_cpp" "$tmp/game.sbk" >"$tmp/consumer_cpp.out" 2>&1
rc=$?
check "find_package: the C++ consumer fills every pipeline ($(head -c 200 "$tmp/consumer_cpp.out"))" test $rc -eq 0
cc -std=c99 -Wall -Wextra -pedantic -Werror "$root/tests/consumer/consumer.c" -o "$tmp/pc_consumer" \
  $(env -u PKG_CONFIG_PATH pkg-config --cflags --libs shaderbake) >"$tmp/pc.out" 2>&1
rc=$?
check "pkg-config shaderbake from /usr: the C consumer compiles ($(head -c 300 "$tmp/pc.out"))" test $rc -eq 0
"$tmp/pc_consumer" "$tmp/game.sbk" >"$tmp/pc_consumer.out" 2>&1
rc=$?
check "pkg-config: the C consumer reads the bundle" test $rc -eq 0

finish debian_packages
