# shellcheck shell=bash
# rxe_counters.sh -- rxe0 counter helpers for lab tests; source after lib.sh, call after lab_up.
#
#   rxe_snap GUEST FILE           `rocehealth snapshot --device rxe0 --json` on GUEST into FILE
#   rxe_delta BEFORE AFTER NAME   growth of rxe0 port 1 hw counter NAME (sysfs hw_counters/NAME)
#                                 between two snapshots; fails the test when it is missing from
#                                 either (a missing counter is never zero)
#   rxe_ndelta BEFORE AFTER NAME  the same for a normalized (vendor-neutral) counter name
#   rxe_moved BEFORE AFTER LABEL  prints (stderr) every rxe0 hw counter that moved
#   rxe_wire_ok FROM TO PORT      0 when guest FROM can open a TCP connection to guest TO's PORT
#                                 within 5 s (something must listen there)

rxe_snap() {
  lab_exec "$1" -- "$(rocehealth_bin)" snapshot --device rxe0 --json >"$2" \
    || fail "$1: rocehealth snapshot --device rxe0 --json"
}

# _rxe_delta KIND BEFORE AFTER NAME: KIND is hw_counters or normalized.
_rxe_delta() {
  local d
  d=$(jq -n --slurpfile a "$2" --slurpfile b "$3" --arg k "$1" --arg n "$4" '
    def v(s): [s[0].devices[] | select(.name == "rxe0") | .ports[0][$k][]
               | select(.name == $n) | .value][0];
    if (v($a) | type) == "number" and (v($b) | type) == "number" then v($b) - v($a)
    else "missing" end') || fail "jq on $2 $3"
  [ "$d" != '"missing"' ] || fail "rxe0 $1 counter $4 missing in $2 or $3"
  echo "$d"
}
rxe_delta() { _rxe_delta hw_counters "$@"; }
rxe_ndelta() { _rxe_delta normalized "$@"; }

rxe_moved() {
  jq -rn --slurpfile a "$1" --slurpfile b "$2" --arg g "$3" '
    def m(s): [s[0].devices[] | select(.name == "rxe0") | .ports[0].hw_counters[]
               | {(.name): .value}] | add;
    m($a) as $x | m($b) as $y
    | [$y | to_entries[] | select(.value != $x[.key]) | "\(.key) +\(.value - $x[.key])"]
    | "\($g) rxe0 hw_counters moved: " + (if length == 0 then "none" else join(", ") end)' >&2
}

# The lab's L2 segment can wedge (seen once: a guest's virtio-net stopped transmitting, its eth0
# tx_packets frozen while its qdisc kept sending); a test that sees a probe fail checks the wire
# with this before blaming the probe.
rxe_wire_ok() {
  lab_exec "$1" --timeout 20 -- timeout 5 bash -c "exec 3<>/dev/tcp/$(lab_ip "$2")/$3" \
    >/dev/null 2>&1
}
