// JSON form of the inventory (collectors/inventory.h). Absent optionals are null, never 0.
// Keys carry units: mtu_bytes, *_speed_gts, *_width_lanes, *_mtu_bytes.
#include "collectors/inventory.h"

namespace rh {

namespace {

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json opt_text(const std::string& s) {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

}  // namespace

void to_json(nlohmann::json& j, const Counter& c) {
    j = {{"name", c.name}, {"value", opt(c.value)}, {"source", c.source},
         {"error", opt_text(c.error)}};
}

void to_json(nlohmann::json& j, const Gid& g) {
    j = {{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"netdev", g.netdev}};
}

void to_json(nlohmann::json& j, const Netdev& n) {
    j = {{"name", n.name},
         {"source", n.source},
         {"mtu_bytes", opt(n.mtu_bytes)},
         {"operstate", n.operstate},
         {"carrier_changes", opt(n.carrier_changes)},
         {"rx_bytes", opt(n.rx_bytes)},
         {"tx_bytes", opt(n.tx_bytes)},
         {"rx_packets", opt(n.rx_packets)},
         {"tx_packets", opt(n.tx_packets)},
         {"rx_errors", opt(n.rx_errors)},
         {"tx_errors", opt(n.tx_errors)},
         {"rx_dropped", opt(n.rx_dropped)},
         {"tx_dropped", opt(n.tx_dropped)}};
}

void to_json(nlohmann::json& j, const PcieLink& l) {
    j = {{"bdf", l.bdf},
         {"sysfs_path", l.sysfs_path},
         {"is_function", l.is_function},
         {"current_speed_gts", opt(l.current_speed_gts)},
         {"max_speed_gts", opt(l.max_speed_gts)},
         {"current_width_lanes", opt(l.current_width)},
         {"max_width_lanes", opt(l.max_width)},
         {"numa_node", opt(l.numa_node)}};
}

void to_json(nlohmann::json& j, const VerbsPort& v) {
    j = {{"active_mtu_bytes", opt(v.active_mtu_bytes)},
         {"max_mtu_bytes", opt(v.max_mtu_bytes)},
         {"unavailable", opt_text(v.unavailable)}};
}

void to_json(nlohmann::json& j, const Port& p) {
    j = {{"number", p.number},
         {"state_code", opt(p.state_code)},
         {"state", p.state},
         {"phys_state_code", opt(p.phys_state_code)},
         {"phys_state", p.phys_state},
         {"rate", p.rate},
         {"link_layer", p.link_layer},
         {"gids", p.gids},
         {"counters", p.counters},
         {"hw_counters", p.hw_counters},
         {"netdev_name", p.netdev_name},
         {"netdev", p.netdev ? nlohmann::json(*p.netdev) : nlohmann::json(nullptr)},
         {"verbs", p.verbs}};
}

void to_json(nlohmann::json& j, const Device& d) {
    j = {{"name", d.name},       {"node_guid", d.node_guid}, {"fw_ver", d.fw_ver},
         {"node_type", d.node_type}, {"ports", d.ports},     {"pcie", d.pcie},
         {"problems", d.problems}};
}

void to_json(nlohmann::json& j, const Snapshot& s) {
    j = {{"host", s.host},
         {"sysfs_root", s.sysfs_root},
         {"collected_at", s.collected_at},
         {"devices", s.devices},
         {"notes", s.notes}};
}

}  // namespace rh
