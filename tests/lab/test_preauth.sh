#!/bin/bash
# test_preauth.sh -- a responder's unauthenticated budgets (issue 27) on real Soft-RoCE, 2 guests;
# responder on g1 with the lab's fabric key; the attacks (preauth_flood.py, written from the
# protocol text) run on g2, from an extra address of g2 where a legitimate client must not share
# the attacker's per-address cap:
#  1. hello hold: 16 clients sending hello every 4 s (the review held all 16 sessions this way)
#     are all closed; meanwhile a latency probe and a keyed inventory from g2 succeed.
#  2. idle flood: 500 idle connections from one address, re-opened as they close, are refused by
#     name past 2; meanwhile probes and a keyed command succeed; the log stays short.
#  3. a 1 MiB pre-auth frame header is refused by name at once, before its body.
#  4. an unauthenticated probe asking for 64 MiB of buffers is refused by name; with the key
#     (`probe --key-file`) the same probe runs. The responder's RSS stays within 64 MiB of idle.
. "$(dirname "$0")/lib.sh"
lab_up 2
bin=$(rocehealth_bin) || exit 1
g1=$(lab_ip g1)
atk=10.99.0.222  # the attacker's address, added to g2
lab_exec g2 -- ip addr add $atk/24 dev eth0 || fail "cannot add $atk to g2"
pf="python3 $RH_LAB_HERE/preauth_flood.py"
cc="python3 $RH_LAB_HERE/control_client.py $g1 18520"

rid=$(lab spawn g1 -- "$bin" responder) || fail "cannot start responder on g1"
lab_wait_port g1 18520
rss() { lab_exec g1 -- sh -c "grep VmRSS /proc/\$(pgrep -f 'rocehealth responder' | head -1)/status | tr -dc 0-9"; }
idle_kib=$(rss)

# Legitimate traffic from g2's own address, N rounds: a probe (unauthenticated) and a keyed
# inventory; prints "probes P/N keyed K/N".
legit() {
  lab_exec g2 --timeout 600 -- bash -c "p=0; k=0; for i in \$(seq $1); do
      $bin probe $g1 --sizes 64 --iterations 5 >/dev/null 2>&1 && p=\$((p+1))
      $cc auth /etc/rocehealth/fabric.key | grep -q 'inventory: inventory_reply' && k=\$((k+1))
    done; echo probes \$p/$1 keyed \$k/$1"
}

# --- 1. hello hold (16 connections from one address: 2 get a place, the rest are refused at
# once; the 2 are closed at their second hello)
hid=$(lab spawn g2 -- $pf hold $g1 18520 16 20 $atk) || fail "hold"
sleep 2
out=$(legit 5)
log "during the hello hold: $out"
assert_eq "probes 5/5 keyed 5/5" "$out" "probes and keyed commands during the hello hold"
hout=$(lab wait "$hid" --timeout 120)
assert_contains "$hout" "held: 0 of 16 still open after 20 s" "no hello holder keeps its connection"

# --- 2. idle flood of 500 connections from one address
fid=$(lab spawn g2 -- $pf flood $g1 18520 500 30 $atk) || fail "flood"
sleep 3
out=$(legit 5)
log "during the idle flood: $out"
assert_eq "probes 5/5 keyed 5/5" "$out" "probes and keyed commands during the idle flood"
flood_kib=$(rss)
fout=$(lab wait "$fid" --timeout 120)
log "$fout"
assert_match "$fout" "refused [0-9]{3,}" "the flood is refused"
assert_match "$fout" "cap named: [1-9]" "the refusal names the per-address cap"

# --- 3. a 1 MiB pre-auth frame
out=$(lab_exec g2 -- $pf big $g1 18520)
assert_match "$out" "big: fixed-frame: frame of 1048588 bytes refused: 4096 at most before the fabric key is proven after [0-9]{1,3} ms" \
  "1 MiB pre-auth frame refused by name before its body"

# --- 4. unauthenticated probe buffers
# The key moved aside on the guest's own file system (the guests share the host's /tmp, and a
# key file must stay owned by root with mode 0600 to be read again).
out=$(lab_exec g2 -- bash -c "mv /etc/rocehealth/fabric.key /etc/rocehealth/fabric.key.off; $bin probe $g1 --op read \
  --sizes 1m --queue-depth 64 --iterations 5 2>&1; rc=\$?; mv /etc/rocehealth/fabric.key.off /etc/rocehealth/fabric.key; exit \$rc"); rc=$?
assert_eq 2 "$rc" "a 64 MiB probe without the key: exit status"
assert_contains "$out" "unauthenticated probes get 4 MiB of buffers; this one needs 64 MiB: prove the fabric key"
out=$(lab_exec g2 -- $bin probe $g1 --op read --sizes 1m --queue-depth 64 --iterations 5 \
  --key-file /etc/rocehealth/fabric.key 2>&1)
assert_eq 0 "$?" "the same probe with the key: exit status ($out)"
log "responder RSS: idle $idle_kib KiB, during the 500-connection flood $flood_kib KiB"
[ $((flood_kib - idle_kib)) -le 65536 ] || fail "RSS grew by $((flood_kib - idle_kib)) KiB under the flood"

lab kill "$rid" >/dev/null 2>&1
rout=$(lab wait "$rid" --timeout 10 2>&1)
lines=$(grep -c "per address" <<<"$rout")
log "responder log: $(wc -l <<<"$rout") lines, $lines naming the per-address cap"
[ "$lines" -le 10 ] || fail "$lines log lines for refused connections (rate limit: 1 per address per 10 s)"
assert_match "$rout" "refused [0-9]+ connections from [0-9]+ addresses in the last [0-9]+ s" \
  "refusals counted"
pass
