#!/bin/bash
# test_agent_prometheus.sh -- `rocehealth agent` in two Soft-RoCE guests, scraped by Debian's
# prometheus on the host through QEMU host forwards (RH_LAB_HOSTFWD: host 127.0.0.1:<port> ->
# guest :9477 over a restricted user-mode eth1). Checks through Prometheus' HTTP query API: both
# agents up, real rxe counters as series, and a real finding — g2's eth0 taken down for a few
# seconds (rxe0 port DOWN) — as rocehealth_finding and rocehealth_findings_opened_total. g1's
# agent runs the responder, and a real probe from g2 to it completes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prometheus.sh"
command -v prometheus >/dev/null || lab_unavailable "prometheus not installed (tests/lab/deps.txt)"
command -v curl >/dev/null || lab_unavailable "curl not installed"
RH_LAB_HOSTFWD=9477 lab_up 2
bin=$(rocehealth_bin) || exit 1

declare -A fwd agent
for g in g1 g2; do
  fwd[$g]=$(cat "$RH_LAB_DIR/$g/hostfwd") || fail "$g: no host forward (lab.sh RH_LAB_HOSTFWD)"
  lab_exec "$g" -- sh -c 'ip addr add 10.0.2.15/24 dev eth1 && ip link set eth1 up' ||
    fail "$g: cannot bring up eth1"
  responder=false
  [ "$g" = g1 ] && responder=true
  cat >"$RH_LAB_DIR/$g-agent.json" <<EOF
{"host": "$g", "collect_interval_s": 1,
 "http": {"listen": "0.0.0.0:9477"},
 "responder": {"enabled": $responder, "device": "rxe0"}}
EOF
  agent[$g]=$(lab spawn "$g" -- "$bin" agent --config "$RH_LAB_DIR/$g-agent.json") ||
    fail "$g: cannot start the agent"
done

healthy() { curl -sf "http://127.0.0.1:${fwd[$1]}/healthz" | grep -q '"status":"ok"'; }
for g in g1 g2; do
  wait_until 120 healthy "$g" || { lab wait "${agent[$g]}" --timeout 1; fail "$g: agent /healthz never ok through the host forward"; }
done
log "agents up: g1 127.0.0.1:${fwd[g1]}, g2 127.0.0.1:${fwd[g2]}"

# Debian's prometheus on the host, scraping both guests every second.
prom_start "$RH_REPO/packaging/prometheus/rocehealth-alerts.yml" g1 g2

wait_until 60 count_is 'up{job="rocehealth"} == 1' 2 || { query 'up'; fail "Prometheus does not see both agents up"; }
# Real rxe counters, per guest: roce_rx_packets from rxe0's hw_counters.
wait_until 30 count_is 'rocehealth_roce_rx_packets_total{device="rxe0",port="1"}' 2 ||
  { query '{__name__=~"rocehealth_.*_total"}' | head; fail "no rxe counter series for both guests"; }
out=$(query 'rocehealth_port_state_code{device="rxe0",guest="g2"}')
assert_contains "$out" '"netdev": "eth0"'
assert_match "$out" ' 4$' "g2 rxe0 ACTIVE before the flap"
out=$(query 'rocehealth_build_info')
assert_contains "$out" '"version": "0.1.0"'

# The responder inside g1's agent serves a real probe from g2.
wait_until 60 count_is 'rocehealth_responder_up{guest="g1"} == 1' 1 || fail "g1 responder not up"
lab_wait_port g1 18520
out=$(lab_exec g2 --timeout 300 -- "$bin" probe "$(lab_ip g1)" --iterations 20 --sizes 64 --json)
assert_eq 0 "$?" "probe g2 -> g1 agent's responder ($out)"
assert_contains "$out" '"ok": true'

# A real finding: g2 eth0 down for 5 s (rxe0 port goes DOWN), then up.
lab_exec g2 -- sh -c 'ip link set eth0 down; sleep 5; ip link set eth0 up' || fail "cannot flap g2 eth0"
wait_until 60 count_is 'max_over_time(rocehealth_finding{rule="link_flap",host="g2",device="rxe0"}[5m]) == 1' 1 ||
  { query 'rocehealth_finding'; fail "Prometheus never saw g2's link_flap finding"; }
wait_until 30 count_is 'rocehealth_findings_opened_total{rule="link_flap",guest="g2"} >= 1' 1 ||
  fail "rocehealth_findings_opened_total does not count g2's flap"
count_is 'rocehealth_findings_opened_total{rule="link_flap",guest="g1"} > 0' 0 ||
  fail "g1 reports a link flap it did not have"
# The same finding through the agent's own API, with evidence from rxe0.
curl -sf "http://127.0.0.1:${fwd[g2]}/api/v1/findings" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [f for f in d["findings"] if f["rule"] == "link_flap" and f["device"] == "rxe0"]
assert f, d["findings"]
print("g2 finding:", f[0]["summary"])' || fail "g2 /api/v1/findings lacks link_flap"
# The alert rule file loaded and evaluating: the short-finding alert fires for g2.
wait_until 30 count_is 'ALERTS{alertname="RocehealthShortErrorFinding",guest="g2",rule="link_flap"}' 1 ||
  { query 'ALERTS'; query 'rocehealth_findings_opened_total > 0';
    fail "the packaged alert RocehealthShortErrorFinding did not fire for g2's link_flap"; }

# Clean stop: SIGTERM, exit 0, last events logged.
for g in g1 g2; do
  lab kill "${agent[$g]}" TERM
  out=$(lab wait "${agent[$g]}" --timeout 60 2>&1)
  rc=$?
  assert_eq 0 "$rc" "$g agent exit after SIGTERM ($(tail -3 <<<"$out"))"
  assert_contains "$out" '"event":"agent_stopped"'
done
pass
