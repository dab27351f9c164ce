#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# samples/replay end to end on lavapipe, under the validation layer (any message fails), over the first 30
# frames of a sample trace, all five modes in one process with --compare-pixels:
#   run "whole": a bundle built from a capture of the 30 replayed frames (every state the replay meets is in it);
#   run "half":  a bundle built from a capture of the first 15 (the replay meets captured states, uncaptured ones
#                a fallback serves, and uncaptured ones that must be compiled);
#   run "static": the half bundle, modes bundle and hybrid with --no-dynamic-state --no-prewarm --workers 2.
# Each bundle is warmed with `shaderbake warm` for the +cache modes. Checks that the numbers add up within each
# mode and agree across modes (the router modes against the bundle modes' routes), that no fallback route
# compiles or creates anything on the render thread, that the router serves the half bundle's unseen host
# states by fallback where the bundle mode compiles them, that the router modes' frames match mode bundle's
# pixels, and that the validation layer reported nothing. No check depends on how long anything took.
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
holds() {  # holds NAME JSON-FILE EXPR: a check that EXPR (py's names) is True
  check "$1" test "$(py "$2" "$3")" = "True"
}

trace=$root/samples/traces/session_inline.jsonl
# Captures (inline shape: every draw line stands alone) of the first 30 and the first 15 frames. Prints the
# replayed frames and draws.
replayed=$(python3 - "$trace" "$tmp/capture_whole.jsonl" "$tmp/capture_half.jsonl" <<'EOF'
import json, sys
frames = []
draws = 0
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as whole, open(sys.argv[3], "w") as half:
    for line in src:
        r = json.loads(line)
        if r.get("type") != "draw" or r["frame"] < 30:
            whole.write(line)
        if r.get("type") != "draw" or r["frame"] < 15:
            half.write(line)
        if r.get("type") == "draw":
            if not frames or frames[-1] != r["frame"]:
                frames.append(r["frame"])
            if len(frames) <= 30:
                draws += 1
print((min(len(frames), 30), draws))
EOF
)
for capture in whole half; do
  "$bin" build "$tmp/capture_$capture.jsonl" -o "$tmp/$capture.sbk" --cache-dir "$tmp/cache" >"$tmp/build_$capture.out" 2>"$tmp/build_$capture.err"
  rc=$?
  # Exit 1 is expected: programs with texture modes the exact emitter does not implement fail to generate.
  check "build $capture exits 0 or 1 (got $rc)" test $rc -le 1
  check "the $capture bundle is written" test -s "$tmp/$capture.sbk"
  "$bin" warm "$tmp/$capture.sbk" >"$tmp/warm_$capture.out" 2>"$tmp/warm_$capture.err"
  rc=$?
  check "warm $capture exits 0 (got $rc; stderr: $(head -c 600 "$tmp/warm_$capture.err"))" test $rc -eq 0
done

run_replay() {  # run_replay NAME BUNDLE OPTIONS...: the JSON report in $tmp/NAME.json
  local name=$1 bundle=$2
  shift 2
  "$replay" "$trace" --bundle "$bundle" --frames 30 --compare-pixels --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"
  local rc=$?
  check "replay $name exits 0 (got $rc; stderr: $(grep -v '^replay:' "$tmp/$name.err" | head -c 600))" test $rc -eq 0
}
run_replay whole "$tmp/whole.sbk" --mode all
run_replay half "$tmp/half.sbk" --mode all
run_replay static "$tmp/half.sbk" --mode bundle,hybrid --no-dynamic-state --no-prewarm --workers 2

