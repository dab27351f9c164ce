#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# samples/replay end to end on lavapipe: a bundle built from a capture of the first frames of a sample trace
# (so that the replay meets captured states, uncaptured ones the fallback route serves, and uncaptured ones
# that must be compiled), warmed with `shaderbake warm`, then `shaderbake-replay --mode all --json` over the
# trace's first 30 frames under the validation layer. Checks that the numbers add up, that the fallback route
# compiles and creates nothing at first use, that mode none compiles every first use, and that the validation
# layer reported nothing.
# Usage: replay_test.sh SHADERBAKE SHADERBAKE_REPLAY SOURCE_ROOT
bin=$1
replay=$2
root=$3
source "$(dirname "$0")/common.sh"
export MESA_SHADER_CACHE_DIR="$tmp/mesa"  # the replay turns Mesa's cache off; anything else stays here
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
py() {  # py JSON-FILE EXPR: json_field with m, the modes by name, besides d
  json_field "$1" "(lambda m: $2)({x['mode']: x for x in d['modes']})"
}

trace=$root/samples/traces/session_inline.jsonl
# The replay covers the trace's first 30 frames (of 45: the test stays short on a 2-core machine); the
# capture its first 15 (inline shape: every draw line stands alone). Prints the replayed frames and draws.
replayed=$(python3 - "$trace" "$tmp/capture.jsonl" <<'EOF'
import json, sys
frames = []
draws = 0
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as dst:
    for line in src:
        r = json.loads(line)
        if r.get("type") != "draw" or r["frame"] < 15:
            dst.write(line)
        if r.get("type") == "draw":
            if not frames or frames[-1] != r["frame"]:
                frames.append(r["frame"])
            if len(frames) <= 30:
                draws += 1
print((min(len(frames), 30), draws))
EOF
)
"$bin" build "$tmp/capture.jsonl" -o "$tmp/b.sbk" --cache-dir "$tmp/cache" >"$tmp/build.out" 2>"$tmp/build.err"
rc=$?
# Exit 1 is expected: programs with texture modes the exact emitter does not implement fail to generate.
check "build exits 0 or 1 (got $rc)" test $rc -le 1
check "the bundle is written" test -s "$tmp/b.sbk"

"$bin" warm "$tmp/b.sbk" >"$tmp/warm.out" 2>"$tmp/warm.err"
rc=$?
check "warm exits 0 (got $rc; stderr: $(head -c 600 "$tmp/warm.err"))" test $rc -eq 0

"$replay" "$trace" --bundle "$tmp/b.sbk" --mode all --frames 30 --json >"$tmp/all.json" 2>"$tmp/all.err"
rc=$?
out=$tmp/all.json
check "replay --mode all exits 0 (got $rc; stderr: $(grep -v '^replay:' "$tmp/all.err" | head -c 600))" test $rc -eq 0
check "the output is a shaderbake-replay/1 report with three modes" \
  test "$(py "$out" "(d['format'], [x['mode'] for x in d['modes']])")" = "('shaderbake-replay/1', ['none', 'bundle', 'bundle+cache'])"
check "the validation layer was on" test "$(py "$out" "d['validation_layer']")" = "True"
check "driver disk caches were off" grep -q "MESA_SHADER_CACHE_DISABLE=true" <<<"$(py "$out" "d['driver_caches']")"

