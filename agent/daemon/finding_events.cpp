#include "agent/daemon/finding_events.h"

#include <set>

namespace rh::agent {

namespace {

nlohmann::json finding_fields(const Finding& f) {
    nlohmann::json j = {{"rule", f.rule_id}, {"severity", to_string(f.severity)}, {"host", f.host}};
    if (!f.device.empty()) j["device"] = f.device;
    if (f.port != 0) j["port"] = f.port;
    if (!f.labels.empty()) j["labels"] = f.labels;
    j["summary"] = f.summary;
    if (f.opened_t != 0) j["opened_t"] = f.opened_t;
    if (!f.confidence.empty()) j["confidence"] = f.confidence;
    return j;
}

}  // namespace

std::string finding_key(const Finding& f) {
    std::string k = f.rule_id + "|" + f.host + "|" + f.device + "|" + std::to_string(f.port);
    for (const auto& [name, value] : f.labels) k += "|" + name + "=" + value;
    return k;
}

std::vector<FindingEvent> FindingTracker::update(const std::vector<Finding>& findings) {
    std::vector<FindingEvent> opened, changed, closed;
    std::set<std::string> holding;
    for (const Finding& f : findings) {
        const std::string key = finding_key(f);
        const std::string sev = to_string(f.severity);
        if (f.closed_t == 0) {
            holding.insert(key);
            auto it = open_.find(key);
            if (it == open_.end()) {
                opened.push_back({"finding_opened", sev, finding_fields(f)});
                open_[key] = Open{sev, f.opened_t, finding_fields(f)};
            } else if (it->second.severity != sev) {
                auto fields = finding_fields(f);
                fields["previous_severity"] = it->second.severity;
                changed.push_back({"finding_severity_changed", sev, std::move(fields)});
                it->second.severity = sev;
            }
            continue;
        }
        // Closed in this run's data: report each close once (identified by its closed_t).
        const bool was_open = open_.erase(key) > 0;
        auto rc = reported_closed_.find(key);
        if (!was_open && rc != reported_closed_.end() && f.closed_t <= rc->second) continue;
        if (!was_open) opened.push_back({"finding_opened", sev, finding_fields(f)});
        auto fields = finding_fields(f);
        fields["closed_t"] = f.closed_t;
        closed.push_back({"finding_closed", "info", std::move(fields)});
        reported_closed_[key] = f.closed_t;
    }
    for (auto it = open_.begin(); it != open_.end();) {
        if (holding.count(it->first)) {
            ++it;
            continue;
        }
        // An inventory check whose condition is gone (the port came back), or a finding whose
        // data aged out of the store.
        nlohmann::json fields = it->second.fields;
        fields["severity"] = it->second.severity;
        fields["reason"] =
            "no longer reported (the latest inventory no longer shows it, or its data aged out of "
            "the store)";
        closed.push_back({"finding_closed", "info", std::move(fields)});
        reported_closed_[it->first] = it->second.opened_t;
        it = open_.erase(it);
    }
    std::vector<FindingEvent> out = std::move(opened);
    out.insert(out.end(), changed.begin(), changed.end());
    out.insert(out.end(), closed.begin(), closed.end());
    return out;
}

}  // namespace rh::agent
