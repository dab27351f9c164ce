#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI contract of verify, inspect and the reports on damaged and crafted bundles (tests/bundle/bundle_patch.hpp):
# verify names each broken rule of the INDEX directory; a report that meets a damaged record or section warns
# naming it and exits 3 (never numbers shifted by the damage); a damaged REPORT section is "REPORT section
# corrupt", exit 3; inspect --json is always one JSON document, whatever bytes the bundle or its path hold, and
# a JSON error object when it fails; "not a usable bundle" is exit 3 in each of them, and so is a bundle of
# another guest model or key schema, with the reason.
# Usage: damaged_bundle_test.sh SHADERBAKE SOURCE_ROOT CRAFT_BUNDLE
bin=$1
root=$2
craft=$3
source "$(dirname "$0")/common.sh"

trace=$root/samples/traces/tiny.json
"$bin" build "$trace" -o "$tmp/good.sbk" >/dev/null 2>"$tmp/build.err"
rc=$?
check "the test bundle builds (stderr: $(head -c 300 "$tmp/build.err"))" test $rc -eq 0
make() {  # make CRAFT: $tmp/CRAFT.sbk from the good bundle
  "$craft" "$tmp/good.sbk" "$tmp/$1.sbk" "$1"
}
is_json() {  # is_json FILE: FILE holds exactly one JSON document
  python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$1" 2>/dev/null
}
json_error_object() {  # json_error_object FILE EXIT [TEXT]: {"error": {"exit_code": EXIT, "message": ...TEXT...}}
  python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["error"]
ok = set(d) == {"error"} and set(e) == {"exit_code", "message"} and e["exit_code"] == int(sys.argv[2])
sys.exit(0 if ok and (len(sys.argv) < 4 or sys.argv[3] in e["message"]) else 1)
PY
}

# ---- verify: every rule of the INDEX directory, by name (exit 1: verified, and it failed) ----
declare -A rule=(
  [directory-reversed]="range is reversed"
  [directory-end]="not the entry count"
  [directory-past]="is past the entry count"
  [directory-shifted]="but the first entry whose bucket is >="
  [directory-padding]="the padding after the directory is not zero"
  [directory-bits]="(the smallest D with 8 x 2^D >= E)"
  [index-reserved]="the reserved field (bytes 8-15) is not zero"
)
for name in "${!rule[@]}"; do
  make "$name"
  "$bin" verify "$tmp/$name.sbk" >"$tmp/$name.out" 2>"$tmp/$name.err"
  rc=$?
  check "verify: $name exits 1 (got $rc)" test $rc -eq 1
  check "verify: $name names the rule" grep -qF "${rule[$name]}" "$tmp/$name.err"
  check "verify: $name fails the index family" grep -q "^index .* FAILED" "$tmp/$name.out"
  "$bin" verify --json "$tmp/$name.sbk" >"$tmp/$name.json" 2>/dev/null
  check "verify --json: $name is one document naming the rule" python3 - "$tmp/$name.json" "${rule[$name]}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
index = [c for c in d["checks"] if c["name"] == "index"][0]
sys.exit(0 if not d["ok"] and any(sys.argv[2] in f for f in index["failures"]) else 1)
PY
done

# ---- verify: the router data's rules, by name, in their own families ----
declare -A router_rule=(
  [recipe-samples-3]="dynamic_fallbacks|samples 3 (1, 2, 4, ... 64)"
  [prewarm-duplicate]="prewarm|is already at position 0"
)
for name in "${!router_rule[@]}"; do
  make "$name"
  "$bin" verify "$tmp/$name.sbk" >"$tmp/$name.out" 2>"$tmp/$name.err"
  rc=$?
  check "verify: $name exits 1 (got $rc)" test $rc -eq 1
  check "verify: $name names the rule" grep -qF "${router_rule[$name]#*|}" "$tmp/$name.err"
  check "verify: $name fails its family" grep -q "^${router_rule[$name]%%|*} .* FAILED" "$tmp/$name.out"
done

