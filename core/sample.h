// Sample: one timestamped observation with its unit — what collectors and probes produce, what the
// time-series store keeps (store/), what recordings hold (one JSON line each,
// core/recording/sample_json.h) and what the rules read. A cumulative counter keeps its integer
// value (deltas of 64-bit counters must be exact); a gauge (probe latency, port state,
// configuration) is a double.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rh {

struct Snapshot;  // core/inventory/inventory.h

/// When a pass was taken (store/from_snapshot.h stamps its samples with it).
struct SampleTime {
    double t_s = 0;            ///< monotonic seconds of the pass
    std::int64_t wall_ms = 0;  ///< UTC ms since the epoch, 0 = unknown
};

/// Labels of a series: device, port, netdev, priority, direction, peer, op, size_bytes, ...
using Labels = std::map<std::string, std::string>;

enum class SampleKind {
    counter,    ///< cumulative, only differences mean something (count)
    gauge,      ///< a level at that instant (value)
    inventory,  ///< the host's static facts (a Snapshot without counters) for inventory checks
};

const char* to_string(SampleKind k);

struct Sample {
    /// Monotonic seconds on the sampling host (CLOCK_MONOTONIC live, capture order for bundles).
    /// Rates use differences of t_s only.
    double t_s = 0;
    /// UTC milliseconds since the epoch at t_s; aligns hosts in one timeline. 0 = unknown.
    std::int64_t wall_ms = 0;
    std::string host;
    std::string series;  ///< normalized name ("rnr_nak_received", "probe_latency_us", ...)
    Labels labels;
    SampleKind kind = SampleKind::counter;
    std::string unit;  ///< "packets", "bytes", "us", "frames", "events", "state", "bool", ...
    std::optional<std::uint64_t> count;  ///< counter value; nullopt = missing (see error)
    std::optional<double> value;         ///< gauge value; nullopt = missing (see error)
    /// SampleKind::inventory only: the host's static facts (inventory_static_facts, shared:
    /// copying the sample copies no facts). nullptr when a recording's inventory did not
    /// decode (`error` says why).
    std::shared_ptr<const Snapshot> inventory;
    std::string error;         ///< why count/value is missing
    std::string source;        ///< sysfs path, "ethtool -S eth0", "probe", bundle file
    std::string raw;           ///< kernel/driver counter name it came from
    unsigned width_bits = 64;  ///< counter hardware width (32: mlx5 Q counters wrap)
    bool saturates = false;    ///< PMA error counters stop at their maximum
    /// Timeline segment of the host: a reboot or a counter reset (driver reload) between two
    /// captures starts a new one (agent/replay/inputs.cpp). Counters of different segments are
    /// never differenced: no rate, no increase across the split. Live samples start a new one
    /// when a 64-bit counter falls to half or less (agent/sampling/host_sampler.h).
    std::uint32_t segment = 0;
};

}  // namespace rh
