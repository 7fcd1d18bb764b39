#!/bin/bash
# test_agent_mesh.sh -- issue 6's "done when": `rocehealth agent` in three Soft-RoCE guests, each
# running its responder and a probe mesh to the other two (64 B and 4 KiB WRITE every second),
# scraped by Debian's prometheus on the host through QEMU host forwards (RH_LAB_HOSTFWD, as
# test_agent_prometheus.sh). Through Prometheus' HTTP query API:
#  1. a probe-latency series (summary quantile 0.5, _count rising) for every ordered pair and
#     size, and rocehealth_probe_errors_total from 0 for every pair; `promtool check metrics`
#     accepts an agent's /metrics with measured summaries;
#  2. a finding: g2's eth0 down for 5 s -> link_flap on g2 as rocehealth_finding, and the mesh
#     of g1 and g3 counts failures toward g2, then measures it again;
#  3. POST /api/v1/incast on g1 (receiver g1, senders g2 and g3): 401 without the token, 409
#     while one runs, 200 with every sender completed;
#  4. the agents' CPU and RSS with the mesh on (2 peers, 1 s) over 60 quiet seconds, from
#     process_cpu_seconds_total and process_resident_memory_bytes, then with the mesh turned
#     off by a SIGHUP reload (its series go) for 60 s more (TCG guests: the probe's busy-wait
#     ping-pong costs ~100x hardware's, see below);
#  5. SIGTERM: exit 0 with agent_stopped logged (mesh_stopped: by the reload).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prometheus.sh"
command -v prometheus >/dev/null || lab_unavailable "prometheus not installed (tests/lab/deps.txt)"
command -v curl >/dev/null || lab_unavailable "curl not installed"
command -v jq >/dev/null || lab_unavailable "jq not installed"
RH_LAB_HOSTFWD=9477 lab_up 3
bin=$(rocehealth_bin) || exit 1
guests=(g1 g2 g3)
declare -A ip fwd agent
for g in "${guests[@]}"; do ip[$g]=$(lab_ip "$g"); done
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')

for g in "${guests[@]}"; do
  fwd[$g]=$(cat "$RH_LAB_DIR/$g/hostfwd") || fail "$g: no host forward (lab.sh RH_LAB_HOSTFWD)"
  lab_exec "$g" -- sh -c "ip addr add 10.0.2.15/24 dev eth1 && ip link set eth1 up &&
    umask 077 && printf %s $token >/tmp/rh-token" || fail "$g: cannot set up eth1 and the token"
  peers=$(for p in "${guests[@]}"; do [ "$p" = "$g" ] || printf '"%s",' "${ip[$p]}"; done)
  cat >"$RH_LAB_DIR/$g-agent.json" <<JSON
{"host": "$g", "collect_interval_s": 1,
 "http": {"listen": "0.0.0.0:9477", "action_token_file": "/tmp/rh-token"},
 "responder": {"enabled": true, "device": "rxe0"},
 "mesh": {"peers": [${peers%,}], "ops": ["write"], "sizes_bytes": [64, 4096],
          "iterations": 20, "interval_s": 1, "jitter": 0.1, "timeout_s": 2},
 "incast": {"receiver_address": "${ip[$g]}", "max_duration_s": 10}}
JSON
  agent[$g]=$(lab spawn "$g" -- bash -c "exec '$bin' agent --config '$RH_LAB_DIR/$g-agent.json' \
    2>'$RH_LAB_DIR/$g-agent.log'") || fail "$g: cannot start the agent"
done

healthy() { curl -sf "http://127.0.0.1:${fwd[$1]}/healthz" | grep -q '"status":"ok"'; }
for g in "${guests[@]}"; do
  wait_until 120 healthy "$g" || { tail -5 "$RH_LAB_DIR/$g-agent.log"; fail "$g: agent /healthz never ok"; }
done
log "agents up: $(for g in "${guests[@]}"; do printf '%s 127.0.0.1:%s ' "$g" "${fwd[$g]}"; done)"

prom_start "" "${guests[@]}"
value_of() { query "$1" | head -1 | awk '{print $NF}'; }

wait_until 60 count_is 'up{job="rocehealth"} == 1' 3 || { query 'up'; fail "Prometheus does not see 3 agents up"; }

