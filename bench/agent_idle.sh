#!/bin/bash
# agent_idle.sh: what an idle `rocehealth agent` costs (issue 13 §2 goal (d): on the 8-port
# fixture with 900 s retention, <= 0.3 % of one core and <= 16 MiB RSS over >= 5 min after
# warm-up). Runs the agent on a copy of tests/fixtures/mlx5_8port (static counters: nothing
# happens, as on an idle host) with collect_interval_s 1, lets it warm up, then samples it for
# MEASURE_S seconds (agents since issue 13 §2 run the rules after every pass and ignore the
# config's rules_interval_s 1, logging config_deprecated; older ones need it to run the rules at
# most once a pass, so before/after comparisons stay possible):
#   CPU % of one core = (utime + stime) ticks of /proc/PID/stat over the window / CLK_TCK / wall s
#   RSS               = VmRSS of /proc/PID/status every 10 s (max and last), VmHWM at the end
# and the agent's own rocehealth_rules_run_duration_seconds from /metrics (the last run).
# The default warm-up is the retention (the store is full when measuring: the rule engine's
# cost follows the retained passes). CPU time, not wall time, but other load on the machine
# still shows (cache misses, frequency): say what else ran.
# The agent renders /metrics when scraped, so the script scrapes it every SCRAPE_S seconds
# through warm-up and window, as a Prometheus would (15 s: a common scrape_interval; 0: never).
# usage: bench/agent_idle.sh ROCEHEALTH [FIXTURE_SYS_DIR]
#   env: RETENTION_S (900), WARMUP_S (= RETENTION_S), MEASURE_S (300), SCRAPE_S (15),
#        RULES_FILE (the agent's default: an older agent may not read today's rules file),
#        RISING=1: the ports' traffic counters rise every second as on a host with light
#        traffic (port_{rcv,xmit}_{data,packets} and unicast_{rcv,xmit}_packets by 1,000-60,000
#        each; the file replaced by rename from outside the tree, so a reader never sees half a
#        value and discovery no new file): the store's
#        packed points then cost what a live host's do, not an idle fixture's ~0.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
fixture=${2:-$here/../tests/fixtures/mlx5_8port/sys}
retention=${RETENTION_S:-900}
warmup=${WARMUP_S:-$retention}
measure=${MEASURE_S:-300}
scrape_s=${SCRAPE_S:-15}
[ -x "$bin" ] || { echo "agent_idle: $1 is not an executable" >&2; exit 2; }
[ -d "$fixture/class/infiniband" ] || { echo "agent_idle: $fixture has no class/infiniband" >&2; exit 2; }

work=$(mktemp -d)
pid=
scraper=
cleanup() {
    if [ -n "$scraper" ]; then kill "$scraper" 2>/dev/null || true; fi
    if [ -n "${riser:-}" ]; then kill "$riser" 2>/dev/null || true; fi
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
cp -a "$fixture" "$work/sys"
rules_field=
[ -n "${RULES_FILE:-}" ] && rules_field="\"rules_file\": \"$RULES_FILE\","
cat > "$work/agent.json" <<EOF
{"sysfs_root": "$work/sys", "host": "idle-host", "collect_interval_s": 1,
 "rules_interval_s": 1, "retention_s": $retention, $rules_field
 "http": {"listen": "127.0.0.1:0"}}
EOF
riser=
if [ "${RISING:-0}" = 1 ]; then
    (while :; do
        for f in "$work"/sys/class/infiniband/*/ports/*/counters/{port_rcv_data,port_xmit_data,port_rcv_packets,port_xmit_packets,unicast_rcv_packets,unicast_xmit_packets}; do
            [ -f "$f" ] || continue
            echo $(( $(cat "$f") + 1000 + RANDOM % 59000 )) > "$work/next" && mv "$work/next" "$f"
        done
        sleep 1
    done) &
    riser=$!
fi
"$bin" agent --config "$work/agent.json" 2> "$work/agent.log" &
pid=$!

ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }  # utime + stime, clock ticks
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
port() { grep '"event":"http_listening"' "$work/agent.log" | tail -1 | sed 's/.*"port":\([0-9]*\).*/\1/'; }
metric() { curl -s "http://127.0.0.1:$(port)/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

echo "agent pid $pid on $fixture, retention ${retention} s; warm-up ${warmup} s, then ${measure} s; /metrics scraped every ${scrape_s} s; traffic counters $([ -n "$riser" ] && echo rising || echo static)"
if [ "$scrape_s" != 0 ]; then
    (sleep 3; while kill -0 "$pid" 2>/dev/null; do metric rocehealth_collection_passes_total > /dev/null; sleep "$scrape_s"; done) &
    scraper=$!
fi
sleep "$warmup"
kill -0 "$pid" 2>/dev/null || { echo "agent exited:"; tail -20 "$work/agent.log"; exit 1; }
hz=$(getconf CLK_TCK)
t0=$(date +%s.%N); c0=$(ticks); runs0=$(metric rocehealth_rules_runs_total)
max_rss=0; last_rss=0
end=$((SECONDS + measure))
while [ $SECONDS -lt "$end" ]; do
    last_rss=$(rss_kib)
    [ "$last_rss" -gt "$max_rss" ] && max_rss=$last_rss
    sleep 10
done
t1=$(date +%s.%N); c1=$(ticks); runs1=$(metric rocehealth_rules_runs_total)
last_rules_s=$(metric rocehealth_rules_run_duration_seconds)
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
awk -v c0="$c0" -v c1="$c1" -v hz="$hz" -v t0="$t0" -v t1="$t1" -v max="$max_rss" \
    -v last="$last_rss" -v hwm="$hwm" -v r0="$runs0" -v r1="$runs1" -v lr="$last_rules_s" \
    -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
    wall = t1 - t0; cpu = (c1 - c0) / hz; pct = 100 * cpu / wall
    printf "measured %.0f s wall, load average %s\n", wall, load
    printf "%-28s %12s %12s\n", "", "measured", "goal"
    printf "%-28s %11.3f%% %11s\n", "CPU, % of one core", pct, "<= 0.3%"
    printf "%-28s %8.1f MiB %12s\n", "RSS max (VmRSS every 10 s)", max / 1024, "<= 16 MiB"
    printf "%-28s %8.1f MiB\n", "RSS last", last / 1024
    printf "%-28s %8.1f MiB\n", "RSS high-water (VmHWM)", hwm / 1024
    printf "%-28s %12d\n", "rules runs in the window", r1 - r0
    printf "%-28s %9.3f ms\n", "last rules run", lr * 1000
    printf "%-28s %9.3f ms\n", "CPU per rules run (upper)", (r1 > r0 ? 1000 * cpu / (r1 - r0) : 0)
    printf "verdict: CPU %s, RSS %s\n", pct <= 0.3 ? "met" : "NOT met", max / 1024 <= 16 ? "met" : "NOT met"
}'
