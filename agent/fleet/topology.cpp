#include "agent/fleet/topology.h"

#include <array>
#include <string_view>

#include "store/series_names.h"

namespace rh::agent {

namespace {

/// Labels of the agent's own families (metrics.cpp) and the ones Prometheus adds or the shipped
/// rules rely on; the store's labels (device, port, ...) come from known_labels().
constexpr std::array<std::string_view, 9> kAgentLabels = {
    "host", "instance", "job", "fabric", "rule", "severity", "version", "result", "le"};

bool is_name_char(char c, bool first) {
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    return alpha || (!first && c >= '0' && c <= '9');
}

}  // namespace

std::string check_topology_label_name(const std::string& name) {
    if (name.empty()) return "an empty label name";
    if (name.size() > kMaxTopologyNameBytes)
        return "label name longer than " + std::to_string(kMaxTopologyNameBytes) + " characters";
    for (std::size_t i = 0; i < name.size(); ++i)
        if (!is_name_char(name[i], i == 0))
            return "not a Prometheus label name: expected letters, digits and '_', not starting "
                   "with a digit";
    if (name.rfind("__", 0) == 0) return "label names starting with \"__\" are Prometheus' own";
    for (std::string_view taken : kAgentLabels)
        if (name == taken)
            return name == "fabric" ? "\"fabric\" is the scrape config's target label (the fabric "
                                      "rules group by it): set it there"
                                    : "\"" + name +
                                          "\" is a label rocehealth or Prometheus "
                                          "already uses";
    if (is_known_label(name)) return "\"" + name + "\" is a label of the agent's own series";
    return "";
}

std::string check_topology_label_value(const std::string& value) {
    if (value.empty()) return "must not be empty";
    if (value.size() > kMaxTopologyValueBytes)
        return std::to_string(value.size()) + " characters: expected at most " +
               std::to_string(kMaxTopologyValueBytes);
    for (char c : value)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return "contains a control character";
    return "";
}

}  // namespace rh::agent
