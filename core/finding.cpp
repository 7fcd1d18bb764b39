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

void to_json(nlohmann::json& j, const Evidence& e) {
    j = {{"name", e.name}, {"value", e.value}, {"unit", e.unit}, {"source", e.source}};
}

void to_json(nlohmann::json& j, const Finding& f) {
    j = {{"rule", f.rule_id},     {"severity", to_string(f.severity)},
         {"host", f.host},        {"device", f.device},
         {"port", f.port},        {"summary", f.summary},
         {"evidence", f.evidence}};
}

void to_json(nlohmann::json& j, const Note& n) {
    j = {{"subject", n.subject}, {"text", n.text}};
}

}  // namespace rh
