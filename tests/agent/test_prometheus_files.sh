#!/bin/bash
# packaging/prometheus: the alert rules, fabric rules and scrape config pass promtool, the fabric
# rules' unit tests (prometheus/tests/*.yml: synthetic series, a firing case and controls for
# every alert) pass `promtool test rules`, and the generated mesh tests are current. The Grafana
# dashboard's queries: tests/agent/test_grafana_dashboard.py (ctest agent_grafana_dashboard).
# usage: test_prometheus_files.sh PACKAGING_DIR
set -euo pipefail
dir=$1/prometheus
command -v promtool >/dev/null || { echo "FAIL: promtool missing (Debian package prometheus)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

promtool check rules "$dir/rocehealth-alerts.yml" "$dir/rocehealth-fabric-rules.yml"
promtool check config "$dir/prometheus-scrape.yml"
grep -q '^  - rocehealth-fabric-rules.yml$' "$dir/prometheus-scrape.yml" ||
    { echo "FAIL: prometheus-scrape.yml does not load rocehealth-fabric-rules.yml"; exit 1; }

# Every alert of the fabric rules has a test that expects it to fire.
python3 "$dir/tests/make_mesh_tests.py" > "$work/mesh.yml"
diff -u "$dir/tests/mesh.yml" "$work/mesh.yml" ||
    { echo "FAIL: tests/mesh.yml is not what make_mesh_tests.py writes: regenerate it"; exit 1; }
for alert in $(sed -n 's/^ *- alert: //p' "$dir/rocehealth-fabric-rules.yml"); do
    grep -h -A1 "alertname: $alert\$" "$dir"/tests/*.yml | grep -q "exp_alerts:" ||
        { echo "FAIL: no test in tests/*.yml expects $alert to fire"; exit 1; }
done
(cd "$dir/tests" && promtool test rules *.yml)

echo "prometheus files: all checks passed"
