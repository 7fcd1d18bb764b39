#!/bin/bash
# Replays every scenario of tests/scenarios through `rocehealth diagnose --replay ... --json` and
# compares with its expected.json: the exit code, and the findings as a set of
# (rule, host, labels, severity). An expected finding matches a reported one with the same rule
# and host whose labels include the expected labels (the engine may add device/port/netdev) and
# whose severity is the expected one. Every expected finding must be reported and every reported
# finding must be expected. Prints one table row per scenario.
# Usage: run_scenarios.sh ROCEHEALTH_BINARY SCENARIO_DIR
set -u
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -d "$2" ]; then
  echo "usage: $0 ROCEHEALTH_BINARY SCENARIO_DIR" >&2
  exit 2
fi
bin=$1 dir=$2
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
n=0
for expected in "$dir"/*/expected.json; do
  [ -f "$expected" ] || continue
  sc=$(dirname "$expected")
  name=$(basename "$sc")
  args=()
  for f in "$sc"/*.jsonl; do args+=(--replay "$f"); done
  "$bin" diagnose "${args[@]}" --json >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.rc"
  n=$((n + 1))
done
if [ "$n" = 0 ]; then
  echo "FAIL: no scenario (*/expected.json) under $dir" >&2
  exit 1
fi

python3 - "$dir" "$work" <<'EOF'
import json, os, sys

root, work = sys.argv[1], sys.argv[2]


def show(f):
    labels = ",".join(f"{k}={v}" for k, v in sorted((f.get("labels") or {}).items())
                      if k not in ("device", "port", "netdev"))
    return f"{f.get('rule')}@{f.get('host')}" + (f"{{{labels}}}" if labels else "") + \
        (f"/{f['severity']}" if f.get("severity") else "")


def matches(e, g):
    if e["rule"] != g.get("rule") or e["host"] != g.get("host"):
        return False
    if "severity" in e and e["severity"] != g.get("severity"):
        return False
    got_labels = g.get("labels") or {}
    return all(got_labels.get(k) == v for k, v in (e.get("labels") or {}).items())


rows, failures = [], []
for name in sorted(os.listdir(work)):
    if not name.endswith(".rc"):
        continue
    name = name[:-3]
    exp = json.load(open(os.path.join(root, name, "expected.json")))
    rc = int(open(os.path.join(work, name + ".rc")).read())
    out = open(os.path.join(work, name + ".out")).read()
    err = open(os.path.join(work, name + ".err")).read().strip()
    problems = []
    if rc != exp["exit"]:
        problems.append(f"exit {rc}, expected {exp['exit']}")
    got = None
    try:
        doc = json.loads(out)
        got = doc.get("findings") if isinstance(doc, dict) else None
        if not isinstance(got, list):
            problems.append("JSON output has no \"findings\" array")
            got = None
    except ValueError as e:
        problems.append(f"output is not JSON ({e})" + (f"; stderr: {err[:300]}" if err else ""))
    if got is not None:
        for e in exp["findings"]:
            if not any(matches(e, g) for g in got):
                problems.append(f"missing {show(e)}")
        for g in got:
            if not any(matches(e, g) for e in exp["findings"]):
                problems.append(f"unexpected {show(g)}")
    want_s = " ".join(show(e) for e in exp["findings"]) or "-"
    got_s = "?" if got is None else (" ".join(sorted({show(g) for g in got})) or "-")
    rows.append((name, f"{exp['exit']}/{rc}", want_s, got_s, "ok" if not problems else "FAIL"))
    if problems:
        failures.append((name, problems))

head = ("scenario", "exit exp/got", "expected", "got", "")
widths = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
for r in [head] + rows:
    print("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4])
for name, problems in failures:
    for p in problems:
        print(f"FAIL {name}: {p}", file=sys.stderr)
print(f"{len(rows) - len(failures)} of {len(rows)} scenarios as expected")
sys.exit(1 if failures else 0)
EOF
