#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a hostile or careless command line must never do: overwrite an input (by its path, a hard link or a
# symbolic link) or another output, replace a FIFO or device node with a file, write through a symbolic link
# planted at a temporary name, accept an empty path, a gate that cannot fail or contradictory flags; and under
# --json a failure is still JSON. Every check names the defect it guards against.
# Usage: hostile_test.sh SHADERBAKE SOURCE_ROOT
bin=$1
root=$2
source "$(dirname "$0")/common.sh"
export MESA_SHADER_CACHE_DIR=${MESA_SHADER_CACHE_DIR:-$tmp/mesa-cache}

trace="$tmp/t.json"
cp "$root/samples/traces/tiny.json" "$trace"
cp "$trace" "$tmp/pristine.json"
"$bin" build "$trace" -o "$tmp/good.sbk" >/dev/null 2>&1
check "a bundle of the tiny trace builds" test -s "$tmp/good.sbk"
cp "$tmp/good.sbk" "$tmp/pristine.sbk"
ln "$trace" "$tmp/hard.json"
ln -s "$trace" "$tmp/soft.json"
ln "$tmp/good.sbk" "$tmp/hard.sbk"
ln -s "$tmp/good.sbk" "$tmp/soft.sbk"

# refuses NAME EXPECTED_EXIT COMMAND...: the command exits EXPECTED_EXIT, and the trace and bundle are untouched.
refuses() {
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local rc=$?
  check "$name: exit $want (got $rc)" test "$rc" -eq "$want"
  check "$name: the trace is byte-identical" cmp -s "$trace" "$tmp/pristine.json"
  check "$name: the bundle is byte-identical" cmp -s "$tmp/good.sbk" "$tmp/pristine.sbk"
}

# Every output flag of every command, given an input by path, hard link and symbolic link.
for alias in "$trace" "$tmp/hard.json" "$tmp/soft.json"; do
  what=$(basename "$alias")
  refuses "build -o $what" 2 "$bin" build "$trace" -o "$alias"
  check "build -o $what: the message names both files" grep -q "is the same file as the input trace" "$tmp/err.txt"
  refuses "build --report $what" 2 "$bin" build "$trace" -o "$tmp/x.sbk" --report "$alias"
  refuses "dedupe --keys $what" 2 "$bin" dedupe --keys "$alias" "$trace"
  refuses "compile -o $what" 2 "$bin" compile -o "$alias" "$trace"
  refuses "report coverage --html $what" 2 "$bin" report coverage "$tmp/good.sbk" --traces "$trace" --html "$alias"
done
for alias in "$tmp/good.sbk" "$tmp/hard.sbk" "$tmp/soft.sbk"; do
  what=$(basename "$alias")
  refuses "report coverage --html $what (the bundle)" 2 "$bin" report coverage "$tmp/good.sbk" --traces "$trace" --html "$alias"
  refuses "warm -o $what (the bundle)" 2 "$bin" warm "$tmp/good.sbk" -o "$alias"
done
refuses "build -o X --report X" 2 "$bin" build "$trace" -o "$tmp/same.out" --report "$tmp/same.out"
check "build -o X --report X: nothing written" test ! -e "$tmp/same.out"
refuses "build -o X --report sub/../X" 2 "$bin" build "$trace" -o "$tmp/same.out" --report "$tmp/sub/../same.out"
refuses "a trace given through a path with .." 2 "$bin" build "$tmp/./t.json" -o "$trace"

# Empty paths are usage errors, never "no output" or "in place".
refuses "build -o ''" 2 "$bin" build "$trace" -o ""
refuses "build --report ''" 2 "$bin" build "$trace" -o "$tmp/x.sbk" --report ""
refuses "dedupe --keys ''" 2 "$bin" dedupe --keys "" "$trace"
refuses "compile -o ''" 2 "$bin" compile -o "" "$trace"
refuses "report coverage --html ''" 2 "$bin" report coverage "$tmp/good.sbk" --html ""
refuses "warm -o ''" 2 "$bin" warm "$tmp/good.sbk" -o ""
refuses "build --cache-dir ''" 2 "$bin" build "$trace" -o "$tmp/x.sbk" --cache-dir ""

# A symbolic link planted at a temporary name never redirects a write: tests/output_file_test.cpp plants one at
# the very name the writer tries (the names are random, so a script cannot guess them).

# Two outputs through a link to a file that does not exist yet are one file: refused, nothing written.
ln -s "$tmp/not-yet.sbk" "$tmp/dangling.sbk"
refuses "-o a link to a missing file, --report that file" 2 "$bin" build "$trace" -o "$tmp/dangling.sbk" --report "$tmp/not-yet.sbk"
check "... nothing written" test ! -e "$tmp/not-yet.sbk"

