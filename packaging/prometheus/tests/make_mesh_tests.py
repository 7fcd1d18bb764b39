#!/usr/bin/env python3
"""Writes mesh.yml: promtool unit tests of the ToR localisation rules (rocehealth-fabric-rules.yml,
group rocehealth-fabric-mesh). A full mesh of six agents is 30 probe pairs per test, too many to
write by hand. Fabric: h1, h2 under ToR r1; h3, h4 under r2; h5, h6 under r3. Each agent probes
the other five; peers are written as "hN" or "hN:18520" (both forms of mesh.peers). The
topology-aware cases (mesh.peers_file) have per-peer series only inside a ToR and one row per
host and other ToR (rocehealth_probe_tor_*{dst_tor}); each runs twice: with the error counters
of older agents and in the series budget's form of today's (agent/daemon/mesh_budget.h: failures
in the summary window as gauges, *_window_errors, plus the per-group totals), whose worst rows
at six hosts are every row.
usage: make_mesh_tests.py > mesh.yml   (tests/agent/test_prometheus_files.sh checks it is current)
"""

HOSTS = {"h1": "r1", "h2": "r1", "h3": "r2", "h4": "r2", "h5": "r3", "h6": "r3"}
HEALTHY_S, SLOW_S = "0.000005", "0.00005"  # p50 5 us; 50 us is 10x the fabric's median


def host_info():
    """rocehealth_host_info of every agent, with its ToR."""
    return [line for h, tor in HOSTS.items() for line in (
        f"      - series: 'rocehealth_host_info{{instance=\"{h}:9477\",job=\"rocehealth\","
        f"host=\"{h}\",tor=\"{tor}\"}}'", "        values: '1x40'")]


def series(fails, slow, slow_s=SLOW_S, healthy_s=HEALTHY_S):
    """Input series: host_info of every agent, and per pair its connect failures (one per 15 s
    when failing) and p50 write latency (NaN when failing: no sample in the window)."""
    out = host_info()
    for src in HOSTS:
        for dst in HOSTS:
            if src == dst:
                continue
            peer = f"{dst}:18520" if dst in ("h2", "h4", "h6") else dst
            lbl = f'instance="{src}:9477",job="rocehealth",peer="{peer}"'
            bad = fails(src, dst)
            out += [f"      - series: 'rocehealth_probe_errors_total{{{lbl},op=\"connect\"}}'",
                    f"        values: '{'0+1x40' if bad else '0x40'}'"]
            # NaN has no "x40" shorthand in promtool
            lat = " ".join(["NaN"] * 41) if bad else (slow_s if slow(src, dst) else healthy_s) + "+0x40"
            out += [f"      - series: 'rocehealth_probe_latency_seconds{{{lbl},op=\"write\","
                    f"size_bytes=\"64\",quantile=\"0.5\"}}'",
                    f"        values: '{lat}'"]
    return "\n".join(out)


