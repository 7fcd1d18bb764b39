#!/bin/bash
# `rocehealth rules check` / `rules test` as a user meets them when something is wrong: every
# bad rule of a file named with its field (not only the first), a scenario whose expectation
# differs from the findings named FAIL with what is missing and what was unexpected, a rules file
# without a rule the scenarios need, and a broken expected.json named by file and field.
# Usage: test_rules_cmd.sh ROCEHEALTH_BINARY REPO
set -u
bin=$1 repo=$2
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
fails=0
check() {  # check WHAT CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
shipped=$repo/rules/rocehealth-rules.json

# 1. The shipped file passes, with its count of rules.
out=$("$bin" rules check "$shipped"); rc=$?
check "shipped rules: exit 0" [ $rc = 0 ]
check "shipped rules: 'ok, N rules'" grep -Eq ": ok, [0-9]+ rules" <<<"$out"

# 2. Three bad rules in one file: all three reported, by index and field; exit 1.
python3 - "$shipped" "$work/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rules"][1]["severity"] = "fatal"
d["rules"][3]["group_by"] = ["no_such_label"]
d["rules"][5]["bogus"] = 1
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
"$bin" rules check "$work/bad.json" >"$work/out" 2>"$work/err"; rc=$?
check "bad rules: exit 1" [ $rc = 1 ]
check "bad rules: rules[1].severity named" grep -q "bad.json: rules\[1\].severity" "$work/err"
check "bad rules: rules[3].group_by named" grep -q "bad.json: rules\[3\].group_by" "$work/err"
check "bad rules: rules[5].bogus named" grep -q "bad.json: rules\[5\].*bogus" "$work/err"
check "bad rules: '3 problems'" grep -q "3 problems" "$work/out"
"$bin" rules check "$work/none.json" >/dev/null 2>"$work/err"; rc=$?
check "missing file: exit 1, named" [ $rc = 1 ] && grep -q "none.json" "$work/err"

# 2b. A summary placeholder the engine does not fill in (a typo would print "?" in every
# finding): named with the rule's path, like the other problems; the shipped summaries pass.
python3 - "$shipped" "$work/placeholder.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
i = next(k for k, r in enumerate(d["rules"]) if r["id"] == "link_flap")
d["rules"][i]["summary"] += " {carier} {devise}"
json.dump(d, open(sys.argv[2], "w"), indent=1)
print(i, file=open(sys.argv[2] + ".index", "w"))
PY
i=$(cat "$work/placeholder.json.index")
"$bin" rules check "$work/placeholder.json" >"$work/out" 2>"$work/err"; rc=$?
check "unknown placeholder: exit 1" [ $rc = 1 ]
check "unknown placeholder: {carier} named at rules[$i].summary" \
  grep -q "placeholder.json: rules\[$i\].summary: unknown placeholder {carier} (this rule fills in: .*{carrier}" "$work/err"
check "unknown placeholder: {devise} named too" grep -q "rules\[$i\].summary: unknown placeholder {devise}" "$work/err"
check "unknown placeholder: '2 problems'" grep -q "2 problems" "$work/out"

# 3. A scenario whose expected severity is not what the rules give: FAIL, missing + unexpected.
cp -r "$repo/tests/scenarios/rnr" "$work/rnr"
python3 - "$work/rnr/expected.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
for f in d["findings"]: f["severity"] = "warning"
json.dump(d, open(p, "w"))
PY
"$bin" rules test --rules "$shipped" "$work/rnr" >"$work/out" 2>&1; rc=$?
check "wrong expectation: exit 1" [ $rc = 1 ]
check "wrong expectation: FAIL rnr" grep -q "^FAIL rnr" "$work/out"
check "wrong expectation: missing rnr@gpu01/warning" grep -q "missing rnr@gpu01/warning" "$work/out"
check "wrong expectation: unexpected rnr@gpu01/error" grep -q "unexpected rnr@gpu01/error" "$work/out"
check "wrong expectation: '0 of 1 scenarios'" grep -q "0 of 1 scenarios as expected" "$work/out"

# 4. A rules file without the rnr rule: the unchanged scenario fails for the missing finding.
python3 - "$shipped" "$work/no-rnr.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rules"] = [r for r in d["rules"] if r["id"] != "rnr" and "rnr" not in r.get("instead_of", [])]
json.dump(d, open(sys.argv[2], "w"))
PY
"$bin" rules test --rules "$work/no-rnr.json" "$repo/tests/scenarios/rnr" >"$work/out" 2>&1; rc=$?
check "rules without rnr: exit 1, missing rnr@gpu01" [ $rc = 1 ] && grep -q "missing rnr@gpu01" "$work/out"

# 5. A broken expected.json: exit 2, file and field named.
echo '{"findings": [{"rule": "rnr", "hots": "gpu01"}], "exit": 1}' >"$work/rnr/expected.json"
"$bin" rules test --rules "$shipped" "$work/rnr" >/dev/null 2>"$work/err"; rc=$?
check "bad expected.json: exit 2" [ $rc = 2 ]
check "bad expected.json: file and field named" grep -q "rnr/expected.json.*findings\[0\].hots" "$work/err"
"$bin" rules test --rules "$shipped" "$work" >/dev/null 2>"$work/err"; rc=$?
check "no scenario under a dir: exit 2 (the bad one is still read)" [ $rc = 2 ]
# An expectation that can never be met is a read error too: an unknown severity, a finding
# expected twice.
echo '{"findings": [{"rule": "rnr", "host": "gpu01", "severity": "catastrophic"}], "exit": 1}' >"$work/rnr/expected.json"
"$bin" rules test --rules "$shipped" "$work/rnr" >/dev/null 2>"$work/err"; rc=$?
check "unknown severity: exit 2, named" [ $rc = 2 ] && grep -q "findings\[0\].severity" "$work/err"
echo '{"findings": [{"rule": "rnr", "host": "gpu01"}, {"rule": "rnr", "host": "gpu01"}], "exit": 1}' >"$work/rnr/expected.json"
"$bin" rules test --rules "$shipped" "$work/rnr" >/dev/null 2>"$work/err"; rc=$?
check "finding expected twice: exit 2, named" [ $rc = 2 ] && grep -q "findings\[1\]: expected twice" "$work/err"

[ $fails = 0 ] || { echo "$fails check(s) failed"; exit 1; }
