#!/bin/bash
# test_deb.sh -- the Debian package as an operator meets it: builds it the documented way
# (packaging/cpack.cmake: prefix /usr, tests off), installs it with dpkg -i, checks that the
# files are where the unit and the binary expect them, that the installed binary validates the
# installed default config and finds the packaged rules, that systemd-analyze verify accepts the
# unit, and removes it again (dpkg --purge). Run as root on Debian 12; it changes the system's
# package set while it runs (CI machines are throwaway). Exit 0 pass, 1 fail.
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

trap 'dpkg --purge rocehealth >/dev/null 2>&1 || true' EXIT
# Depends: (shlibdeps) must be satisfied by what the machine has: dpkg -i does not fetch.
dpkg -i "$deb" || fail "dpkg -i $deb failed"
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
dpkg --purge rocehealth >/dev/null || fail "dpkg --purge failed"
[ ! -e /usr/bin/rocehealth ] && [ ! -e /etc/rocehealth/agent.json ] || fail "purge left files behind"
trap - EXIT
echo "PASS: test_deb.sh"
