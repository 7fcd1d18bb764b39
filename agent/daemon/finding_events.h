// Findings as events over time: the agent runs the rule engine again and again over its store;
// this compares each run's findings with the previous run's and says which opened, changed
// severity or closed, so the log carries one event per change (agent/daemon/README.md, "Log").
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"

namespace rh::agent {

/// A finding's identity across runs: rule, host, device, port and its labels (priority,
/// direction, netdev...). "link_flap|gpu07|mlx5_0|1|netdev=ens1f0np0".
std::string finding_key(const Finding& f);

/// One change to log: event is "finding_opened", "finding_severity_changed" or
/// "finding_closed"; fields are the log line's fields (rule, severity, host, device, port,
/// labels, summary, confidence, opened/closed times as engine seconds).
struct FindingEvent {
    std::string event;
    std::string level;  ///< log level: the finding's severity for opened, "info" for closed
    nlohmann::json fields;
};

class FindingTracker {
  public:
    /// Takes one run's findings (closed_t == 0: still holding). Returns, in this order: the
    /// findings that opened since the last run, those whose severity changed, those that
    /// closed (reported closed by the engine, or no longer reported because their data aged out
    /// of the store). A finding that opened and closed between two runs gives an opened and a
    /// closed event, once.
    std::vector<FindingEvent> update(const std::vector<Finding>& findings);

    /// Findings holding after the last update, by key.
    std::size_t open_count() const { return open_.size(); }

  private:
    struct Open {
        std::string severity;
        double opened_t = 0;
        nlohmann::json fields;  ///< finding_fields() when it opened, for its close event
    };
    std::map<std::string, Open> open_;
    std::map<std::string, double>
        reported_closed_;  ///< key -> engine time of the last close logged
};

}  // namespace rh::agent