# ---- not a usable bundle: exit 3 in every command ----
echo "not a bundle" >"$tmp/text.sbk"
head -c 1000 "$tmp/good.sbk" >"$tmp/truncated.sbk"
for input in text truncated; do
  for command in "verify" "inspect" "inspect --list" "report rejections" "report coverage --traces $trace" "warm"; do
    # shellcheck disable=SC2086
    "$bin" $command "$tmp/$input.sbk" >/dev/null 2>&1
    rc=$?
    check "$command on a $input file exits 3 (got $rc)" test $rc -eq 3
  done
  "$bin" verify --json "$tmp/$input.sbk" >"$tmp/out.json" 2>/dev/null
  check "verify --json on a $input file prints a JSON error object" json_error_object "$tmp/out.json" 3
done

# ---- a valid bundle of an unknown guest model or key schema: refused by name, exit 3, in every command (the
# loader opens any guest's bundle; each command takes the model its header names, and none speaks these) ----
refusal="unsupported bundle version, guest model or key schema"
for name in guest-unknown key-schema-next; do
  make "$name"
  for command in "verify" "inspect" "inspect --list" "report rejections" "report coverage --traces $trace" "warm"; do
    # shellcheck disable=SC2086
    "$bin" $command "$tmp/$name.sbk" >/dev/null 2>"$tmp/$name.err"
    rc=$?
    check "$command on a $name bundle exits 3 (got $rc)" test $rc -eq 3
    check "$command on a $name bundle says why" grep -qF "$refusal" "$tmp/$name.err"
  done
  "$bin" verify --json "$tmp/$name.sbk" >"$tmp/out.json" 2>/dev/null
  check "verify --json on a $name bundle prints a JSON error object naming the refusal" \
    json_error_object "$tmp/out.json" 3 "$refusal"
done

# ---- reports: a damaged record or section is named, exit 3, and no numbers ----
make record-unsealed
entry_line=$("$bin" verify "$tmp/record-unsealed.sbk" 2>&1 | grep -o "entry [0-9]* (hash tag 0x[0-9A-F]*)" | head -1)
check "verify names the damaged entry and its hash tag" test -n "$entry_line"
for command in "report coverage --traces $trace" "report coverage" "report rejections" "report rejections --traces $trace"; do
  # shellcheck disable=SC2086
  "$bin" $command "$tmp/record-unsealed.sbk" >"$tmp/report.out" 2>"$tmp/report.err"
  rc=$?
  check "$command meets a damaged record: exit 3 (got $rc)" test $rc -eq 3
  check "$command meets a damaged record: a warning names the entry" grep -qF "warning: $tmp/record-unsealed.sbk: $entry_line" "$tmp/report.err"
  check "$command meets a damaged record: no numbers on stdout" test ! -s "$tmp/report.out"
  # shellcheck disable=SC2086
  "$bin" $command --json "$tmp/record-unsealed.sbk" >"$tmp/report.json" 2>/dev/null
  check "$command --json meets a damaged record: a JSON error object naming the entry" \
    json_error_object "$tmp/report.json" 3 "$entry_line"
done
make report-unsealed
make report-frame
for name in report-unsealed report-frame; do
  for command in "report coverage" "report rejections"; do
    # shellcheck disable=SC2086
    "$bin" $command "$tmp/$name.sbk" >"$tmp/report.out" 2>"$tmp/report.err"
    rc=$?
    check "$command on $name: exit 3 (got $rc)" test $rc -eq 3
    check "$command on $name: says REPORT section corrupt" grep -q "error: .*REPORT section corrupt" "$tmp/report.err"
    # shellcheck disable=SC2086
    "$bin" $command --json "$tmp/$name.sbk" >"$tmp/report.json" 2>/dev/null
    check "$command --json on $name: a JSON error object saying REPORT section corrupt" \
      json_error_object "$tmp/report.json" 3 "REPORT section corrupt"
  done
done
"$bin" report coverage "$tmp/good.sbk" >/dev/null 2>&1
check "report coverage on the intact bundle still exits 0" test $? -eq 0

