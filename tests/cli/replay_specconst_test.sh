#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# samples/replay on the specconst guest's sample session (samples/specconst), on lavapipe under the validation
# layer (any message fails), all five modes in one process with --compare-pixels, draws and compute dispatches:
#   run "whole":       a frozen bundle of the whole session;
#   run "specialized": a `build --specialize` bundle of it (one generic module per shader, values in the bundle);
#   run "half":        a frozen bundle of a capture of the first 120 frames: later value sets are met by the
#                      fallback (their packet) or, where admission refuses them (the blur kernel at another
#                      workgroup width), by the old way (the renderer's own SPIR-V created with its values).
# Each bundle is warmed for the +cache modes. Checks that the numbers add up in each mode, that the router modes'
# frames match mode bundle's pixels, that the old way of this guest compiles nothing, and that a bundle of
# another guest is refused by name. No check depends on how long anything took.
# Usage: replay_specconst_test.sh SHADERBAKE SHADERBAKE_REPLAY SOURCE_ROOT
bin=$1
replay=$2
root=$3
source "$(dirname "$0")/common.sh"
export MESA_SHADER_CACHE_DIR="$tmp/mesa"
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
py() {  # py JSON-FILE EXPR: json_field with m, the modes by name, besides d
  json_field "$1" "(lambda m: $2)({x['mode']: x for x in d['modes']})"
}
holds() {  # holds NAME JSON-FILE EXPR: a check that EXPR (py's names) is True
  check "$1" test "$(py "$2" "$3")" = "True"
}

# The session and its shaders side by side, as the trace names them (paths relative to the trace).
mkdir -p "$tmp/traces"
cp -r "$root/samples/specconst/shaders" "$tmp/shaders"
trace=$tmp/traces/session.jsonl
cp "$root/samples/specconst/traces/session.jsonl" "$trace"
python3 - "$trace" "$tmp/traces/capture_half.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as half:
    for line in src:
        r = json.loads(line)
        if r.get("type") != "draw" or r["frame"] < 120:
            half.write(line)
PY
build() {  # build NAME TRACE OPTIONS...
  local name=$1 input=$2
  shift 2
  "$bin" build "$input" -o "$tmp/$name.sbk" --cache-dir "$tmp/cache" "$@" >"$tmp/build_$name.out" 2>"$tmp/build_$name.err"
  rc=$?
  check "build $name exits 0 (got $rc; $(head -c 400 "$tmp/build_$name.err"))" test $rc -eq 0
  "$bin" warm "$tmp/$name.sbk" >"$tmp/warm_$name.out" 2>"$tmp/warm_$name.err"
  rc=$?
  check "warm $name exits 0 (got $rc; $(head -c 400 "$tmp/warm_$name.err"))" test $rc -eq 0
  check "warm $name created every pipeline, the compute ones and the specialized ones included" \
    grep -q "cold (empty cache): \([0-9]*\) of \1 pipelines created, 0 failed" "$tmp/warm_$name.out"
}
build whole "$trace"
build specialized "$trace" --specialize
build half "$tmp/traces/capture_half.jsonl"

for run in whole specialized half; do
  "$replay" "$trace" --bundle "$tmp/$run.sbk" --mode all --compare-pixels --json >"$tmp/$run.json" 2>"$tmp/$run.err"
  rc=$?
  check "replay $run exits 0 (got $rc; stderr: $(grep -v '^replay:' "$tmp/$run.err" | head -c 600))" test $rc -eq 0
  out=$tmp/$run.json
  check "$run: the validation layer was on" test "$(py "$out" "d['validation_layer']")" = "True"
  check "$run: the report names the trace's guest" test "$(py "$out" "d['guest']")" = "specconst"
  for mode in none bundle hybrid bundle+cache hybrid+cache; do
    x="m['$mode']"
    what="$run/$mode"
    check "$what: every frame and draw replayed" test "$(py "$out" "($x['frames'], $x['draws'])")" = "(360, 4993)"
    holds "$what: route counts sum to the draws" "$out" "sum($x['routes'].values()) == $x['draws']"
    holds "$what: first uses = draws - reused (26 pipelines)" "$out" "$x['first_uses'] == $x['draws'] - $x['routes']['reused'] == 26"
    holds "$what: nothing skipped: every program had a pipeline" "$out" "$x['draws_by_route']['skipped'] == 0"
    holds "$what: nothing compiled at a first use (the renderer ships its SPIR-V)" "$out" \
      "all(w['shader_compiles'] == 0 for w in $x['first_use_work'].values())"
    holds "$what: the fallback routes created no pipeline on the render thread" "$out" \
      "all($x['first_use_work'][k]['pipelines_created'] == 0 for k in ('fallback', 'dynamic_fallback'))"
    check "$what: zero validation messages" test "$(py "$out" "$x['validation_messages']")" = "0"
  done
  for mode in hybrid hybrid+cache; do
    holds "$run/$mode: frames match mode bundle's pixels" "$out" \
      "(lambda p: p['frames_compared'] == 360 and p['images_compared'] > 0 and p['mismatched_pixels'] == 0)(m['$mode']['pixels'])"
  done
  holds "$run/none: every first use takes the old way" "$out" "m['none']['routes']['uncovered_compiled'] == 26"
done
holds "whole/bundle: every first use is exact" "$tmp/whole.json" "m['bundle']['routes']['exact_created'] == 26"
holds "specialized/bundle: every first use is exact" "$tmp/specialized.json" "m['bundle']['routes']['exact_created'] == 26"
holds "half/bundle: captured states exact, later admitted value sets by the fallback, refused ones the old way" \
  "$tmp/half.json" "(lambda r: r['exact_created'] > 0 and r['fallback'] > 0 and r['uncovered_compiled'] > 0)(m['bundle']['routes'])"

# A bundle of another guest: refused by the guest check, by name (exit 3).
"$replay" "$root/samples/traces/session_inline.jsonl" --bundle "$tmp/whole.sbk" --mode bundle --frames 1 >"$tmp/other.out" 2>"$tmp/other.err"
check "an nv2a trace with a specconst bundle exits 3 (got $?)" test $? -eq 3
check "and says the bundle's guest or schema is not the trace's" grep -q "cannot open the bundle: unsupported bundle version, guest model or key schema" "$tmp/other.err"

finish replay_specconst
