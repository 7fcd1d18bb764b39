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

struct ProbeReport {
    std::string peer;
    std::string device;
    unsigned port = 0;
    unsigned gid_index = 0;
    std::string gid;
    std::string gid_type;
    std::string remote_hostname;
    std::string remote_device;
    unsigned remote_gid_index = 0;
    std::string remote_gid;
    unsigned local_active_mtu_bytes = 0;
    unsigned remote_active_mtu_bytes = 0;
    unsigned path_mtu_bytes = 0;  ///< min of both active_mtu
    unsigned queue_depth = 1;
    unsigned qp_timeout = 0;
    unsigned qp_retry_cnt = 0;
    unsigned qp_rnr_retry = 0;
    std::optional<unsigned> remote_recv_depth;  ///< receive WQEs the responder keeps posted for
                                                ///< SEND (its probe_reply); nullopt: no SEND
    std::vector<LatencyStats> results;  ///< per (op, size), in order; after a failed phase the
                                        ///< rest are entries with `skipped` set
    std::vector<std::string> errors;    ///< phase failures (error completions, timeouts)

    std::uint64_t checksum_errors() const;
    /// No phase failed and no checksum error.
    bool ok() const { return errors.empty() && checksum_errors() == 0; }
};

/// Validates options, connects, measures. An Error means the probe could not run (no device,
/// unreachable/refusing responder, bad options); problems during measurement are in the report.
Result<ProbeReport> run_probe(const ProbeOptions& opts);

nlohmann::json to_json(const LatencyStats& s);
nlohmann::json to_json(const ProbeReport& r);

}  // namespace rh
