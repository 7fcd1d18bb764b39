#!/bin/bash
# test_incast.sh -- `rocehealth incast` on real Soft-RoCE: 4 QEMU guests, 3 senders -> 1 receiver,
# coordinated through each guest's `rocehealth responder`. The coordinator runs in g2 (a sender
# too; it also runs the 64 B WRITE victim probe to the receiver).
#  1. Healthy: receiver g1, senders g2,g3,g4, 64 KiB WRITE with immediate, 5 s. Every sender
#     completes with goodput > 0, the receiver verified every slot it got (0 bad), no error
#     completion, Jain's index in (0, 1], a completion spread, the victim's p50/p99 before and
#     during, counters sampled on all 4 hosts, the rule engine ran over them, and the timeline
#     holds the start and each sender's first and last message. (Retransmit findings are allowed
#     here: an rxe receiver at 100% of its one TCG CPU drops frames and its senders retransmit,
#     see tests/lab/README.md; step 5 shows loss is told apart by host.)
#  2. g4 runs no responder: named "unreachable" with its address; g2 and g3 complete; exit 1.
#  3. g4's responder is SIGKILLed 2 s into the traffic: g4 is named "died", g2 and g3 complete,
#     and the coordinator returns within duration + 45 s.
#  4. tbf 20 Mbit/s on an ifb carrying g1's ingress: the victim's p99 rises and the result says
#     so (p99_rose, "rose"), and the aggregate goodput falls below step 1's.
#  5. netem loss 5% on g3's egress: g3's sequence NAKs (rxe rcvd_seq_err -> sequence_errors)
#     rise, more than 3x g2's and g4's (an overloaded receiver drops a few of theirs too), the
#     findings name g3 (retransmits on g3), and g3's goodput is the lowest.
# Prints the figures of each step.
. "$(dirname "$0")/lib.sh"
dur=${RH_INCAST_DURATION:-5s}
lab_up 4
bin=$(rocehealth_bin) || exit 1
g1=$(lab_ip g1); g2=$(lab_ip g2); g3=$(lab_ip g3); g4=$(lab_ip g4)
out=$RH_LAB_DIR/incast
mkdir -p "$out"
declare -A rid
start_responder() {
  rid[$1]=$(lab spawn "$1" -- "$bin" responder) || fail "cannot start the responder on $1"
}
for g in g1 g2 g3 g4; do start_responder $g; done
for g in g1 g2 g3 g4; do lab_wait_port $g 18520; done

# incast FILE ARGS...: runs the coordinator in g2 with --json into FILE; prints its exit status.
incast() {
  local f=$1; shift
  lab_exec g2 --timeout 300 -- "$bin" incast --receiver "$g1" --duration "$dur" --json "$@" \
    >"$f" 2>"$f.err"
  echo $?
}
summary() {
  jq -c '{senders: [.senders[] | {name, status, gbps: (.goodput_gbps * 1000 | round / 1000),
          msgs: .messages_received, bad: .bad_slots, errors, finish_s: .active_s}],
          aggregate_gbps: .aggregate.goodput_gbps, jain: .fairness.jain_index,
          spread_ms: .completion.spread_ms, victim: .victim.verdict, findings}' "$1" >&2
}
status_of() { jq -r --arg n "$2" '.senders[] | select(.name == $n) | .status' "$1"; }
gbps_of() { jq -r --arg n "$2" '.senders[] | select(.name == $n) | .goodput_gbps' "$1"; }
gt() { jq -en --argjson a "$1" --argjson b "$2" '$a > $b' >/dev/null; }

# --- 1. healthy 3 -> 1
t0=$SECONDS
rc=$(incast "$out/healthy.json" --senders "$g2,$g3,$g4")
log "healthy incast: exit $rc after $((SECONDS - t0)) s"
summary "$out/healthy.json"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$out/healthy.json.err" >&2; fail "healthy incast exit $rc"; }
h=$out/healthy.json
assert_eq "completed completed completed" "$(jq -r '[.senders[].status] | join(" ")' "$h")" \
  "every sender completed"
for s in "$g2" "$g3" "$g4"; do
  gt "$(gbps_of "$h" "$s")" 0 || fail "sender $s goodput $(gbps_of "$h" "$s") Gb/s, not > 0"
