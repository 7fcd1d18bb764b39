// What `rocehealth incast` adds to the coordinator's raw run (probes/incast/incast_run.h): the
// participants' counter samples loaded into one time-series store and the rule engine run over
// the test window (findings + timeline, as `rocehealth diagnose`), the counters' activity per
// second, and the receiver's link rate.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/reports/diagnose_report.h"
#include "probes/incast/incast_run.h"
#include "rules/engine/rule_spec.h"

namespace rh {

/// One sampling interval of a host: the rate of each activity series over it.
struct ActivityRow {
    std::int64_t utc_ms = 0;              ///< the interval's end, coordinator's clock
    std::map<std::string, double> per_s;  ///< series name -> its rate, per second
};

/// Per host: its sampling intervals in time order.
using IncastActivity = std::map<std::string, std::vector<ActivityRow>>;

struct IncastAnalysis {
    /// The engine over every participant's samples (agent/reports/diagnose_report.h); none when
    /// no participant was sampled.
    std::optional<DiagnoseReport> diagnosis;
    /// roce_rx_packets / roce_tx_packets and the retransmission counters, one row per sampling
    /// interval of each host.
    IncastActivity activity;
    std::optional<double> link_gbps;  ///< the receiver's port rate
    std::string link_note;            ///< why link_gbps is unknown
    std::vector<std::string> notes;   ///< e.g. sample lines that did not parse
};

/// {host: [{"utc_ms", "<series>_per_s"...}]}.
nlohmann::json activity_json(const IncastActivity& activity);

/// Loads the samples (a bad line is skipped with a note), runs `rules`, reads the link rate
/// from the receiver's hello (core/inventory/parse.h parse_port_rate_gbps).
IncastAnalysis analyse_incast(const incast::Run& run, const RuleSet& rules,
                              const std::string& rules_file);

}  // namespace rh
