#!/bin/bash
# `rocehealth record` and `rocehealth diagnose` end to end on fixture trees, bundle captures and
# hand-damaged recordings: exit codes, the sentences an operator reads, and errors that name the
# file, line or field. Usage: test_record_diagnose.sh ROCEHEALTH_BINARY FIXTURES_DIR
set -u
bin=$1 fx=$2 failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

run() {  # run WANT_EXIT LABEL ARGS...: sets $out (stdout+stderr); checks the exit code
  local want=$1 label=$2; shift 2
  out=$("$bin" "$@" 2>&1); local rc=$?
  [ "$rc" = "$want" ] || fail "$label: exit $rc, expected $want; output: $out"
}
has() {  # has LABEL TEXT...: every TEXT in $out
  local label=$1; shift
  for t in "$@"; do grep -qF -- "$t" <<<"$out" || fail "$label: '$t' not in output: $out"; done
}

# record: 1 s at 250 ms on the 8-port fixture -> 5 passes, first with the inventory.
rec=$work/x8.jsonl
run 0 record record --out "$rec" --interval 250ms --duration 1s --sysfs-root "$fx/mlx5_x8/sys" --host lab-x8
has record "5 passes" "to $rec"
[ "$(grep -c '"kind":"inventory"' "$rec")" = 1 ] || fail "record: expected one inventory sample"
[ "$(grep -c '"series":"port_state_code"' "$rec")" -ge 5 ] || fail "record: port_state_code not in every pass"
grep -q '"host":"lab-x8"' "$rec" || fail "record: --host not applied"
# --host names the host of every sample: empty, over 253 bytes or unprintable is refused by name.
run 2 "record --host ''" record --out "$work/h.jsonl" --duration 1s --sysfs-root "$fx/mlx5_x8/sys" --host ""
has "record --host ''" "rocehealth record: --host: empty"
run 2 "record --host 300 bytes" record --out "$work/h.jsonl" --duration 1s --sysfs-root "$fx/mlx5_x8/sys" --host "$(head -c 300 /dev/zero | tr '\0' a)"
has "record --host 300 bytes" "--host: 300 bytes long: at most 253"
[ ! -e "$work/h.jsonl" ] || fail "record --host: wrote a recording under a bad host name"
# The recording replays: the inventory checks see the x8 PCIe link.
run 1 "diagnose replay" diagnose --replay "$rec"
has "diagnose replay" "[warning] pcie_downtrained on lab-x8" "x8 of 16 GT/s x16"
# Refuses to overwrite evidence; --append adds to it.
run 2 "record exists" record --out "$rec" --duration 1s --sysfs-root "$fx/mlx5_x8/sys"
has "record exists" "exists; refusing to overwrite"
lines=$(wc -l <"$rec")
run 0 "record append" record --out "$rec" --append --interval 100ms --duration 200ms --sysfs-root "$fx/mlx5_x8/sys" --host lab-x8
[ "$(wc -l <"$rec")" -gt "$lines" ] || fail "record --append did not add samples"
# ... but never to a file that is not a recording (it stays as it was).
printf 'host  alias\nmlx5_0 gpu-1\n' >"$work/notes.txt"
run 2 "record append to a non-recording" record --out "$work/notes.txt" --append --interval 100ms --duration 200ms --sysfs-root "$fx/mlx5_x8/sys"
has "record append to a non-recording" "$work/notes.txt" "not a rocehealth recording" "refusing to append"
[ "$(cat "$work/notes.txt")" = "$(printf 'host  alias\nmlx5_0 gpu-1')" ] || fail "record --append changed a non-recording"
# ... nor after a partial last line (a recorder killed mid-write): it would corrupt the file.
head -c -20 "$rec" >"$work/partial.jsonl"
cp "$work/partial.jsonl" "$work/partial.before"
run 2 "record append after a partial line" record --out "$work/partial.jsonl" --append --interval 100ms --duration 200ms --sysfs-root "$fx/mlx5_x8/sys"
has "record append after a partial line" "last line is incomplete"
cmp -s "$work/partial.jsonl" "$work/partial.before" || fail "record --append changed a recording with a partial last line"
run 2 "replay a device" diagnose --replay /dev/zero
has "replay a device" "/dev/zero" "a device, not a recording"
run 2 "replay a directory" diagnose --replay "$work"
has "replay a directory" "Is a directory"
echo '{"schema": 1, "host": "h"}' >"$work/other.jsonl"
run 2 "record append to other JSON lines" record --out "$work/other.jsonl" --append --interval 100ms --duration 200ms --sysfs-root "$fx/mlx5_x8/sys"
has "record append to other JSON lines" "not a sample"
run 2 "record interval" record --out "$work/y.jsonl" --interval 5x --sysfs-root "$fx/mlx5_x8/sys"
has "record interval" "--interval: '5x' is not a duration"
run 2 "record no out" record --sysfs-root "$fx/mlx5_x8/sys"
has "record no out" "--out FILE is required"
[ ! -e "$work/y.jsonl" ] || fail "record created a file after a bad option"

