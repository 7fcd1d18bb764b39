#!/bin/bash
# `rocehealth check` end to end on fixture sysfs trees: the exit code and the sentence an
# operator reads. Usage: test_check_fixtures.sh ROCEHEALTH_BINARY FIXTURES_DIR
set -u
bin=$1 fx=$2 failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

expect() {  # expect FIXTURE EXIT_CODE TEXT...: run check, compare exit code, grep each TEXT
  local fixture=$1 want=$2; shift 2
  local out rc
  out=$("$bin" check --sysfs-root "$fx/$fixture/sys" 2>&1); rc=$?
  [ "$rc" = "$want" ] || fail "$fixture: exit $rc, expected $want; output: $out"
  for t in "$@"; do
    grep -qF -- "$t" <<<"$out" || fail "$fixture: '$t' not in output: $out"
  done
}

expect mlx5_healthy 0 "healthy, no findings"
expect mlx5_x8 1 "[warning] pcie_downtrained" "NIC's own PCIe function 0000:3b:00.0" "x8 of 16 GT/s x16"
# Issue 26: an x8 card in an x16 slot trains at x8, the card's maximum: healthy.
expect mlx5_x8_card_x16_slot 0 "healthy, no findings"
expect mlx5_bridge_downtrained 1 "upstream port 0000:01:00.0" "8 GT/s x16 of 16 GT/s x16"
expect port_down 1 "[error] port_not_active" "DOWN/Disabled"
expect rxe_mtu1500 1 "roce_mtu" "at most 1024 bytes because eth0 MTU is 1500"
expect rxe_no_v2 1 "no_roce_v2_gid"
# One unreadable device must not hide the other, nor pass for healthy: exit 2, incomplete.
expect two_devices_one_bad 2 "INCOMPLETE" "could not evaluate:" "irdma0 port 1: cannot tell whether the port is ACTIVE/LinkUp"

# JSON form: machine-readable, same verdict.
json=$("$bin" check --sysfs-root "$fx/mlx5_x8/sys" --json); rc=$?
[ "$rc" = 1 ] || fail "--json exit $rc"
grep -q '"rule": "pcie_downtrained"' <<<"$json" || fail "--json lacks the finding: $json"
grep -q '"healthy": false' <<<"$json" || fail "--json lacks healthy=false"
# A peer that cannot be queried (nothing listens on port 1) leaves the path unevaluated; this
# host's findings still come first, and the exit code is the findings'.
out=$("$bin" check --sysfs-root "$fx/mlx5_x8/sys" --peer 127.0.0.1:1 --peer-timeout-ms 500 2>&1); rc=$?
[ "$rc" = 1 ] || fail "--peer unreachable: exit $rc, expected 1: $out"
grep -qF "[warning] pcie_downtrained" <<<"$out" || fail "--peer unreachable hid the finding: $out"
grep -qF "peer 127.0.0.1:1" <<<"$out" || fail "--peer unreachable: peer not named: $out"
json=$("$bin" check --sysfs-root "$fx/mlx5_x8/sys" --peer 127.0.0.1:1 --peer-timeout-ms 500 --json 2>/dev/null)
grep -q '"rule": "pcie_downtrained"' <<<"$json" || fail "--peer unreachable --json lacks the finding: $json"
# --list-rules: a line per rule, and with --json an array of objects a tool can read.
out=$("$bin" check --list-rules); rc=$?
[ "$rc" = 0 ] && grep -qP '^pcie_downtrained\t' <<<"$out" || fail "--list-rules: exit $rc: $out"
json=$("$bin" check --list-rules --json); rc=$?
[ "$rc" = 0 ] || fail "--list-rules --json exit $rc"
python3 -c '
import json, sys
rules = json.loads(sys.argv[1])
assert [r["id"] for r in rules] == ["port_not_active", "no_roce_v2_gid", "pcie_downtrained", "roce_mtu",
                                  "fabric_consistency"], rules
pcie = rules[2]
assert pcie["severity"] == "warning" and pcie["severities"] == ["warning", "error"], pcie
assert all(r["description"] and r["severities"][0] == r["severity"] for r in rules), rules
' "$json" || fail "--list-rules --json is not the rules as JSON: $json"

# Could not run: exit 2 with a sentence naming what is wrong.
empty=$(mktemp -d); trap 'rm -rf "$empty"' EXIT
out=$("$bin" check --sysfs-root "$empty" 2>&1); rc=$?
[ "$rc" = 2 ] || fail "no devices: exit $rc, expected 2"
grep -qF "no RDMA device found under $empty/class/infiniband" <<<"$out" || fail "no-device message: $out"
out=$("$bin" check --sysfs-root /nonexistent/sys 2>&1); rc=$?
[ "$rc" = 2 ] || fail "missing root: exit $rc"
grep -qF "/nonexistent/sys does not exist" <<<"$out" || fail "missing-root message: $out"
out=$("$bin" check --bogus 2>&1); rc=$?
[ "$rc" = 2 ] || fail "unknown option: exit $rc"
grep -qF "bogus" <<<"$out" || fail "unknown option not named: $out"
out=$("$bin" check --sysfs-root "$fx/mlx5_healthy/sys" --device mlx9_9 2>&1); rc=$?
[ "$rc" = 2 ] || fail "unknown device: exit $rc"
grep -qF "no RDMA device named mlx9_9" <<<"$out" || fail "unknown device message: $out"
out=$("$bin" check --sysfs-root "$fx/mlx5_healthy/sys" --peer 127.0.0.1:1 --peer-timeout-ms 2000 2>&1); rc=$?
[ "$rc" = 2 ] || fail "unreachable peer: exit $rc"
grep -qF "127.0.0.1:1" <<<"$out" || fail "unreachable peer not named: $out"

out=$("$bin" check --sysfs-root "$fx/mlx5_healthy/sys" somehost 2>&1); rc=$?
[ "$rc" = 2 ] || fail "positional argument: exit $rc (check takes --peer, not a host)"
out=$("$bin" check --sysfs-root "$fx/mlx5_healthy/sys" --peer "" 2>&1); rc=$?
[ "$rc" = 2 ] || fail "empty --peer: exit $rc"
out=$("$bin" check --sysfs-root "$fx/mlx5_healthy/sys" --device mlx9_9 2>&1)
grep -qF "present: mlx5_0" <<<"$out" || fail "unknown device should list present devices: $out"

[ $failed = 0 ] && echo "PASS: check on fixtures"
exit $failed
