#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Trace format /2 (vertex attributes by location) against /1 (by nv2a semantic), schemas/trace.md "Versions":
# the sample traces rewritten as /2 (semantic name -> location by the nv2a numbering the page gives) build a
# bundle whose every section but REPORT (which quotes each capture record, format included) is byte for byte
# the /1 build's, and dedupe counts the same; a /2 attribute with a semantic, a /1 attribute with a location, a
# location of 16 and a location fed twice are bad records with their reasons; /1 and /2 files read together.
# Usage: trace_v2_test.sh SHADERBAKE SOURCE_ROOT
bin=$1
root=$2
source "$(dirname "$0")/common.sh"
export MESA_SHADER_CACHE_DISABLE=true
mkdir -p "$tmp/v1" "$tmp/v2"

# /1 -> /2 by schemas/trace.md's table (written here from the page, not from the reader).
to_v2() {  # to_v2 IN OUT
  python3 - "$1" "$2" <<'PY'
import json, sys
locations = {"position": 0, "diffuse": 1, "specular": 2, "fog": 3,
             "texcoord0": 4, "texcoord1": 5, "texcoord2": 6, "texcoord3": 7}
def convert(record):
    if record.get("type") == "capture":
        record["format"] = "shaderbake-trace/2"
    host = record.get("host")
    if isinstance(host, dict):
        for a in host["vertex"]["attributes"]:
            a["location"] = locations[a.pop("semantic")]
    return record
src, dst = sys.argv[1], sys.argv[2]
if src.endswith(".json"):
    doc = json.load(open(src))
    doc["records"] = [convert(r) for r in doc["records"]]
    json.dump(doc, open(dst, "w"))
else:
    with open(dst, "w") as out:
        for line in open(src):
            if line.strip():
                out.write(json.dumps(convert(json.loads(line))) + "\n")
PY
}
# Every section but REPORT, as (type, bytes) from the section table (schemas/bundle.md, "Section table entry").
sections_but_report() {  # sections_but_report BUNDLE
  python3 - "$1" <<'PY'
import struct, sys, hashlib
data = open(sys.argv[1], "rb").read()
header_size, = struct.unpack_from("<I", data, 12)
count, = struct.unpack_from("<I", data, 24)
for i in range(count):
    kind, flags, offset, size, checksum = struct.unpack_from("<IIQQQ", data, header_size + 32 * i)
    if kind != 8:
        print(kind, size, hashlib.sha256(data[offset:offset + size]).hexdigest())
PY
}

for name in tiny.json session_inline.jsonl; do
  cp "$root/samples/traces/$name" "$tmp/v1/$name"
  to_v2 "$root/samples/traces/$name" "$tmp/v2/$name"
  check "$name as /2 has no semantic left" bash -c "! grep -q '\"semantic\"' '$tmp/v2/$name'"
  for v in v1 v2; do
    (cd "$tmp/$v" && "$bin" build "$name" -o "$name.sbk" --no-cache >/dev/null 2>"$name.err")
    rc=$?
    check "$v build of $name finishes (exit 0 or 1 for the known emitter gaps; got $rc)" test $rc -le 1
    (cd "$tmp/$v" && "$bin" dedupe --json "$name" >"$name.dedupe" 2>/dev/null)
    sections_but_report "$tmp/$v/$name.sbk" >"$tmp/$v/$name.sections"
  done
  check "$name: /1 and /2 bundles agree in every section but REPORT" cmp -s "$tmp/v1/$name.sections" "$tmp/v2/$name.sections"
  check "$name: the bundles have sections to compare" test "$(wc -l <"$tmp/v1/$name.sections")" -ge 6
  check "$name: dedupe counts the same (its capture records aside)" python3 - "$tmp/v1/$name.dedupe" "$tmp/v2/$name.dedupe" <<'PY'
import json, sys
def counts(path):
    d = json.load(open(path))
    for f in d["files"]:
        f.pop("capture")
    return d
sys.exit(0 if counts(sys.argv[1]) == counts(sys.argv[2]) else 1)
PY
done

# /1 and /2 files in one read
"$bin" dedupe --json "$tmp/v1/tiny.json" "$tmp/v2/session_inline.jsonl" >"$tmp/mixed.json" 2>"$tmp/mixed.err"
check "a /1 and a /2 trace read together (exit $?)" test $? -eq 0
check "no bad record when they are" python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))['bad_records'] == {} else 1)" "$tmp/mixed.json"

# bad attributes, one record each after a good state
host='{"color_formats":["r8g8b8a8_unorm"],"vertex":{"bindings":[{"binding":0,"stride":16}],"attributes":[ATTRS]}}'
program=$(python3 -c "import json; print(json.dumps(json.load(open('$root/samples/traces/tiny.json'))['records'][1]['program']))")
bad_case() {  # bad_case NAME FORMAT ATTRIBUTES REASON
  local h=${host/ATTRS/$3}
  printf '%s\n%s\n' "{\"type\":\"capture\",\"format\":\"shaderbake-trace/$2\",\"guest\":\"nv2a\"}" \
    "{\"type\":\"draw\",\"frame\":0,\"draw\":0,\"program\":$program,\"host\":$h}" >"$tmp/$1.jsonl"
  "$bin" dedupe --json "$tmp/$1.jsonl" >"$tmp/$1.json" 2>"$tmp/$1.err"
  check "$1: counted as $4" python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))['bad_records'] == {sys.argv[2]: 1} else 1)" "$tmp/$1.json" "$4"
  check "$1: the warning names the attribute" grep -q "/host/vertex/attributes/[01]" "$tmp/$1.err"
}
bad_case v2-semantic 2 '{"semantic":"position","binding":0,"format":"r32g32b32a32_sfloat","offset":0}' unknown_field
bad_case v1-location 1 '{"location":0,"binding":0,"format":"r32g32b32a32_sfloat","offset":0}' unknown_field
bad_case v2-location-16 2 '{"location":16,"binding":0,"format":"r32g32b32a32_sfloat","offset":0}' out_of_range
bad_case v2-location-twice 2 '{"location":3,"binding":0,"format":"r32g32b32a32_sfloat","offset":0},{"location":3,"binding":0,"format":"r32_sfloat","offset":0}' invalid_host_state

finish trace_v2
