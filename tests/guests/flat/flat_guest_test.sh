#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The guest seam: shaderbake-flat (the command line over the flat test guest alone, tests/guests/flat) runs
# dedupe, build, verify, inspect, report coverage and report rejections on the flat guest's trace, and a C
# renderer reads the bundle with shaderbake.h alone, with no nv2a code in either binary. Expected numbers are
# counted by hand from session.jsonl: states red, green, shaded (vertex_color) and bad (mode "plaid"); frames
# 0-1 draw red, green, shaded, red; frame 2 red, bad, green; frame 3 an inline blue on green's host state.
# Usage: flat_guest_test.sh SHADERBAKE_FLAT FLAT_LOADER SOURCE_ROOT
bin=$1
loader=$2
root=$3
source "$root/tests/cli/common.sh"
trace=$root/tests/guests/flat/session.jsonl
export MESA_SHADER_CACHE_DISABLE=true

# ---- nothing of nv2a is linked in (unreferenced code is dropped at link, so what is left is what can run) ----
for binary in "$bin" "$loader"; do
  check "$(basename "$binary") holds no nv2a symbol" bash -c "! nm -C '$binary' | grep -qi nv2a"
done

# ---- dedupe ----
"$bin" dedupe --json "$trace" >"$tmp/dedupe.json" 2>"$tmp/dedupe.err"
check "dedupe exits 0 (got $?)" test $? -eq 0
check "dedupe counts the hand-counted keys" python3 - "$tmp/dedupe.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# draws: 2 frames x 4 + red and green of frame 2 + blue = 11 (the draw of "bad" is state_rejected)
ok = (d["draws"] == 11 and d["frames"] == 4 and d["unique_exact_keys"] == 4 and d["unique_fallback_families"] == 1
      and d["unique_pipeline_keys"] == 4 and d["bad_records"] == {"unknown_name": 1, "state_rejected": 1})
if not ok: print(d, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
check "dedupe names the bad record's field" grep -q "session.jsonl:5:.*mode must be solid or vertex_color" "$tmp/dedupe.err"

# ---- build, verify ----
"$bin" build "$trace" -o "$tmp/flat.sbk" --no-cache >"$tmp/build.out" 2>"$tmp/build.err"
check "build exits 0 (got $?; $(tail -c 400 "$tmp/build.err"))" test $? -eq 0
"$bin" verify "$tmp/flat.sbk" >"$tmp/verify.out" 2>&1
check "verify exits 0 (got $?)" test $? -eq 0
check "verify checks the 4 specializations and 1 family" grep -q "^specializations *5 checked  ok" "$tmp/verify.out"

# ---- inspect ----
"$bin" inspect "$tmp/flat.sbk" >"$tmp/inspect.out" 2>&1
check "inspect exits 0 (got $?)" test $? -eq 0
check "inspect names the guest" grep -q "^guest flat, key schema 1" "$tmp/inspect.out"
red=fa01010000ff0000
"$bin" inspect --json --no-disassembly "$tmp/flat.sbk" "$red" >"$tmp/red.json" 2>"$tmp/red.err"
check "inspect of the red key exits 0 (got $?: $(head -c 300 "$tmp/red.err"))" test $? -eq 0
check "inspect decodes the red key through the guest" python3 - "$tmp/red.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["program"] == {"mode": "solid", "color": "0x00FF0000"} and d["admission"]["admitted"] is True
sys.exit(0 if ok else 1)
PY
shaded=fa01010001000000
"$bin" inspect --json --no-disassembly "$tmp/flat.sbk" "$shaded" >"$tmp/shaded.json" 2>/dev/null
check "inspect shows the vertex-colour key's rejection by name" python3 - "$tmp/shaded.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["admission"] == {"admitted": False, "reason": "reads_vertex_color", "where": "/mode"} else 1)
PY

# ---- reports ----
"$bin" report coverage --json "$tmp/flat.sbk" >"$tmp/coverage.json" 2>"$tmp/coverage.err"
check "report coverage exits 0 (got $?)" test $? -eq 0
check "report coverage: every first use of the bundle's own trace is exact" python3 - "$tmp/coverage.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["first_uses"]
sys.exit(0 if f["total"] == 4 and f["exact"] == 4 and d["draws"]["total"] == 11 else 1)
PY
"$bin" report rejections --json "$tmp/flat.sbk" >"$tmp/rejections.json" 2>/dev/null
check "report rejections exits 0 (got $?)" test $? -eq 0
check "report rejections: one key, its 2 draws, by the guest's reason" python3 - "$tmp/rejections.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["reasons"]
ok = d["specializations"] == 4 and d["rejected_keys"] == 1 and len(r) == 1 and r[0]["reason"] == "reads_vertex_color" \
    and r[0]["keys"] == 1 and r[0]["draws"] == 2
sys.exit(0 if ok else 1)
PY

# ---- the loader, guest-agnostic ----
"$loader" "$tmp/flat.sbk" >"$tmp/loader.out" 2>&1
check "the C loader reads the flat bundle ($(head -c 300 "$tmp/loader.out"))" test $? -eq 0

# ---- another guest's input is refused by name ----
"$bin" dedupe "$root/samples/traces/tiny.json" >/dev/null 2>"$tmp/nv2a.err"
check "an nv2a trace is refused (exit 1, got $?)" test $? -eq 1
check "the refusal names both guests" grep -q 'trace is for guest "nv2a", but this build reads "flat"' "$tmp/nv2a.err"

finish flat_guest
