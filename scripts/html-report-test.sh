#!/usr/bin/env bash
# Renders the what-if HTML report of a fixture trace in headless Chromium and checks it:
# no console messages (an invalid SVG attribute is one), one lane per line in each run,
# breaker bands drawn, a non-empty screenshot. Artifacts go to target/html-report/.
# Chromium comes from Debian's `chromium` package, installed here when missing; the test
# is skipped (with a message) only when it cannot be installed.
# UPDATE_DOCS=1 also copies the screenshot to docs/whatif-report.png.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/target/html-report"
SCENARIO=linekit-tools/tests/scenarios/whatif_outage.json
POLICY=rust-core/tests/fixtures/whatif_policy_threshold1.json

find_chromium() { command -v chromium || command -v chromium-browser || true; }

CHROMIUM=$(find_chromium)
if [ -z "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "html-report-test: installing Debian's chromium (apt-get)"
    if ! { apt-get -o DPkg::Lock::Timeout=600 update -qq &&
           DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null; }; then
      echo "html-report-test: SKIPPED: apt-get could not install chromium" >&2
      exit 0
    fi
    CHROMIUM=$(find_chromium)
  fi
fi
if [ -z "$CHROMIUM" ]; then
  echo "html-report-test: SKIPPED: chromium is not installed and cannot be installed here (needs root and apt-get)" >&2
  exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "html-report-test: python3 is required" >&2; exit 1; }

echo "== what-if HTML report in headless Chromium ($("$CHROMIUM" --version 2>/dev/null | head -1))"
cargo build -q -p linekit-tools --bin linekit
LINEKIT="$ROOT/target/debug/linekit"
rm -rf "$OUT"
mkdir -p "$OUT"
"$LINEKIT" replay "$SCENARIO" --trace-out "$OUT/trace.jsonl" >"$OUT/recorded.jsonl"
"$LINEKIT" replay --from-trace "$OUT/trace.jsonl" --config "$POLICY" --compare \
  --html "$OUT/report.html" >"$OUT/replayed.jsonl"

chrome() {
  local profile
  profile=$(mktemp -d)
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
  local rc=$?
  rm -rf "$profile"
  return $rc
}
chrome --window-size=1300,1000 --screenshot="$OUT/screenshot.png" "file://$OUT/report.html" \
  >/dev/null 2>"$OUT/chromium-screenshot.log"
chrome --dump-dom "file://$OUT/report.html" >"$OUT/dom.html" 2>"$OUT/chromium-dom.log"

fail() { echo "html-report-test: FAILED: $*" >&2; exit 1; }
if grep -h ':CONSOLE' "$OUT"/chromium-*.log; then
  fail "the page logged console messages (above)"
fi
[ -s "$OUT/screenshot.png" ] || fail "no screenshot"
head -c 8 "$OUT/screenshot.png" | od -An -tx1 | grep -q '89 50 4e 47' || fail "screenshot is not a PNG"

python3 - "$OUT/dom.html" "$OUT/trace.jsonl" <<'PY'
import json, sys
from html.parser import HTMLParser

dom, trace = sys.argv[1], sys.argv[2]
lines = set()
for raw in open(trace):
    e = json.loads(raw)
    if e.get("line") and e["kind"] in ("route", "report", "probe"):
        lines.add(f'{e["biz"]}/{e.get("protocol", "http")}/{e["line"]}')

class Walk(HTMLParser):
    def __init__(self):
        super().__init__()
        self.run = None
        self.lanes = {}
        self.bands = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "").split()
        if tag == "svg" and "run" in cls:
            self.run = a.get("data-run")
            self.lanes[self.run] = []
            self.bands[self.run] = set()
        elif tag == "g" and "lane" in cls:
            self.lanes[self.run].append(a.get("data-line"))
        elif tag == "rect" and "band" in cls:
            self.bands[self.run].update(c for c in cls if c.startswith("band-"))

w = Walk()
w.feed(open(dom).read())
assert set(w.lanes) == {"recorded", "replayed"}, f"runs drawn: {sorted(w.lanes)}"
for run, lanes in w.lanes.items():
    assert len(lanes) == len(set(lanes)), f"{run}: a line has two lanes: {lanes}"
    assert set(lanes) == lines, f"{run}: lanes {sorted(lanes)} != lines {sorted(lines)}"
    assert "band-open" in w.bands[run], f"{run}: no open breaker band"
    assert "band-half_open" in w.bands[run], f"{run}: no half-open breaker band"
print(f"html-report-test: DOM ok: {len(lines)} lanes per run, breaker bands in both runs")
PY

if [ "${UPDATE_DOCS:-}" = 1 ]; then
  cp "$OUT/screenshot.png" docs/whatif-report.png
  echo "html-report-test: docs/whatif-report.png updated"
fi
echo "html-report-test: ok; artifacts in $OUT (report.html, screenshot.png, dom.html)"