# diagnose: JSON form of a replay scenario carries the finding, its timeline and the rules file.
sc=$(cd "$fx/../scenarios" && pwd)
out=$("$bin" diagnose --replay "$sc/rnr/gpu01.jsonl" --replay "$sc/rnr/gpu02.jsonl" --json); rc=$?
[ "$rc" = 1 ] || fail "diagnose rnr --json: exit $rc"
python3 - "$out" <<'PY' || fail "diagnose rnr --json content"
import json, sys
d = json.loads(sys.argv[1])
f = [x for x in d["findings"] if x["rule"] == "rnr"]
assert len(f) == 1 and f[0]["host"] == "gpu01" and f[0]["severity"] == "error", f
assert "not the network" in f[0]["summary"], f[0]["summary"]
# The responder's out_of_buffer on gpu02 supports it; the timeline is in time order.
assert any(e["host"] == "gpu02" and e["series"] == "rx_out_of_buffer" for e in f[0]["timeline"]), f[0]["timeline"]
ts = [e["t"] for e in d["timeline"]]
assert ts == sorted(ts), ts
assert d["rules_file"].endswith(".json") and sorted(d["hosts"]) == ["gpu01", "gpu02"]
PY

# Bundles: two timestamped captures give rates; without timestamps rates need --interval.
b=$fx/bundles
run 1 "bundle series" diagnose --bundle "$b/mlx5_series/t0" --bundle "$b/mlx5_series/t1"
has "bundle series" "[error] rnr on storage-04" "[warning] rx_discards on storage-04"
run 1 "bundle single" diagnose --bundle "$b/mlx5_pcie_downgraded"
has "bundle single" "pcie_downtrained"
mkdir -p "$work/c0" "$work/c1"
for i in 0 1; do
  cp "$b/mlx5_series/t$i"/* "$work/c$i/"; rm "$work/c$i/timestamp"
done
# No clock: judged in order without the time between captures (lifetime counts give the
# finding); the rules that need the interval are named.
run 1 "bundle no interval" diagnose --bundle "$work/c0" --bundle "$work/c1"
has "bundle no interval" "2 captures in the given order, no clock" "rnr, " \
  "need the time between the captures of storage-04: give --interval SECONDS"
run 1 "bundle interval" diagnose --bundle "$work/c0" --bundle "$work/c1" --interval 10
has "bundle interval" "[error] rnr on storage-04" "+0.0s"
# Counter values that are not numbers are ignored, and said so without --verbose: how many and
# where (file:line); the diagnosis still runs on the rest.
mkdir -p "$work/bad0" "$work/bad1"
cp "$b/mlx5_series/t0"/* "$work/bad0/"; cp "$b/mlx5_series/t1"/* "$work/bad1/"
sed -i 's/^\(\s*tx_tso_packets:\).*/\1 12x4/; s/^\(\s*tx_tso_bytes:\).*/\1 N\/A/' "$work/bad1/ethtool-S.txt"
sed -i 's/^\(\s*implied_nak_seq_err\) 0/\1 ?/' "$work/bad1/rdma-stat.txt"
run 1 "bad values" diagnose --bundle "$work/bad0" --bundle "$work/bad1"
has "bad values" "[error] rnr on storage-04" \
  "3 counter values are not numbers and were ignored (bad1/ethtool-S.txt:6, :7, bad1/rdma-stat.txt:3)"
# Captures given too close together for their counters: the error names both captures, in
# order, however close (it named the first twice below 0.25 s).
run 2 "bundle interval too short" diagnose --bundle "$work/c0" --bundle "$work/c1" --interval 0.001
has "bundle interval too short" "captures $work/c0 -> $work/c1:" "--interval is too short"
# The same capture twice (one directory, or a copy) has no counter change at all: refused,
# never "healthy" (every rate would be 0).
run 2 "bundle twice" diagnose --bundle "$work/c1" --bundle "$work/c1" --interval 10
has "bundle twice" "the same capture as $work/c1"
cp -r "$work/c1" "$work/c1copy"
run 2 "bundle copy" diagnose --bundle "$work/c1" --bundle "$work/c1copy" --interval 10
has "bundle copy" "the same capture as $work/c1" "every file identical"
run 2 "bundle missing" diagnose --bundle "$work/nope"
has "bundle missing" "$work/nope"

