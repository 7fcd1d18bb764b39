#!/bin/bash
# test_accept.sh -- `rocehealth accept --spec` on real Soft-RoCE: 3 QEMU guests, each running
# `rocehealth responder`; the runner runs in g1 with tests/lab/accept-lab-spec.json (criteria tuned
# for the lab: rxe in TCG is ~100x slower than hardware, and its tail is long: a 64 B WRITE
# p50 of 0.2-4 ms with a p99 up to ~25 ms over 50 iterations; 1 MiB p99 ~260 ms alone, 650 ms
# on a loaded CI machine: the healthy bounds are 4x / 3x beyond what was seen).
#  1. Healthy: exit 0, verdict pass; inventory has 3 hosts and every must-match fact consistent;
#     all 6 ordered pairs measured for WRITE and READ at 4 sizes with p50/p99/p99.9; bandwidth
#     for 3 ring pairs, one at a time and all at once (concurrency); the incast g1,g3 -> g2 with the victim (g1 -> g2) and fairness;
#     the controlled fault: g3 (its responder started with --allow-fault) takes eth0 down for
#     3 s: link and traffic (g3 -> g1) recovery measured, traffic after the link, link_flap on g3
#     found by the rules, eth0 up again afterwards; rkey revocation ends
#     IBV_WC_REM_ACCESS_ERR for WRITE and READ on every host; report.html/.md written;
#     the latency stage's counters were sampled (timelines); samples.jsonl replays with `diagnose --replay` (exit 0 or 1, not 2). Prints the time.
#  1b. The same run (fewer stages) stopped by SIGTERM during bandwidth: exit 2 within seconds,
#     report.json incomplete naming bandwidth, inventory and latency results kept, html/md
#     written, stderr had a timestamped line per stage and pair and says where the report is.
#  2. g3 at MTU 1500: the inventory stage fails, naming g3 for netdev_mtu_bytes and
#     active_mtu_bytes; exit 1.
#  3. netem loss 5% on g3's egress (latency stage only): exit 1, the latency stage fails and
#     carries the retransmits finding on g3 (its counters are sampled during the stage).
#  4. A bad spec: exit 2, the field named.
#  5. A fault on g2, whose responder does not allow faults: exit 2, the fault stage `error` naming
#     --allow-fault, and g2's link never went down.
#  6. g3's responder is killed (SIGKILL) while its link is down for a 60 s fault: its link guard
#     process sets eth0 up within seconds; the acceptance ends incomplete (exit 2) naming g3.
. "$(dirname "$0")/lib.sh"
lab_up 3
bin=$(rocehealth_bin) || exit 1
g1=$(lab_ip g1); g2=$(lab_ip g2); g3=$(lab_ip g3)
out=$RH_LAB_DIR/accept
mkdir -p "$out"
sed -e "s/@G1@/$g1/; s/@G2@/$g2/; s/@G3@/$g3/" "$RH_REPO/tests/lab/accept-lab-spec.json" >"$out/spec.json"
declare -A rid
for g in g1 g2 g3; do
  allow=; [ $g = g3 ] && allow=--allow-fault  # only g3 consents to the fault stage
  rid[$g]=$(lab spawn "$g" -- "$bin" responder $allow) || fail "cannot start the responder on $g"
done
for g in g1 g2 g3; do lab_wait_port $g 18520; done

# accept DIR SPEC: runs the acceptance in g1; prints its exit status.
accept() {
  lab_exec g1 --timeout 900 -- env ${qp_env:-} "$bin" accept --spec "$2" --out "$1" >"$1.out" 2>"$1.err"
  echo $?
}
r() { jq -r "$2" "$1/report.json"; }
# linkmon G TAG: records G's link events (the kernel's own account, not rocehealth's) in the
# guest's /tmp/linkmon.TAG; linkdowns G TAG: how many "eth0 ... state DOWN" events it saw.
linkmon() { lab spawn "$1" -- sh -c "exec ip -o monitor link >/tmp/linkmon.$2 2>&1" >/dev/null || fail "$1: ip monitor"; }
linkdowns() { lab_exec "$1" -- cat "/tmp/linkmon.$2" | grep -c 'eth0:.*state DOWN'; }
stage() { jq -c --arg id "$2" '.stages[] | select(.id == $id)' "$1/report.json"; }

