#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI contract of `shaderbake dedupe` and `shaderbake schema`: exit codes, stdout/stderr split, JSON shape,
# and counts on a hand-checkable trace (samples/traces/tiny.json; the derivation is in samples/README.md).
# Usage: dedupe_test.sh SHADERBAKE SOURCE_ROOT
bin=$1
root=$2
source "$(dirname "$0")/common.sh"

# Usage errors exit 2.
"$bin" >/dev/null 2>&1; check "no command is a usage error" test $? -eq 2
"$bin" dedupe >/dev/null 2>&1; check "dedupe without traces is a usage error" test $? -eq 2
"$bin" dedupe "$tmp/missing.jsonl" >/dev/null 2>&1; check "a missing trace is a usage error" test $? -eq 2
"$bin" --help >"$tmp/help" 2>&1; check "--help exits 0" test $? -eq 0
check "--help lists dedupe" grep -q dedupe "$tmp/help"

# The hand-checkable sample.
"$bin" dedupe --json "$root/samples/traces/tiny.json" >"$tmp/tiny.json" 2>"$tmp/tiny.err"
check "tiny.json reads cleanly" test $? -eq 0
check "tiny.json prints no diagnostics" test ! -s "$tmp/tiny.err"
expected=$(python3 -c "import json; print(json.load(open('$root/tests/cli/tiny.expected.json'))['dedupe'])")
got=$(json_field "$tmp/tiny.json" "{k: d[k] for k in ['draws','frames','unique_exact_keys','unique_fallback_families','unique_pipeline_keys','unique_fallback_pipeline_keys']}")
check "tiny.json counts match the hand derivation ($got vs $expected)" test "$got" = "$expected"

# Bad records: skipped and counted by default (exit 0), fatal under --strict (exit 3); data on stdout only.
{
  echo '{"type":"capture","format":"shaderbake-trace/1","guest":"nv2a"}'
  echo '{"type":"draw","frame":1,"draw":0,"state":"nope"}'
  printf '%s' '{"type":"draw","frame":1,'  # cut off: no newline
} >"$tmp/bad.jsonl"
"$bin" dedupe --json "$tmp/bad.jsonl" >"$tmp/bad.out" 2>"$tmp/bad.err"
check "bad records are skipped with exit 0" test $? -eq 0
check "bad records are counted by reason" test "$(json_field "$tmp/bad.out" "d['bad_records']")" = "{'truncated_record': 1, 'unknown_state': 1}"
check "diagnostics name file and line" grep -q "bad.jsonl:2:" "$tmp/bad.err"
check "diagnostics start with warning:" grep -q "^warning: " "$tmp/bad.err"
"$bin" dedupe --strict "$tmp/bad.jsonl" >/dev/null 2>"$tmp/strict.err"
check "--strict exits 3 on a bad record" test $? -eq 3
check "--strict says error:" grep -q "^error: .*bad.jsonl:2:" "$tmp/strict.err"

# A file that cannot be used at all: the others still count, exit 1.
echo '{"type":"capture","format":"shaderbake-trace/1","guest":"psx"}' >"$tmp/psx.jsonl"
"$bin" dedupe --json "$tmp/psx.jsonl" "$root/samples/traces/tiny.json" >"$tmp/mixed.out" 2>/dev/null
check "an unusable file gives exit 1" test $? -eq 1
check "the usable file still counts" test "$(json_field "$tmp/mixed.out" "d['draws']")" = "$(json_field "$tmp/tiny.json" "d['draws']")"

# compile: every drawn program's exact shader and every admitted family's ubershader, validated by the
# spirv-val tool (not the library's own validation).
"$bin" compile -o "$tmp/mods" "$root/samples/traces/tiny.json" >"$tmp/compile.out" 2>"$tmp/compile.err"
check "compile of tiny.json exits 0" test $? -eq 0
check "compile writes a manifest with 3 exact and 1 fallback module" \
  test "$(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(sorted(x['route'] for x in m['modules']))" "$tmp/mods/manifest.json")" = "['exact', 'exact', 'exact', 'fallback']"
for spv in "$tmp"/mods/modules/*.spv; do
  spirv-val --target-env vulkan1.0 "$spv" >/dev/null 2>&1
  rc=$?
  check "spirv-val accepts $(basename "$spv")" test $rc -eq 0
done
# A program with no exact shader (brdf: its semantics are unknown on hardware) fails, named by its key.
python3 "$root/tests/cli/append_brdf_draws.py" "$root/samples/traces/session_inline.jsonl" "$tmp/with_brdf.jsonl"
"$bin" compile -o "$tmp/mods2" "$tmp/with_brdf.jsonl" >/dev/null 2>"$tmp/compile2.err"
check "compile with a program that has no exact shader exits 1" test $? -eq 1
check "a failed module is reported with its key" grep -q "^error: exact key [0-9a-f]\{32\}: " "$tmp/compile2.err"

# Schemas print as JSON.
for name in trace dedupe; do
  "$bin" schema "$name" >"$tmp/$name.schema" 2>/dev/null
  check "schema $name exits 0" test $? -eq 0
  check "schema $name is JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/$name.schema"
done
"$bin" schema nosuch >/dev/null 2>&1; check "an unknown schema is a usage error" test $? -eq 2

finish cli_dedupe
