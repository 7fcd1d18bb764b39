#!/bin/bash
# `rocehealth fabric` against Debian's real Prometheus (issue 15 §4). Writes a synthetic fabric
# (tests/cli/fabric_series.py: h2 the origin of a pause storm on priority 3, ToR r02 failing
# the mesh pairs into it, h5's MTU unlike the others') — backfills it with `promtool tsdb
# create-blocks-from openmetrics`, serves it with `prometheus` on a free port, and checks what a
# user would: the origin host and priority named and first in the timeline, the victims after
# it in time order, ToR r02 blamed (not a host), h5's MTU drift; then the errors: unreachable
# URL, a range without data, a bad --match (Prometheus' error text), an answer over the bounds
# (the error names a selector to narrow with), bad --from. Then, in the next hour, a fabric in the
# mesh series budget's form (window failures of the worst rows only): ToR r13 blamed.
# Usage: test_fabric.sh ROCEHEALTH_BINARY
set -u
bin=$1 failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }
for tool in prometheus promtool jq python3 curl; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
work=$(mktemp -d)
prom_pid=
cleanup() {
  [ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# t0: a whole hour 5 h ago, so that the backfilled blocks lie behind Prometheus' head.
now=$(date +%s)
t0=$(((now - 5 * 3600) / 3600 * 3600))
python3 "$(dirname "$0")/fabric_series.py" "$t0" >"$work/fabric.om"
# The series budget's form (fabric_budget_series.py) in the next hour, from t1, after the first
# hour's series went stale: `fabric` must blame ToR r13 from the window gauges alone.
t1=$((t0 + 3600 + 900))
python3 "$(dirname "$0")/fabric_budget_series.py" "$t1" >"$work/budget.om"
. "$(dirname "$0")/fabric_backfill.sh"
serve_prometheus "$work/fabric.om" "$work/budget.om" || { fail "no Prometheus on the backfill"; exit 1; }
url=$prom_url

from=$(date -u -d "@$t0" +%Y-%m-%dT%H:%M:%SZ)
to=$((t0 + 3600))

# The fabric: exit 1 with the three findings.
out=$("$bin" fabric --prometheus "$url" --from "$from" --to "$to" --json --out "$work/out" 2>"$work/err")
rc=$?
[ "$rc" = 1 ] || fail "fabric: exit $rc, expected 1; stderr: $(cat "$work/err")"
check() {  # check LABEL JQ-EXPRESSION: must be true on $out
  jq -e "$2" <<<"$out" >/dev/null || fail "$1: jq '$2' is not true on: $(head -c 3000 <<<"$out")"
}
check "origin named" '[.findings[] | select(.rule == "fabric_pause_storm_origin")] |
  length == 1 and .[0].host == "h2" and .[0].labels.priority == "3" and .[0].labels.tor == "r01"'
check "origin opens at t0+10m" ".findings[] | select(.rule == \"fabric_pause_storm_origin\") |
  .opened_t >= $((t0 + 600)) and .opened_t <= $((t0 + 680))"
check "origin first, victims after it in time order" '[.timeline[] |
  select(.rule == "fabric_pause_storm_origin") | .host] == ["h2", "h4", "h1", "h5"]'
check "victims timed after the origin" '[.timeline[] | select(.rule == "fabric_pause_storm_origin")
  | .t] | . == sort and .[0] < .[1]'
check "ToR r02 blamed, not a host" '[.findings[] | select(.rule == "fabric_tor_probes_failing")] |
  length == 1 and .[0].labels.tor == "r02" and (.[0].host | startswith("h") | not)'
check "failing pairs in the ToR timeline" '[.timeline[] | select(.rule == "fabric_tor_probes_failing")
  | .host] | length == 9 and all(. == "h1" or . == "h2" or . == "h3")'
check "MTU drift on h5 only" '[.findings[] | select(.rule == "fabric_config_drift")] | length == 1
  and .[0].host == "h5" and .[0].labels.setting == "netdev_mtu_bytes" and .[0].labels.value == "1500"
  and .[0].labels.fabric_value == "9000"'