# --- 1. healthy
linkmon g3 healthy
# Network setup an admin down deletes (a cable pull would not): the fault must put it back.
lab_exec g3 -- sh -c 'ip route add 10.200.0.0/24 via 10.99.0.11 dev eth0 && ip -6 addr add fd00:99::13/64 dev eth0 nodad' \
  || fail "g3: cannot add the static route and IPv6 address"
t0=$SECONDS
rc=$(accept "$out/healthy" "$out/spec.json")
secs=$((SECONDS - t0))
cat "$out/healthy.out" >&2
h=$out/healthy
[ -f "$h/report.json" ] || { cat "$h.err" >&2; fail "no report.json (exit $rc)"; }
jq -c '.stages[] | {id, verdict, reason: .reason[0:120], failed: [.criteria[] | select(.pass | not) | {name, measured, threshold}]}' "$h/report.json" >&2
assert_eq 0 "$rc" "healthy acceptance exit status"
assert_eq pass "$(r "$h" .verdict)" "verdict"
for f in report.html report.md samples.jsonl raw/inventory.json raw/latency.json raw/rkey_revocation.json raw/fault.json; do
  [ -s "$h/$f" ] || fail "$f missing or empty"
done
inv=$(stage "$h" inventory)
assert_eq "g1 g2 g3" "$(jq -r '[.results.hosts[].host] | join(" ")' <<<"$inv")" "inventory hosts"
assert_eq "[]" "$(jq -c '[.results.consistency[] | select(.must_match and (.consistent | not))]' <<<"$inv")" \
  "no inconsistent must-match fact"
assert_eq 9000 "$(jq -r '.results.hosts[0].nics[0].netdev_mtu_bytes' <<<"$inv")" "g1 netdev MTU"
assert_eq 4096 "$(jq -r '.results.hosts[0].nics[0].active_mtu_bytes' <<<"$inv")" "g1 active_mtu"
assert_eq v2 "$(jq -r '.results.hosts[0].nics[0].roce_version' <<<"$inv")" "g1 RoCE version"
lat=$(stage "$h" idle_latency)
# p99.9 needs >= 1000 iterations (null below: nearest rank would make it the maximum)
assert_eq 48 "$(jq '[.results.latency[] | select(.p50_us > 0 and .p99_us >= .p50_us and (.p999_us == null or .p999_us >= .p99_us))] | length' <<<"$lat")" \
  "latency rows with 0 < p50 <= p99 (<= p99.9) (6 pairs x 2 ops x 4 sizes)"
assert_eq 6 "$(jq '[.results.latency[] | "\(.src)>\(.dst)"] | unique | length' <<<"$lat")" "ordered pairs"
# each row's CDF is the measured one: 50 iterations -> every sample, from p50 <= ... to 1
assert_eq 48 "$(jq '[.results.latency[] | select((.cdf | length) == 50 and .cdf[-1][1] == 1 and .cdf[-1][0] == .max_us and .cdf[0][0] == .min_us)] | length' <<<"$lat")" \
  "latency rows carrying their measured CDF (50 points, min to max)"
jq -e '.counter_timelines | length > 0' <<<"$lat" >/dev/null || fail "latency stage without counter timelines"
log "64 B WRITE p99 per pair (us): $(jq -c '[.results.latency[] | select(.op == "write" and .size_bytes == 64) | {(.src + ">" + .dst): .p99_us}] | add' <<<"$lat")"
bw=$(stage "$h" bandwidth)
assert_eq 3 "$(jq '[.results.pairs[] | select(.gbps > 0 and .fraction > 0)] | length' <<<"$bw")" "bandwidth pairs measured"
log "bandwidth: $(jq -c '[.results.pairs[] | {(.src + ">" + .dst): .gbps}] | add' <<<"$bw") Gb/s, link $(jq '.results.pairs[0].link_gbps' <<<"$bw") Gb/s"
con=$(stage "$h" concurrency)
assert_eq 3 "$(jq '[.results.flows[] | select(.gbps > 0)] | length' <<<"$con")" "concurrent flows measured"
jq -e '.results.jain_index > 0 and .results.aggregate_gbps > 0' <<<"$con" >/dev/null \
  || fail "concurrency aggregate/Jain missing: $(jq -c '.results' <<<"$con")"
