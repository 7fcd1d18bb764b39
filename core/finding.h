// Finding: what a rule concludes, with the evidence it rests on. Produced by rules/, rendered by
// agent/ as text or JSON. Rendering is from the JSON form (machine output first).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

struct Finding {
    std::string rule_id;  ///< stable id, e.g. "pcie_downtrained"
    Severity severity = Severity::warning;
    std::string host;
    std::string device;   ///< RDMA device, e.g. "mlx5_0"; empty when host-wide
    unsigned port = 0;    ///< 1-based port number; 0 when the finding is about the device
    std::string summary;  ///< one sentence a person can act on
    std::vector<Evidence> evidence;
};

/// Informational note: something that could not be known (e.g. active_mtu without a verbs
/// device). A note is not a finding and does not change the exit code.
struct Note {
    std::string subject;  ///< e.g. "mlx5_0 port 1"
    std::string text;
};

void to_json(nlohmann::json& j, const Evidence& e);
void to_json(nlohmann::json& j, const Finding& f);
void to_json(nlohmann::json& j, const Note& n);

}  // namespace rh