# The process's own descriptors are streams: -o /dev/stdout into a pipe, --keys /dev/stdout into a file.
"$bin" build "$trace" -o /dev/stdout --json 2>/dev/null | head -c 8 | od -An -tx1 | tr -d ' \n' >"$tmp/magic.txt"
check "build -o /dev/stdout into a pipe streams the bundle (its magic first)" test "$(cat "$tmp/magic.txt")" = "8953424b0d0a1a0a"
"$bin" dedupe --keys /dev/stdout "$trace" >"$tmp/keys-and-counts.txt" 2>/dev/null
check "dedupe --keys /dev/stdout into a file: the keys and the counts both arrive" \
  grep -q "shaderbake-keys/1" "$tmp/keys-and-counts.txt"
check "... the counts too" grep -q "draws" "$tmp/keys-and-counts.txt"

# A replaced file keeps its permissions.
cp "$tmp/good.sbk" "$tmp/private.sbk"
echo different >"$tmp/private.sbk"
chmod 600 "$tmp/private.sbk"
"$bin" build "$trace" -o "$tmp/private.sbk" >/dev/null 2>&1
check "a 0600 bundle rebuilt stays 0600" test "$(stat -c %a "$tmp/private.sbk")" = 600

# compile: DIR/manifest.json that is a trace is refused before any work; an unusable trace is exit 1.
mkdir -p "$tmp/cdir"
cp "$trace" "$tmp/cdir/manifest.json"
cp "$trace" "$tmp/cdir/pristine-manifest.json"
"$bin" compile -o "$tmp/cdir" "$tmp/cdir/manifest.json" >/dev/null 2>&1
check "compile -o DIR with DIR/manifest.json a trace: exit 2" test $? -eq 2
check "... the trace is untouched" cmp -s "$tmp/cdir/manifest.json" "$tmp/cdir/pristine-manifest.json"
check "... no module written" test ! -e "$tmp/cdir/modules"
: >"$tmp/empty-for-compile.jsonl"
"$bin" compile -o "$tmp/cdir2" "$trace" "$tmp/empty-for-compile.jsonl" >/dev/null 2>&1
check "compile with an unusable trace exits 1" test $? -eq 1

# Outputs that are not regular files: a FIFO is streamed, a character device of the test's own is written as a
# stream and stays a node, a directory is refused (exit 5) and stays a directory.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
reader=$!
"$bin" build "$trace" -o "$tmp/fifo" >/dev/null 2>&1
check "build -o FIFO exits 0" test $? -eq 0
wait "$reader"
check "build -o FIFO: the reader got the bundle" cmp -s "$tmp/from-fifo" "$tmp/good.sbk"
check "build -o FIFO: it is still a FIFO" test -p "$tmp/fifo"
if mknod "$tmp/null" c 1 3 2>/dev/null; then
  "$bin" build "$trace" -o "$tmp/null" --report "$tmp/null" >/dev/null 2>&1
  check "build -o and --report on one character device exit 0" test $? -eq 0
  check "the character device is still a character device" test -c "$tmp/null"
  "$bin" dedupe --keys "$tmp/null" "$trace" >/dev/null 2>&1
  check "dedupe --keys on a character device exits 0 and leaves it a node" test $? -eq 0 -a -c "$tmp/null"
else
  echo "note: mknod not permitted here; the character-device checks ran in output_file_tests only" >&2
fi
mkdir "$tmp/dir.sbk"
"$bin" build "$trace" -o "$tmp/dir.sbk" >/dev/null 2>"$tmp/err.txt"
check "build -o DIRECTORY exits 5" test $? -eq 5
check "build -o DIRECTORY: it is still a directory" test -d "$tmp/dir.sbk"
check "build -o DIRECTORY: the message says why" grep -q "is a directory" "$tmp/err.txt"
echo "other bytes" >"$tmp/link-target.sbk"
ln -s link-target.sbk "$tmp/link-to-other.sbk"
"$bin" build "$trace" -o "$tmp/link-to-other.sbk" >/dev/null 2>&1
check "build -o SYMLINK exits 0 and the link stays a link" test $? -eq 0 -a -L "$tmp/link-to-other.sbk"
check "build -o SYMLINK writes the bundle into the file it points to" cmp -s "$tmp/link-target.sbk" "$tmp/good.sbk"
cp "$tmp/good.sbk" "$tmp/warm-target.sbk"
ln -s warm-target.sbk "$tmp/warm-link.sbk"
"$bin" warm "$tmp/warm-link.sbk" --no-control >/dev/null 2>&1
check "warm in place on a symbolic link exits 0" test $? -eq 0
check "warm in place on a symbolic link: the link stays a link to its file" \
  test "$(readlink "$tmp/warm-link.sbk")" = warm-target.sbk