log "concurrency: $(jq -c '[.results.flows[] | {(.src + ">" + .dst): .gbps}] | add' <<<"$con") Gb/s, Jain $(jq '.results.jain_index' <<<"$con"); $(jq -r '.reason' <<<"$con")"
inc=$(stage "$h" incast)
assert_eq "g1 g3" "$(jq -r '[.results.senders[].host] | join(" ")' <<<"$inc")" "incast senders (to g2)"
jq -e '.results.jain_index > 0 and .results.victim.before.p99_us > 0 and .results.victim.during.p99_us > 0' <<<"$inc" >/dev/null \
  || fail "incast fairness/victim missing: $(jq -c '.results | {jain_index, victim}' <<<"$inc")"
jq -e '.counter_timelines | length > 0' <<<"$inc" >/dev/null || fail "incast without counter timelines"
log "incast: aggregate $(jq '.results.aggregate_goodput_gbps // .results.aggregate.goodput_gbps' <<<"$inc") Gb/s, Jain $(jq '.results.jain_index' <<<"$inc"), victim p99 $(jq '.results.victim.before.p99_us' <<<"$inc") -> $(jq '.results.victim.during.p99_us' <<<"$inc") us"
ft=$(stage "$h" fault)
assert_eq "pass g3 eth0 g1" "$(jq -r '"\(.verdict) \(.results.host) \(.results.netdev) \(.results.traffic_dst)"' <<<"$ft")" \
  "fault stage: g3's eth0 taken down, traffic to g1"
jq -e '.results | .link_up_s - .link_down_s >= 2.9 and .link_recovery_s >= 0 and .traffic_recovery_s >= .link_recovery_s and .traffic_attempts >= 1 and .recovered_p50_us > 0' \
  <<<"$ft" >/dev/null || fail "fault results inconsistent: $(jq -c .results <<<"$ft")"
assert_contains " $(jq -r '[.findings[] | "\(.rule)@\(.host)"] | join(" ")' <<<"$ft") " " link_flap@g3 " \
  "the rules saw g3's link flap"
assert_eq "UP" "$(lab_exec g3 -- cat /sys/class/net/eth0/operstate | tr a-z A-Z)" "g3's eth0 is up again"
assert_eq 1 "$(linkdowns g3 healthy)" "eth0 DOWN events in g3's kernel (ip monitor)"
assert_contains "$(lab_exec g3 -- ip route show 10.200.0.0/24)" "via 10.99.0.11" "g3's static route is back"
assert_contains "$(lab_exec g3 -- ip -6 addr show dev eth0)" "fd00:99::13/64" "g3's IPv6 address is back"
assert_contains "$(jq -r '.results.restored | join(";")' <<<"$ft")" "route 10.200.0.0/24 via 10.99.0.11 table 254" \
  "the report lists the route it put back"
assert_eq "[]" "$(jq -c .results.setup_changes <<<"$ft")" "nothing left changed (GIDs included)"
log "fault: link recovery $(jq .results.link_recovery_s <<<"$ft") s, traffic recovery $(jq .results.traffic_recovery_s <<<"$ft") s after $(jq .results.traffic_attempts <<<"$ft") connection(s); 64 B WRITE p50 $(jq .results.baseline_p50_us <<<"$ft") -> $(jq .results.recovered_p50_us <<<"$ft") us"
rk=$(stage "$h" rkey_revocation)
assert_eq "6 IBV_WC_REM_ACCESS_ERR" "$(jq -r '[.results.attempts[].got_status] | "\(length) \(unique | join(","))"' <<<"$rk")" \
  "rkey revocation: WRITE and READ on 3 hosts end IBV_WC_REM_ACCESS_ERR"