def tor_series(fails, budget=False):
    """Input series of the topology-aware mesh: host_info, per-peer series inside each ToR
    (healthy), and per host and other ToR its connect failures and p50 (as series()). budget:
    the failures as the window gauges (4 in the 60 s window at one per 15 s) and the group
    totals (rocehealth_probe_group_*{dst_group}) of each host."""
    out = host_info()

    def errors(family, lbl, bad):
        if budget:
            return [f"      - series: '{family.replace('errors', 'window_errors')}{{{lbl}}}'",
                    f"        values: '{'4x40' if bad else '0x40'}'"]
        return [f"      - series: '{family}_total{{{lbl},op=\"connect\"}}'",
                f"        values: '{'0+1x40' if bad else '0x40'}'"]
    for h, tor in HOSTS.items():
        for mate in HOSTS:
            if mate != h and HOSTS[mate] == tor:
                lbl = f'instance="{h}:9477",job="rocehealth",peer="{mate}"'
                out += errors("rocehealth_probe_errors", lbl, False)
                out += [f"      - series: 'rocehealth_probe_latency_seconds{{{lbl},op=\"write\","
                        f"size_bytes=\"64\",quantile=\"0.5\"}}'",
                        f"        values: '{HEALTHY_S}+0x40'"]
        bad_rows = 0
        for dst_tor in sorted(set(HOSTS.values()) - {tor}):
            lbl = f'instance="{h}:9477",job="rocehealth",dst_tor="{dst_tor}"'
            bad = fails(h, dst_tor)
            bad_rows += bad
            lat = " ".join(["NaN"] * 41) if bad else HEALTHY_S + "+0x40"
            out += errors("rocehealth_probe_tor_errors", lbl, bad)
            out += [f"      - series: 'rocehealth_probe_tor_latency_seconds{{{lbl},op=\"write\","
                    f"size_bytes=\"64\",quantile=\"0.5\"}}'",
                    f"        values: '{lat}'"]
        if budget:  # totals: one sample of 5 us a second per healthy row, a failure per 15 s per bad one
            for group, good, nbad in (("own_tor", 1, 0), ("other_tors", 2 - bad_rows, bad_rows)):
                lbl = f'instance="{h}:9477",job="rocehealth",dst_group="{group}"'
                out += [f"      - series: 'rocehealth_probe_group_errors_total{{{lbl},op=\"connect\"}}'",
                        f"        values: '0+{nbad}x40'",
                        f"      - series: 'rocehealth_probe_group_latency_seconds_sum{{{lbl},op=\"write\",size_bytes=\"64\"}}'",
                        f"        values: '0+{good * 15 * 5e-6:g}x40'",
                        f"      - series: 'rocehealth_probe_group_latency_seconds_count{{{lbl},op=\"write\",size_bytes=\"64\"}}'",
                        f"        values: '0+{good * 15}x40'"]
    return "\n".join(out)


R3_ALERT_ENTRY = """      - eval_time: 5m
        alertname: RocehealthTorProbesFailing
        exp_alerts:
          - exp_labels:
              severity: critical
              tor: r3
            exp_annotations:
              summary: "Probes into ToR r3 fail or are slow (100% of pairs)"
              description: >-
                100% of the mesh's probe pairs from other ToRs toward hosts under ToR r3 failed
                or had over 3x the fabric's median latency in the last 2 minutes, while pairs
                toward other ToRs are mostly fine: suspect the ToR or its uplinks, not the
                hosts. The pairs: rocehealth:probe_pair_bad_between_tors:2m{peer_tor="r3"} == 1
"""


def r3_alert(extra_labels=""):
    """alert_rule_test entry: RocehealthTorProbesFailing fires for ToR r3 at 5m, 100 % of pairs."""
    return R3_ALERT_ENTRY.replace("tor: r3\n", "tor: r3" + extra_labels + "\n", 1)


TOR_CASES = [
    ("topology-aware mesh, ToR r3 dead: every row into r3 fails, and r3's rows out",
     lambda h, dst_tor: "r3" in (HOSTS[h], dst_tor),
     """    promql_expr_test:
      # into r3: the rows of h1..h4; into r1 (and r2): 2 of 4 rows (h5, h6) bad
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r1"}'
            value: 0.5
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r2"}'
            value: 0.5
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}'
            value: 1
    alert_rule_test:
""" + r3_alert()),
    ("control, topology-aware mesh: one dead host (h5) fails every row into r3 (each source "
     "probes it in the window) and its own rows out; h6's rows out are fine: no ToR alert",
     lambda h, dst_tor: dst_tor == "r3" or h == "h5",
     """    promql_expr_test:
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}'
            value: 1
      - expr: rocehealth:probe_tor_rows_out_of_tor:bad_ratio
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_tor_rows_out_of_tor:bad_ratio{tor="r1"}'
            value: 0.5
          - labels: 'rocehealth:probe_tor_rows_out_of_tor:bad_ratio{tor="r2"}'
            value: 0.5
          - labels: 'rocehealth:probe_tor_rows_out_of_tor:bad_ratio{tor="r3"}'
            value: 0.5
    alert_rule_test:
      - eval_time: 5m
        alertname: RocehealthTorProbesFailing
"""),
    ("control: a healthy topology-aware mesh (rows between ToRs only, none bad)",
     lambda _s, _d: False,
     """    promql_expr_test:
      # its agents' per-peer rows (ToR-mates) skip the host_info join: known as topology-aware
      # by their counters toward other ToRs (group totals, or older agents' per-ToR counters)
      - expr: count(rocehealth:probe_pair_by_tor:group)
        eval_time: 5m
        exp_samples: []
      # no bad row is recorded; the 12 rows between ToRs are counted, 4 into each ToR, none bad
      - expr: count(rocehealth:probe_pair_bad_between_tors:2m)
        eval_time: 5m
        exp_samples: []
      - expr: rocehealth:probe_pairs_into_tor:count
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:count{peer_tor="r1"}'
            value: 4
          - labels: 'rocehealth:probe_pairs_into_tor:count{peer_tor="r2"}'
            value: 4
          - labels: 'rocehealth:probe_pairs_into_tor:count{peer_tor="r3"}'
            value: 4
      - expr: sum(rocehealth:probe_pairs_into_tor:bad_ratio)
        eval_time: 5m
        exp_samples:
          - value: 0
      - expr: sum(rocehealth:probe_tor_rows_out_of_tor:count)
        eval_time: 5m
        exp_samples:
          - value: 12
    alert_rule_test:
      - eval_time: 5m
        alertname: RocehealthTorProbesFailing
"""),
]


