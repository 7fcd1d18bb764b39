#!/usr/bin/env bash
# Runs the diagnosis case suite: every case directory of CASES_DIR listed in CASES_DIR/EXPECTED,
# as `rocehealth diagnose --bundle DIR ...` (capture dirs in `sort -V` order, plus the words of
# the case's ARGS file), and checks exit code and regexes (README.md). Then `diagnose --json` of
# every case must parse, and an exit-2 document must carry an "error" field.
# Prints per class right/total, the false positives (healthy controls called faulty: expected
# exit 0, or 2 "could not judge rates"; got 1) and false negatives (expected 1, got 0 or 2). Exit 0 only if every case passes.
# An EXPECTED line may carry several regexes (each must match) and `!regex` (must not match).
# usage: run_cases.sh ROCEHEALTH_BINARY CASES_DIR [CASE_ID...]
set -u
bin=${1:?usage: run_cases.sh ROCEHEALTH_BINARY CASES_DIR [CASE_ID...]}
dir=${2:?usage: run_cases.sh ROCEHEALTH_BINARY CASES_DIR [CASE_ID...]}
shift 2
only=("$@")
[[ -x $bin ]] || { echo "run_cases.sh: $bin is not an executable" >&2; exit 2; }
[[ -f $dir/EXPECTED ]] || { echo "run_cases.sh: $dir/EXPECTED is missing" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
dir=$(cd "$dir" && pwd)
results=$(mktemp)
trap 'rm -f "$results"' EXIT

while read -r id cls want rx; do
    [[ -z ${id:-} || $id == \#* ]] && continue
    if ((${#only[@]})) && [[ " ${only[*]} " != *" $id "* ]]; then continue; fi
    case_dir=$dir/$id
    if [[ ! -d $case_dir || ! $want =~ ^[0-2](\|[0-2])*$ ]]; then
        echo "$id $cls $want ? FAIL bad-entry" >>"$results"
        echo "FAIL $id: EXPECTED line malformed or case directory missing"
        continue
    fi
    # a healthy control: expected healthy (0), or expected "could not judge rates" (2)
    ctl=0
    [[ $want == 0 || ($want == 2 && ${rx:-} == *judge*) ]] && ctl=1
    captures=()
    while IFS= read -r c; do captures+=(--bundle "$c"); done < <(
        cd "$case_dir" && find . -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -V)
    args=()
    [[ -f $case_dir/ARGS ]] && read -r -a args <"$case_dir/ARGS"
    # Relative capture paths, run from the case dir: the output can cite "t0/file:line".
    out=$(cd "$case_dir" && timeout 60 "$bin" diagnose "${captures[@]}" "${args[@]}" 2>&1)
    got=$?
    jout=$(cd "$case_dir" && timeout 60 "$bin" diagnose "${captures[@]}" "${args[@]}" --json 2>/dev/null)
    jgot=$?
    verdict=$(RX=${rx:--} GOT=$got WANT=$want JGOT=$jgot OUT=$out JOUT=$jout python3 -c '
import json, os, re
out, got = os.environ["OUT"], int(os.environ["GOT"])
wants = [int(w) for w in os.environ["WANT"].split("|")]
why = []
if got not in wants:
    why.append("exit %d, expected %s" % (got, os.environ["WANT"]))
# The findings part: everything after the headline; for exit 2 the whole output (no findings).
part = out.split("\n", 1)[1] if (got == 1 and "\n" in out) else out
fl = re.I | re.S
# Each column must match; a column starting with "!" must not.
for rx in os.environ["RX"].split():
    if rx == "-":
        continue
    if rx.startswith("!"):
        m = re.search(rx[1:], part, fl)
        if m:
            why.append("must not match /%s/ (matched %r)" % (rx[1:], m.group(0)[:60]))
    elif not re.search(rx, part, fl):
        why.append("no match for /%s/" % rx)
try:
    doc = json.loads(os.environ["JOUT"])
    if int(os.environ["JGOT"]) == 2 and not (isinstance(doc, dict) and "error" in doc):
        why.append("--json exit 2 without an \"error\" field")
except ValueError as e:
    why.append("--json output does not parse (exit %s): %s" % (os.environ["JGOT"], e))
print("PASS" if not why else "FAIL " + "; ".join(why))
')
    if [[ $verdict == PASS ]]; then
        echo "$id $cls $want $got PASS $ctl" >>"$results"
        echo "pass $id"
    else
        echo "$id $cls $want $got FAIL $ctl" >>"$results"
        echo "FAIL $id (class $cls): ${verdict#FAIL }"
        # the headline and the finding headers, so the failure can be routed
        echo "$out" | grep -E '^(rocehealth diagnose|\[[a-z]+\] |rocehealth)' | head -6 | sed 's/^/     | /'
    fi
done <"$dir/EXPECTED"

# A case directory (one with a SOURCE file) that EXPECTED does not list would never run: a failure.
if ((${#only[@]} == 0)); then
    for s in "$dir"/*/SOURCE; do
        id=$(basename "$(dirname "$s")")
        if ! grep -q "^$id " "$dir/EXPECTED"; then
            echo "FAIL $id: has no line in EXPECTED"
            echo "$id ? ? ? FAIL 0" >>"$results"
        fi
    done
fi

python3 - "$results" <<'PY'
import sys, collections
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
def key(c):
    return (0, int(c)) if c.isdigit() else (1, c)
by = collections.OrderedDict()
for cls in sorted({r[1] for r in rows}, key=key):
    by[cls] = [r for r in rows if r[1] == cls]
print("\nclass  right/total  failing")
for cls, rs in by.items():
    ok = sum(r[4] == "PASS" for r in rs)
    fails = " ".join(r[0] for r in rs if r[4] != "PASS")
    print("%5s  %5d/%-5d  %s" % (cls, ok, len(rs), fails))
ok = sum(r[4] == "PASS" for r in rows)
healthy = [r for r in rows if len(r) > 5 and r[5] == "1"]
fp = [r[0] for r in healthy if r[3] == "1"]
fn = [r[0] for r in rows if "1" in r[2].split("|") and r[3] != "1"]
print("total  %5d/%-5d" % (ok, len(rows)))
print("healthy controls (expected 0, or 2 'could not judge'): %d; false positives (exit 1): %d %s"
      % (len(healthy), len(fp), " ".join(fp)))
print("false negatives (expected 1, got 0 or 2): %d %s" % (len(fn), " ".join(fn)))
sys.exit(0 if ok == len(rows) and rows else 1)
PY
