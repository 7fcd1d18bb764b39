#!/usr/bin/env python3
# One evaluation cycle of each rule group, timed on Prometheus for bench/fabric_scale.sh: every
# rule's expression as an instant query at time T with stats=all (the engine's evalTotalTime,
# without the HTTP answer), summed per group. Run it after the rules were replayed over the
# data (their series exist at T), so that a rule reading another rule's series reads what it
# would read in a live cycle. Prints one line per group: NAME SECONDS RULES SLOWEST SLOWEST_S
# (a rule whose query failed is printed as an error line, "ERROR NAME: reason").
# Usage: rule_times.py URL T RULE_FILE...
import json
import sys
import urllib.parse
import urllib.request

import yaml

url, t, files = sys.argv[1], sys.argv[2], sys.argv[3:]
for f in files:
    for g in yaml.safe_load(open(f))["groups"]:
        total, slowest = 0.0, ("-", 0.0)
        for r in g["rules"]:
            name = r.get("record") or r.get("alert")
            body = urllib.parse.urlencode({"query": r["expr"], "time": t, "stats": "all"}).encode()
            try:
                with urllib.request.urlopen(url + "/api/v1/query", body, timeout=600) as a:
                    s = json.load(a)["data"]["stats"]["timings"]["evalTotalTime"]
            except Exception as e:  # a refused query is a finding of the bench, not its end
                print(f"ERROR {name}: {e}")
                continue
            total += s
            slowest = max(slowest, (name, s), key=lambda x: x[1])
        print(f"{g['name']} {total:.3f} {len(g['rules'])} {slowest[0]} {slowest[1]:.3f}")
