#!/bin/bash
# `rocehealth agent` end to end on a copy of a fixture tree (no RDMA needed): --check-config
# (and its warning about the deprecated rules_interval_s, logged as config_deprecated too),
# the HTTP endpoints on a random loopback port, `promtool check metrics` on /metrics, the bearer
# token, a finding opening and closing as the copied counters change, SIGHUP with a bad config
# (rejected, agent keeps serving) and a good one (applied), SIGTERM (exit 0), /healthz 503 while
# no RDMA device is left. A mesh toward a peer that cannot be probed (no RDMA device in a
# fixture) exports its failures and an empty latency summary; POST /api/v1/incast answers
# 401/400/503 before any traffic. Bad configs (a field out of range, a key given twice, 1e400)
# are exit 2 naming the file and the field.
# usage: test_agent_daemon.sh ROCEHEALTH FIXTURE_DIR/sys PACKAGING_DIR
set -euo pipefail
bin=$1
fixture=$(cd "$(dirname "$2")" && pwd)
packaging=$3
command -v promtool >/dev/null || { echo "FAIL: promtool missing (Debian package prometheus, packaging/debian-build-deps.txt)"; exit 1; }
command -v curl >/dev/null || { echo "FAIL: curl missing"; exit 1; }

work=$(mktemp -d)
agent_pid=
cleanup() {
    if [ -n "$agent_pid" ] && kill -0 "$agent_pid" 2>/dev/null; then kill -KILL "$agent_pid"; fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    echo "--- agent log (last 20 lines)"
    tail -20 "$work/agent.log" 2>/dev/null || true
    exit 1
}

# The agent reads the copy; the test changes its counters as a kernel would.
cp -a "$fixture" "$work/fx"
sys=$work/fx/sys
port_dir=$(cd "$sys/class/infiniband/mlx5_0/ports/1" && pwd -P)
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$token" > "$work/token"
chmod 600 "$work/token"
action_token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$action_token" > "$work/action_token"
chmod 600 "$work/action_token"

mesh_peer=127.0.0.1:1
tor=r07
write_config() {  # write_config PROTECT_READ [EXTRA_TOP_LEVEL_JSON]
    cat > "$work/agent.json" <<EOF
{"sysfs_root": "$sys", "host": "fixture-host", "collect_interval_s": 0.5,
 "topology": {"pod": "p1", "tor": "$tor", "rail": "2"},
 "rules_interval_s": 0.5, "inventory_interval_s": 1, "retention_s": 120 ${2:-},
 "mesh": {"peers": ["$mesh_peer"], "interval_s": 0.5, "timeout_s": 0.2},
 "incast": {"max_duration_s": 10, "allowed_senders": ["10.0.0.0/24"]},
 "http": {"listen": "127.0.0.1:0", "token_file": "$work/token", "protect_read": $1,
          "action_token_file": "$work/action_token",
          "max_threads": 2, "max_request_bytes": 4096, "read_timeout_s": 1}}
EOF
}

# --check-config: valid (a deprecated field is a warning on stderr, not an error), the
# packaged config without warnings, and an error naming the field.
write_config true
"$bin" agent --config "$work/agent.json" --check-config 2> "$work/check.err" | grep -qE ": OK \([0-9]+ rules" ||
    fail "--check-config did not accept a valid config"
grep -qF "$work/agent.json: warning: rules_interval_s is deprecated and ignored" "$work/check.err" ||
    fail "--check-config did not warn about rules_interval_s: $(cat "$work/check.err")"
sed "s|\"sysfs_root\": \"/sys\"|\"sysfs_root\": \"$sys\"|" "$packaging/agent.json" > "$work/packaged.json"
"$bin" agent --config "$work/packaged.json" --check-config > /dev/null 2> "$work/check.err" ||
    fail "--check-config rejected packaging/agent.json: $(cat "$work/check.err")"
