// JSON form of the inventory (core/inventory/inventory.h). Absent optionals are null, never 0.
// Keys carry units: mtu_bytes, *_speed_gts, *_width_lanes, *_mtu_bytes.
//
// One definition of the format: the write_json functions below write the text directly
// (JsonWriter); the nlohmann trees (to_json) are parsed from that text. Members are written in
// ascending key order, the order a nlohmann object (std::map) keeps, so the text is what the
// tree's dump prints (JsonWriter throws on a key out of order).
#include "core/inventory/inventory.h"

#include <atomic>

#include "core/json_writer.h"

namespace rh {

namespace {

template <typename T>
void put(JsonWriter& w, const T& v);
template <typename T>
void put(JsonWriter& w, const std::optional<T>& v);
template <typename T, std::size_t N>
void put(JsonWriter& w, const std::array<T, N>& a);

template <typename T>
void put(JsonWriter& w, const T& v) {
    if constexpr (std::is_same_v<T, bool>)
        w.boolean(v);
    else if constexpr (std::is_arithmetic_v<T>)
        w.number(v);
    else
        w.string(v);
}

template <typename T>
void put(JsonWriter& w, const std::optional<T>& v) {
    if (v)
        put(w, *v);
    else
        w.null();
}

template <typename T, std::size_t N>
void put(JsonWriter& w, const std::array<T, N>& a) {
    w.begin_array();
    for (const auto& v : a) put(w, v);
    w.end_array();
}

void put(JsonWriter& w, const std::map<std::string, std::string>& m) {
    w.begin_object();
    for (const auto& [k, v] : m) {
        w.key(k);
        w.string(v);
    }
    w.end_object();
}

/// Member `k` = `v`.
template <typename T>
void member(JsonWriter& w, std::string_view k, const T& v) {
    w.key(k);
    put(w, v);
}

/// Member `k` = `s`, null when `s` is empty.
void text_or_null(JsonWriter& w, std::string_view k, const std::string& s) {
    w.key(k);
    if (s.empty())
        w.null();
    else
        w.string(s);
}

template <typename T>
void list(JsonWriter& w, std::string_view k, const std::vector<T>& v, InventoryJson what) {
    w.key(k);
    w.begin_array();
    for (const auto& e : v) write_json(w, e, what);
    w.end_array();
}

/// A tree parsed from the text: the same values as the text (integers stay exact).
template <typename T>
nlohmann::json tree(const T& v, InventoryJson what = InventoryJson::full) {
    JsonWriter w;
    write_json(w, v, what);
    return nlohmann::json::parse(w.text());
}

}  // namespace

void write_json(JsonWriter& w, const Note& n, InventoryJson) {
    w.begin_object();
    member(w, "subject", n.subject);
    member(w, "text", n.text);
    w.end_object();
}

void write_json(JsonWriter& w, const LinkPauseStats& p, InventoryJson) {
    w.begin_object();
    member(w, "rx_frames", p.rx_frames);
    text_or_null(w, "source", p.source);
    member(w, "tx_frames", p.tx_frames);
    w.end_object();
}

void write_json(JsonWriter& w, const DcbApp& a, InventoryJson) {
    w.begin_object();
    member(w, "priority", a.priority);
    member(w, "protocol", a.protocol);
    member(w, "selector", a.selector);
    w.end_object();
}

void write_json(JsonWriter& w, const DcbConfig& d, InventoryJson what) {
    w.begin_object();
    list(w, "apps", d.apps, what);
    member(w, "dcbx_mode", d.dcbx_mode);
    member(w, "pfc_cap", d.pfc_cap);
    w.key("pfc_enabled_priorities");
    if (d.pfc_enabled) {
        w.begin_array();
        for (unsigned p = 0; p < 8; ++p)
            if (*d.pfc_enabled & (1u << p)) w.number(p);
        w.end_array();
    } else {
        w.null();
    }
    member(w, "pfc_indications_frames", d.pfc_indications);
    member(w, "pfc_requests_frames", d.pfc_requests);
    member(w, "prio_tc", d.prio_tc);
    member(w, "source", d.source);
    member(w, "tc_tsa", d.tc_tsa);
    member(w, "tc_tx_bw_percent", d.tc_tx_bw_percent);
    w.end_object();
}

void write_json(JsonWriter& w, const QosConfig& q, InventoryJson) {
    w.begin_object();
    member(w, "ecn_np_enabled", q.ecn_np_enabled);
    member(w, "ecn_rp_enabled", q.ecn_rp_enabled);
    text_or_null(w, "ecn_source", q.ecn_source);
    text_or_null(w, "trust", q.trust);
    text_or_null(w, "trust_source", q.trust_source);
    w.end_object();
}

void write_json(JsonWriter& w, const NormalizedCounter& c, InventoryJson) {
    w.begin_object();
    member(w, "labels", c.labels);
    member(w, "name", c.name);
    member(w, "raw_name", c.raw_name);
    member(w, "saturates", c.saturates);
    member(w, "source", c.source);
    member(w, "unit", c.unit);
    member(w, "value", c.value);
    member(w, "width_bits", c.width_bits);
    w.end_object();
}

void write_json(JsonWriter& w, const Counter& c, InventoryJson) {
    w.begin_object();
    text_or_null(w, "error", c.error);
    member(w, "name", c.name);
    member(w, "source", c.source);
    member(w, "value", c.value);
    w.end_object();
}

void write_json(JsonWriter& w, const Gid& g, InventoryJson) {
    w.begin_object();
    member(w, "gid", g.gid);
    member(w, "index", g.index);
    member(w, "netdev", g.netdev);
    member(w, "type", g.type);
    w.end_object();
}

void write_json(JsonWriter& w, const Netdev& n, InventoryJson what) {
    w.begin_object();
    member(w, "carrier_changes", n.carrier_changes);
    w.key("dcb");
    if (n.dcb)
        write_json(w, *n.dcb, what);
    else
        w.null();
    if (what == InventoryJson::full) list(w, "ethtool_stats", n.ethtool_stats, what);
    w.key("link_pause");
    write_json(w, n.link_pause, what);
    member(w, "mtu_bytes", n.mtu_bytes);
    member(w, "name", n.name);
    member(w, "operstate", n.operstate);
    w.key("qos");
    write_json(w, n.qos, what);
    member(w, "rx_bytes", n.rx_bytes);
    member(w, "rx_dropped", n.rx_dropped);
    member(w, "rx_errors", n.rx_errors);
    member(w, "rx_packets", n.rx_packets);
    member(w, "source", n.source);
    member(w, "tx_bytes", n.tx_bytes);
    member(w, "tx_dropped", n.tx_dropped);
    member(w, "tx_errors", n.tx_errors);
    member(w, "tx_packets", n.tx_packets);
    list(w, "unavailable", n.unavailable, what);
    w.end_object();
}

void write_json(JsonWriter& w, const PcieLink& l, InventoryJson what) {
    w.begin_object();
    if (what == InventoryJson::full) list(w, "aer", l.aer, what);
    member(w, "bdf", l.bdf);
    member(w, "current_speed_gts", l.current_speed_gts);
    member(w, "current_width_lanes", l.current_width);
    member(w, "is_function", l.is_function);
    member(w, "max_speed_gts", l.max_speed_gts);
    member(w, "max_width_lanes", l.max_width);
    member(w, "numa_node", l.numa_node);
    if (!l.port_type.empty()) member(w, "port_type", l.port_type);
    if (!l.source.empty()) member(w, "source", l.source);
    member(w, "sysfs_path", l.sysfs_path);
    if (!l.upstream_unread.empty()) member(w, "upstream_unread", l.upstream_unread);
    if (l.target_speed_gts) member(w, "target_speed_gts", l.target_speed_gts);
    w.end_object();
}

void write_json(JsonWriter& w, const VerbsPort& v, InventoryJson) {
    w.begin_object();
    member(w, "active_mtu_bytes", v.active_mtu_bytes);
    member(w, "max_mtu_bytes", v.max_mtu_bytes);
    text_or_null(w, "unavailable", v.unavailable);
    w.end_object();
}

void write_json(JsonWriter& w, const Port& p, InventoryJson what) {
    const bool counters = what == InventoryJson::full;
    w.begin_object();
    if (counters) list(w, "counters", p.counters, what);
    list(w, "gids", p.gids, what);
    if (!p.gids_unavailable.empty()) member(w, "gids_unavailable", p.gids_unavailable);
    if (counters) list(w, "hw_counters", p.hw_counters, what);
    member(w, "link_layer", p.link_layer);
    w.key("netdev");
    if (p.netdev)
        write_json(w, *p.netdev, what);
    else
        w.null();
    member(w, "netdev_name", p.netdev_name);
    if (counters) {
        list(w, "nl_hw_counters", p.nl_hw_counters, what);
        list(w, "normalized", p.normalized, what);
    }
    member(w, "number", p.number);
    member(w, "phys_state", p.phys_state);
    member(w, "phys_state_code", p.phys_state_code);
    member(w, "rate", p.rate);
    if (!p.sources.empty()) member(w, "sources", p.sources);
    member(w, "state", p.state);
    member(w, "state_code", p.state_code);
    w.key("verbs");
    write_json(w, p.verbs, what);
    w.end_object();
}

void write_json(JsonWriter& w, const Device& d, InventoryJson what) {
    w.begin_object();
    member(w, "fw_ver", d.fw_ver);
    member(w, "name", d.name);
    member(w, "node_guid", d.node_guid);
    member(w, "node_type", d.node_type);
    list(w, "pcie", d.pcie, what);
    list(w, "ports", d.ports, what);
    list(w, "problems", d.problems, what);
    w.end_object();
}

void write_json(JsonWriter& w, const Snapshot& s, InventoryJson what) {
    w.begin_object();
    member(w, "collected_at", s.collected_at);
    list(w, "devices", s.devices, what);
    member(w, "host", s.host);
    list(w, "notes", s.notes, what);
    member(w, "sysfs_root", s.sysfs_root);
    w.end_object();
}

std::string snapshot_json_text(const Snapshot& s, int indent, InventoryJson what) {
    // The previous text's size, with 1/8 to spare, as the first allocation: a host's inventory
    // changes little between passes (825 kB for 8 ports), and doubling up to it would copy
    // and page in about as much again. One hint per layout and kind.
    static std::atomic<std::size_t> last_bytes[2][2]{};
    auto& last = last_bytes[indent >= 0][what == InventoryJson::full];
    JsonWriter w(indent);
    const std::size_t hint = last.load(std::memory_order_relaxed);
    if (hint > 0) w.reserve(hint + hint / 8);
    write_json(w, s, what);
    last.store(w.text().size(), std::memory_order_relaxed);
    return w.take();
}

nlohmann::json snapshot_json_tree(const Snapshot& s, InventoryJson what) {
    return tree(s, what);
}

Snapshot inventory_static_facts(Snapshot s) {
    for (Device& d : s.devices) {
        for (PcieLink& l : d.pcie) l.aer.clear();
        for (Port& p : d.ports) {
            p.counters.clear();
            p.hw_counters.clear();
            p.nl_hw_counters.clear();
            p.normalized.clear();
            if (p.netdev) p.netdev->ethtool_stats.clear();
        }
    }
    return s;
}

void to_json(nlohmann::json& j, const LinkPauseStats& p) {
    j = tree(p);
}
void to_json(nlohmann::json& j, const DcbApp& a) {
    j = tree(a);
}
void to_json(nlohmann::json& j, const DcbConfig& d) {
    j = tree(d);
}
void to_json(nlohmann::json& j, const QosConfig& q) {
    j = tree(q);
}
void to_json(nlohmann::json& j, const NormalizedCounter& c) {
    j = tree(c);
}
void to_json(nlohmann::json& j, const Counter& c) {
    j = tree(c);
}
void to_json(nlohmann::json& j, const Gid& g) {
    j = tree(g);
}
void to_json(nlohmann::json& j, const Netdev& n) {
    j = tree(n);
}
void to_json(nlohmann::json& j, const PcieLink& l) {
    j = tree(l);
}
void to_json(nlohmann::json& j, const VerbsPort& v) {
    j = tree(v);
}
void to_json(nlohmann::json& j, const Port& p) {
    j = tree(p);
}
void to_json(nlohmann::json& j, const Device& d) {
    j = tree(d);
}
void to_json(nlohmann::json& j, const Snapshot& s) {
    j = tree(s);
}

}  // namespace rh
