// Control replies as a responder writes them in a lab run (two hosts, ConnectX-6 Dx, RoCE v2), for
// the unit tests (tests/probes/test_control_replies.cpp, tests/accept) and the fuzz seeds
// (tests/fuzz/make_seeds.cpp --replies). Each is a struct of probes/wire/control_replies.h; its
// JSON comes from the one writer (wire::to_json).
#pragma once

#include <vector>

#include "core/recording/sample_json.h"
#include "probes/latency/latency_stats.h"
#include "probes/wire/control_replies.h"

namespace rh::examples {

/// One recording line of `series` on host g1 (a gauge in `unit`).
inline nlohmann::json sample_line(const std::string& series, double value,
                                  const std::string& unit) {
    Sample s;
    s.t_s = 1234.5;
    s.wall_ms = 1764892800000;
    s.host = "g1";
    s.series = series;
    s.labels = {{"device", "mlx5_0"}, {"port", "1"}};
    s.kind = SampleKind::gauge;
    s.unit = unit;
    s.value = value;
    s.source = "probe";
    return to_json_line(s);
}

inline wire::InventoryReply inventory_reply() {
    wire::InventoryReply m;
    m.hostname = "gpu01";
    m.version = "0.1.0";
    m.kernel = "6.8.0-49-generic";
    m.memlock_limit_bytes = 8ull << 20;
    m.device = "mlx5_0";
    m.port = 1;
    m.gid_index = 3;
    m.gid = "::ffff:10.99.0.11";
    m.gid_type = "RoCE v2";
    m.snapshot = {{"collected_at", "2026-12-04T00:04:18Z"}, {"devices", nlohmann::json::array()}};
    m.samples.push_back(sample_line("port_state_code", 4, "state"));
    return m;
}

/// A phase of `op` at `size` bytes, as the probe names it.
inline LatencyStats phase(const std::string& op, std::uint64_t size) {
    LatencyStats s;
    s.op = op;
    s.latency_kind = op == "read" ? "post to completion" : "half round trip";
    s.size_bytes = size;
    return s;
}

/// A measured phase of `iterations` samples around 2 us.
inline LatencyStats measured_phase(const std::string& op, std::uint64_t size, unsigned iterations) {
    LatencyStats s = phase(op, size);
    std::vector<double> us;
    for (unsigned i = 0; i < iterations; ++i) us.push_back(1.8 + 0.001 * (i % 97));
    summarize(us, iterations * 4e-6, s);
    return s;
}

/// probe_reply of a probe whose WRITE 64 B was measured, whose READ 64 B ended in an error
/// completion and whose READ 4096 B was then skipped.
inline wire::ProbeReply probe_reply() {
    ProbeReport r;
    r.peer = "10.99.0.12:18520";
    r.device = "mlx5_0";
    r.port = 1;
    r.gid_index = 3;
    r.gid = "::ffff:10.99.0.11";
    r.gid_type = "RoCE v2";
    r.remote_hostname = "gpu02";
    r.remote_device = "mlx5_0";
    r.remote_gid_index = 3;
    r.remote_gid = "::ffff:10.99.0.12";
    r.local_active_mtu_bytes = r.remote_active_mtu_bytes = r.path_mtu_bytes = 4096;
    r.qp_timeout = 14;
    r.qp_retry_cnt = 7;
    r.qp_rnr_retry = 7;
    r.results.push_back(measured_phase("write", 64, 1000));
    LatencyStats failed = phase("read", 64);
    failed.iterations = 12;
    failed.error = "READ 64 B: completion IBV_WC_RETRY_EXC_ERR after 12 messages";
    failed.error_cause = "IBV_WC_RETRY_EXC_ERR";
    r.results.push_back(failed);
    LatencyStats skipped = phase("read", 4096);
    skipped.skipped = "not run: read 64 B failed before it";
    r.results.push_back(skipped);
    r.errors.push_back(failed.error);
    wire::ProbeReply m;
    m.report = r;
    m.start_wall_ms = 1764892800000;
    m.end_wall_ms = 1764892801500;
    m.samples.push_back(sample_line("probe_latency_us", 1.85, "us"));
    return m;
}

/// probe_reply of a probe that could not run.
inline wire::ProbeReply probe_reply_not_run() {
    wire::ProbeReply m;
    m.error = "connect responder at 10.99.0.12:18520: Connection refused";
    m.start_wall_ms = 1764892800000;
    m.end_wall_ms = 1764892800004;
    return m;
}

inline wire::FaultReply fault_reply() {
    wire::FaultReply m;
    m.device = "mlx5_0";
    m.port = 1;
    m.netdev = "ens1f0np0";
    m.down_ms = 5000;
    m.down_at_s = 0.42;
    m.up_at_s = 5.43;
    m.port_left_active_s = 0.05;
    m.link_recovery_s = 2.1;
    m.traffic_recovery_s = 2.6;
    m.traffic_attempts = 3;
    m.baseline_p50_us = 1.9;
    m.recovered_p50_us = 2.0;
    m.saved_addresses = 1;
    m.saved_routes = 2;
    m.restored = {"route 10.200.0.0/24 via 10.99.0.1 table 254"};
    return m;
}

inline wire::RkeyReady rkey_ready() {
    wire::RkeyReady m;
    m.qpn = 0x1a2;
    m.psn = 0x345;
    m.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 12};
    m.active_mtu = 4096;
    m.rkey = 0x2001;
    m.addr = 0x7f3a1c000000;
    m.size_bytes = 4096;
    return m;
}

inline std::vector<wire::SampleReply> sample_replies() {
    wire::SamplePass pass;
    pass.wall_ms = 1764892801000;
    pass.samples.push_back(sample_line("port_state_code", 4, "state"));
    pass.notes = {"ethtool -S ens1f0np0: 2 counters not read"};
    return {wire::SampleStarted{1764892800000}, pass,
            wire::SampleEnd{12, "stopped by the coordinator"}};
}

}  // namespace rh::examples
