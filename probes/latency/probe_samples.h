// A probe run as samples for the time-series store (store/README.md, "Series"): the latency of each
// measured (op, size) as gauges probe_latency_us{peer, op, size_bytes, quantile = p50 | p99 |
// p999}, and failed phases as the counter probe_errors{peer, op, status}, where status is the
// completion status the phase ended with (IBV_WC_* name, "timeout" or "other"). The counters
// start at 0 at the run's start time, so one run already gives an increase the rules see
// (e.g. rnr on probe_errors{status=IBV_WC_RNR_RETRY_EXC_ERR}).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sample.h"
#include "probes/latency/probe.h"

namespace rh {

struct ProbeRunTimes {
    double start_t_s = 0, end_t_s = 0;                ///< CLOCK_MONOTONIC seconds
    std::int64_t start_wall_ms = 0, end_wall_ms = 0;  ///< UTC ms, 0 = unknown
};

/// `peer` is the label value (the host as the user named it, without the port).
std::vector<Sample> samples_from_probe(const ProbeReport& r, const std::string& host,
                                       const std::string& peer, const ProbeRunTimes& when);

}  // namespace rh
