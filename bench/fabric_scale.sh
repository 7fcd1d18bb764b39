#!/bin/bash
# The fabric view at scale (issue 29, "Measured at scale"): 1 h of a large fabric's series
# (bench/fabric_scale_series.py: a planted pause-storm origin and a failing ToR) backfilled into
# Debian's Prometheus (promtool tsdb create-blocks-from openmetrics, in chunks of hosts) and
# VictoriaMetrics (/api/v1/import, JSON lines, streamed), and on each, in the same run:
#   - memory per series: the server's RSS after the load, the rules and fabric / series count;
#   - recording-rule evaluation per cycle per group (packaging/prometheus/rocehealth-fabric-rules.yml
#     and rocehealth-alerts.yml, or those of --rules DIR): on Prometheus one cycle at start+45m
#     (both faults running) after the replay below, each rule an instant query timed by the
#     engine (bench/rule_times.py; a Prometheus running the rules at the wall clock cannot write
#     their results here: the backfilled blocks reach into the future, so its head takes no
#     sample older than their end, and chained rules would read nothing); on VictoriaMetrics
#     vmalert_iteration_duration_seconds of vmalert running the rules against it over --rules-s
#     seconds. The hour ends --ahead-s after the bench starts, so that the rules, evaluated at
#     the wall clock, read the faults (both run from start+30m to end);
#   - the recording rules replayed over the whole hour, so that their series exist for it (as on
#     a server that had run them all along): Prometheus `promtool tsdb create-blocks-from rules`,
#     one dependency level at a time (bench/rule_levels.py; Prometheus restarted without rules
#     to load each level's blocks), VictoriaMetrics `vmalert -replay.*` writing back, also one
#     level at a time (a level reads the whole of the one before); the time
#     for the hour and per 15 s cycle;
#   - `rocehealth fabric` over the hour, from the raw series (--source raw) and from the
#     recorded ones (--source recorded; both only when `fabric --help` names --source): wall
#     time, peak RSS, answer bytes (its queries fetched again with curl), and whether it names
#     the planted origin (host, priority) and failing ToR (the bench fails if not: exit 1);
#     detection delay = finding opened - fault start (data time).
# Prints figures and ratios against the goals (fabric over 10,000 hosts <= 10 s on one
# VictoriaMetrics node; each rule group <= 1 s per cycle at 1,000 hosts); never fails on a timing.
# Usage: fabric_scale.sh ROCEHEALTH [--hosts N] [--form full|budget] [--engines prom,vm]
#        [--step S] [--chunk HOSTS] [--rules-s S] [--ahead-s S] [--fabric-mem-gib G] [--keep DIR]
#        [--rules DIR]   (DIR: a packaging/prometheus of another version, e.g. to time its rules)
#        [--reuse]       (with --keep DIR of an earlier run, Prometheus only: its blocks and hour
#                        again, no backfill: e.g. after a replay that failed)
# e.g. nice -n 19 bench/fabric_scale.sh build/agent/rocehealth --hosts 1000
#      nice -n 19 bench/fabric_scale.sh build/agent/rocehealth --hosts 10000 --form budget --engines vm
set -u
bin=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
rules=$(realpath "$here/../packaging/prometheus")
hosts=1000 form=full engines=prom,vm step=30 chunk=100 rules_s=65 ahead_s= fabric_mem_gib=8 keep= reuse=
while [ $# -gt 0 ]; do
  [ "$1" = --reuse ] && { reuse=1; shift; continue; }
  case $1 in
    --hosts) hosts=$2 ;; --form) form=$2 ;; --engines) engines=$2 ;; --step) step=$2 ;;
    --chunk) chunk=$2 ;; --rules-s) rules_s=$2 ;; --ahead-s) ahead_s=$2 ;;
    --fabric-mem-gib) fabric_mem_gib=$2 ;; --keep) keep=$2 ;; --rules) rules=$(realpath "$2") ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
