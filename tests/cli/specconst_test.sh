#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The commands on the specconst guest's traces, with no guest-specific code outside guests/specconst: dedupe
# counts its keys and bad records, build freezes each value set into its modules (value sets that fold alike
# share one), verify passes, inspect decodes a key back to the trace's terms, report rejections and report
# coverage read the bundle, and a trace moved with its shaders gives the same bundle.
# Usage: specconst_test.sh SHADERBAKE SOURCE_ROOT CRAFT_BUNDLE
bin=$(realpath "$1")
root=$2
craft=$(realpath "$3")
source "$(dirname "$0")/common.sh"

mkdir -p "$tmp/session/shaders"
cp "$root"/samples/specconst/shaders/* "$tmp/session/shaders/"
host='{"topology":"triangle_list","color_formats":["r8g8b8a8_unorm"],"depth_format":"d32_sfloat","depth":{"test":true,"write":true,"compare":"less"},"vertex":{"bindings":[{"binding":0,"stride":32,"rate":"vertex"}],"attributes":[{"location":0,"binding":0,"format":"r32g32b32_sfloat","offset":0},{"location":1,"binding":0,"format":"r32g32b32_sfloat","offset":12},{"location":2,"binding":0,"format":"r32g32_sfloat","offset":24}]}}'
post='{"topology":"triangle_list","color_formats":["b8g8r8a8_srgb"],"vertex":{"bindings":[],"attributes":[]}}'
lit() { echo "{\"vertex\":{\"shader\":\"shaders/mesh.vert\",\"constants\":{$1}},\"fragment\":{\"shader\":\"shaders/lighting.frag\",\"constants\":{$2}}}"; }
tone() { echo "{\"vertex\":{\"shader\":\"shaders/fullscreen.vert\"},\"fragment\":{\"shader\":\"shaders/tonemap.frag\",\"constants\":{$1}}}"; }
{
  echo '{"type":"capture","format":"shaderbake-trace/2","guest":"specconst","title":"cli test"}'
  echo "{\"type\":\"state\",\"id\":\"low\",\"program\":$(lit '' '"0":0,"3":8'),\"host\":$host}"
  echo "{\"type\":\"state\",\"id\":\"low_shiny\",\"program\":$(lit '' '"0":0,"3":64'),\"host\":$host}"
  echo "{\"type\":\"state\",\"id\":\"high\",\"program\":$(lit '' '"0":2,"2":true'),\"host\":$host}"
  echo "{\"type\":\"state\",\"id\":\"foliage\",\"program\":$(lit '"0":true' '"1":false'),\"host\":$host}"
  echo "{\"type\":\"state\",\"id\":\"tonemap\",\"program\":$(tone '"0":2,"1":true'),\"host\":$post}"
  echo '{"type":"state","id":"blur","program":{"compute":{"shader":"shaders/blur.comp","constants":{"0":64,"1":3}}}}'
  for frame in 1 2 3; do
    n=0
    for s in low low_shiny high foliage tonemap blur; do
      echo "{\"type\":\"draw\",\"frame\":$frame,\"draw\":$n,\"state\":\"$s\"}"
      n=$((n + 1))
    done
  done
  echo "{\"type\":\"draw\",\"frame\":3,\"draw\":9,\"program\":$(lit '' '"0":1.5'),\"host\":$host}"
  echo "{\"type\":\"draw\",\"frame\":3,\"draw\":10,\"program\":$(tone '"7":1'),\"host\":$post}"
} >"$tmp/session/trace.jsonl"

"$bin" dedupe --json "$tmp/session/trace.jsonl" >"$tmp/dedupe.json" 2>"$tmp/dedupe.err"
check "dedupe exits 0" test $? -eq 0
check "18 good draws and dispatches" test "$(json_field "$tmp/dedupe.json" "d['draws']")" = 18
check "6 exact keys" test "$(json_field "$tmp/dedupe.json" "d['unique_exact_keys']")" = 6
check "the bad value and the unknown id counted by reason" \
  test "$(json_field "$tmp/dedupe.json" "d['bad_records']")" = "{'constant_type': 1, 'unknown_constant': 1}"
check "each located" grep -q "trace.jsonl:26:.*/program/fragment/constants/0.*constant_type" "$tmp/dedupe.err"
check "dedupe JSON is valid against schemas/dedupe.schema.json" \
  python3 "$root/tests/schema/validate.py" document "$root/schemas/dedupe.schema.json" "$tmp/dedupe.json"
