#!/bin/bash
# test_loss.sh -- packet loss on real Soft-RoCE (2 QEMU guests): which rxe counters show the
# retransmits, on which side.
#  1. Baseline: WRITE and READ probes g1 -> g2 without loss; every phase completes.
#  2. `tc qdisc add dev eth0 root netem loss 10%` on g1 (g1's egress only: its requests and its
#     ACKs are lost, g2's packets arrive). The same probes still finish within their deadlines,
#     or name the error completion, and:
#       - g2, receiving the lossy direction, sees gaps: `out_of_seq_request` grows there (a
#         request PSN ahead of the expected one, inside a multi-packet WRITE) and it NAKs them;
#         g1 receives those NAKs: `rcvd_seq_err` grows there. The clean direction (g2 -> g1)
#         shows neither: g1 `out_of_seq_request` and g2 `rcvd_seq_err` stay put;
#       - g1, the requester whose packets vanish, retransmits on its ACK timer:
#         `completer_retry_err` grows more there than over the baseline run;
#       - g2 sees the retransmitted requests it already executed: `duplicate_request` grows;
#       - the probe's worst p99 latency is above the baseline's (NAK round trips, ACK timeouts).
#  3. Diagnosed: both guests `rocehealth record` through steps 1 and 2; `diagnose --replay` of the
#     two recordings reports `retransmits` (and nothing else), opened after the loss began: the
#     baseline alone gives no finding.
#  4. The qdisc is removed; no netem is left on g1.
# Prints every counter delta and the latencies with and without loss.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_counters.sh"
loss=${RH_LOSS_PERCENT:-10}
iters=${RH_LOSS_ITERS:-100}
lab_up 2
bin=$(rocehealth_bin) || exit 1
g2=$(lab_ip g2)
out=$RH_LAB_DIR/loss
mkdir -p "$out"
elapsed_ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
snaps() { rxe_snap g1 "$out/g1.$1.json"; rxe_snap g2 "$out/g2.$1.json"; }
d() { rxe_delta "$out/$1.$2.json" "$out/$1.$3.json" "$4"; }  # d GUEST A B NAME
moved() {  # moved A B LABEL
  rxe_moved "$out/g1.$1.json" "$out/g1.$2.json" "g1 $3"
  rxe_moved "$out/g2.$1.json" "$out/g2.$2.json" "g2 $3"
}
# probe_run: WRITE and READ, 64 B and 16 KiB (4 packets at path MTU 4096), g1 -> g2;
# prints the JSON; the exit status is the probe's.
probe_run() {
  lab_exec g1 --timeout 900 -- "$bin" probe "$g2" --op write,read --sizes 64,16384 \
    --iterations "$iters" --warmup 5 --timeout-ms 5000 --json
}
summary() { jq -c '.results[] | {op, size_bytes, iterations, p50_us, p99_us, max_us, error}'; }

rid=$(lab spawn g2 -- "$bin" responder) || fail "cannot start the responder on g2"
lab_wait_port g2 18520

# Both guests record their counters from before the baseline to after the lossy run.
rec1=$(lab spawn g1 -- "$bin" record --out "$out/g1.jsonl" --interval 1s --host g1) \
  || fail "cannot start the recorder on g1"
rec2=$(lab spawn g2 -- "$bin" record --out "$out/g2.jsonl" --interval 1s --host g2) \
  || fail "cannot start the recorder on g2"

# --- 1. baseline
snaps 0
t0=$(date +%s%N)
base=$(probe_run); rc=$?
ms=$(elapsed_ms "$t0")
summary <<<"$base" >&2
[ "$rc" = 0 ] || rxe_wire_ok g1 g2 18520 || fail "lab network g1 -> g2 is down, not a probe result"
assert_eq 0 "$rc" "baseline probe: exit status"
log "baseline probe: ${ms} ms"
snaps 1
moved 0 1 baseline

# --- 2. netem loss on g1's egress
cleanup_qdisc() { lab_exec g1 -- tc qdisc del dev eth0 root >/dev/null 2>&1; }
trap 'cleanup_qdisc; _rh_cleanup' EXIT
lab_exec g1 -- bash -c "modprobe sch_netem 2>/dev/null; tc qdisc add dev eth0 root netem loss ${loss}%" \
  || fail "g1: cannot add netem (sch_netem module, tc from iproute2)"
