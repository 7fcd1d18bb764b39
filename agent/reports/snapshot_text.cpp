#include "agent/reports/snapshot_text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

namespace rh {

namespace {

template <typename T>
std::string show(const std::optional<T>& v, const char* unit = "") {
    if (!v) return "?";
    std::ostringstream s;
    s << *v << unit;
    return s.str();
}

std::string show_speed(const std::optional<double>& v) {
    if (!v) return "? GT/s";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GT/s", *v);
    return buf;
}

std::string pad(const std::string& s, std::size_t w) {
    return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}

std::string or_unknown(const std::string& s) {
    return s.empty() ? "?" : s;
}

void print_counters(std::ostream& out, const char* title, const std::vector<Counter>& cs) {
    if (cs.empty()) return;
    std::size_t w = 0;
    for (const auto& c : cs) w = std::max(w, c.name.size());
    out << "    " << title << ":\n";
    for (const auto& c : cs) {
        out << "      " << pad(c.name, w) << " = ";
        if (c.value)
            out << *c.value << "\n";
        else
            out << "missing (" << c.error << ")\n";
    }
}

bool contains_any(const std::string& name, std::initializer_list<const char*> parts) {
    for (const char* part : parts)
        if (name.find(part) != std::string::npos) return true;
    return false;
}

/// "0,3" for the bits set in `mask`, "none" for 0.
std::string show_priorities(std::uint8_t mask) {
    std::string s;
    for (unsigned p = 0; p < 8; ++p)
        if (mask & (1u << p)) s += (s.empty() ? "" : ",") + std::to_string(p);
    return s.empty() ? "none" : s;
}

/// The netdev's extra counter sources, one line each, with a 11-wide label column.
void print_netdev_extras(std::ostream& out, const Netdev& n) {
    const std::string ind = "    " + pad("", 11);
    // "name=value" of the pause/discard/prio stats, several per line (mlx5 has ~70).
    std::vector<std::string> items;
    for (const auto& c : n.ethtool_stats)
        if (contains_any(c.name, {"pause", "discard", "prio"}))
            items.push_back(c.name + "=" + (c.value ? std::to_string(*c.value) : "?"));
    out << ind << pad("ethtool -S", 12) << n.ethtool_stats.size() << " stats";
    if (!items.empty()) out << ", " << items.size() << " pause/discard/prio:";
    out << "\n";
    std::string line;
    for (const auto& it : items) {
        if (!line.empty() && line.size() + 1 + it.size() > 88) {
            out << ind << pad("", 12) << line << "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + it;
    }
    if (!line.empty()) out << ind << pad("", 12) << line << "\n";
    out << ind << pad("link pause", 12) << "tx " << show(n.link_pause.tx_frames) << " rx "
        << show(n.link_pause.rx_frames) << " frames\n";
    out << ind << pad("dcb", 12);
    if (n.dcb)
        out << "pfc on " << (n.dcb->pfc_enabled ? show_priorities(*n.dcb->pfc_enabled) : "?")
            << "  trust " << or_unknown(n.qos.trust) << "\n";
    else
        out << "unavailable  trust " << or_unknown(n.qos.trust) << "\n";
    out << ind << pad("ecn", 12) << or_unknown(n.qos.ecn_source) << "\n";
    for (const auto& u : n.unavailable) out << ind << pad("unavail.", 12) << u.text << "\n";
}

void print_normalized(std::ostream& out, const Port& p) {
    out << "    " << pad("rdma nl", 11) << p.nl_hw_counters.size() << " counters\n";
    if (p.normalized.empty()) return;
    std::vector<std::string> names;
    std::size_t w = 0;
    for (const auto& c : p.normalized) {
        std::string n = c.name;
        if (!c.labels.empty()) {
            n += "{";
            bool first = true;
            for (const auto& [k, v] : c.labels) {
                n += (first ? "" : ",") + k + "=" + v;
                first = false;
            }
            n += "}";
        }
        w = std::max(w, n.size());
        names.push_back(std::move(n));
    }
    out << "    normalized:\n";
    for (std::size_t i = 0; i < p.normalized.size(); ++i) {
        const auto& c = p.normalized[i];
        out << "      " << pad(names[i], w) << " = "
            << (c.value ? std::to_string(*c.value) + " " + c.unit : std::string("missing")) << "\n";
    }
}

/// AER totals of a link end: "cor 6 nonfatal 0 fatal 1", or "" when no AER files.
std::string aer_totals(const PcieLink& l) {
    std::string s;
    for (const auto& c : l.aer) {
        const auto slash = c.name.find("/TOTAL_ERR_");
        std::string label;
        if (slash != std::string::npos)
            label = c.name.substr(slash + 11);
        else if (c.name.rfind("aer_rootport_total_err_", 0) == 0)
            label = "rootport_" + c.name.substr(23);
        else
            continue;
        for (auto& ch : label) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        s += (s.empty() ? "" : " ") + label + " " + (c.value ? std::to_string(*c.value) : "?");
    }
    return s;
}

void print_port(std::ostream& out, const Port& p) {
    out << "  port " << p.number << ": state " << or_unknown(p.state);
    if (p.state_code) out << " (" << *p.state_code << ")";
    out << ", phys " << or_unknown(p.phys_state);
    if (p.phys_state_code) out << " (" << *p.phys_state_code << ")";
    out << ", rate " << or_unknown(p.rate) << ", link layer " << or_unknown(p.link_layer) << "\n";

    out << "    " << pad("netdev", 11);
    if (p.netdev) {
        const Netdev& n = *p.netdev;
        out << n.name << "  mtu " << show(n.mtu_bytes, " B") << "  operstate "
            << or_unknown(n.operstate) << "  carrier_changes " << show(n.carrier_changes) << "  ("
            << n.source << ")\n";
        out << "    " << pad("", 11) << "rx " << show(n.rx_bytes, " B") << " "
            << show(n.rx_packets, " pkts") << " errors " << show(n.rx_errors) << " dropped "
            << show(n.rx_dropped) << "; tx " << show(n.tx_bytes, " B") << " "
            << show(n.tx_packets, " pkts") << " errors " << show(n.tx_errors) << " dropped "
            << show(n.tx_dropped) << "\n";
        print_netdev_extras(out, n);
    } else {
        out << (p.netdev_name.empty() ? "none found" : p.netdev_name + " (unreadable)") << "\n";
    }

    out << "    " << pad("verbs", 11);
    if (p.verbs.active_mtu_bytes || p.verbs.max_mtu_bytes)
        out << "active_mtu " << show(p.verbs.active_mtu_bytes, " B") << "  max_mtu "
            << show(p.verbs.max_mtu_bytes, " B") << "\n";
    else
        out << "unavailable: " << p.verbs.unavailable << "\n";

    if (p.gids.empty()) out << "    " << pad("gids", 11) << "none\n";
    for (std::size_t i = 0; i < p.gids.size(); ++i) {
        const Gid& g = p.gids[i];
        out << "    " << pad(i == 0 ? "gids" : "", 11) << pad(std::to_string(g.index), 4)
            << pad(or_unknown(g.type), 12) << pad(or_unknown(g.netdev), 16) << g.gid << "\n";
    }
    print_counters(out, "counters", p.counters);
    print_counters(out, "hw_counters", p.hw_counters);
    print_normalized(out, p);
}

}  // namespace

void print_device(std::ostream& out, const Device& d) {
    out << d.name << ": fw " << (d.fw_ver.empty() ? "(none)" : d.fw_ver) << ", node_guid "
        << or_unknown(d.node_guid) << ", node_type " << or_unknown(d.node_type) << "\n";
    for (const auto& p : d.ports) print_port(out, p);
    if (d.pcie.empty()) {
        out << "  pcie: none (no PCI function)\n";
    } else {
        out << "  pcie (function first, then upstream to the root port):\n";
        for (const auto& l : d.pcie)
            out << "    " << pad(l.is_function ? "function" : "upstream", 9) << pad(l.bdf, 14)
                << "current " << pad(show_speed(l.current_speed_gts), 10) << " x"
                << pad(show(l.current_width), 3) << "  max " << pad(show_speed(l.max_speed_gts), 10)
                << " x" << pad(show(l.max_width), 3) << "  numa " << pad(show(l.numa_node), 3)
                << (aer_totals(l).empty() ? "" : "  aer " + aer_totals(l)) << "\n";
    }
    if (!d.problems.empty()) {
        out << "  problems:\n";
        for (const auto& n : d.problems) out << "    " << n.subject << ": " << n.text << "\n";
    }
}

}  // namespace rh