# Bad inputs name the file and line / field; nothing half-analysed is printed.
printf '%s\n' "$(head -1 "$sc/rnr/gpu01.jsonl")" '{"schema":1,"t_s":1,"host":"h","kind":"counter","series":"rnr_nak_received","value":-5}' >"$work/bad.jsonl"
run 2 "bad line" diagnose --replay "$work/bad.jsonl"
has "bad line" "$work/bad.jsonl:2"
# A recorder killed mid-line: the partial last line is skipped with a note, the rest analysed.
head -c -40 "$sc/rnr/gpu01.jsonl" >"$work/cut.jsonl"
run 1 "cut recording" diagnose --replay "$work/cut.jsonl"
has "cut recording" "note:" "[error] rnr on gpu01"
printf '{"schema":1,"rules":[{"id":"x","title":"t","severity":"warning","summary":"s","explanation":"e","when":{"signal":"a","series":"rnr_nak_recieved","measure":"increase","op":">","threshold":0}}]}' >"$work/rules.json"
run 2 "bad rules" diagnose --replay "$rec" --rules "$work/rules.json"
has "bad rules" "$work/rules.json" "rules[0].when.series" "unknown series \"rnr_nak_recieved\""
# An empty rules list, a negative window and a key given twice: each an error naming the file
# and the field, never a run with no rule.
printf '{"schema":1,"rules":[]}' >"$work/empty-rules.json"
run 2 "empty rules" diagnose --replay "$rec" --rules "$work/empty-rules.json"
has "empty rules" "$work/empty-rules.json: rules: empty"
sed 's/"threshold":0}/"threshold":0,"window_s":-5}/; s/rnr_nak_recieved/rnr_nak_received/' "$work/rules.json" >"$work/neg-rules.json"
run 2 "negative window" diagnose --replay "$rec" --rules "$work/neg-rules.json"
has "negative window" "$work/neg-rules.json: rules[0].when.window_s: expected a number from 0 to 86400 seconds, got -5"
sed 's/"title":"t"/"title":"t","title":"u"/' "$work/neg-rules.json" >"$work/dup-rules.json"
run 2 "duplicate key" diagnose --replay "$rec" --rules "$work/dup-rules.json"
has "duplicate key" "$work/dup-rules.json: duplicate key rules[0].title"
run 2 "nothing" diagnose
has "nothing" "give --replay FILE, --bundle DIR or --live"
run 2 "interval without bundle" diagnose --replay "$rec" --interval 5
has "interval without bundle" "--interval applies to --bundle"
# --live: the same engine over this host sampled now (a fixture tree here), saved for replay.
run 1 "live" diagnose --live --duration 1s --live-interval 500ms --sysfs-root "$fx/mlx5_x8/sys" --save "$work/live.jsonl"
has "live" "1 s of data" "[warning] pcie_downtrained"
run 1 "live saved replays" diagnose --replay "$work/live.jsonl"
has "live saved replays" "[warning] pcie_downtrained"
run 2 "live option without live" diagnose --replay "$rec" --duration 5s
has "live option without live" "--duration applies to --live only"
# Inputs that cannot be diagnosed are not "healthy": an empty capture dir; mixed kinds of input.
mkdir -p "$work/empty"
run 2 "empty bundle" diagnose --bundle "$work/empty"
has "empty bundle" "nothing to diagnose: the inputs hold no RDMA device and no counter"
run 2 "replay and bundle" diagnose --replay "$rec" --bundle "$work/c0"
has "replay and bundle" "--replay, --bundle and --live are alternatives"
# A recording read backwards (out of time order) is sorted and gives the same findings.
tac "$rec" > "$work/reversed.jsonl"
run 1 "reversed recording" diagnose --replay "$work/reversed.jsonl"
has "reversed recording" "samples were not in time order; sorted by time" "[warning] pcie_downtrained"
run 1 "bundle interval with unit" diagnose --bundle "$work/c0" --bundle "$work/c1" --interval 10s
# Every shipped rule is documented with its thresholds in rules/README.md.
python3 - "$fx/../../rules" <<'PY' || fail "rules/README.md does not document every rule"
import json, sys
d = sys.argv[1]
readme = open(d + "/README.md").read()
missing = [r["id"] for r in json.load(open(d + "/rocehealth-rules.json"))["rules"] if "| `%s` |" % r["id"] not in readme]
assert not missing, missing
PY
exit $failed
