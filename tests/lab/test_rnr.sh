#!/bin/bash
# test_rnr.sh -- receiver-not-ready (RNR) on real Soft-RoCE (2 QEMU guests), seen from both sides.
#  1. Healthy SEND: g2 runs `responder` (64 receives posted); `probe --op send` from g1 measures
#     SEND/RECV latency, 0 checksum errors, exit 0, and no RNR counter moves on either guest.
#  2. Starved receiver: g2 runs `responder --recv-depth 0` (no receive posted for SEND traffic);
#     `probe --op send,write --rnr-retry 1` from g1 fails the SEND phase quickly with the error
#     completion IBV_WC_RNR_RETRY_EXC_ERR (exit 1, the write phase skipped). The rxe counters
#     (`snapshot --json`, before/after, on each guest) name the sides: the requester g1 received
#     RNR NAKs (`rcvd_rnr_err`, normalized `rnr_nak_received`) and exhausted its retries
#     (`retry_rnr_exceeded_err`); the responder g2 sent them (`send_rnr_err`, `rnr_nak_sent`).
#  3. rnr_retry 7 (retry forever, the default): the same starved receiver makes the probe wait
#     until its deadline and name the timeout, while g1's `rcvd_rnr_err` keeps growing.
# Prints the counter deltas and latencies it saw.
. "$(dirname "$0")/lib.sh"
lab_up 2
bin=$(rocehealth_bin) || exit 1
g2=$(lab_ip g2)
out=$RH_LAB_DIR/rnr
mkdir -p "$out"
elapsed_ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# snap GUEST FILE: `rocehealth snapshot --json` of rxe0 on GUEST.
snap() { lab_exec "$1" -- "$bin" snapshot --device rxe0 --json >"$2" || fail "$1: snapshot --json"; }
# delta BEFORE AFTER NAME: growth of rxe0 port 1 hw counter NAME (sysfs hw_counters/NAME) between
# two snapshots; fails when the counter is missing (missing is never zero).
delta() {
  local d
  d=$(jq -n --slurpfile a "$1" --slurpfile b "$2" --arg n "$3" '
    def v(s): [s[0].devices[] | select(.name == "rxe0") | .ports[0].hw_counters[]
               | select(.name == $n) | .value][0];
    if (v($a) | type) == "number" and (v($b) | type) == "number" then v($b) - v($a)
    else "missing" end') || fail "jq on $1 $2"
  [ "$d" != '"missing"' ] || fail "rxe0 hw counter $3 missing in $2"
  echo "$d"
}
# ndelta BEFORE AFTER NAME: the same for a normalized (vendor-neutral) counter name.
ndelta() {
  jq -n --slurpfile a "$1" --slurpfile b "$2" --arg n "$3" '
    def v(s): [s[0].devices[] | select(.name == "rxe0") | .ports[0].normalized[]
               | select(.name == $n) | .value][0];
    v($b) - v($a)' || fail "normalized counter $3"
}
# show BEFORE AFTER GUEST: every hw counter that moved.
show() {
  jq -rn --slurpfile a "$1" --slurpfile b "$2" --arg g "$3" '
    def m(s): [s[0].devices[] | select(.name == "rxe0") | .ports[0].hw_counters[]
               | {(.name): .value}] | add;
    m($a) as $x | m($b) as $y
    | [$y | to_entries[] | select(.value != $x[.key]) | "\(.key) +\(.value - $x[.key])"]
    | "\($g) rxe0 hw_counters moved: " + (if length == 0 then "none" else join(", ") end)' >&2
}

rx_names=$(lab_exec g1 -- ls /sys/class/infiniband/rxe0/ports/1/hw_counters | tr '\n' ' ')
log "rxe0 hw_counters: $rx_names"
for c in rcvd_rnr_err send_rnr_err retry_rnr_exceeded_err; do
  assert_contains " $rx_names" " $c " "rxe hw counter $c exists"
done

ok_id=$(lab spawn g2 -- "$bin" responder) || fail "cannot start the responder on g2"
rnr_id=$(lab spawn g2 -- "$bin" responder --port 18521 --recv-depth 0) \
  || fail "cannot start the recv-depth 0 responder on g2"
lab_wait_port g2 18520
lab_wait_port g2 18521

# --- 1. healthy SEND/RECV ping-pong
snap g1 "$out/g1.0.json"; snap g2 "$out/g2.0.json"
json=$(lab_exec g1 --timeout 600 -- "$bin" probe "$g2" --op send --sizes 64,4096,65536 \
  --iterations 50 --warmup 5 --json); rc=$?
echo "$json" | jq -c '.results[] | {op, size_bytes, p50_us, p99_us, checksum_errors, error}' >&2
assert_eq 0 "$rc" "healthy SEND probe: exit status"
assert_eq 64 "$(jq '.remote.recv_depth' <<<"$json")" "responder's receive depth in the report"
assert_eq "send:64 send:4096 send:65536" \
  "$(jq -r '[.results[] | "\(.op):\(.size_bytes)"] | join(" ")' <<<"$json")" "phases run"
assert_eq 0 "$(jq '[.results[] | select(.iterations != 50 or .error)] | length' <<<"$json")" \
  "every SEND phase ran 50 timed iterations without error"
assert_eq "half round trip" "$(jq -r '.results[0].latency_kind' <<<"$json")" "send latency kind"
assert_eq 0 "$(jq '.checksum_errors' <<<"$json")" "SEND checksum errors"
snap g1 "$out/g1.1.json"; snap g2 "$out/g2.1.json"
show "$out/g1.0.json" "$out/g1.1.json" g1; show "$out/g2.0.json" "$out/g2.1.json" g2
assert_eq 0 "$(delta "$out/g1.0.json" "$out/g1.1.json" rcvd_rnr_err)" "healthy: g1 rcvd_rnr_err"
assert_eq 0 "$(delta "$out/g2.0.json" "$out/g2.1.json" send_rnr_err)" "healthy: g2 send_rnr_err"

# --- 2. starved receiver, rnr_retry 1
t0=$(date +%s%N)
json=$(lab_exec g1 --timeout 120 -- "$bin" probe "$g2:18521" --op send,write --sizes 64 \
  --iterations 20 --rnr-retry 1 --json); rc=$?
ms=$(elapsed_ms "$t0")
echo "$json" | jq -c '{errors, qp, recv_depth: .remote.recv_depth}' >&2
assert_eq 1 "$rc" "probe against recv-depth 0: exit status"
assert_eq 1 "$(jq '.errors | length' <<<"$json")" "one failed phase"
assert_contains "$(jq -r '.errors[0]' <<<"$json")" "IBV_WC_RNR_RETRY_EXC_ERR" "error completion"
assert_match "$(jq -r '.errors[0]' <<<"$json")" "^SEND 64 B message 0: " "the first SEND fails"
assert_eq "send null" "$(jq -r '.results[0] | "\(.op) \(.p50_us)"' <<<"$json")" \
  "failed phase reports no latency"
assert_eq "not run: send 64 B failed before it" "$(jq -r '.results[1].skipped' <<<"$json")" \
  "write phase skipped"
assert_eq 0 "$(jq '.remote.recv_depth' <<<"$json")" "responder says it posts no receives"
assert_eq 1 "$(jq '.qp.rnr_retry' <<<"$json")" "rnr_retry in the report"
log "RNR failure reported in ${ms} ms (incl. lab exec and QP setup)"
[ "$ms" -lt 10000 ] || fail "RNR failure took ${ms} ms"
snap g1 "$out/g1.2.json"; snap g2 "$out/g2.2.json"
show "$out/g1.1.json" "$out/g1.2.json" g1; show "$out/g2.1.json" "$out/g2.2.json" g2
req_rnr=$(delta "$out/g1.1.json" "$out/g1.2.json" rcvd_rnr_err)
req_exc=$(delta "$out/g1.1.json" "$out/g1.2.json" retry_rnr_exceeded_err)
resp_rnr=$(delta "$out/g2.1.json" "$out/g2.2.json" send_rnr_err)
log "rnr_retry 1: requester g1 rcvd_rnr_err +$req_rnr, retry_rnr_exceeded_err +$req_exc;" \
  "responder g2 send_rnr_err +$resp_rnr"
# One SEND, tried 1 + rnr_retry times, each answered by an RNR NAK.
assert_eq 2 "$req_rnr" "requester g1 rcvd_rnr_err growth (1 try + 1 retry)"
assert_eq 1 "$req_exc" "requester g1 retry_rnr_exceeded_err growth"
assert_eq 2 "$resp_rnr" "responder g2 send_rnr_err growth"
assert_eq 2 "$(ndelta "$out/g1.1.json" "$out/g1.2.json" rnr_nak_received)" \
  "g1 normalized rnr_nak_received"
assert_eq 2 "$(ndelta "$out/g2.1.json" "$out/g2.2.json" rnr_nak_sent)" "g2 normalized rnr_nak_sent"
# The direction: the requester never sent an RNR NAK, the responder never received one.
assert_eq 0 "$(delta "$out/g1.1.json" "$out/g1.2.json" send_rnr_err)" "g1 send_rnr_err"
assert_eq 0 "$(delta "$out/g2.1.json" "$out/g2.2.json" rcvd_rnr_err)" "g2 rcvd_rnr_err"

# --- 3. rnr_retry 7 = forever: the probe's own deadline ends it
t0=$(date +%s%N)
json=$(lab_exec g1 --timeout 120 -- "$bin" probe "$g2:18521" --op send --sizes 64 \
  --iterations 5 --timeout-ms 3000 --json); rc=$?
ms=$(elapsed_ms "$t0")
echo "$json" | jq -c '{errors, qp}' >&2
assert_eq 1 "$rc" "rnr_retry 7 probe: exit status"
assert_eq 7 "$(jq '.qp.rnr_retry' <<<"$json")" "default rnr_retry"
assert_match "$(jq -r '.errors[0]' <<<"$json")" \
  "^SEND 64 B message 0: wait peer's SEND: .*not seen within 3000 ms" "deadline named"
[ "$ms" -lt 13000 ] || fail "rnr_retry 7 probe took ${ms} ms (deadline 3000 ms)"
snap g1 "$out/g1.3.json"; snap g2 "$out/g2.3.json"
show "$out/g1.2.json" "$out/g1.3.json" g1; show "$out/g2.2.json" "$out/g2.3.json" g2
req_rnr=$(delta "$out/g1.2.json" "$out/g1.3.json" rcvd_rnr_err)
log "rnr_retry 7 for 3 s: g1 rcvd_rnr_err +$req_rnr, ended after ${ms} ms"
[ "$req_rnr" -ge 10 ] || fail "g1 rcvd_rnr_err grew by only $req_rnr while retrying forever"
assert_eq 0 "$(delta "$out/g1.2.json" "$out/g1.3.json" retry_rnr_exceeded_err)" \
  "retrying forever never exceeds"

lab kill "$ok_id" >/dev/null 2>&1
lab kill "$rnr_id" >/dev/null 2>&1
rout=$(lab wait "$rnr_id" --timeout 10 2>&1)
assert_contains "$rout" "recv_depth 0: no receives posted, every SEND meets receiver-not-ready" \
  "responder log says why"
pass
