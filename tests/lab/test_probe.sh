#!/bin/bash
# test_probe.sh -- `rocehealth probe` / `responder` on real Soft-RoCE (2 QEMU guests):
#  1. WRITE and READ latency for every default size, 0 checksum errors, exit 0; rxe0 packet
#     counters (responder rcvd_pkts, client sent_pkts) grow by at least the probe's message count.
#  2. A probe to a guest with no responder (refused) and to an address nobody answers (silent)
#     fails with exit 2 and a clear error within its deadline.
#  3. Garbage, a truncated handshake and a silent client on the responder's port are logged and
#     the responder keeps serving the next real probe.
#  4a. The control channel: every command but hello refused without the fabric key, a client
#     written from the protocol text proves the lab's key, a protocol-4 client and another key
#     are refused, failed proofs rate-limited (latency probes still served), SIGHUP rotation.
#  4. A responder killed mid-run makes the client fail cleanly (exit 1) within its deadline.
# Prints the measured latencies (p50/p99 per op and size).
. "$(dirname "$0")/lib.sh"
iters=${RH_PROBE_ITERS:-20}
lab_up 2
bin=$(rocehealth_bin) || exit 1
g1=$(lab_ip g1)
cnt=/sys/class/infiniband/rxe0/ports/1/hw_counters
counter() { lab_exec "$1" -- cat "$cnt/$2" || fail "$1: cannot read $cnt/$2"; }
elapsed_ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

rid=$(lab spawn g1 -- "$bin" responder) || fail "cannot start responder on g1"
lab_wait_port g1 18520

# --- 1. all default sizes, both ops
# rxe's retransmit traces, summed over both guests: the Soft-RoCE stall's signature (below).
rxe_retries() {
  local g n sum=0
  for g in g1 g2; do
    for n in completer_retry_err duplicate_request out_of_seq_request rcvd_seq_err; do sum=$((sum + $(counter $g $n))); done
  done
  echo $sum
}
probe_all_sizes() {  # sets json, rc and err (the probe's stderr)
  json=$(lab_exec g2 --timeout 900 -- "$bin" probe "$g1" --iterations "$iters" --warmup 5 --json \
    2>"$RH_LAB_DIR/probe1.err"); rc=$?
  err=$(cat "$RH_LAB_DIR/probe1.err"); [ -z "$err" ] || echo "$err" >&2
}
retries0=$(rxe_retries)
rx0=$(counter g1 rcvd_pkts); tx0=$(counter g2 sent_pkts)
probe_all_sizes
# Soft-RoCE (rxe 6.1) sometimes loses a packet of a large message and then neither retransmits
# again nor fails the WR: both sides wait for the other's WRITE until the probe's deadline
# (tests/lab/README.md; ~1 run in 30 under load). That is the emulated NIC, not
# the probe: with its signature (a peer's message not seen, and rxe's retransmit counters
# moved) the phase set runs once more; a second failure, or one without the signature, stands.
if [ "$rc" != 0 ] && [[ $err == *"not seen within"* ]] && [ "$(rxe_retries)" -gt "$retries0" ]; then
  log "Soft-RoCE stall (rxe retransmit counters +$(( $(rxe_retries) - retries0 ))): probing once more"
  rx0=$(counter g1 rcvd_pkts); tx0=$(counter g2 sent_pkts)
  probe_all_sizes
fi
echo "$json" | jq -c '.results[] | {op, size_bytes, p50_us, p99_us, checksum_errors}' >&2
assert_eq 0 "$rc" "probe exit status"
assert_eq 8 "$(jq '.results | length' <<<"$json")" "results (2 ops x 4 sizes)"
assert_eq "write:64 write:4096 write:65536 write:1048576 read:64 read:4096 read:65536 read:1048576" \
  "$(jq -r '[.results[] | "\(.op):\(.size_bytes)"] | join(" ")' <<<"$json")" "phases run"
assert_eq 0 "$(jq '.checksum_errors' <<<"$json")" "checksum errors"
assert_eq 0 "$(jq '[.results[] | select(.iterations != '"$iters"' or .error)] | length' <<<"$json")" \
  "every phase ran $iters timed iterations without error"
assert_eq "half round trip" "$(jq -r '.results[0].latency_kind' <<<"$json")" "write latency kind"
assert_eq "post to completion" "$(jq -r '.results[4].latency_kind' <<<"$json")" "read latency kind"
assert_eq "$(jq '[.local.active_mtu_bytes, .remote.active_mtu_bytes] | min' <<<"$json")" \
  "$(jq '.path_mtu_bytes' <<<"$json")" "path_mtu = min of both active_mtu"