check "verdict and hosts" '.verdict == "findings" and (.hosts | length == 6)'
# No recording rules ran over this hour: each analysis asks for its recorded series, gets none,
# and reads the agents' raw series (--source auto); the queries listed are those sent.
check "raw source where nothing is recorded" '.fabric.sources == {"pause": "raw", "mesh": "raw", "config": "raw"}
  and [.fabric.queries[].name] == ["host_info", "pause_pairs_reporting", "pause_fraction", "tor_into_count",
  "probe_errors", "probe_p50_s", "config_ports", "port_config"]
  and [.fabric.queries[] | select(.at == "end") | .name] == ["host_info"]
  and ([.fabric.queries[].at] | unique) == ["end", "range"]'
# --source recorded without the rules' series: nothing judged (exit 2), each rule saying so.
rec=$("$bin" fabric --prometheus "$url" --from "$from" --to "$to" --json --source recorded 2>&1)
rc=$?
[ "$rc" = 2 ] && jq -e '.verdict == "could_not_judge" and ([.not_judged[] | select(.text |
  contains("--source recorded: the range has no"))] | length == 3)' <<<"$rec" >/dev/null ||
  fail "--source recorded with no recorded series: exit $rc, expected 2 with 3 rules not judged: $(head -c 2000 <<<"$rec")"