def never(_s, _d):
    return False


CASES = [
    ("ToR r3 dead: every pair into it fails, and its hosts' probes out",
     lambda s, d: "r3" in (HOSTS[s], HOSTS[d]), never,
     """    promql_expr_test:
      # into r3: 8 of 8 pairs from other ToRs; into r1 (and r2): the 4 of 8 from h5, h6
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r1"}'
            value: 0.5
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r2"}'
            value: 0.5
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}'
            value: 1
    alert_rule_test:
      - eval_time: 1m
        alertname: RocehealthTorProbesFailing
""" + r3_alert()),
    ("uplink into r3 congested: pairs from other ToRs into it are 10x slower, none fails",
     never, lambda s, d: HOSTS[d] == "r3" and HOSTS[s] != "r3",
     """    alert_rule_test:
""" + r3_alert()),
    ("control: one dead host (h5) is half of r3's pairs, not more: no ToR alert",
     lambda s, d: "h5" in (s, d), never,
     """    promql_expr_test:
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}'
            value: 0.5
    alert_rule_test:
      - eval_time: 5m
        alertname: RocehealthTorProbesFailing
"""),
    ("control: a healthy fabric", never, never,
     """    promql_expr_test:
      # no bad pair is recorded; the 24 pairs between ToRs are counted, 8 into each ToR
      - expr: count(rocehealth:probe_pair_bad_between_tors:2m)
        eval_time: 5m
        exp_samples: []
      - expr: count(rocehealth:probe_pair_between_tors:group)
        eval_time: 5m
        exp_samples:
          - value: 24
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r1"}'
            value: 0
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r2"}'
            value: 0
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}'
            value: 0
    alert_rule_test:
      - eval_time: 5m
        alertname: RocehealthTorProbesFailing
"""),
]

print("# Generated by make_mesh_tests.py (edit that, then: make_mesh_tests.py > mesh.yml).")
print("# promtool test rules: ToR localisation from the probe mesh.")
print("rule_files:\n  - ../rocehealth-fabric-rules.yml\nevaluation_interval: 15s\ntests:")
for name, fails, slow, checks in CASES:
    print(f"  - name: \"{name}\"\n    interval: 15s\n    input_series:")
    print(series(fails, slow))
    print(checks, end="")
for budget in (False, True):
    for name, fails, checks in TOR_CASES:
        name = ("series budget (window failures, worst rows), " if budget else "") + name
        print(f"  - name: \"{name}\"\n    interval: 15s\n    input_series:")
        print(tor_series(fails, budget))
        print(checks, end="")
# A mixed fleet: h1..h4 run the topology-aware mesh, h5 and h6 are older agents probing every
# peer. h1 also shows a failing per-peer row toward h3 (a peers_file that puts h3 under r1 while
# h3's host_info says r2): a topology-aware agent's per-peer rows are its own ToR's by
# construction and never count between ToRs (the rules before 2026-12-05 counted it: 7 pairs
# into r2, 1 bad); the older agents' per-peer rows do.
print("""  - name: "mixed fleet: older agents' per-peer rows count between ToRs, a topology-aware agent's never"
    interval: 15s
    input_series:""")
mixed = tor_series(never).split("\n")
keep, skip = [], False
for line in mixed:  # h5, h6 as older agents: their per-ToR rows and ToR-mate rows out
    if line.startswith("      - series:"):
        skip = ('instance="h5:' in line or 'instance="h6:' in line) and "host_info" not in line
    if not skip:
        keep.append(line)