check "the trace is valid against schemas/trace.schema.json but for its two bad values" \
  bash -c "head -25 '$tmp/session/trace.jsonl' >'$tmp/good.jsonl' && python3 '$root/tests/schema/validate.py' trace '$root/schemas/trace.schema.json' '$tmp/good.jsonl' >/dev/null"

"$bin" build --json -o "$tmp/a.sbk" "$tmp/session/trace.jsonl" >"$tmp/build.json" 2>/dev/null
check "build exits 0" test $? -eq 0
check "6 exact keys" test "$(json_field "$tmp/build.json" "d['specializations']")" = 6
# kQuality 0 never reads kSpecularPower: "low" and "low_shiny" fold to one fragment module.
check "5 distinct exact modules" test "$(json_field "$tmp/build.json" "d['exact_modules']")" = 5
check "5 graphics and 1 compute exact pipelines" test "$(json_field "$tmp/build.json" "d['exact_pipelines']")" = 6
check "no failure" test "$(json_field "$tmp/build.json" "d['failures']")" = 0
check "no build memo: the bundle depends on the shader files too" \
  grep -q "name files outside the traces" <<<"$(json_field "$tmp/build.json" "d.get('build_memo_reason', '')")"
# A shader changed, the trace not: a second build must see it (a memo keyed by the trace would not).
cp "$tmp/session/shaders/lighting.frag" "$tmp/lighting.frag.orig"
sed -i 's/const float kSpecularPower = 32.0;/const float kSpecularPower = 16.0;/' "$tmp/session/shaders/lighting.frag"
"$bin" build --json -o "$tmp/changed.sbk" "$tmp/session/trace.jsonl" >"$tmp/changed.json" 2>/dev/null
check "a changed shader gives other keys" \
  test "$("$bin" inspect --json --list "$tmp/a.sbk" | md5sum)" != "$("$bin" inspect --json --list "$tmp/changed.sbk" | md5sum)"
cp "$tmp/lighting.frag.orig" "$tmp/session/shaders/lighting.frag"
"$bin" verify "$tmp/a.sbk" >"$tmp/verify.out" 2>&1
check "verify passes" test $? -eq 0

# The specialized route: one generic module per shader, each pipeline's values in the bundle.
"$bin" build --specialize --json -o "$tmp/specialized.sbk" "$tmp/session/trace.jsonl" >"$tmp/specialized.json" 2>/dev/null
check "build --specialize exits 0" test $? -eq 0
check "one module per shader: lighting, tonemap and blur" \
  test "$(json_field "$tmp/specialized.json" "d['exact_modules']")" = 3
check "and as many exact pipelines" test "$(json_field "$tmp/specialized.json" "d['exact_pipelines']")" = 6
"$bin" verify --json "$tmp/specialized.sbk" >"$tmp/verify_specialized.json" 2>/dev/null
check "the specialized bundle verifies" test $? -eq 0
check "verify holds each pipeline's stored values to its key" \
  test "$(json_field "$tmp/verify_specialized.json" "[(c['checked'], len(c['failures'])) for c in d['checks'] if c['name'] == 'specialization_data']")" = "[(6, 0)]"
"$craft" "$tmp/specialized.sbk" "$tmp/tampered.sbk" specialization-value-changed
"$bin" verify --json "$tmp/tampered.sbk" >"$tmp/tampered.json" 2>/dev/null
check "verify fails a bundle whose stored value is not its key's (exit 1)" test $? -eq 1
check "and names the stage whose values differ" \
  grep -q "values stored for its [a-z]* stage are not the ones its key gives" "$tmp/tampered.json"
