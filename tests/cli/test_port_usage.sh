#!/bin/bash
# A port that was never cabled is a note, not an error (rules/port_usage.h), in `check` on
# fixture trees and in `diagnose --bundle` on captures written here: a dual-port host with its
# second port unused is healthy (exit 0, a note naming the port); the same port after it had
# traffic and lost its link is a port_not_active finding; --require-port makes the unused port
# an error; a capture without a GID table (plain ibv_devinfo) cannot evaluate no_roce_v2_gid
# instead of failing it. Evidence carries units and cites no path of this machine.
# Usage: test_port_usage.sh ROCEHEALTH_BINARY FIXTURES_DIR
set -u
bin=$1 fx=$2 failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

run() {  # run WANT_EXIT LABEL CMD...: output in $out
  local want=$1 label=$2; shift 2
  out=$("$@" 2>&1); local rc=$?
  [ "$rc" = "$want" ] || fail "$label: exit $rc, expected $want; output: $out"
}
has() { grep -qF -- "$2" <<<"$out" || fail "$1: '$2' not in output: $out"; }
lacks() { ! grep -qF -- "$2" <<<"$out" || fail "$1: '$2' should not be in output: $out"; }
# evidence_lacks LABEL TEXT: no evidence line ("    name = value  (source)") holds TEXT
evidence_lacks() {
  ! grep -E '^    [^ ].* = ' <<<"$out" | grep -qF -- "$2" || fail "$1: evidence cites '$2': $out"
}

# ---- check on fixture trees -------------------------------------------------------------------
uncabled=$fx/mlx5_dual_uncabled/sys went=$fx/mlx5_dual_went_down/sys
run 0 "check uncabled" "$bin" check --sysfs-root "$uncabled"
has "check uncabled" "healthy, no findings"
has "check uncabled" "mlx5_1 port 1 (ens1f1np1): DOWN, no carrier, never carried traffic: taken as not cabled"
for rule in port_not_active no_roce_v2_gid roce_mtu; do lacks "check uncabled" "] $rule"; done

run 1 "check went down" "$bin" check --sysfs-root "$went"
has "check went down" "[error] port_not_active"
has "check went down" "mlx5_1 port 1 is DOWN/Disabled, not ACTIVE/LinkUp although it was in use"
has "check went down" "state = 1 (DOWN)"
has "check went down" "phys_state = 3 (Disabled)"
has "check went down" "(.../class/infiniband/mlx5_1/ports/1/state)"
evidence_lacks "check went down" "$fx"  # no evidence cites a path of this machine
lacks "check went down" "taken as not cabled"

# One name, one unit: `check` (sysfs counters/port_xmit_data, 4-byte words) and `diagnose` of a
# recording of the same tree (the normalized series, bytes) show the same traffic the same way.
check_line=$(grep -F "signs it was in use" <<<"$out")
grep -qF "port_xmit_data_bytes = 208475320068 bytes" <<<"$check_line" ||
  fail "check went down: port_xmit_data not shown in bytes under its _bytes name: $check_line"
"$bin" record --out "$work/went.jsonl" --sysfs-root "$went" --interval 250ms --duration 500ms >/dev/null 2>&1 ||
  fail "record of the went-down tree failed"
run 1 "diagnose replay went down" "$bin" diagnose --replay "$work/went.jsonl"
replay_line=$(grep -F "signs it was in use" <<<"$out")
for data in "port_rcv_data_bytes = 192853508840 bytes" "port_xmit_data_bytes = 208475320068 bytes"; do
  grep -qF "$data" <<<"$replay_line" || fail "diagnose replay: '$data' not in: $replay_line"
done
for line in "$check_line" "$replay_line"; do
  ! grep -qE "port_(xmit|rcv)_data = " <<<"$line" || fail "a raw PMA data name without its unit: $line"
done

for spec in mlx5_1/1 ens1f1np1; do
  run 1 "check --require-port $spec" "$bin" check --sysfs-root "$uncabled" --require-port "$spec"
  has "check --require-port $spec" "[error] port_not_active"
  has "check --require-port $spec" "although it is a required port"
  lacks "check --require-port $spec" "taken as not cabled"