done
assert_eq 0 "$(jq '.integrity.bad_slots' "$h")" "bad slots"
verified=$(jq '.integrity.messages_verified' "$h")
[ "$verified" -gt 0 ] || fail "no slot verified at the receiver"
assert_eq "{}" "$(jq -c '.errors' "$h")" "no error completion on a healthy incast"
jq -e '.fairness.jain_index > 0 and .fairness.jain_index <= 1' "$h" >/dev/null \
  || fail "Jain's index not in (0, 1]: $(jq '.fairness' "$h")"
jq -e '.completion.spread_ms >= 0' "$h" >/dev/null || fail "no completion spread"
jq -e '.aggregate.goodput_gbps > 0 and .aggregate.link_rate_gbps > 0 and .aggregate.share_of_link > 0' \
  "$h" >/dev/null || fail "aggregate vs link rate missing: $(jq -c '.aggregate' "$h")"
jq -e '.victim.ran and .victim.before.p99_us > 0 and .victim.during.p99_us > 0' "$h" >/dev/null \
  || fail "victim before/during missing: $(jq -c '.victim | {ran, error}' "$h")"
for g in g1 g2 g3 g4; do
  jq -e --arg g "$g" '.activity[$g] | length >= 5' "$h" >/dev/null \
    || fail "counters of $g not sampled every second over the window"
done
jq -e '.diagnosis.hosts | length == 4' "$h" >/dev/null || fail "rule engine did not see 4 hosts"
tl=$(jq -r '[.timeline[] | "\(.host)|\(.text)"] | join("\n")' "$h")
assert_contains "$tl" "|start (3 of 3 senders)" "timeline: the start"
for s in "$g2" "$g3" "$g4"; do
  assert_contains "$tl" "$s|first message posted" "timeline: $s's first message"
  assert_contains "$tl" "$s|last message completed" "timeline: $s's last message"
done
jq -e '.per_second | length >= 4' "$h" >/dev/null || fail "per-second aggregate missing"
log "healthy: aggregate $(jq '.aggregate.goodput_gbps' "$h") Gb/s, Jain $(jq '.fairness.jain_index' "$h"), $verified slots verified, 0 bad"

# --- 2. a sender without a responder
lab kill "${rid[g4]}" >/dev/null 2>&1
lab wait "${rid[g4]}" --timeout 20 >/dev/null 2>&1
t0=$SECONDS
rc=$(incast "$out/unreachable.json" --senders "$g2,$g3,$g4" --no-victim)
secs=$((SECONDS - t0))
summary "$out/unreachable.json"
assert_eq 1 "$rc" "incast with an unreachable sender: exit status"
assert_eq unreachable "$(status_of "$out/unreachable.json" "$g4")" "g4 status"
assert_contains "$(jq -r --arg n "$g4" '.senders[] | select(.name == $n) | .error' "$out/unreachable.json")" \
  "$g4:18520" "the error names g4's address"
for s in "$g2" "$g3"; do
  assert_eq completed "$(status_of "$out/unreachable.json" "$s")" "$s status"
  gt "$(gbps_of "$out/unreachable.json" "$s")" 0 || fail "$s goodput not > 0"
done
log "unreachable g4 named; the others finished in $secs s"

