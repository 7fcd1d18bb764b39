#!/usr/bin/env python3
# The series of a large fabric for bench/fabric_scale.sh (issue 29, "Measured at scale"), written
# as a stream: OpenMetrics text (seconds, for `promtool tsdb create-blocks-from openmetrics`) or
# VictoriaMetrics' JSON lines (/api/v1/import: one line per series, milliseconds).
#
# Hosts h00000.. under ToRs r000.. (--per-tor hosts each, the planner's 48); one sample every
# --step s (30 s: the rules' rate[1m] needs 2 samples in a window) over --span s up to --end.
# Every host exports, as an agent with a fleet does (agent/daemon/README.md):
#   - full form: the 8-port host's /metrics (bench/fabric_scale_host.metrics: every family the
#     agent exports on tests/fixtures/mlx5_8port, counters growing) + the mesh budget (200);
#   - budget form: only what the fabric rules and `rocehealth fabric` read: host_info, PFC pause
#     time, ECN/CNP counters, netdev MTU + the mesh budget (200).
# The mesh budget (agent/daemon/mesh_budget.h): 24 own-ToR peers and 24 other ToRs, each with 3
# quantiles and its window failures (one gauge, any op); per destination group (own_tor,
# other_tors) latency _sum/_count and errors for both ops.
# Planted (the same in both forms; --plan prints them as JSON):
#   - a pause storm on priority 3: origin (the first host of ToR 1) sends pause 30 % of the time
#     from start+10m on without being paused; 3 ToR-mates and 3 hosts of ToR 2 are paused 20 %
#     of the time, 1 minute apart from start+12m;
#   - a failing ToR (ToR n/2): from start+30m every host's row into it fails (window errors 4,
#     quantiles NaN) and so does every row out of its hosts into other ToRs.
# Usage: fabric_scale_series.py --hosts N --end T [--span S] [--step S] [--form full|budget]
#        [--format om|vmjson] [--first I --count C] [--only-end] | --plan
import argparse
import json
import re
import sys

p = argparse.ArgumentParser()
p.add_argument("--hosts", type=int, required=True)
p.add_argument("--end", type=int, help="unix seconds of the last sample")
p.add_argument("--span", type=int, default=3600)
p.add_argument("--step", type=int, default=30)
p.add_argument("--per-tor", type=int, default=48)
p.add_argument("--form", choices=("full", "budget"), default="full")
p.add_argument("--format", choices=("om", "vmjson"), default="om")
p.add_argument("--first", type=int, default=0, help="first host of this chunk")
p.add_argument("--count", type=int, help="hosts in this chunk (default: the rest)")
p.add_argument("--template", default=__file__.rsplit("/", 1)[0] + "/fabric_scale_host.metrics")
p.add_argument("--plan", action="store_true", help="print the planted faults as JSON, nothing else")
p.add_argument("--only-end", action="store_true",
               help="only the sample at --end (a scrape of the fleet, bench/rule_head.sh)")
a = p.parse_args()

n, per = a.hosts, a.per_tor
ntors = (n + per - 1) // per
assert ntors >= 3, "needs at least 3 ToRs (--hosts >= 2 x --per-tor + 1)"
host = lambda i: f"h{i:05d}"
tor_of = lambda i: i // per
tor = lambda t: f"r{t:03d}"
origin = per  # first host of ToR 1
victims = [origin + 1, origin + 2, origin + 3, 2 * per, 2 * per + 1, 2 * per + 2]
bad_tor = ntors // 2 if ntors // 2 not in (1, 2) else 3 % ntors
if a.plan:
    print(json.dumps({"hosts": n, "tors": ntors, "origin": host(origin), "priority": "3",
                      "origin_tor": tor(tor_of(origin)), "victims": [host(v) for v in victims],
                      "bad_tor": tor(bad_tor), "storm_from_s": 600, "tor_from_s": 1800}))
    sys.exit(0)

start = a.end - a.span
times = [a.end] if a.only_end else list(range(start, a.end + 1, a.step))
storm_from, bad_from = start + 600, start + 1800
ms = ",".join(str(t * 1000) for t in times)
out = sys.stdout
om = a.format == "om"
if om:  # a scrape (--only-end) has no timestamps: the text format's are milliseconds
    tsuffix = ["\n"] if a.only_end else [f" {t}\n" for t in times]


def emit(name, labels, values):
    """One series: name{labels} with values (a list aligned on times, or one constant)."""
    if not isinstance(values, list):
        values = [values] * len(times)
    if om:
        head = name + "{" + labels + "} "
        out.write("".join(head + v + s for v, s in zip(values, tsuffix)))
    else:
        metric = {"__name__": name}
        metric.update(re.findall(r'(\w+)="([^"]*)"', labels))
        if "NaN" in values:  # the JSON import takes numbers only: a NaN is a missing sample
            keep = [k for k, v in enumerate(values) if v != "NaN"]
            vals = ",".join(values[k] for k in keep)
            stamps = ",".join(str(times[k] * 1000) for k in keep)
        else:
            vals, stamps = ",".join(values), ms
        out.write(f'{{"metric":{json.dumps(metric)},"values":[{vals}],"timestamps":[{stamps}]}}\n')


