#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The coverage page (`report coverage --html`) opened in a real browser: Debian's chromium, headless. A bundle
# built from part of the nv2a sample session is measured against the whole session and the inline sample (so
# every chart has content: exact first uses, uncovered ones by three reasons), with the replay JSON of a
# published H200 run. The page must load with no console message at all (it has no script; a blocked resource
# or a parse problem would log), reference nothing outside itself, and its DOM after rendering must hold the
# charts' series. A page from a hostile replay file (markup in mode names, fields of the wrong type) must
# render the same way, its text escaped. The screenshot is kept: ARTIFACT_DIR/coverage_page.png.
# Usage: report_page_test.sh SHADERBAKE SOURCE_ROOT ARTIFACT_DIR
bin=$(realpath "$1")
root=$(realpath "$2")
artifacts=$3
source "$(dirname "$0")/common.sh"
mkdir -p "$artifacts"
browser=$(command -v chromium || command -v chromium-browser)
check "chromium is installed (scripts/setup installs it)" test -n "$browser"
cd "$tmp" || exit 1
# --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
run_browser() { timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --no-first-run \
  --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 "$@"; }

python3 - "$root/samples/traces/session_ref.jsonl" late.jsonl <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], 'w') as out:
    for line in f:
        r = json.loads(line)
        if r['type'] != 'draw' or r['frame'] >= 40: out.write(line)
PY
"$bin" build late.jsonl -o partial.sbk --no-cache >/dev/null 2>&1
check "the partial bundle builds" test -s partial.sbk
zcat "$root/bench/results/replay_nvidia_h200_2026-12-02_capture100.json.gz" >replay.json
replay=replay.json
"$bin" report coverage partial.sbk --traces "$root/samples/traces/session_ref.jsonl" "$root/samples/traces/session_inline.jsonl" \
  --html page.html --replay "$replay" >coverage.out 2>&1
rc=$?
check "report coverage writes the page (exit $rc)" test -s page.html
check "the page loads nothing from outside (no script, src, href or url)" \
  test "$(grep -o -i -E '<script|src=|href=|url\(' page.html | wc -l)" -eq 0

# dom PAGE NAME: the DOM after rendering, and the browser's log, into NAME.dom / NAME.log
dom() { run_browser --dump-dom "file://$tmp/$1" >"$2.dom" 2>"$2.log"; }
series() { python3 - "$1" <<'PY'
import sys
from html.parser import HTMLParser
class Series(HTMLParser):
    def __init__(self):
        super().__init__(); self.svg = None; self.group = None; self.found = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'svg': self.svg = a.get('id')
        elif tag == 'g' and 'data-series' in a:
            self.group = f"{self.svg}/{a['data-series']}"; self.found[self.group] = 0
        elif self.group and tag in ('rect', 'circle'): self.found[self.group] += 1
        elif tag == 'script': print('script element'); sys.exit(1)
        if any(name.startswith('on') for name, _ in attrs): print('event attribute on', tag); sys.exit(1)
    def handle_endtag(self, tag):
        if tag == 'g': self.group = None
        if tag == 'svg': self.svg = None
p = Series(); p.feed(open(sys.argv[1]).read())
for name, marks in sorted(p.found.items()): print(name, marks)
PY
}
dom page.html page
check "chromium renders the page ($(tail -c 200 page.log))" grep -q "<svg id=\"first-uses\"" page.dom
check "no console message ($(grep CONSOLE page.log | head -3))" test "$(grep -c 'CONSOLE' page.log)" -eq 0
series page.dom >page.series
has() { grep -Eq "^$1 [1-9][0-9]*$" page.series; }
check "first uses over frames: an exact series with bars" has "first-uses/exact"
check "first uses over frames: an uncovered series with bars" has "first-uses/uncovered"
check "first uses over frames: the fallback and dynamic fallback series are there" \
  grep -Eq "^first-uses/dynamic_fallback " page.series
for reason in no_pipeline_for_host_state family_not_in_bundle rejected:dot_zw_depth_format; do
  check "uncovered by reason: $reason" has "uncovered/uncovered:$reason"
done
for mode in none bundle hybrid bundle+cache hybrid+cache; do
  check "the replay's stalls: mode $mode with its four marks" grep -qx "stalls/mode:$mode 4" page.series
done
rm -f "$artifacts/coverage_page.png"
run_browser --window-size=880,1400 --screenshot="$artifacts/coverage_page.png" "file://$tmp/page.html" >/dev/null 2>&1
check "a screenshot is kept ($artifacts/coverage_page.png)" \
  test "$(python3 -c "import struct, sys; d = open(sys.argv[1], 'rb').read(24); print(struct.unpack('>II', d[16:24]) if d[:8] == b'\x89PNG\r\n\x1a\n' else '')" "$artifacts/coverage_page.png")" = "(880, 1400)"

# A hostile replay file: markup in a mode's name, a mode whose figures are strings, one that is not an object.
cat >hostile.json <<'EOF'
{"modes": [{"mode": "<script>alert(1)</script>", "frame_first_use_ms": {"p50": 0, "p99": 1, "p99_9": 2, "max": 3}},
           {"mode": "strings", "frame_first_use_ms": {"p50": "0", "p99": "1", "p99_9": "2", "max": "3"}},
           7, {"mode": "x\" onload=\"alert(2)", "frame_first_use_ms": {"p50": 1e308, "p99": -5, "p99_9": 0, "max": 1}},
           {"mode": "y' onmouseover='alert(3)", "frame_first_use_ms": {"p50": 0, "p99": 0, "p99_9": 0, "max": 0},
            "stalls": {"over_4ms": 1e300}}]}
EOF
"$bin" report coverage partial.sbk --html hostile.html --replay hostile.json >/dev/null 2>&1
check "a hostile replay file still gives a page" test -s hostile.html
dom hostile.html hostile
check "the hostile page renders with no console message" test "$(grep -c 'CONSOLE' hostile.log)" -eq 0
series hostile.dom >hostile.series
check "no script element reaches the DOM" test $? -eq 0
check "the markup in mode names is text" grep -q "stalls/mode:<script>alert(1)</script> 4" hostile.series
check "a mode whose figures do not read is left out" test "$(grep -c '^stalls/' hostile.series)" -eq 3
check "huge figures are printed whole: every table row has its six cells" \
  test "$(grep -o '<tr>' hostile.dom | wc -l)" -eq "$(python3 -c "import re, sys; print(len([r for r in re.findall(r'<tr>(.*?)</tr>', open(sys.argv[1]).read()) if r.count('<td>') in (0, 3, 6)]))" hostile.dom)"

# The console check sees what a page logs (its positive control).
echo "<html><body><script>console.error('logged')</script></body></html>" >logs.html
dom logs.html logs
check "the console check sees a page's console message" test "$(grep -c 'CONSOLE' logs.log)" -gt 0

finish report_page
