// What `rocehealth incast` adds to the coordinator's raw run (probes/incast/incast_run.h): the
// participants' counter samples loaded into one time-series store and the rule engine run over
// the test window (findings + timeline, as `rocehealth diagnose`), the counters' activity per
// second, and the receiver's link rate.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "probes/incast/incast_run.h"
#include "rules/engine/rule_spec.h"

namespace rh {

struct IncastAnalysis {
    /// diagnose_json (agent/reports/diagnose_report.h) of the engine over every participant's
    /// samples; null when no participant was sampled.
    nlohmann::json diagnosis;
    /// Per host: [{utc_ms, <series>_per_s...}] for roce_rx_packets / roce_tx_packets and the
    /// retransmission counters, one entry per sampling interval.
    nlohmann::json activity = nlohmann::json::object();
    std::optional<double> link_gbps;  ///< the receiver's port rate
    std::string link_note;            ///< why link_gbps is unknown
    std::vector<std::string> notes;   ///< e.g. sample lines that did not parse
};

/// Loads the samples (a bad line is skipped with a note), runs `rules`, reads the link rate
/// from the receiver's hello (core/inventory/parse.h parse_port_rate_gbps).
IncastAnalysis analyse_incast(const incast::Run& run, const RuleSet& rules,
                              const std::string& rules_file);

}  // namespace rh
