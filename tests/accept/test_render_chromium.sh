#!/bin/bash
# `rocehealth accept --render` on the example report, then report.html in headless Chromium
# (Debian's `chromium`, packaging/debian-build-deps.txt): the page loads with no console message
# (it has no scripts, and its Content-Security-Policy would report any it were made to run), the
# DOM shows the verdict, and a screenshot is taken. The same for a copy whose host name is a
# <script> tag: it must show as text. Prints the screenshot paths.
# Usage: test_render_chromium.sh ROCEHEALTH FIXTURE_REPORT_JSON OUT_DIR
set -euo pipefail
bin=$1 fixture=$2 out=$3
fail() { echo "FAIL: $*" >&2; exit 1; }

chrome=$(command -v chromium || true)
[ -n "$chrome" ] || fail "chromium is not installed (packaging/install-deps.sh installs it)"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

# chromium_run LOG ARGS...: headless Chromium, no sandbox (CI runs as root), its own profile.
chromium_run() {
  local log=$1; shift
  timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@" 2>"$log"
}

# check_page DIR NAME EXPECT: renders DIR/report.json (exit 1: the example fails), screenshots and
# dumps report.html, and checks the DOM holds EXPECT (a grep -F pattern).
check_page() {
  local dir=$1 name=$2 expect=$3 rc=0
  "$bin" accept --render "$dir" >"$dir/render.out" 2>&1 || rc=$?
  [ "$rc" = 1 ] || { cat "$dir/render.out" >&2; fail "$name: accept --render exit $rc, expected 1 (fail)"; }
  grep -q "^acceptance fail: wrote $dir/report.html and $dir/report.md" "$dir/render.out" \
    || fail "$name: unexpected output: $(cat "$dir/render.out")"
  [ -s "$dir/report.md" ] || fail "$name: no report.md"

  rm -f "$dir/report.png"
  chromium_run "$dir/chromium-screenshot.log" --window-size=1280,2000 \
    --screenshot="$dir/report.png" "file://$dir/report.html" \
    || fail "$name: chromium --screenshot failed (log: $dir/chromium-screenshot.log)"
  [ -s "$dir/report.png" ] || fail "$name: no screenshot written"
  local size; size=$(stat -c %s "$dir/report.png")
  [ "$size" -gt 20000 ] || fail "$name: screenshot is only $size bytes (blank page?)"

  chromium_run "$dir/chromium-dom.log" --dump-dom "file://$dir/report.html" >"$dir/dom.html" \
    || fail "$name: chromium --dump-dom failed (log: $dir/chromium-dom.log)"
  grep -q '<div class="big">FAIL</div>' "$dir/dom.html" || fail "$name: the verdict is not in the DOM"
  grep -qF "$expect" "$dir/dom.html" || fail "$name: '$expect' is not in the DOM"
  if grep -hE 'CONSOLE|Uncaught|Refused to|net::ERR_' "$dir/chromium-screenshot.log" "$dir/chromium-dom.log"; then
    fail "$name: the page logged console errors (above)"
  fi
  echo "$name: verdict shown, no console errors; screenshot: $dir/report.png ($size bytes)"
}

mkdir -p "$out/example" "$out/hostile"
cp "$fixture" "$out/example/report.json"
check_page "$out/example" example "Jain fairness index of sender goodput"

# A host named <script>alert(1)</script>: in the DOM it is text, never an element.
sed 's|"gpu-r1-02"|"<script>alert(1)</script>"|g' "$fixture" >"$out/hostile/report.json"
check_page "$out/hostile" hostile '&lt;script&gt;alert(1)&lt;/script&gt;'
if grep -q '<script' "$out/hostile/dom.html"; then fail "hostile: a <script> element reached the DOM"; fi
echo "PASS: report.html renders in Chromium"