differs() { ! cmp -s "$1" "$2"; }
check "warm in place on a symbolic link: the file it points to is warmed" differs "$tmp/warm-target.sbk" "$tmp/good.sbk"
"$bin" verify "$tmp/warm-target.sbk" >/dev/null 2>&1
check "the warmed file verifies" test $? -eq 0

# Gates that cannot pass by accident.
for bad in NaN nan -5 "" 101 abc inf 1e400 "50%" 0x32 " 50" 1e1 . 1.2.3; do
  "$bin" report coverage "$tmp/good.sbk" --traces "$trace" --fail-under "$bad" >/dev/null 2>"$tmp/err.txt"
  check "--fail-under '$bad' is a usage error" test $? -eq 2
done
"$bin" report coverage "$tmp/good.sbk" --traces "$trace" --fail-under 0 >/dev/null 2>&1
check "--fail-under 0 passes on a real coverage" test $? -eq 0
"$bin" report coverage "$tmp/good.sbk" --traces "$trace" --fail-under 100 >/dev/null 2>&1
check "--fail-under 100 passes when every first use is served" test $? -eq 0
: >"$tmp/empty.jsonl"
"$bin" report coverage "$tmp/good.sbk" --traces "$tmp/empty.jsonl" --fail-under 0 >/dev/null 2>"$tmp/err.txt"
check "--fail-under fails when the only trace is unusable" test $? -eq 1
check "the gate says why it failed" grep -q "the gate fails" "$tmp/err.txt"
"$bin" report coverage "$tmp/good.sbk" --traces "$trace" "$tmp/empty.jsonl" --fail-under 0 >/dev/null 2>&1
check "--fail-under fails when one of the traces is unusable" test $? -eq 1
printf '{"type":"capture","format":"shaderbake-trace/1","guest":"nv2a"}\n' >"$tmp/no-draws.jsonl"
"$bin" report coverage "$tmp/good.sbk" --traces "$tmp/no-draws.jsonl" --fail-under 0 --json >"$tmp/out.json" 2>/dev/null
check "--fail-under fails on zero draws" test $? -eq 1
check "... and says passed: false" test "$(json_field "$tmp/out.json" "d['passed']")" = False

# Flags and commands.
"$bin" frobnicate >/dev/null 2>"$tmp/err.txt"
check "an unknown command exits 2" test $? -eq 2
check "an unknown command is named as one" grep -q "unknown command 'frobnicate'" "$tmp/err.txt"
"$bin" report frobnicate >/dev/null 2>"$tmp/err.txt"
check "an unknown report command is named as one" grep -q "unknown command 'frobnicate'; run 'shaderbake report --help'" "$tmp/err.txt"
"$bin" build "$trace" -o "$tmp/x.sbk" --no-cache --cache-dir "$tmp/c" >/dev/null 2>&1
check "--cache-dir with --no-cache is refused" test $? -eq 2
"$bin" compile "$trace" -o "$tmp/x-modules" --no-cache --cache-dir "$tmp/c" >/dev/null 2>&1
check "compile: --cache-dir with --no-cache is refused" test $? -eq 2
"$bin" build "$trace" -o "$tmp/j.sbk" -j 100000 --json >"$tmp/out.json" 2>"$tmp/err.txt"
check "-j 100000 builds" test $? -eq 0
check "-j 100000 is clamped to 4 threads per core" test "$(json_field "$tmp/out.json" "d['threads']")" -eq $((4 * $(nproc)))
check "-j 100000 warns" grep -q "warning: -j 100000 is more than 4 threads per core" "$tmp/err.txt"

# --max-record-size reaches the reader: a record over it is skipped and counted, the others kept.
python3 - "$root/samples/traces/tiny.json" "$tmp/long.jsonl" <<'PY'
import json, sys
records = json.load(open(sys.argv[1]))["records"]
with open(sys.argv[2], "w") as out:
    for i, r in enumerate(records):
        out.write(json.dumps(r) + "\n")
        if i == 1:
            out.write(json.dumps({"type": "draw", "frame": 0, "draw": 99, "note": "x" * 20000}) + "\n")
PY
"$bin" dedupe --json --max-record-size 8K "$tmp/long.jsonl" >"$tmp/out.json" 2>"$tmp/err.txt"
check "--max-record-size 8K: the long record is oversized_record" \
  test "$(json_field "$tmp/out.json" "d['bad_records'].get('oversized_record', 0)")" -eq 1
check "--max-record-size 8K: the other draws are kept" \
  test "$(json_field "$tmp/out.json" "d['draws']")" -eq "$(json_field "$root/samples/traces/tiny.json" "sum(r['type']=='draw' for r in d['records'])")"
