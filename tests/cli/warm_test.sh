#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI contract of `shaderbake warm` on lavapipe: every pipeline created (under the validation layer, zero
# messages), the driver's cache data stored in DRIVER_CACHE under lavapipe's identity and handed out by the loader
# for exactly that identity, warming again replacing rather than adding, every other section unchanged, the
# bundle still verifying, and the documented exit codes (3 bad bundle, 4 no such device, 5 cannot write); crafted
# bundles (tests/bundle/bundle_patch.hpp) refused before any Vulkan device is opened, and a file of any size
# refused by its header without being read.
# Usage: warm_test.sh SHADERBAKE DRIVER_CACHE_PROBE SOURCE_ROOT CRAFT_BUNDLE
bin=$1
probe=$2
root=$3
craft=$4
source "$(dirname "$0")/common.sh"

"$bin" build "$root/samples/traces/tiny.json" -o "$tmp/b.sbk" --json >"$tmp/build.json" 2>"$tmp/build.err"
rc=$?
check "the test bundle builds (stderr: $(head -c 300 "$tmp/build.err"))" test $rc -eq 0
cp "$tmp/b.sbk" "$tmp/before.sbk"
pipelines=$(json_field "$tmp/build.json" "d['exact_pipelines'] + d['fallback_pipelines']")

# ---- warm into another file, under the validation layer ----
"$bin" warm "$tmp/b.sbk" -o "$tmp/w.sbk" --validate --json >"$tmp/warm.json" 2>"$tmp/warm.err"
rc=$?
check "warm exits 0 (got $rc; stderr: $(head -c 600 "$tmp/warm.err"))" test $rc -eq 0
out=$tmp/warm.json
check "warm ran on lavapipe" test "$(json_field "$out" "'llvmpipe' in d['device']['name']")" = True
check "the validation layer was on" test "$(json_field "$out" "d['validation_layer']")" = True
check "zero validation messages" test "$(json_field "$out" "len(d['validation_messages'])")" = 0
check "every pipeline entry was created ($pipelines)" \
  test "$(json_field "$out" "(d['pipelines'], d['cold']['created'], d['cold']['failed'])")" = "($pipelines, $pipelines, 0)"
check "the control pass created every pipeline cold again" \
  test "$(json_field "$out" "(d['cold_again']['created'], d['cold_again']['failed'])")" = "($pipelines, 0)"
check "every pipeline was created again from the stored blob" \
  test "$(json_field "$out" "(d['cached']['created'], d['cached']['failed'])")" = "($pipelines, 0)"
check "the blob holds at least a VkPipelineCacheHeaderVersionOne" test "$(json_field "$out" "d['blob_bytes'] >= 32")" = True
check "a first warm adds a blob" test "$(json_field "$out" "(d['replaced'], d['driver_caches_in_bundle'])")" = "(False, 1)"
check "-o leaves the input alone" cmp -s "$tmp/b.sbk" "$tmp/before.sbk"
check "no temporary file is left next to the output" test -z "$(ls "$tmp" | grep '\.tmp')"

vendor=$(json_field "$out" "d['device']['vendor_id']")
device=$(json_field "$out" "d['device']['device_id']")
driver=$(json_field "$out" "d['device']['driver_version']")
uuid=$(json_field "$out" "d['device']['pipeline_cache_uuid']")
other_uuid=$(python3 -c "import sys; u=sys.argv[1]; print(u[:-1] + ('0' if u[-1] != '0' else '1'))" "$uuid")

# ---- the loader (plain C) hands the blob out for lavapipe's identity only ----
check "the loader returns the blob for lavapipe's identity" \
  test "$("$probe" "$tmp/w.sbk" "$vendor" "$device" "$driver" "$uuid")" = "ok $(json_field "$out" "d['blob_bytes']") $(printf '0x%x' "$vendor")"
check "NOT_FOUND for another driver version" \
  test "$("$probe" "$tmp/w.sbk" "$vendor" "$device" "$((driver + 1))" "$uuid")" = not_found
check "NOT_FOUND for another pipelineCacheUUID" \
  test "$("$probe" "$tmp/w.sbk" "$vendor" "$device" "$driver" "$other_uuid")" = not_found
check "NOT_FOUND for another vendor" test "$("$probe" "$tmp/w.sbk" 0x10de "$device" "$driver" "$uuid")" = not_found
check "NOT_FOUND in a bundle never warmed" \
  test "$("$probe" "$tmp/before.sbk" "$vendor" "$device" "$driver" "$uuid")" = not_found

