#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dot_zw's depth is modelled on a D16 attachment only: a depth-replacing family drawn into D24 and into D16
# gets a fallback pipeline (and a dynamic-state recipe) for D16 alone; dedupe counts the refused fallback
# pipeline key, coverage names the reason for a D24 host state the bundle never met, and the exact route still
# serves the program.
# Usage: dot_zw_depth_test.sh SHADERBAKE SOURCE_ROOT
bin=$1
root=$2
source "$(dirname "$0")/common.sh"

# tiny.json's state s1 with a dot_zw chain (texm3x2depth), drawn on its own D24 host and on a D16 copy of it;
# a second trace meets the same program on a D32 host.
python3 - "$root/samples/traces/tiny.json" "$tmp" <<'PY'
import copy, json, sys
source, out = sys.argv[1], sys.argv[2]
records = json.load(open(source))["records"]
capture = records[0]
state = next(r for r in records if r.get("type") == "state")
program = copy.deepcopy(state["program"])
program["texture_modes"] = ["project2d", "dot_product", "dot_zw", "none"]
program["texture_enabled"] = [True, True, True, False]
program["dot_rgb_mapping"] = "0x00000011"
def draw(frame, depth_format):
    host = copy.deepcopy(state["host"])
    host["depth_format"] = depth_format
    return {"type": "draw", "frame": frame, "draw": 0, "program": program, "host": host}
json.dump({"records": [capture, draw(0, "d24_unorm_s8_uint"), draw(1, "d16_unorm")]}, open(out + "/a.json", "w"))
json.dump({"records": [capture, draw(0, "d32_sfloat")]}, open(out + "/b.json", "w"))
PY

"$bin" dedupe --json "$tmp/a.json" >"$tmp/dedupe.json" 2>"$tmp/dedupe.err"
check "dedupe exits 0" test $? -eq 0
check "the program is admitted" test "$(json_field "$tmp/dedupe.json" "d['admission']['admitted_exact_keys']")" = 1
check "one fallback pipeline key (D16)" test "$(json_field "$tmp/dedupe.json" "d['unique_fallback_pipeline_keys']")" = 1
check "one refused for its D24 attachment" \
  test "$(json_field "$tmp/dedupe.json" "d['fallback_attachment_rejections']")" = "{'dot_zw_depth_format': 1}"
check "dedupe JSON is valid against schemas/dedupe.schema.json" \
  python3 "$root/tests/schema/validate.py" document "$root/schemas/dedupe.schema.json" "$tmp/dedupe.json"
"$bin" dedupe "$tmp/a.json" 2>/dev/null | grep -q "refused dot_zw_depth_format *1"
check "the text output names the refusal" test $? -eq 0

"$bin" build "$tmp/a.json" -o "$tmp/a.sbk" --no-cache >/dev/null 2>&1
check "build exits 0" test $? -eq 0
"$bin" inspect --json --no-disassembly "$tmp/a.sbk" >"$tmp/inspect.json"
check "two exact pipelines, one fallback pipeline" \
  test "$(json_field "$tmp/inspect.json" "(d['entries']['exact_pipelines'], d['entries']['fallback_pipelines'])")" = "(2, 1)"
check "one dynamic-state recipe: D16's, not D24's" \
  test "$(json_field "$tmp/inspect.json" "d['router_data']['dynamic_fallbacks']['recipes']")" = 1
"$bin" verify "$tmp/a.sbk" >/dev/null 2>&1
check "the bundle verifies" test $? -eq 0

"$bin" report coverage "$tmp/a.sbk" --json >"$tmp/self.json" 2>/dev/null
check "its own draws are all served exactly" test "$(json_field "$tmp/self.json" "d['draws']['exact']")" = 2
"$bin" report coverage "$tmp/a.sbk" --traces "$tmp/b.json" --json >"$tmp/cov.json" 2>/dev/null
check "a D32 host state is refused, by name" \
  test "$(json_field "$tmp/cov.json" "d['draws']['uncovered_by_reason']")" = "{'rejected:dot_zw_depth_format': 1}"

finish cli_dot_zw_depth
