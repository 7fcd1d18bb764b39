// Test helpers shared by the store and rule-engine unit tests: counter and gauge Samples built in
// code (no recordings on disk), so each test shows the exact data it reasons about.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/sample.h"

namespace rh::test {

/// A counter sample of `host`/`series` read at monotonic `t_s` seconds (wall clock unknown, so
/// the engine time is t_s). nullopt = a failed read: the value is null and `error` says why.
/// raw/source name a fictitious sysfs counter "<series>_raw" so deltas see one raw counter.
inline Sample counter(std::string host, std::string series, Labels labels, double t_s,
                      std::optional<std::uint64_t> count, unsigned width_bits = 64) {
    Sample s;
    s.t_s = t_s;
    s.host = std::move(host);
    s.raw = series + "_raw";
    s.source = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/" + s.raw;
    s.series = std::move(series);
    s.labels = std::move(labels);
    s.kind = SampleKind::counter;
    s.unit = "packets";
    s.count = count;
    if (!count) s.error = "read failed: Input/output error";
    s.width_bits = width_bits;
    return s;
}

/// A gauge sample (a level: port state, rate, pfc_enabled), same conventions as counter().
inline Sample gauge(std::string host, std::string series, Labels labels, double t_s,
                    std::optional<double> value) {
    Sample s;
    s.t_s = t_s;
    s.host = std::move(host);
    s.series = std::move(series);
    s.labels = std::move(labels);
    s.kind = SampleKind::gauge;
    s.value = value;
    if (!value) s.error = "read failed: Input/output error";
    s.source = "test gauge";
    return s;
}

}  // namespace rh::test
