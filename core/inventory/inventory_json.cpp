// JSON form of the inventory (core/inventory/inventory.h). Absent optionals are null, never 0.
// Keys carry units: mtu_bytes, *_speed_gts, *_width_lanes, *_mtu_bytes.
#include "core/inventory/inventory.h"

namespace rh {

namespace {

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json opt_text(const std::string& s) {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

template <typename T, std::size_t N>
nlohmann::json opt_array(const std::array<std::optional<T>, N>& a) {
    auto j = nlohmann::json::array();
    for (const auto& v : a) j.push_back(opt(v));
    return j;
}

}  // namespace

void to_json(nlohmann::json& j, const LinkPauseStats& p) {
    j = {{"tx_frames", opt(p.tx_frames)},
         {"rx_frames", opt(p.rx_frames)},
         {"source", opt_text(p.source)}};
}

void to_json(nlohmann::json& j, const DcbApp& a) {
    j = {{"selector", a.selector}, {"priority", a.priority}, {"protocol", a.protocol}};
}

void to_json(nlohmann::json& j, const DcbConfig& d) {
    auto enabled = nlohmann::json::array();
    if (d.pfc_enabled)
        for (unsigned p = 0; p < 8; ++p)
            if (*d.pfc_enabled & (1u << p)) enabled.push_back(p);
    j = {{"source", d.source},
         {"pfc_cap", opt(d.pfc_cap)},
         {"pfc_enabled_priorities", d.pfc_enabled ? enabled : nlohmann::json(nullptr)},
         {"pfc_requests_frames", opt_array(d.pfc_requests)},
         {"pfc_indications_frames", opt_array(d.pfc_indications)},
         {"prio_tc", opt(d.prio_tc)},
         {"tc_tsa", opt(d.tc_tsa)},
         {"tc_tx_bw_percent", opt(d.tc_tx_bw_percent)},
         {"apps", d.apps},
         {"dcbx_mode", opt(d.dcbx_mode)}};
}

void to_json(nlohmann::json& j, const QosConfig& q) {
    j = {{"trust", opt_text(q.trust)},
         {"trust_source", opt_text(q.trust_source)},
         {"ecn_rp_enabled", opt_array(q.ecn_rp_enabled)},
         {"ecn_np_enabled", opt_array(q.ecn_np_enabled)},
         {"ecn_source", opt_text(q.ecn_source)}};
}

void to_json(nlohmann::json& j, const NormalizedCounter& c) {
    j = {{"name", c.name},
         {"labels", c.labels},
         {"value", opt(c.value)},
         {"unit", c.unit},
         {"raw_name", c.raw_name},
         {"source", c.source},
         {"width_bits", c.width_bits},
         {"saturates", c.saturates}};
}

void to_json(nlohmann::json& j, const Counter& c) {
    j = {{"name", c.name},
         {"value", opt(c.value)},
         {"source", c.source},
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
         {"tx_dropped", opt(n.tx_dropped)},
         {"ethtool_stats", n.ethtool_stats},
         {"link_pause", n.link_pause},
         {"dcb", n.dcb ? nlohmann::json(*n.dcb) : nlohmann::json(nullptr)},
         {"qos", n.qos},
         {"unavailable", n.unavailable}};
}

void to_json(nlohmann::json& j, const PcieLink& l) {
    j = {{"bdf", l.bdf},
         {"sysfs_path", l.sysfs_path},
         {"is_function", l.is_function},
         {"current_speed_gts", opt(l.current_speed_gts)},
         {"max_speed_gts", opt(l.max_speed_gts)},
         {"current_width_lanes", opt(l.current_width)},
         {"max_width_lanes", opt(l.max_width)},
         {"numa_node", opt(l.numa_node)},
         {"aer", l.aer}};
    if (!l.source.empty()) j["source"] = l.source;
    if (!l.port_type.empty()) j["port_type"] = l.port_type;
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
         {"verbs", p.verbs},
         {"nl_hw_counters", p.nl_hw_counters},
         {"normalized", p.normalized}};
    if (!p.gids_unavailable.empty()) j["gids_unavailable"] = p.gids_unavailable;
    if (!p.sources.empty()) j["sources"] = p.sources;
}

void to_json(nlohmann::json& j, const Device& d) {
    j = {{"name", d.name},           {"node_guid", d.node_guid}, {"fw_ver", d.fw_ver},
         {"node_type", d.node_type}, {"ports", d.ports},         {"pcie", d.pcie},
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
