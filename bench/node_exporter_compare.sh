#!/usr/bin/env bash
# Cost of one rocehealth collection pass vs one prometheus-node-exporter infiniband scrape, on
# the same fixture tree, in the same run: the full discovery pass (collect_snapshot) and the
# steady-state poll pass (CounterPoller::poll, what a periodic agent runs between discoveries).
#   bench/node_exporter_compare.sh BENCH_BIN [SCRAPES] [SYSFS_TREE]
# BENCH_BIN: build/bench/rocehealth_bench. Needs prometheus-node-exporter (Debian package) and
# curl. Exit 77 when node_exporter is not installed.
#
# Fairness notes (printed too): a node_exporter scrape includes HTTP on loopback and Prometheus
# text formatting, so rocehealth is timed with and without JSON serialization of its snapshot.
# node_exporter's infiniband collector reads only counters/ and hw_counters/ (plus port
# attributes); a rocehealth discovery pass also reads GIDs, PCIe chain, netdev, ethtool
# recordings, and normalizes; a poll pass re-reads every counter, port state and netdev
# statistics file through kept descriptors and normalizes again.
set -euo pipefail

bench=${1:?usage: $0 BENCH_BIN [SCRAPES] [SYSFS_TREE]}
scrapes=${2:-300}
tree=${3:-$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/mlx5_8port/sys}

ne=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [[ -z $ne ]]; then
    echo "prometheus-node-exporter not installed (apt-get install prometheus-node-exporter)" >&2
    exit 77
fi
command -v curl >/dev/null || { echo "curl not installed" >&2; exit 77; }

work=$(mktemp -d)
ne_pid=
cleanup() {
    [[ -n $ne_pid ]] && kill "$ne_pid" 2>/dev/null && wait "$ne_pid" 2>/dev/null
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
echo "node_exporter re-reads sysfs per scrape: $metric $before -> $after"
echo "node_exporter metrics per scrape: $(grep -vc '^#' "$work/first.txt")," \
     "$(wc -c <"$work/first.txt") bytes"

# N scrapes in one curl process (keep-alive), per-transfer time from curl itself.
for _ in $(seq "$scrapes"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$url"; done \
    >"$work/curl.cfg"
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$ne_pid/stat"; }
cpu0=$(cpu)
curl -s -K "$work/curl.cfg" -w '%{time_total}\n' >"$work/times.txt"
cpu1=$(cpu)
ne_wall_us=$(awk '{s += $1} END {printf "%.1f", s * 1e6 / NR}' "$work/times.txt")
ne_cpu_us=$(awk -v a="$cpu0" -v b="$cpu1" -v t="$ticks" -v n="$scrapes" \
    'BEGIN {printf "%.1f", (b - a) * 1e6 / t / n}')

out=$("$bench" --sysfs-root "$sys" --passes "$scrapes")
echo "$out" | grep -v '='
get() { echo "$out" | sed -n "s/^$1=//p"; }
rh_wall=$(get collect_us_per_pass)
rh_json_wall=$(get collect_json_us_per_pass)
rh_cpu=$(get collect_cpu_us_per_pass)
rh_json_cpu=$(get collect_json_cpu_us_per_pass)
rh_poll_wall=$(get poll_us_per_pass)
rh_poll_cpu=$(get poll_cpu_us_per_pass)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }
echo
echo "per pass over $(get ports) ports, $scrapes passes each:"
printf '  %-44s %10s us wall  %10s us CPU\n' \
    "node_exporter scrape (HTTP + text format)" "$ne_wall_us" "$ne_cpu_us" \
    "rocehealth collect_snapshot (discovery)" "$rh_wall" "$rh_cpu" \
    "rocehealth collect_snapshot + JSON dump" "$rh_json_wall" "$rh_json_cpu" \
    "rocehealth CounterPoller::poll (steady)" "$rh_poll_wall" "$rh_poll_cpu"
echo "read syscalls per pass: discovery $(get collect_reads_per_pass)," \
     "poll $(get poll_reads_per_pass) ($(get poll_files_per_pass) files)"
echo "ratio node_exporter / rocehealth discovery (wall): $(ratio "$ne_wall_us" "$rh_wall")x," \
     "with JSON: $(ratio "$ne_wall_us" "$rh_json_wall")x"
echo "ratio node_exporter / rocehealth discovery (CPU):  $(ratio "$ne_cpu_us" "$rh_cpu")x," \
     "with JSON: $(ratio "$ne_cpu_us" "$rh_json_cpu")x"
echo "ratio node_exporter / rocehealth poll (wall):      $(ratio "$ne_wall_us" "$rh_poll_wall")x"
echo "ratio node_exporter / rocehealth poll (CPU):       $(ratio "$ne_cpu_us" "$rh_poll_cpu")x" \
     "(goal: >= 10x)"