qd=$(lab_exec g1 -- tc qdisc show dev eth0)
assert_contains "$qd" "netem" "netem installed on g1 eth0"
assert_contains "$qd" "loss ${loss}%" "netem loss rate"
log "g1 eth0: $qd"
loss_from_ms=$(lab_exec g1 -- date +%s%3N)
t0=$(date +%s%N)
lossy=$(probe_run); rc=$?
ms=$(elapsed_ms "$t0")
summary <<<"$lossy" >&2
log "probe with ${loss}% loss on g1 egress: exit $rc after ${ms} ms"
if [ "$rc" != 0 ]; then
  # Allowed only as a named failure: an error completion (e.g. retries exhausted), not a hang.
  rxe_wire_ok g1 g2 18520 || fail "lab network g1 -> g2 is down, not a probe result"
  assert_eq 1 "$rc" "lossy probe: exit status"
  assert_match "$(jq -r '.errors[0]' <<<"$lossy")" "IBV_WC_[A-Z_]+" "lossy probe names the error"
fi
ran=$(jq '[.results[] | select(.skipped == null)] | length' <<<"$lossy")
[ "$ran" -ge 1 ] || fail "no phase ran under loss"
snaps 2
moved 1 2 lossy
g2_oos=$(d g2 1 2 out_of_seq_request)
g1_seq=$(d g1 1 2 rcvd_seq_err)
g1_oos=$(d g1 1 2 out_of_seq_request)
g2_seq=$(d g2 1 2 rcvd_seq_err)
retry=$(d g1 1 2 completer_retry_err)
base_retry=$(d g1 0 1 completer_retry_err)
dup=$(d g2 1 2 duplicate_request)
g1_exc=$(d g1 1 2 retry_exceeded_err)
log "loss ${loss}% on g1 egress: g2 out_of_seq_request +$g2_oos, g1 rcvd_seq_err +$g1_seq;" \
  "clean direction: g1 out_of_seq_request +$g1_oos, g2 rcvd_seq_err +$g2_seq"
log "g1 completer_retry_err +$retry (baseline +$base_retry), retry_exceeded_err +$g1_exc;" \
  "g2 duplicate_request +$dup"
[ "$g2_oos" -gt 0 ] || fail "g2 (receiver of the lossy direction) out_of_seq_request did not grow"
[ "$g1_seq" -gt 0 ] || fail "g1 (sender of the lossy direction) rcvd_seq_err did not grow"
assert_eq 0 "$g1_oos" "g1 out_of_seq_request growth (g2 -> g1 is not lossy)"
assert_eq 0 "$g2_seq" "g2 rcvd_seq_err growth (g2 -> g1 is not lossy)"
[ "$retry" -gt "$base_retry" ] \
  || fail "g1 (lossy sender) completer_retry_err grew by $retry, not more than baseline $base_retry"
[ "$dup" -gt 0 ] || fail "g2 (receiver of the retransmits) duplicate_request did not grow"
bp99=$(jq '[.results[] | .p99_us // 0] | max' <<<"$base")
lp99=$(jq '[.results[] | .p99_us // 0] | max' <<<"$lossy")
log "worst p99: baseline ${bp99} us, with loss ${lp99} us"
# A lost packet costs a NAK round trip or an ACK timeout: the tail latency shows it.
jq -en --argjson b "$bp99" --argjson l "$lp99" '$l > $b' >/dev/null \
  || fail "worst p99 with loss (${lp99} us) not above the baseline's (${bp99} us)"

# --- 3. the rule engine over both recordings
sleep 2
lab kill "$rec1" >/dev/null 2>&1; lab kill "$rec2" >/dev/null 2>&1
lab wait "$rec1" --timeout 20 >/dev/null 2>&1; lab wait "$rec2" --timeout 20 >/dev/null 2>&1
diag=$("$bin" diagnose --replay "$out/g1.jsonl" --replay "$out/g2.jsonl" --json); drc=$?
jq -c '.findings[] | {rule, host, severity, opened_wall_ms, evidence}' <<<"$diag" >&2
assert_eq 1 "$drc" "diagnose of the loss recordings: exit status"
assert_eq "retransmits" "$(jq -r '[.findings[].rule] | unique | join(" ")' <<<"$diag")" \
  "the findings are retransmits only"
early=$(jq --argjson t "$loss_from_ms" '[.findings[] | select(.opened_wall_ms < $t - 1000)] | length' <<<"$diag")
assert_eq 0 "$early" "no finding opened before the loss began (the baseline is clean)"
log "diagnose: $(jq -r '[.findings[] | "\(.rule)@\(.host)/\(.severity): \(.summary)"] | join("; ")' <<<"$diag")"

# --- 4. clean up: no netem left
cleanup_qdisc
qd=$(lab_exec g1 -- tc qdisc show dev eth0)
case $qd in *netem*) fail "netem still on g1 eth0: $qd" ;; esac
trap _rh_cleanup EXIT
lab kill "$rid" >/dev/null 2>&1
pass
