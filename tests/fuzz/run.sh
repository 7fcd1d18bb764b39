#!/bin/bash
# Builds the libFuzzer harnesses with clang (-fsanitize=fuzzer,address,undefined) in build-fuzz,
# replays every saved regression input, then fuzzes each harness for FUZZ_SECONDS (default 45)
# from a seed corpus made of the project's own fixtures, FUZZ_JOBS (default: the core count)
# harnesses at a time. Exit 1 on any crash, leak, UB report or timeout, naming the input; the
# input goes into tests/fuzz/regressions/<harness>/ to stay a test.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
seconds=${FUZZ_SECONDS:-45}
out=build-fuzz
harnesses=(fuzz_netlink fuzz_bundle fuzz_recording fuzz_oob_frame fuzz_json_docs fuzz_http_request
  fuzz_prom_response fuzz_http_answer fuzz_job_logs fuzz_control_replies)
harnesses+=(fuzz_known_hosts)
harnesses+=(fuzz_peer_messages)

cmake -S . -B "$out" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DROCEHEALTH_FUZZ=ON -DROCEHEALTH_TESTS=OFF -DROCEHEALTH_UNITY=ON >/dev/null
cmake --build "$out" -j"$(nproc)" --target "${harnesses[@]}" fuzz_make_seeds

corpus="$out/corpus"
rm -rf "$corpus"
mkdir -p "${harnesses[@]/#/$corpus/}"
# fuzz_bundle: every capture directory of the fixtures, the case suite and the healthy zoo
# (tests/zoo/make_zoo.py: IB devinfo/rdma link, IPoIB links, dmesg PCIe lines), its files joined at
# "=== NAME" lines (the harness's split), plus each file alone.
python3 tests/zoo/make_zoo.py "$out/zoo" >/dev/null
n=0
while IFS= read -r -d '' dir; do
  n=$((n + 1))
  seed="$corpus/fuzz_bundle/dir-$n"
  : >"$seed"
  for f in "$dir"/*; do
    [ -f "$f" ] || continue
    printf '=== %s\n' "$(basename "$f")" >>"$seed"
    head -c 65536 "$f" >>"$seed"
    cp "$f" "$corpus/fuzz_bundle/file-$n-$(basename "$f")"
  done
done < <(find tests/fixtures/bundles tests/cases -mindepth 1 -type d -print0 2>/dev/null
         find "$out/zoo" -path '*/bundle/t*' -type d -print0)
# fuzz_recording: the head of every scenario recording (whole ones are MBs).
for f in tests/scenarios/*/*.jsonl tests/fixtures/recordings/*.jsonl; do
  [ -f "$f" ] || continue
  head -n 40 "$f" >"$corpus/fuzz_recording/$(basename "$(dirname "$f")")-$(basename "$f")"
done
# fuzz_bundle, more: five cases in every shape of tests/cases/shapes.py (files merged at section
# markers, noise between sections, watch screens, date lines, tabs, CRLF), one seed a capture.
python3 tests/cases/shapes.py - tests/cases --no-shared --seeds "$corpus/fuzz_bundle" \
  --case rnr --case c4-udev-names-second-port --case c6-lspci-t-switch-x4-uplink \
  --case c9-trust-mismatch --case f1-bnxt-global-pause-rx-crlf >/dev/null
# fuzz_json_docs: first byte picks the decoder (0 rules, 1 agent config, 2 accept spec, 3 incast
# body, 4 lldpcli -f json show neighbors, 5 a peer's inventory snapshot, 6 a rules test scenario's
# expected.json).
i=0
add_doc() { i=$((i + 1)); { printf "\\x0$1"; cat "$2"; } >"$corpus/fuzz_json_docs/doc-$i"; }
add_doc 0 rules/rocehealth-rules.json
add_doc 1 packaging/agent.json
for f in packaging/accept-spec.example.json tests/accept/*.json tests/lab/accept-lab-spec.json; do
  [ -f "$f" ] && add_doc 2 "$f"
done
printf '\x03{"senders":["10.0.0.2","10.0.0.3"],"size":"64k","duration_s":5}' \
  >"$corpus/fuzz_json_docs/doc-incast"
for f in tests/fixtures/lldp/*.json; do add_doc 4 "$f"; done
for f in tests/fixtures/inventory/*_snapshot.json; do add_doc 5 "$f"; done
for f in tests/scenarios/*/expected.json; do add_doc 6 "$f"; done
"$out/tests/fuzz/fuzz_make_seeds" "$corpus/fuzz_oob_frame"
"$out/tests/fuzz/fuzz_make_seeds" --replies "$corpus/fuzz_control_replies"
"$out/tests/fuzz/fuzz_make_seeds" --messages "$corpus/fuzz_peer_messages"
# fuzz_http_request: requests as clients send them (a GET, a POST with a body, two pipelined,
# a /healthz the gate answers itself).
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n\r\n' \
  >"$corpus/fuzz_http_request/get"
printf 'POST /api/v1/incast HTTP/1.1\r\nContent-Length: 24\r\n\r\n{"senders":["10.0.0.2"]}' \
  >"$corpus/fuzz_http_request/post"
printf 'GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n' \
  >"$corpus/fuzz_http_request/pipelined"