out2=$("$bin" fabric --prometheus "$url" --from "$from" --to "$to" --source recorded --match '{tor="r01"}' 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -q -- "--source recorded reads the fabric-wide per-ToR series" <<<"$out2" ||
  fail "--source recorded with --match: exit $rc, expected 2 saying why: $out2"
[ -s "$work/out/fabric.json" ] && grep -q "rocehealth fabric: .*3 findings" "$work/out/fabric.txt" && grep -q fabric_pause_storm_origin "$work/out/fabric.txt" ||
  fail "--out: fabric.json/fabric.txt missing or incomplete"
# The text says what each analysis read, on the line after the verdict.
sed -n 2p "$work/out/fabric.txt" | grep -q "^  read: pause raw, mesh raw, config raw " ||
  fail "fabric.txt's second line does not say what was read: $(head -3 "$work/out/fabric.txt")"

# Out of memory: a valid answer too large for the memory fabric may use (ulimit -v) is named,
# with what to ask for less, never a bare std::bad_alloc or "not JSON". Skipped where the binary
# cannot start under the limit (ASan reserves terabytes of address space).
if (ulimit -v 500000; "$bin" fabric --help >/dev/null 2>&1); then
  bport=$(free_port)
  python3 - "$bport" >/dev/null 2>&1 <<'PY' &
import http.server, sys
class Big(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # 60,000 series of 240 points: about 1 GB once decoded
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        if self.path.startswith("/api/v1/query?"):  # host_info, at the end: one host
            self.wfile.write(b'{"status":"success","data":{"resultType":"vector","result":['
                             b'{"metric":{"instance":"h0:9900","tor":"r0"},"value":[1800003585,"1"]}]}}')
            return
        pts = ",".join('[%d,"1"]' % (1800000000 + 15 * i) for i in range(240)).encode()
        self.wfile.write(b'{"status":"success","data":{"resultType":"matrix","result":[')
        for i in range(60000):
            self.wfile.write(b'%s{"metric":{"instance":"h%d:9900","tor":"r%d"},"values":[%s]}'
                             % (b"," if i else b"", i, i // 48, pts))
        self.wfile.write(b"]}}")
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Big).serve_forever()
PY
  big_pid=$!
  wait_ready "http://127.0.0.1:$bport/" /dev/null big-answer-server >/dev/null 2>&1
  oom=$(ulimit -v 500000; "$bin" fabric --prometheus "http://127.0.0.1:$bport" --from 1800000000 \
    --to 1800003585 --max-series 10000000 --max-answer-bytes 17179869184 --timeout 60 2>&1)
  rc=$?
  kill "$big_pid" 2>/dev/null
  [ "$rc" = 2 ] && grep -q "out of memory while reading the answer to query pause_pairs_reporting (1 points" <<<"$oom" &&
    grep -q -- "--source auto or recorded" <<<"$oom" ||
    fail "out of memory: exit $rc, expected 2 naming the query and how to ask for less: $(head -c 600 <<<"$oom")"
fi

# Paged by time (15 pages of 17 points): the same findings and timeline.
paged=$("$bin" fabric --prometheus "$url" --from "$from" --to "$to" --json --page-points 17 2>&1)
[ "$(jq -c '[.findings, .timeline]' <<<"$paged")" = "$(jq -c '[.findings, .timeline]' <<<"$out")" ] ||
  fail "paged: findings differ from one page's"

# Text: the origin named before the victims.
txt=$("$bin" fabric --prometheus "$url" --from "$from" --to "$to" 2>&1)
grep -q 'fabric_pause_storm_origin on h2' <<<"$txt" || fail "text: origin not named: $txt"
grep -q 'ToR r02' <<<"$txt" || fail "text: ToR not named: $txt"

# Healthy: the first 5 minutes, before anything started, without h5 (its MTU): 4 pairs into
# each ToR, 4 ports of each setting, every rule had its minimum input.
out=$("$bin" fabric --prometheus "$url" --from "$t0" --to $((t0 + 300)) --match '{host=~"h1|h2|h4|h6"}' --json 2>&1)
rc=$?
[ "$rc" = 0 ] || fail "healthy range: exit $rc, expected 0: $out"

# Too little input is not health (a new user's find: one probe pair said healthy, exit 0): the
# ToR rule needs 4 pairs into a ToR, drift 3 ports of a setting; exit 2, saying what was seen.
out=$("$bin" fabric --prometheus "$url" --from "$t0" --to $((t0 + 300)) --match '{host=~"h1|h4"}' --json 2>&1)
rc=$?
[ "$rc" = 2 ] || fail "one pair a ToR: exit $rc, expected 2 (could not judge): $(head -c 2000 <<<"$out")"
check "one pair a ToR: could not judge the ToR rule nor drift" '.verdict == "could_not_judge" and
  ([.not_judged[].rule] | sort) == ["fabric_config_drift", "fabric_tor_probes_failing"]'
check "one pair a ToR: what was seen against what is needed" '[.not_judged[] |
  select(.rule == "fabric_tor_probes_failing") | .text] | length == 1 and (.[0] |
  contains("2 pair(s) between ToRs into 2 ToR(s), at most 1 into one") and contains("at least 4 pairs"))'
txt=$("$bin" fabric --prometheus "$url" --from "$t0" --to $((t0 + 300)) --match '{tor="r01"}' 2>&1)
rc=$?
[ "$rc" = 2 ] || fail "one ToR: exit $rc, expected 2: $txt"
grep -q 'could not judge.*fabric_tor_probes_failing: too little input: .* 0 pair(s) between ToRs' <<<"$txt" ||
  fail "one ToR: text does not say why: $txt"

# The span of the data found, and the range asked when it differs (a new user's find: the
# header showed the range asked as "s of data").
txt=$("$bin" fabric --prometheus "$url" --from $((t0 - 600)) --to "$to" 2>&1)
grep -q "rocehealth fabric: .*3600 s of data from $(date -u -d "@$t0" +%Y-%m-%dT%H:%M:%S).000Z (asked: 4200 s from" <<<"$txt" ||
  fail "data span: $(head -3 <<<"$txt")"
out=$("$bin" fabric --prometheus "$url" --from $((t0 - 600)) --to "$to" --json 2>&1)
check "data span in JSON" ".fabric.data_from == \"$from\" and .span.seconds == 3600 and
  .fabric.from != .fabric.data_from"

# Data that stops before --to is not health (a new user's find: hosts silent for the last 45
# minutes of a range said healthy, exit 0). The hour's samples end at t0+3600 (Prometheus looks
# back 5 m after them), --to is 800 s later: each rule found says it may have missed others
# since, the rest are not judged.
out=$("$bin" fabric --prometheus "$url" --from $((t0 + 3000)) --to $((t0 + 4400)) --match '{host=~"h1|h2|h4|h6"}' --json 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "data ending before --to: exit $rc, expected 1: $(head -c 2000 <<<"$out")"
end_text="no series after $(date -u -d "@$((t0 + 3900))" +%Y-%m-%dT%H:%M:%SZ) (500 s before the range's end)"
check "data ending before --to: drift not judged since the data's end" "[.not_judged[] |
  select(.rule == \"fabric_config_drift\" and (.text | contains(\"$end_text\")))] | length == 1"
check "data ending before --to: the two rules found say they may have missed faults since" "[.notes[] |
  select(.text | contains(\"may have missed other faults: $end_text\")) | .subject] | sort ==
  [\"fabric_pause_storm_origin\", \"fabric_tor_probes_failing\"]"
# Hosts that stop reporting while others go on (the first hour's six, then the budget hour's
# fleet from t1): named with their last point, not judged since.
out=$("$bin" fabric --prometheus "$url" --from $((t0 + 3000)) --to $((t1 + 900)) --json 2>&1)
check "silent hosts named" "[.not_judged[] | select(.rule == \"hosts\") | .text] | length == 1 and
  (.[0] | startswith(\"hosts: h1 (last $(date -u -d "@$((t0 + 3900))" +%Y-%m-%dT%H:%M:%SZ))\") and
  contains(\"h6 (last\") and (contains(\"g1\") | not))"

# One rule, one state: at a 100 s step (coarser than the rules' 60 s) the storm is still found;
# its rule is then found (with a note), not also "not judged".
out=$("$bin" fabric --prometheus "$url" --from "$from" --to "$to" --min-step 100 --json -v 2>&1)
check "100 s step: origin found" '[.findings[].rule] | index("fabric_pause_storm_origin") != null'
check "100 s step: no rule both found and not judged" '[.findings[].rule] as $f |
  [.not_judged[].rule] | all(. as $r | $f | index($r) | not)'
# A 7 h step (--max-points 2): its two instants skip the port configuration (Prometheus looks
# back 5 m): could not judge, the step named, not "no series".
out=$("$bin" fabric --prometheus "$url" --from $((t0 - 7200)) --to $((t0 + 18000)) --max-points 2 --json 2>&1)
rc=$?
[ "$rc" = 2 ] || fail "7 h step: exit $rc, expected 2: $(head -c 2000 <<<"$out")"
check "7 h step: could not judge, the step named" '.verdict == "could_not_judge" and
  (.not_judged | length == 3) and all(.not_judged[]; .text | contains("25200 s")) and
  ([.not_judged[] | select(.rule == "fabric_config_drift") | .text] | length == 1 and
  (.[0] | contains("no input at a query step of 25200 s")))'

# A long range must not hide a live fault (issue 29): 30 days ending 250 s into h2's storm
# (its 2 m alert fired at about t0+730 s). The old plan stepped 236 s (11,000 points a series),
# saw one point in the storm and said healthy for r01; now the step stays within the rules' 1 m
# window, paged by time, and the origin is found. Its cost: requests (counted by Prometheus
# itself) and wall time.
live_to=$((t0 + 850))
live_from=$((live_to - 30 * 86400))
range_requests() {  # query_range and query (host_info at the end) requests Prometheus has served
  curl -sf "$url/metrics" | awk '/^prometheus_http_requests_total\{.*handler="\/api\/v1\/query(_range)?"/ {n += $2}
    END {print n + 0}'
}
before=$(range_requests)
start_ns=$(date +%s%N)
out=$("$bin" fabric --prometheus "$url" --from "$live_from" --to "$live_to" --json 2>"$work/err")
rc=$?
wall_ms=$((($(date +%s%N) - start_ns) / 1000000))
after=$(range_requests)
[ "$rc" = 1 ] || fail "30 d with a live storm: exit $rc, expected 1; stderr: $(cat "$work/err")"
check "30 d: the live storm's origin found" '[.findings[] |
  select(.rule == "fabric_pause_storm_origin")] | length == 1 and .[0].host == "h2"'
check "30 d: step within the rules' 1 m window" '.fabric.step_s <= 60'
[ "$(jq -r .fabric.requests <<<"$out")" = "$((after - before))" ] ||
  fail "30 d: reported $(jq -r .fabric.requests <<<"$out") requests, Prometheus counted $((after - before))"
echo "cost of a 30 d range: step $(jq -r .fabric.step_s <<<"$out") s, $((after - before)) query_range requests, ${wall_ms} ms"
out=$("$bin" fabric --prometheus "$url" --from "$live_from" --to "$live_to" --match '{tor="r01"}' --json 2>"$work/err")
rc=$?
[ "$rc" = 1 ] || fail "30 d, r01: exit $rc, expected 1 (the storm); stderr: $(cat "$work/err")"
check "30 d, r01: origin h2" '.verdict == "findings" and ([.findings[].host] == ["h2"])'
# Past --max-points (here the old plan's 11,000 points: a 236 s step) the windowed rules are not
# judged: exit 2, never healthy; the text says why.
out=$("$bin" fabric --prometheus "$url" --from "$live_from" --to "$live_to" --match '{tor="r01"}' \
  --max-points 11000 --json 2>"$work/err")
rc=$?
[ "$rc" = 2 ] || fail "30 d at 236 s: exit $rc, expected 2 (could not judge): $(head -c 2000 <<<"$out")"
check "30 d at 236 s: could not judge pauses and probes" '.verdict == "could_not_judge" and
  .fabric.step_s == 236 and ([.not_judged[].rule] | index("fabric_pause_storm_origin") != null
  and index("fabric_tor_probes_failing") != null)'
txt=$("$bin" fabric --prometheus "$url" --from "$live_from" --to "$live_to" --match '{tor="r01"}' \
  --max-points 11000 2>&1)
grep -q 'could not judge.*236 s, coarser than the 60 s' <<<"$txt" || fail "30 d at 236 s: text: $txt"
# The budget's form (backfilled above, the hour after): ToR r13 blamed from the window failures.
out=$("$bin" fabric --prometheus "$url" --from "$t1" --to $((t1 + 2700)) --json 2>"$work/err")
rc=$?
[ "$rc" = 1 ] || fail "budget form: exit $rc, expected 1; stderr: $(cat "$work/err")"
check "budget form: ToR r13 blamed from the window failures alone" '[.findings[] |
  select(.rule == "fabric_tor_probes_failing")] | length == 1 and .[0].labels.tor == "r13"'
check "budget form: nothing else" '[.findings[] | select(.rule != "fabric_tor_probes_failing")] | length == 0'

errcase() {  # errcase LABEL TEXT... -- ARGS...: exit 2, every TEXT in stderr, JSON error on stdout
  local label=$1; shift
  local want=()
  while [ "$1" != "--" ]; do want+=("$1"); shift; done
  shift
  local so se rc
  so=$("$bin" fabric "$@" --json 2>"$work/err"); rc=$?
  se=$(cat "$work/err")
  [ "$rc" = 2 ] || fail "$label: exit $rc, expected 2; stderr: $se"
  for t in "${want[@]}"; do grep -qF -- "$t" <<<"$se" || fail "$label: '$t' not in stderr: $se"; done
  jq -e '.verdict == "error" and (.error | length > 0)' <<<"$so" >/dev/null ||
    fail "$label: no JSON error document: $so"
}
errcase "unreachable" "cannot reach Prometheus at http://127.0.0.1:1" -- \
  --prometheus http://127.0.0.1:1 --from "$from" --to "$to" --timeout 2
errcase "empty range" "no host exported rocehealth_host_info or the series the fabric rules read" \
  "rocehealth_pfc_pause_duration_seconds_total" "at $url" -- \
  --prometheus "$url" --from $((t0 - 3 * 86400)) --to $((t0 - 3 * 86400 + 3600))
errcase "no host matches" "no host exported rocehealth_host_info matching --match {tor=\"r99\"}" \
  "check the selector" -- --prometheus "$url" --from "$from" --to "$to" --match '{tor="r99"}'
# A wrong base URL (Mimir's without /prometheus): the server's answer and the URL forms.
errcase "wrong base URL" "HTTP status 404, answer '404 page not found'" \
  "Mimir http://HOST/prometheus" -- --prometheus "$url/prometheus" --from "$from" --to "$to"
errcase "bad selector" "Prometheus error bad_data" "parse error" -- \
  --prometheus "$url" --from "$from" --to "$to" --match '{tor=~"("}'
errcase "too many series" "query pause_fraction is too large" "--match '{tor=\"r01\"}'" -- \
  --prometheus "$url" --from "$from" --to "$to" --max-series 8
errcase "too many bytes" "is too large" "bytes" -- \
  --prometheus "$url" --from "$from" --to "$to" --max-answer-bytes 2000
errcase "bad --from" "--from: 'yesterday' is not a time" -- \
  --prometheus "$url" --from yesterday
errcase "no URL" "--prometheus URL is required" -- --from now-1h

[ "$failed" = 0 ] && echo "test_fabric: ok"
exit "$failed"
