#!/bin/bash
# The agent on a dual-port host whose second port was never cabled (tests/fixtures/
# mlx5_dual_uncabled): /healthz 200, /api/v1/findings without port_not_active, no_roce_v2_gid,
# roce_mtu or link_flap on mlx5_1 and with the "taken as not cabled" note; with
# `required_ports: ["mlx5_1/1"]` in the config the same port is a port_not_active error; a
# malformed entry is refused by --check-config naming the field.
# usage: test_agent_port_usage.sh ROCEHEALTH FIXTURE_DIR/sys
set -euo pipefail
bin=$1
sys=$(cd "$2" && pwd)
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
    tail -20 "$work/agent.log" 2>/dev/null || true
    exit 1
}
write_config() {  # write_config EXTRA_TOP_LEVEL_JSON
    cat > "$work/agent.json" <<EOF
{"sysfs_root": "$sys", "host": "dual-host", "collect_interval_s": 0.5,
 "inventory_interval_s": 1, "retention_s": 60 $1,
 "http": {"listen": "127.0.0.1:0"}}
EOF
}

set +e
write_config ', "required_ports": ["mlx5_1/x"]'
out=$("$bin" agent --config "$work/agent.json" --check-config 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "--check-config with a bad required_ports entry: exit $rc"
grep -qF 'required_ports[0]: "mlx5_1/x": expected DEVICE/PORT' <<<"$out" ||
    fail "--check-config does not name required_ports[0]: $out"

# start_agent EXTRA; findings JSON of the first rules run after 3 passes in $work/findings.json
start_agent() {
    write_config "$1"
    "$bin" agent --config "$work/agent.json" 2> "$work/agent.log" &
    agent_pid=$!
    local deadline=$((SECONDS + 20)) port=
    while :; do
        [ $SECONDS -lt $deadline ] || fail "agent gave no findings in 20 s"
        kill -0 "$agent_pid" 2>/dev/null || fail "agent exited"
        port=$(grep '"event":"http_listening"' "$work/agent.log" | tail -1 | sed 's/.*"port":\([0-9]*\).*/\1/' || true)
        if [ -n "$port" ] &&
            curl -sf "http://127.0.0.1:$port/api/v1/findings" -o "$work/findings.json" &&
            python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["agent"]["rules_runs"] >= 3 else 1)' "$work/findings.json"; then
            break
        fi
        sleep 0.2
    done
    curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz" > "$work/healthz"
}
stop_agent() { kill -TERM "$agent_pid"; wait "$agent_pid" || fail "agent exit $? after SIGTERM"; agent_pid=; }

start_agent ""
[ "$(cat "$work/healthz")" = 200 ] || fail "/healthz: HTTP $(cat "$work/healthz")"
python3 - "$work/findings.json" <<'EOF' || fail "findings on the uncabled port: $(cat "$work/findings.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
bad = [f for f in doc["findings"] if f["device"] == "mlx5_1"]
assert not bad, bad
notes = [n for n in doc["notes"] if "taken as not cabled" in n["text"]]
assert notes and notes[0]["subject"] == "dual-host mlx5_1 port 1 (ens1f1np1)", doc["notes"]
EOF
stop_agent

start_agent ', "required_ports": ["mlx5_1/1"]'
python3 - "$work/findings.json" <<'EOF' || fail "required port: $(cat "$work/findings.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
down = [f for f in doc["findings"] if f["rule"] == "port_not_active" and f["device"] == "mlx5_1"]
assert down and down[0]["severity"] == "error", doc["findings"]
assert "required port" in down[0]["summary"], down[0]["summary"]
EOF
stop_agent
echo "PASS: agent on a dual-port host with one port never cabled"
