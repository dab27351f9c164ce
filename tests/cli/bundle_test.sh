#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI contract of `shaderbake build`, `verify` and `inspect`: determinism at any -j and with or without the
# artifact cache, the cold -> warm cycle (same bytes, nothing new stored), a corrupted cache entry detected and
# rebuilt, one-field-apart states getting entries of their own, verify catching a damaged bundle.
# Usage: bundle_test.sh SHADERBAKE SOURCE_ROOT
bin=$1
root=$2
source "$(dirname "$0")/common.sh"
# The sample plus two programs that get no exact shader (brdf: unknown on hardware), so that a build has
# failures to report.
trace=$tmp/session_ref_brdf.jsonl
python3 "$root/tests/cli/append_brdf_draws.py" "$root/samples/traces/session_ref.jsonl" "$trace" 2

# Cold build into a fresh cache, on two threads. Exit 1: the brdf programs fail.
"$bin" build "$trace" -o "$tmp/cold.sbk" --cache-dir "$tmp/cache" --report "$tmp/report.json" --json -j2 \
  >"$tmp/cold.json" 2>"$tmp/cold.err"
check "build exits 1 when some modules failed" test $? -eq 1
check "build names each failure on stderr" test "$(grep -c "no exact shader for brdf" "$tmp/cold.err")" -eq 2
check "the bundle is written despite failures" test -s "$tmp/cold.sbk"
check "no temporary file is left next to the bundle" test -z "$(ls "$tmp" | grep '\.tmp')"
check "the report file lists the failures" \
  test "$(json_field "$tmp/report.json" "len(d['failures'])")" = "$(json_field "$tmp/cold.json" "d['failures']")"
check "a cold build stores what it compiles" test "$(json_field "$tmp/cold.json" "d['cache']['stores'] > 0")" = True

# Warm build, nothing changed: the build memo gives the cold build's outputs and stderr, byte for byte, and
# its exit status; nothing new is stored.
"$bin" build "$trace" -o "$tmp/warm.sbk" --cache-dir "$tmp/cache" --report "$tmp/warm_report.json" --json \
  >"$tmp/warm.json" 2>"$tmp/warm.err"
check "a no-change build exits as the cold one did" test $? -eq 1
check "the cold build looked for a build memo" test "$(json_field "$tmp/cold.json" "d['build_memo']")" = miss
check "the cold build stored its memo" test "$(json_field "$tmp/cold.json" "'build_memo_reason' not in d")" = True
check "a no-change build is a memo hit" test "$(json_field "$tmp/warm.json" "d['build_memo']")" = hit
check "warm build gives the same bytes" cmp -s "$tmp/cold.sbk" "$tmp/warm.sbk"
check "warm build gives the same report" cmp -s "$tmp/report.json" "$tmp/warm_report.json"
check "warm build prints the same diagnostics" cmp -s "$tmp/cold.err" "$tmp/warm.err"
check "warm build gives the same summary" test "$(json_field "$tmp/warm.json" "[d[k] for k in d if k not in ('output', 'threads', 'seconds', 'cache', 'build_memo')]")" = \
  "$(json_field "$tmp/cold.json" "[d[k] for k in d if k not in ('output', 'threads', 'seconds', 'cache', 'build_memo')]")"
check "warm build misses nothing" test "$(json_field "$tmp/warm.json" "d['cache']['misses']")" = 0
check "warm build stores nothing" test "$(json_field "$tmp/warm.json" "d['cache']['stores']")" = 0

# Warm build running every stage (--no-build-memo): every module from the artifact cache, nothing stored.
"$bin" build "$trace" -o "$tmp/staged.sbk" --cache-dir "$tmp/cache" --no-build-memo --json >"$tmp/staged.json" 2>/dev/null
check "--no-build-memo runs every stage" test "$(json_field "$tmp/staged.json" "d['build_memo']")" = disabled
check "a staged warm build gives the same bytes" cmp -s "$tmp/cold.sbk" "$tmp/staged.sbk"
check "a staged warm build misses nothing" test "$(json_field "$tmp/staged.json" "d['cache']['misses']")" = 0
check "a staged warm build hits every module" test "$(json_field "$tmp/staged.json" "d['cache']['hits'] > 1")" = True
check "a staged warm build stores nothing" test "$(json_field "$tmp/staged.json" "d['cache']['stores']")" = 0