print("\n".join(keep))
for src in ("h5", "h6"):
    for dst in HOSTS:
        if dst != src:
            lbl = f'instance="{src}:9477",job="rocehealth",peer="{dst}"'
            print(f"      - series: 'rocehealth_probe_errors_total{{{lbl},op=\"connect\"}}'\n"
                  f"        values: '0x40'\n"
                  f"      - series: 'rocehealth_probe_latency_seconds{{{lbl},op=\"write\","
                  f"size_bytes=\"64\",quantile=\"0.5\"}}'\n        values: '{HEALTHY_S}+0x40'")
print("""      - series: 'rocehealth_probe_errors_total{instance="h1:9477",job="rocehealth",peer="h3",op="connect"}'
        values: '0+1x40'
    promql_expr_test:
      # into r1 and r2: 2 per-ToR rows + 4 older agents' pairs each; into r3: 4 per-ToR rows
      - expr: rocehealth:probe_pairs_into_tor:count
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:count{peer_tor="r1"}'
            value: 6
          - labels: 'rocehealth:probe_pairs_into_tor:count{peer_tor="r2"}'
            value: 6
          - labels: 'rocehealth:probe_pairs_into_tor:count{peer_tor="r3"}'
            value: 4
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r2"}
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r2"}'
            value: 0
      # only the older agents' pairs are joined with host_info (5 peers each)
      - expr: count by (instance) (rocehealth:probe_pair_by_tor:group)
        eval_time: 5m
        exp_samples:
          - labels: '{instance="h5:9477"}'
            value: 5
          - labels: '{instance="h6:9477"}'
            value: 5
      # the row stays h1's own (its share of bad rows, the dashboard's worst hosts)
      - expr: rocehealth:probe_pair_bad:2m{instance="h1:9477",peer="h3"}
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pair_bad:2m{instance="h1:9477",peer="h3"}'
            value: 1
    alert_rule_test:
      - eval_time: 5m
        alertname: RocehealthTorProbesFailing
""", end="")
# The group totals, fleet-wide: r3 dead, so 4 of the 6 hosts fail one row into other ToRs (h1..h4
# into r3) and h5, h6 fail both: 8 failures per 15 s; the healthy rows' mean stays 5 us (in ns, rounded).
print("""  - name: "series budget: the per-group totals summed over the fleet (ToR r3 dead)"
    interval: 15s
    input_series:""")
print(tor_series(lambda h, dst_tor: "r3" in (HOSTS[h], dst_tor), True))
print("""    promql_expr_test:
      - expr: rocehealth:probe_group_errors:rate2m
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_group_errors:rate2m{dst_group="other_tors",op="connect"}'
            value: 0.5333333333333333
          - labels: 'rocehealth:probe_group_errors:rate2m{dst_group="own_tor",op="connect"}'
            value: 0
      - expr: round(rocehealth:probe_group_latency_seconds:mean2m{dst_group="own_tor"} * 1e9)
        eval_time: 5m
        exp_samples:
          - labels: '{dst_group="own_tor",op="write",size_bytes="64"}'
            value: 5000
""", end="")
# rocehealth_host_info twice for one (fabric, instance), or one host name under two ToRs: every
# join to host_info must stay one-to-one (else the rule fails and records nothing, fleet-wide;
# before 2026-12-06 each of these cases did). ToR r3 dead in each, as in the first case above.


def r3_dead(s, d):
    return "r3" in (HOSTS[s], HOSTS[d])


def r3_dead_rows(h, dst_tor):
    return "r3" in (HOSTS[h], dst_tor)


def scraped_twice(text, instance):
    """The series of `instance` once more, as a second scrape job's (job="rocehealth-2")."""
    lines, out = text.split("\n"), []
    for i in range(0, len(lines), 2):
        out += lines[i:i + 2]
        if f'instance="{instance}"' in lines[i]:
            out += [lines[i].replace('job="rocehealth"', 'job="rocehealth-2"'), lines[i + 1]]
    return "\n".join(out)


def in_fabric(text, fabric):
    return text.replace("{instance=", f"{{fabric=\"{fabric}\",instance=")


