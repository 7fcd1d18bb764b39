#!/bin/bash
# incast_vs_perftest.sh -- goodput of `rocehealth incast` senders beside perftest's ib_write_bw
# from the same Soft-RoCE guests, same message size and queue depth (a benchmark, not a test).
# Boots its own 4-guest lab (tests/lab); receiver g1, senders g2, g3, g4.
#
#   bench/incast_vs_perftest.sh            (as root; RH_BIN=<build>/agent/rocehealth)
#   RH_BENCH_SIZE=65536 RH_BENCH_SECONDS=5 RH_BENCH_QD=16 RH_BENCH_ROUNDS=2
#
# Per round, in this order: rocehealth 1 -> 1 (g2 -> g1), ib_write_bw 1 -> 1, rocehealth 3 -> 1,
# ib_write_bw 3 -> 1 (three ib_write_bw servers on g1, one client per sender, started together).
# Printed: aggregate Gb/s (10^9 bit/s) of each run and, per configuration, the ratio
# rocehealth / ib_write_bw of the means over the rounds.
#
# What differs (the ratio is the cost of these): rocehealth sends RDMA WRITE *with immediate*,
# so each message also consumes a receive WQE at the receiver, which checks every slot (length,
# seq, checksum, payload) before re-posting it, and counts goodput only for intact slots up to
# the sender's last completion; ib_write_bw sends plain WRITEs nobody looks at, and reports
# bytes over its own timing. rocehealth runs with --no-victim, and its sampling passes (1/s on
# every host) are included. The lab is ~100x slower than hardware: only the ratio means anything.
# Keep RH_BENCH_SECONDS modest: the lab's network once froze under ~80 s of sustained traffic.
. "$(dirname "$0")/../tests/lab/lib.sh"
size=${RH_BENCH_SIZE:-65536}
secs=${RH_BENCH_SECONDS:-5}
qd=${RH_BENCH_QD:-16}
rounds=${RH_BENCH_ROUNDS:-2}
lab_up 4
bin=$(rocehealth_bin) || exit 1
g1=$(lab_ip g1)
out=$RH_LAB_DIR/bench
mkdir -p "$out"
for g in g1 g2 g3 g4; do lab spawn $g -- "$bin" responder >/dev/null || fail "responder on $g"; done
for g in g1 g2 g3 g4; do lab_wait_port $g 18520; done

# rh SENDERS...: aggregate Gb/s of a rocehealth incast from those guests to g1.
rh() {
  local senders="" g
  for g in "$@"; do senders+="${senders:+,}$(lab_ip "$g")"; done
  local f=$out/rh.$RANDOM.json
  lab_exec g2 --timeout 300 -- "$bin" incast --receiver "$g1" --senders "$senders" \
    --size "$size" --queue-depth "$qd" --duration "${secs}s" --no-victim --json >"$f"
  jq -e '.aggregate.senders_ran > 0' "$f" >/dev/null || fail "rocehealth incast did not run: $(head -c 300 "$f")"
  jq -e '.integrity.bad_slots == 0' "$f" >/dev/null || fail "bad slots in $f"
  jq '.aggregate.goodput_gbps' "$f"
}

# pt SENDERS...: aggregate Gb/s of ib_write_bw clients on those guests, one server each on g1.
port=18600
pt() {
  local g i=0 sids=() cids=() ports=() sum=0
  for g in "$@"; do
    local p=$((port++))
    ports+=("$p")
    local id
    id=$(lab spawn g1 -- ib_write_bw -d rxe0 -x "$(lab_gid g1)" -F -p "$p" -s "$size" \
      -t "$qd" -D "$secs" --report_gbits) || fail "ib_write_bw server on g1"
    sids+=("$id")
  done
  for p in "${ports[@]}"; do lab_wait_port g1 "$p"; done
  for g in "$@"; do
    local id
    id=$(lab spawn "$g" -- ib_write_bw -d rxe0 -x "$(lab_gid "$g")" -F -p "${ports[$i]}" \
      -s "$size" -t "$qd" -D "$secs" --report_gbits "$g1") || fail "ib_write_bw client on $g"
    cids+=("$id")
    i=$((i + 1))
  done
  for i in "${!cids[@]}"; do
    local o; o=$(lab wait "${cids[$i]}" --timeout 300 2>&1) || fail "ib_write_bw client: $o"
    # Row: #bytes #iterations BW-peak BW-average MsgRate; with -D the average is column 4.
    local bw; bw=$(awk -v s="$size" '$1 == s && NF >= 5 { print $4 }' <<<"$o" | tail -1)
    [ -n "$bw" ] || fail "no ib_write_bw result in: $o"
    sum=$(jq -n --argjson a "$sum" --argjson b "$bw" '$a + $b')
  done
  for s in "${sids[@]}"; do lab wait "$s" --timeout 60 >/dev/null 2>&1; done
  echo "$sum"
}

declare -A total
printf '%-6s %-22s %10s\n' round run "Gb/s" >&2
for r in $(seq "$rounds"); do
  for run in "rh 1" "pt 1" "rh 3" "pt 3"; do
    set -- $run
    if [ "$2" = 1 ]; then senders=(g2); else senders=(g2 g3 g4); fi
    v=$("$1" "${senders[@]}") || exit 1
    total[$run]=$(jq -n --argjson a "${total[$run]:-0}" --argjson b "$v" '$a + $b')
    printf '%-6s %-22s %10.4f\n' "$r" "$([ "$1" = rh ] && echo rocehealth || echo ib_write_bw) $2->1" "$v" >&2
  done
done
echo
printf 'incast goodput, %s B messages, queue depth %s, %s s per run, mean of %s rounds (Gb/s = 10^9 bit/s)\n' \
  "$size" "$qd" "$secs" "$rounds"
for n in 1 3; do
  a=$(jq -n --argjson t "${total[rh $n]}" --argjson r "$rounds" '$t / $r')
  b=$(jq -n --argjson t "${total[pt $n]}" --argjson r "$rounds" '$t / $r')
  printf '  %s -> 1: rocehealth %.4f Gb/s, ib_write_bw %.4f Gb/s, ratio %.2f\n' "$n" "$a" "$b" \
    "$(jq -n --argjson a "$a" --argjson b "$b" 'if $b > 0 then $a / $b else 0 end')"
done
pass "incast_vs_perftest"
