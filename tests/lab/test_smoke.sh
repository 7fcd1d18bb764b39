#!/bin/bash
# test_smoke.sh -- Soft-RoCE lab smoke test: 2 guests, rxe0 usable in both,
# host-installed verbs binaries run in the guests, RDMA WRITE/READ between them.
. "$(dirname "$0")/lib.sh"
t0=$SECONDS
lab_up 2

for g in g1 g2; do
  out=$(lab_exec "$g" -- ibv_devinfo -d rxe0) || fail "$g: ibv_devinfo -d rxe0 failed"
  assert_contains "$out" "PORT_ACTIVE" "$g rxe0 port state"
  assert_contains "$out" "link_layer:		Ethernet" "$g rxe0 link layer"
  gid=$(lab_gid "$g"); assert_match "$gid" '^[0-9]+$' "$g RoCE v2 gid index"
  # The guest agrees with the index recorded at boot.
  ty=$(lab_exec "$g" -- cat "/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$gid")
  assert_eq "RoCE v2" "$ty" "$g gid $gid type"
done
assert_eq "10.99.0.11" "$(lab_ip g1)" "g1 ip"

# Plain IP connectivity on the shared L2 segment.
assert_ok lab_exec g2 -- busybox ping -c 1 -W 5 "$(lab_ip g1)" >/dev/null

# Exit status and stderr come back from the guest.
assert_rc 7 lab_exec g1 -- bash -c 'echo to-stderr >&2; exit 7' 2>/dev/null

for tool in ib_write_lat ib_read_lat; do
  out=$(perftest_pair "$tool" 64 100) || fail "$tool failed"
  row=$(awk '$1 == 64 && $2 == 100' <<<"$out")
  [ -n "$row" ] || fail "$tool: no result row in: $out"
  log "$tool 64B: $row"
done

log "smoke test done in $((SECONDS - t0))s (boot ${RH_LAB_BOOT_S}s)"
pass