done
# Requiring the port that is up changes nothing; a required port that does not exist is not
# silently accepted (exit 2, named); a malformed one is refused.
run 0 "check --require-port mlx5_0/1" "$bin" check --sysfs-root "$uncabled" --require-port mlx5_0/1
run 2 "check --require-port mlx5_9/1" "$bin" check --sysfs-root "$uncabled" --require-port mlx5_9/1
has "check --require-port mlx5_9/1" "required port mlx5_9/1: names no RDMA port"
run 2 "check --require-port mlx5_1/x" "$bin" check --sysfs-root "$uncabled" --require-port mlx5_1/x
has "check --require-port mlx5_1/x" "expected DEVICE/PORT"

json=$("$bin" check --sysfs-root "$uncabled" --json)
python3 - "$json" <<'EOF' || fail "check --json on the uncabled host: $json"
import json, sys
r = json.loads(sys.argv[1])
assert r["healthy"] and r["findings"] == [], r["findings"]
notes = [n for n in r["notes"] if "taken as not cabled" in n["text"]]
assert [n["subject"] for n in notes] == ["mlx5_1 port 1 (ens1f1np1)"], r["notes"]
EOF

# ---- diagnose --bundle ------------------------------------------------------------------------
# write_capture DIR TIMESTAMP PORT2_USED VERBOSE: ibv_devinfo (-v or not), ip -s -s link, rdma link.
write_capture() {
  local dir=$1 ts=$2 used=$3 verbose=$4
  mkdir -p "$dir"; echo "$ts" > "$dir/timestamp"
  local gids1 gids2 state2="PORT_DOWN (1)" phys2="DISABLED (3)"
  gids1=$'\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0e42:a1ff:fe65:4e9a, RoCE v1\n\t\t\tGID[  1]:\t\tfe80::e42:a1ff:fe65:4e9a, RoCE v2\n\t\t\tGID[  2]:\t\t0000:0000:0000:0000:0000:ffff:0a00:0001, RoCE v1\n\t\t\tGID[  3]:\t\t::ffff:10.0.0.1, RoCE v2'
  gids2=$'\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0e42:a1ff:fe65:4e9b, RoCE v1\n\t\t\tGID[  1]:\t\tfe80::e42:a1ff:fe65:4e9b, RoCE v2'
  [ "$used" = 1 ] && gids2+=$'\n\t\t\tGID[  2]:\t\t0000:0000:0000:0000:0000:ffff:0a00:0101, RoCE v1\n\t\t\tGID[  3]:\t\t::ffff:10.0.1.1, RoCE v2'
  {
    for n in 0 1; do
      printf 'hca_id:\tmlx5_%s\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t22.36.1010\n' "$n"
      printf '\tnode_guid:\t\t\t0c42:a103:0065:4e9%s\n\tsys_image_guid:\t\t\t0c42:a103:0065:4e9a\n' "$([ $n = 0 ] && echo a || echo b)"
      printf '\tvendor_id:\t\t\t0x02c9\n\tvendor_part_id:\t\t\t4125\n\tphys_port_cnt:\t\t\t1\n'
      printf '\t\tport:\t1\n'
      if [ $n = 0 ]; then
        printf '\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t4096 (5)\n'
      else
        printf '\t\t\tstate:\t\t\t%s\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t1024 (3)\n' "$state2"
      fi
      printf '\t\t\tsm_lid:\t\t\t0\n\t\t\tport_lid:\t\t0\n\t\t\tport_lmc:\t\t0x00\n\t\t\tlink_layer:\t\tEthernet\n'
      if [ "$verbose" = 1 ]; then
        if [ $n = 0 ]; then printf '\t\t\tphys_state:\t\tLINK_UP (5)\n%s\n' "$gids1"
        else printf '\t\t\tphys_state:\t\t%s\n%s\n' "$phys2" "$gids2"; fi
      fi
      echo
    done
  } > "$dir/ibv_devinfo.txt"
  local b2=0 p2=0 transns=1
  [ "$used" = 1 ] && b2=81726354412 p2=61234567 transns=6
  cat > "$dir/ip-s-s-link.txt" <<EOF
4: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
    link/ether 0c:42:a1:65:4e:9a brd ff:ff:ff:ff:ff:ff
    RX:  bytes packets errors dropped  missed   mcast
    457726202004551 510321198913      0       0       0       0
    RX errors:  length    crc   frame    fifo overrun
                     0      0       0       0       0
    TX:  bytes packets errors dropped carrier collsns
    412245190615240 459484977446      0       0       0       0
    TX errors: aborted   fifo  window heartbt transns
                     0      0       0       0       2
5: ens1f1np1: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 qdisc mq state DOWN mode DEFAULT group default qlen 1000
    link/ether 0c:42:a1:65:4e:9b brd ff:ff:ff:ff:ff:ff
    RX:  bytes packets errors dropped  missed   mcast
    $b2 $p2      0       0       0       0
    RX errors:  length    crc   frame    fifo overrun
                     0      0       0       0       0
    TX:  bytes packets errors dropped carrier collsns
    $b2 $p2      0       0       0       0
    TX errors: aborted   fifo  window heartbt transns
                     0      0       0       0       $transns
EOF
  cat > "$dir/rdma-link.txt" <<EOF
link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0
link mlx5_1/1 state DOWN physical_state DISABLED netdev ens1f1np1
EOF
}
bundle() {  # bundle NAME USED VERBOSE: two captures 60 s apart
  write_capture "$work/$1/t0" 1765022400 "$2" "$3"
  write_capture "$work/$1/t1" 1765022460 "$2" "$3"
}
bundle unused 0 1
bundle went 1 1
bundle plain 0 0

