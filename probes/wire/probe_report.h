// What one latency probe measured (`rocehealth probe --json`, and the `report` of a responder's
// probe_reply, probes/wire/control_replies.h): the struct both ends use, its one writer and its
// strict reader (core/json/json_reader.h). Times in microseconds, sizes in bytes. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json/json_reader.h"

namespace rh {

/// Latency summary of one (operation, message size) phase (probes/latency/latency_stats.h
/// computes it).
struct LatencyStats {
    std::string op;            ///< "write" | "read" | "send"
    std::string latency_kind;  ///< "half round trip" (write, send) | "post to completion" (read)
    std::uint64_t size_bytes = 0;
    unsigned queue_depth = 1;
    std::uint64_t iterations = 0;  ///< timed samples (warm-up excluded)
    double min_us = 0, p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0, mean_us = 0;
    double msg_rate_per_s = 0;  ///< timed messages / wall time of the timed loop
    std::uint64_t checksum_errors = 0;
    std::string error;        ///< non-empty when the phase failed (e.g. an error completion): its
                              ///< latency figures are then not reported (JSON null, text "-")
    std::string error_cause;  ///< with `error`: IBV_WC_* name, "timeout", "peer_closed" or "other"
    std::string skipped;      ///< non-empty when the phase was not run (an earlier one failed): why
    /// The measured distribution, thinned: [latency_us, cumulative fraction] ascending in both,
    /// at most kCdfPoints + 3 points (see cdf_points). Empty when nothing was measured.
    std::vector<std::pair<double, double>> cdf;
    static constexpr std::size_t kCdfPoints = 50;

    /// Nearest rank needs >= 1000 samples for p99.9 to differ from the maximum.
    static constexpr std::uint64_t kMinIterationsForP999 = 1000;
    bool has_p999() const { return iterations >= kMinIterationsForP999; }
    bool measured() const { return error.empty() && skipped.empty(); }
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

/// The probe --json document: {peer, local: {device, port, gid_index, gid, gid_type,
/// active_mtu_bytes}, remote: {hostname, device, gid_index, gid, active_mtu_bytes,
/// recv_depth|null}, path_mtu_bytes, qp: {timeout, retry_cnt, rnr_retry}, results: [phase],
/// checksum_errors, errors, ok}. A phase: {op, latency_kind, size_bytes, queue_depth} and then
/// either {skipped} or {iterations|null, iterations_completed (failed phase), min_us, p50_us,
/// p99_us, p999_us, p999_note?, max_us, mean_us, msg_rate_per_s (null when the phase failed;
/// p999_us null below 1000 iterations), checksum_errors, cdf: [[us, fraction]] (measured only),
/// error?, error_cause?}.
nlohmann::json to_json(const LatencyStats& s);
nlohmann::json to_json(const ProbeReport& r);

/// Reads to_json(LatencyStats) / to_json(ProbeReport) at `in`: every field the writer writes is
/// required (a figure may be null only where the writer writes null); each problem is recorded in
/// in.errors() at its path ("report.results[1].p99_us: expected a number, got a string").
LatencyStats read_latency_stats(const JsonReader& in);
ProbeReport read_probe_report(const JsonReader& in);

}  // namespace rh