# ---- every mode of every run ----
for run in whole half static; do
  out=$tmp/$run.json
  check "$run: the validation layer was on" test "$(py "$out" "d['validation_layer']")" = "True"
  check "$run: the report names the trace's guest" test "$(py "$out" "d['guest']")" = "nv2a"
  check "$run: driver disk caches were off" grep -q "MESA_SHADER_CACHE_DISABLE=true" <<<"$(py "$out" "d['driver_caches']")"
  for mode in $(py "$out" "' '.join(x['mode'] for x in d['modes'])"); do
    x="m['$mode']"
    what="$run/$mode"
    check "$what: every frame and draw replayed $replayed" test "$(py "$out" "($x['frames'], $x['draws'])")" = "$replayed"
    holds "$what: route counts sum to the draws" "$out" "sum($x['routes'].values()) == $x['draws']"
    holds "$what: first uses = exact + fallback + dynamic fallback + uncovered" "$out" \
      "$x['first_uses'] == sum($x['routes'][k] for k in ('exact_created', 'fallback', 'dynamic_fallback', 'uncovered_compiled', 'uncovered_failed'))"
    holds "$what: first uses = draws - reused" "$out" "$x['first_uses'] == $x['draws'] - $x['routes']['reused']"
    holds "$what: draws by route sum to the draws" "$out" \
      "sum(v for k, v in $x['draws_by_route'].items() if k != 'skipped') == $x['draws']"
    holds "$what: every route's first uses are counted in first_use_work" "$out" \
      "all($x['first_use_work'][k]['first_uses'] == $x['routes'][r] for k, r in (('exact', 'exact_created'), ('fallback', 'fallback'), ('dynamic_fallback', 'dynamic_fallback'))) and $x['first_use_work']['uncovered']['first_uses'] == $x['routes']['uncovered_compiled'] + $x['routes']['uncovered_failed']"
    holds "$what: the fallback routes compiled nothing and created no pipeline on the render thread" "$out" \
      "all($x['first_use_work'][k]['shader_compiles'] == 0 and $x['first_use_work'][k]['pipelines_created'] == 0 for k in ('fallback', 'dynamic_fallback'))"
    holds "$what: the exact route compiled nothing" "$out" "$x['first_use_work']['exact']['shader_compiles'] == 0"
    holds "$what: every compiled uncovered first use compiled two shaders and created one pipeline" "$out" \
      "($x['first_use_work']['uncovered']['shader_compiles'], $x['first_use_work']['uncovered']['pipelines_created']) == (2 * $x['routes']['uncovered_compiled'], $x['routes']['uncovered_compiled'])"
    holds "$what: render-thread pipelines are the first-use work's" "$out" \
      "$x['pipelines_created']['render_thread'] == sum(w['pipelines_created'] for w in $x['first_use_work'].values())"
    holds "$what: stall counts shrink as the threshold grows, p50 <= p99 <= p99.9 <= max" "$out" \
      "(lambda s, f: s['over_1ms'] >= s['over_4ms'] >= s['over_16_7ms'] and f['p50'] <= f['p99'] <= f['p99_9'] <= f['max'])($x['stalls'], $x['frame_first_use_ms'])"
    holds "$what: the fallback draws' GPU time was measured (lavapipe writes timestamps)" "$out" \
      "$x['fallback_gpu_ms'] is not None and 0 <= $x['fallback_gpu_ms']['p50'] <= $x['fallback_gpu_ms']['max'] <= $x['fallback_gpu_ms']['total']"
    holds "$what: no fallback draw, no fallback GPU time" "$out" \
      "$x['draws_by_route']['fallback'] + $x['draws_by_route']['dynamic_fallback'] > 0 or $x['fallback_gpu_ms']['total'] == 0"
    check "$what: zero validation messages" test "$(py "$out" "$x['validation_messages']")" = "0"
  done
done

# ---- the router modes of every run ----
for run in whole half static; do
  out=$tmp/$run.json
  for mode in $(py "$out" "' '.join(x['mode'] for x in d['modes'] if x['mode'].startswith('hybrid'))"); do
    x="m['$mode']"
    r="$x['router']"
    b="m['bundle']"
    what="$run/$mode"
    holds "$what: the router's figures are reported" "$out" \
      "all(k in $r for k in ('workers', 'dynamic_state', 'ready_before_demand_ratio', 'promotions', 'worker_cpu_ms', 'frame_router_ms', 'load_ms'))"
    holds "$what: the router's load is part of the mode's load, before the first frame" "$out" \
      "0 < $r['load_ms'] <= $x['load_ms'] and $x['pipelines_created']['at_load'] == $x['load']['fallback_pipelines'] > 0 and $r['load_failures'] == 0"
    holds "$what: the device has the dynamic-state fallback's features (lavapipe)" "$out" "$r['dynamic_state_supported']"
    holds "$what: one fallback kind: dynamic-state or per-host-state pipelines" "$out" \
      "($x['routes']['fallback'] if $r['dynamic_state'] else $x['routes']['dynamic_fallback']) == 0"
    holds "$what: a draw of a pair with a fallback never creates a pipeline on the render thread" "$out" \
      "$r['foreground_creations'] == $x['pipelines_created']['render_thread_without_fallback'] == $x['first_use_work']['exact']['pipelines_created']"
    holds "$what: the exact pipelines drawn were adopted from the workers" "$out" \
      "$x['draws_by_route']['exact'] == 0 or $r['adopted'] > 0"
    holds "$what: an exact pipeline was asked for by each first use the bundle mode served exact" "$out" \
      "$r['ready_at_demand'] + $r['not_ready_at_demand'] == $b['routes']['exact_created']"
    holds "$what: pairs first drawn on a fallback are each promoted, waiting, without an exact pipeline, or failed" "$out" \
      "sum($r['first_drawn_on_fallback'].values()) == $x['routes']['fallback'] + $x['routes']['dynamic_fallback']"
    holds "$what: each promotion within the trace is a pair first drawn on a fallback and adopted" "$out" \
      "$r['promotions']['count'] == $r['first_drawn_on_fallback']['promoted'] and $r['promotions']['frames']['p50'] <= $r['promotions']['frames']['max']"
    holds "$what: pairs without an exact pipeline meet the same routes as in mode bundle, fallbacks for compiles" "$out" \
      "$r['first_drawn_on_fallback']['no_exact_pipeline'] + $x['routes']['uncovered_compiled'] + $x['routes']['uncovered_failed'] == $b['routes']['fallback'] + $b['routes']['uncovered_compiled'] + $b['routes']['uncovered_failed']"
    holds "$what: the same draws skipped as in mode bundle (programs nothing can generate)" "$out" \
      "$x['draws_by_route']['skipped'] == $b['draws_by_route']['skipped']"
    holds "$what: its frames were compared with mode bundle's: every frame, no pixel beyond the tolerance" "$out" \
      "(lambda p: p['compared_with'] == 'bundle' and p['tolerance_lsb'] == 1 and p['frames_compared'] == $x['frames'] and p['frames_not_comparable'] == 0 and p['images_compared'] > 0 and p['texels_drawn'] > 0 and p['mismatched_pixels'] == 0 and p['first_mismatch_frame'] is None and p['max_difference'] <= 1)($x['pixels'])"
  done