"$bin" diagnose --replay "$h/samples.jsonl" >"$h/diagnose.txt" 2>&1; drc=$?
[ "$drc" = 0 ] || [ "$drc" = 1 ] || { tail -5 "$h/diagnose.txt" >&2; fail "diagnose --replay samples.jsonl: exit $drc"; }
log "healthy 3-guest acceptance: pass in $secs s; diagnose --replay of its samples: exit $drc"
# Keep the report (the lab dir goes away) and show it in headless Chromium when there is one.
keep=${RH_ACCEPT_KEEP:-/tmp/rocehealth-accept-lab}
rm -rf "$keep" && mkdir -p "$keep" && cp -r "$h"/. "$keep"/ || fail "cannot copy the report to $keep"
if command -v chromium >/dev/null; then
  prof=$(mktemp -d)
  timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$prof" --window-size=1280,2400 --screenshot="$keep/report.png" \
    "file://$keep/report.html" >/dev/null 2>&1
  timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$prof" --dump-dom "file://$keep/report.html" >"$keep/dom.html" 2>/dev/null
  rm -rf "$prof"
  [ -s "$keep/report.png" ] || fail "no screenshot of report.html"
  grep -q "Verdict: pass" "$keep/dom.html" || fail "report.html in Chromium does not show the pass verdict"
  log "report kept in $keep; screenshot $keep/report.png"
else
  log "report kept in $keep (chromium not installed: no screenshot)"
fi

# --- 1b. SIGTERM part-way (a CI job timeout): the run stops within seconds and still writes an
# incomplete report naming the stage it cut short, keeping what the stages before it measured;
# stderr (a file: not a TTY) had a timestamped line per stage and pair.
jq '.stages = ["inventory", "idle_latency", "bandwidth", "concurrency"]
    | .latency.ops = ["write"] | .latency.sizes = [64] | .latency.iterations = 20
    | .bandwidth.duration_s = 6' "$out/spec.json" >"$out/spec-sigterm.json"
st=$out/sigterm
kid=$(lab spawn g1 -- sh -c "exec '$bin' accept --spec '$out/spec-sigterm.json' --out '$st' >'$st.out' 2>'$st.err'") \
  || fail "cannot start the acceptance to interrupt"
t0=$SECONDS
until grep -q '\[bandwidth\] ' "$st.err" 2>/dev/null || [ $((SECONDS - t0)) -ge 180 ]; do sleep 0.2; done
grep -q '\[bandwidth\] ' "$st.err" || { cat "$st.err" >&2; fail "the bandwidth stage did not start within 180 s"; }
sleep 2  # into the first pair's run
lab kill "$kid" TERM >/dev/null || fail "cannot SIGTERM the acceptance"
t_term=$SECONDS
lab wait "$kid" --timeout 60 >/dev/null 2>&1; rc=$?
stop_s=$((SECONDS - t_term))
cat "$st.out" "$st.err" >&2
assert_eq 2 "$rc" "acceptance stopped by SIGTERM: exit status"
[ $stop_s -le 10 ] || fail "the acceptance took $stop_s s to stop after SIGTERM"
[ -f "$st/report.json" ] || fail "no report.json after SIGTERM"
assert_eq incomplete "$(r "$st" .verdict)" "verdict after SIGTERM"
assert_eq "bandwidth signal" "$(r "$st" '"\(.interrupted.stage) \(.interrupted.cause)"')" "the interrupted stage and cause"
assert_contains "$(r "$st" .interrupted.reason)" "interrupted by SIGTERM" "the reason names the signal"
assert_eq "pass pass error not_run skipped" \
  "$(r "$st" '[.stages[] | select(.id == ("inventory", "idle_latency", "bandwidth", "concurrency", "incast")) | .verdict] | join(" ")')" \
  "stage verdicts: finished, finished, cut short, not run, not in the spec"
assert_contains "$(jq -r .reason <<<"$(stage "$st" bandwidth)")" "interrupted by SIGTERM" "the bandwidth stage says why it stopped"
assert_eq 3 "$(jq '.results.hosts | length' <<<"$(stage "$st" inventory)")" "inventory results kept"
assert_eq 6 "$(jq '[.results.latency[] | select(.p50_us > 0)] | length' <<<"$(stage "$st" idle_latency)")" \
  "latency results kept (6 pairs, 64 B WRITE)"