# ---- every other section is byte for byte what it was (read through the loader) ----
"$probe" "$tmp/before.sbk" --sections >"$tmp/sections.before"
"$probe" "$tmp/w.sbk" --sections >"$tmp/sections.after"
check "the bundle has router data (DYNAMIC_FALLBACKS 10, PREWARM 11) for warm to carry" \
  test "$(grep -c '^1[01] ' "$tmp/sections.before")" = 2
check "the warmed bundle adds exactly one section, DRIVER_CACHE (9)" \
  test "$(diff "$tmp/sections.before" "$tmp/sections.after" | grep -c '^[<>]')" = 1 -a \
       "$(diff "$tmp/sections.before" "$tmp/sections.after" | grep '^>' | cut -d' ' -f2)" = 9

# ---- verify and inspect know the section ----
"$bin" verify --json "$tmp/w.sbk" >"$tmp/verify.json" 2>"$tmp/verify.err"
rc=$?
check "the warmed bundle verifies (stderr: $(head -c 300 "$tmp/verify.err"))" test $rc -eq 0
check "verify checks the driver cache" \
  test "$(json_field "$tmp/verify.json" "[(c['checked'], len(c['failures'])) for c in d['checks'] if c['name'] == 'driver_caches']")" = "[(1, 0)]"
"$bin" inspect --json "$tmp/w.sbk" >"$tmp/inspect.json"
check "inspect lists the driver cache" \
  test "$(json_field "$tmp/inspect.json" "[(c['vendor_id'], c['driver_version'], c['pipeline_cache_uuid'], c['bytes']) for c in d['driver_caches']]")" = \
       "[($vendor, $driver, '$uuid', $(json_field "$out" "d['blob_bytes']"))]"
"$bin" inspect "$tmp/w.sbk" >"$tmp/inspect.txt"
check "inspect's summary names the device's blob" grep -q "driver caches: 1" "$tmp/inspect.txt"

# ---- warming again, in place, replaces the blob of the same device ----
cp "$tmp/w.sbk" "$tmp/twice.sbk"
"$bin" warm "$tmp/twice.sbk" --no-control >"$tmp/twice.txt" 2>"$tmp/twice.err"
rc=$?
check "warming in place exits 0 (got $rc; stderr: $(head -c 300 "$tmp/twice.err"))" test $rc -eq 0
check "the text summary compares cold and cached medians" grep -q "median per pipeline: cold" "$tmp/twice.txt"
check "--no-control skips the control pass" test "$(grep -c "cold again" "$tmp/twice.txt")" = 0
check "warming again replaces the device's blob" grep -q "replaced the blob of this device" "$tmp/twice.txt"
"$bin" inspect --json "$tmp/twice.sbk" >"$tmp/twice.json"
check "one blob after warming twice" test "$(json_field "$tmp/twice.json" "len(d['driver_caches'])")" = 1
"$probe" "$tmp/twice.sbk" --sections | grep -v '^9 ' >"$tmp/sections.twice"
check "warming twice leaves the other sections alone" diff -q <(grep -v '^9 ' "$tmp/sections.before") "$tmp/sections.twice"
"$bin" verify "$tmp/twice.sbk" >/dev/null 2>&1
check "the twice-warmed bundle verifies" test $? -eq 0

# ---- exit codes ----
"$bin" warm "$tmp/b.sbk" -o "$tmp/none.sbk" --device "no such device 9f3a" >/dev/null 2>"$tmp/nodevice.err"
check "no such device exits 4" test $? -eq 4
check "no such device lists the devices there are" grep -q "llvmpipe" "$tmp/nodevice.err"
check "nothing is written without a device" test ! -e "$tmp/none.sbk"
"$bin" warm "$tmp/b.sbk" -o "$tmp/no/such/dir/x.sbk" >/dev/null 2>"$tmp/nowrite.err"
check "an unwritable output exits 5" test $? -eq 5
echo "not a bundle" >"$tmp/text.sbk"
"$bin" warm "$tmp/text.sbk" >/dev/null 2>"$tmp/text.err"
check "a text file exits 3" test $? -eq 3
check "a text file is called not a bundle" grep -q "not a shaderbake bundle" "$tmp/text.err"
cp "$tmp/before.sbk" "$tmp/damaged.sbk"
flip_bits "$tmp/damaged.sbk" -3 0x10  # inside the last section: only its checksum can tell
"$bin" warm "$tmp/damaged.sbk" >/dev/null 2>"$tmp/damaged.err"
check "a damaged bundle exits 3 and is not rewritten with fresh checksums" test $? -eq 3
check "the damaged bundle is left as it was" test "$(python3 -c "import sys; print(open(sys.argv[1],'rb').read()[-3])" "$tmp/damaged.sbk")" = \
  "$(python3 -c "import sys; print(open(sys.argv[1],'rb').read()[-3] ^ 0x10)" "$tmp/before.sbk")"