done

# ---- run whole: five modes, every state in the bundle ----
out=$tmp/whole.json
check "whole: the report is shaderbake-replay/1 with the five modes in order" \
  test "$(py "$out" "(d['format'], [x['mode'] for x in d['modes']])")" = "('shaderbake-replay/1', ['none', 'bundle', 'hybrid', 'bundle+cache', 'hybrid+cache'])"
holds "whole: mode none compiled every first use (no bundle route served any)" "$out" \
  "(m['none']['routes']['exact_created'], m['none']['routes']['fallback'], m['none']['routes']['dynamic_fallback']) == (0, 0, 0) and m['none']['routes']['uncovered_compiled'] + m['none']['routes']['uncovered_failed'] == m['none']['first_uses']"
holds "whole: mode none loaded nothing and has no router" "$out" \
  "(m['none']['load_ms'], m['none']['load']['fallback_pipelines'], m['none']['router']) == (0.0, 0, None)"
holds "whole: every mode met the same first uses" "$out" "len({x['first_uses'] for x in d['modes']}) == 1"
holds "whole: bundle served every generatable first use exact" "$out" \
  "m['bundle']['routes']['exact_created'] == m['bundle']['first_uses'] - m['bundle']['routes']['uncovered_failed']"
for mode in hybrid hybrid+cache; do
  # Every program of the sample the exact emitter generates is admitted: each first use has an exact pipeline
  # and a fallback, so nothing is created or compiled on the render thread.
  holds "whole/$mode: no pipeline created and nothing compiled on the render thread" "$out" \
    "m['$mode']['pipelines_created']['render_thread'] == 0 and sum(w['shader_compiles'] for w in m['$mode']['first_use_work'].values()) == 0"
done
holds "whole: hybrid+cache started from the bundle's blob, hybrid from an empty cache" "$out" \
  "m['hybrid+cache']['load']['driver_cache_bytes'] > 0 and m['hybrid']['load']['pipeline_cache'] == 'empty'"

# ---- run half: unseen host states ----
out=$tmp/half.json
holds "half: bundle: the capture's states took the exact route, uncaptured admitted ones the fallback route" "$out" \
  "m['bundle']['routes']['exact_created'] > 0 and m['bundle']['routes']['fallback'] > 0"
holds "half: bundle: fewer compiles at first use than mode none" "$out" \
  "m['bundle']['first_use_work']['uncovered']['shader_compiles'] < m['none']['first_use_work']['uncovered']['shader_compiles']"
holds "half: bundle+cache: the same routes as bundle" "$out" "m['bundle+cache']['routes'] == m['bundle']['routes']"
holds "half: bundle+cache: the pipeline cache started from the bundle's blob" "$out" \
  "m['bundle+cache']['load']['driver_cache_bytes'] > 0"