def counter(base, per_s):
    return [f"{base + per_s * (t - start):.6g}" for t in times]


def share_from(since, share):
    return [f"{max(0, t - since) * share:.6g}" for t in times]


# The template: (family, kind, labels-without-braces, value), planted families left out.
planted = {"rocehealth_host_info", "rocehealth_pfc_pause_duration_seconds_total"}
kinds, template = {}, []
for line in open(a.template):
    if line.startswith("# TYPE "):
        _, _, fam, kind = line.split()
        kinds[fam] = kind
        continue
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r"(\w+)(?:\{(.*)\})? (\S+)", line)
    name, labels, value = m.group(1), m.group(2) or "", float(m.group(3))
    if name in planted:
        continue
    fam = re.sub(r"_(total|sum|count)$", "", name)
    is_counter = kinds.get(fam) in ("counter", "summary") or name.endswith("_total")
    template.append((name, labels, value, is_counter))
read = ("rocehealth_ecn_marked_packets_total", "rocehealth_cnp_sent_total",
        "rocehealth_netdev_mtu_bytes", "rocehealth_port_active_mtu_bytes",
        "rocehealth_pfc_enabled", "rocehealth_port_trust_info")
if a.form == "budget":
    template = [row for row in template if row[0] in read]
ports = [(f"mlx5_{d}", f"ens{d // 2 + 1}f{d % 2}np{d % 2}") for d in range(8)]
pause_tx = {origin: share_from(storm_from, 0.30)}
pause_rx = {v: share_from(storm_from + 120 + 60 * k, 0.20) for k, v in enumerate(victims)}
zero = "0"
ok_p50, ok_tail = "5e-06", "9e-06"
fail_errs = ["4" if t >= bad_from else "0" for t in times]
fail_lat = ["NaN" if t >= bad_from else ok_p50 for t in times]
quantiles = (("0.5", ok_p50), ("0.99", ok_tail), ("0.999", ok_tail))

last = n if a.count is None else min(n, a.first + a.count)
for i in range(a.first, last):
    h, t = host(i), tor_of(i)
    inst = f'instance="{h}:9900",job="rocehealth"'
    emit("rocehealth_host_info", f'{inst},host="{h}",tor="{tor(t)}"', "1")
    for name, labels, value, is_counter in template:
        lab = inst + ("," + labels if labels else "")
        v = counter(value, 1 + value % 7) if is_counter and value > 0 else f"{value:g}"
        emit(name, lab, v)
    for dev, nd in ports:
        for d, plant in (("rx", pause_rx), ("tx", pause_tx)):
            vals = plant.get(i, zero) if dev == "mlx5_0" else zero
            emit("rocehealth_pfc_pause_duration_seconds_total",
                 f'{inst},device="{dev}",direction="{d}",netdev="{nd}",port="1",priority="3"', vals)
    # The mesh budget: 24 own-ToR peers, 24 other ToRs (the failing one among them once it fails:
    # it is the worst; shown before too, healthy, to keep the series count steady).
    mates = [j for j in range(t * per, min(n, (t + 1) * per)) if j != i][:24]
    others = [(t + k) % ntors for k in range(1, ntors)][:24]
    if bad_tor != t and bad_tor not in others:
        others[-1] = bad_tor
    for j in mates:
        base = f'{inst},peer="{host(j)}:18515"'
        for q, v in quantiles:
            emit("rocehealth_probe_latency_seconds", f'{base},op="write",size_bytes="64",quantile="{q}"', v)
        emit("rocehealth_probe_window_errors", base, zero)
    for d in others:
        failing = d == bad_tor or t == bad_tor
        base = f'{inst},dst_tor="{tor(d)}"'
        for q, v in quantiles:
            emit("rocehealth_probe_tor_latency_seconds",
                 f'{base},op="write",size_bytes="64",quantile="{q}"', fail_lat if failing else v)
        emit("rocehealth_probe_tor_window_errors", base, fail_errs if failing else zero)
    for g in ("own_tor", "other_tors"):
        base = f'{inst},dst_group="{g}"'
        emit("rocehealth_probe_group_latency_seconds_sum", f'{base},op="write",size_bytes="64"',
             counter(0, 0.0002))
        emit("rocehealth_probe_group_latency_seconds_count", f'{base},op="write",size_bytes="64"',
             counter(0, 40))
        for op in ("connect", "write"):
            emit("rocehealth_probe_group_errors_total", f'{base},op="{op}"', zero)
if om:
    out.write("# EOF\n")
