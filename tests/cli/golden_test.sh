#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI's text against reviewed copies in tests/golden/: `--help` of the tool and of every command
# (help/*.txt), and what a fixed set of bad inputs prints on stderr with the exit status (errors/*.txt). Paths
# of the run are written as <tmp> and <root>. A change to the CLI's text fails here until the copies are
# rewritten and the diff reviewed:
#   tests/cli/golden_test.sh build/shaderbake . --update
# Usage: golden_test.sh SHADERBAKE SOURCE_ROOT [--update]
bin=$(realpath "$1")
root=$(realpath "$2")
update=${3:-}
source "$(dirname "$0")/common.sh"
golden=$root/tests/golden
mkdir -p "$tmp/out/help" "$tmp/out/errors"
cd "$tmp" || exit 1

normalize() { sed -e "s|$tmp|<tmp>|g" -e "s|$root|<root>|g"; }

# help NAME ARGS...: stdout of `shaderbake ARGS... --help`
help() {
  local name=$1
  shift
  "$bin" "$@" --help 2>&1 | normalize >"out/help/$name.txt"
}
help shaderbake
for command in dedupe compile build merge inspect verify report warm check-vectors schema cache; do
  help "$command" "$command"
done
help report_coverage report coverage
help report_rejections report rejections
help cache_prune cache prune

# error NAME ARGS...: stderr of `shaderbake ARGS...` and its exit status
error() {
  local name=$1
  shift
  "$bin" "$@" >/dev/null 2>"out/errors/$name.err"
  local rc=$?
  { normalize <"out/errors/$name.err"; echo "exit $rc"; } >"out/errors/$name.txt"
  rm -f "out/errors/$name.err"
}
session=$root/samples/traces/session_inline.jsonl
printf '{"type":"capture","format":"shaderbake-trace/2","guest":"nv2a"}\n{"type":"draw","frame":0\nnot json\n{"type":"draw","frame":1,"draw":0,"state":"nowhere"}\n' >broken.jsonl
echo "not a bundle" >text.sbk
"$bin" build "$session" -o good.sbk --no-cache >/dev/null 2>&1
head -c 4000 good.sbk >truncated.sbk
"$bin" build "$session" -o shard0.sbk --no-cache --shard 0/2 >/dev/null 2>&1
error unknown_command frobnicate
error build_missing_trace build missing.jsonl -o out.sbk --no-cache
error build_shard_out_of_range build "$session" -o out.sbk --no-cache --shard 3/3
error build_output_is_input build "$session" -o "$session" --no-cache
error dedupe_bad_records dedupe broken.jsonl
error dedupe_strict dedupe broken.jsonl --strict
error inspect_not_a_bundle inspect text.sbk
error inspect_truncated inspect truncated.sbk
error verify_truncated verify truncated.sbk
error merge_missing_shard merge shard0.sbk -o merged.sbk
error coverage_fail_under_range report coverage good.sbk --fail-under 101
error cache_prune_bad_size cache prune --max-size 2Q
error schema_unknown schema nothing

status=0
if [[ $update == --update ]]; then
  rm -rf "$golden/help" "$golden/errors"
  mkdir -p "$golden"
  cp -r out/help out/errors "$golden/"
  echo "golden_test: rewrote $(find out -type f | wc -l) files under tests/golden/; review the diff (git diff tests/golden)"
  exit 0
fi
for f in $(cd out && find . -type f | sort); do
  check "${f#./} is as reviewed" diff -u "$golden/${f#./}" "out/$f"
done
check "no reviewed file is left without its command" \
  test "$(cd "$golden" && find help errors -type f | sort)" = "$(cd out && find help errors -type f | sort)"

finish golden