# ---- a file of any size is refused by its header, never read into memory ----
# Peak resident memory of the command, in KiB, after its exit status: "RC KIB".
rc_and_peak_kib() {
  python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
truncate -s 100G "$tmp/sparse.sbk"
read -r rc kib < <(rc_and_peak_kib "$bin" warm "$tmp/sparse.sbk" -o "$tmp/sparse-out.sbk")
check "a 100 GB sparse file exits 3 (got $rc)" test "$rc" -eq 3
check "a 100 GB sparse file costs less than 200 MB of memory (peak $kib KiB)" test "$kib" -lt 204800
head -c 4096 "$tmp/before.sbk" >"$tmp/sparse-header.sbk"
truncate -s 100G "$tmp/sparse-header.sbk"
read -r rc kib < <(rc_and_peak_kib "$bin" warm "$tmp/sparse-header.sbk" -o "$tmp/sparse-out.sbk")
check "100 GB behind a bundle's header exits 3 (got $rc)" test "$rc" -eq 3
check "100 GB behind a bundle's header costs less than 200 MB of memory (peak $kib KiB)" test "$kib" -lt 204800
rm -f "$tmp/sparse.sbk" "$tmp/sparse-header.sbk"

# ---- crafted bundles: refused before any Vulkan device is opened (exit 3, the problem named) ----
# With the Vulkan loader pointed at a driver file that does not exist, opening a device fails (exit 4): a
# crafted bundle that still exits 3 there was refused before warm tried to open one.
no_driver=(env VK_DRIVER_FILES="$tmp/no-such-icd.json" VK_ICD_FILENAMES="$tmp/no-such-icd.json")
"${no_driver[@]}" "$bin" warm "$tmp/before.sbk" -o "$tmp/no-driver.sbk" >/dev/null 2>"$tmp/no-driver.err"
rc=$?
check "without a Vulkan driver an intact bundle exits 4 (got $rc; stderr: $(head -c 300 "$tmp/no-driver.err"))" test $rc -eq 4
declare -A named=(
  [layout-index-of-another-layout]="recipes: pipeline [0-9a-f]*: its layout [0-9]* is not the one its modules require (layout [0-9]* is)"
  [descriptor-count-9133]="layouts: layout [0-9]*: 9133 .* more than the [0-9]* every Vulkan device accepts in one stage"
)
for name in layout-index-of-another-layout descriptor-count-9133; do
  "$craft" "$tmp/before.sbk" "$tmp/$name.sbk" "$name"
  "$probe" "$tmp/$name.sbk" --sections >/dev/null
  check "$name: the crafted bundle opens (its checksums are sealed)" test $? -eq 0
  cp "$tmp/$name.sbk" "$tmp/$name.orig"
  "$bin" warm "$tmp/$name.sbk" --json >"$tmp/$name.json" 2>"$tmp/$name.err"
  rc=$?
  check "$name: warm exits 3 (got $rc)" test $rc -eq 3
  check "$name: stderr names the problem" grep -q "error: .*${named[$name]}" "$tmp/$name.err"
  check "$name: stderr says no Vulkan device was opened" grep -q "refused before any Vulkan device was opened" "$tmp/$name.err"
  check "$name: stdout is one JSON error object naming the problem" python3 - "$tmp/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["error"]["exit_code"] == 3 and "refused before any Vulkan device was opened" in d["error"]["message"] else 1)
PY
  check "$name: the bundle is left as it was" cmp -s "$tmp/$name.sbk" "$tmp/$name.orig"
  "${no_driver[@]}" "$bin" warm "$tmp/$name.sbk" -o "$tmp/$name.out" >/dev/null 2>&1
  rc=$?
  check "$name: without a Vulkan driver still exit 3, so no device was asked for (got $rc)" test $rc -eq 3
  check "$name: nothing is written" test ! -e "$tmp/$name.out"
  "$bin" verify "$tmp/$name.sbk" >/dev/null 2>"$tmp/$name.verify"
  check "$name: verify fails on it with the same problem" grep -q "${named[$name]#*: }" "$tmp/$name.verify"
done

finish cli_warm