# Determinism: thread count and the cache never change the bytes (one more full build, not one per variable:
# the cold build above ran on two threads and through the cache, this one on one thread without it).
"$bin" build "$trace" -o "$tmp/j1.sbk" --no-cache -j1 >/dev/null 2>&1
check "-j1 without the cache and -j2 through it agree" cmp -s "$tmp/cold.sbk" "$tmp/j1.sbk"

# A corrupted module entry (the smallest entries are modules; the memo and the compression record are larger)
# is detected, discarded and rebuilt; the bundle does not change.
entry=$(find "$tmp/cache" -name '*.sbkc' -printf '%s %p\n' | sort -n | head -n 1 | cut -d' ' -f2-)
flip_bits "$entry" $(($(stat -c %s "$entry") / 2)) 0x40
"$bin" build "$trace" -o "$tmp/rebuilt.sbk" --cache-dir "$tmp/cache" --no-build-memo --json >"$tmp/rebuilt.json" 2>/dev/null
check "the corrupted entry is discarded" test "$(json_field "$tmp/rebuilt.json" "d['cache']['corrupt_discarded']")" = 1
check "the corrupted entry is rebuilt" test "$(json_field "$tmp/rebuilt.json" "d['cache']['stores']")" = 1
check "the rebuilt entry is whole again" test -s "$entry"
check "the bundle is unchanged by the corruption" cmp -s "$tmp/cold.sbk" "$tmp/rebuilt.sbk"