for tool in prometheus promtool victoria-metrics vmalert jq python3 curl; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
# The setup (generation, backfill) took 0.1-1.3 s a host at load 20: the hour ends that far ahead.
per_host_s=1; [ "$form" = full ] && per_host_s=6
[ -n "$ahead_s" ] || ahead_s=$((300 + hosts * per_host_s / 10))
[ "$ahead_s" -lt 1700 ] || ahead_s=1700  # the rules must still see both faults (from end-1800)
if [ -n "$keep" ]; then work=$keep; mkdir -p "$work"; else work=$(mktemp -d /var/tmp/fabric_scale.XXXXXX); fi
prom_pid= vm_pid= vmalert_pid=
cleanup() {
  for p in $vmalert_pid $prom_pid $vm_pid; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT
. "$here/../tests/cli/fabric_backfill.sh"
gen() { python3 "$here/fabric_scale_series.py" --hosts "$hosts" --form "$form" --step "$step" --end "$end" "$@"; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
now_s() { date +%s.%N; }
since() { echo "$(now_s) - $1" | bc -l | xargs printf '%.1f'; }

end=$(($(date +%s) + ahead_s))
if [ -n "$reuse" ]; then
  [ -n "$keep" ] && [ "$engines" = prom ] && [ -s "$keep/range.txt" ] && [ -d "$keep/prom" ] ||
    { echo "--reuse needs --keep DIR of an earlier run (DIR/range.txt, DIR/prom) and --engines prom" >&2; exit 2; }
  read -r end <"$work/range.txt"
fi
echo "$end" >"$work/range.txt"
from=$((end - 3600))
plan=$(gen --plan)
origin=$(jq -r .origin <<<"$plan") bad_tor=$(jq -r .bad_tor <<<"$plan")
per_host=$(gen --first 0 --count 1 | grep -v '^#' | sed -E 's/ [^ ]+ [^ ]+$//' | sort -u | wc -l)
echo "fabric_scale: $hosts hosts ($(jq -r .tors <<<"$plan") ToRs), form $form: $per_host series/host" \
  "(host 0), 1 h at $step s from $(date -u -d "@$from" +%H:%M:%SZ); planted: storm origin $origin" \
  "(priority 3), failing ToR $bad_tor; load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
failed=0
results="$work/results.txt"
: >"$results"
say() { echo "$*"; echo "$*" >>"$results"; }

# `fabric --source raw|recorded` once the binary has it; before, one run as it always read.
sources=none
"$bin" fabric --help 2>&1 | grep -q -- '--source' && sources="raw recorded"
# run_fabrics ENGINE URL: run_fabric per source.
run_fabrics() {
  local src
  for src in $sources; do
    if [ "$src" = none ]; then run_fabric "$1" "$2"; else run_fabric "$1 ($src)" "$2" --source "$src"; fi
  done
}
# run_fabric NAME URL [ARGS...]: fabric over the hour, timed; checks it names the planted faults.
run_fabric() {
  local e=$1 url=$2 rc
  shift 2
  local f="$work/fabric_${e//[^a-z]/_}"
  /usr/bin/time -f "%e %M" -o "$f.time" bash -c "ulimit -v $((fabric_mem_gib * 1048576)); exec \"\$@\"" \
    fabric "$bin" fabric --prometheus "$url" --from "$from" --to "$end" --min-step "$step" --json \
    --max-series 5000000 --max-answer-bytes 17179869184 --timeout 600 "$@" >"$f.json" 2>"$f.err"
  rc=$?
  local wall kib
  wall=$(tail -1 "$f.time" | cut -d' ' -f1) kib=$(tail -1 "$f.time" | cut -d' ' -f2)
  local bytes=0 q at
  # Each query asked again as fabric sent it (its "at": over the range, or at its end only).
  while IFS=$'\t' read -r at q; do
    if [ "$at" = end ]; then
      bytes=$((bytes + $(curl -s -o /dev/null -w '%{size_download}' --data-urlencode "query=$q" \
        --data-urlencode "time=$end" "$url/api/v1/query")))
    else
      bytes=$((bytes + $(curl -s -o /dev/null -w '%{size_download}' --data-urlencode "query=$q" \
        --data-urlencode "start=$from" --data-urlencode "end=$end" \
        --data-urlencode "step=$(jq -r .fabric.step_s "$f.json")" "$url/api/v1/query_range")))
    fi
  done < <(jq -j '.fabric.queries[]? | .at, "\t", .promql, "\n"' "$f.json" 2>/dev/null)
  local o t
  o=$(jq -r --arg h "$origin" '[.findings[] | select(.rule == "fabric_pause_storm_origin" and .host == $h
    and .labels.priority == "3")][0].opened_t // empty' "$f.json" 2>/dev/null)
  t=$(jq -r --arg t "$bad_tor" '[.findings[] | select(.rule == "fabric_tor_probes_failing" and
    .labels.tor == $t)][0].opened_t // empty' "$f.json" 2>/dev/null)
  say "$e fabric: exit $rc, wall ${wall} s, peak RSS $((kib / 1024)) MiB, answer $((bytes / 1048576)) MiB," \
    "$(jq -r '.findings | length' "$f.json" 2>/dev/null) findings"
  if [ -n "$o" ] && [ -n "$t" ]; then
    say "$e localised: origin $origin +$((${o%.*} - from - 600)) s after the storm began, ToR $bad_tor" \
      "+$((${t%.*} - from - 1800)) s after it failed (data time), within fabric's ${wall} s"
  else
    say "$e FAIL: fabric did not name origin $origin (opened ${o:-never}) and ToR $bad_tor (${t:-never}):" \
      "$(head -c 600 "$f.err") $(jq -c '[.findings[] | {rule, host, labels}]' "$f.json" 2>/dev/null | head -c 1500)"
    failed=1
  fi
  goal_line "$e" "$wall"
}
goal_line() {
  [ "$2" = "?" ] && return
  say "$1 fabric ratio: ${2} s / 10 s goal (10,000 hosts) = $(echo "$2 / 10" | bc -l | xargs printf '%.2f')" \
    "at $hosts hosts; scaled linearly to 10,000: $(echo "$2 * 10000 / $hosts / 10" | bc -l | xargs printf '%.2f')"
}
series_count() {  # series_count URL: series of the hour (VictoriaMetrics: its own count; listing a
  # million series outlasts its 30 s query limit)
  [ "$1" = "${vm_url:-}" ] && { curl -s "$1/api/v1/series/count" | jq '.data[0]'; return; }
  curl -s --data-urlencode 'match[]={__name__=~"rocehealth_.+"}' --data-urlencode "start=$from" \
    --data-urlencode "end=$end" "$1/api/v1/series" | jq '.data | length'
}