for mode in none bundle bundle+cache; do
  x="m['$mode']"
  check "$mode: every frame and draw replayed $replayed" test "$(py "$out" "($x['frames'], $x['draws'])")" = "$replayed"
  check "$mode: route counts sum to the draws" \
    test "$(py "$out" "sum($x['routes'].values()) == $x['draws']")" = "True"
  check "$mode: first uses = exact created + fallback + uncovered" \
    test "$(py "$out" "$x['first_uses'] == $x['routes']['exact_created'] + $x['routes']['fallback'] + $x['routes']['uncovered_compiled'] + $x['routes']['uncovered_failed']")" = "True"
  check "$mode: first uses = draws - reused" \
    test "$(py "$out" "$x['first_uses'] == $x['draws'] - $x['routes']['reused']")" = "True"
  check "$mode: draws by route sum to the draws" \
    test "$(py "$out" "sum(v for k, v in $x['draws_by_route'].items() if k != 'skipped') == $x['draws']")" = "True"
  check "$mode: the fallback route compiled nothing and created no pipeline at first use" \
    test "$(py "$out" "($x['first_use_work']['fallback']['shader_compiles'], $x['first_use_work']['fallback']['pipelines_created'])")" = "(0, 0)"
  check "$mode: the exact route compiled nothing and created one pipeline per first use" \
    test "$(py "$out" "($x['first_use_work']['exact']['shader_compiles'], $x['first_use_work']['exact']['pipelines_created'] == $x['routes']['exact_created'])")" = "(0, True)"
  check "$mode: every compiled uncovered first use compiled two shaders and created one pipeline" \
    test "$(py "$out" "($x['first_use_work']['uncovered']['shader_compiles'], $x['first_use_work']['uncovered']['pipelines_created']) == (2 * $x['routes']['uncovered_compiled'], $x['routes']['uncovered_compiled'])")" = "True"
  check "$mode: stall counts shrink as the threshold grows, p50 <= p99 <= p99.9 <= max" \
    test "$(py "$out" "(lambda s, f: s['over_1ms'] >= s['over_4ms'] >= s['over_16_7ms'] and f['p50'] <= f['p99'] <= f['p99_9'] <= f['max'])($x['stalls'], $x['frame_first_use_ms'])")" = "True"
  check "$mode: zero validation messages" test "$(py "$out" "$x['validation_messages']")" = "0"
done

check "mode none compiled every first use (no bundle route served any)" \
  test "$(py "$out" "(m['none']['routes']['exact_created'], m['none']['routes']['fallback'], m['none']['routes']['uncovered_compiled'] + m['none']['routes']['uncovered_failed'] == m['none']['first_uses'])")" = "(0, 0, True)"
check "mode none loaded nothing" test "$(py "$out" "(m['none']['load_ms'], m['none']['load']['fallback_pipelines'])")" = "(0.0, 0)"
check "every mode met the same first uses" \
  test "$(py "$out" "len({x['first_uses'] for x in d['modes'] if x['available']})")" = "1"
check "bundle: the capture's states took the exact route, uncaptured admitted ones the fallback route" \
  test "$(py "$out" "(m['bundle']['routes']['exact_created'] > 0, m['bundle']['routes']['fallback'] > 0)")" = "(True, True)"
check "bundle: the fallback pipelines were created at load" \
  test "$(py "$out" "m['bundle']['load']['fallback_pipelines'] > 0")" = "True"
check "bundle: fewer compiles at first use than mode none" \
  test "$(py "$out" "m['bundle']['first_use_work']['uncovered']['shader_compiles'] < m['none']['first_use_work']['uncovered']['shader_compiles']")" = "True"
check "bundle+cache: the same routes as bundle" test "$(py "$out" "m['bundle+cache']['routes'] == m['bundle']['routes']")" = "True"
check "bundle+cache: the pipeline cache started from the bundle's blob" \
  test "$(py "$out" "m['bundle+cache']['load']['driver_cache_bytes'] > 0")" = "True"

# The text report: the modes side by side.
"$replay" "$trace" --bundle "$tmp/b.sbk" --mode bundle --frames 3 >"$tmp/text.out" 2>"$tmp/text.err"
check "a text report of 3 frames exits 0 (got $?)" test $? -eq 0
check "the text report has the stall distribution" grep -q "frame first-use stall ms  p50" "$tmp/text.out"
check "the text report counted 3 frames" grep -Eq "^frames +3$" "$tmp/text.out"

# Usage errors.
"$replay" "$trace" --mode bundle >/dev/null 2>&1
check "a bundle mode without --bundle is a usage error" test $? -eq 2
"$replay" "$trace" --mode sideways >/dev/null 2>&1
check "an unknown mode is a usage error" test $? -eq 2
"$replay" "$tmp/missing.jsonl" --mode none >/dev/null 2>&1
check "a missing trace is an error (not 0)" test $? -ne 0

finish cli_replay