# ---- verify fails every bundle another command refuses as damaged ----
make meta-not-json
make trailing-bytes
for pair in "report-frame:REPORT section corrupt" "report-unsealed:REPORT section corrupt" \
            "meta-not-json:META section corrupt" "trailing-bytes:trailing data: 8 bytes after the last section"; do
  name=${pair%%:*}
  what=${pair#*:}
  "$bin" verify "$tmp/$name.sbk" >/dev/null 2>"$tmp/verify.err"
  rc=$?
  check "verify on $name: fails (exit $rc)" test $rc -eq 1 -o $rc -eq 3
  check "verify on $name: says $what" grep -qF "$what" "$tmp/verify.err"
done
for command in "inspect" "report coverage"; do
  # shellcheck disable=SC2086
  "$bin" $command "$tmp/trailing-bytes.sbk" >/dev/null 2>&1
  check "$command on trailing bytes: exit 3" test $? -eq 3
done
"$bin" warm "$tmp/trailing-bytes.sbk" -o "$tmp/warmed.sbk" >/dev/null 2>"$tmp/warm.err"
check "warm on trailing bytes: exit 3, before any device" test $? -eq 3
check "warm on trailing bytes: nothing written" test ! -e "$tmp/warmed.sbk"

# ---- inspect: always JSON; damage is a warning, a "problems" entry and exit 3 ----
make meta-not-json
for name in meta-not-json report-unsealed record-unsealed; do
  for args in "" "--list"; do
    [[ $name == meta-not-json && $args == --list ]] && continue  # --list reads no META
    # shellcheck disable=SC2086
    "$bin" inspect --json $args "$tmp/$name.sbk" >"$tmp/inspect.json" 2>"$tmp/inspect.err"
    rc=$?
    check "inspect --json $args on $name: exit 3 (got $rc)" test $rc -eq 3
    check "inspect --json $args on $name: stdout is one JSON document" is_json "$tmp/inspect.json"
    check "inspect --json $args on $name: a warning names the damage" grep -q "^warning: " "$tmp/inspect.err"
  done
done
"$bin" inspect --json "$tmp/meta-not-json.sbk" >"$tmp/inspect.json" 2>/dev/null
check "inspect --json: a META that is not JSON is null, with a problem saying so" \
  test "$(json_field "$tmp/inspect.json" "(d['meta'], d['problems'])")" = "(None, ['the META section is not a JSON object'])"
"$bin" inspect --json "$tmp/report-unsealed.sbk" >"$tmp/inspect.json" 2>/dev/null
check "inspect --json: a damaged REPORT is a problem saying REPORT section corrupt" \
  test "$(json_field "$tmp/inspect.json" "any(p.startswith('REPORT section corrupt') for p in d['problems'])")" = True
# A path that is not UTF-8 and holds a control byte: still JSON (U+FFFD in place of the bad byte).
odd="$tmp/$(printf 'bad\377\033name').sbk"
cp "$tmp/good.sbk" "$odd"
"$bin" inspect --json "$odd" >"$tmp/inspect.json" 2>/dev/null
rc=$?
check "inspect --json on a path that is not UTF-8 exits 0 (got $rc)" test $rc -eq 0
check "inspect --json on a path that is not UTF-8 is one JSON document" is_json "$tmp/inspect.json"
check "... with the bad byte replaced and the escape kept as a JSON escape" \
  test "$(json_field "$tmp/inspect.json" "d['path'].endswith('bad\ufffd\x1bname.sbk') and d['problems'] == []")" = True
key=$("$bin" inspect "$tmp/good.sbk" --list | awk '$2 == "pipeline" {print $1; exit}')
"$bin" inspect --json "$odd" "$key" >"$tmp/entry.json" 2>/dev/null
check "inspect --json KEY on a path that is not UTF-8 is one JSON document" is_json "$tmp/entry.json"
"$bin" inspect --json "$tmp/good.sbk" 0000ffff0000 >"$tmp/nokey.json" 2>/dev/null
check "inspect --json with no such key prints a JSON error object (exit 1)" json_error_object "$tmp/nokey.json" 1
"$bin" inspect --json "$tmp/text.sbk" >"$tmp/inspect.json" 2>"$tmp/inspect.err"
check "inspect --json on a text file prints a JSON error object (exit 3)" json_error_object "$tmp/inspect.json" 3
check "... and the error line on stderr" grep -q "^error: .*not a shaderbake bundle" "$tmp/inspect.err"
"$bin" inspect --json "$tmp/good.sbk" >"$tmp/inspect.json" 2>/dev/null
check "inspect --json on the intact bundle exits 0 with no problems" \
  test "$(json_field "$tmp/inspect.json" "d['problems']")" = "[]"

finish cli_damaged_bundle
