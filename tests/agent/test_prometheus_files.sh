#!/bin/bash
# packaging/prometheus: the alert rules and scrape config pass promtool, and every query of the
# Grafana dashboard parses as PromQL (checked as recording rules by promtool).
# usage: test_prometheus_files.sh PACKAGING_DIR
set -euo pipefail
dir=$1/prometheus
command -v promtool >/dev/null || { echo "FAIL: promtool missing (Debian package prometheus)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

promtool check rules "$dir/rocehealth-alerts.yml"
promtool check config "$dir/prometheus-scrape.yml"

python3 - "$dir/grafana-dashboard.json" "$work/dashboard-rules.yml" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
assert len(exprs) >= 10, f"only {len(exprs)} queries"
assert all(p.get("title") and p.get("gridPos") for p in d["panels"])
with open(sys.argv[2], "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        e = e.replace("$instance", ".*")
        f.write(f"      - record: dashboard:query{i}\n        expr: {json.dumps(e)}\n")
PY
promtool check rules "$work/dashboard-rules.yml"
echo "prometheus files: all checks passed"