for f in report.html report.md samples.jsonl; do [ -s "$st/$f" ] || fail "$f missing after SIGTERM"; done
grep -q 'INCOMPLETE' "$st/report.html" || fail "report.html does not say INCOMPLETE"
assert_contains "$(cat "$st/report.md")" "**Interrupted**: interrupted by SIGTERM" "report.md names the interruption"
assert_contains "$(cat "$st.err")" "the incomplete report is in $st" "stderr says where the report is"
ts='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z accept: '
grep -Eq "${ts}stage idle_latency started" "$st.err" || fail "no timestamped stage start line on stderr"
grep -Eq "${ts}stage idle_latency ended: pass" "$st.err" || fail "no timestamped stage end line on stderr"
assert_eq 6 "$(grep -Ec "${ts}\[idle_latency\] g[123] -> g[123]$" "$st.err")" "timestamped lines, one per latency pair"
log "SIGTERM during bandwidth: exit 2 after $stop_s s, incomplete report; $(r "$st" .interrupted.reason)"

# --- 2. g3 at MTU 1500
lab_exec g3 -- ip link set eth0 mtu 1500 || fail "cannot set g3's MTU"
jq '.stages = ["inventory"]' "$out/spec.json" >"$out/spec-inventory.json"
rc=$(accept "$out/mtu" "$out/spec-inventory.json")
lab_exec g3 -- ip link set eth0 mtu 9000
cat "$out/mtu.out" >&2
assert_eq 1 "$rc" "acceptance with g3 at MTU 1500: exit status"
assert_eq fail "$(r "$out/mtu" '.stages[] | select(.id == "inventory") | .verdict')" "inventory stage verdict"
for fact in netdev_mtu_bytes active_mtu_bytes; do
  assert_eq '["g3"]' "$(r "$out/mtu" ".stages[] | select(.id == \"inventory\") | .results.consistency[] | select(.fact == \"$fact\") | .differing_hosts" | jq -c .)" \
    "$fact names g3"
done
assert_contains "$(cat "$out/mtu.out")" "failed: hosts differing on netdev_mtu_bytes (g3)" "the summary names g3"

# --- 3. netem loss on g3's egress: the latency stage fails (p99 bound: each loss costs a
# retransmit timeout) with the retransmits finding on g3 attached to it
cleanup_qdisc() { lab_exec g3 -- tc qdisc del dev eth0 root >/dev/null 2>&1; }
trap 'cleanup_qdisc; _rh_cleanup' EXIT
# The lab's QP timeout (18 = 1.07 s, tests/lab/README.md) makes each loss cost a second and keeps
# the retransmit rate under the rule's threshold; a fabric with hardware's default (14 = 67 ms)
# retransmits at the rate the rule is for: every responder and the runner use 14 here.
qp_env=ROCEHEALTH_QP_TIMEOUT=14
for g in g1 g2 g3; do
  lab kill "${rid[$g]}" >/dev/null 2>&1; lab wait "${rid[$g]}" --timeout 20 >/dev/null 2>&1
  rid[$g]=$(lab spawn "$g" -- env $qp_env "$bin" responder) || fail "cannot restart the responder on $g"
done
for g in g1 g2 g3; do lab_wait_port $g 18520; done
lab_exec g3 -- bash -c 'modprobe sch_netem; tc qdisc add dev eth0 root netem loss 5%' \
  || fail "g3: cannot add netem"
# Bounds a loss must cross (each costs a 67 ms retransmit timeout), above the healthy tail.
jq '.stages = ["idle_latency"] | .latency.sizes = [64, 4096]
    | .criteria.p99_latency_us = {"64": 50000, "4096": 50000}' "$out/spec.json" >"$out/spec-loss.json"
