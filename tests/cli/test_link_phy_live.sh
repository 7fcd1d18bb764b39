#!/bin/bash
# Link-level (802.3x) pause and physical-layer errors, live (issue 12 classes 5 and 7):
# `diagnose --live --sysfs-root` on copies of fixture trees whose `ethtool -S` recordings grow
# as a kernel's would while the command samples them, then the agent on one of them (/metrics
# exposes the new series, /api/v1/findings holds the finding). Healthy copies (no growth) give
# no such finding. Usage: test_link_phy_live.sh ROCEHEALTH FIXTURES_DIR
set -u
bin=$1 fx=$2 failed=0
work=$(mktemp -d)
writer=
agent_pid=
cleanup() {
    [ -n "$writer" ] && kill "$writer" 2>/dev/null
    [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; failed=1; }

# grow TREE IFNAME NAME=PER_SECOND...: rewrites TREE/ethtool/IFNAME.txt every 0.1 s with each
# NAME at its recorded value + PER_SECOND x seconds since start (by the clock, so a slow machine
# changes the sampling, not the rates), in the background ($writer).
grow() {
    local tree=$1 ifname=$2; shift 2
    local rec=$tree/ethtool/$ifname.txt
    cp "$rec" "$work/base.txt"
    python3 - "$rec" "$work/base.txt" "$@" <<'PY' &
import os, sys, time
rec, base, specs = sys.argv[1], sys.argv[2], dict(a.split("=") for a in sys.argv[3:])
lines = open(base).read().splitlines()
t0 = time.monotonic()
while True:
    dt = time.monotonic() - t0
    out = []
    for l in lines:
        name, sep, val = l.rpartition(": ")
        key = name.strip()
        if sep and key in specs:
            l = f"{name}: {int(val) + int(float(specs[key]) * dt)}"
        out.append(l)
    open(rec + ".tmp", "w").write("\n".join(out) + "\n")
    os.replace(rec + ".tmp", rec)
    time.sleep(0.1)
PY
    writer=$!
}
stop_growing() { [ -n "$writer" ] && kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; writer=; }

# live FIXTURE IFNAME WANT_EXIT "NAME=RATE ..." TEXT...: diagnose --live for 12 s on a copy
# (longer than the 10 s windows of the physical-layer rules, so they can be judged).
live() {
    local fixture=$1 ifname=$2 want=$3 rates=$4; shift 4
    rm -rf "$work/fx"; cp -a "$fx/$fixture" "$work/fx"
    # shellcheck disable=SC2086
    [ -n "$rates" ] && grow "$work/fx" "$ifname" $rates
    local out rc
    out=$("$bin" diagnose --live --duration 12s --live-interval 500ms \
          --sysfs-root "$work/fx/sys" 2>&1); rc=$?
    stop_growing
    # "0|2": healthy, or healthy except for rules the span cannot judge (no finding either way)
    [[ "$rc" =~ ^($want)$ ]] || fail "$fixture ($rates): exit $rc, expected $want; output: $out"
    for t in "$@"; do
        if [ "${t#!}" != "$t" ]; then
            grep -qF -- "${t#!}" <<<"$out" && fail "$fixture ($rates): '${t#!}' in output: $out"
        else
            grep -qF -- "$t" <<<"$out" || fail "$fixture ($rates): '$t' not in output: $out"
        fi
    done
}

# Class 5. mlx5 with global pause on: paused 43% of the time (duration counter, us per s).
live mlx5_global_pause ens1f0np0 1 \
    "rx_global_pause_duration=430000 rx_global_pause=1000 rx_pause_ctrl_phy=1000" \
    "link_pause_storm" "802.3x link-level (global) pause (rx pause)" "paused this host" "!] pause_storm on"
# ice: no duration counter; 1300 XOFF frames/s x 335.5 us = 44% at most.
live irdma_ice ens2f0 1 "link_xoff_tx.nic=1300" "link_pause_storm" "(tx pause)"
# bnxt: global pause frames as light as a healthy link's: no finding.
live bnxt_pfc enp65s0f0np0 "0|2" "rx_pause_frames=30" "!link_pause_storm"

# Class 7. mlx5: FCS errors lose frames; lane 2 carries most of the FEC-corrected bits.
live mlx5_phy_errors ens1f0np0 1 \
    "rx_crc_errors_phy=50 rx_corrected_bits_phy=2000000 rx_err_lane_0_phy=12000 rx_err_lane_1_phy=12000 rx_err_lane_2_phy=1960000 rx_err_lane_3_phy=16000" \
    "physical_errors" "cable, optic or connector" "fec_marginal_link" "lane_errors" "lane 2 has 9"
# bnxt: uncorrectable RS-FEC blocks.
live bnxt_pfc enp65s0f0np0 1 "rx_fec_uncorrectable_blocks=40 rx_fcs_err_frames=40" "physical_errors"
# The same mlx5 tree with its lifetime error counts standing still: healthy.
live mlx5_phy_errors ens1f0np0 "0|2" "" "!physical_errors" "!fec_marginal_link" "!lane_errors"

# Agent: the global pause series on /metrics and the finding on /api/v1/findings.
rm -rf "$work/fx"; cp -a "$fx/mlx5_global_pause" "$work/fx"
cat > "$work/agent.json" <<JSON
{"sysfs_root": "$work/fx/sys", "host": "fixture-host", "collect_interval_s": 0.5,
 "inventory_interval_s": 1, "retention_s": 120,
 "http": {"listen": "127.0.0.1:0", "protect_read": false, "max_threads": 2}}
JSON
grow "$work/fx" ens1f0np0 rx_global_pause_duration=600000 rx_pause_ctrl_phy=1000
"$bin" agent --config "$work/agent.json" 2> "$work/agent.log" &
agent_pid=$!
port= found=
for _ in $(seq 1 100); do  # up to 20 s: listening, then the finding after its 5 s hold
    sleep 0.2
    [ -n "$port" ] || port=$(grep '"event":"http_listening"' "$work/agent.log" | tail -1 |
                             sed 's/.*"port":\([0-9]*\).*/\1/')
    [ -n "$port" ] || continue
    curl -s "http://127.0.0.1:$port/api/v1/findings" | grep -q '"link_pause_storm"' && { found=1; break; }
done
if [ -z "$port" ]; then
    fail "agent never listened: $(tail -5 "$work/agent.log")"
else
    [ -n "$found" ] || fail "agent: no link_pause_storm finding: $(curl -s "http://127.0.0.1:$port/api/v1/findings")"
    m=$(curl -s "http://127.0.0.1:$port/metrics")
    for s in 'rocehealth_link_pause_duration_seconds_total{' 'direction="rx"' \
             'rocehealth_fcs_errors_total{' 'rocehealth_lane_corrected_bit_errors_total{' 'lane="2"' \
             'rocehealth_port_width_lanes{'; do
        grep -qF -- "$s" <<<"$m" || fail "/metrics lacks $s"
    done
    grep -qF "# HELP rocehealth_link_pause_duration_seconds_total Time paused by (rx) or pausing (tx) the peer with 802.3x pause" <<<"$m" ||
        fail "/metrics lacks the HELP of link_pause_duration_us"
fi
kill "$agent_pid" 2>/dev/null; wait "$agent_pid" 2>/dev/null; agent_pid=
stop_growing

[ $failed = 0 ] && echo "PASS: link pause and physical errors, live and agent"
exit $failed
