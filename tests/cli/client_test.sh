#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End to end on the samples: `shaderbake build` a bundle from each sample trace, `shaderbake dedupe --keys`
# its keys, then samples/client/bundle_client (plain C, the runtime headers only) selects a route for every
# key line and creates every pipeline it hits on Vulkan (lavapipe) under the validation layer.
# Usage: client_test.sh SHADERBAKE BUNDLE_CLIENT SOURCE_ROOT
bin=$1
client=$2
root=$3
source "$(dirname "$0")/common.sh"

for name in session_ref session_inline; do
  # The sample plus two programs with no exact shader (brdf: unknown on hardware, refused by admission too):
  # exit 1, the failures reported with their keys; the bundle is written all the same.
  trace=$tmp/$name.jsonl
  python3 "$root/tests/cli/append_brdf_draws.py" "$root/samples/traces/$name.jsonl" "$trace" 2
  "$bin" build "$trace" -o "$tmp/$name.sbk" --cache-dir "$tmp/cache" --report "$tmp/$name.report.json" \
    >"$tmp/$name.build.out" 2>"$tmp/$name.build.err"
  rc=$?
  check "$name: build exits 0 or 1 (got $rc)" test $rc -le 1
  check "$name: the bundle is written" test -s "$tmp/$name.sbk"

  "$bin" dedupe --json --keys "$tmp/$name.keys" "$trace" >"$tmp/$name.dedupe.json" 2>/dev/null
  check "$name: dedupe --keys exits 0" test $? -eq 0
  check "$name: the key file starts with its format line" test "$(head -n 1 "$tmp/$name.keys")" = "# shaderbake-keys/1"
  lines=$(grep -vc '^#' "$tmp/$name.keys")
  check "$name: one key line per exact pipeline key ($lines)" \
    test "$lines" = "$(json_field "$tmp/$name.dedupe.json" "d['unique_pipeline_keys']")"

  # The renderer's order: exact, then fallback, then an explicit miss.
  "$client" "$tmp/$name.sbk" "$tmp/$name.keys" --json >"$tmp/$name.client.json" 2>"$tmp/$name.client.err"
  rc=$?
  check "$name: bundle_client exits 0 (got $rc; stderr: $(head -c 600 "$tmp/$name.client.err"))" test $rc -eq 0
  out=$tmp/$name.client.json
  check "$name: every key line is counted once" \
    test "$(json_field "$out" "d['exact_hits'] + d['fallback_hits'] + d['misses_total']")" = "$lines"
  check "$name: the client read every line" test "$(json_field "$out" "(d['lines'], d['bad_lines'])")" = "($lines, 0)"
  check "$name: the validation layer was on" test "$(json_field "$out" "d['validation_layer']")" = "True"
  check "$name: zero validation messages" test "$(json_field "$out" "d['validation_messages']")" = "0"
  check "$name: every exact pipeline of the bundle was created, none failed" \
    test "$(json_field "$out" "(d['pipelines_created'], d['pipeline_failures'])")" = \
         "($(json_field "$tmp/$name.report.json" "d['exact_pipelines']"), 0)"
  # Misses are exactly the programs whose exact shader failed to generate, and admission rejected them all
  # (an admitted program would have been served by its family's ubershader).
  failed=$(json_field "$tmp/$name.report.json" "sorted({f['key'] for f in d['failures'] if f['route'] == 'exact'})")
  check "$name: the build reported exact failures" test "$failed" != "[]"
  check "$name: misses are the programs whose exact shader failed ($failed)" \
    test "$(json_field "$out" "sorted({m['exact_key'] for m in d['misses']})")" = "$failed"
  check "$name: every miss is generation_failed and rejected by admission" \
    test "$(json_field "$out" "sorted({(m['reason'], m['admission'] != 'admitted') for m in d['misses']})")" = \
         "[('generation_failed', True)]"

  # Fallback first: the same answers, and now every ubershader pipeline of the bundle is created.
  "$client" "$tmp/$name.sbk" "$tmp/$name.keys" --json --prefer-fallback >"$tmp/$name.fallback.json" \
    2>"$tmp/$name.fallback.err"
  rc=$?
  out=$tmp/$name.fallback.json
  check "$name: --prefer-fallback exits 0 (got $rc; stderr: $(head -c 600 "$tmp/$name.fallback.err"))" test $rc -eq 0
  # (Programs admission refuses, such as the texture-shader modes the ubershader lacks, stay exact.)
  check "$name: --prefer-fallback serves every admitted line by fallback" \
    test "$(json_field "$out" "(d['exact_hits'] == d['exact_hits_rejected_by_admission'], d['exact_hits'] + d['fallback_hits'] + d['misses_total'])")" = "(True, $lines)"
  check "$name: --prefer-fallback creates every fallback pipeline, with zero validation messages" \
    test "$(json_field "$out" "(d['pipelines_created'] - d['exact_pipelines_created'], d['pipeline_failures'], d['validation_messages'])")" = \
         "($(json_field "$tmp/$name.report.json" "d['fallback_pipelines']"), 0, 0)"
  check "$name: --prefer-fallback misses the same programs" \
    test "$(json_field "$out" "sorted({m['exact_key'] for m in d['misses']})")" = "$failed"
done

# A host state one field away from a real one (the sample count) must miss, not hit another entry: the
# first line whose program is served, with a sample count no line of that program uses.
python3 - "$tmp/session_ref.keys" >"$tmp/mutated.keys" <<'EOF'
import sys
lines = [l.split() for l in open(sys.argv[1]) if not l.startswith('#')]
frame, key, host = lines[0]
b = bytearray.fromhex(host)
at = 41 + 12 * b[40] + 4  # topology..stencil (40 B), colour count, 12 B per attachment, depth format: samples
used = {l[2] for l in lines if l[1] == key}
for samples in (2, 4, 8, 16):
    b[at] = samples
    if b.hex() not in used:
        break
print("# shaderbake-keys/1")
print(frame, key, b.hex())
EOF
"$client" "$tmp/session_ref.sbk" "$tmp/mutated.keys" --json >"$tmp/mutated.json" 2>"$tmp/mutated.err"
check "a host state with another sample count exits 0" test $? -eq 0
check "a host state with another sample count misses" \
  test "$(json_field "$tmp/mutated.json" "(d['lines'], d['exact_hits'], d['fallback_hits'], d['misses_total'])")" = "(1, 0, 0, 1)"
check "its reason: no pipeline for that host state" \
  test "$(json_field "$tmp/mutated.json" "d['misses'][0]['reason']")" = "no_pipeline_for_host_state"

# A malformed line is bad input (exit 3) and names file and line.
{ echo "# shaderbake-keys/1"; echo "0 0101 00"; } >"$tmp/bad.keys"
"$client" "$tmp/session_ref.sbk" "$tmp/bad.keys" >/dev/null 2>"$tmp/bad.err"
check "a malformed key line exits 3" test $? -eq 3
check "the error names file and line" grep -q "^error: .*bad.keys:2:" "$tmp/bad.err"
"$client" "$tmp/session_ref.sbk" >/dev/null 2>&1
check "a missing argument is a usage error" test $? -eq 2

finish cli_client
