#!/bin/bash
# `rocehealth diagnose --bundle` on too little data and on lifetime counters (issue 12, classes 2
# and 3) and its --json on every exit 2: one capture is "could not judge rates" (exit 2) unless
# lifetime evidence gives a finding (exit 1, still saying rates could not be judged); a span
# shorter than a rule's window or hold names that rule; errors are a JSON document on stdout.
# Usage: test_diagnose_judged.sh ROCEHEALTH_BINARY
set -u
bin=$1 failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

run() {  # run WANT_EXIT LABEL ARGS...: sets $out (stdout+stderr); checks the exit code
  local want=$1 label=$2; shift 2
  out=$("$bin" "$@" 2>&1); local rc=$?
  [ "$rc" = "$want" ] || fail "$label: exit $rc, expected $want; output: $out"
}
run_json() {  # run_json WANT_EXIT LABEL ARGS...: sets $out (stdout only)
  local want=$1 label=$2; shift 2
  out=$("$bin" "$@" 2>/dev/null); local rc=$?
  [ "$rc" = "$want" ] || fail "$label: exit $rc, expected $want; stdout: $out"
}
has() {  # has LABEL TEXT...: every TEXT in $out
  local label=$1; shift
  for t in "$@"; do grep -qF -- "$t" <<<"$out" || fail "$label: '$t' not in output: $out"; done
}
lacks() {
  local label=$1; shift
  for t in "$@"; do grep -qF -- "$t" <<<"$out" && fail "$label: '$t' unexpectedly in output: $out"; done
}
json_check() {  # json_check LABEL PYTHON: PYTHON asserts on d = the JSON in $out
  python3 -c "import json,sys
d=json.loads(sys.stdin.read())
$2" <<<"$out" || fail "$1: JSON check failed: $out"
}

# capture DIR TIMESTAMP CNP_SENT ECN_MARKED ACK_TIMEOUTS RDMA_TX_PACKETS: one mlx5 capture.
capture() {
  mkdir -p "$1"
  echo gpu07 >"$1/hostname"
  echo "$2" >"$1/timestamp"
  local hw=/sys/class/infiniband/mlx5_0/ports/1/hw_counters
  cat >"$1/hw_counters" <<EOF
$hw/local_ack_timeout_err:$5
$hw/np_cnp_sent:$3
$hw/np_ecn_marked_roce_packets:$4
$hw/out_of_sequence:0
$hw/packet_seq_err:0
$hw/req_transport_retries_exceeded:0
$hw/rnr_nak_retry_err:0
$hw/rp_cnp_handled:0
EOF
  cat >"$1/ethtool-S" <<EOF
NIC statistics:
     rx_vport_rdma_unicast_packets: $6
     tx_vport_rdma_unicast_packets: $6
EOF
}

# One capture, CNPs with no ECN mark since the reset: a lifetime finding (exit 1) with low
# confidence, and the rates are still said to be not judged.
capture "$work/cnp/t0" 1765713600 1333 0 12 5000000000
run 1 "lifetime cnp" diagnose --bundle "$work/cnp/t0"
has "lifetime cnp" "[warning] lifetime_cnp_without_ecn on gpu07" "since the counters were last reset" \
  "could not judge rates: one capture of gpu07" "confidence: low"
run_json 1 "lifetime cnp --json" diagnose --bundle "$work/cnp/t0" --json
json_check "lifetime cnp --json" '
f=[x for x in d["findings"] if x["rule"]=="lifetime_cnp_without_ecn"]
assert len(f)==1 and f[0]["confidence"]["level"]=="low", f
assert d["verdict"]=="findings" and "could not judge rates" in d["could_not_judge"]
assert "error" not in d'

# One capture of a healthy-looking host: not "no findings" but could not judge (exit 2).
capture "$work/one/t0" 1765713600 5000 5200 12 5000000000
run 2 "one capture" diagnose --bundle "$work/one/t0"
has "one capture" "could not judge rates: one capture of gpu07, rates need two (" \
  "ecn_counters_inconsistent needs two captures at least 30 s apart"
lacks "one capture" "no findings"
run_json 2 "one capture --json" diagnose --bundle "$work/one/t0" --json
json_check "one capture --json" '
assert d["verdict"]=="could_not_judge" and d["error"].startswith("could not judge rates"), d
nj={n["rule"]:n for n in d["not_judged"]}
assert nj["ecn_counters_inconsistent"]["kind"]=="one_capture" and nj["ecn_counters_inconsistent"]["captures"]==1, nj'

# Two captures 10 s apart: CNPs grow, marks do not (but are not zero since the reset). The
# 30 s window / 20 s hold rule cannot be judged over 10 s: named, exit 2.
capture "$work/short/t0" 1765713600 5000 5 12 5000000000
capture "$work/short/t1" 1765713610 5400 5 12 5001000000
run 2 "10 s span" diagnose --bundle "$work/short/t0" --bundle "$work/short/t1"
has "10 s span" "ecn_counters_inconsistent needs 30 s of data (a 30 s window, a 20 s hold), the captures of gpu07 span 10 s"
# The same counters 30 s apart: judged, a finding.
capture "$work/full/t0" 1765713600 5000 5 12 5000000000
capture "$work/full/t1" 1765713630 5400 5 12 5001000000
run 1 "30 s span" diagnose --bundle "$work/full/t0" --bundle "$work/full/t1"
has "30 s span" "[warning] ecn_counters_inconsistent on gpu07"
lacks "30 s span" "could not judge"
# 10 s apart but the marks grow too: the short data already rules it out: healthy.
capture "$work/ok/t0" 1765713600 5000 5200 12 5000000000
capture "$work/ok/t1" 1765713610 5400 5700 12 5001000000
run 0 "10 s span, marks grow" diagnose --bundle "$work/ok/t0" --bundle "$work/ok/t1"
has "10 s span, marks grow" "no findings"

# Every exit 2 with --json prints a JSON document with the error on stdout.
run_json 2 "missing bundle --json" diagnose --bundle "$work/no-such-dir" --json
json_check "missing bundle --json" 'assert d["verdict"]=="error" and "no-such-dir" in d["error"], d'
run_json 2 "bad option --json" diagnose --bogus --json
json_check "bad option --json" 'assert d["verdict"]=="error" and "bogus" in d["error"], d'
echo '{"schema": 1, "rules": []}' >"$work/empty-rules.json"
run_json 2 "bad rules --json" diagnose --bundle "$work/one/t0" --rules "$work/empty-rules.json" --json
json_check "bad rules --json" 'assert d["verdict"]=="error" and "empty-rules.json" in d["error"], d'
run_json 2 "nothing to diagnose --json" diagnose --json
json_check "nothing to diagnose --json" 'assert "nothing to diagnose" in d["error"], d'
# Without --json stdout stays empty on an error (the message is on stderr).
[ -z "$("$bin" diagnose --bundle "$work/no-such-dir" 2>/dev/null)" ] || fail "error without --json wrote to stdout"

[ "$failed" = 0 ] && echo "all diagnose judged/lifetime checks passed"
exit "$failed"
