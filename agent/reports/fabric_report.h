// `rocehealth fabric`'s result in diagnose's form (agent/reports/diagnose_report.h): the fabric
// analysis' findings, notes and hosts as a diagnosis document plus a "fabric" object saying
// what was asked of Prometheus, and its text with the verdict line naming `fabric`.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/fabric/fabric_analysis.h"

namespace rh {

/// What was asked of Prometheus: API base `url`, the range [from_s, to_s] (UTC seconds), query
/// step (seconds), the --match selector ("" = every host), the points the answers held and the
/// query_range requests made (queries x pages by time).
struct FabricAsked {
    std::string url;
    double from_s = 0, to_s = 0, step_s = 0;
    std::string match;
    std::size_t points = 0;
    std::size_t requests = 0;
};

/// diagnose_json of `fr` (rules: "built in: the logic of rocehealth-fabric-rules.yml", one
/// input named by the URL) plus "fabric": {prometheus, from, to (RFC 3339), step_s, match,
/// requests, queries [{name, promql}]}.
nlohmann::json fabric_json(const fabric::FabricResult& fr, const FabricAsked& asked);

/// diagnose's text rendering of `doc`, its verdict line naming this command.
std::string fabric_text(const nlohmann::json& doc, bool verbose);

}  // namespace rh
