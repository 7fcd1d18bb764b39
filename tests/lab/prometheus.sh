# prometheus.sh -- sourced by lab tests after lib.sh: Debian's prometheus on the host scraping
# the guests' agents through their QEMU host forwards (RH_LAB_HOSTFWD), and its HTTP query API.
#   wait_until SECONDS CMD...   retries CMD every second until it succeeds (1 on timeout)
#   prom_start RULES TARGET...  starts prometheus (every 1 s) on the targets: a guest name (its
#                               forward, hostfwd) or NAME=HOST:PORT (an agent elsewhere), each
#                               labelled guest=<name>; RULES is "" or rules files separated by
#                               ", "; sets prom_port, stops it on exit
#   query PROMQL                "labels value" lines of an instant query's result
#   count_is PROMQL N           the query returns N series

wait_until() {  # wait_until SECONDS CMD...
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do [ $SECONDS -lt $deadline ] || return 1; sleep 1; done
}

prom_start() {  # prom_start RULES_FILES|"" TARGET...
  local rules=$1 g pdir=$RH_LAB_DIR/prometheus; shift
  mkdir -p "$pdir/data"
  prom_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  {
    echo "global: {scrape_interval: 1s, evaluation_interval: 1s}"
    [ -z "$rules" ] || echo "rule_files: [$rules]"
    echo "scrape_configs:"
    echo "  - job_name: rocehealth"
    echo "    static_configs:"
    for g in "$@"; do
      case $g in
        *=*) echo "      - {targets: ['${g#*=}'], labels: {guest: ${g%%=*}}}" ;;
        *) echo "      - {targets: ['127.0.0.1:$(cat "$RH_LAB_DIR/$g/hostfwd")'], labels: {guest: $g}}" ;;
      esac
    done
  } >"$pdir/prometheus.yml"
  prometheus --config.file="$pdir/prometheus.yml" --storage.tsdb.path="$pdir/data" \
    --web.listen-address="127.0.0.1:$prom_port" >"$pdir/prometheus.log" 2>&1 &
  _prom_pid=$!
  trap 'rc=$?; kill $_prom_pid 2>/dev/null; (exit $rc); _rh_cleanup' EXIT
  wait_until 60 curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null ||
    { tail -20 "$pdir/prometheus.log"; fail "prometheus not ready"; }
}

query() {  # query PROMQL: prints "labels value" lines of an instant query's result
  curl -sf --data-urlencode "query=$1" "http://127.0.0.1:$prom_port/api/v1/query" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["status"]=="success"
for r in d["data"]["result"]: print(json.dumps(r["metric"], sort_keys=True), r["value"][1])'
}

count_is() { [ "$(query "$1" | wc -l)" = "$2" ]; }
