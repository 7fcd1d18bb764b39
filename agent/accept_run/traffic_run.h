// One run of the incast machinery (probes/incast_coordinator.h) for the acceptance stages
// `bandwidth` (one sender) and `incast` (N senders): the coordinator's run, its analysis
// (agent/incast_analysis.h: rule engine over every participant's counters) and the
// `rocehealth incast --json` document, with the participants' samples added to cx.samples, the
// document saved under DIR/raw/, and the pieces the report takes from it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/accept_run/run_context.h"

namespace rh::accept {

struct TrafficOutcome {
    bool ran = false;  ///< false: the coordinator could not run (see error)
    std::string error;
    nlohmann::json doc;    ///< incast_json (agent/incast_report.h) when ran
    std::string raw_href;  ///< DIR-relative file holding doc ("" when not saved)
    std::vector<Finding> findings;
    std::vector<CounterTimeline> timelines;  ///< activity per host, t_s on the report's clock
    std::optional<Mark> traffic;             ///< the traffic window
    std::vector<std::string> notes;
};

/// Runs `senders` -> `receiver` with `t` (victim probe from this host when `victim`). `label`
/// names the run in the progress line and the raw file (DIR/raw/<label>.json).
TrafficOutcome run_traffic(RunContext& cx, const SpecHost& receiver,
                           const std::vector<SpecHost>& senders, const TrafficSpec& t, bool victim,
                           const std::string& stage, const std::string& label);

}  // namespace rh::accept
