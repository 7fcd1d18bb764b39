# Sourced by the `rocehealth fabric` end-to-end tests (test_fabric.sh, test_fabric_vm.sh): a
# fabric in OpenMetrics text (fabric_series.py) backfilled into Debian's Prometheus or
# VictoriaMetrics, each then served on a free port of 127.0.0.1. The caller sets $work (a
# temporary directory) and kills $prom_pid / $vm_pid when it ends.

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_ready URL LOG NAME: until URL answers 2xx (at most 20 s); else LOG's tail and status 1.
wait_ready() {
  for _ in $(seq 1 100); do
    curl -sf "$1" >/dev/null && return 0
    sleep 0.2
  done
  tail -20 "$2" >&2
  echo "$3 not ready at $1" >&2
  return 1
}

# serve_prometheus OM...: `promtool tsdb create-blocks-from openmetrics` of each OM file into
# $work/prom, served by prometheus (no scrapes, retention 10 years). Sets prom_url and prom_pid.
serve_prometheus() {
  mkdir -p "$work/prom"
  local om
  for om in "$@"; do
    promtool tsdb create-blocks-from openmetrics --quiet "$om" "$work/prom" >"$work/backfill.log" 2>&1 ||
      { cat "$work/backfill.log" >&2; echo "promtool backfill of $om failed" >&2; return 1; }
  done
  printf 'global:\n  scrape_interval: 15s\nscrape_configs: []\n' >"$work/prometheus.yml"
  local port
  port=$(free_port)
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
    --storage.tsdb.retention.time=3650d --web.listen-address="127.0.0.1:$port" \
    >"$work/prometheus.log" 2>&1 &
  prom_pid=$!
  prom_url="http://127.0.0.1:$port"
  wait_ready "$prom_url/-/ready" "$work/prometheus.log" prometheus
}

# serve_victoria OM: victoria-metrics on an empty store in $work/vm, OM's samples imported
# through /api/v1/import/prometheus (timestamps turned from seconds into milliseconds), flushed
# and searchable. Sets vm_url and vm_pid. Flags: the backfill is older than the default
# retention could be (1 month), so 100 years; the response cache would keep answers computed
# before a later write (vmalert's replay writes while it queries), so off; points closer to now
# than -search.latencyOffset (30 s) are hidden, so 1 s.
serve_victoria() {
  local port
  port=$(free_port)
  victoria-metrics -storageDataPath="$work/vm" -httpListenAddr="127.0.0.1:$port" \
    -retentionPeriod=100y -search.disableCache -search.latencyOffset=1s -loggerLevel=ERROR \
    >"$work/victoria-metrics.log" 2>&1 &
  vm_pid=$!
  vm_url="http://127.0.0.1:$port"
  wait_ready "$vm_url/health" "$work/victoria-metrics.log" victoria-metrics || return 1
  # Integer seconds only: fabric_series.py writes no fractions.
  sed -E '/^#/d; s/ ([0-9]+)$/ \1000/' "$1" >"$work/import.prom"
  curl -sf --data-binary @"$work/import.prom" "$vm_url/api/v1/import/prometheus" ||
    { echo "victoria-metrics refused the import" >&2; return 1; }
  # Searchable when /api/v1/series lists them all (/api/v1/series/count is approximate).
  local want got first last
  want=$(sed -E 's/ [^ ]+ [^ ]+$//' "$work/import.prom" | sort -u | wc -l)
  first=$(awk '{print $NF}' "$work/import.prom" | sort -n | head -1)
  last=$(awk '{print $NF}' "$work/import.prom" | sort -n | tail -1)
  for _ in $(seq 1 100); do
    curl -sf "$vm_url/internal/force_flush" >/dev/null
    got=$(curl -sf --data-urlencode 'match[]={__name__=~".+"}' --data-urlencode "start=$((first / 1000))" \
      --data-urlencode "end=$((last / 1000))" "$vm_url/api/v1/series" | jq '.data | length')
    [ "$got" = "$want" ] && return 0
    sleep 0.2
  done
  echo "victoria-metrics holds $got series after the import, expected $want" >&2
  return 1
}