[ ! -s "$work/check.err" ] || fail "packaging/agent.json gives warnings: $(cat "$work/check.err")"
echo '{"http": {"max_threads": 0}}' > "$work/bad.json"
set +e
out=$("$bin" agent --config "$work/bad.json" --check-config 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "--check-config on a bad config: exit $rc, expected 2"
grep -q "http.max_threads: expected a whole number from 1 to 64, got 0" <<<"$out" ||
    fail "--check-config error does not name the field: $out"
bad_config() {  # bad_config TEXT WANT: --check-config exits 2 naming the file and WANT
    printf '%s' "$1" > "$work/bad.json"
    set +e
    out=$("$bin" agent --config "$work/bad.json" --check-config 2>&1)
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "--check-config on $1: exit $rc, expected 2"
    grep -qF "$work/bad.json: $2" <<<"$out" || fail "--check-config on $1 does not say '$2': $out"
}
bad_config '{"http": {"max_threads": 2, "max_threads": 0}}' "duplicate key http.max_threads"
bad_config '{"topology": {"host": "gpu01"}}' 'topology.host: "host" is a label rocehealth or Prometheus already uses'
bad_config '{"retention_s": 1e400}' "not valid JSON at line 1, column 21 (retention_s): number overflow parsing '1e400'"
# A fabric key others can read would let them command every responder: refused by name.
head -c 32 /dev/urandom > "$work/world.key"
chmod 644 "$work/world.key"
bad_config "{\"sysfs_root\": \"$sys\", \"responder\": {\"key_file\": \"$work/world.key\"}}" \
    "responder.key_file: fabric key $work/world.key: is readable or writable by group or others (mode 0644): chmod 600 $work/world.key"
# Per-host keys: a known_hosts line that is not one is refused naming FILE:LINE; host keys
# without the fabric key are refused (they add to it).
head -c 32 /dev/urandom > "$work/own.key"
chmod 600 "$work/own.key"
printf '# fleet\nnode7 ed25519\n' > "$work/known_hosts"
bad_config "{\"sysfs_root\": \"$sys\", \"responder\": {\"key_file\": \"$work/own.key\", \"known_hosts_file\": \"$work/known_hosts\"}}" \
    "responder.known_hosts_file: known_hosts $work/known_hosts:2: expected NAME ed25519 BASE64"
"$bin" keygen --host-key "$work/host.key" > "$work/host_key.line" 2> "$work/host_key.err" || fail "keygen --host-key failed"
host_fp=$(grep -o 'fingerprint SHA256:[A-Za-z0-9+/]\{43\}' "$work/host_key.err" | cut -d' ' -f2)
[ -n "$host_fp" ] || fail "keygen --host-key printed no fingerprint: $(cat "$work/host_key.err")"
grep -qE "^[^ ]+ ed25519 [A-Za-z0-9+/]{43}=$" "$work/host_key.line" ||
    fail "keygen --host-key printed no known_hosts line: $(cat "$work/host_key.line")"
[ "$(stat -c %a "$work/host.key")" = 600 ] || fail "keygen --host-key's file is not mode 0600"
# An empty path (an unset variable) is refused, never taken as "write the default fabric key".
for empty in --host-key --out; do
  rc=0
  "$bin" keygen "$empty" "" > "$work/keygen_empty.out" 2>&1 || rc=$?
  [ "$rc" = 2 ] && grep -q "empty path" "$work/keygen_empty.out" ||
      fail "keygen $empty: exit $rc, expected 2 naming the empty path: $(cat "$work/keygen_empty.out")"
done
[ -e /etc/rocehealth/fabric.key ] ||
    bad_config "{\"sysfs_root\": \"$sys\", \"responder\": {\"host_key_file\": \"$work/host.key\"}}" \
        "responder.host_key_file: $work/host.key needs the fabric key too"
# A config this host cannot serve (issue 29): an address that is not its own, a device it lacks.
bad_config "{\"sysfs_root\": \"$sys\", \"http\": {\"listen\": \"192.0.2.1:9477\"}}" \
    "http.listen: cannot bind 192.0.2.1 on this host: Cannot assign requested address"
bad_config "{\"sysfs_root\": \"$sys\", \"device\": \"mlx5_9\"}" \
    "device: no RDMA device mlx5_9 under $sys/class/infiniband (present: mlx5_0"
# A multicast address binds (Linux takes it for TCP) but nothing connects: refused by name.
bad_config "{\"sysfs_root\": \"$sys\", \"http\": {\"listen\": \"224.0.0.1:9477\"}}" \
    "http.listen: 224.0.0.1 is a multicast address: TCP cannot listen there"
# This host's own fleet line must be this host: else every peer probes another one.
printf '{"host": "fixture-host", "address": "192.0.2.1", "tor": "r07"}\n{"host": "b", "address": "127.0.0.2", "tor": "r07"}\n' > "$work/fleet.jsonl"
bad_config "{\"sysfs_root\": \"$sys\", \"host\": \"fixture-host\", \"mesh\": {\"peers_file\": \"fleet.jsonl\"}}" \
    "mesh.peers_file: this host (fixture-host) is listed at 192.0.2.1 in $work/fleet.jsonl, not an address of this host"
# Every problem at once, each naming its field: a bad rules file, a token file that is not
# there, an address not this host's and a device it lacks (only the first was shown).
bad_config "{\"sysfs_root\": \"$sys\", \"rules_file\": \"nope.json\", \"device\": \"mlx5_9\",
  \"http\": {\"listen\": \"192.0.2.1:9477\", \"token_file\": \"no.token\"}}" \
    "rules_file: "
for want in "rules_file: " "http.token_file $work/no.token" "http.listen: cannot bind 192.0.2.1" "device: no RDMA device mlx5_9"; do
    grep -qF "$want" <<<"$out" || fail "--check-config with four problems does not say '$want': $out"
done
grep -qF "$work/nope.json" <<<"$out" || fail "a relative rules_file is not read beside the config: $out"

"$bin" agent --config "$work/agent.json" 2> "$work/agent.log" &
agent_pid=$!

port=
current_port() { grep '"event":"http_listening"' "$work/agent.log" | tail -1 | sed 's/.*"port":\([0-9]*\).*/\1/'; }
wait_for() {  # wait_for SECONDS CMD...: retries CMD every 0.2 s
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do
        [ $SECONDS -lt $deadline ] || return 1
        kill -0 "$agent_pid" 2>/dev/null || fail "agent exited"
        sleep 0.2
    done
}
get() {  # get PATH [CURL ARGS...]: body to stdout, status code to $work/status
    local path=$1; shift
    curl -s -o "$work/body" -w '%{http_code}' "$@" "http://127.0.0.1:$port$path" > "$work/status" || echo 000 > "$work/status"
    cat "$work/body"
}
status() { cat "$work/status"; }
auth=(-H "Authorization: Bearer $token")
act=(-H "Authorization: Bearer $action_token")

healthy() { port=$(current_port); [ -n "$port" ] && get /healthz >/dev/null && [ "$(status)" = 200 ]; }
wait_for 15 healthy || fail "/healthz never answered 200"
echo "agent up on 127.0.0.1:$port"
grep -q '"event":"config_deprecated".*"field":"rules_interval_s"' "$work/agent.log" ||
    fail "no config_deprecated event for rules_interval_s"

# A second agent on the same address cannot start (with SO_REUSEPORT it did, and scrapes went
# to either process).
sed "s/127.0.0.1:0/127.0.0.1:$port/" "$work/agent.json" > "$work/second.json"
set +e
out=$(timeout 10 "$bin" agent --config "$work/second.json" 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "a second agent on 127.0.0.1:$port: exit $rc, expected 2"
grep -q '"event":"http_bind_failed"' <<<"$out" || fail "the second agent did not say why: $out"

# Token: none and wrong are rejected, /healthz stays open.
get /metrics >/dev/null
[ "$(status)" = 401 ] || fail "/metrics without a token: HTTP $(status), expected 401"
get /metrics -H "Authorization: Bearer ${token}x" >/dev/null
[ "$(status)" = 401 ] || fail "/metrics with a wrong token: HTTP $(status), expected 401"
get /api/v1/findings -H "Authorization: Bearer" >/dev/null
[ "$(status)" = 401 ] || fail "/api/v1/findings with an empty token: HTTP $(status), expected 401"

# Bounded requests: a body over max_request_bytes is refused (413), a header over 8 KiB too (400).
get /metrics "${auth[@]}" -X POST --data-binary @<(head -c 100000 /dev/zero) >/dev/null
[ "$(status)" = 413 ] || fail "a 100 kB request body: HTTP $(status), expected 413"
get /metrics "${auth[@]}" -H "X-Big: $(head -c 20000 /dev/zero | tr '\0' a)" >/dev/null
[ "$(status)" = 400 ] || fail "a 20 kB header: HTTP $(status), expected 400"
# A chunked body is refused before it is read (cpp-httplib would buffer it whole), token or not.
out=$(get /api/v1/incast -X POST -H 'Transfer-Encoding: chunked' --data-binary @<(head -c 3000000 /dev/zero))
[ "$(status)" = 411 ] || fail "a chunked 3 MB body: HTTP $(status), expected 411"
grep -q "Content-Length" <<<"$out" || fail "411 without a JSON error naming Content-Length: $out"
# ... and answered before the body ends: a chunked upload that never finishes still gets 411.
python3 - "$port" <<'EOF' || fail "an unfinished chunked upload got no 411: the agent waits for the body"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
s.sendall(b"POST /api/v1/incast HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
          b"100000\r\n" + b"a" * 65536)  # a 1 MiB chunk announced, 64 KiB sent, never ended
assert s.recv(64).startswith(b"HTTP/1.1 411"), "no 411"
EOF
# Unknown paths answer a JSON error; the bearer scheme is case-insensitive (RFC 7235).
out=$(get /api/v1/nothing "${auth[@]}")
[ "$(status)" = 404 ] && grep -q '"error"' <<<"$out" || fail "unknown path: HTTP $(status) body '$out'"
# A known path with the wrong method: 405 with Allow, not "no such endpoint".
out=$(get /api/v1/incast "${auth[@]}")
[ "$(status)" = 405 ] && grep -q '"error"' <<<"$out" || fail "GET /api/v1/incast: HTTP $(status) body '$out', expected 405"
out=$(get /api/v1/findings "${auth[@]}" -X POST)
[ "$(status)" = 405 ] || fail "POST /api/v1/findings: HTTP $(status) body '$out', expected 405"
get /api/v1/findings -H "Authorization: bearer $token" >/dev/null
[ "$(status)" = 200 ] || fail "lower-case bearer scheme: HTTP $(status), expected 200"

# Clients that connect and send nothing hold every HTTP thread (2) for 3 s: collection goes on.
passes() { get /healthz | python3 -c 'import json,sys; print(json.load(sys.stdin)["passes"])'; }
before=$(passes)
python3 - "$port" <<'EOF'
import socket, sys, time
idle = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(4)]
time.sleep(3)
EOF
after=$(passes)
[ $((after - before)) -ge 4 ] || fail "collection stalled behind idle clients: $before -> $after passes in 3 s"

# /metrics: valid exposition with the fixture's counters in base units.
get /metrics "${auth[@]}" > "$work/metrics.txt"
[ "$(status)" = 200 ] || fail "/metrics with the token: HTTP $(status)"
promtool check metrics < "$work/metrics.txt" || fail "promtool check metrics rejected /metrics"
for line in \
    'rocehealth_pfc_pause_duration_seconds_total{device="mlx5_0",direction="rx",netdev="ens1f0np0",port="1",priority="3"} 0.912345' \
    'rocehealth_pfc_pause_frames_total{device="mlx5_0",direction="tx",netdev="ens1f0np0",port="1",priority="3"} 1022' \
    'rocehealth_ecn_np_enabled{device="mlx5_0",netdev="ens1f0np0",port="1",priority="3"} 1' \
    'rocehealth_port_state_code{device="mlx5_0",netdev="ens1f0np0",port="1"} 4' \
    'rocehealth_findings_opened_total{rule="link_flap",severity="error"} 0' \
    'rocehealth_host_info{host="fixture-host",pod="p1",rail="2",tor="r07"} 1' \
    'rocehealth_netdev_mtu_bytes{device="mlx5_0",port="1",netdev="ens1f0np0"} 9000' \
    'rocehealth_port_trust_info{device="mlx5_0",port="1",netdev="ens1f0np0",trust="dscp"} 1' \
    'rocehealth_build_info{version="0.1.0"} 1' \
    'rocehealth_collector_success{source="rdma_sysfs"} 1' \
    'rocehealth_collector_success{source="netdev_sysfs"} 1' \
    'rocehealth_collector_success{source="ethtool_stats"} 1'; do
    grep -qxF "$line" "$work/metrics.txt" || fail "/metrics lacks: $line"
done
# Each source read in the last pass is timed (seconds, a pass of a fixture takes well under 1 s).
grep -qE '^rocehealth_collector_duration_seconds\{source="rdma_sysfs"\} [0-9.e-]+$' "$work/metrics.txt" ||
    fail "/metrics lacks rocehealth_collector_duration_seconds{source=\"rdma_sysfs\"}"

# The mesh: a peer it cannot probe (a fixture has no RDMA device) is counted per op from 0, its
# summary has no samples (NaN quantiles, count 0), and each failure is a log event.
mesh_failed() {
    get /metrics "${auth[@]}" | grep -qE '^rocehealth_probe_errors_total\{peer="127.0.0.1:1",op="connect"\} [1-9]'
}
wait_for 10 mesh_failed || fail "/metrics does not count the mesh's failures toward 127.0.0.1:1"
get /metrics "${auth[@]}" > "$work/metrics-mesh.txt"
promtool check metrics < "$work/metrics-mesh.txt" || fail "promtool check metrics rejected /metrics with the mesh"
for line in \
    '# TYPE rocehealth_probe_latency_seconds summary' \
    'rocehealth_probe_latency_seconds{peer="127.0.0.1:1",op="write",size_bytes="64",quantile="0.5"} NaN' \
    'rocehealth_probe_latency_seconds_count{peer="127.0.0.1:1",op="write",size_bytes="64"} 0' \
    'rocehealth_probe_errors_total{peer="127.0.0.1:1",op="write"} 0'; do
    grep -qxF "$line" "$work/metrics-mesh.txt" || fail "/metrics lacks: $line"
done
grep -q '"event":"probe_failed".*"peer":"127.0.0.1:1"' "$work/agent.log" || fail "no probe_failed event"
# ... saying why: this host's side could not be set up (a fixture has no RDMA device), and how.
grep '"event":"probe_failed"' "$work/agent.log" | grep -q '"reason":"[^"]' ||
    fail "probe_failed without a reason: $(grep -m1 '"event":"probe_failed"' "$work/agent.log")"
# The topology is host_info's alone: no other series carries it (the rules join on instance).
[ "$(grep -c 'tor="r07"' "$work/metrics.txt")" = 1 ] || fail "tor=\"r07\" is on more than host_info"

# POST /api/v1/incast: the action token always (the read token is refused); a bad body named;
# a sender outside the fleet and incast.allowed_senders refused by name; this host's responder
# is off: 503.
incast() { get /api/v1/incast -X POST -H 'Content-Type: application/json' "$@"; }
incast --data '{"senders": ["10.0.0.2"]}' >/dev/null
[ "$(status)" = 401 ] || fail "POST /api/v1/incast without a token: HTTP $(status), expected 401"
out=$(incast "${auth[@]}" --data '{"senders": ["10.0.0.2"]}')
[ "$(status)" = 403 ] && grep -q 'http.action_token_file' <<<"$out" || fail "POST /api/v1/incast with the read token: HTTP $(status) $out, expected 403"
out=$(incast "${act[@]}" --data '{"senders": ["10.0.0.2", "10.9.9.9"], "duration_s": 1}')
[ "$(status)" = 403 ] && grep -q '10.9.9.9.*incast.allowed_senders' <<<"$out" || fail "an incast sender outside the fleet: HTTP $(status) $out, expected 403"
out=$(incast "${act[@]}" --data '{"senders": ["10.0.0.2"], "duration_s": 60, "op": "read"}')
[ "$(status)" = 400 ] || fail "POST /api/v1/incast with a bad body: HTTP $(status), expected 400"
grep -q 'duration_s: expected a number from 0.1 to 10 seconds, got 60' <<<"$out" || fail "400 does not name duration_s: $out"
grep -q 'op: expected' <<<"$out" || fail "400 does not name op: $out"
out=$(incast "${act[@]}" --data 'senders')
[ "$(status)" = 400 ] && grep -q 'body: not valid JSON' <<<"$out" || fail "a non-JSON body: HTTP $(status) $out"
out=$(incast "${act[@]}" --data '{"senders": ["10.0.0.2"], "duration_s": 1}')
[ "$(status)" = 503 ] && grep -q 'responder is not enabled' <<<"$out" || fail "incast without the responder: HTTP $(status) $out"

# A link going down: port state 1 and one more link_downed -> link_flap opens and is exported;
# back to ACTIVE -> it closes. Both are log events.
echo "1: DOWN" > "$port_dir/state"
echo $(( $(cat "$port_dir/counters/link_downed") + 1 )) > "$port_dir/counters/link_downed"
finding_exported() {
    get /metrics "${auth[@]}" | grep -q '^rocehealth_finding{rule="link_flap",severity="error",host="fixture-host",device="mlx5_0",port="1"} 1$'
}
wait_for 10 finding_exported || fail "link_flap never appeared as rocehealth_finding in /metrics"
# The inventory is re-read (inventory_interval_s): the port's state now also makes the
# inventory check port_not_active open, as `rocehealth check` would say.
not_active() {
    get /metrics "${auth[@]}" | grep -q '^rocehealth_finding{rule="port_not_active",severity="error"'
}
wait_for 10 not_active || fail "port_not_active never opened: the agent kept the start-up inventory"
get /metrics "${auth[@]}" > "$work/metrics-finding.txt"
promtool check metrics < "$work/metrics-finding.txt" || fail "promtool check metrics rejected /metrics with a finding"

# Every rocehealth_* name the shipped alerts, fabric rules and dashboard query is one the agent exports (the
# probe latency summary is there because the mesh is configured, even without samples).
# Not from a fixture tree: rocehealth_port_active_mtu_bytes needs verbs (ibv_query_port),
# rocehealth_pfc_enabled DCB netlink (tests/collectors/test_dcb_netlink.cpp covers it). The
# per-destination-ToR probe families, the window failures and the group totals need a fleet
# (mesh.peers_file; tests/agent/test_metrics.cpp and test_mesh_budget.cpp check their
# exposition); this agent's mesh names its peers.
for name in $(grep -ohE 'rocehealth_[a-z_]+' "$packaging"/prometheus/*.yml "$packaging"/prometheus/*.json | sort -u); do
    case $name in
        rocehealth_port_active_mtu_bytes | rocehealth_pfc_enabled) continue ;;
        rocehealth_probe_tor_errors_total | rocehealth_probe_tor_latency_seconds) continue ;;
        rocehealth_probe_window_errors | rocehealth_probe_tor_window_errors) continue ;;
        rocehealth_probe_group_*) continue ;;
    esac
    grep -q "^# TYPE $name " "$work/metrics-finding.txt" || fail "packaging/prometheus queries $name, which /metrics does not export"
done

get /api/v1/findings "${auth[@]}" > "$work/findings.json"
python3 - "$work/findings.json" <<'EOF' || fail "/api/v1/findings lacks the open link_flap finding"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == 1 and doc["agent"]["host"] == "fixture-host", doc.get("agent")
flaps = [f for f in doc["findings"] if f["rule"] == "link_flap" and f["device"] == "mlx5_0"]
assert flaps and flaps[0]["severity"] == "error", doc["findings"]
assert any(e["rule"] == "link_flap" for e in doc["timeline"])
EOF
get "/api/v1/timeline?since=5m" "${auth[@]}" | grep -q '"rule":"link_flap"' ||
    fail "/api/v1/timeline?since=5m lacks link_flap events"
get "/api/v1/timeline?since=$(($(date +%s) + 3600))" "${auth[@]}" | grep -q '"timeline":\[\]' ||
    fail "/api/v1/timeline with a future since is not empty"
get "/api/v1/timeline?since=yesterday" "${auth[@]}" >/dev/null
[ "$(status)" = 400 ] || fail "/api/v1/timeline?since=yesterday: HTTP $(status), expected 400"
get /api/v1/snapshot "${auth[@]}" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["devices"][0]["name"] == "mlx5_0"' ||
    fail "/api/v1/snapshot is not the inventory"
grep -q '"event":"finding_opened".*"rule":"link_flap"' "$work/agent.log" || fail "no finding_opened event in the log"
echo "4: ACTIVE" > "$port_dir/state"
closed() { grep -q '"event":"finding_closed".*"rule":"link_flap"' "$work/agent.log"; }
wait_for 10 closed || fail "no finding_closed event after the port came back"
pna_closed() { grep -q '"event":"finding_closed".*"rule":"port_not_active"' "$work/agent.log"; }
wait_for 10 pna_closed || fail "port_not_active did not close after the port came back"
get /metrics "${auth[@]}" | grep -q '^rocehealth_findings_opened_total{rule="link_flap",severity="error"} 1$' ||
    fail "rocehealth_findings_opened_total does not count the flap"

# A port state the agent cannot read is not health: /api/v1/findings says could_not_judge and
# names the item, as `check` on the same tree says INCOMPLETE (exit 2).
verdict() { get /api/v1/findings "${auth[@]}" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["verdict"], d.get("could_not_judge", ""))'; }
echo "bogus" > "$port_dir/state"
# (other findings may be open too: then the verdict is "findings", never "healthy")
unjudged() { verdict | grep -qE '^(could_not_judge|findings) could not judge: .*state unreadable'; }
wait_for 10 unjudged || fail "/api/v1/findings with the port state unreadable: $(verdict), expected could_not_judge naming the state"
set +e
"$bin" check --sysfs-root "$sys" > "$work/check-unreadable.txt" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q INCOMPLETE "$work/check-unreadable.txt" ||
    fail "check on the tree with the state unreadable: exit $rc, expected 2 INCOMPLETE: $(head -3 "$work/check-unreadable.txt")"
echo "4: ACTIVE" > "$port_dir/state"
judged_again() { ! verdict | grep -q 'could not judge'; }
wait_for 10 judged_again || fail "/api/v1/findings stays could_not_judge after the state is readable again: $(verdict)"

# Every watched device gone (the driver unloaded): the next inventory finds none and /healthz
# says so with 503; the device back: 200 again.
mv "$sys/class/infiniband/mlx5_0" "$work/mlx5_0.gone"
no_device() { get /healthz > "$work/health.json"; [ "$(status)" = 503 ]; }
wait_for 10 no_device || fail "/healthz with no RDMA device left: HTTP $(status), expected 503"
python3 - "$work/health.json" "$sys" <<'EOF2' || fail "/healthz 503 does not say why: $(cat "$work/health.json")"
import json, sys
h = json.load(open(sys.argv[1]))
assert h["status"] == "no_device" and h["devices"] == 0, h
assert h["reason"] == "no RDMA device found at the last inventory (%s/class/infiniband is empty)" % sys.argv[2], h
EOF2
grep -q '"event":"no_rdma_device".*"before":1' "$work/agent.log" || fail "the last device vanishing was not logged"
mv "$work/mlx5_0.gone" "$sys/class/infiniband/mlx5_0"
wait_for 10 healthy || fail "/healthz did not return to 200 when the device came back"
logged_back() { grep -q '"event":"devices_changed".*"devices":1' "$work/agent.log"; }
wait_for 5 logged_back || fail "the device coming back was not logged"

# SIGHUP with a bad config: rejected, the agent keeps serving on the same port.
cp "$work/agent.json" "$work/good.json"
echo '{"sysfs_root": "'"$sys"'", "colect_interval_s": 1}' > "$work/agent.json"
kill -HUP "$agent_pid"
rejected() { grep -q '"event":"config_reload_rejected".*colect_interval_s: unknown field' "$work/agent.log"; }
wait_for 10 rejected || fail "a bad config was not rejected with the field named"
sleep 1
kill -0 "$agent_pid" || fail "the agent died on a bad config"
get /healthz >/dev/null
[ "$(status)" = 200 ] || fail "/healthz after a rejected reload: HTTP $(status)"
get /metrics "${auth[@]}" | grep -q '^rocehealth_config_reloads_total{result="failure"} 1$' ||
    fail "the rejected reload is not counted"

# SIGHUP with a good config that opens the read endpoints and changes the mesh's peer: applied
# (a new port, as listen is :0; the mesh restarted toward the new peer only).
mesh_peer=127.0.0.1:2
tor=r08
# ... and brings a fabric key: keygen prints its fingerprint and makes its new folder 0700; the
# reload names the key and that fingerprint, and /metrics shows it (issue 27).
"$bin" keygen --out "$work/keys/fabric.key" > "$work/keygen.out" || fail "keygen failed"
fp=$(sed -n 's/.*fingerprint \([0-9a-f]\{16\}\)$/\1/p' "$work/keygen.out")
[ -n "$fp" ] || fail "keygen printed no fingerprint: $(cat "$work/keygen.out")"
[ "$(stat -c %a "$work/keys")" = 700 ] || fail "keygen's new folder is not mode 0700"
# ... and this host's host key, both by paths relative to the config (read from its folder,
# not the agent's working directory); /healthz then gives the host key's fingerprint.
write_config false ", \"responder\": {\"key_file\": \"keys/fabric.key\", \"host_key_file\": \"host.key\"}"
kill -HUP "$agent_pid"
reloaded() { grep -q '"event":"config_reloaded"' "$work/agent.log"; }
wait_for 10 reloaded || fail "a good config was not applied"
port=$(current_port)
get /metrics >/dev/null
[ "$(status)" = 200 ] || fail "/metrics without a token after protect_read=false: HTTP $(status)"
grep -q '"event":"config_reloaded".*"mesh_restarted":true' "$work/agent.log" || fail "the mesh change did not restart the mesh"
grep '"event":"config_reloaded"' "$work/agent.log" | grep -qF "\"fabric_key_fingerprint\":\"$fp\"" ||
    fail "the reload does not name the key's fingerprint $fp"
key_shown() { get /metrics | grep -qxF "rocehealth_fabric_key_info{fingerprint=\"$fp\"} 1"; }
wait_for 10 key_shown || fail "/metrics does not show the key's fingerprint $fp"
get /healthz | grep -qF "\"host_key_fingerprint\":\"$host_fp\"" ||
    fail "/healthz does not give the host key's fingerprint $host_fp: $(cat "$work/body")"
new_peer_failed() { get /metrics | grep -qE '^rocehealth_probe_errors_total\{peer="127.0.0.1:2",op="connect"\} [1-9]'; }
wait_for 10 new_peer_failed || fail "the reloaded mesh does not probe 127.0.0.1:2"
! get /metrics | grep -q 'peer="127.0.0.1:1"' || fail "/metrics still has the old mesh peer after the reload"
get /metrics | grep -qxF 'rocehealth_host_info{host="fixture-host",pod="p1",rail="2",tor="r08"} 1' ||
    fail "host_info does not carry the reloaded topology (tor r08)"

# SIGTERM: clean stop, exit 0.
kill -TERM "$agent_pid"
set +e
wait "$agent_pid"
rc=$?
set -e
agent_pid=
[ $rc -eq 0 ] || fail "exit $rc after SIGTERM, expected 0"
grep -q '"event":"agent_stopped"' "$work/agent.log" || fail "no agent_stopped event"
grep -q '"event":"mesh_stopped"' "$work/agent.log" || fail "no mesh_stopped event"
echo "agent daemon: all checks passed"
