#!/bin/bash
# test_deb.sh -- the Debian package as an operator meets it, following README.md "Deploy on a
# fleet" step by step with this machine as the build host, the one agent host, the Prometheus
# host and the admin host (ssh/scp become local copies; Grafana and systemd are not run):
# 1 builds it the documented way (prefix /usr, tests off) and checks its Depends against
#   packaging/debian-runtime-deps.txt; 2 installs it with apt-get and checks that the files are
#   where the unit and the binary expect them and that systemd-analyze verify accepts the unit;
# 3 writes and places the fabric key; 4 writes the fleet file and the host's config with the
#   README's jq and validates it with --check-config from / (the relative peers_file), and sees
#   --check-config refuse an address that is not this host's; 5 checks the scrape config and
#   rules with promtool; 6 builds the Grafana import body; 7 runs the agent, Prometheus scraping
#   it, and a first `fabric` run; 8 upgrades (reinstall: the edited config stays); 9 rotates
#   the key (the agent's /metrics shows the new fingerprint after SIGHUP); then purges.
# Run as root on Debian 12; it changes the system's package set while it runs (CI machines are
# throwaway). Exit 0 pass, 1 fail.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${RH_DEB_BUILD:-$repo/build-deb}
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root (dpkg -i)"
if dpkg -s rocehealth >/dev/null 2>&1; then fail "a rocehealth package is already installed; not touching it"; fi

# RH_DEB_BUILD may name a build tree already configured with prefix /usr (tests/run.sh's own,
# so CI compiles the project once for tests and package); only its prefix is checked then.
if [ -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
else
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
    -DROCEHEALTH_TESTS=OFF >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target rocehealth >/dev/null
(cd "$build" && rm -f rocehealth_*.deb && cpack -G DEB >/dev/null)
deb=$(ls "$build"/rocehealth_*_amd64.deb) || fail "cpack made no .deb"
echo "package: $deb ($(du -k "$deb" | cut -f1) KiB)"

# Step 1's check: the runtime list a copied binary needs covers what the package declares.
runtime=$(grep -v '^\s*#' "$repo/packaging/debian-runtime-deps.txt" | sed '/^\s*$/d')
for dep in $(dpkg-deb -f "$deb" Depends | tr ',|' '\n\n' | sed 's/(.*)//; s/ //g' | sed '/^$/d'); do
  grep -qx "$dep" <<<"$runtime" || fail "the .deb depends on $dep, packaging/debian-runtime-deps.txt does not list it"
done
[ ! -e /etc/rocehealth ] || fail "/etc/rocehealth exists already; not touching it"

work=$(mktemp -d)
agent_pid= prom_pid=
cleanup() {
  for p in $agent_pid $prom_pid; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  dpkg --purge rocehealth >/dev/null 2>&1 || true
  rm -rf "$work" /etc/rocehealth
}
trap cleanup EXIT
# Step 2 (README): apt-get install of the copied file (apt would fetch missing Depends).
cp "$deb" "$work/rocehealth.deb"
apt-get install -y "$work/rocehealth.deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install $deb failed"; }
for f in /usr/bin/rocehealth /usr/share/rocehealth/rules.json /etc/rocehealth/agent.json \
         /usr/lib/systemd/system/rocehealth-agent.service /usr/share/doc/rocehealth/agent.md \
         /usr/share/doc/rocehealth/prometheus/rocehealth-alerts.yml \
         /usr/share/doc/rocehealth/prometheus/rocehealth-fabric-rules.yml; do
  [ -e "$f" ] || [ -e "${f/#\/usr\/lib\/systemd/\/lib\/systemd}" ] || fail "$f not installed"
done
dpkg-query -W -f='${Conffiles}\n' rocehealth | grep -q /etc/rocehealth/agent.json \
  || fail "/etc/rocehealth/agent.json is not a conffile (an upgrade would overwrite local edits)"
# The installed binary validates the installed config and finds the packaged rules by itself.
out=$(cd / && env -u ROCEHEALTH_RULES /usr/bin/rocehealth agent --config /etc/rocehealth/agent.json \
  --check-config 2>&1) || fail "installed binary rejects the installed config: $out"
