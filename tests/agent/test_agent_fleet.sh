#!/bin/bash
# `rocehealth agent` with its fleet from Prometheus' targets API and its ToR from LLDP, end to
# end: a local HTTP server serves a recorded /api/v1/targets answer, a stand-in lldpcli prints
# lldpd's JSON; the agent plans its mesh over the up targets with their tor labels
# (mesh_fleet_updated, rocehealth_mesh_fleet_hosts), exports the LLDP tor, and when the server
# goes away keeps the last good fleet and counts the failure
# (rocehealth_mesh_peer_source_errors_total). --check-config names a missing lldpcli.
# usage: test_agent_fleet.sh ROCEHEALTH FIXTURE_DIR/sys FIXTURES_DIR
set -euo pipefail
bin=$1
sys=$(cd "$2" && pwd)
fixtures=$(cd "$3" && pwd)
command -v curl >/dev/null || { echo "FAIL: curl missing"; exit 1; }

work=$(mktemp -d)
agent_pid= server_pid=
cleanup() {
    for p in $agent_pid $server_pid; do kill -KILL "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    echo "--- agent log (last 20 lines)"
    tail -20 "$work/agent.log" 2>/dev/null || true
    exit 1
}
wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.2
    done
}

# Prometheus' answer (recorded from 2.42 scraping tests/fixtures/prometheus/targets_prometheus.yml)
# at /api/v1/targets; http.server ignores the ?state=active query.
mkdir -p "$work/www/api/v1"
cp "$fixtures/prometheus/targets_active.json" "$work/www/api/v1/targets"
prom_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$prom_port" --bind 127.0.0.1 --directory "$work/www" >"$work/server.log" 2>&1 &
server_pid=$!
wait_for 10 curl -sf "http://127.0.0.1:$prom_port/api/v1/targets" -o /dev/null ||
    fail "the HTTP server did not start"

# lldpd's view: ens1f0np0 cabled to the switch r07 (one_neighbor.json with that SysName).
sed 's/r07-tor1.fab.example/r07/' "$fixtures/lldp/one_neighbor.json" >"$work/lldp.json"
printf '#!/bin/sh\ncat %s\n' "$work/lldp.json" >"$work/lldpcli"
chmod 755 "$work/lldpcli"

write_config() {  # write_config LLDPCLI
    cat >"$work/agent.json" <<JSON
{"sysfs_root": "$sys", "host": "127.0.0.2", "collect_interval_s": 0.5,
 "lldp": {"labels": {"tor": "ens1f0np0"}, "lldpcli": "$1"},
 "http": {"listen": "127.0.0.1:0"},
 "mesh": {"peers_prometheus": {"url": "http://127.0.0.1:$prom_port", "job": "rocehealth",
                               "timeout_s": 2},
          "peers_refresh_s": 10, "interval_s": 0.5, "timeout_s": 0.2, "inter_tor_peers": 1}}
JSON
}