for mode in hybrid hybrid+cache; do
  x="m['$mode']"
  # The states the bundle mode compiles (host states no capture saw, of programs with a fallback family) take
  # the dynamic-state fallback: no compile on the render thread for them.
  holds "half/$mode: unseen host states bundle compiles are served by the dynamic-state fallback" "$out" \
    "$x['router']['dynamic_state'] and $x['routes']['dynamic_fallback'] > 0 and $x['routes']['uncovered_compiled'] < m['bundle']['routes']['uncovered_compiled']"
  holds "half/$mode: those first uses compiled nothing and created nothing on the render thread" "$out" \
    "$x['first_use_work']['dynamic_fallback']['shader_compiles'] == 0 and $x['first_use_work']['dynamic_fallback']['pipelines_created'] == 0 and $x['first_use_work']['uncovered']['shader_compiles'] == 2 * $x['routes']['uncovered_compiled']"
  holds "half/$mode: pairs without an exact pipeline stay on their fallback" "$out" \
    "$x['router']['first_drawn_on_fallback']['no_exact_pipeline'] > 0"
done

# ---- run static: per-host-state fallbacks, exact pipelines only on demand ----
out=$tmp/static.json
holds "static: the router served the per-host-state fallback pipelines with 2 workers, no prewarm" "$out" \
  "(m['hybrid']['router']['dynamic_state'], m['hybrid']['router']['workers'], m['hybrid']['router']['prewarm'], m['hybrid']['routes']['dynamic_fallback']) == (False, 2, False, 0)"
holds "static: with per-host-state fallbacks the router compiles what bundle compiles" "$out" \
  "m['hybrid']['routes']['uncovered_compiled'] == m['bundle']['routes']['uncovered_compiled']"
holds "static: without prewarm no exact pipeline is ready before its first draw" "$out" \
  "m['hybrid']['router']['ready_at_demand'] == 0 and m['hybrid']['router']['ready_before_demand_ratio'] == 0"
holds "static: every pair with an exact pipeline and a fallback was first drawn on its fallback" "$out" \
  "m['hybrid']['routes']['fallback'] + m['hybrid']['routes']['exact_created'] == m['bundle']['routes']['exact_created'] + m['bundle']['routes']['fallback'] and m['hybrid']['routes']['exact_created'] == m['hybrid']['pipelines_created']['render_thread_without_fallback']"

# The text report: the modes side by side, the router's rows.
"$replay" "$trace" --bundle "$tmp/half.sbk" --mode bundle,hybrid --frames 3 >"$tmp/text.out" 2>"$tmp/text.err"
check "a text report of 3 frames exits 0 (got $?)" test $? -eq 0
check "the text report has the stall distribution" grep -q "frame first-use stall ms  p50" "$tmp/text.out"
check "the text report counted 3 frames in both modes" grep -Eq "^frames +3 +3$" "$tmp/text.out"
check "the text report has the router's rows" grep -Eq "^router: workers +- +[0-9]+$" "$tmp/text.out"

# Paced frames: frame n starts no earlier than n intervals after frame 0 (sleep_until never wakes early), so
# 6 frames 60 ms apart take at least 300 ms of wall time; the report says how the frames were paced.
start_ns=$(date +%s%N)
"$replay" "$trace" --bundle "$tmp/half.sbk" --mode hybrid --frames 6 --frame-interval-ms 60 --json >"$tmp/paced.json" 2>"$tmp/paced.err"
check "a paced replay exits 0 (got $?)" test $? -eq 0
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
check "6 frames paced 60 ms apart took at least 300 ms (took $elapsed_ms)" test "$elapsed_ms" -ge 300
holds "the paced report states the interval" "$tmp/paced.json" "d['frame_interval_ms'] == 60 and d['modes'][0]['frames'] == 6"
"$replay" "$trace" --bundle "$tmp/half.sbk" --mode hybrid --frames 3 --json >"$tmp/unpaced.json" 2>/dev/null
holds "an unpaced report says so (null interval)" "$tmp/unpaced.json" "d['frame_interval_ms'] is None"

# Usage errors.
"$replay" "$trace" --bundle "$tmp/half.sbk" --mode hybrid --frame-interval-ms -1 >/dev/null 2>&1
check "a negative --frame-interval-ms is a usage error" test $? -eq 2
"$replay" "$trace" --mode bundle >/dev/null 2>&1
check "a bundle mode without --bundle is a usage error" test $? -eq 2
"$replay" "$trace" --mode hybrid >/dev/null 2>&1
check "a router mode without --bundle is a usage error" test $? -eq 2
"$replay" "$trace" --mode sideways >/dev/null 2>&1
check "an unknown mode is a usage error" test $? -eq 2
"$replay" "$trace" --bundle "$tmp/half.sbk" --mode hybrid --compare-pixels >/dev/null 2>&1
check "--compare-pixels without mode bundle is a usage error" test $? -eq 2
"$replay" "$trace" --bundle "$tmp/half.sbk" --mode hybrid --workers 0 >/dev/null 2>&1
check "--workers 0 is a usage error" test $? -eq 2
"$replay" "$tmp/missing.jsonl" --mode none >/dev/null 2>&1
check "a missing trace is an error (not 0)" test $? -ne 0

finish cli_replay
