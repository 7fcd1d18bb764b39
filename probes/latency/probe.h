// `rocehealth probe`: RDMA WRITE, READ and SEND/RECV latency to a peer's `rocehealth responder`
// over one RC QP. WRITE and SEND latency are ping-pongs reported as round trip / 2 ("half round
// trip", as perftest's ib_write_lat / ib_send_lat); READ latency is post-to-completion on the
// client (as ib_read_lat). SEND needs receive WQEs at the responder (`responder --recv-depth`);
// without them every SEND meets receiver-not-ready (see probes/latency/send_latency.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/latency/latency_stats.h"
#include "probes/wire/probe_report.h"  // ProbeReport, its to_json and parse

namespace rh {

enum class ProbeOp { write, read, send };
const char* to_string(ProbeOp op);

/// Least time the client waits for the responder's probe_reply (it registers its buffer first).
inline constexpr int kSetupTimeoutMs = 30000;

struct ProbeOptions {
    std::string peer;  ///< "HOST[:PORT]"
    std::vector<ProbeOp> ops{ProbeOp::write, ProbeOp::read};
    std::vector<std::uint64_t> sizes{64, 4096, 65536, 1048576};
    unsigned iterations = 200;  ///< timed messages per (op, size)
    unsigned warmup = 10;       ///< untimed messages before them
    unsigned queue_depth = 1;   ///< outstanding READs (WRITE/SEND ping-pong: always 1)
    unsigned rnr_retry = 7;     ///< 0..7: retries of a SEND after an RNR NAK; 7 = forever (IB spec,
                                ///< perftest's default); then IBV_WC_RNR_RETRY_EXC_ERR
    std::string device;         ///< empty: first device with an ACTIVE Ethernet port
    std::optional<unsigned> gid_index;  ///< nullopt: RoCE v2, IPv4-mapped preferred
    int timeout_ms = 5000;  ///< deadline of each wait (connect, handshake, each message)
    std::filesystem::path sysfs_root = "/sys";
};

/// Validates options, connects, measures. An Error means the probe could not run (no device,
/// unreachable/refusing responder, bad options); problems during measurement are in the report.
Result<ProbeReport> run_probe(const ProbeOptions& opts);

}  // namespace rh
