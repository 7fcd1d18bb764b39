// The PromQL `rocehealth fabric` runs, on the agents' raw series (so it works where the fabric
// recording rules are not loaded), and fetching them into FabricSeries.
#pragma once

#include <string>
#include <vector>

#include "agent/fabric/fabric_analysis.h"
#include "agent/fabric/prom_client.h"

namespace rh::fabric {

/// One query of the fetch: which FabricSeries member it fills and its PromQL.
struct FabricQuery {
    std::string
        name;  ///< "host_info", "pause_fraction", "probe_errors", "probe_p50_s", "port_config"
    std::string promql;
};

/// The queries for one run. `match`: "" or a selector in braces ({tor="r07"}, {fabric="a"}),
/// applied to rocehealth_host_info and to every other series through `and on (instance)` with
/// it (topology labels live on host_info only). `step_s`: the range step; the pause window is
/// max(60 s, step) (the rules' 1 m rate), the probe-failure window max(120 s, step) (the
/// rules' 2 m increase), so no point between two steps is skipped.
std::vector<FabricQuery> fabric_queries(const std::string& match, double step_s);

/// The step for [from_s, to_s]: at least `min_step_s`, and so that a series has at most
/// 11,000 points (Prometheus' own limit per answer), rounded up to whole seconds.
double fabric_step_s(double from_s, double to_s, double min_step_s);

/// Runs every query of fabric_queries() into the matching member of `out`; `points` counts the
/// points received. The first error stops (Error as PromClient::query_range; its op is set to
/// the query's name).
Status fetch_fabric_series(const PromClient& client, const std::string& match, double from_s,
                           double to_s, double step_s, FabricSeries& out, std::size_t& points);

}  // namespace rh::fabric