printf 'GET /healthz?x=1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n' >"$corpus/fuzz_http_request/healthz"
# fuzz_prom_response: Prometheus query_range answers (a matrix, an API error, empty, a vector,
# edge values) and recorded /api/v1/targets answers, the fixtures of tests/fixtures/prometheus.
cp tests/fixtures/prometheus/*.json "$corpus/fuzz_prom_response/"
# fuzz_http_answer: those answers as a server sends them: with Content-Length, chunked (with an
# extension and a trailer), and until close.
for f in tests/fixtures/prometheus/*.json; do
  b=$(basename "$f" .json)
  { printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n' \
      "$(wc -c <"$f")"; cat "$f"; } >"$corpus/fuzz_http_answer/$b-length"
  { printf 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x;x=1\r\n' "$(wc -c <"$f")"
    cat "$f"; printf '\r\n0\r\nX-T: 1\r\n\r\n'; } >"$corpus/fuzz_http_answer/$b-chunked"
  { printf 'HTTP/1.0 400 Bad Request\r\n\r\n'; cat "$f"; } >"$corpus/fuzz_http_answer/$b-close"
done
# fuzz_netlink: `ethtool -S` text from the captures (selector 5), and one well-formed netlink
# attribute (u32, type 1) for each binary decoder (selectors 0..4); the fuzzer grows the rest.
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  { printf '\x05'; head -c 65536 "$f"; } >"$corpus/fuzz_netlink/ethtool-$n"
done < <(find tests/cases tests/fixtures/bundles -type f -name '*ethtool*' -print0 2>/dev/null)
for sel in 0 1 2 3 4; do
  printf "\\x0$sel\\x08\\x00\\x01\\x00\\x2a\\x00\\x00\\x00" >"$corpus/fuzz_netlink/attr-$sel"
done

# fuzz_job_logs: log lines in every form of the four log readers (tests/fuzz/job_log_seeds: NCCL
# INFO/WARN of each version, UCX, perftest, dmesg/journal; launcher prefixes, CRLF, cut lines),
# each file whole and its non-INFO lines one a seed, plus the log files of the case suite.
for f in tests/fuzz/job_log_seeds/*.log; do
  b=$(basename "$f" .log)
  cp "$f" "$corpus/fuzz_job_logs/$b"
  n=0
  { grep -v ' NCCL INFO ' "$f" || true; } | while IFS= read -r line; do
    n=$((n + 1))
    printf '%s\n' "$line" >"$corpus/fuzz_job_logs/$b-$n"
  done
done
while IFS= read -r -d '' f; do
  head -c 65536 "$f" >"$corpus/fuzz_job_logs/case-$(echo "$f" | tr '/' '_')"
done < <(find tests/cases -type f \( -name '*.log' -o -name '*nccl*' -o -name '*ucx*' \
         -o -name '*perftest*' -o -name '*dmesg*' -o -name '*journal*' \) -print0 2>/dev/null)
# fuzz_known_hosts: the file as documented (comments, names, addresses, tabs, CRLF) and with
# each kind of fault its errors name.
k=AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
printf '# fleet\nnode7 ed25519 %s\n10.0.0.7\ted25519 %s\r\nfe80::1 ed25519 %s\n' "$k" "$k" "$k" \
  >"$corpus/fuzz_known_hosts/good"
printf 'node7 ed25519\nnode8 ssh-rsa %s\nNODE7 ed25519 %s\nb/c ed25519 %s\n' "$k" "$k" "$k" \
  >"$corpus/fuzz_known_hosts/faults"
printf '%s' "$k" >"$corpus/fuzz_known_hosts/key"

# One harness: replay its regression inputs, then fuzz it; its report goes to $out/$h.report and
# its verdict to $out/$h.status (0 passed, 1 failed), so harnesses can run side by side.
fuzz_one() {
  local h=$1 bin="$out/tests/fuzz/$1" regress="tests/fuzz/regressions/$1" status=0
  {
    if compgen -G "$regress/*" >/dev/null; then
      echo "fuzz: $h: replaying $(ls "$regress" | wc -l) regression inputs"
      "$bin" -runs=0 "$regress"/* >/dev/null 2>"$out/$h-regress.log" ||
        { echo "fuzz: $h: a regression input fails again:"; tail -40 "$out/$h-regress.log"; status=1; }
    fi
    echo "fuzz: $h: ${seconds}s from $(ls "$corpus/$h" | wc -l) seeds"
    if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
        -print_final_stats=1 -artifact_prefix="$out/$h-" "$corpus/$h" >"$out/$h.log" 2>&1; then
      echo "fuzz: $h FAILED; the input is $(ls -t "$out/$h-"* 2>/dev/null | grep -v -- '-regress.log$' | head -1)"
      echo "      keep it: cp <input> $regress/ (a crash found becomes a regression input)"
      grep -E "ERROR|SUMMARY|runtime error" -m 5 "$out/$h.log" || tail -20 "$out/$h.log"
      status=1
    else
      { grep -E "stat::number_of_executed_units|cov:" "$out/$h.log" || true; } | tail -2 |
        sed "s/^/fuzz: $h: /"
    fi
  } >"$out/$h.report" 2>&1
  echo "$status" >"$out/$h.status"
}

# One harness a core at a time (each libFuzzer process is single-threaded): 12 harnesses x 45 s
# take 4.5 min on 2 cores instead of 9.
parallel=${FUZZ_JOBS:-$(nproc)}
rm -f "$out"/*.status "$out"/*.report
for h in "${harnesses[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  fuzz_one "$h" &
done
wait
status=0
for h in "${harnesses[@]}"; do
  cat "$out/$h.report" 2>/dev/null || echo "fuzz: $h: no report"
  [ "$(cat "$out/$h.status" 2>/dev/null)" = 0 ] || status=1
done
exit $status
