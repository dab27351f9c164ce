#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# merge of bundles of different capture sessions: the union of two sessions' bundles holds what one build of
# both traces holds — every section but the report byte-identical to that build's, the report equal to its
# but for the left-out unique_sources and the added "sessions" provenance, `report coverage` of the union equal
# to the build's — for the nv2a sample session split in two, two generated traces whose attachment signatures
# differ (the union completes the dynamic-state fallback recipes) and the specconst session split in two. A
# session may come as shards; a merged bundle merges again into the union of all (byte-identical to merging the
# sessions at once). Refused by name: one session given twice (also under another path), builds with and without
# --specialize, another guest, a missing shard of one session. (One key with two contents: builder_union_tests.)
# Usage: session_merge_test.sh SHADERBAKE TRACEGEN SOURCE_ROOT
bin=$1
tracegen=$2
root=$3
source "$(dirname "$0")/common.sh"

# The bundle's sections by type (schemas/bundle.md: 64-byte header, then 32-byte table rows), and its report.
cat >"$tmp/bundle.py" <<'PY'
import json, struct, subprocess, sys
def sections(path):
    d = open(path, 'rb').read()
    header, = struct.unpack_from('<I', d, 12)
    count, = struct.unpack_from('<I', d, 24)
    out = {}
    for i in range(count):
        kind, _, offset, size, _ = struct.unpack_from('<IIQQQ', d, header + 32 * i)
        out[kind] = d[offset:offset + size]
    return out
def report(path):
    frame = sections(path)[8]  # REPORT: one zstd frame of JSON
    return json.loads(subprocess.run(['zstd', '-dc'], input=frame, capture_output=True, check=True).stdout)
if sys.argv[1] == 'same-but-report':  # every section but REPORT byte-identical
    a, b = sections(sys.argv[2]), sections(sys.argv[3])
    differ = sorted(t for t in set(a) | set(b) if t != 8 and a.get(t) != b.get(t))
    if differ: print('sections that differ:', differ)
    sys.exit(1 if differ else 0)
if sys.argv[1] == 'report-as-build':  # the union's report is the build's but for unique_sources and sessions
    union, build = report(sys.argv[2]), report(sys.argv[3])
    sessions = union.pop('sessions', None)
    build.pop('unique_sources', None)
    if union != build or not isinstance(sessions, list): print(union, build); sys.exit(1)
    sys.exit(0)
if sys.argv[1] == 'sessions':  # the traces of each recorded session, one line each
    for s in report(sys.argv[2])['sessions']: print(s['shards'], ' '.join(i['path'] for i in s['inputs']))
PY
bundle() { python3 "$tmp/bundle.py" "$@"; }

# split TRACE FRAME A B: draws before FRAME into A, the rest into B, every other record into both.
split_trace() {
  python3 - "$@" <<'PY'
import json, sys
src, split, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
with open(src) as f, open(a, 'w') as fa, open(b, 'w') as fb:
    for line in f:
        r = json.loads(line)
        if r['type'] == 'draw': (fa if r['frame'] < split else fb).write(line)
        else: fa.write(line); fb.write(line)
PY
}

# The specconst trace names its shaders relative to itself: the split halves sit where the originals do.
mkdir -p "$tmp/traces"
ln -s "$root/samples/specconst/shaders" "$tmp/shaders"
split_trace "$root/samples/traces/session_ref.jsonl" 40 "$tmp/traces/nv2a_a.jsonl" "$tmp/traces/nv2a_b.jsonl"
split_trace "$root/samples/specconst/traces/session.jsonl" 30 "$tmp/traces/specconst_a.jsonl" "$tmp/traces/specconst_b.jsonl"
for seed in 7 8 9; do
  "$tracegen" --seed $seed --frames 100 --draws-per-frame 20 --states 150 -o "$tmp/traces/generated_$seed.jsonl" >/dev/null 2>&1
done
cd "$tmp" || exit 1
built() {  # built OUT TRACE... [OPTIONS]: build exits 0 or 1 (one cache for all: the same modules)
  local out=$1
  shift
  "$bin" build "$@" -o "$out" --cache-dir "$tmp/cache" >/dev/null 2>"$out.err"
  local rc=$?
  check "$out builds (exit $rc; $(head -c 200 "$out.err"))" test $rc -le 1
}

