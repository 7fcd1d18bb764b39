#!/usr/bin/env bash
# Cost of one rocehealth collection pass vs one prometheus-node-exporter infiniband scrape, on
# the same fixture tree, in the same run (a benchmark, not a test; bench/README.md explains it):
#   - node_exporter --path.sysfs=<copy of the tree>, only its infiniband collector, scraped
#     over HTTP on loopback (keep-alive, one curl process);
#   - rocehealth collect_snapshot (the full discovery pass), with and without JSON;
#   - rocehealth CounterPoller::poll (the steady-state pass of a periodic agent), on the tree
#     unchanged and with every counter file changed before each poll.
#
#   bench/node_exporter_compare.sh BENCH_BIN [SCRAPES] [SYSFS_TREE]
# BENCH_BIN: <build>/bench/rocehealth_bench. SCRAPES (default 300): node_exporter scrapes and
# discovery passes; the polls run 10x as many. SYSFS_TREE: default tests/fixtures/mlx5_8port/sys.
# BASELINE_BIN=<another rocehealth_bench> (optional): also timed on the same copy, its discovery
# rows printed beside (e.g. a build of the previous commit, for a before/after in one run).
# Needs prometheus-node-exporter and curl (Debian: apt-get install prometheus-node-exporter
# curl); without them it says so and exits 0 (nothing measured). Exit 1: a step failed.
#
# Fairness notes: a node_exporter scrape includes HTTP on loopback and Prometheus text
# formatting, so rocehealth discovery is also timed with JSON serialization of its snapshot.
# node_exporter's infiniband collector reads counters/ and the hw_counters it knows (plus port
# attributes); a rocehealth discovery pass also reads GIDs, PCIe chain, netdev, ethtool
# recordings, and normalizes; a poll pass re-reads every counter, port state and netdev file
# through kept descriptors and normalizes the ports whose values changed.
set -euo pipefail

bench=${1:?usage: $0 BENCH_BIN [SCRAPES] [SYSFS_TREE]}
scrapes=${2:-300}
tree=${3:-$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/mlx5_8port/sys}
polls=$((scrapes * 10))

ne=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [[ -z $ne ]] || ! command -v curl >/dev/null; then
    echo "skipped: needs prometheus-node-exporter and curl;" \
         "install them with: apt-get install prometheus-node-exporter curl"
    exit 0
fi
[[ -x $bench ]] || { echo "$bench: not an executable (build the rocehealth_bench target)" >&2; exit 1; }

work=$(mktemp -d)
ne_pid=
cleanup() {
    if [[ -n $ne_pid ]]; then kill "$ne_pid" 2>/dev/null && wait "$ne_pid" 2>/dev/null; fi
    rm -rf "$work"
}
trap cleanup EXIT

# A copy of the tree (its ethtool/ recordings beside it), so a counter can be bumped below.
cp -a "$tree/.." "$work/tree"
sys="$work/tree/sys"
mkdir -p "$work/proc"  # minimal procfs: the infiniband collector does not read it

port=$((20000 + RANDOM % 20000))
url="http://127.0.0.1:$port/metrics"
"$ne" --path.sysfs="$sys" --path.procfs="$work/proc" --collector.disable-defaults \
    --collector.infiniband --web.disable-exporter-metrics \
    --web.listen-address="127.0.0.1:$port" >"$work/ne.log" 2>&1 &
ne_pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null "$url" && break; sleep 0.1; done
curl -sf -o "$work/first.txt" "$url" || { cat "$work/ne.log" >&2; exit 1; }

# Each scrape must re-read sysfs: bump a counter and look for the new value.
metric='node_infiniband_port_data_transmitted_bytes_total{device="mlx5_0",port="1"}'
f="$sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data"
before=$(grep -F "$metric" "$work/first.txt" | awk '{print $2}')
echo $(( $(cat "$f") + 1000 )) >"$f"
after=$(curl -sf "$url" | grep -F "$metric" | awk '{print $2}')
if [[ -z $before || $before == "$after" ]]; then
    echo "node_exporter did not re-read sysfs ($metric: $before -> $after)" >&2
    exit 1
fi
echo "node_exporter $("$ne" --version 2>&1 | head -1 | awk '{print $3}') re-reads sysfs per scrape:" \
     "$metric $before -> $after"
echo "node_exporter metrics per scrape: $(grep -vc '^#' "$work/first.txt")," \
     "$(wc -c <"$work/first.txt") bytes"