write_config "$work/no-such-lldpcli"
set +e
out=$("$bin" agent --config "$work/agent.json" --check-config 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "--check-config with a missing lldpcli: exit $rc, expected 2"
grep -qF "lldp.labels.tor: run $work/no-such-lldpcli: No such file or directory: not found (install lldpd" <<<"$out" ||
    fail "--check-config does not name the missing lldpcli: $out"

write_config "$work/lldpcli"
"$bin" agent --config "$work/agent.json" --check-config >/dev/null || fail "--check-config rejected a good config"
"$bin" agent --config "$work/agent.json" 2>"$work/agent.log" &
agent_pid=$!
port=
listening() { port=$(grep '"event":"http_listening"' "$work/agent.log" | tail -1 | sed 's/.*"port":\([0-9]*\).*/\1/'); [ -n "$port" ]; }
wait_for 20 listening || fail "the agent did not listen"
metrics() { curl -sf "http://127.0.0.1:$port/metrics"; }
has_metric() { grep -qxF "$1" <<<"$(metrics)"; }

# The fleet: the 6 up targets of job rocehealth (127.0.0.4 is down, job node is another job),
# this host (127.0.0.2) in r07 — the tor its target's label and LLDP both give.
wait_for 20 grep -q '"event":"mesh_fleet_updated"' "$work/agent.log" || fail "no mesh_fleet_updated"
line=$(grep '"event":"mesh_fleet_updated"' "$work/agent.log" | head -1)
for want in '"hosts":6' '"self":"127.0.0.2"' '"tor":"r07"' '"tors":4' '"hosts_without_tor":1' '"source":"prometheus"'; do
    grep -qF "$want" <<<"$line" || fail "mesh_fleet_updated lacks $want: $line"
done
grep -q '"event":"mesh_started"' "$work/agent.log" || fail "the mesh did not start on the fleet"
wait_for 10 has_metric 'rocehealth_mesh_fleet_hosts 6' || fail "/metrics: no rocehealth_mesh_fleet_hosts 6"
has_metric 'rocehealth_mesh_peer_source_errors_total{source="prometheus"} 0' ||
    fail "/metrics: the error counter does not start at 0"
grep -q '^rocehealth_host_info{host="127.0.0.2",tor="r07"} 1$' <<<"$(metrics)" ||
    fail "/metrics: host_info lacks the LLDP tor: $(metrics | grep host_info)"
if command -v promtool >/dev/null; then
    metrics | promtool check metrics || fail "promtool check metrics rejected /metrics"
fi
# The series budget's form (agent/daemon/mesh_budget.h): the worst destinations' window
# failures — own ToR per peer (127.0.0.1), other ToRs by dst_tor; no responder answers here, so
# every destination fails its connect — and the group totals; no per-row counters.
has_row() { grep -q "$1" <<<"$(metrics)"; }
wait_for 15 has_row '^rocehealth_probe_window_errors{peer="127.0.0.1:18520"} [1-9]' ||
    fail "/metrics: no window failures of the own-ToR peer"
wait_for 15 has_row '^rocehealth_probe_tor_window_errors{dst_tor="r08"} [1-9]' ||
    fail "/metrics: no window failures of r08"
has_row '^rocehealth_probe_group_errors_total{dst_group="other_tors",op="connect"} [1-9]' ||
    fail "/metrics: no group failures into other ToRs"
has_row '^rocehealth_probe_group_errors_total{dst_group="own_tor",op="write"} 0$' ||
    fail "/metrics: the group counters do not start at 0"
! has_row '^rocehealth_probe_errors_total{\|^rocehealth_probe_tor_errors_total{' ||
    fail "/metrics: per-row counters besides the budget's form"
if command -v promtool >/dev/null; then  # summaries of quantiles only, and of _sum/_count only
    metrics | promtool check metrics || fail "promtool check metrics rejected the budget's form"
fi

# Prometheus goes away: the next refresh (10 s) fails, the fleet stays, the failure is counted.
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=
wait_for 25 grep -q '"event":"mesh_peer_source_failed"' "$work/agent.log" ||
    fail "no mesh_peer_source_failed after the server stopped"
line=$(grep '"event":"mesh_peer_source_failed"' "$work/agent.log" | head -1)
grep -qF '"kept_hosts":6' <<<"$line" || fail "mesh_peer_source_failed does not keep the fleet: $line"
grep -qF "connect http://127.0.0.1:$prom_port/api/v1/targets: no HTTP answer" <<<"$line" ||
    fail "mesh_peer_source_failed does not name the URL: $line"
wait_for 5 has_metric 'rocehealth_mesh_peer_source_errors_total{source="prometheus"} 1' ||
    fail "/metrics: the failure is not counted"
has_metric 'rocehealth_mesh_fleet_hosts 6' || fail "/metrics: the fleet was not kept"

kill -TERM "$agent_pid"
wait "$agent_pid" || fail "agent exit status $? after SIGTERM"
agent_pid=
echo "PASS: fleet from Prometheus targets with tor labels, tor from LLDP, last good fleet kept"
