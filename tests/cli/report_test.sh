#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI contract of `shaderbake report coverage|rejections`: a capture checked against a bundle built from
# another capture of the same generator; every draw and every first use in exactly one class (the numbers add
# up, per trace and per frame); the release gate; JSON valid against the published schemas; the HTML page.
# Usage: report_test.sh SHADERBAKE SHADERBAKE_TRACEGEN SOURCE_ROOT
bin=$1
gen=$2
root=$3
source "$(dirname "$0")/common.sh"
validate() {  # validate SCHEMA FILE
  python3 "$root/tests/schema/validate.py" document "$root/schemas/$1.schema.json" "$2" >/dev/null
}

# Capture A builds the bundle; capture B (same generator and state universe, a ten times longer session,
# plus two draws of a brdf program no route may serve) is checked.
"$gen" --seed 5 --frames 40 --draws-per-frame 20 --states 200 -o "$tmp/a.jsonl" 2>/dev/null
"$gen" --seed 5 --frames 400 --draws-per-frame 20 --states 200 -o "$tmp/b0.jsonl" 2>/dev/null
python3 "$root/tests/cli/append_brdf_draws.py" "$tmp/b0.jsonl" "$tmp/b.jsonl" 2
check "the generator wrote both captures" test -s "$tmp/a.jsonl" -a -s "$tmp/b.jsonl"
"$bin" build "$tmp/a.jsonl" -o "$tmp/a.sbk" >/dev/null 2>&1
check "the bundle of capture A exists" test -s "$tmp/a.sbk"

"$bin" report coverage "$tmp/a.sbk" --traces "$tmp/b.jsonl" --json --html "$tmp/cov.html" >"$tmp/cov.json" 2>"$tmp/cov.err"
check "coverage exits 0 without a gate" test $? -eq 0
check "coverage JSON is valid against schemas/coverage.schema.json" validate coverage "$tmp/cov.json"
"$bin" dedupe --json "$tmp/b.jsonl" >"$tmp/dedupe.json" 2>/dev/null
check "every draw is counted once" test "$(json_field "$tmp/cov.json" "d['draws']['total']")" = "$(json_field "$tmp/dedupe.json" "d['draws']")"
for part in draws first_uses; do
  check "$part: exact + fallback + dynamic_fallback + uncovered = total" \
    test "$(json_field "$tmp/cov.json" "d['$part']['exact'] + d['$part']['fallback'] + d['$part']['dynamic_fallback'] + d['$part']['uncovered'] == d['$part']['total']")" = True
  check "$part: the uncovered reasons sum to uncovered" \
    test "$(json_field "$tmp/cov.json" "sum(d['$part']['uncovered_by_reason'].values()) == d['$part']['uncovered']")" = True
done
check "first uses are no more than unique pipeline keys of both routes" \
  test "$(json_field "$tmp/cov.json" "d['first_uses']['total']")" -le \
       "$(( $(json_field "$tmp/dedupe.json" "d['unique_pipeline_keys']") + $(json_field "$tmp/dedupe.json" "d['unique_fallback_pipeline_keys']") ))"
check "the later capture is not fully covered (it meets states A never drew)" \
  test "$(json_field "$tmp/cov.json" "d['first_uses']['uncovered'] > 0")" = True
check "the fallback route serves some states A never drew" test "$(json_field "$tmp/cov.json" "d['draws']['fallback'] > 0")" = True
check "the dynamic-state fallbacks serve host states no pipeline key of A names" \
  test "$(json_field "$tmp/cov.json" "d['router_data'] and d['draws']['dynamic_fallback'] > 0")" = True
check "the worst frames are ordered" \
  test "$(json_field "$tmp/cov.json" "all(a['uncovered_first_uses'] >= b['uncovered_first_uses'] for a, b in zip(d['worst_frames'], d['worst_frames'][1:]))")" = True
check "the HTML page has the chart" grep -q "<svg" "$tmp/cov.html"

# The bundle against its own capture: everything it could build is served.
"$bin" report coverage "$tmp/a.sbk" --json >"$tmp/self.json" 2>/dev/null
check "default traces are the bundle's own" test "$(json_field "$tmp/self.json" "d['traces'][0]")" = "$tmp/a.jsonl"
check "against its own capture only failed modules are uncovered" \
  test "$(json_field "$tmp/self.json" "set(d['draws']['uncovered_by_reason']) <= {'compile_failure'}")" = True

# The gate: exit 1 below the threshold, 0 at or above.
"$bin" report coverage "$tmp/a.sbk" --traces "$tmp/b.jsonl" --fail-under 100 >/dev/null 2>&1
check "--fail-under 100 fails on a partly covered capture" test $? -eq 1
"$bin" report coverage "$tmp/a.sbk" --traces "$tmp/b.jsonl" --fail-under 0 >/dev/null 2>&1
check "--fail-under 0 passes" test $? -eq 0
"$bin" report coverage "$tmp/missing.sbk" >/dev/null 2>&1
check "a missing bundle is a usage error" test $? -eq 2

# Rejections: the keys per reason are the bundle's; draws come from the capture.
"$bin" report rejections "$tmp/a.sbk" --json >"$tmp/rej.json" 2>/dev/null
check "rejections exits 0" test $? -eq 0
check "rejections JSON is valid against schemas/rejections.schema.json" validate rejections "$tmp/rej.json"
check "rejections sum to rejected_keys" test "$(json_field "$tmp/rej.json" "sum(r['keys'] for r in d['reasons']) == d['rejected_keys']")" = True
check "rejected keys are the dedupe's" test "$(json_field "$tmp/rej.json" "d['rejected_keys']")" = \
  "$("$bin" dedupe --json "$tmp/a.jsonl" 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(sum(d['admission']['rejections'].values()))")"
example=$(json_field "$tmp/rej.json" "d['reasons'][0]['examples'][0] if d['reasons'] else ''")
if [[ -n $example ]]; then
  "$bin" inspect --json --no-disassembly "$tmp/a.sbk" "$example" >"$tmp/example.json"
  check "inspect on an example shows the reason" \
    test "$(json_field "$tmp/example.json" "d['admission']['reason']")" = "$(json_field "$tmp/rej.json" "d['reasons'][0]['reason']")"
fi

finish cli_report
