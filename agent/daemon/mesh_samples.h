// The mesh's samples into the agent's store. The mesh thread measures on its own schedule, but
// the store's pass times (what the rules evaluate at, and what /metrics calls "the latest pass")
// must stay one per collection pass; so the run loop stamps the samples it drains with the time
// of the pass that takes them in: a probe_latency_us gauge says what the latest round before
// that pass measured, a probe_errors counter how many failures there were by then.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/sample.h"
#include "store/series_store.h"

namespace rh::agent {

/// A collection pass's time, as its samples carry it.
struct PassStamp {
    double t_s = 0;            ///< CLOCK_MONOTONIC seconds
    std::int64_t wall_ms = 0;  ///< UTC milliseconds
};

/// `drained` (in the order produced) re-stamped for the store: of each series only the last
/// sample, at `now`. A probe_errors counter the store does not hold yet also gets a 0 at `prev`
/// (the previous pass; when there is one), so the rules see its first failures as an increase.
std::vector<Sample> stamp_at_pass(const std::vector<Sample>& drained, PassStamp now,
                                  std::optional<PassStamp> prev, const SeriesStore& store);

}  // namespace rh::agent
