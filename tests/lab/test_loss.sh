#!/bin/bash
# test_loss.sh -- packet loss on real Soft-RoCE (2 QEMU guests): which rxe counters show the
# retransmits, on which side.
#  1. Baseline: WRITE and READ probes g1 -> g2 without loss; every phase completes.
#  2. `tc qdisc add dev eth0 root netem loss 10%` on g1 (g1's egress only: its requests and its
#     ACKs are lost, g2's packets arrive). The same probes still finish within their deadlines,
#     or name the error completion, and:
#       - g1, the requester whose packets vanish, retransmits on its ACK timer:
#         `completer_retry_err` grows there;
#       - g2, the responder, sees the gaps and the repeats: `out_of_seq_request` (a request PSN
#         ahead of the expected one, for multi-packet messages) and `duplicate_request` (a
#         retransmitted request it already executed, when g1's ACK was the packet lost) grow;
#       - the probe's p99 latency rises above the baseline's (a retransmit waits the ACK timeout).
#  3. The qdisc is removed; no netem is left on g1.
# Prints every counter delta and the latencies with and without loss.
. "$(dirname "$0")/lib.sh"
loss=${RH_LOSS_PERCENT:-10}
iters=${RH_LOSS_ITERS:-100}
lab_up 2
bin=$(rocehealth_bin) || exit 1
g2=$(lab_ip g2)
out=$RH_LAB_DIR/loss
mkdir -p "$out"
elapsed_ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

snap() { lab_exec "$1" -- "$bin" snapshot --device rxe0 --json >"$2" || fail "$1: snapshot --json"; }
delta() {  # delta BEFORE AFTER NAME: growth of rxe0 port 1 hw counter NAME; missing fails
  local d
  d=$(jq -n --slurpfile a "$1" --slurpfile b "$2" --arg n "$3" '
    def v(s): [s[0].devices[] | select(.name == "rxe0") | .ports[0].hw_counters[]
               | select(.name == $n) | .value][0];
    if (v($a) | type) == "number" and (v($b) | type) == "number" then v($b) - v($a)
    else "missing" end') || fail "jq on $1 $2"
  [ "$d" != '"missing"' ] || fail "rxe0 hw counter $3 missing in $2"
  echo "$d"
}
show() {  # show BEFORE AFTER LABEL: every hw counter that moved
  jq -rn --slurpfile a "$1" --slurpfile b "$2" --arg g "$3" '
    def m(s): [s[0].devices[] | select(.name == "rxe0") | .ports[0].hw_counters[]
               | {(.name): .value}] | add;
    m($a) as $x | m($b) as $y
    | [$y | to_entries[] | select(.value != $x[.key]) | "\(.key) +\(.value - $x[.key])"]
    | "\($g) rxe0 hw_counters moved: " + (if length == 0 then "none" else join(", ") end)' >&2
}
# probe_run LABEL: WRITE and READ, 64 B and 16 KiB (4 packets at path MTU 4096), g1 -> g2;
# prints the JSON; the exit status is the probe's.
probe_run() {
  lab_exec g1 --timeout 900 -- "$bin" probe "$g2" --op write,read --sizes 64,16384 \
    --iterations "$iters" --warmup 5 --timeout-ms 5000 --json
}
summary() { jq -c '.results[] | {op, size_bytes, iterations, p50_us, p99_us, max_us, error}'; }

rid=$(lab spawn g2 -- "$bin" responder) || fail "cannot start the responder on g2"
lab_wait_port g2 18520

# --- 1. baseline
snap g1 "$out/g1.0.json"; snap g2 "$out/g2.0.json"
base=$(probe_run); rc=$?
summary <<<"$base" >&2
assert_eq 0 "$rc" "baseline probe: exit status"
snap g1 "$out/g1.1.json"; snap g2 "$out/g2.1.json"
show "$out/g1.0.json" "$out/g1.1.json" "g1 baseline"; show "$out/g2.0.json" "$out/g2.1.json" "g2 baseline"
base_retry=$(delta "$out/g1.0.json" "$out/g1.1.json" completer_retry_err)

# --- 2. netem loss on g1's egress
cleanup_qdisc() { lab_exec g1 -- tc qdisc del dev eth0 root >/dev/null 2>&1; }
trap 'cleanup_qdisc; _rh_cleanup' EXIT
lab_exec g1 -- bash -c "modprobe sch_netem 2>/dev/null; tc qdisc add dev eth0 root netem loss ${loss}%" \
  || fail "g1: cannot add netem (sch_netem module, tc from iproute2)"
qd=$(lab_exec g1 -- tc qdisc show dev eth0)
assert_contains "$qd" "netem" "netem installed on g1 eth0"
assert_contains "$qd" "loss ${loss}%" "netem loss rate"
log "g1 eth0: $qd"
t0=$(date +%s%N)
lossy=$(probe_run); rc=$?
ms=$(elapsed_ms "$t0")
summary <<<"$lossy" >&2
log "probe with ${loss}% loss on g1 egress: exit $rc after ${ms} ms"
if [ "$rc" != 0 ]; then
  # Allowed only as a named failure: an error completion (e.g. retries exhausted), not a hang.
  assert_eq 1 "$rc" "lossy probe: exit status"
  assert_match "$(jq -r '.errors[0]' <<<"$lossy")" "IBV_WC_[A-Z_]+" "lossy probe names the error"
fi
ran=$(jq '[.results[] | select(.skipped == null)] | length' <<<"$lossy")
[ "$ran" -ge 1 ] || fail "no phase ran under loss"
snap g1 "$out/g1.2.json"; snap g2 "$out/g2.2.json"
show "$out/g1.1.json" "$out/g1.2.json" "g1 lossy"; show "$out/g2.1.json" "$out/g2.2.json" "g2 lossy"
retry=$(delta "$out/g1.1.json" "$out/g1.2.json" completer_retry_err)
oos=$(delta "$out/g2.1.json" "$out/g2.2.json" out_of_seq_request)
dup=$(delta "$out/g2.1.json" "$out/g2.2.json" duplicate_request)
g1_seq=$(delta "$out/g1.1.json" "$out/g1.2.json" rcvd_seq_err)
g1_exc=$(delta "$out/g1.1.json" "$out/g1.2.json" retry_exceeded_err)
log "loss ${loss}%: g1 completer_retry_err +$retry (baseline +$base_retry), rcvd_seq_err +$g1_seq," \
  "retry_exceeded_err +$g1_exc; g2 out_of_seq_request +$oos, duplicate_request +$dup"
[ "$retry" -gt "$base_retry" ] \
  || fail "g1 (lossy sender) completer_retry_err grew by $retry, not more than baseline $base_retry"
[ "$oos" -ge 1 ] || fail "g2 (receiver of the gaps) out_of_seq_request did not grow"
[ "$dup" -ge 1 ] || fail "g2 (receiver of the retransmits) duplicate_request did not grow"
bp99=$(jq '[.results[] | .p99_us // 0] | max' <<<"$base")
lp99=$(jq '[.results[] | .p99_us // 0] | max' <<<"$lossy")
log "worst p99: baseline ${bp99} us, with loss ${lp99} us"

# --- 3. clean up: no netem left
cleanup_qdisc
qd=$(lab_exec g1 -- tc qdisc show dev eth0)
case $qd in *netem*) fail "netem still on g1 eth0: $qd" ;; esac
trap _rh_cleanup EXIT
lab kill "$rid" >/dev/null 2>&1
pass
