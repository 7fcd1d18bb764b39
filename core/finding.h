// Finding: what a rule concludes, with the evidence it rests on. Produced by rules/, rendered by
// agent/ as text or JSON, both from the typed result (agent/reports: CheckReport, DiagnoseReport).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/sample.h"

namespace rh {

enum class Severity { info, warning, error };
std::string to_string(Severity s);
inline std::ostream& operator<<(std::ostream& os, Severity s) {
    return os << to_string(s);
}

/// One observed value behind a finding: what it is, its value as printed, its unit (empty for
/// dimensionless text such as a port state) and where it came from (a sysfs path, "rtnetlink",
/// "ibv_query_port(rxe0, 1)", "peer 10.0.0.2 handshake").
struct Evidence {
    std::string name;
    std::string value;
    std::string unit;
    std::string source;
};

/// One dated observation in a diagnosis: the first rise of a signal, a threshold crossed and
/// held, a finding opening or closing. Ordered by time in a timeline.
struct TimelineEvent {
    double t = 0;              ///< engine time, seconds (store/series_store.h)
    std::int64_t wall_ms = 0;  ///< UTC ms since the epoch; 0 when the recording had no clock
    std::string host;
    std::string series;  ///< empty for the finding's own open/close events
    Labels labels;
    std::string what;   ///< sentence: "rnr_nak_received started rising (12 in 10 s)"
    std::string value;  ///< as printed, with `unit`
    std::string unit;
    std::string source;
};

/// An alternative explanation a rule checked: "ruled out" (its signal stayed quiet while the
/// finding held), "not ruled out" (it was present too) or "not checked" (series missing).
struct AlternativeCheck {
    std::string alternative;
    std::string status;
    std::string reason;
};

struct Finding {
    std::string rule_id;  ///< stable id, e.g. "pcie_downtrained"
    Severity severity = Severity::warning;
    std::string host;
    std::string device;   ///< RDMA device, e.g. "mlx5_0"; empty when host-wide
    unsigned port = 0;    ///< 1-based port number; 0 when the finding is about the device
    std::string summary;  ///< one sentence a person can act on
    std::vector<Evidence> evidence;
    // Filled by the rule engine for time-based rules (empty for inventory checks):
    Labels labels;           ///< the series labels the finding is about (priority, direction)
    double opened_t = 0;     ///< engine time the condition started holding
    double closed_t = 0;     ///< engine time it stopped; 0 while still holding at the end
    std::int64_t opened_wall_ms = 0, closed_wall_ms = 0;
    unsigned episodes = 0;   ///< separate periods it held in the data
    std::string explanation;  ///< why this matters and where to look (from the rules file)
    std::vector<TimelineEvent> timeline;  ///< supporting events in time order
    std::vector<AlternativeCheck> alternatives;
    std::string confidence;         ///< "high", "medium", "low"
    std::string confidence_reason;  ///< the sentence that explains it
    /// Inventory checks only: which of the check's named outcomes this finding is
    /// (rules/rule.h CheckOutcome, e.g. "below_port_rate"); empty for its usual case. The rules
    /// file's `escalate` entries map it to a severity; not rendered.
    std::string outcome;
};

/// A finding with its identity set and everything else empty (summary/evidence follow).
Finding make_finding(std::string rule_id, Severity severity, std::string host, std::string device,
                     unsigned port);

/// Informational note: something that could not be known (e.g. active_mtu without a verbs
/// device). A note is not a finding and does not change the exit code.
struct Note {
    std::string subject;  ///< e.g. "mlx5_0 port 1"
    std::string text;
};

void to_json(nlohmann::json& j, const Evidence& e);
void to_json(nlohmann::json& j, const TimelineEvent& e);
void to_json(nlohmann::json& j, const AlternativeCheck& a);
void to_json(nlohmann::json& j, const Finding& f);
void to_json(nlohmann::json& j, const Note& n);

}  // namespace rh