# N scrapes in one curl process (keep-alive), per-transfer time from curl itself; CPU of the
# node_exporter process from /proc (utime + stime, in clock ticks).
for _ in $(seq "$scrapes"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$url"; done \
    >"$work/curl.cfg"
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$ne_pid/stat"; }
cpu0=$(cpu)
curl -s -K "$work/curl.cfg" -w '%{time_total}\n' >"$work/times.txt"
cpu1=$(cpu)
ne_wall=$(awk '{s += $1} END {printf "%.1f", s * 1e6 / NR}' "$work/times.txt")
ne_cpu=$(awk -v a="$cpu0" -v b="$cpu1" -v t="$ticks" -v n="$scrapes" \
    'BEGIN {printf "%.1f", (b - a) * 1e6 / t / n}')

out=$("$bench" --sysfs-root "$sys" --passes "$scrapes" --poll-passes "$polls")
echo "$out" | grep -v '='
get() {
    local v
    v=$(echo "$out" | sed -n "s/^$1=//p")
    [[ -n $v ]] || { echo "rocehealth_bench printed no $1" >&2; exit 1; }
    echo "$v"
}

per_s() { awk -v us="$1" 'BEGIN {printf "%.0f", 1e6 / us}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }
row() {  # label, wall us, CPU us
    printf '  %-42s %9s %11s %11s %9sx %9sx\n' "$1" "$(per_s "$2")" "$2" "$3" \
        "$(ratio "$ne_wall" "$2")" "$(ratio "$ne_cpu" "$3")"
}
echo
echo "per pass over $(get ports) ports; $scrapes scrapes and discovery passes, $polls polls each:"
printf '  %-42s %9s %11s %11s %10s %10s\n' "" "passes/s" "us wall" "us CPU" \
    "NE/x wall" "NE/x CPU"
row "node_exporter scrape (HTTP + text format)" "$ne_wall" "$ne_cpu"
row "rocehealth collect_snapshot (discovery)" "$(get collect_us_per_pass)" \
    "$(get collect_cpu_us_per_pass)"
row "rocehealth collect_snapshot + JSON dump" "$(get collect_json_us_per_pass)" \
    "$(get collect_json_cpu_us_per_pass)"
row "rocehealth CounterPoller::poll, unchanged" "$(get poll_us_per_pass)" \
    "$(get poll_cpu_us_per_pass)"
row "rocehealth CounterPoller::poll, changing" "$(get poll_changing_us_per_pass)" \
    "$(get poll_changing_cpu_us_per_pass)"
echo "read syscalls per pass: discovery $(get collect_reads_per_pass)," \
     "poll $(get poll_reads_per_pass) ($(get poll_files_per_pass) files)"
echo "NE/x = node_exporter's cost per pass divided by that one's (how many times cheaper)."

if [[ -n ${BASELINE_BIN:-} ]]; then
    base=$("$BASELINE_BIN" --sysfs-root "$sys" --passes "$scrapes" --poll-passes 1)
    bget() { echo "$base" | sed -n "s/^$1=//p"; }
    row "baseline collect_snapshot" "$(bget collect_us_per_pass)" \
        "$(bget collect_cpu_us_per_pass)"
    row "baseline collect_snapshot + JSON dump" "$(bget collect_json_us_per_pass)" \
        "$(bget collect_json_cpu_us_per_pass)"
fi

# Issue 13 §3: discovery no dearer than a scrape, discovery + JSON at most twice one (CPU).
goal() {  # label, CPU us, allowed multiple of a scrape
    local x
    x=$(awk -v a="$2" -v b="$ne_cpu" 'BEGIN {printf "%.2f", a / b}')
    echo "goal ($1 <= $3x a node_exporter scrape, CPU): ${x}x," \
        "$(awk -v x="$x" -v m="$3" 'BEGIN {print (x <= m ? "met" : "NOT met")}')"
}
goal "collect_snapshot" "$(get collect_cpu_us_per_pass)" 1
goal "collect_snapshot + JSON" "$(get collect_json_cpu_us_per_pass)" 2

poll_ratio=$(ratio "$ne_cpu" "$(get poll_changing_cpu_us_per_pass)")
verdict=$(awk -v r="$poll_ratio" 'BEGIN {print (r >= 10 ? "met" : "NOT met")}')
echo "goal (poll pass >= 10x cheaper than a node_exporter scrape, CPU, counters changing):" \
     "${poll_ratio}x, $verdict"