check "its report counts the pipelines with specialization data" \
  test "$("$bin" inspect --json "$tmp/specialized.sbk" | python3 -c 'import json,sys; print(json.load(sys.stdin)["report"]["specialized_pipelines"])')" = 6

"$bin" inspect --json --list "$tmp/a.sbk" >"$tmp/list.json"
check "inspect lists the entries" test $? -eq 0
check "a compute pipeline among them" test "$(json_field "$tmp/list.json" "sum(e['kind'] == 'compute_pipeline' for e in d)")" = 1
key=$(json_field "$tmp/list.json" "[e['key_hash'] for e in d if e['kind'] == 'specialization'][0]")
"$bin" inspect --json --no-disassembly "$tmp/a.sbk" "$key" >"$tmp/entry.json"
check "inspect decodes a key into its stages" \
  test "$(json_field "$tmp/entry.json" "sorted(d['program'].keys()) in (['compute'], ['fragment', 'vertex'])")" = True
check "with the module hashes and values" \
  test "$(json_field "$tmp/entry.json" "[len(s['module']) for s in d['program'].values()][-1]")" = 32

"$bin" report rejections --json "$tmp/a.sbk" >"$tmp/rejections.json"
check "report rejections exits 0" test $? -eq 0
check "admission keeps one key off the fallback route: the kernel's workgroup width is not its default" \
  test "$(json_field "$tmp/rejections.json" "[(r['reason'], r['keys']) for r in d['reasons']]")" = "[('workgroup_size', 1)]"
check "two families, each with its fallback pipeline" \
  test "$(json_field "$tmp/build.json" "(d['families'], d['fallback_pipelines'])")" = "(2, 2)"
"$bin" report coverage --json "$tmp/a.sbk" >"$tmp/coverage.json" 2>/dev/null
check "report coverage exits 0" test $? -eq 0
check "the bundle serves every first use of its own trace exactly" \
  test "$(json_field "$tmp/coverage.json" "d['first_uses']['covered_percent']")" = 100.0

# Value sets nobody captured: the families' generic pipelines serve those of the graphics programs; the kernel
# at another workgroup width is rejected by name.
{
  echo '{"type":"capture","format":"shaderbake-trace/2","guest":"specconst","title":"new value sets"}'
  echo "{\"type\":\"draw\",\"frame\":1,\"draw\":0,\"program\":$(lit '"1":0.2' '"0":1,"3":16,"4":2'),\"host\":$host}"
  echo "{\"type\":\"draw\",\"frame\":1,\"draw\":1,\"program\":$(tone '"3":2.5'),\"host\":$post}"
  echo '{"type":"draw","frame":1,"draw":2,"program":{"compute":{"shader":"shaders/blur.comp","constants":{"0":32,"1":5}}}}'
} >"$tmp/session/novel.jsonl"
"$bin" report coverage --json --traces "$tmp/session/novel.jsonl" "$tmp/a.sbk" >"$tmp/novel.json" 2>"$tmp/novel.err"
check "report coverage of new value sets exits 0" test $? -eq 0
check "the graphics value sets take the fallback route" \
  test "$(json_field "$tmp/novel.json" "d['first_uses']['fallback']")" = 2
check "the kernel at another width is rejected by name" \
  test "$(json_field "$tmp/novel.json" "d['first_uses']['uncovered_by_reason']")" = "{'rejected:workgroup_size': 1}"

# The trace and its shaders moved elsewhere: the same keys, the same bundle (nothing depends on where).
mv "$tmp/session" "$tmp/moved"
(cd / && "$bin" build -o "$tmp/b.sbk" "$tmp/moved/trace.jsonl" >/dev/null 2>&1)
check "the moved trace builds" test -f "$tmp/b.sbk"
check "into the same modules and keys" \
  test "$("$bin" inspect --json --list "$tmp/a.sbk" | python3 -c 'import json,sys; print(sorted(e["key_hash"] for e in json.load(sys.stdin)))')" = \
       "$("$bin" inspect --json --list "$tmp/b.sbk" | python3 -c 'import json,sys; print(sorted(e["key_hash"] for e in json.load(sys.stdin)))')"

finish specconst