msgs=$(( 8 * (iters + 5) ))
rx1=$(counter g1 rcvd_pkts); tx1=$(counter g2 sent_pkts)
log "counters: g1 rcvd_pkts +$((rx1 - rx0)), g2 sent_pkts +$((tx1 - tx0)), probe messages $msgs"
[ $((rx1 - rx0)) -ge $msgs ] || fail "g1 rcvd_pkts grew by $((rx1 - rx0)) < $msgs messages"
[ $((tx1 - tx0)) -ge $msgs ] || fail "g2 sent_pkts grew by $((tx1 - tx0)) < $msgs messages"
# Text output names the latency definitions.
out=$(lab_exec g2 -- "$bin" probe "$g1" --sizes 64 --iterations 5) || fail "text probe failed"
assert_contains "$out" "write: half round trip"
assert_contains "$out" "read: post to completion"

# --- 2. no responder: refused (g1 -> g2) and silent (nobody at .99), both within the deadline
t0=$(date +%s%N)
out=$(lab_exec g1 -- "$bin" probe "$(lab_ip g2)" --timeout-ms 3000 2>&1); rc=$?
ms=$(elapsed_ms "$t0")
assert_eq 2 "$rc" "probe to a guest without responder: exit status"
assert_contains "$out" "cannot reach responder at $(lab_ip g2):18520: Connection refused"
[ "$ms" -lt 8000 ] || fail "refused probe took ${ms} ms"
t0=$(date +%s%N)
out=$(lab_exec g2 -- "$bin" probe 10.99.0.99 --timeout-ms 2000 2>&1); rc=$?
ms=$(elapsed_ms "$t0")
assert_eq 2 "$rc" "probe to a silent address: exit status"
assert_contains "$out" "cannot reach responder at 10.99.0.99:18520"
log "silent peer: failed in ${ms} ms (deadline 2000 ms + lab exec overhead)"
[ "$ms" -lt 10000 ] || fail "silent-peer probe took ${ms} ms (deadline 2000 ms; lab exec costs seconds under load)"

# --- 3. misbehaving clients do not take the responder down
lab_exec g2 -- bash -c "echo garbage | busybox nc $g1 18520; \
  printf 'RHOB\0\1\0\3\0\0\1\x40' | busybox nc $g1 18520; \
  head -c 400 /dev/urandom | busybox nc $g1 18520; true" >/dev/null 2>&1
sid=$(lab spawn g2 -- bash -c "sleep 30 | busybox nc $g1 18520") || fail "silent client"
json=$(lab_exec g2 -- "$bin" probe "$g1" --sizes 64,4096 --iterations 10 --json); rc=$?
assert_eq 0 "$rc" "probe after garbage clients: exit status"
assert_eq 0 "$(jq '.checksum_errors' <<<"$json")" "checksum errors after garbage clients"
lab kill "$sid" >/dev/null 2>&1

# --- 4a. the control channel needs the fabric key (every guest holds the lab's, lab.sh); a client
# written from the protocol text alone (control_client.py) stands for a stranger on g2
cc="python3 $RH_LAB_HERE/control_client.py $g1 18520"
out=$(lab_exec g2 -- bash -c "for c in inventory sample stream_open incast_prepare probe rkey_open \
  fault; do $cc bare \$c; done") || fail "control client without a key: $out"
for c in inventory sample stream_open incast_prepare probe rkey_open fault; do
  assert_contains "$out" "$c: error: peer did not prove the fabric key" "'$c' without the key"
done
assert_contains "$(lab_exec g2 -- $cc bare hello)" "hello: hello_reply: -" "hello is open to all"
out=$(lab_exec g2 -- $cc auth /etc/rocehealth/fabric.key)
assert_contains "$out" "responder-proof: ok" "the responder proves the key to a client holding it"
assert_contains "$out" "proof: auth_ok: -" "a client holding the key is accepted"
assert_contains "$out" "inventory: inventory_reply: -" "inventory after the handshake (MAC'd frame)"
assert_contains "$out" "reply-mac: ok" "the responder MACs its reply with the connection's key"
assert_contains "$(lab_exec g2 -- $cc old)" \
  "old: fixed-frame: unsupported version: responder speaks 4 / json 6" \
  "a protocol-4 control client is told both versions"
# Another key: rocehealth's own client names the cause; the responder counts the failures.
lab_exec g2 -- bash -c "umask 077; head -c 32 /dev/urandom >/tmp/rh-probe-other.$$"
out=$(lab_exec g2 -- "$bin" incast --receiver "$g1" --senders "$(lab_ip g2)" --duration 1s \
  --key-file /tmp/rh-probe-other.$$ 2>&1); rc=$?
assert_eq 2 "$rc" "incast with another fabric key: exit status"
assert_contains "$out" "did not prove the fabric key" "incast names the key mismatch"
out=$(lab_exec g2 -- bash -c "for i in 1 2 3 4 5; do $cc auth /tmp/rh-probe-other.$$; done")
assert_contains "$out" "responder-proof: wrong"
assert_contains "$out" "proof: error: peer did not prove the fabric key"
assert_contains "$(lab_exec g2 -- $cc auth /etc/rocehealth/fabric.key)" \
  "challenge: error: too many failed fabric-key proofs from this address" "failed proofs rate-limited"