# start_prometheus: Prometheus on $work/prom, without rules (they are replayed and timed
# instead); sets prom_pid, prom_url and ready_s (seconds until it answered /-/ready).
start_prometheus() {
  local t
  t=$(now_s)
  printf 'global:\n  scrape_interval: 15s\nscrape_configs: []\n' >"$work/prometheus.yml"
  port=$(free_port)
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
    --storage.tsdb.retention.time=3650d --web.listen-address="127.0.0.1:$port" \
    --query.timeout=10m --query.max-samples=2000000000 >>"$work/prometheus.log" 2>&1 &
  # 10 min: at 1,000 hosts on a loaded machine fabric's probe_errors outlasted 2 min. 2 G samples
  # (default 50 M): at 10,000 hosts the replay's range query of one config rule loads more.
  prom_pid=$!
  prom_url="http://127.0.0.1:$port"
  for _ in $(seq 1 600); do curl -sf "$prom_url/-/ready" >/dev/null && break; sleep 1; done
  ready_s=$(since "$t")
}
stop_prometheus() { kill "$prom_pid"; wait "$prom_pid" 2>/dev/null; prom_pid=; }
cycles=$((3600 / 15))  # the rules' default interval (prometheus-scrape.yml); the mesh group's is 30 s
# The recording rules over the hour, one dependency level at a time: each level's blocks are
# loaded (Prometheus restarted, without rules) before the next level reads them.
replay_prometheus() {
  local t lv n=0 restart=0
  t=$(now_s)
  for lv in $(python3 "$here/rule_levels.py" "$work/levels" "$rules"/rocehealth-fabric-rules.yml "$rules"/rocehealth-alerts.yml); do
    rm -rf "$work/replay" && mkdir -p "$work/replay"
    promtool tsdb create-blocks-from rules --quiet --start "$from" --end "$end" --url "$prom_url" \
      --eval-interval 15s --output-dir "$work/replay" "$lv" >"$work/replay.log" 2>&1 ||
      { say "prom replay: promtool failed on $lv: $(tail -5 "$work/replay.log")"; failed=1; return; }
    mv "$work"/replay/* "$work/prom/" 2>/dev/null
    stop_prometheus
    start_prometheus
    restart=$(echo "$restart + $ready_s" | bc -l)
    n=$((n + 1))
  done
  local total
  total=$(echo "$(now_s) - $t - $restart" | bc -l)
  say "prom replay: the recording rules over the hour in $(printf '%.1f' "$total") s ($n dependency levels;" \
    "+ $(printf '%.1f' "$restart") s restarting to load each level's blocks) = $(echo "$total / $cycles" | bc -l |
    xargs printf '%.3f') s per 15 s cycle"
  # promtool may write less than the hour and say nothing: at 10,000 hosts it wrote the mesh
  # group's 240,000-series rules for the first 10 minutes only (bench/README.md). Every rule
  # of level 1 (they read exported series, which cover the hour) that has series at the hour's
  # start must have them at its middle and end too; one with none at all is said (a rule this
  # fleet gives nothing, e.g. per-peer rows between ToRs when every agent is topology-aware).
  local rec off c seen
  for rec in $(sed -n 's/^ *- record: //p' "$work/levels/level1.yml"); do
    seen=
    for off in 300 1800 3540; do
      c=$(curl -s "$prom_url/api/v1/query" --data-urlencode "query=count($rec)" \
        --data-urlencode "time=$((from + off))" | jq -r '.data.result[0].value[1] // 0')
      if [ "$c" != 0 ]; then seen=${seen:-$off}
      elif [ -n "$seen" ]; then say "prom replay: INCOMPLETE: $rec at +$seen s but not at +$off s of the hour"; failed=1
      fi
    done
    [ -n "$seen" ] || say "prom replay: no $rec over the hour (none at +300, +1800, +3540 s)"
  done
}

if [[ $engines == *prom* ]]; then
  t=$(now_s)
  mkdir -p "$work/prom"
  if [ -z "$reuse" ]; then
    for ((first = 0; first < hosts; first += chunk)); do
      gen --first "$first" --count "$chunk" >"$work/chunk.om"
      promtool tsdb create-blocks-from openmetrics --quiet "$work/chunk.om" "$work/prom" >"$work/backfill.log" 2>&1 ||
        { cat "$work/backfill.log" >&2; echo "promtool failed on hosts $first.." >&2; exit 1; }
    done
    rm -f "$work/chunk.om"
  fi
  backfill_s=$(since "$t")
  start_prometheus
  say "prom: ${reuse:+reused the blocks of $work, no }backfill ${backfill_s} s ($(du -sm "$work/prom" | cut -f1) MiB of blocks), ready in $ready_s s"
  n=$(series_count "$prom_url")
  kib=$(rss_kib "$prom_pid")
  say "prom memory: RSS $((kib / 1024)) MiB for $n series = $((kib * 1024 / (n > 0 ? n : 1))) B/series (after backfill)"
  replay_prometheus
  python3 "$here/rule_times.py" "$prom_url" $((from + 2700)) "$rules"/rocehealth-fabric-rules.yml "$rules"/rocehealth-alerts.yml |
    while read -r g sec nr slow slow_s; do
      if [ "$g" = ERROR ]; then say "prom rules: $sec $nr $slow $slow_s"; continue; fi
      say "prom rules: group $g one cycle $sec s ($nr rules, slowest $slow $slow_s s; goal 1 s at 1,000 hosts: x$(echo "$sec / 1" | bc -l | xargs printf '%.2f'))"
    done
  run_fabrics prom "$prom_url"
  kib=$(rss_kib "$prom_pid")
  say "prom memory: RSS $((kib / 1024)) MiB after the replay, a restart and fabric"
  stop_prometheus
  [ -n "$keep" ] || rm -rf "$work/prom"
fi

if [[ $engines == *vm* ]]; then
  port=$(free_port)
  victoria-metrics -storageDataPath="$work/vm" -httpListenAddr="127.0.0.1:$port" \
    -retentionPeriod=100y -search.disableCache -search.latencyOffset=1s -loggerLevel=ERROR \
    -search.maxUniqueTimeseries=10000000 -search.maxSeries=10000000 -search.maxQueryDuration=10m \
    -search.maxQueueDuration=10m -maxInsertRequestSize=1073741824 \
    >"$work/victoria-metrics.log" 2>&1 &
  vm_pid=$!
  vm_url="http://127.0.0.1:$port"
  wait_ready "$vm_url/health" "$work/victoria-metrics.log" victoria-metrics || exit 1
  t=$(now_s)
  for ((first = 0; first < hosts; first += chunk)); do
    gen --first "$first" --count "$chunk" --format vmjson |
      curl -sf -H 'Content-Type: application/json' -T - -X POST "$vm_url/api/v1/import" ||
      { echo "victoria-metrics refused hosts $first.." >&2; exit 1; }
  done
  curl -sf "$vm_url/internal/force_flush" >/dev/null
  import_s=$(since "$t")
  want=$((hosts * per_host))
  prev=-1
  for _ in $(seq 1 300); do  # until every series is searchable, or the count stops growing
    n=$(series_count "$vm_url")
    [ "${n:-0}" -ge "$want" ] || [ "${n:-0}" = "$prev" ] && break
    prev=${n:-0}
    sleep 5
    curl -sf "$vm_url/internal/force_flush" >/dev/null
  done
  say "vm: import ${import_s} s, searchable after $(since "$t") s: $n series (about $want expected)"
  # Live cycles evaluate at the wall clock: past the hour's end they read an empty window and
  # their times mean nothing (seen at 1,000 hosts under load: the import took 1,016 s).
  late_s=$(($(date +%s) + rules_s - end))
  if [ "$late_s" -gt 0 ]; then
    say "vm rules: live cycles not timed: the hour ended $late_s s before they would; give --ahead-s more than $((ahead_s + late_s))"
  else
    port=$(free_port)
    vmalert -rule="$rules/rocehealth-fabric-rules.yml" -rule="$rules/rocehealth-alerts.yml" \
      -datasource.url="$vm_url" -remoteWrite.url="$vm_url" -notifier.url=http://127.0.0.1:9 -evaluationInterval=15s \
      -httpListenAddr="127.0.0.1:$port" -loggerLevel=ERROR >"$work/vmalert.log" 2>&1 &
    vmalert_pid=$!
    sleep "$rules_s"
    curl -s "http://127.0.0.1:$port/metrics" | grep -E '^vmalert_iteration_duration_seconds_(sum|count)' >"$work/vm_rules.txt"
    # Labels are written "group=..., file=...": the value is the last field.
    # A group that finished no cycle yet has no series: 0 cycles.
    { awk '{ match($0, /group="[^"]*"/); g = substr($0, RSTART + 7, RLENGTH - 8);
            if ($0 ~ /_sum/) s[g] = $NF; else c[g] = $NF }
          END { for (g in s) printf "%s %.3f %d\n", g, (c[g] > 0 ? s[g] / c[g] : 0), c[g] }' "$work/vm_rules.txt"
      sed -n 's/^  - name: //p' "$rules"/rocehealth-fabric-rules.yml "$rules"/rocehealth-alerts.yml |
        while read -r g; do grep -q "group=\"$g\"" "$work/vm_rules.txt" || echo "$g 0 0"; done; } |
      while read -r g s c; do
        if [ "$c" = 0 ]; then
          say "vm rules: group $g finished no cycle in $rules_s s (> $rules_s s a cycle; goal 1 s at 1,000 hosts)"
        else
          say "vm rules: group $g mean cycle $s s over $c cycles (goal 1 s at 1,000 hosts: x$(echo "$s / 1" | bc -l | xargs printf '%.2f'))"
        fi
      done
    kill "$vmalert_pid"; wait "$vmalert_pid" 2>/dev/null; vmalert_pid=
  fi
  # The rules over the hour, written back, one dependency level at a time (bench/rule_levels.py):
  # vmalert's replay exits once its queue is written, so a level reads the whole of the one
  # before. One replay of every rule with a rulesDelay (tests/cli/test_fabric_vm.sh, 6 hosts)
  # is not enough at 10,000 hosts: a rule's 100 M samples were still queued when the next rule
  # read them, and per-ToR counts came out for 57 of 209 ToRs. The queue and VictoriaMetrics'
  # request size are raised for the same reason (a level-1 rule writes ~480,000 series).
  t=$(now_s)
  nlv=0 bad=0
  for lv in $(python3 "$here/rule_levels.py" "$work/vmlevels" "$rules"/rocehealth-fabric-rules.yml); do
    vmalert -rule="$lv" -datasource.url="$vm_url" -remoteWrite.url="$vm_url" \
      -remoteWrite.flushInterval=100ms -remoteWrite.maxQueueSize=50000000 -remoteWrite.concurrency=2 \
      -evaluationInterval=15s -datasource.queryStep=15s -replay.rulesDelay=1s \
      -replay.timeFrom="$(date -u -d "@$from" +%Y-%m-%dT%H:%M:%SZ)" -replay.timeTo="$(date -u -d "@$end" +%Y-%m-%dT%H:%M:%SZ)" \
      -replay.disableProgressBar >>"$work/vmalert_replay.log" 2>&1 ||
      say "vm replay: vmalert exit $? on $lv: $(tail -5 "$work/vmalert_replay.log")"
    curl -sf "$vm_url/internal/force_flush" >/dev/null
    nlv=$((nlv + 1))
  done
  bad=$(grep -cP '\t(error|fatal)\t' "$work/vmalert_replay.log")
  total=$(echo "$(now_s) - $t" | bc -l)
  say "vm replay: the recording rules over the hour in $(printf '%.1f' "$total") s ($nlv dependency levels," \
    "1 s rulesDelay a rule) = $(echo "$total / $cycles" | bc -l | xargs printf '%.3f') s per 15 s cycle;" \
    "$(grep -c 'replay finished' "$work/vmalert_replay.log") of $nlv 'replay finished', $bad errors"
  [ "$bad" = 0 ] || failed=1
  sleep 2
  run_fabrics vm "$vm_url"
  kib=$(rss_kib "$vm_pid")
  say "vm memory: RSS $((kib / 1024)) MiB for $n series = $((kib * 1024 / (n > 0 ? n : 1))) B/series (after import, rules and fabric; $(du -sm "$work/vm" | cut -f1) MiB on disk)"
fi
echo "fabric_scale: load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
exit "$failed"
