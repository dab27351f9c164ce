#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build --shard K/N and merge: for N = 1, 2, 3, 7, the shards of a build merged (in a shuffled order) give the
# single build's bundle byte for byte, for the nv2a sample session and a generated trace (and for some N, the
# specconst session built frozen and specialized). Every entry is in exactly one shard (the shards' entry lists are disjoint and
# their union is the single build's), whatever the order of the traces; each shard verifies and says it is a
# shard; auto/N takes K from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or --shard-index-env; a missing shard, a
# repeated shard, shards of different builds and bad --shard values are refused by name (merges of different
# capture sessions: session_merge_test.sh). Shards compile without
# a cache (each compiles its own part).
# Usage: shard_merge_test.sh SHADERBAKE TRACEGEN SOURCE_ROOT
bin=$1
tracegen=$2
root=$3
source "$(dirname "$0")/common.sh"

"$tracegen" --seed 7 --frames 200 --draws-per-frame 20 --states 200 -o "$tmp/generated.jsonl" >/dev/null 2>&1
check "the generated trace is written" test -s "$tmp/generated.jsonl"

entries() {  # entries BUNDLE: its entries' "kind key_hash" lines, sorted (none for a shard with no entries)
  "$bin" inspect "$1" --list --json |
    python3 -c "import json, sys; [print(e['kind'] + ' ' + e['key_hash']) for e in sorted(json.load(sys.stdin), key=lambda e: (e['kind'], e['key_hash']))]"
}