# --- 3. a sender that dies during the traffic
start_responder g4
lab_wait_port g4 18520
errf=$RH_LAB_DIR/g4/cmd/${rid[g4]#*:}.err
t0=$SECONDS
iid=$(lab spawn g2 -- bash -c "'$bin' incast --receiver $g1 --senders $g2,$g3,$g4 --duration 6s --no-victim --json >'$out/died.json' 2>'$out/died.json.err'") \
  || fail "cannot start the incast in g2"
for _ in $(seq 300); do grep -q "incast .*: ready" "$errf" 2>/dev/null && break; sleep 0.1; done
grep -q "incast .*: ready" "$errf" || fail "g4 never became ready: $(tail -3 "$errf")"
sleep 5  # the pre-window (2 s), the start margin (1 s), then 2 s of traffic
lab kill "${rid[g4]}" KILL >/dev/null 2>&1
log "g4's responder killed $((SECONDS - t0)) s after the incast began"
lab wait "$iid" --timeout 120 >/dev/null 2>&1
secs=$((SECONDS - t0))
summary "$out/died.json"
assert_eq died "$(status_of "$out/died.json" "$g4")" "g4 status after its responder was killed"
log "g4: $(jq -r --arg n "$g4" '.senders[] | select(.name == $n) | .error' "$out/died.json")"
for s in "$g2" "$g3"; do
  assert_eq completed "$(status_of "$out/died.json" "$s")" "$s status"
  gt "$(gbps_of "$out/died.json" "$s")" 0 || fail "$s goodput not > 0"
done
[ "$secs" -lt 51 ] || fail "the incast with a dead sender took $secs s (duration 6 s + 45 s)"
log "died g4 named; the coordinator returned $secs s after launch"
start_responder g4
lab_wait_port g4 18520

# --- 4. the receiver's ingress rate-limited: tbf on an ifb
lab_exec g1 -- bash -c 'modprobe ifb numifbs=0 && modprobe -a sch_ingress act_mirred cls_u32 sch_tbf &&
  ip link add ifb0 type ifb && ip link set ifb0 mtu 9000 up &&
  tc qdisc add dev eth0 handle ffff: ingress &&
  tc filter add dev eth0 parent ffff: protocol all u32 match u32 0 0 action mirred egress redirect dev ifb0 &&
  tc qdisc add dev ifb0 root tbf rate 20mbit burst 64kb latency 200ms' \
  || fail "g1: cannot set up tbf on an ifb (ifb, sch_ingress, act_mirred, cls_u32, sch_tbf)"
rc=$(incast "$out/tbf.json" --senders "$g2,$g3,$g4")
lab_exec g1 -- tc -s qdisc show dev ifb0 | head -2 >&2
lab_exec g1 -- bash -c 'tc qdisc del dev eth0 handle ffff: ingress; ip link del ifb0'
summary "$out/tbf.json"
jq -e '.victim.p99_rose == true and .victim.during.p99_us > .victim.before.p99_us' "$out/tbf.json" \
  >/dev/null || fail "victim p99 did not rise under tbf: $(jq -c '.victim.verdict' "$out/tbf.json")"
assert_contains "$(jq -r '.victim.verdict' "$out/tbf.json")" "rose" "the result says the p99 rose"
gt "$(jq '.aggregate.goodput_gbps' "$h")" "$(jq '.aggregate.goodput_gbps' "$out/tbf.json")" \
  || fail "aggregate under tbf not below the healthy run's"
log "tbf: $(jq -r '.victim.verdict' "$out/tbf.json"); aggregate $(jq '.aggregate.goodput_gbps' "$out/tbf.json") Gb/s"

# --- 5. netem loss on one sender
cleanup_qdisc() { lab_exec g3 -- tc qdisc del dev eth0 root >/dev/null 2>&1; }
trap 'cleanup_qdisc; _rh_cleanup' EXIT
lab_exec g3 -- bash -c 'modprobe sch_netem; tc qdisc add dev eth0 root netem loss 5%' \
  || fail "g3: cannot add netem"
rc=$(incast "$out/loss.json" --senders "$g2,$g3,$g4" --no-victim)
cleanup_qdisc
summary "$out/loss.json"
seq_of() { jq --arg g "$2" '[.activity[$g][] | .sequence_errors_per_s // 0] | add' "$1"; }
log "sequence_errors/s summed: g2 $(seq_of "$out/loss.json" g2), g3 $(seq_of "$out/loss.json" g3), g4 $(seq_of "$out/loss.json" g4)"
# An overloaded rxe receiver drops now and then for everyone; the lossy sender's NAKs stand out.
s2=$(seq_of "$out/loss.json" g2); s3=$(seq_of "$out/loss.json" g3); s4=$(seq_of "$out/loss.json" g4)
jq -en --argjson a "$s3" --argjson b "$s2" --argjson c "$s4" '$a >= 5 and $a > 3 * ([$b, $c] | max)' \
  >/dev/null || fail "g3's sequence errors ($s3/s) do not stand out from g2's ($s2) and g4's ($s4)"
assert_contains " $(jq -r '.findings | join(" ")' "$out/loss.json") " " retransmits@g3 " \
  "the findings name the lossy sender g3"
for s in "$g2" "$g4"; do
  gt "$(gbps_of "$out/loss.json" "$s")" "$(gbps_of "$out/loss.json" "$g3")" \
    || fail "lossy g3's goodput not below $s's"
done
trap _rh_cleanup EXIT
for g in g1 g2 g3 g4; do lab kill "${rid[$g]}" >/dev/null 2>&1; done
pass
