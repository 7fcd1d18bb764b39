// `rocehealth fabric`'s result in diagnose's form (agent/reports/diagnose_report.h): the fabric
// analysis' findings, notes and hosts as a diagnosis plus what was asked of Prometheus; its
// JSON (the diagnosis' plus a "fabric" object) and its text with the verdict line naming
// `fabric`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/fabric/fabric_analysis.h"
#include "agent/fabric/fabric_queries.h"
#include "agent/reports/diagnose_report.h"

namespace rh {

/// What was asked of Prometheus: API base `url`, the range [from_s, to_s] (UTC seconds), query
/// step (seconds), the --match selector ("" = every host), the points the answers held and the
/// requests made (range queries x pages by time, and host_info's instant query).
struct FabricAsked {
    std::string url;
    double from_s = 0, to_s = 0, step_s = 0;
    std::string match;
    std::size_t points = 0;
    std::size_t requests = 0;
    /// What was sent (fabric::FabricFetch::sent) and each analysis' source ("raw" or
    /// "recorded", "" when not asked).
    std::vector<fabric::FabricQuery> queries;
    std::string pause_source, mesh_source, config_source;
    /// The first and last point found (FabricResult::data_first_s/data_last_s; 0: none).
    double data_from_s = 0, data_to_s = 0;
};

/// `fabric`'s result: the analysis as a diagnosis (rules: "built in: the logic of
/// rocehealth-fabric-rules.yml", one input named by the URL) and what was asked.
struct FabricReport {
    DiagnoseReport diagnosis;
    FabricAsked asked;
};

/// `asked`'s data_from_s/data_to_s are taken from `fr`.
FabricReport fabric_report(const fabric::FabricResult& fr, FabricAsked asked);

/// The diagnosis' JSON (its "span": the data found, else the range asked) plus "fabric":
/// {prometheus, from, to (RFC 3339: the range asked), data_from, data_to (RFC 3339: the first
/// and last point found, null when none), step_s, match, requests, sources {pause, mesh,
/// config: "raw" | "recorded"}, queries [{name, promql}] (as sent, in order)}.
void to_json(nlohmann::json& j, const FabricReport& r);

/// diagnose's text rendering of the diagnosis, its verdict line naming this command; its
/// "N s of data from T" is the data found, followed by "(asked: M s from T2)" when the range
/// asked differs, and a second line with what each analysis read ("read: pause recorded, mesh
/// recorded, config raw") when it was asked.
std::string fabric_text(const FabricReport& r, bool verbose);

}  // namespace rh
