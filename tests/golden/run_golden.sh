#!/usr/bin/env bash
# Golden comparison (issue 13): `rocehealth diagnose` text and --json output, with exit codes, of
# every scenario in tests/scenarios (as `rocehealth rules test` replays them) and every case in
# tests/cases (as run_cases.sh invokes them), compared byte for byte with tests/golden/*.out.
# Guards rule-engine changes meant to be pure speed-ups: any change of findings, timelines,
# evidence or notes fails. The source checkout's path is replaced by @SRC@ (the rules file).
# usage: run_golden.sh ROCEHEALTH_BINARY SOURCE_DIR [--update]
set -u
bin=${1:?usage: run_golden.sh ROCEHEALTH_BINARY SOURCE_DIR [--update]}
src=${2:?usage: run_golden.sh ROCEHEALTH_BINARY SOURCE_DIR [--update]}
update=${3:-}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
src=$(cd "$src" && pwd)
golden=$src/tests/golden
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT

# The --json document minus what is not the engine's (inputs, rules_file), one top-level key a
# line: keeps the golden files compact and their diffs readable.
compact_json() {
    python3 -c '
import json, sys
text = sys.stdin.read()
try:
    doc = json.loads(text)
except ValueError:
    sys.stdout.write(text)
    sys.exit(0)
for k in sorted(doc):
    if k not in ("inputs", "rules_file"):
        print(json.dumps({k: doc[k]}, sort_keys=True, separators=(",", ":")))
'
}

# run NAME DIR ARGS...: both outputs of `diagnose ARGS` run from DIR, into $work/NAME.out
run() {
    local name=$1 dir=$2
    shift 2
    {
        (cd "$dir" && timeout 120 "$bin" diagnose "$@" 2>&1)
        echo "--- exit $?"
        (cd "$dir" && timeout 120 "$bin" diagnose "$@" --json 2>/dev/null) >"$work/json"
        echo "--- exit $?"
        compact_json <"$work/json"
    } | sed "s|$src|@SRC@|g" >"$work/$name.out"
}

for sc in "$src"/tests/scenarios/*/; do
    [[ -f $sc/expected.json ]] || continue
    args=()
    for f in "$sc"/*.jsonl; do args+=(--replay "$(basename "$f")"); done
    run "scenario-$(basename "$sc")" "$sc" "${args[@]}"
done
while read -r id _; do
    [[ -z ${id:-} || $id == \#* ]] && continue
    case_dir=$src/tests/cases/$id
    captures=()
    while IFS= read -r c; do captures+=(--bundle "$c"); done < <(
        cd "$case_dir" && find . -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort -V)
    args=()
    [[ -f $case_dir/ARGS ]] && read -r -a args <"$case_dir/ARGS"
    run "case-$id" "$case_dir" "${captures[@]}" "${args[@]}"
done <"$src/tests/cases/EXPECTED"

if [[ $update == --update ]]; then
    rm -f "$golden"/*.out
    cp "$work"/*.out "$golden"/
    echo "wrote $(ls "$work"/*.out | wc -l) golden files to $golden"
    exit 0
fi
fail=0
for f in "$work"/*.out; do
    name=$(basename "$f")
    if ! cmp -s "$f" "$golden/$name"; then
        echo "FAIL $name differs from tests/golden/$name:"
        diff -u "$golden/$name" "$f" | head -40
        fail=1
    fi
done
for f in "$golden"/*.out; do
    [[ -f $work/$(basename "$f") ]] || { echo "FAIL $(basename "$f"): no such scenario or case"; fail=1; }
done
echo "$(ls "$work"/*.out | wc -l) outputs compared with tests/golden: $([[ $fail == 0 ]] && echo identical || echo DIFFERENT)"
exit $fail
