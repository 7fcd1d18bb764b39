#!/bin/bash
# perftest_baseline.sh -- latency baseline of the Soft-RoCE lab: ib_write_lat
# and ib_read_lat from g2 (client) to g1 (server) over rxe0 (RoCE v2), for
# several message sizes.  Boots its own 2-guest lab.
#   RH_PT_SIZES="64 4096 65536 1048576"  RH_PT_ITERS=200  RH_PT_ITERS_LARGE=100
#   (ITERS_LARGE is used for sizes >= 1 MiB)
. "$(dirname "$0")/lib.sh"
sizes=${RH_PT_SIZES:-64 4096 65536 1048576}
iters=${RH_PT_ITERS:-200}
iters_large=${RH_PT_ITERS_LARGE:-100}
lab_up 2
log "g1 $(lab info g1 | tr '\n' ' ')"
printf '%-13s %9s %6s %10s %10s %10s %10s %10s\n' tool bytes iters t_min_us t_typ_us t_avg_us t_99_us t_max_us
for tool in ib_write_lat ib_read_lat; do
  for s in $sizes; do
    n=$iters; [ "$s" -ge 1048576 ] && n=$iters_large
    out=$(perftest_pair "$tool" "$s" "$n") || fail "$tool -s $s failed"
    # perftest row: bytes iters t_min t_max t_typical t_avg t_stdev 99% 99.9%
    awk -v t="$tool" -v s="$s" '$1 == s && NF >= 9 {
      printf "%-13s %9s %6s %10.1f %10.1f %10.1f %10.1f %10.1f\n", t, $1, $2, $3, $5, $6, $8, $4 }' <<<"$out"
  done
done
pass
