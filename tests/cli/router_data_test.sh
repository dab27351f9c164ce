#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bundle router data end to end: a bundle built from a sample trace carries dynamic-state fallback
# recipes and the prewarm order; a capture of the same programs under host states that differ only in blend,
# depth, cull, topology or vertex stride (no pipeline key of the bundle names them) is served in full by the
# dynamic-state fallbacks; the same bundle without its router data  serves none of them.
# Usage: router_data_test.sh SHADERBAKE SOURCE_ROOT CRAFT_BUNDLE
bin=$1
root=$2
craft=$3
source "$(dirname "$0")/common.sh"
validate() {  # validate SCHEMA FILE
  python3 "$root/tests/schema/validate.py" document "$root/schemas/$1.schema.json" "$2" >/dev/null
}

trace=$root/samples/traces/tiny.json
"$bin" build "$trace" -o "$tmp/tiny.sbk" --json >"$tmp/build.json" 2>"$tmp/build.err"
rc=$?
check "the bundle builds (stderr: $(head -c 300 "$tmp/build.err"))" test $rc -eq 0
# tiny.json: its three programs are admitted into one family, and every host state renders to one
# b8g8r8a8_unorm attachment with d24_unorm_s8_uint depth at 1 sample: one family x one attachment signature.
check "build: one dynamic-state fallback pipeline (1 family x 1 signature)" \
  test "$(json_field "$tmp/build.json" "d['dynamic_fallback_pipelines']")" = 1
check "build: every exact pipeline is in the prewarm order" \
  test "$(json_field "$tmp/build.json" "d['prewarm_pipelines'] == d['exact_pipelines'] == 3")" = True
"$bin" verify --json "$tmp/tiny.sbk" >"$tmp/verify.json" 2>/dev/null
check "verify passes" test $? -eq 0
check "verify checks the recipe and the three prewarm positions" \
  test "$(json_field "$tmp/verify.json" "sorted((c['name'], c['checked']) for c in d['checks'] if c['name'] in ('dynamic_fallbacks', 'prewarm'))")" = \
       "[('dynamic_fallbacks', 1), ('prewarm', 3)]"
"$bin" inspect --json "$tmp/tiny.sbk" >"$tmp/inspect.json" 2>/dev/null
check "inspect --json: format 4.0 with the router data's counts" \
  test "$(json_field "$tmp/inspect.json" "(d['format'], d['router_data']['dynamic_fallbacks']['recipes'], d['router_data']['dynamic_fallbacks']['vertex_location_mask'], d['router_data']['prewarm']['pipelines'])")" = \
       "('4.0', 1, 255, 3)"
"$bin" inspect "$tmp/tiny.sbk" >"$tmp/inspect.txt" 2>/dev/null
check "inspect names both sections" grep -q "dynamic_fallbacks .* prewarm " "$tmp/inspect.txt"
check "inspect prints the dynamic-state fallbacks" grep -q "^dynamic-state fallbacks: 1 recipes" "$tmp/inspect.txt"

# The prewarm order is the order of first use, with each pipeline's first frame: a trace whose first uses
# fall in frames 7 (s3), 9 (s1), 12 (the inline draw's host) and 20 (s1 under another cull mode); a repeated use
# (s3 in frame 10) adds nothing.
python3 - "$trace" "$tmp/ordered.jsonl" <<'PY'
import copy, json, sys
records = json.load(open(sys.argv[1]))["records"]
by_type = lambda t: [r for r in records if r["type"] == t]
states = {s["id"]: s for s in by_type("state")}
inline = [r for r in by_type("draw") if "program" in r][0]
s1_culled = dict(copy.deepcopy(states["s1"]), id="s1-front")
s1_culled["host"]["cull_mode"] = "front"
out = [by_type("capture")[0], states["s1"], states["s3"], s1_culled]
for n, (frame, what) in enumerate([(7, "s3"), (9, "s1"), (10, "s3"), (12, None), (20, "s1-front")]):
    out.append(dict(inline, frame=frame, draw=n) if what is None else {"type": "draw", "frame": frame, "draw": n, "state": what})
with open(sys.argv[2], "w") as f:
    for r in out: f.write(json.dumps(r) + "\n")
PY
"$bin" build "$tmp/ordered.jsonl" -o "$tmp/ordered.sbk" >/dev/null 2>&1
check "the ordered trace builds" test $? -eq 0
prewarm() {  # prewarm BUNDLE: the PREWARM section's (entry, first frame) pairs, read from the bytes
  python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
count = struct.unpack_from("<I", data, 24)[0]
for i in range(count):
    kind, _, offset, size = struct.unpack_from("<IIQQ", data, 64 + 32 * i)
    if kind == 11:
        n, reserved = struct.unpack_from("<II", data, offset)
        assert size == 8 + 8 * n and reserved == 0
        print([struct.unpack_from("<II", data, offset + 8 + 8 * k) for k in range(n)])
PY
}
frames=$(prewarm "$tmp/ordered.sbk" | python3 -c "import ast, sys; print([f for _, f in ast.literal_eval(sys.stdin.read())])")
check "the prewarm frames are the first uses in order (got $frames)" test "$frames" = "[7, 9, 12, 20]"
entries=$(prewarm "$tmp/ordered.sbk" | python3 -c "import ast, sys; print(' '.join(str(e) for e, _ in ast.literal_eval(sys.stdin.read())))")
"$bin" inspect --list "$tmp/ordered.sbk" >"$tmp/list.txt" 2>/dev/null
for e in $entries; do
  check "prewarm entry $e is an exact pipeline" test "$(sed -n "$((e + 1))p" "$tmp/list.txt" | awk '{print $2, $3}')" = "pipeline exact"
