#!/bin/bash
# test_counters.sh -- the counter sources on real kernel paths in a Soft-RoCE guest:
# `snapshot --json` shows eth0's `ethtool -S` counters from virtio_net (SIOCETHTOOL), a
# "PFC configuration unavailable" note for eth0 (virtio has no DCB ops), and rxe0's RDMA netlink
# STAT_GET counters with the same names as sysfs hw_counters and `rdma statistic`; then snapshots
# run in a loop while rxe0 is deleted and re-created: every pass exits 0 with valid JSON, rxe0 present or absent.
. "$(dirname "$0")/lib.sh"
lab_up 1
bin=$(rocehealth_bin) || exit 1
out=$RH_LAB_DIR/counters
mkdir -p "$out"

# Some RoCE traffic first, so counters are not all zero.
lab_exec g1 --timeout 120 -- bash -c "ib_write_lat -d rxe0 -x \$RH_GID_INDEX -n 20 >/dev/null 2>&1 &
  sleep 2; ib_write_lat -d rxe0 -x \$RH_GID_INDEX -n 20 10.99.0.11 >/dev/null; wait" \
  || fail "ib_write_lat loopback on g1"

lab_exec g1 -- "$bin" snapshot --json >"$out/snap.json" || fail "snapshot --json exit status"
lab_exec g1 -- bash -c 'ls /sys/class/infiniband/rxe0/ports/1/hw_counters' >"$out/sysfs_hw.txt" \
  || fail "cannot list rxe0 hw_counters"
lab_exec g1 -- rdma statistic show link rxe0/1 >"$out/rdma_stat.txt" || fail "rdma statistic show"

python3 - "$out" <<'PY' || fail "snapshot JSON checks (see above)"
import json, sys
out = sys.argv[1]
s = json.load(open(f"{out}/snap.json"))
errs = []
def check(cond, msg):
    if not cond: errs.append(msg)
devs = [d for d in s["devices"] if d["name"] == "rxe0"]
check(len(devs) == 1, "rxe0 in snapshot")
port = devs[0]["ports"][0]
n = port["netdev"]
check(n and n["name"] == "eth0", "rxe0 port 1 netdev is eth0")
stats = {c["name"]: c for c in n["ethtool_stats"]}
check("rx_queue_0_packets" in stats and isinstance(stats["rx_queue_0_packets"]["value"], int),
      f"virtio_net rx_queue_0_packets in ethtool_stats: {sorted(stats)}")
check(all(c["source"] == "ethtool -S eth0 (SIOCETHTOOL)" for c in stats.values()), "ethtool source")
pfc = [u["text"] for u in n["unavailable"] if u["text"].startswith("PFC configuration unavailable on eth0: ")]
check(len(pfc) == 1, f"exactly one DCB note: {n['unavailable']}")
check(n["dcb"] is None, "no DCB config on virtio")
check(not any(u["text"].startswith("ethtool statistics") for u in n["unavailable"]), "ethtool readable")
nl = {c["name"]: c["value"] for c in port["nl_hw_counters"]}
sysfs = set(open(f"{out}/sysfs_hw.txt").read().split()) - {"lifespan"}
check(set(nl) == sysfs, f"netlink names {sorted(nl)} != sysfs hw_counters {sorted(sysfs)}")
tool = open(f"{out}/rdma_stat.txt").read().split()
tool_names = set(tool[2::2])  # "link rxe0/1 name value name value ..."
check(set(nl) == tool_names, f"netlink names != rdma statistic names {sorted(tool_names)}")
check(all(isinstance(v, int) for v in nl.values()), "netlink values are integers")
check(nl.get("sent_pkts", 0) > 0, f"sent_pkts > 0 after traffic: {nl.get('sent_pkts')}")
check(all(c["source"] == "rdma netlink STAT_GET" for c in port["nl_hw_counters"]), "netlink source")
for e in errs: print("CHECK FAILED:", e, file=sys.stderr)
print(f"eth0: {len(stats)} ethtool counters; rxe0/1: {len(nl)} netlink counters; DCB note: {pfc[0] if pfc else None}")
sys.exit(1 if errs else 0)
PY

# --- a device removed during a pass: snapshots in a loop while rxe0 is deleted.
loop=$(lab spawn g1 -- bash -c "for i in \$(seq 1 30); do
    $bin snapshot --json >$out/loop.\$i.json 2>$out/loop.\$i.err; echo \$i \$? >>$out/loop.rc; done") \
  || fail "cannot start the snapshot loop"
lab_exec g1 --timeout 60 -- bash -c "until [ -s $out/loop.rc ]; do sleep 0.05; done; sleep 0.3" \
  || fail "snapshot loop did not start"
# Delete and re-create rxe0 repeatedly (so some deletions land inside a pass), then delete it.
lab_exec g1 --timeout 300 -- bash -c "for k in \$(seq 1 6); do
    rdma link delete rxe0 && sleep 0.\$((RANDOM % 5)) && rdma link add rxe0 type rxe netdev eth0 &&
    sleep 0.\$((RANDOM % 5)) || exit 1; done; rdma link delete rxe0" \
  || fail "rdma link delete/add rxe0"
lab wait "$loop" --timeout 600 >/dev/null || fail "snapshot loop failed or timed out"
python3 - "$out" <<'PY' || fail "snapshot loop across rxe0 deletion"
import json, sys
out = sys.argv[1]
rcs = [l.split() for l in open(f"{out}/loop.rc")]
bad = [r for r in rcs if r[1] != "0"]
seen = {"present": 0, "absent": 0, "with problems": 0}
for i, _ in rcs:
    s = json.load(open(f"{out}/loop.{i}.json"))
    names = [d["name"] for d in s["devices"]]
    assert names in (["rxe0"], []), names
    seen["present" if names else "absent"] += 1
    seen["with problems"] += sum(1 for d in s["devices"] if d["problems"])
print(f"{len(rcs)} passes, exit statuses all 0: {not bad}, rxe0 {seen}")
assert len(rcs) == 30 and not bad, bad
assert seen["absent"] > 0, "rxe0 never disappeared"
PY
pass
