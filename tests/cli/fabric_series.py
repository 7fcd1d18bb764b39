#!/usr/bin/env python3
# The synthetic fabric of the `rocehealth fabric` end-to-end tests (tests/cli/test_fabric.sh on
# Prometheus, tests/cli/test_fabric_vm.sh on VictoriaMetrics), in OpenMetrics text with
# timestamps in seconds, one sample every 15 s for 1 h from T0: 6 hosts on 2 ToRs (h1-h3 under
# r01, h4-h6 under r02); h2 sends PFC pause on priority 3 from T0+10m while not paused itself,
# h4, h1 and h5 get paused on it 2, 4 and 6 minutes later; from T0+30m every mesh pair from r01
# into r02 is slow (p50 10x) and the pairs into h6 fail; h5's netdev MTU is 1500 among 9000s.
# Usage: fabric_series.py T0 > fabric.om
import sys
t0 = int(sys.argv[1])
step, span = 15, 3600
hosts = {f"h{i}": ("r01" if i <= 3 else "r02") for i in range(1, 7)}
times = range(t0, t0 + span + 1, step)
out = []
def family(name, kind, rows):
    out.append(f"# TYPE {name} {kind}")
    for labels, fn in rows:
        sample = name + ("_total" if kind == "counter" else "")
        lab = ",".join(f'{k}="{v}"' for k, v in labels.items())
        out.extend(f"{sample}{{{lab}}} {fn(t):g} {t}" for t in times)
inst = lambda h: {"instance": f"{h}:9900", "job": "rocehealth"}
family("rocehealth_host_info", "gauge",
       [({**inst(h), "host": h, "tor": tor}, lambda t: 1) for h, tor in hosts.items()])
# Seconds paused: a share of time from a start on, as a counter.
def paused(start, share):
    return lambda t: max(0, t - (t0 + start)) * share if start is not None else 0
pause = {"h2": {"tx": paused(600, 0.30)}, "h4": {"rx": paused(720, 0.20)},
         "h1": {"rx": paused(840, 0.20)}, "h5": {"rx": paused(960, 0.20)}}
family("rocehealth_pfc_pause_duration_seconds", "counter",
       [({**inst(h), "device": "mlx5_0", "port": "1", "priority": "3", "direction": d},
         pause.get(h, {}).get(d, paused(None, 0))) for h in hosts for d in ("rx", "tx")])
bad_from = t0 + 1800
def slow(src, dst):
    into = hosts[src] == "r01" and hosts[dst] == "r02"
    return lambda t: 50e-6 if into and t >= bad_from else 5e-6
family("rocehealth_probe_latency_seconds", "gauge",
       [({**inst(s), "peer": f"{d}:18515", "op": "write", "size_bytes": "64", "quantile": "0.5"},
         slow(s, d)) for s in hosts for d in hosts if s != d])
def errors(src, dst):
    into = hosts[src] == "r01" and dst == "h6"
    return lambda t: (t - bad_from) // step if into and t >= bad_from else 0
family("rocehealth_probe_errors", "counter",
       [({**inst(s), "peer": f"{d}:18515", "op": "connect"}, errors(s, d))
        for s in hosts for d in hosts if s != d])
port = {"device": "mlx5_0", "port": "1", "netdev": "ens1f0np0"}
family("rocehealth_netdev_mtu_bytes", "gauge",
       [({**inst(h), **port}, (lambda t: 1500) if h == "h5" else (lambda t: 9000)) for h in hosts])
family("rocehealth_port_trust_info", "gauge",
       [({**inst(h), **port, "trust": "dscp"}, lambda t: 1) for h in hosts])
out.append("# EOF")
print("\n".join(out))
