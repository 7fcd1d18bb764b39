#!/bin/bash
# test_check.sh -- `rocehealth check` on real Soft-RoCE: a healthy guest has no findings; an MTU
# mismatch injected for real (g1 eth0 MTU 1500, g2 9000) is reported by `check --peer g1` on g2
# with both active_mtu values, and a probe across it still completes at path_mtu 1024.
. "$(dirname "$0")/lib.sh"
lab_up 2
bin=$(rocehealth_bin) || exit 1
g1_ip=$(lab_ip g1)

set_mtu() {  # set_mtu GUEST MTU: set eth0's MTU and wait until rxe0's active_mtu follows it
  local want; case $2 in 1500) want=1024 ;; 9000) want=4096 ;; esac
  lab_exec "$1" -- ip link set eth0 mtu "$2" || fail "$1: cannot set eth0 MTU $2"
  lab_exec "$1" --timeout 30 -- bash -c \
    "until ibv_devinfo -d rxe0 | grep -q 'active_mtu:.*$want'; do sleep 0.2; done" \
    || fail "$1: rxe0 active_mtu did not become $want after eth0 MTU $2"
}

# --- healthy: jumbo MTU on both guests, check finds rxe0 and nothing wrong
set_mtu g1 9000
set_mtu g2 9000
out=$(lab_exec g2 -- "$bin" check); rc=$?
echo "$out"
assert_eq 0 "$rc" "check on a healthy guest: exit status"
assert_contains "$out" "(rxe0)" "check names the real rxe0"
assert_contains "$out" "healthy, no findings"
json=$(lab_exec g2 -- "$bin" check --json) || fail "check --json on a healthy guest"
assert_contains "$json" '"healthy": true'

# --- MTU mismatch: g1 at 1500 (active_mtu 1024), g2 at 9000 (4096)
set_mtu g1 1500
lab spawn g1 -- "$bin" responder >/dev/null || fail "cannot start responder on g1"
lab_wait_port g1 18520

out=$(lab_exec g2 -- "$bin" check --peer "$g1_ip"); rc=$?
echo "$out"
assert_eq 1 "$rc" "check --peer across an MTU mismatch: exit status"
assert_contains "$out" "[warning] roce_mtu"
assert_contains "$out" "has 4096 bytes, peer g1 rxe0 port 1 has 1024 bytes"
assert_contains "$out" "path_mtu 1024"

# The local check on g1 itself tells why: its netdev MTU.
out=$(lab_exec g1 -- "$bin" check); rc=$?
assert_eq 1 "$rc" "check on the 1500-MTU guest"
assert_contains "$out" "RoCE MTU is 1024 bytes because eth0 MTU is 1500"

# The probe still works across the mismatch, at the smaller MTU, all sizes.
out=$(lab_exec g2 --timeout 600 -- "$bin" probe "$g1_ip" --iterations 20 --json); rc=$?
assert_eq 0 "$rc" "probe across the MTU mismatch: exit status ($out)"
assert_contains "$out" '"path_mtu_bytes": 1024'
assert_contains "$out" '"ok": true'
# Both ops at every default size (a 1 MiB message spans 1024 packets of 1024 bytes), and no
# slot failed its checksum (the report's total).
assert_eq 8 "$(grep -c '"size_bytes"' <<<"$out")" "phases measured (2 ops x 4 sizes)"
assert_contains "$out" $'{\n  "checksum_errors": 0,'
pass