json=$(lab_exec g2 -- "$bin" probe "$g1" --sizes 64 --iterations 5 --json); rc=$?
assert_eq 0 "$rc" "latency probes from a rate-limited address still served"
# Rotation: a responder with its own key file takes a new key on SIGHUP.
lab_exec g1 -- bash -c "umask 077; head -c 32 /dev/urandom >/tmp/rh-probe-k1.$$; head -c 32 /dev/urandom >/tmp/rh-probe-k2.$$"
r2=$(lab spawn g1 -- "$bin" responder --port 18530 --key-file /tmp/rh-probe-k1.$$) || fail "responder on 18530"
lab_wait_port g1 18530
k1ok=$(lab_exec g1 -- python3 "$RH_LAB_HERE/control_client.py" 127.0.0.1 18530 auth /tmp/rh-probe-k1.$$)
lab_exec g1 -- cp /tmp/rh-probe-k2.$$ /tmp/rh-probe-k1.$$
lab kill "$r2" HUP >/dev/null || fail "cannot send SIGHUP"
sleep 1
k2ok=$(lab_exec g1 -- python3 "$RH_LAB_HERE/control_client.py" 127.0.0.1 18530 auth /tmp/rh-probe-k2.$$)
assert_contains "$k1ok" "proof: auth_ok" "the key file's key before SIGHUP"
assert_contains "$k2ok" "proof: auth_ok" "the rotated key after SIGHUP"
lab kill "$r2" >/dev/null 2>&1
r2out=$(lab wait "$r2" --timeout 10 2>&1)
assert_contains "$r2out" "SIGHUP: reloaded fabric key /tmp/rh-probe-k1.$$" "reload logged"
log "control channel: 7 commands refused without the key, handshake by a foreign client ok, rate limit and SIGHUP rotation ok"

# --- 4. responder killed mid-run: the client fails cleanly within its deadline
# The long probe proves the fabric key (its READ phase may outlast the 30 min an unauthenticated
# one gets, probes/responder/probe_budget.h), and 4a blocked g2's control connections for 60 s:
# wait until g2 is served again (a refused attempt does not extend the block).
for _ in $(seq 90); do
  lab_exec g2 -- $cc auth /etc/rocehealth/fabric.key | grep -q "proof: auth_ok" && break
  sleep 1
done
pid=$(lab spawn g2 -- "$bin" probe "$g1" --op write,read --sizes 65536,4096 --iterations 100000 \
  --timeout-ms 3000) || fail "cannot start the long probe"
sleep 5
lab done "$pid" && fail "long probe ended before the responder was killed"
lab kill "$rid" KILL >/dev/null || fail "cannot kill the responder"
t0=$(date +%s%N)
out=$(lab wait "$pid" --timeout 30 2>&1); rc=$?
ms=$(elapsed_ms "$t0")
echo "$out" | tail -3 >&2
assert_eq 1 "$rc" "probe whose responder died: exit status"
assert_match "$out" "responder closed the control connection \\(process ended or crashed\\) during WRITE 65536 B message [0-9]+" \
  "failure names the cause (the responder process, not the fabric)"
assert_match "$out" "write +65536 +- +- " "failed phase shows no figures"
assert_match "$out" "read +4096 skipped: not run: write 65536 B failed before it" "later phases listed as skipped"
assert_contains "$out" "1 failed phase, 3 skipped phases"
[ "$ms" -lt 15000 ] || fail "client took ${ms} ms to give up after the responder died"
log "client gave up ${ms} ms after the responder was killed"
rout=$(lab wait "$rid" --timeout 10 2>&1)
assert_match "$rout" "bad handshake: decode peer [0-9.]+:[0-9]+: bad magic" "garbage logged, naming the peer"
assert_contains "$rout" "bad handshake: recv peer" "truncated handshake logged"
# An old peer (a version-1 frame) is refused naming the peer and both versions.
assert_match "$rout" "peer [0-9.]+:[0-9]+: unsupported version: peer speaks protocol version 1 in a frame, this build speaks [0-9]+" \
  "old-protocol peer refused by name"
assert_match "$rout" "peer [0-9.]+:[0-9]+: unsupported version: peer speaks protocol version 4 in a json frame, this build speaks 6" \
  "protocol-4 control client refused by name"
assert_match "$rout" "control commands need the fabric key \(/etc/rocehealth/fabric.key, fingerprint [0-9a-f]{16}\)" \
  "startup names the key and its fingerprint"
assert_contains "$rout" "control connections refused for 60 s: 5 failed fabric-key proofs" \
  "rate limit logged once, naming the peer"

pass
