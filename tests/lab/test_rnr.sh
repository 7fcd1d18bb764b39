#!/bin/bash
# test_rnr.sh -- receiver-not-ready (RNR) on real Soft-RoCE (2 QEMU guests), seen from both sides.
#  1. Healthy SEND: g2 runs `responder` (64 receives posted); `probe --op send` from g1 measures
#     SEND/RECV latency, 0 checksum errors, exit 0, and no RNR counter moves on either guest.
#  2. Starved receiver: g2 runs `responder --recv-depth 0` (no receive posted for SEND traffic);
#     `probe --op send,write --rnr-retry 1` from g1 fails the SEND phase with the error
#     completion IBV_WC_RNR_RETRY_EXC_ERR before its own deadline (exit 1, the write phase
#     skipped). The rxe counters (`snapshot --json`, before/after, on each guest) name the sides:
#     the requester g1 received RNR NAKs (`rcvd_rnr_err`, normalized `rnr_nak_received`) and
#     exhausted its retries (`retry_rnr_exceeded_err`); the responder g2 sent them
#     (`send_rnr_err`, `rnr_nak_sent`); neither counter moves the other way.
#     Diagnosed: `rocehealth record` runs on both guests during step 2 and the probe appends its
#     completions (`probe --record`); `diagnose --replay` of the three recordings reports `rnr`
#     on g1 (error), from the rxe counters and the probe's IBV_WC_RNR_RETRY_EXC_ERR, with g2's
#     RNR NAKs sent as support, and no `retransmits`.
#  3. rnr_retry 7 (retry forever, the default): the same starved receiver makes the probe wait
#     until its deadline and say its SEND was never acknowledged, while g1 received more RNR
#     NAKs than with rnr_retry 1 and never exceeded its retries.
# Prints the counter deltas and latencies it saw.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_counters.sh"
lab_up 2
bin=$(rocehealth_bin) || exit 1
g2=$(lab_ip g2)
out=$RH_LAB_DIR/rnr
mkdir -p "$out"
elapsed_ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# snaps N: rocehealth snapshots of both guests, $out/g1.N.json and $out/g2.N.json.
snaps() { rxe_snap g1 "$out/g1.$1.json"; rxe_snap g2 "$out/g2.$1.json"; }
# d GUEST A B NAME: growth of hw counter NAME on GUEST between snapshots A and B.
d() { rxe_delta "$out/$1.$2.json" "$out/$1.$3.json" "$4"; }
moved() {
  rxe_moved "$out/g1.$1.json" "$out/g1.$2.json" g1; rxe_moved "$out/g2.$1.json" "$out/g2.$2.json" g2
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
snaps 0
json=$(lab_exec g1 --timeout 600 -- "$bin" probe "$g2" --op send --sizes 64,4096,65536 \
  --iterations 50 --warmup 5 --json); rc=$?
echo "$json" | jq -c '.results[] | {op, size_bytes, p50_us, p99_us, checksum_errors, error}' >&2
[ "$rc" = 0 ] || rxe_wire_ok g1 g2 18520 || fail "lab network g1 -> g2 is down, not a probe result"
assert_eq 0 "$rc" "healthy SEND probe: exit status"
assert_eq 64 "$(jq '.remote.recv_depth' <<<"$json")" "responder's receive depth in the report"
assert_eq "send:64 send:4096 send:65536" \
  "$(jq -r '[.results[] | "\(.op):\(.size_bytes)"] | join(" ")' <<<"$json")" "phases run"
assert_eq 0 "$(jq '[.results[] | select(.iterations != 50 or .error)] | length' <<<"$json")" \
  "every SEND phase ran 50 timed iterations without error"
assert_eq "half round trip" "$(jq -r '.results[0].latency_kind' <<<"$json")" "send latency kind"
assert_eq 0 "$(jq '.checksum_errors' <<<"$json")" "SEND checksum errors"
snaps 1
moved 0 1
sends=$(d g1 0 1 rdma_sends)
log "healthy: g1 rdma_sends +$sends"
[ "$sends" -gt 0 ] || fail "g1 rdma_sends did not grow over a SEND probe"
assert_eq 0 "$(d g1 0 1 rcvd_rnr_err)" "healthy: g1 rcvd_rnr_err growth"
assert_eq 0 "$(d g2 0 1 send_rnr_err)" "healthy: g2 send_rnr_err growth"

# --- 2. starved receiver, rnr_retry 1: the error completion ends it, not the 10 s deadline
# Both guests record their counters meanwhile (every 500 ms, from before the probe to after it).
rec1=$(lab spawn g1 -- "$bin" record --out "$out/g1.jsonl" --interval 500ms --host g1) \
  || fail "cannot start the recorder on g1"
rec2=$(lab spawn g2 -- "$bin" record --out "$out/g2.jsonl" --interval 500ms --host g2) \
  || fail "cannot start the recorder on g2"
for _ in $(seq 100); do
  [ -s "$out/g1.jsonl" ] && [ -s "$out/g2.jsonl" ] && break; sleep 0.2
done
sleep 1.5
t0=$(date +%s%N)
json=$(lab_exec g1 --timeout 120 -- "$bin" probe "$g2:18521" --op send,write --sizes 64 \
  --iterations 20 --rnr-retry 1 --timeout-ms 10000 --json --record "$out/g1-probe.jsonl" \
  --host g1); rc=$?
ms=$(elapsed_ms "$t0")
sleep 1.5
lab kill "$rec1" >/dev/null 2>&1; lab kill "$rec2" >/dev/null 2>&1
lab wait "$rec1" --timeout 20 >/dev/null 2>&1; lab wait "$rec2" --timeout 20 >/dev/null 2>&1
echo "$json" | jq -c '{errors, qp, recv_depth: .remote.recv_depth}' >&2
assert_eq 1 "$rc" "probe against recv-depth 0: exit status"
assert_eq 1 "$(jq '.errors | length' <<<"$json")" "one failed phase"
assert_contains "$(jq -r '.errors[0]' <<<"$json")" "IBV_WC_RNR_RETRY_EXC_ERR" "error completion"
assert_match "$(jq -r '.errors[0]' <<<"$json")" "^SEND 64 B message 0: " "the first SEND fails"
assert_eq IBV_WC_RNR_RETRY_EXC_ERR "$(jq -r '.results[0].error_cause' <<<"$json")" \
  "failed phase's cause is the completion status"
assert_eq "send null" "$(jq -r '.results[0] | "\(.op) \(.p50_us)"' <<<"$json")" \
  "failed phase reports no latency"
assert_eq "not run: send 64 B failed before it" "$(jq -r '.results[1].skipped' <<<"$json")" \
  "write phase skipped"
assert_eq 0 "$(jq '.remote.recv_depth' <<<"$json")" "responder says it posts no receives"
assert_eq 1 "$(jq '.qp.rnr_retry' <<<"$json")" "rnr_retry in the report"
log "RNR failure reported in ${ms} ms (incl. lab exec and QP setup; probe deadline 10000 ms)"
[ "$ms" -lt 10000 ] || fail "RNR failure took ${ms} ms: not before the probe's 10000 ms deadline"
snaps 2
moved 1 2
req_rnr=$(d g1 1 2 rcvd_rnr_err)
req_exc=$(d g1 1 2 retry_rnr_exceeded_err)
resp_rnr=$(d g2 1 2 send_rnr_err)
log "rnr_retry 1: requester g1 rcvd_rnr_err +$req_rnr, retry_rnr_exceeded_err +$req_exc;" \
  "responder g2 send_rnr_err +$resp_rnr"
[ "$req_rnr" -gt 0 ] || fail "requester g1 rcvd_rnr_err did not grow"
[ "$req_exc" -gt 0 ] || fail "requester g1 retry_rnr_exceeded_err did not grow"
[ "$resp_rnr" -gt 0 ] || fail "responder g2 send_rnr_err did not grow"
# The vendor-neutral names carry the same counters.
assert_eq "$req_rnr" "$(rxe_ndelta "$out/g1.1.json" "$out/g1.2.json" rnr_nak_received)" \
  "g1 normalized rnr_nak_received = rcvd_rnr_err"
assert_eq "$resp_rnr" "$(rxe_ndelta "$out/g2.1.json" "$out/g2.2.json" rnr_nak_sent)" \
  "g2 normalized rnr_nak_sent = send_rnr_err"
# The direction: the requester never sent an RNR NAK, the responder never received one.
assert_eq 0 "$(d g1 1 2 send_rnr_err)" "requester g1 send_rnr_err growth"
assert_eq 0 "$(d g2 1 2 rcvd_rnr_err)" "responder g2 rcvd_rnr_err growth"
assert_eq 0 "$(d g2 1 2 retry_rnr_exceeded_err)" "responder g2 retry_rnr_exceeded_err growth"

# The same evidence through the rule engine: recordings of both guests and the probe's result.
diag=$("$bin" diagnose --replay "$out/g1.jsonl" --replay "$out/g2.jsonl" \
  --replay "$out/g1-probe.jsonl" --json); drc=$?
jq -c '.findings[] | {rule, host, severity, summary, confidence}' <<<"$diag" >&2
assert_eq 1 "$drc" "diagnose of the RNR recordings: exit status"
assert_eq "rnr@g1/error" "$(jq -r '[.findings[] | "\(.rule)@\(.host)/\(.severity)"] | join(" ")' <<<"$diag")" \
  "the only finding: rnr on the requester g1"
assert_contains "$(jq -r '.findings[0].summary' <<<"$diag")" "not the network" "rnr summary"
assert_contains "$(jq -r '[.findings[0].timeline[].series] | join(" ")' <<<"$diag")" \
  "rnr_nak_sent" "g2's RNR NAKs sent support the finding in its timeline"
assert_contains "$(jq -r '[.findings[0].evidence[] | "\(.name)=\(.value)"] | join(" ")' <<<"$diag")" \
  "status IBV_WC_RNR_RETRY_EXC_ERR)=1 events" "the probe's IBV_WC_RNR_RETRY_EXC_ERR completion is evidence"

# --- 3. rnr_retry 7 = forever: the probe's own deadline ends it
t0=$(date +%s%N)
json=$(lab_exec g1 --timeout 120 -- "$bin" probe "$g2:18521" --op send --sizes 64 \
  --iterations 5 --timeout-ms 3000 --json); rc=$?
ms=$(elapsed_ms "$t0")
echo "$json" | jq -c '{errors, qp}' >&2
assert_eq 1 "$rc" "rnr_retry 7 probe: exit status"
assert_eq 7 "$(jq '.qp.rnr_retry' <<<"$json")" "default rnr_retry"
assert_match "$(jq -r '.errors[0]' <<<"$json")" \
  "^SEND 64 B message 0: wait SEND completion: .*not acknowledged by the peer within 3000 ms" \
  "the deadline and the unacknowledged SEND named"
# Ends at its deadline: 3 s, plus at most 10 s of lab exec and QP setup.
[ "$ms" -lt 13000 ] || fail "rnr_retry 7 probe took ${ms} ms (deadline 3000 ms)"
snaps 3
moved 2 3
req_rnr7=$(d g1 2 3 rcvd_rnr_err)
resp_rnr7=$(d g2 2 3 send_rnr_err)
log "rnr_retry 7 for 3 s: g1 rcvd_rnr_err +$req_rnr7, g2 send_rnr_err +$resp_rnr7, ended after" \
  "${ms} ms"
[ "$req_rnr7" -gt "$req_rnr" ] \
  || fail "g1 rcvd_rnr_err grew by $req_rnr7 retrying forever, not more than $req_rnr with rnr_retry 1"
[ "$resp_rnr7" -gt 0 ] || fail "responder g2 send_rnr_err did not grow"
assert_eq 0 "$(d g1 2 3 retry_rnr_exceeded_err)" "retrying forever never exceeds"

lab kill "$ok_id" >/dev/null 2>&1
lab kill "$rnr_id" >/dev/null 2>&1
rout=$(lab wait "$rnr_id" --timeout 10 2>&1)
assert_contains "$rout" "recv_depth 0: no receives posted, every SEND meets receiver-not-ready" \
  "responder log says why"
pass