echo "check-config: $out"
grep -q "rules from /usr/share/rocehealth/rules.json" <<<"$out" \
  || fail "installed binary does not load /usr/share/rocehealth/rules.json"
unit=$(ls /usr/lib/systemd/system/rocehealth-agent.service /lib/systemd/system/rocehealth-agent.service 2>/dev/null | head -1)
grep -q '^ExecStart=/usr/bin/rocehealth agent' "$unit" || fail "unit's ExecStart is not /usr/bin/rocehealth"
if command -v systemd-analyze >/dev/null; then
  v=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $v"
  # verify prints warnings without failing; ours must be clean apart from the host's own units.
  if grep -i "rocehealth-agent" <<<"$v"; then fail "systemd-analyze verify warns about the unit"; fi
  echo "systemd-analyze verify: clean"
else
  fail "systemd-analyze not found (apt-get install systemd)"
fi

# Step 3: the fabric key, written on the admin host and copied with its mode (scp -p).
(cd "$work" && rocehealth keygen --out fabric.key) >"$work/keygen.out" || fail "keygen failed"
cp -p "$work/fabric.key" /etc/rocehealth/fabric.key
[ "$(stat -c %a /etc/rocehealth/fabric.key)" = 600 ] || fail "the copied key is not mode 0600"

# Step 4: the fleet file and this host's config with the README's jq, validated from / (systemd's
# working directory): the relative peers_file is read beside the config.
host=$(hostname)
cat > "$work/fleet.jsonl" <<JSONL
{"host": "$host", "address": "127.0.0.1:18520", "tor": "r01"}
{"host": "other-host", "address": "192.0.2.9:18520", "tor": "r02"}
JSONL
h=$host addr=127.0.0.1 tor=r01
(cd "$repo" && jq --arg listen "$addr:9477" --arg tor "$tor" '.http.listen = $listen | .topology.tor = $tor |
  .responder.enabled = true | .mesh.peers_file = "fleet.jsonl"' packaging/agent.json > "$work/agent-$h.json") ||
  fail "step 4's jq failed"
cp "$work/fleet.jsonl" /etc/rocehealth/fleet.jsonl && cp "$work/agent-$h.json" /etc/rocehealth/agent.json
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
  out=$(cd / && rocehealth agent --check-config 2>&1) || fail "step 4: --check-config: $out"
else
  # No RDMA port on this machine: --check-config names the responder it could not start (it
  # passed before), then the test goes on with the responder off.
  out=$(cd / && rocehealth agent --check-config 2>&1) &&
    fail "step 4: --check-config accepted responder.enabled on a host without RDMA"
  grep -q "responder.enabled: true, but this host has no port to serve" <<<"$out" || fail "step 4: $out"
  jq '.responder.enabled = false' /etc/rocehealth/agent.json > "$work/no-rdma.json"
  cp "$work/no-rdma.json" /etc/rocehealth/agent.json
  out=$(cd / && rocehealth agent --check-config 2>&1) || fail "step 4: --check-config: $out"
fi
grep -q "listen 127.0.0.1:9477" <<<"$out" || fail "step 4: --check-config: $out"
jq '.http.listen = "192.0.2.1:9477"' /etc/rocehealth/agent.json > "$work/foreign.json"
out=$(rocehealth agent --config "$work/foreign.json" --check-config 2>&1) &&
  fail "step 4: --check-config accepted an address that is not this host's"
grep -q "http.listen: cannot bind 192.0.2.1 on this host" <<<"$out" || fail "step 4: $out"

# Step 5: scrape config and rules as the Prometheus host gets them (targets: this agent).
prom=$work/prometheus && mkdir -p "$prom"
cp /usr/share/doc/rocehealth/prometheus/rocehealth-alerts.yml \
   /usr/share/doc/rocehealth/prometheus/rocehealth-fabric-rules.yml "$prom/"
sed -e '/- gpu01:9477/c\          - 127.0.0.1:9477' -e '/- gpu02:9477/d' \
  /usr/share/doc/rocehealth/prometheus/prometheus-scrape.yml > "$prom/prometheus.yml"
sed -i 's/scrape_interval: 15s/scrape_interval: 1s/; s/scrape_timeout: 5s/scrape_timeout: 1s/' "$prom/prometheus.yml"
v=$(promtool check config "$prom/prometheus.yml" 2>&1) || fail "step 5: promtool check config: $v"

# Step 6: the Grafana import body (Grafana itself is not here).
jq '{dashboard: ., overwrite: true, inputs: [{name: "DS_PROMETHEUS", type: "datasource",
  pluginId: "prometheus", value: "prometheus"}]}' \
  /usr/share/doc/rocehealth/prometheus/grafana-dashboard.json > "$work/import.json" ||
  fail "step 6: jq on the dashboard failed"
