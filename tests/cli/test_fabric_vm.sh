#!/bin/bash
# VictoriaMetrics as a second engine (issue 29): Debian's `victoria-metrics` (single node,
# Prometheus' query API, MetricsQL) and `vmalert` on the series of cli_fabric
# (fabric_series.py), beside Debian's Prometheus on the same series, and what a user would check:
# - `rocehealth fabric --prometheus http://VM` finds what it finds on Prometheus: the same
#   findings (rule, host, labels), each opened within 60 s of Prometheus' (MetricsQL's rate and
#   increase do not extrapolate and take in the sample before the window: numbers differ, findings
#   must not), the same timeline order, exit 1; the same paged by time; a bad selector is exit 2
#   with VictoriaMetrics' error text;
# - the shipped rules (packaging/prometheus/rocehealth-*.yml) replayed by `vmalert -replay.*` over
#   the backfill fire exactly the alerts those findings stand for: the storm origin (host,
#   priority), the blast radius on each ToR with >= 2 victims, the failing ToR, the drifting
#   setting (host, setting, value) — and nothing else; the recorded origin and victim series name
#   the hosts fabric names.
# Nothing here names a host: expectations come from Prometheus' answer, so the test follows
# whatever fabric_series.py writes (cli_fabric pins what that is). Usage: test_fabric_vm.sh
# ROCEHEALTH_BINARY [PACKAGING_DIR]
set -u
bin=$1 failed=0
here=$(cd "$(dirname "$0")" && pwd)
pkg=${2:-$here/../../packaging}
fail() { echo "FAIL: $*" >&2; failed=1; }
for tool in victoria-metrics vmalert prometheus promtool jq python3 curl; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
work=$(mktemp -d)
prom_pid= vm_pid=
cleanup() {
  for p in $prom_pid $vm_pid; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

now=$(date +%s)
t0=$(((now - 5 * 3600) / 3600 * 3600))
python3 "$here/fabric_series.py" "$t0" >"$work/fabric.om"
. "$here/fabric_backfill.sh"
serve_prometheus "$work/fabric.om" || { fail "no Prometheus on the backfill"; exit 1; }
serve_victoria "$work/fabric.om" || { fail "no VictoriaMetrics on the backfill"; exit 1; }
last=$(grep -v '^#' "$work/fabric.om" | awk '{print $NF}' | sort -n | tail -1)
from=$t0 to=$last

# --- rocehealth fabric on both engines ----------------------------------------------------
run_fabric() {  # run_fabric URL NAME [ARGS...]: JSON into $work/NAME.json, exit code into NAME_rc
  local u=$1 n=$2
  shift 2
  "$bin" fabric --prometheus "$u" --from "$from" --to "$to" --json "$@" >"$work/$n.json" \
    2>"$work/$n.err"
  printf -v "${n}_rc" %s $?
}
run_fabric "$prom_url" prom
# Raw on VictoriaMetrics before the replay: a query for a recorded series that does not exist yet
# (--source auto asks) made VictoriaMetrics 1.79 hide that series from vmalert's next rules once
# the replay wrote it (the pause origin rule then read nothing: seen in this test, every run).
run_fabric "$vm_url" vm --source raw
run_fabric "$vm_url" vm_paged --page-points 17 --source raw
# A range that ends now, as a user's default does: VictoriaMetrics moves a range query's end
# back by its -search.latencyOffset, so host_info read as a range of one point at now came back
# empty (seen at 1,000 hosts: every host named by its instance, and the ToR rule not judged,
# "N probe series gave 0 pair(s) between ToRs", though the failing ToR was there to find).
to=now run_fabric "$vm_url" vm_now --source raw
[ "$prom_rc" = 1 ] && jq -e '.findings | length > 0' "$work/prom.json" >/dev/null ||
  { fail "Prometheus: exit $prom_rc, expected 1 with findings: $(cat "$work/prom.err")"; exit 1; }
[ "$vm_rc" = 1 ] || fail "VictoriaMetrics: exit $vm_rc, expected 1: $(cat "$work/vm.err")"
findings='[.findings[] | {rule, host, labels}] | sort_by(.rule, .host, (.labels | tostring))'
for n in vm vm_paged vm_now; do
  [ "$(jq -c "$findings" "$work/$n.json")" = "$(jq -c "$findings" "$work/prom.json")" ] ||
    fail "$n: findings differ from Prometheus': $(jq -c "$findings" "$work/$n.json") vs $(jq -c "$findings" "$work/prom.json")"
  [ "$(jq -c '[.timeline[] | [.rule, .host]]' "$work/$n.json")" = \
    "$(jq -c '[.timeline[] | [.rule, .host]]' "$work/prom.json")" ] ||
    fail "$n: timeline order differs from Prometheus': $(jq -c '[.timeline[] | [.rule, .host, .t]]' "$work/$n.json")"
done
opened='[.findings[] | {key: "\(.rule) \(.host) \(.labels | tostring)", value: .opened_t}] | from_entries'
jq -n -e --argjson p "$(jq -c "$opened" "$work/prom.json")" --argjson v "$(jq -c "$opened" "$work/vm.json")" \
  '[$p | to_entries[] | ($v[.key] // 1e18) - .value | fabs <= 60] | all' >/dev/null ||
  fail "opened times more than 60 s apart: Prometheus $(jq -c "$opened" "$work/prom.json"), VictoriaMetrics $(jq -c "$opened" "$work/vm.json")"

out=$("$bin" fabric --prometheus "$vm_url" --from "$from" --to "$to" --match '{tor=~"("}' 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -q "query host_info failed at $vm_url" <<<"$out" && grep -q "regexp" <<<"$out" ||
  fail "bad selector on VictoriaMetrics: exit $rc, expected 2 naming the query and its error: $out"

# The new user's finds on this engine too: one probe pair into each ToR is too little input
# for the ToR rule (could not judge, exit 2, never healthy), and a base URL one step off shows
# VictoriaMetrics' answer and the URL forms (its cluster's form on a single node).
"$bin" fabric --prometheus "$vm_url" --from "$from" --to $((from + 300)) --match '{host=~"h1|h4"}' \
  --json >"$work/few.json" 2>"$work/few.err"
rc=$?
[ "$rc" = 2 ] && jq -e '.verdict == "could_not_judge" and
  ([.not_judged[].rule] | index("fabric_tor_probes_failing") != null)' "$work/few.json" >/dev/null ||
  fail "one pair a ToR on VictoriaMetrics: exit $rc, expected 2 (could not judge): $(head -c 2000 "$work/few.json")"
out=$("$bin" fabric --prometheus "$vm_url/select/0/prometheus" --from "$from" --to "$to" 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -q "HTTP status 4[0-9][0-9], answer '.*/prometheus/api/v1/query_range" <<<"$out" &&
  grep -qF "VictoriaMetrics http://HOST:8428" <<<"$out" ||
  fail "wrong base URL on VictoriaMetrics: exit $rc, expected 2 with its answer and the forms: $out"

# --header (Mimir's tenant): each one reaches the server, with every request; a header the
# client sets itself is refused before anything is sent.
hport=$(free_port)
python3 - "$hport" "$work/head.ready" >"$work/head.txt" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
open(sys.argv[2], "w").close()
s.settimeout(15)
c, _ = s.accept()
head = b""
while b"\r\n\r\n" not in head:
    d = c.recv(4096)
    if not d:
        break
    head += d
body = b'{"status":"success","data":{"resultType":"matrix","result":[]}}'
c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
          % (len(body), body))
c.close()
sys.stdout.write(head.decode())
PY
head_pid=$!
for _ in $(seq 1 100); do [ -e "$work/head.ready" ] && break; sleep 0.1; done
"$bin" fabric --prometheus "http://127.0.0.1:$hport/prometheus" --header 'X-Scope-OrgID: tenant1' \
  --header 'X-Team:  a b ' --from "$from" --to "$to" --timeout 5 >/dev/null 2>&1
wait "$head_pid"
# The first request: host_info, an instant query at the range's end.
grep -q $'^GET /prometheus/api/v1/query?query=last_over_time.*&time=.* HTTP/1.1\r$' "$work/head.txt" &&
  grep -q $'^X-Scope-OrgID: tenant1\r$' "$work/head.txt" && grep -q $'^X-Team: a b\r$' "$work/head.txt" ||
  fail "--header: not in the request: $(cat -A "$work/head.txt")"
out=$("$bin" fabric --prometheus "$vm_url" --header 'Host: other' --from "$from" --to "$to" 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -qF -- "--header 'Host: other': header Host is set by rocehealth itself" <<<"$out" ||
  fail "--header Host: exit $rc, expected 2 naming it: $out"

# --- the shipped rules through vmalert's replay ------------------------------------------
# One range query per rule at the rules' 15 s interval (prometheus-scrape.yml), each written
# back before the next rule of its group reads it: rulesDelay covers the remote write flush
# (100 ms) and VictoriaMetrics making new samples searchable (~1 s).
vmalert -rule="$pkg/prometheus/rocehealth-*.yml" -datasource.url="$vm_url" \
  -remoteWrite.url="$vm_url" -remoteWrite.flushInterval=100ms -evaluationInterval=15s \
  -datasource.queryStep=15s -replay.timeFrom="$(date -u -d "@$from" +%Y-%m-%dT%H:%M:%SZ)" \
  -replay.timeTo="$(date -u -d "@$to" +%Y-%m-%dT%H:%M:%SZ)" -replay.rulesDelay=3s \
  -replay.disableProgressBar >"$work/vmalert.log" 2>&1 ||
  fail "vmalert replay: exit $?: $(tail -20 "$work/vmalert.log")"
grep -q "replay finished" "$work/vmalert.log" && ! grep -P '\t(error|fatal)\t' "$work/vmalert.log" >&2 ||
  fail "vmalert replay did not finish cleanly: $(tail -20 "$work/vmalert.log")"
curl -sf "$vm_url/internal/force_flush" >/dev/null
sleep 2
range=$((to - from + 60))s
vmq() {  # vmq METRICSQL: the instant query at $to, its result array
  curl -sf --data-urlencode "query=$1" --data-urlencode "time=$to" "$vm_url/api/v1/query" | jq -c '.data.result'
}
# Firing alerts, each once, keyed by the labels that tell them apart, with their first firing.
alerts=$(vmq "tfirst_over_time(ALERTS{alertstate=\"firing\"}[$range])" | jq -c '[.[] | .metric as $m |
  {key: ($m.alertname + " " + (
    if $m.alertname == "RocehealthPauseStormOrigin" then "\($m.host) \($m.priority)"
    elif $m.alertname == "RocehealthPauseStormBlastRadius" then "\($m.tor) \($m.priority)"
    elif $m.alertname == "RocehealthTorProbesFailing" then $m.tor
    elif $m.alertname == "RocehealthConfigDrift" then "\($m.host) \($m.setting) \($m.value)"
    else ($m | del(.__name__, .alertname, .alertstate, .alertgroup) | tostring) end)),
   t: (.value[1] | tonumber)}] | sort_by(.key)')
# What fabric's findings on Prometheus stand for. Victims: the storm's timeline hosts other than
# its origin; their ToRs from rocehealth_host_info.
tors=$(vmq "last_over_time(rocehealth_host_info[$range])" | jq -c 'map({(.metric.host): .metric.tor}) | add')
expected=$(jq -c --argjson tor "$tors" '
  [.findings[] | select(.rule == "fabric_pause_storm_origin")] as $o
  | ([.timeline[] | select(.rule == "fabric_pause_storm_origin") | .host] - [$o[].host]) as $v
  | [($o[] | "RocehealthPauseStormOrigin \(.host) \(.labels.priority)"),
     ($v | map($tor[.]) | group_by(.)[] | select(length >= 2)
      | "RocehealthPauseStormBlastRadius \(.[0]) \($o[0].labels.priority)"),
     (.findings[] | select(.rule == "fabric_tor_probes_failing") | "RocehealthTorProbesFailing \(.labels.tor)"),
     (.findings[] | select(.rule == "fabric_config_drift")
      | "RocehealthConfigDrift \(.host) \(.labels.setting) \(.labels.value)")] | unique' "$work/prom.json")
[ "$(jq -c '[.[].key] | unique' <<<"$alerts")" = "$expected" ] ||
  fail "vmalert's firing alerts $(jq -c '[.[].key]' <<<"$alerts") are not the ones fabric's findings stand for: $expected"
jq -e '([.[] | select(.key | startswith("RocehealthPauseStormOrigin")) | .t] | min) as $o
  | [.[] | select(.key | startswith("RocehealthPauseStormBlastRadius")) | .t >= $o] | all' <<<"$alerts" >/dev/null ||
  fail "a blast radius alert fired before its storm's origin: $alerts"
recorded() {  # recorded NAME: the hosts of recorded series NAME over the range, sorted
  vmq "group by (host) (max_over_time($1[$range]) * on (instance) group_left (host) last_over_time(rocehealth_host_info[$range]))" |
    jq -c '[.[].metric.host] | sort'
}
want_origin=$(jq -c '[.findings[] | select(.rule == "fabric_pause_storm_origin") | .host] | sort' "$work/prom.json")
want_victims=$(jq -c '[.timeline[] | select(.rule == "fabric_pause_storm_origin") | .host] - '"$want_origin"' | sort' "$work/prom.json")
[ "$(recorded rocehealth:pause_storm_origin:tx_fraction)" = "$want_origin" ] ||
  fail "recorded storm origins $(recorded rocehealth:pause_storm_origin:tx_fraction), fabric's: $want_origin"
[ "$(recorded rocehealth:pause_storm_victim:rx_fraction)" = "$want_victims" ] ||
  fail "recorded storm victims $(recorded rocehealth:pause_storm_victim:rx_fraction), fabric's: $want_victims"

# --- fabric on the rules' recorded series (--source recorded; auto picks them now) ----------
# The series the replay recorded are what a fleet's fabric reads (per ToR, nonzero pause shares,
# drifting ports only): the same findings as the raw series on Prometheus, the ToR's timeline
# its bad rows, and each analysis says it read them.
run_fabric "$vm_url" vm_rec --source recorded
run_fabric "$vm_url" vm_auto
[ "$vm_rec_rc" = 1 ] || fail "--source recorded: exit $vm_rec_rc, expected 1: $(cat "$work/vm_rec.err")"
for n in vm_rec vm_auto; do
  jq -e '.fabric.sources == {"pause": "recorded", "mesh": "recorded", "config": "recorded"}' \
    "$work/$n.json" >/dev/null || fail "$n: sources $(jq -c .fabric.sources "$work/$n.json"), expected all recorded"
  [ "$(jq -c "$findings" "$work/$n.json")" = "$(jq -c "$findings" "$work/prom.json")" ] ||
    fail "$n: findings differ from Prometheus' raw ones: $(jq -c "$findings" "$work/$n.json") vs $(jq -c "$findings" "$work/prom.json")"
  tl='[.timeline[] | [.rule, .host]] | sort'
  [ "$(jq -c "$tl" "$work/$n.json")" = "$(jq -c "$tl" "$work/prom.json")" ] ||
    fail "$n: timeline differs from Prometheus' raw one: $(jq -c "$tl" "$work/$n.json") vs $(jq -c "$tl" "$work/prom.json")"
  jq -e '[.timeline[] | select(.rule == "fabric_pause_storm_origin") | .t] | . == sort' "$work/$n.json" >/dev/null ||
    fail "$n: storm timeline not in time order"
  jq -n -e --argjson p "$(jq -c "$opened" "$work/prom.json")" --argjson v "$(jq -c "$opened" "$work/$n.json")" \
    '[$p | to_entries[] | ($v[.key] // 1e18) - .value | fabs <= 60] | all' >/dev/null ||
    fail "$n: opened times more than 60 s from Prometheus' raw ones: $(jq -c "$opened" "$work/$n.json")"
done
jq -e '[.fabric.queries[].name] | index("bad_rows") != null and index("probe_errors") == null' \
  "$work/vm_rec.json" >/dev/null ||
  fail "--source recorded sent raw row queries or no bad_rows pass: $(jq -c '[.fabric.queries[].name]' "$work/vm_rec.json")"

[ "$failed" = 0 ] && echo "test_fabric_vm: ok ($(jq -r '.findings | length' "$work/vm.json") findings on both engines, $(jq -r 'length' <<<"$alerts") alerts from vmalert)"
exit "$failed"