rc=$(accept "$out/loss" "$out/spec-loss.json")
cleanup_qdisc
trap _rh_cleanup EXIT
cat "$out/loss.out" >&2
loss=$(stage "$out/loss" idle_latency)
jq -c '{failed: [.criteria[] | select(.pass | not) | .name], findings: [.findings[] | "\(.rule)@\(.host) \(.severity)"]}' <<<"$loss" >&2
assert_eq 1 "$rc" "acceptance with 5% loss on g3: exit status"
assert_eq fail "$(jq -r .verdict <<<"$loss")" "latency stage verdict under loss"
assert_contains " $(jq -r '[.findings[] | "\(.rule)@\(.host)"] | join(" ")' <<<"$loss") " " retransmits@g3 " \
  "the latency stage carries the retransmits finding on g3"

# --- 4. a bad spec
echo '{"hosts": [{"address": "'"$g1"'"}], "criteria": {"min_bandwith_fraction": 1}}' >"$out/bad.json"
rc=$(accept "$out/bad" "$out/bad.json")
assert_eq 2 "$rc" "bad spec: exit status"
assert_contains "$(cat "$out/bad.err")" "criteria.min_bandwith_fraction: unknown field" "the bad field is named"

# --- 5. a fault where the responder did not consent (g2 runs without --allow-fault)
linkmon g2 noconsent
jq '.stages = ["fault"] | .fault = {"host": "g2", "peer": "g1", "down_s": 2}' "$out/spec.json" >"$out/spec-noconsent.json"
rc=$(accept "$out/noconsent" "$out/spec-noconsent.json")
cat "$out/noconsent.out" >&2
assert_eq 2 "$rc" "fault without consent: exit status (incomplete)"
assert_eq error "$(r "$out/noconsent" '.stages[] | select(.id == "fault") | .verdict')" "fault stage verdict without consent"
assert_contains "$(r "$out/noconsent" '.stages[] | select(.id == "fault") | .reason')" "--allow-fault" "the reason says how to consent"
assert_eq 0 "$(linkdowns g2 noconsent)" "eth0 DOWN events in g2's kernel: its link never went down"

# --- 6. the responder dies while its link is down: the guard process restores the link
eth0_state() { lab_exec g3 -- cat /sys/class/net/eth0/operstate; }
lab kill "${rid[g3]}" >/dev/null 2>&1; lab wait "${rid[g3]}" --timeout 20 >/dev/null 2>&1
rid[g3]=$(lab spawn g3 -- "$bin" responder --allow-fault) || fail "cannot restart g3's responder"
lab_wait_port g3 18520
jq '.stages = ["fault"] | .fault.down_s = 60' "$out/spec.json" >"$out/spec-kill.json"
kid=$(lab spawn g1 -- sh -c "exec '$bin' accept --spec '$out/spec-kill.json' --out '$out/kill' >'$out/kill.out' 2>'$out/kill.err'") \
  || fail "cannot start the acceptance"
t0=$SECONDS
until [ "$(eth0_state)" = down ] || [ $((SECONDS - t0)) -ge 60 ]; do sleep 0.5; done
assert_eq down "$(eth0_state)" "g3's eth0 went down for the 60 s fault"
lab kill "${rid[g3]}" KILL >/dev/null || fail "cannot SIGKILL g3's responder"
t0=$SECONDS
until [ "$(eth0_state)" = up ] || [ $((SECONDS - t0)) -ge 20 ]; do sleep 0.5; done
back=$((SECONDS - t0))
assert_eq up "$(eth0_state)" "g3's eth0 is up again after its responder was killed"
[ $back -le 10 ] || fail "the guard took ${back} s to set g3's eth0 up (the fault had 60 s to go)"
lab wait "$kid" --timeout 120 >/dev/null 2>&1
[ -f "$out/kill/report.json" ] || { cat "$out/kill.err" >&2; fail "no report after the fault host died"; }
assert_eq incomplete "$(r "$out/kill" .verdict)" "acceptance whose fault host died: verdict"
assert_contains "$(r "$out/kill" '.stages[] | select(.id == "fault") | .reason')" "g3" "the fault stage names g3"
log "g3's responder killed while its link was down: eth0 up again after ${back} s (guard)"

for g in g1 g2 g3; do lab kill "${rid[$g]}" >/dev/null 2>&1; done
pass
