#include "core/finding.h"

namespace rh {

std::string to_string(Severity s) {
    switch (s) {
        case Severity::info:
            return "info";
        case Severity::warning:
            return "warning";
        case Severity::error:
            return "error";
    }
    return "unknown";
}

Finding make_finding(std::string rule_id, Severity severity, std::string host, std::string device,
                     unsigned port) {
    Finding f;
    f.rule_id = std::move(rule_id);
    f.severity = severity;
    f.host = std::move(host);
    f.device = std::move(device);
    f.port = port;
    return f;
}

void to_json(nlohmann::json& j, const Evidence& e) {
    j = {{"name", e.name}, {"value", e.value}, {"unit", e.unit}, {"source", e.source}};
}

void to_json(nlohmann::json& j, const TimelineEvent& e) {
    j = {{"t", e.t},           {"wall_ms", e.wall_ms}, {"host", e.host},   {"series", e.series},
         {"labels", e.labels}, {"what", e.what},       {"value", e.value}, {"unit", e.unit},
         {"source", e.source}};
}

void to_json(nlohmann::json& j, const AlternativeCheck& a) {
    j = {{"alternative", a.alternative}, {"status", a.status}, {"reason", a.reason}};
}

void to_json(nlohmann::json& j, const Finding& f) {
    j = {{"rule", f.rule_id},     {"severity", to_string(f.severity)},
         {"host", f.host},        {"device", f.device},
         {"port", f.port},        {"summary", f.summary},
         {"evidence", f.evidence}};
    j["labels"] = f.labels.empty() ? nlohmann::json::object() : nlohmann::json(f.labels);
    if (f.episodes == 0) {  // inventory check or lifetime finding: no time dimension
        // A lifetime finding (rules/engine, one capture's counts) states its confidence.
        if (!f.confidence.empty()) {
            j["explanation"] = f.explanation;
            j["confidence"] = {{"level", f.confidence}, {"reason", f.confidence_reason}};
        }
        return;
    }
    j["opened_t"] = f.opened_t;
    j["opened_wall_ms"] = f.opened_wall_ms;
    j["closed_t"] = f.closed_t != 0 ? nlohmann::json(f.closed_t) : nlohmann::json(nullptr);
    j["closed_wall_ms"] = f.closed_wall_ms != 0 ? nlohmann::json(f.closed_wall_ms) : nlohmann::json(nullptr);
    j["episodes"] = f.episodes;
    j["explanation"] = f.explanation;
    j["timeline"] = f.timeline;
    j["alternatives"] = f.alternatives;
    j["confidence"] = {{"level", f.confidence}, {"reason", f.confidence_reason}};
}

void to_json(nlohmann::json& j, const Note& n) {
    j = {{"subject", n.subject}, {"text", n.text}};
}

}  // namespace rh
