#!/bin/bash
# The fabric rule groups evaluated by a Prometheus that scrapes, for issue 29's goal (each group
# <= 1 s a cycle at 1,000 hosts). bench/fabric_scale.sh times the rules on backfilled blocks;
# a Prometheus in production reads the last hours from its in-memory head instead. Here one
# scrape target serves the whole fleet's /metrics (bench/fabric_scale_series.py --only-end: the
# same series as fabric_scale.sh, at the scrape's time, with their own `instance` labels:
# honor_labels), Prometheus scrapes it every 15 s and runs packaging/prometheus' rules itself,
# and its own prometheus_rule_group_last_duration_seconds says what each group's cycle took.
# Printed: the scrape's size and time, head memory per series, each group's cycles (last, mean,
# max) against the 1 s goal.
# Usage: rule_head.sh [--hosts N] [--form budget|full] [--run-s S] [--rules FILE] [--hold S]
#        (--rules: fabric rules other than packaging's, e.g. an older commit's, to compare in one
#        session; --hold: keep Prometheus up S s after the report, its URL printed, to time
#        expressions by hand; exit 77: no prometheus)
# e.g. bench/rule_head.sh --hosts 1000 --run-s 420
set -u
here=$(cd "$(dirname "$0")" && pwd)
rules=$(realpath "$here/../packaging/prometheus")
fabric_rules=$rules/rocehealth-fabric-rules.yml
hosts=1000 form=budget run_s=420 hold_s=0
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2 ;; --form) form=$2 ;; --run-s) run_s=$2 ;;
    --rules) fabric_rules=$(realpath "$2") ;; --hold) hold_s=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
for tool in prometheus python3 curl jq; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "$here/../tests/cli/fabric_backfill.sh"
work=$(mktemp -d /var/tmp/rule_head.XXXXXX)
prom_pid= srv_pid=
cleanup() { for p in $prom_pid $srv_pid; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
start=$(date +%s)
# The target: each GET is the fleet at that second, the hour's faults planted from `start`.
tport=$(free_port)
python3 - "$tport" "$here/fabric_scale_series.py" "$hosts" "$form" "$start" >"$work/target.log" 2>&1 <<'PY' &
import http.server, subprocess, sys, time
port, gen, hosts, form, start = sys.argv[1:]
class Fleet(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        now = int(time.time())
        body = subprocess.run([sys.executable, gen, "--hosts", hosts, "--form", form, "--only-end",
                               "--end", str(now), "--span", str(max(0, now - int(start)))],
                              check=True, capture_output=True).stdout
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), Fleet).serve_forever()
PY
srv_pid=$!
port=$(free_port)
cat >"$work/prometheus.yml" <<CFG
global:
  scrape_interval: 15s
  scrape_timeout: 14s
  evaluation_interval: 15s
rule_files: ["$fabric_rules", "$rules/rocehealth-alerts.yml"]
scrape_configs:
  - job_name: self  # its rule group durations over time
    scrape_interval: 5s
    static_configs: [{targets: ["127.0.0.1:$port"]}]
  - job_name: fleet
    honor_labels: true
    static_configs: [{targets: ["127.0.0.1:$tport"]}]
CFG
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
  --web.listen-address="127.0.0.1:$port" >"$work/prometheus.log" 2>&1 &
prom_pid=$!
url="http://127.0.0.1:$port"
wait_ready "$url/-/ready" "$work/prometheus.log" prometheus || exit 1
q() { curl -sf "$url/api/v1/query" --data-urlencode "query=$1" | jq -r "$2"; }
echo "rule_head: $hosts hosts, form $form, Prometheus $(prometheus --version 2>&1 | awk 'NR==1 {print $3}') scraping every 15 s, rules every 15 s (mesh 30 s), $run_s s; load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
sleep "$run_s"
failed=0
q 'scrape_samples_scraped{job="fleet"}' '.data.result[0].value[1] // "none"' | xargs -I{} echo "scrape: {} samples a scrape"
q 'scrape_duration_seconds{job="fleet"}' '.data.result[0].value[1] // "none"' | xargs -I{} echo "scrape: last took {} s (generating the fleet's text included)"
n=$(q 'prometheus_tsdb_head_series' '.data.result[0].value[1] // 0')
kib=$(awk '/^VmRSS/ {print $2}' "/proc/$prom_pid/status")
echo "memory: RSS $((kib / 1024)) MiB for $n head series = $((kib * 1024 / (n > 0 ? n : 1))) B/series (fleet, rules' series and Prometheus' own)"
# Each group over the run's cycles after the first 3 minutes (the 2 m windows filling): the
# mean and the largest of its last durations, sampled every 5 s.
w=$((run_s - 180))
[ "$w" -ge 30 ] || { echo "--run-s must be at least 210"; exit 2; }
for g in $(q 'prometheus_rule_group_last_duration_seconds{job="self"}' '.data.result[].metric.rule_group' | sed 's/.*;//' | sort -u); do
  sel="{job=\"self\",rule_group=~\".*;$g\"}"
  mean=$(q "avg_over_time(prometheus_rule_group_last_duration_seconds$sel[${w}s])" '.data.result[0].value[1]')
  max=$(q "max_over_time(prometheus_rule_group_last_duration_seconds$sel[${w}s])" '.data.result[0].value[1]')
  missed=$(q "prometheus_rule_group_iterations_missed_total$sel" '.data.result[0].value[1] // 0')
  printf 'group %s: cycle mean %.3f s, max %.3f s over the last %d s (goal 1 s at 1,000 hosts: x%.2f); %s cycles missed\n' \
    "$g" "$mean" "$max" "$w" "$mean" "$missed"
  [ "$missed" = 0 ] || failed=1
done
# The mesh groups' rules, each one's last evaluation (what a cycle's time is made of).
curl -sf "$url/api/v1/rules" | jq -r '.data.groups[] | select(.name | startswith("rocehealth-fabric-mesh"))
  | .name as $g | .rules[]
  | "  \($g) rule \(.name // .record // .alert): \(.evaluationTime * 1000 | floor) ms last cycle"'
errs=$(grep -c 'level=warn.*rule\|level=error' "$work/prometheus.log")
echo "prometheus: $errs rule warnings/errors in its log$([ "$errs" = 0 ] || echo ": $(grep -m3 'level=warn.*rule\|level=error' "$work/prometheus.log")")"
[ "$errs" = 0 ] || failed=1
echo "rule_head: load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
[ "$hold_s" = 0 ] || { echo "rule_head: Prometheus at $url for $hold_s s"; sleep "$hold_s"; }
exit "$failed"
