#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI contract of the artifact cache: `shaderbake compile --cache-dir` (a second run compiles nothing and
# writes the same files; a damaged entry is discarded and rebuilt) and `shaderbake cache prune`.
# Usage: cache_test.sh SHADERBAKE SOURCE_ROOT
bin=$1
root=$2
source "$(dirname "$0")/common.sh"
cache="$tmp/cache"
trace="$root/samples/traces/tiny.json"
entries() { find "$cache" -name '*.sbkc' -type f | wc -l; }

# Cold, then warm: the second run finds every module and writes byte-identical files.
"$bin" compile --json --cache-dir "$cache" -o "$tmp/cold" "$trace" >"$tmp/cold.json" 2>"$tmp/cold.err"
check "a cold compile exits 0" test $? -eq 0
cold_misses=$(json_field "$tmp/cold.json" "d['cache']['misses']")
check "a cold compile misses ($cold_misses)" test "$cold_misses" -gt 0
check "a cold compile stores every miss" test "$(json_field "$tmp/cold.json" "d['cache']['stores']")" = "$cold_misses"
check "a cold compile has no hits" test "$(json_field "$tmp/cold.json" "d['cache']['hits']")" = 0
check "the cache holds one entry a store" test "$(entries)" -eq "$cold_misses"
check "no temporary file is left" test -z "$(find "$cache" -name '*.tmp.*')"

"$bin" compile --json --cache-dir "$cache" -o "$tmp/warm" "$trace" >"$tmp/warm.json" 2>/dev/null
check "a warm compile exits 0" test $? -eq 0
check "a warm compile has zero misses" test "$(json_field "$tmp/warm.json" "d['cache']['misses']")" = 0
check "a warm compile hits every module" test "$(json_field "$tmp/warm.json" "d['cache']['hits']")" = "$cold_misses"
check "a warm compile stores nothing" test "$(json_field "$tmp/warm.json" "d['cache']['stores']")" = 0
check "warm and cold write identical modules" diff -r "$tmp/cold" "$tmp/warm"

"$bin" compile --json --no-cache -o "$tmp/none" "$trace" >"$tmp/none.json" 2>/dev/null
check "--no-cache exits 0" test $? -eq 0
check "--no-cache reports no cache" test "$(json_field "$tmp/none.json" "d['cache']")" = None
check "--no-cache writes the same modules" diff -r "$tmp/cold" "$tmp/none"
check "--no-cache leaves the default cache alone" test ! -e "$SHADERBAKE_CACHE_DIR"

"$bin" compile --cache-dir "$cache" -o "$tmp/text" "$trace" >"$tmp/text.out" 2>/dev/null
check "the text summary gives hits and misses" grep -q "^cache .*: $cold_misses hits, 0 misses" "$tmp/text.out"

# A damaged entry is discarded and rebuilt; the output does not change.
victim=$(find "$cache" -name '*.sbkc' -type f | sort | head -n 1)
flip_bits "$victim" $(($(stat -c %s "$victim") / 2)) 0xFF
"$bin" compile --json --cache-dir "$cache" -o "$tmp/repaired" "$trace" >"$tmp/repaired.json" 2>/dev/null
check "a compile over a damaged entry exits 0" test $? -eq 0
check "the damaged entry is counted" test "$(json_field "$tmp/repaired.json" "d['cache']['corrupt_discarded']")" = 1
check "the damaged entry is rebuilt" test "$(json_field "$tmp/repaired.json" "d['cache']['stores']")" = 1
check "the rebuilt output is identical" diff -r "$tmp/cold" "$tmp/repaired"

# prune: sizes with suffixes, unrelated files untouched, --max-size 0 empties the cache.
echo keep >"$cache/notes.txt"
"$bin" cache prune --json --max-size 2G --cache-dir "$cache" >"$tmp/big.json" 2>/dev/null
check "prune under a large size exits 0" test $? -eq 0
check "2G is 2 GiB" test "$(json_field "$tmp/big.json" "d['max_bytes']")" = 2147483648
check "prune under a large size removes nothing" test "$(json_field "$tmp/big.json" "d['entries_removed']")" = 0
"$bin" cache prune --json --max-size 1K --cache-dir "$cache" >"$tmp/small.json" 2>/dev/null
check "1K is 1024 bytes" test "$(json_field "$tmp/small.json" "d['max_bytes']")" = 1024
check "prune keeps at most the size" test "$(json_field "$tmp/small.json" "d['bytes_after'] <= 1024")" = True
"$bin" cache prune --max-size 0 --cache-dir "$cache" >"$tmp/zero.out" 2>/dev/null
check "prune --max-size 0 exits 0" test $? -eq 0
check "prune --max-size 0 empties the cache" test "$(entries)" -eq 0
check "prune reports what it removed" grep -q "^removed " "$tmp/zero.out"
check "prune leaves unrelated files alone" test -f "$cache/notes.txt"
"$bin" cache prune --max-size 0 --cache-dir "$tmp/no-such-cache" >/dev/null 2>&1
check "a missing cache directory is an empty cache" test $? -eq 0

# Usage errors exit 2.
"$bin" cache prune --max-size 12Q --cache-dir "$cache" >/dev/null 2>"$tmp/badsize.err"
check "a bad size is a usage error" test $? -eq 2
check "a bad size says error:" grep -q "^error: --max-size 12Q" "$tmp/badsize.err"
"$bin" cache prune --cache-dir "$cache" >/dev/null 2>&1
check "prune without --max-size is a usage error" test $? -eq 2
"$bin" cache >/dev/null 2>&1
check "cache without a subcommand is a usage error" test $? -eq 2

finish cli_cache