jq -e '.dashboard.panels | length > 0' "$work/import.json" >/dev/null || fail "step 6: no panels"

# Step 7: the agent (as the unit starts it), Prometheus scraping it, a first fabric run.
(cd / && exec /usr/bin/rocehealth agent --config /etc/rocehealth/agent.json) 2>"$work/agent.log" &
agent_pid=$!
pport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus --config.file="$prom/prometheus.yml" --storage.tsdb.path="$prom/data" \
  --web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
prom_pid=$!
up=
for _ in $(seq 1 100); do
  up=$(curl -sf "http://127.0.0.1:$pport/api/v1/query?query=rocehealth_host_info" |
    jq -r '.data.result | length' 2>/dev/null) && [ "${up:-0}" -ge 1 ] && break
  sleep 0.3
done
[ "${up:-0}" -ge 1 ] || { tail -5 "$work/agent.log" "$work/prometheus.log"; fail "step 7: Prometheus never scraped the agent"; }
set +e
first=$(rocehealth fabric --prometheus "http://127.0.0.1:$pport" --from -15m --json 2>"$work/fabric.err")
rc=$?
set -e
# No RDMA here: no pause counters, so "could not judge" (2); what matters is a verdict.
jq -e --arg h "$host" '(.verdict | IN("healthy", "findings", "could_not_judge")) and (.hosts | index($h))' \
  <<<"$first" >/dev/null || fail "step 7: fabric (exit $rc) gave no verdict on $host: $first $(cat "$work/fabric.err")"
echo "step 7: fabric exit $rc, verdict $(jq -r .verdict <<<"$first")"

# Step 8: upgrade (the same package again): the edited conffile stays.
apt-get install -y --reinstall "$work/rocehealth.deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "step 8: reinstall failed"; }
jq -e '.topology.tor == "r01" and .mesh.peers_file == "fleet.jsonl"' /etc/rocehealth/agent.json >/dev/null ||
  fail "step 8: the upgrade replaced the edited /etc/rocehealth/agent.json"

# Step 9: rotate the key; after the reload (SIGHUP) the agent exports the new fingerprint.
(cd "$work" && rocehealth keygen --out fabric.key.new) >"$work/keygen.out" || fail "step 9: keygen failed"
new_fp=$(grep -o 'fingerprint [0-9a-f]*' "$work/keygen.out" | cut -d' ' -f2)
cp -p "$work/fabric.key.new" /etc/rocehealth/fabric.key
kill -HUP "$agent_pid"
fp=
for _ in $(seq 1 50); do
  fp=$(curl -s http://127.0.0.1:9477/metrics | grep '^rocehealth_fabric_key_info' | grep -o 'fingerprint="[0-9a-f]*"') &&
    [ "$fp" = "fingerprint=\"$new_fp\"" ] && break
  sleep 0.2
done
[ "$fp" = "fingerprint=\"$new_fp\"" ] || fail "step 9: /metrics shows $fp, the new key is $new_fp"
kill "$agent_pid" && wait "$agent_pid" 2>/dev/null || true
agent_pid=

dpkg --purge rocehealth >/dev/null || fail "dpkg --purge failed"
[ ! -e /usr/bin/rocehealth ] && [ ! -e /etc/rocehealth/agent.json ] || fail "purge left files behind"
echo "PASS: test_deb.sh"
