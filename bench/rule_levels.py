#!/usr/bin/env python3
# Splits recording rules into dependency levels for bench/fabric_scale.sh: `promtool tsdb
# create-blocks-from rules` evaluates every rule against the server's API, so a rule that reads
# another rule's series (rocehealth:probe_pair_bad_between_tors:2m reads rocehealth:probe_pair_bad:2m)
# sees it only once that rule's blocks are loaded. Level 1: rules reading only exported series;
# level n: rules reading a series recorded at level n-1 at most. Writes OUTDIR/level<n>.yml
# (each group keeps its name and interval; alerting rules are left out: promtool does not
# evaluate them) and prints their paths, level 1 first.
# Usage: rule_levels.py OUTDIR RULE_FILE...
import os
import re
import sys

import yaml

out_dir, files = sys.argv[1], sys.argv[2:]
groups = [g for f in files for g in yaml.safe_load(open(f))["groups"]]
recorded = {r["record"] for g in groups for r in g["rules"] if "record" in r}
level = {}


def level_of(rule):
    """1 + the highest level among the recorded series its expression names."""
    if rule["record"] not in level:
        deps = [n for n in recorded if n != rule["record"]
                and re.search(re.escape(n) + r"(?![\w:])", rule["expr"])]
        level[rule["record"]] = 1 + max((level_of(by_name[d]) for d in deps), default=0)
    return level[rule["record"]]


by_name = {r["record"]: r for g in groups for r in g["rules"] if "record" in r}
levels = {}
for g in groups:
    for r in g["rules"]:
        if "record" in r:
            head = {k: v for k, v in g.items() if k != "rules"}
            lg = levels.setdefault(level_of(r), {})
            lg.setdefault(g["name"], dict(head, rules=[]))["rules"].append(r)
os.makedirs(out_dir, exist_ok=True)
for n in sorted(levels):
    path = os.path.join(out_dir, f"level{n}.yml")
    with open(path, "w") as f:
        yaml.safe_dump({"groups": list(levels[n].values())}, f, sort_keys=False, width=1000)
    print(path)
