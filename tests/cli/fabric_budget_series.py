#!/usr/bin/env python3
# The series budget's form of the mesh (agents with a fleet, agent/daemon/mesh_budget.h) for the
# `rocehealth fabric` end-to-end test (tests/cli/test_fabric.sh), in OpenMetrics text with
# timestamps in seconds, one sample every 15 s for 45 min from T1: g1, g2 under r11, g3, g4 under
# r12, g5, g6 under r13; own-ToR peers per peer, other ToRs by dst_tor, failures as window gauges
# (rocehealth_probe_*window_errors: failures in the agent's 60 s window) and no error counter.
# From T1+20m ToR r13 is dead: every row into it fails, and its hosts' rows out.
# Usage: fabric_budget_series.py T1 > budget.om
import sys
t1 = int(sys.argv[1])
step, span = 15, 2700
hosts = {"g1": "r11", "g2": "r11", "g3": "r12", "g4": "r12", "g5": "r13", "g6": "r13"}
times = range(t1, t1 + span + 1, step)
bad_from = t1 + 1200
out = []
def family(name, kind, rows):
    out.append(f"# TYPE {name} {kind}")
    for labels, fn in rows:
        lab = ",".join(f'{k}="{v}"' for k, v in labels.items())
        sample = name + ("_total" if kind == "counter" else "")
        out.extend(f"{sample}{{{lab}}} {fn(t)} {t}" for t in times)
inst = lambda h: {"instance": f"{h}:9900", "job": "rocehealth"}
family("rocehealth_host_info", "gauge",
       [({**inst(h), "host": h, "tor": tor}, lambda t: 1) for h, tor in hosts.items()])
family("rocehealth_pfc_pause_duration_seconds", "counter",
       [({**inst(h), "device": "mlx5_0", "port": "1", "priority": "3", "direction": d}, lambda t: 0)
        for h in hosts for d in ("rx", "tx")])
mates = [(s, d) for s in hosts for d in hosts if s != d and hosts[s] == hosts[d]]
family("rocehealth_probe_latency_seconds", "gauge",
       [({**inst(s), "peer": f"{d}:18520", "op": "write", "size_bytes": "64", "quantile": "0.5"},
         lambda t: "5e-06") for s, d in mates])
family("rocehealth_probe_window_errors", "gauge",
       [({**inst(s), "peer": f"{d}:18520"}, lambda t: 0) for s, d in mates])
rows = [(s, d) for s in hosts for d in sorted(set(hosts.values()) - {hosts[s]})]
failing = lambda s, d: lambda t: t >= bad_from and "r13" in (hosts[s], d)
family("rocehealth_probe_tor_latency_seconds", "gauge",
       [({**inst(s), "dst_tor": d, "op": "write", "size_bytes": "64", "quantile": "0.5"},
         lambda t, f=failing(s, d): "NaN" if f(t) else "5e-06") for s, d in rows])
family("rocehealth_probe_tor_window_errors", "gauge",
       [({**inst(s), "dst_tor": d}, lambda t, f=failing(s, d): 4 if f(t) else 0)
        for s, d in rows])
port = {"device": "mlx5_0", "port": "1", "netdev": "ens1f0np0"}
family("rocehealth_netdev_mtu_bytes", "gauge", [({**inst(h), **port}, lambda t: 9000) for h in hosts])
out.append("# EOF")
print("\n".join(out))