done

# A capture of the same programs under host states no pipeline key of the bundle names: each state of the
# trace (and the inline draw) once per variant, each variant changing one thing that is not the attachments.
python3 - "$trace" "$tmp/variants.jsonl" <<'PY'
import copy, json, sys
records = json.load(open(sys.argv[1]))["records"]
def variants(host):
    out = []
    def variant(change):
        h = copy.deepcopy(host)
        change(h)
        out.append(h)
    variant(lambda h: h.update(cull_mode="front" if h["cull_mode"] != "front" else "none"))
    variant(lambda h: h.update(topology="triangle_fan" if h["topology"] != "triangle_fan" else "triangle_list"))
    variant(lambda h: h.update(depth={"test": True, "write": False, "compare": "greater"}))
    variant(lambda h: [b.update(enable=True, src_color="one", dst_color="one", color_op="add",
                                src_alpha="one", dst_alpha="one", alpha_op="max") for b in h["blend"]])
    variant(lambda h: [b.update(stride=b["stride"] + 16) for b in h["vertex"]["bindings"]])
    return out
out = [r for r in records if r["type"] == "capture"]
draws = []
for r in records:
    if r["type"] == "state":
        for i, host in enumerate(variants(r["host"])):
            out.append(dict(r, id="%s-v%d" % (r["id"], i), host=host))
            draws.append({"type": "draw", "frame": len(draws) // 4, "draw": len(draws) % 4, "state": out[-1]["id"]})
    elif r["type"] == "draw" and "program" in r:
        for host in variants(r["host"]):
            draws.append(dict(r, host=host, frame=len(draws) // 4, draw=len(draws) % 4))
with open(sys.argv[2], "w") as f:
    for r in out + draws: f.write(json.dumps(r) + "\n")
PY
"$bin" report coverage "$tmp/tiny.sbk" --traces "$tmp/variants.jsonl" --json >"$tmp/cov.json" 2>"$tmp/cov.err"
check "coverage exits 0" test $? -eq 0
check "coverage JSON is valid against schemas/coverage.schema.json" validate coverage "$tmp/cov.json"
check "the bundle has router data" test "$(json_field "$tmp/cov.json" "d['router_data']")" = True
check "no variant has an exact pipeline" test "$(json_field "$tmp/cov.json" "d['draws']['exact']")" = 0
check "every first use is served" test "$(json_field "$tmp/cov.json" "d['first_uses']['covered_percent']")" = 100.0
check "by the dynamic-state fallback" \
  test "$(json_field "$tmp/cov.json" "d['first_uses']['dynamic_fallback'] > 0 and d['draws']['dynamic_fallback'] == d['draws']['total'] == 20")" = True
check "no first use lacks a pipeline for its host state" \
  test "$(json_field "$tmp/cov.json" "d['first_uses']['uncovered_by_reason'].get('no_pipeline_for_host_state', 0)")" = 0
"$bin" report coverage "$tmp/tiny.sbk" --traces "$tmp/variants.jsonl" --fail-under 100 >"$tmp/cov.txt" 2>&1
check "--fail-under 100 passes: dynamic fallbacks are served" test $? -eq 0
check "the text names the extensions the dynamic fallbacks need" \
  grep -q "VK_EXT_extended_dynamic_state 1/2/3 + VK_EXT_vertex_input_dynamic_state" "$tmp/cov.txt"

# The same bundle without its router data: what such a bundle serves.
"$craft" "$tmp/tiny.sbk" "$tmp/v20.sbk" strip-router-data
"$bin" verify "$tmp/v20.sbk" >/dev/null 2>&1
check "the bundle without router data verifies" test $? -eq 0
"$bin" inspect --json "$tmp/v20.sbk" >"$tmp/v20.inspect.json" 2>/dev/null
check "inspect: format 4.0, no router data" \
  test "$(json_field "$tmp/v20.inspect.json" "(d['format'], d['router_data'])")" = "('4.0', {'dynamic_fallbacks': None, 'prewarm': None})"
"$bin" report coverage "$tmp/v20.sbk" --traces "$tmp/variants.jsonl" --json >"$tmp/v20.json" 2>/dev/null
check "no router data: coverage JSON is valid" validate coverage "$tmp/v20.json"
check "no router data: router_data is false" test "$(json_field "$tmp/v20.json" "d['router_data']")" = False
check "no router data: every first use lacks a pipeline for its host state" \
  test "$(json_field "$tmp/v20.json" "(d['first_uses']['dynamic_fallback'], d['first_uses']['uncovered_by_reason'].get('no_pipeline_for_host_state', 0) == d['first_uses']['total'] > 0)")" = "(0, True)"
"$bin" report coverage "$tmp/v20.sbk" --traces "$tmp/variants.jsonl" >"$tmp/v20.txt" 2>&1
check "no router data: the text says there is no router data" grep -q "no router data" "$tmp/v20.txt"
"$bin" report coverage "$tmp/v20.sbk" --traces "$tmp/variants.jsonl" --fail-under 1 >/dev/null 2>&1
check "no router data: --fail-under 1 fails" test $? -eq 1

finish cli_router_data
