#include "agent/daemon/topology_lldp.h"

#include <cerrno>

#include "collectors/command_output.h"

namespace rh::agent {

namespace {

constexpr std::size_t kMaxLldpOutputBytes = 16u << 20;

Error label_error(const std::string& source, const std::string& label, const std::string& what) {
    return Error{"config", source, 0, "lldp.labels." + label + ": " + what};
}

}  // namespace

Result<Topology> topology_from_neighbors(const std::map<std::string, std::string>& labels,
                                         const std::vector<LldpNeighbor>& neighbors,
                                         const std::string& source) {
    Topology out;
    for (const auto& [label, ifname] : labels) {
        std::string name;
        for (const LldpNeighbor& n : neighbors) {
            if (n.interface != ifname) continue;
            if (n.chassis_name.empty())
                return label_error(source, label,
                                   "the LLDP neighbour on " + ifname +
                                       " sends no chassis name (chassis id " + n.chassis_id_type +
                                       " " + n.chassis_id + "): set topology." + label +
                                       " instead");
            if (!name.empty() && name != n.chassis_name)
                return label_error(
                    source, label,
                    ifname + " has two LLDP neighbours, " + name + " and " + n.chassis_name);
            name = n.chassis_name;
        }
        if (name.empty()) {
            std::string seen;
            for (const LldpNeighbor& n : neighbors)
                if (seen.find(n.interface) == std::string::npos)
                    seen += (seen.empty() ? "" : ", ") + n.interface;
            return label_error(source, label,
                               "no LLDP neighbour on " + ifname + " (lldpd has " +
                                   (seen.empty() ? "none at all" : "neighbours on " + seen) +
                                   "; a new link is learned within lldpd's tx interval, 30 s)");
        }
        if (const std::string why = check_topology_label_value(name); !why.empty())
            return label_error(source, label, "chassis name of " + ifname + " " + why);
        out.emplace(label, name);
    }
    return out;
}

Result<Topology> lldp_topology(const LldpConfig& lldp, const std::string& source) {
    if (lldp.labels.empty()) return Topology{};
    const std::string first = lldp.labels.begin()->first;
    auto text = command_output({lldp.lldpcli, "-f", "json", "show", "neighbors"}, lldp.timeout_s,
                               kMaxLldpOutputBytes);
    if (!text)
        return label_error(
            source, first,
            text.error().message() + (text.error().err_no == ENOENT
                                          ? " (install lldpd, which provides lldpcli, or set "
                                            "lldp.lldpcli to its path)"
                                          : ""));
    auto neighbors = parse_lldp_neighbors(*text);
    if (!neighbors)
        return label_error(source, first, lldp.lldpcli + " output: " + neighbors.error().message());
    return topology_from_neighbors(lldp.labels, *neighbors, source);
}

}  // namespace rh::agent