# shards NAME N TRACE... [-- OPTIONS]: builds shards 0..N-1 into $tmp/NAME_N_K.sbk
shards() {
  local name=$1 n=$2
  shift 2
  local traces=() options=()
  while [[ $# -gt 0 && $1 != -- ]]; do traces+=("$1"); shift; done
  [[ ${1:-} == -- ]] && shift && options=("$@")
  for ((k = 0; k < n; ++k)); do
    "$bin" build "${traces[@]}" -o "$tmp/${name}_${n}_$k.sbk" --no-cache --shard "$k/$n" "${options[@]}" >/dev/null 2>"$tmp/${name}_${n}_$k.err"
    local rc=$?
    check "$name: shard $k/$n builds (exit $rc; $(head -c 200 "$tmp/${name}_${n}_$k.err"))" test $rc -le 1
  done
}

# NAME SHARD-COUNTS TRACE [OPTION]: every count for the nv2a sample and the generated trace, fewer for the
# specconst session (its builds hold few jobs), which the sanitizer pass runs too.
for case in "session 1,2,3,7 $root/samples/traces/session_ref.jsonl" "generated 1,2,3,7 $tmp/generated.jsonl" \
            "specconst 3,7 $root/samples/specconst/traces/session.jsonl" \
            "specialized 3 $root/samples/specconst/traces/session.jsonl --specialize"; do
  read -r name counts trace option <<<"$case"
  "$bin" build "$trace" -o "$tmp/$name.sbk" --no-cache $option >/dev/null 2>&1
  check "$name: the single build exits 0 or 1" test $? -le 1
  entries "$tmp/$name.sbk" >"$tmp/$name.entries"
  for n in ${counts//,/ }; do
    shards "$name" "$n" "$trace" -- $option
    # A shuffled order of the shard files.
    mapfile -t files < <(for ((k = 0; k < n; ++k)); do echo "$tmp/${name}_${n}_$k.sbk"; done | python3 -c "import random, sys; l = sys.stdin.read().split(); random.Random($n).shuffle(l); print('\n'.join(l))")
    "$bin" merge "${files[@]}" -o "$tmp/${name}_merged_$n.sbk" >"$tmp/merge.out" 2>"$tmp/merge.err"
    rc=$?
    check "$name: merge of $n shards exits 0 ($(head -c 300 "$tmp/merge.err"))" test $rc -eq 0
    check "$name: $n shards merge into the single build's bytes" cmp -s "$tmp/${name}_merged_$n.sbk" "$tmp/$name.sbk"
    for ((k = 0; k < n; ++k)); do entries "$tmp/${name}_${n}_$k.sbk"; done | sort >"$tmp/union"
    check "$name: the $n shards' entries are the single build's, each in one shard" cmp -s "$tmp/union" "$tmp/$name.entries"
  done
  "$bin" verify "$tmp/${name}_3_1.sbk" >"$tmp/verify.out" 2>&1
  check "$name: a shard verifies" test $? -eq 0
  check "$name: verify says it is a shard" grep -q "verified (shard 1 of 3 of a build)" "$tmp/verify.out"
  check "$name: inspect says it is shard 1 of 3" test "$("$bin" inspect "$tmp/${name}_3_1.sbk" --json |
    python3 -c "import json, sys; s = json.load(sys.stdin)['report'].get('shard', {}); print(s.get('index'), s.get('count'))")" = "1 3"
done

# The order of the traces changes no shard's entries.
session=$root/samples/traces/session_ref.jsonl
"$bin" build "$session" "$tmp/generated.jsonl" -o "$tmp/ab.sbk" --no-cache --shard 1/3 >/dev/null 2>&1
"$bin" build "$tmp/generated.jsonl" "$session" -o "$tmp/ba.sbk" --no-cache --shard 1/3 >/dev/null 2>&1
check "a shard holds the same entries whatever the order of the traces" cmp -s <(entries "$tmp/ab.sbk") <(entries "$tmp/ba.sbk")

# auto/N: the job runner's index.
SLURM_ARRAY_TASK_ID=2 "$bin" build "$session" -o "$tmp/slurm.sbk" --no-cache --shard auto/3 >/dev/null 2>&1
check "auto/3 takes K from SLURM_ARRAY_TASK_ID" cmp -s "$tmp/slurm.sbk" "$tmp/session_3_2.sbk"
JOB_COMPLETION_INDEX=0 "$bin" build "$session" -o "$tmp/k8s.sbk" --no-cache --shard auto/3 >/dev/null 2>&1
check "auto/3 takes K from JOB_COMPLETION_INDEX" cmp -s "$tmp/k8s.sbk" "$tmp/session_3_0.sbk"
MATRIX_INDEX=1 SLURM_ARRAY_TASK_ID=2 "$bin" build "$session" -o "$tmp/matrix.sbk" --no-cache --shard auto/3 \
  --shard-index-env MATRIX_INDEX >/dev/null 2>&1
check "--shard-index-env's variable comes first" cmp -s "$tmp/matrix.sbk" "$tmp/session_3_1.sbk"

# Refusals.
refused() {  # refused NAME EXPECTED_EXIT PATTERN COMMAND...
  local name=$1 want=$2 pattern=$3
  shift 3
  "$@" >/dev/null 2>"$tmp/refused.err"
  local rc=$?
  check "$name: exit $want (got $rc)" test $rc -eq "$want"
  check "$name: says \"$pattern\" ($(head -c 300 "$tmp/refused.err"))" grep -q -- "$pattern" "$tmp/refused.err"
}
refused "--shard 3/3" 2 "not below the shard count" "$bin" build "$session" -o "$tmp/x.sbk" --no-cache --shard 3/3
refused "--shard 1/0" 2 "N must be a whole number" "$bin" build "$session" -o "$tmp/x.sbk" --no-cache --shard 1/0
refused "--shard auto/3 with no index" 2 "none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX is set" \
  env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX "$bin" build "$session" -o "$tmp/x.sbk" --no-cache --shard auto/3
refused "a missing shard" 3 "shard 1 of 3 of .*session_3_0.sbk's build is missing" "$bin" merge "$tmp/session_3_0.sbk" "$tmp/session_3_2.sbk" -o "$tmp/x.sbk"
refused "a repeated shard" 3 "shard 2 of 3 is given twice" \
  "$bin" merge "$tmp/session_3_0.sbk" "$tmp/session_3_1.sbk" "$tmp/session_3_2.sbk" "$tmp/slurm.sbk" -o "$tmp/x.sbk"
refused "shards of different builds" 3 "shard 1 of 3 of .*session_3_0.sbk's build is missing" \
  "$bin" merge "$tmp/session_3_0.sbk" "$tmp/generated_3_1.sbk" "$tmp/session_3_2.sbk" -o "$tmp/x.sbk"
refused "shards of different guests" 3 "another guest" \
  "$bin" merge "$tmp/session_3_0.sbk" "$tmp/specconst_3_1.sbk" "$tmp/session_3_2.sbk" -o "$tmp/x.sbk"
refused "shard counts that differ" 3 "is one of 3" \
  "$bin" merge "$tmp/session_3_0.sbk" "$tmp/session_2_1.sbk" "$tmp/session_3_2.sbk" -o "$tmp/x.sbk"
refused "shards built with other settings" 3 "other shard settings" \
  "$bin" merge "$tmp/specconst_3_0.sbk" "$tmp/specialized_3_1.sbk" "$tmp/specconst_3_2.sbk" -o "$tmp/x.sbk"

finish shard_merge
