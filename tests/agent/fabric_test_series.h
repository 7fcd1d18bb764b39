// Series built in code for the fabric analysis tests (test_fabric_analysis.cpp,
// test_fabric_recorded.cpp): a value at every step of a range, as Prometheus' query_range
// answers, starting at one fixed instant.
#pragma once

#include <cmath>
#include <utility>

#include "agent/fabric/prom_response.h"

namespace rh::fabric::test {

constexpr double kT0 = 1764763200;  ///< 2025-12-03T12:00:00Z

/// A series with `value(t)` at every `step_s` of [kT0, kT0 + span_s]; a NaN value is no point
/// (a range query's answer has none where the expression had no value).
template <typename F>
PromSeries series(Labels labels, F value, double span_s = 1800, double step_s = 15) {
    PromSeries s{std::move(labels), {}};
    for (double t = kT0; t <= kT0 + span_s; t += step_s)
        if (const double v = value(t); !std::isnan(v)) s.points.push_back({t, v});
    return s;
}

}  // namespace rh::fabric::test