# A corrupted memo (the largest entry: it holds the bundle) is discarded; the build runs every stage and
# remembers again.
memo=$(find "$tmp/cache" -name '*.sbkc' -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
flip_bits "$memo" $(($(stat -c %s "$memo") / 3)) 0x08
"$bin" build "$trace" -o "$tmp/remembered.sbk" --cache-dir "$tmp/cache" --json >"$tmp/remembered.json" 2>/dev/null
check "a corrupted memo is discarded" test "$(json_field "$tmp/remembered.json" "d['cache']['corrupt_discarded']")" = 1
check "a corrupted memo is a miss" test "$(json_field "$tmp/remembered.json" "d['build_memo']")" = miss
check "a corrupted memo is stored again" test "$(json_field "$tmp/remembered.json" "d['cache']['stores']")" = 1
check "the bundle is unchanged by the corrupted memo" cmp -s "$tmp/cold.sbk" "$tmp/remembered.sbk"

# A memo hit writes outputs that are missing or differ, and leaves an identical one in place (same inode).
rm -f "$tmp/remembered.sbk"
"$bin" build "$trace" -o "$tmp/remembered.sbk" --cache-dir "$tmp/cache" >/dev/null 2>&1
check "a memo hit writes a missing bundle" cmp -s "$tmp/cold.sbk" "$tmp/remembered.sbk"
flip_bits "$tmp/remembered.sbk" 200 0x01
"$bin" build "$trace" -o "$tmp/remembered.sbk" --cache-dir "$tmp/cache" >/dev/null 2>&1
check "a memo hit rewrites a bundle that differs" cmp -s "$tmp/cold.sbk" "$tmp/remembered.sbk"
inode=$(stat -c %i "$tmp/remembered.sbk")
touch -d '2001-01-01' "$tmp/remembered.sbk"
"$bin" build "$trace" -o "$tmp/remembered.sbk" --cache-dir "$tmp/cache" >"$tmp/hit.out" 2>/dev/null
check "a memo hit leaves an identical bundle in place" test "$(stat -c %i "$tmp/remembered.sbk")" = "$inode"
check "... and marks it as made now" test "$(stat -c %Y "$tmp/remembered.sbk")" -gt 1000000000
check "the text summary says the outputs were copied" grep -q "no input changed" "$tmp/hit.out"

# Any change to a trace's content, its name or the options that decide outputs misses the memo.
cp "$trace" "$tmp/edited.jsonl"
"$bin" build "$tmp/edited.jsonl" -o "$tmp/edited.sbk" --cache-dir "$tmp/cache" --json >"$tmp/renamed.json" 2>/dev/null
check "a trace under another name misses" test "$(json_field "$tmp/renamed.json" "d['build_memo']")" = miss
tail -n 1 "$trace" >>"$tmp/edited.jsonl"
"$bin" build "$tmp/edited.jsonl" -o "$tmp/edited.sbk" --cache-dir "$tmp/cache" --json >"$tmp/edited.json" 2>/dev/null
check "an edited trace misses" test "$(json_field "$tmp/edited.json" "d['build_memo']")" = miss
check "an edited trace is read again" test "$(json_field "$tmp/edited.json" "d['draws']")" -eq \
  "$(($(json_field "$tmp/renamed.json" "d['draws']") + 1))"
"$bin" build "$tmp/edited.jsonl" -o "$tmp/strict.sbk" --cache-dir "$tmp/cache" --strict --json >"$tmp/strict.json" 2>/dev/null
check "--strict misses a memo made without it" test "$(json_field "$tmp/strict.json" "d['build_memo']")" = miss
# A bad record whose text holds a NUL, an escape byte and a C1 control (U+009B, CSI): each diagnostic stays one whole line, control bytes
# written as \xNN, and a hit prints exactly what the build printed.
echo '{"type": "draw", "frame": 1, "draw": 1, "state": "no-such\u0000state\u001b[2J\u009b"}' >>"$tmp/edited.jsonl"
"$bin" build "$tmp/edited.jsonl" -o "$tmp/edited.sbk" --cache-dir "$tmp/cache" >/dev/null 2>"$tmp/bad_cold.err"
"$bin" build "$tmp/edited.jsonl" -o "$tmp/edited.sbk" --cache-dir "$tmp/cache" --json >"$tmp/bad_warm.json" 2>"$tmp/bad_warm.err"
check "a hit over a bad record is still a hit" test "$(json_field "$tmp/bad_warm.json" "d['build_memo']")" = hit
check "a hit repeats the bad record's warning" grep -qF 'no-such\x00state\x1b[2J\xc2\x9b"' "$tmp/bad_warm.err"
check "no control byte reaches stderr" test -z "$(tr -d '\n' <"$tmp/bad_warm.err" | tr -d '[:print:]')"
check "a hit repeats every diagnostic" cmp -s "$tmp/bad_cold.err" "$tmp/bad_warm.err"
check "a hit counts the bad record" test "$(json_field "$tmp/bad_warm.json" "sum(d['bad_records'].values())")" -ge 1
# A trace that cannot be used as a whole (here: no capture record) leaves no memo: the next build runs again.
echo '{"type": "draw", "frame": 1, "draw": 1, "state": "s1"}' >"$tmp/headless.jsonl"
for run in first second; do
  "$bin" build "$trace" "$tmp/headless.jsonl" -o "$tmp/headless.sbk" --cache-dir "$tmp/cache" --json \
    >"$tmp/headless_$run.json" 2>/dev/null
done
check "a build with an unusable trace says why it stored no memo" grep -q "was not read whole" "$tmp/headless_first.json"
check "... and the next build misses again" test "$(json_field "$tmp/headless_second.json" "d['build_memo']")" = miss
cat "$trace" | "$bin" build /dev/stdin -o "$tmp/stdin.sbk" --cache-dir "$tmp/cache" --json >"$tmp/stdin.json" 2>/dev/null
check "a trace on a pipe builds without a memo" test "$(json_field "$tmp/stdin.json" "d['build_memo']")" = unavailable
check "... and says why" grep -q "not a regular file" "$tmp/stdin.json"

# verify: the bundle passes; a damaged copy fails with exit 1 and a named problem.
"$bin" verify "$tmp/cold.sbk" >"$tmp/verify.out" 2>&1
check "verify passes on a built bundle" test $? -eq 0
"$bin" verify --json "$tmp/cold.sbk" >"$tmp/verify.json" 2>/dev/null
check "verify --json says ok" test "$(json_field "$tmp/verify.json" "d['ok']")" = True
check "verify checked every module" test "$(json_field "$tmp/verify.json" "[c['checked'] for c in d['checks'] if c['name']=='modules'][0]")" = \
  "$(json_field "$tmp/cold.json" "d['modules']")"
size=$(stat -c %s "$tmp/cold.sbk")
for offset in 100 $((size / 3)) $((size / 2)) $((size - 10)); do
  cp "$tmp/cold.sbk" "$tmp/damaged.sbk"
  flip_bits "$tmp/damaged.sbk" "$offset" 0x01
  "$bin" verify "$tmp/damaged.sbk" >/dev/null 2>"$tmp/damaged.err"
  rc=$?
  # Byte 100 lies in the section table: the loader cannot open the file at all (not a usable bundle, exit 3);
  # elsewhere the file opens and a check fails (exit 1).
  want=1
  [[ $offset -eq 100 ]] && want=3
  check "verify fails on a bit flipped at byte $offset (exit $want)" test "$rc" -eq "$want"
  check "verify names the problem (byte $offset)" grep -q "error:" "$tmp/damaged.err"
done
head -c 1000 "$tmp/cold.sbk" >"$tmp/truncated.sbk"
"$bin" verify "$tmp/truncated.sbk" >/dev/null 2>"$tmp/truncated.err"
check "verify fails on a truncated bundle (not a usable bundle: exit 3)" test $? -eq 3
check "a truncated bundle is called corrupt" grep -q "corrupt" "$tmp/truncated.err"
echo "not a bundle" >"$tmp/text.sbk"
"$bin" verify "$tmp/text.sbk" >/dev/null 2>"$tmp/text.err"
check "a text file is not a bundle" grep -q "not a shaderbake bundle" "$tmp/text.err"
# Bundles of earlier formats (tests/cli/format2_tiny.sbk and format3_tiny.sbk, written by those formats' writers
# from samples/traces/tiny.json) are refused by name.
for old in 2 3; do
  "$bin" verify "$root/tests/cli/format${old}_tiny.sbk" >/dev/null 2>"$tmp/format$old.err"
  check "verify refuses a format $old bundle (not a usable bundle: exit 3)" test $? -eq 3
  check "the refusal names format $old and says to rebuild" \
    grep -q "bundle format $old; this shaderbake reads format 4 only: rebuild the bundle from its traces" "$tmp/format$old.err"
  "$bin" inspect "$root/tests/cli/format${old}_tiny.sbk" >/dev/null 2>"$tmp/format$old.inspect.err"
  check "inspect refuses it the same way" grep -q "bundle format $old; this shaderbake reads format 4 only" "$tmp/format$old.inspect.err"
done

# inspect: the summary's counts are the build's; an entry's view is complete.
"$bin" inspect --json "$tmp/cold.sbk" >"$tmp/inspect.json"
check "inspect exits 0" test $? -eq 0
for field in specializations families exact_pipelines fallback_pipelines; do
  check "inspect counts $field as build did" \
    test "$(json_field "$tmp/inspect.json" "d['entries']['$field']")" = "$(json_field "$tmp/cold.json" "d['$field']")"
done
key=$("$bin" inspect "$tmp/cold.sbk" --list | awk '$2 == "pipeline" && $3 == "fallback" {print $1; exit}')
"$bin" inspect --json "$tmp/cold.sbk" "${key:0:12}" >"$tmp/entry.json"
check "inspect finds an entry by a hash prefix" test $? -eq 0
check "a pipeline entry shows its host state" test "$(json_field "$tmp/entry.json" "'host' in d and 'layout' in d")" = True
check "a pipeline entry shows both modules' disassembly" \
  test "$(json_field "$tmp/entry.json" "'OpEntryPoint Vertex' in d['vertex_module']['disassembly'] and 'OpEntryPoint Fragment' in d['fragment_module']['disassembly']")" = True
rejected=$("$bin" inspect "$tmp/cold.sbk" --list | awk '$2 == "specialization" && $3 == "generation_failed" {print $1; exit}')
"$bin" inspect --json "$tmp/cold.sbk" "$rejected" >"$tmp/rejected.json"
check "a failed specialization says why admission rejected it" \
  test "$(json_field "$tmp/rejected.json" "d['admission']['reason']")" = brdf_undefined
"$bin" inspect "$tmp/cold.sbk" ffffffffffffffffffffffffffffffff >/dev/null 2>&1
check "an unknown key exits 1" test $? -eq 1

# Wrong hits: states one key field apart get entries of their own; dynamic values and dead words do not.
read -r exact_keys pipeline_keys < <(python3 "$root/tests/cli/one_field_pairs.py" "$tmp/pairs.jsonl")
"$bin" build "$tmp/pairs.jsonl" -o "$tmp/pairs.sbk" --cache-dir "$tmp/cache" --json >"$tmp/pairs.json" 2>/dev/null
check "one-field pairs build cleanly" test $? -eq 0
check "each program variant has its own specialization" test "$(json_field "$tmp/pairs.json" "d['specializations']")" = "$exact_keys"
check "each state variant has its own exact pipeline" test "$(json_field "$tmp/pairs.json" "d['exact_pipelines']")" = "$pipeline_keys"
"$bin" verify "$tmp/pairs.sbk" >/dev/null 2>&1
check "the pairs bundle verifies" test $? -eq 0

finish cli_bundle