# ibv_devinfo -v + ip -s -s link only: no RDMA or port counter, so not "healthy" (issue 26
# class 5): could not judge, exit 2, naming what is missing.
run 2 "diagnose unused" "$bin" diagnose --bundle "$work/unused/t0" --bundle "$work/unused/t1"
has "diagnose unused" "holds none of the counters the rate and lifetime rules read"
has "diagnose unused" "mlx5_1 port 1 (ens1f1np1): DOWN, no carrier, never carried traffic: taken as not cabled"
for rule in port_not_active no_roce_v2_gid roce_mtu link_flap; do lacks "diagnose unused" "] $rule"; done

run 1 "diagnose went" "$bin" diagnose --bundle "$work/went/t0" --bundle "$work/went/t1"
has "diagnose went" "] port_not_active"
has "diagnose went" "although it was in use"
lacks "diagnose went" "taken as not cabled"
evidence_lacks "diagnose went" "$work"  # no evidence cites a path of this machine
evidence_lacks "diagnose went" "(class/infiniband/"  # nor a sysfs file the capture lacks

run 1 "diagnose --require-port" "$bin" diagnose --bundle "$work/unused/t0" --bundle "$work/unused/t1" --require-port ens1f1np1
has "diagnose --require-port" "] port_not_active"
has "diagnose --require-port" "required port"
run 2 "diagnose --require-port bad" "$bin" diagnose --bundle "$work/unused/t0" --require-port "a b"
# A required port that names no port of the data: the host cannot be called healthy (a typo
# in --require-port would otherwise pass a host whose port is gone). Could not judge, exit 2.
run 2 "diagnose --require-port mlx5_7/1" "$bin" diagnose --bundle "$work/unused/t0" --bundle "$work/unused/t1" --require-port mlx5_7/1
has "diagnose --require-port mlx5_7/1" "required port mlx5_7/1: names no RDMA port"

# Plain ibv_devinfo (no -v): no GID table, no phys_state. no_roce_v2_gid is not an error.
"$bin" diagnose --bundle "$work/plain/t0" --bundle "$work/plain/t1" > "$work/plain.out" 2>&1
out=$(cat "$work/plain.out")
lacks "diagnose plain ibv_devinfo" "] no_roce_v2_gid"
has "diagnose plain ibv_devinfo" "GID"

[ $failed = 0 ] && echo "PASS: never-cabled ports and evidence units (check, diagnose)"
exit $failed