"$bin" dedupe --json "$tmp/long.jsonl" >"$tmp/out.json" 2>/dev/null
check "without --max-record-size the 20 KB record is read" \
  test "$(json_field "$tmp/out.json" "d['bad_records'].get('oversized_record', 0)")" -eq 0
for bad in 0 "" lots -1; do
  "$bin" dedupe --max-record-size "$bad" "$tmp/long.jsonl" >/dev/null 2>&1
  check "--max-record-size '$bad' is a usage error" test $? -eq 2
done

# On a terminal (script(1) gives the command one) the compile phase counts modules done; a pipe gets no progress.
if command -v script >/dev/null; then
  script -qc "'$bin' build '$trace' -o '$tmp/tty.sbk' --no-cache" /dev/null </dev/null | tr '\r' '\n' >"$tmp/tty.txt"
  check "on a terminal, the compile phase counts fragment modules done" grep -qE "compiling fragment modules on [0-9]+ threads: ([0-9]+) / \1" "$tmp/tty.txt"
  check "on a terminal, the compile phase counts vertex modules done" grep -qE "compiling vertex modules on [0-9]+ threads: ([0-9]+) / \1" "$tmp/tty.txt"
fi
"$bin" build "$trace" -o "$tmp/pipe.sbk" --no-cache 2>"$tmp/err.txt" >/dev/null
check "through a pipe, no progress line" test ! -s "$tmp/err.txt"

# build exits 1 when any trace was unusable (and still writes the others' bundle).
"$bin" build "$trace" "$tmp/empty.jsonl" -o "$tmp/partial.sbk" >/dev/null 2>"$tmp/err.txt"
check "build with an unusable trace exits 1" test $? -eq 1
check "build with an unusable trace names it" grep -q "empty.jsonl: the trace could not be used" "$tmp/err.txt"
check "build with an unusable trace still writes the others' bundle" test -s "$tmp/partial.sbk"

# File names in messages are escaped like trace data: no raw control byte reaches the terminal.
esc_name="$tmp/$(printf 'bad\033[31mname')"
"$bin" build "$esc_name" -o "$tmp/x.sbk" >/dev/null 2>"$tmp/err.txt"
check "a missing trace with an escape in its name is a usage error" test $? -eq 2
check "the escape byte is written as \\x1b" grep -qF 'bad\x1b[31mname' "$tmp/err.txt"
check "no raw escape byte on stderr" python3 -c "import sys; sys.exit(b'\x1b' in open(sys.argv[1],'rb').read())" "$tmp/err.txt"

# Under --json every failure is a JSON object on stdout: {"error": {"exit_code", "message"}}.
json_error() {  # json_error NAME EXPECTED_EXIT COMMAND...
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/out.json" 2>/dev/null
  local rc=$?
  check "$name: exit $want (got $rc)" test "$rc" -eq "$want"
  check "$name: stdout is one JSON error object with that exit code" python3 - "$tmp/out.json" "$want" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["error"]["exit_code"] == int(sys.argv[2]) and d["error"]["message"] else 1)
PY
}
json_error "build --json, empty -o" 2 "$bin" build --json "$trace" -o ""
json_error "build --json, -o an input" 2 "$bin" build --json "$trace" -o "$trace"
json_error "build --json, a missing trace" 2 "$bin" build --json "$tmp/missing.jsonl" -o "$tmp/x.sbk"
json_error "build --json, no usable draw" 3 "$bin" build --json "$tmp/empty.jsonl" -o "$tmp/x.sbk"
json_error "build --json, -o a directory" 5 "$bin" build --json "$trace" -o "$tmp/dir.sbk"
json_error "dedupe --json, --keys an input" 2 "$bin" dedupe --json --keys "$trace" "$trace"
json_error "compile --json, contradictory flags" 2 "$bin" compile --json --no-cache --cache-dir "$tmp/c" "$trace"
json_error "report coverage --json, not a bundle" 3 "$bin" report coverage --json "$trace" --traces "$trace"
json_error "report rejections --json, not a bundle" 3 "$bin" report rejections --json "$trace"
json_error "report coverage --json, a bad --fail-under" 2 "$bin" report coverage --json "$tmp/good.sbk" --fail-under NaN
json_error "cache prune --json, a bad size" 2 "$bin" cache prune --json --max-size lots --cache-dir "$tmp/c"
json_error "verify --json, not a bundle" 3 "$bin" verify --json "$trace"
json_error "inspect --json, not a bundle" 3 "$bin" inspect --json "$trace"
json_error "warm --json, not a bundle" 3 "$bin" warm --json "$trace" -o "$tmp/w.sbk"

finish hostile