# --- 1. latency for every ordered pair and size, measured (a number, not NaN) and rising
t_mesh=$SECONDS
wait_until 120 count_is 'rocehealth_probe_latency_seconds{quantile="0.5"} > 0' 12 ||
  { query 'rocehealth_probe_latency_seconds{quantile="0.5"}'; fail "not every pair and size has a measured p50"; }
log "every pair measured $((SECONDS - t_mesh)) s after Prometheus saw the agents"
for g in "${guests[@]}"; do
  for p in "${guests[@]}"; do
    [ "$p" = "$g" ] && continue
    for size in 64 4096; do
      sel="guest=\"$g\",peer=\"${ip[$p]}\",op=\"write\",size_bytes=\"$size\""
      p50=$(value_of "rocehealth_probe_latency_seconds{$sel,quantile=\"0.5\"}")
      p99=$(value_of "rocehealth_probe_latency_seconds{$sel,quantile=\"0.99\"}")
      [ -n "$p50" ] && [ -n "$p99" ] || fail "$g -> $p $size B: no p50/p99 series"
      log "$g -> $p write $size B: p50 $(jq -n "$p50 * 1e6 | round") us, p99 $(jq -n "$p99 * 1e6 | round") us"
    done
    count_is "rocehealth_probe_errors_total{guest=\"$g\",peer=\"${ip[$p]}\",op=\"write\"}" 1 ||
      fail "$g -> $p: no rocehealth_probe_errors_total series"
  done
done
wait_until 30 count_is 'rate(rocehealth_probe_latency_seconds_count[10s]) > 0' 12 ||
  fail "some pair's sample count is not rising"
command -v promtool >/dev/null || lab_unavailable "promtool not installed (package prometheus)"
curl -sf "http://127.0.0.1:${fwd[g1]}/metrics" >"$RH_LAB_DIR/g1-metrics.txt" || fail "g1 /metrics"
promtool check metrics <"$RH_LAB_DIR/g1-metrics.txt" || fail "promtool check metrics rejected g1's /metrics with the mesh"
grep -q '^rocehealth_probe_latency_seconds_sum{peer="'"${ip[g2]}"'",op="write",size_bytes="64"} ' "$RH_LAB_DIR/g1-metrics.txt" ||
  fail "g1 /metrics lacks the summary's _sum toward g2"

# --- 2. a finding: g2's eth0 down for 5 s
lab_exec g2 -- sh -c 'ip link set eth0 down; sleep 5; ip link set eth0 up' || fail "cannot flap g2 eth0"
wait_until 60 count_is 'max_over_time(rocehealth_finding{rule="link_flap",host="g2",device="rxe0"}[5m]) == 1' 1 ||
  { query 'rocehealth_finding'; fail "Prometheus never saw g2's link_flap finding"; }
log "finding through Prometheus: $(query 'max_over_time(rocehealth_finding{host="g2"}[5m])' | head -3 | tr '\n' ' ')"
wait_until 60 count_is "sum by (guest) (increase(rocehealth_probe_errors_total{peer=\"${ip[g2]}\"}[3m])) > 0" 2 ||
  { query "rocehealth_probe_errors_total{peer=\"${ip[g2]}\"}"; fail "the mesh of g1 and g3 did not count failures toward g2"; }
log "mesh failures toward g2: $(query "sum by (guest, op) (rocehealth_probe_errors_total{peer=\"${ip[g2]}\"}) > 0" | tr '\n' ' ')"
# Back: both measure g2 again (backoff at most 8 s after a 5 s outage).
wait_until 60 count_is "increase(rocehealth_probe_latency_seconds_count{peer=\"${ip[g2]}\",size_bytes=\"64\"}[5s]) > 0" 2 ||
  fail "g1 and g3 do not measure g2 again after its link came back"

# --- 3. POST /api/v1/incast on g1: 401, 409 while one runs, then the result
api=http://127.0.0.1:${fwd[g1]}/api/v1/incast
body="{\"senders\": [\"${ip[g2]}\", \"${ip[g3]}\"], \"size_bytes\": 4096, \"duration_s\": 3}"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data "$body" "$api")
assert_eq 401 "$code" "POST /api/v1/incast without the token"
t_incast=$SECONDS
curl -s -o "$RH_LAB_DIR/incast.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $token" \
  --max-time 120 --data "$body" "$api" >"$RH_LAB_DIR/incast.code" &