R3_ALERT = "    alert_rule_test:\n"
R3_SHARES = """    promql_expr_test:
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r1"}'
            value: 0.5
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r2"}'
            value: 0.5
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}'
            value: 1
"""
for name, text in (
        ("h1 scraped by two jobs (host_info twice per instance), per-peer mesh, ToR r3 dead: "
         "the shares and alert of one scrape", scraped_twice(series(r3_dead, never), "h1:9477")),
        ("h1 scraped by two jobs, series budget, ToR r3 dead: the shares and alert of one scrape",
         scraped_twice(tor_series(r3_dead_rows, True), "h1:9477"))):
    print(f"  - name: \"{name}\"\n    interval: 15s\n    input_series:\n{text}")
    print(R3_SHARES + R3_ALERT + r3_alert(), end="")
print("""  - name: "two fabrics with the same instance names, ToR r3 dead in fabric a only: a's alert, b healthy"
    interval: 15s
    input_series:""")
print(in_fabric(series(r3_dead, never), "a"))
print(in_fabric(tor_series(never, True), "b"))
print("""    promql_expr_test:
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{fabric="a",peer_tor="r3"}'
            value: 1
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{fabric="b",peer_tor="r3"}'
            value: 0
""" + R3_ALERT + r3_alert("\n              fabric: a"), end="")
# A seventh agent, h7 under r4, whose host name is h1's (a cloned image): which ToR a peer "h1"
# is under is unknown, so the rows toward h1 are left out, not counted under either ToR.
print("""  - name: "a cloned host name (h7 under r4 is also h1), ToR r3 dead: rows toward h1 left out, r3 found"
    interval: 15s
    input_series:
      - series: 'rocehealth_host_info{instance="h7:9477",job="rocehealth",host="h1",tor="r4"}'
        values: '1x40'""")
print(series(r3_dead, never))
print("""    promql_expr_test:
      # into r1: only the 4 pairs toward h2 from r2 and r3 (2 of them, from r3, bad)
      - expr: rocehealth:probe_pairs_into_tor:count{peer_tor="r1"}
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:count{peer_tor="r1"}'
            value: 4
      - expr: rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}
        eval_time: 5m
        exp_samples:
          - labels: 'rocehealth:probe_pairs_into_tor:bad_ratio{peer_tor="r3"}'
            value: 1
""" + R3_ALERT + r3_alert(), end="")
# h1 moved from ToR r0 to r1 while Prometheus was down: both host_info series live for 5 minutes
# (no stale marker). The joins take one (topk: the first in label order), not fail.
print("""  - name: "h1's host_info under two ToRs at once (a move while Prometheus was down), ToR r3 dead: r3 found"
    interval: 15s
    input_series:
      - series: 'rocehealth_host_info{instance="h1:9477",job="rocehealth",host="h1",tor="r0"}'
        values: '1x40'""")
print(series(r3_dead, never))
print(R3_ALERT + r3_alert(), end="")
# Healthy configurations that must stay healthy, and a fault that must still be found in them
# (a helper's cases against a lower-quartile reference, 2026-12-06: each of them failed there).
# Two NIC generations: h2, h4 and h6 answer in 12 us, the others in 5 us.
# A deep-buffer spine: pairs between ToRs take 5 us, pairs inside a ToR 1.5 us (3.3x).
def between(s, d):
    return HOSTS[s] != HOSTS[d]


for name, fails, text_args, checks in (
        ("control: two NIC generations (12 us beside 5 us) are no slow pairs",
         never, (lambda s, d: d in ("h2", "h4", "h6"), "0.000012"), "none"),
        ("control: a deep-buffer spine (5 us between ToRs, 1.5 us inside one) is no slow pair",
         never, (between, "0.000005", "0.0000015"), "none"),
        ("deep-buffer spine, ToR r3 dead: r3 found", r3_dead,
         (between, "0.000005", "0.0000015"), "r3")):
    print(f"  - name: \"{name}\"\n    interval: 15s\n    input_series:")
    print(series(fails, *text_args))
    if checks == "none":
        print("""    promql_expr_test:
      - expr: count(rocehealth:probe_pair_bad:2m)
        eval_time: 5m
        exp_samples: []
    alert_rule_test:
      - eval_time: 5m
        alertname: RocehealthTorProbesFailing
""", end="")
    else:
        print(R3_ALERT + r3_alert(), end="")