for pair in "nv2a traces/nv2a_a.jsonl traces/nv2a_b.jsonl" "generated traces/generated_7.jsonl traces/generated_8.jsonl" \
            "specconst traces/specconst_a.jsonl traces/specconst_b.jsonl"; do
  read -r name a b <<<"$pair"
  built "${name}_a.sbk" "$a"
  built "${name}_b.sbk" "$b"
  built "${name}_both.sbk" "$a" "$b"
  "$bin" merge "${name}_a.sbk" "${name}_b.sbk" -o "${name}_union.sbk" --json >"$name.merge.json" 2>"$name.merge.err"
  rc=$?
  check "$name: the two sessions merge (exit $rc; $(head -c 300 "$name.merge.err"))" test $rc -eq 0
  check "$name: the merge counts 2 builds and 2 sessions" \
    test "$(json_field "$name.merge.json" 'd["builds"], d["sessions"]')" = "2 2"
  check "$name: the union holds what the build of both traces holds, section for section" \
    bundle same-but-report "${name}_union.sbk" "${name}_both.sbk"
  check "$name: the union's report is the build's, with each session's provenance" \
    bundle report-as-build "${name}_union.sbk" "${name}_both.sbk"
  check "$name: the sessions recorded are the two traces" \
    test "$(bundle sessions "${name}_union.sbk")" = "$(printf '1 %s\n1 %s' "$a" "$b")"
  "$bin" report coverage "${name}_union.sbk" --json >"$name.union.coverage" 2>&1
  check "$name: coverage of the union runs" test $? -eq 0
  "$bin" report coverage "${name}_both.sbk" --json >"$name.both.coverage" 2>&1
  check "$name: the union's coverage report equals the build's" \
    cmp -s <(grep -v '"bundle":' "$name.union.coverage") <(grep -v '"bundle":' "$name.both.coverage")
  "$bin" verify "${name}_union.sbk" >"$name.verify" 2>&1
  rc=$?
  check "$name: the union verifies ($(tail -c 300 "$name.verify"))" test $rc -eq 0
  "$bin" merge "${name}_b.sbk" "${name}_a.sbk" -o "${name}_ba.sbk" >/dev/null 2>&1
  check "$name: merged in the other order, the union holds the same entries" \
    cmp -s <("$bin" inspect "${name}_ba.sbk" --list) <("$bin" inspect "${name}_both.sbk" --list)
done
check "generated: the union adds the dynamic-state fallback recipes neither session had" \
  python3 -c "import json, sys; sys.exit(0 if json.load(open('generated.merge.json'))['dynamic_fallbacks_completed'] > 0 else 1)"
check "inspect says the union merges 2 sessions" grep -q "merged from 2 capture sessions" <("$bin" inspect nv2a_union.sbk)

# A session as shards, next to a whole one.
for k in 0 1 2; do
  "$bin" build traces/nv2a_a.jsonl -o "nv2a_a_$k.sbk" --no-cache --shard "$k/3" >/dev/null 2>&1
done
"$bin" merge nv2a_a_2.sbk nv2a_b.sbk nv2a_a_0.sbk nv2a_a_1.sbk -o nv2a_sharded_union.sbk >merge.out 2>&1
rc=$?
check "three shards of one session and a whole one merge ($(head -c 300 merge.out))" test $rc -eq 0
check "the union of a sharded session holds what the union of whole ones does" \
  bundle same-but-report nv2a_sharded_union.sbk nv2a_union.sbk
check "the sharded session is recorded with its 3 shards" \
  test "$(bundle sessions nv2a_sharded_union.sbk)" = "$(printf '3 traces/nv2a_a.jsonl\n1 traces/nv2a_b.jsonl')"

# A merged bundle merges again: the union of all its sessions and the next.
built generated_9.sbk traces/generated_9.jsonl
"$bin" merge generated_union.sbk generated_9.sbk -o generated_again.sbk >/dev/null 2>&1
check "a union merges with a third session" test $? -eq 0
"$bin" merge generated_a.sbk generated_b.sbk generated_9.sbk -o generated_three.sbk >/dev/null 2>&1
check "three sessions merge at once" test $? -eq 0
check "merging a union again gives the bytes of merging all three sessions at once" cmp -s generated_again.sbk generated_three.sbk

# Refusals.
refused() {  # refused NAME PATTERN MERGE-ARGUMENTS...
  local name=$1 pattern=$2
  shift 2
  "$bin" merge "$@" -o refused.sbk >/dev/null 2>refused.err
  local rc=$?
  check "$name: exit 3 (got $rc)" test $rc -eq 3
  check "$name: says \"$pattern\" ($(head -c 300 refused.err))" grep -q -- "$pattern" refused.err
  check "$name: writes nothing" test ! -e refused.sbk
}
refused "one session twice" "the capture session of traces/nv2a_a.jsonl is in both" nv2a_union.sbk nv2a_a.sbk
cp traces/nv2a_a.jsonl traces/nv2a_a_again.jsonl
built nv2a_a_again.sbk traces/nv2a_a_again.jsonl
refused "one session twice, under another path" "the capture session of traces/nv2a_a_again.jsonl is in both" \
  nv2a_a.sbk nv2a_b.sbk nv2a_a_again.sbk
built specconst_b_specialized.sbk traces/specconst_b.jsonl --specialize
refused "builds with and without --specialize" "built with --specialize, specconst_a.sbk without" \
  specconst_a.sbk specconst_b_specialized.sbk
refused "another guest" "built with another guest: specconst (id 2) vs nv2a (id 1)" nv2a_a.sbk specconst_b.sbk
refused "a missing shard of one session" "shard 1 of 3 of nv2a_a_0.sbk's build is missing" \
  nv2a_a_0.sbk nv2a_b.sbk nv2a_a_2.sbk

finish session_merge