first=$!
sleep 2
code=$(curl -s -o "$RH_LAB_DIR/incast2.json" -w '%{http_code}' -X POST \
  -H "Authorization: Bearer $token" --max-time 120 --data "$body" "$api")
assert_eq 409 "$code" "a second incast while one runs ($(cat "$RH_LAB_DIR/incast2.json"))"
wait $first
assert_eq 200 "$(cat "$RH_LAB_DIR/incast.code")" "POST /api/v1/incast ($(head -c 300 "$RH_LAB_DIR/incast.json"))"
log "incast through the API in $((SECONDS - t_incast)) s: $(jq -c '{exit, senders: [.senders[] | {name, status, gbps: .goodput_gbps}], bad_slots: .integrity.bad_slots}' "$RH_LAB_DIR/incast.json")"
assert_eq "completed completed" "$(jq -r '[.senders[].status] | join(" ")' "$RH_LAB_DIR/incast.json")" \
  "both senders completed"
assert_eq 0 "$(jq '.integrity.bad_slots' "$RH_LAB_DIR/incast.json")" "bad slots"

# --- 4. CPU and RSS with the mesh on, 60 quiet seconds; then the mesh off by a SIGHUP reload
# (applied: its series go) and 60 more seconds, so the mesh's share is the difference. The
# probe's WRITE ping-pong spins on memory for each reply (as ib_write_lat), on the client and on
# the responder: its CPU grows with the latency, ~100x hardware's in TCG. "ping-pong waits"
# estimates the client side from the summaries: 2 x rate(_sum) (half round trips).
usage() {  # usage LABEL: CPU and RSS of each agent over the last 60 s
  local g cpu rss spin
  for g in "${guests[@]}"; do
    cpu=$(value_of "increase(process_cpu_seconds_total{guest=\"$g\"}[60s]) / 60 * 100")
    rss=$(value_of "max_over_time(process_resident_memory_bytes{guest=\"$g\"}[60s]) / 1048576")
    spin=$(value_of "2 * sum(rate(rocehealth_probe_latency_seconds_sum{guest=\"$g\"}[60s])) * 100")
    [ -n "$cpu" ] && [ -n "$rss" ] || fail "$g: no process_* series"
    log "$g agent, $1, scraped every 1 s: CPU $(jq -n "$cpu * 100 | round / 100")% of one lab CPU (client ping-pong waits $(jq -n "${spin:-0} * 100 | round / 100")%), RSS $(jq -n "$rss * 10 | round / 10") MiB"
  done
}
sleep 62
usage "mesh to 2 peers every 1 s (64 B + 4 KiB, 22 pings each)"
for g in "${guests[@]}"; do
  sed -i 's/"peers": \[[^]]*\]/"peers": []/' "$RH_LAB_DIR/$g-agent.json"
  lab kill "${agent[$g]}" HUP
done
reloaded() { grep -q '"event":"config_reloaded".*"mesh_restarted":true' "$RH_LAB_DIR/$1-agent.log"; }
for g in "${guests[@]}"; do wait_until 30 reloaded "$g" || fail "$g: the reload did not stop the mesh"; done
wait_until 30 count_is 'rocehealth_probe_latency_seconds' 0 || fail "probe series still exported without a mesh"
sleep 62
usage "no mesh (responder on, idle)"

# --- 5. clean stop
for g in "${guests[@]}"; do
  lab kill "${agent[$g]}" TERM
  lab wait "${agent[$g]}" --timeout 60 >/dev/null 2>&1
  assert_eq 0 "$?" "$g agent exit after SIGTERM ($(tail -2 "$RH_LAB_DIR/$g-agent.log"))"
  grep -q '"event":"mesh_stopped"' "$RH_LAB_DIR/$g-agent.log" || fail "$g: no mesh_stopped event"
  grep -q '"event":"agent_stopped"' "$RH_LAB_DIR/$g-agent.log" || fail "$g: no agent_stopped event"
done
pass
