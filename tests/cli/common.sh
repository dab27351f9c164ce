# SPDX-License-Identifier: MIT
# Sourced (not run) by every tests/cli/*_test.sh. Gives the script:
#   $tmp                  a fresh directory, removed on exit
#   SHADERBAKE_CACHE_DIR  $tmp/default-cache, so no run ever touches the user's artifact cache
#   check NAME COMMAND... runs COMMAND; its exit status passes or fails the check named NAME
#   json_field FILE EXPR  prints the Python expression EXPR, in which d is FILE's parsed JSON
#   flip_bits FILE AT MASK  XORs byte AT of FILE (a negative AT counts from the end) with MASK
#   finish NAME           prints the tally; its status is the script's (last command: `finish NAME`)
# Checks never stop the script (no `set -e`): one run reports every failing check.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SHADERBAKE_CACHE_DIR="$tmp/default-cache"
failures=0
passed=0

check() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "FAIL: $name" >&2
    failures=$((failures + 1))
  fi
}

json_field() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

flip_bits() {
  python3 - "$@" <<'PY'
import sys
path, at, mask = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 0)
data = bytearray(open(path, "rb").read())
data[at] ^= mask
open(path, "wb").write(data)
PY
}

finish() {
  echo "$1: $passed passed, $failures failed"
  test "$failures" -eq 0
}
