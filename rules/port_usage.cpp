#include "rules/port_usage.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "rules/evidence_format.h"
#include "store/series_store.h"

namespace rh {

namespace {

// Traffic totals, any one above 0 means the port carried traffic. PMA names: core sysfs.c
// (port_{rcv,xmit}_{data,packets}); ethtool names: mlx5e sw and _phy stats (en_stats.c), ice
// netdev and .nic port stats, bnxt port stats (counters.md); normalized names:
// collectors/normalize.h.
constexpr std::array kPmaTraffic = {"port_rcv_data", "port_xmit_data", "port_rcv_packets",
                                    "port_xmit_packets"};
constexpr std::array kEthtoolTraffic = {
    "rx_bytes",     "tx_bytes",       "rx_packets",     "tx_packets",   "rx_bytes_phy",
    "tx_bytes_phy", "rx_packets_phy", "tx_packets_phy", "rx_bytes.nic", "tx_bytes.nic"};
constexpr std::array kNormalizedTraffic = {
    "port_rcv_data_bytes", "port_xmit_data_bytes", "roce_rx_bytes",  "roce_tx_bytes",
    "roce_rx_packets",     "roce_tx_packets",      "priority_bytes", "priority_packets"};
// A link that went down: PMA / rxe link_downed, mlx5 link_down_events_phy, bnxt
// link_down_events (all normalized to link_down_events).
constexpr const char* kLinkDowned = "link_downed";
constexpr const char* kLinkDownEvents = "link_down_events";

template <typename List>
bool listed(const List& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
}

/// "port_xmit_data_bytes = 208475320068 bytes": a sign names its counter and its unit.
std::string sign(const std::string& what, double v, const std::string& unit) {
    return what + " = " + format_value(v, unit);
}

/// PMA data counters count 4-byte words (IBTA PortXmitData / PortRcvData): a port's sysfs
/// `counters/port_xmit_data` is shown as the normalized series (port_xmit_data_bytes, x4 in
/// bytes), the name and unit `diagnose` reads from the store, so one name has one unit.
const char* pma_data_as_bytes(const std::string& raw) {
    if (raw == "port_rcv_data") return "port_rcv_data_bytes";
    if (raw == "port_xmit_data") return "port_xmit_data_bytes";
    return nullptr;
}

bool as_bytes_is(const std::string& raw, std::string_view name) {
    const char* bytes = pma_data_as_bytes(raw);
    return bytes && name == bytes;
}

/// The name a normalized counter is shown by: the raw name a person finds in the capture
/// (rx_prio3_bytes, link_down_events_phy), unless its value is not the raw reading (PMA data
/// in bytes): then the normalized name.
std::string shown_name(const NormalizedCounter& c) {
    return c.raw_name.empty() || pma_data_as_bytes(c.raw_name) ? c.name : c.raw_name;
}

/// Counter signs in one order whatever the input holds (a live `check` has sysfs counters and
/// normalized ones, `diagnose` normalized series only): traffic in kNormalizedTraffic order,
/// PMA packets, then link-down counts; each name once.
void counter_signs(const Port& p, std::vector<std::string>& signs) {
    const auto add = [&](const std::string& what, std::uint64_t v, const std::string& unit,
                         double scale = 1) {
        if (v == 0) return;
        const bool dup = std::any_of(signs.begin(), signs.end(), [&](const std::string& s) {
            return s.rfind(what + " = ", 0) == 0;
        });
        if (!dup) signs.push_back(sign(what, static_cast<double>(v) * scale, unit));
    };
    for (const char* name : kNormalizedTraffic) {
        for (const NormalizedCounter& c : p.normalized)
            if (c.name == name && c.value) add(shown_name(c), *c.value, c.unit);
        for (const Counter& c : p.counters)
            if (c.value && as_bytes_is(c.name, name)) add(name, *c.value, "bytes", 4);
    }
    for (const Counter& c : p.counters)
        if (c.value && listed(kPmaTraffic, c.name) && !pma_data_as_bytes(c.name))
            add(c.name, *c.value, "packets");
    for (const Counter& c : p.counters)
        if (c.value && c.name == kLinkDowned) add(c.name, *c.value, "events");
    for (const Counter& c : p.hw_counters)
        if (c.value && c.name == kLinkDowned) add(c.name, *c.value, "events");
    for (const NormalizedCounter& c : p.normalized)
        if (c.value && c.name == kLinkDownEvents) add(shown_name(c), *c.value, c.unit);
}

void netdev_signs(const Netdev& n, std::vector<std::string>& signs) {
    if (n.operstate == "up") signs.push_back(n.name + " operstate up (carrier)");
    if (n.carrier_changes && *n.carrier_changes > 1)
        signs.push_back(n.name + " " +
                        sign("carrier_changes", static_cast<double>(*n.carrier_changes), "events"));
    const std::pair<const char*, const std::optional<std::uint64_t>*> stats[] = {
        {"rx_bytes", &n.rx_bytes},
        {"tx_bytes", &n.tx_bytes},
        {"rx_packets", &n.rx_packets},
        {"tx_packets", &n.tx_packets}};
    for (const auto& [name, v] : stats)
        if (*v && **v > 0)
            signs.push_back(n.name + " " +
                            sign(name, static_cast<double>(**v),
                                 std::string_view(name).ends_with("bytes") ? "bytes" : "packets"));
    for (const Counter& c : n.ethtool_stats)
        if (c.value && *c.value > 0 && listed(kEthtoolTraffic, c.name))
            signs.push_back(n.name + " ethtool " +
                            sign(c.name, static_cast<double>(*c.value),
                                 c.name.find("bytes") != std::string::npos ? "bytes" : "packets"));
}

}  // namespace

bool required_port_matches(const std::string& entry, const Device& d, const Port& p) {
    if (entry == d.name + "/" + std::to_string(p.number)) return true;
    if (entry.find('/') != std::string::npos) return false;
    return (!p.netdev_name.empty() && entry == p.netdev_name) ||
           (p.netdev && entry == p.netdev->name);
}

PortUsage judge_port_usage(const Device& d, const Port& p,
                           const std::vector<std::string>& required) {
    PortUsage u;
    u.required = std::any_of(required.begin(), required.end(),
                             [&](const std::string& e) { return required_port_matches(e, d, p); });
    u.down = p.state_code && p.phys_state_code && *p.state_code != kIbPortActive &&
             *p.phys_state_code != kPhysLinkUp;
    if (!u.down) return u;
    counter_signs(p, u.in_use_signs);
    if (p.netdev) netdev_signs(*p.netdev, u.in_use_signs);
    for (const Gid& g : p.gids)
        if (!g.gid.empty() && !is_link_local_gid(g.gid))
            u.in_use_signs.push_back("GID " + std::to_string(g.index) + " " + g.gid +
                                     (g.type.empty() ? "" : " (" + g.type + ")"));
    u.never_cabled = !u.required && u.in_use_signs.empty();
    if (u.never_cabled) {
        const std::string netdev =
            p.netdev ? p.netdev->name : (p.netdev_name.empty() ? "" : p.netdev_name);
        u.note.subject = d.name + " port " + std::to_string(p.number) +
                         (netdev.empty() ? "" : " (" + netdev + ")");
        u.note.text = (p.state.empty() ? std::string("down") : p.state) +
                      ", no carrier, never carried traffic: taken as not cabled (--require-port "
                      "or the agent's required_ports makes a port that must be up an error)";
    }
    return u;
}

std::vector<std::string> unmatched_required_ports(const Snapshot& snap,
                                                  const std::vector<std::string>& required) {
    std::vector<std::string> out;
    for (const std::string& e : required) {
        bool found = false;
        for (const Device& d : snap.devices)
            for (const Port& p : d.ports) found = found || required_port_matches(e, d, p);
        if (!found) out.push_back(e);
    }
    return out;
}

void add_usage_counters(const SeriesStore& store, const std::string& host, Snapshot& snap) {
    std::vector<const char*> names(kNormalizedTraffic.begin(), kNormalizedTraffic.end());
    names.push_back(kLinkDownEvents);
    for (Device& d : snap.devices)
        for (Port& p : d.ports) {
            if (!p.normalized.empty()) continue;
            const std::string port = std::to_string(p.number);
            for (const char* name : names)
                for (const Series* s : store.find(name)) {
                    const auto& l = s->key.labels;
                    const auto dev = l.find("device"), num = l.find("port");
                    if (s->key.host != host || dev == l.end() || dev->second != d.name ||
                        num == l.end() || num->second != port)
                        continue;
                    NormalizedCounter c;
                    c.name = name;
                    c.value = s->total;
                    c.unit = s->unit();
                    if (!s->metas.empty()) {
                        c.raw_name = s->metas.back().raw;
                        c.source = s->metas.back().source;
                    }
                    p.normalized.push_back(std::move(c));
                }
        }
}

std::set<std::pair<std::string, std::string>> never_cabled_ports(const Snapshot& inventory) {
    std::set<std::pair<std::string, std::string>> out;
    for (const Device& d : inventory.devices)
        for (const Port& p : d.ports)
            if (judge_port_usage(d, p, {}).never_cabled) {
                out.insert({d.name, std::to_string(p.number)});
                const std::string nd = p.netdev ? p.netdev->name : p.netdev_name;
                if (!nd.empty()) out.insert({kNetdevKey, nd});
            }
    return out;
}

bool uncabled_group(const std::set<std::pair<std::string, std::string>>& uncabled,
                    const std::map<std::string, std::string>& labels) {
    const auto dev = labels.find("device"), port = labels.find("port"), nd = labels.find("netdev");
    if (dev != labels.end() && port != labels.end())
        return uncabled.count({dev->second, port->second}) > 0;
    return nd != labels.end() && uncabled.count({kNetdevKey, nd->second}) > 0;
}

PortStateHistory port_state_history(const SeriesStore& store, const std::string& host,
                                    const std::string& device, unsigned port) {
    PortStateHistory h;
    double latest_t = -INFINITY;
    const std::string num = std::to_string(port);
    for (const Series* s : store.find("port_state_code")) {
        const auto& l = s->key.labels;
        const auto dev = l.find("device"), n = l.find("port");
        if (s->key.host != host || dev == l.end() || dev->second != device || n == l.end() ||
            n->second != num)
            continue;
        for (const Point& pt : s->points) {
            const auto v = pt.value();
            if (pt.t >= latest_t) {
                // The last reading, unreadable included: a state that stopped being readable
                // is not the ACTIVE read before it (the agent would call the host healthy).
                latest_t = pt.t;
                h.latest = v ? std::optional<unsigned>(static_cast<unsigned>(*v)) : std::nullopt;
            }
            if (!v) continue;
            const auto code = static_cast<unsigned>(*v);
            if (code != kIbPortDown) h.left_down = true;
            if (code == kIbPortActive && !h.first_active_t) h.first_active_t = pt.t;
        }
    }
    return h;
}

void apply_state_history(const SeriesStore& store, const std::string& host, Snapshot& snap) {
    for (Device& d : snap.devices)
        for (Port& p : d.ports) {
            const PortStateHistory h = port_state_history(store, host, d.name, p.number);
            // Reached ACTIVE after the inventory's capture: judged as it is now (ACTIVE implies
            // the physical link trained, LinkUp); the time rules report when it came up.
            if (h.latest == kIbPortActive && p.state_code != kIbPortActive) {
                p.state_code = kIbPortActive;
                p.state = "ACTIVE";
                p.phys_state_code = kPhysLinkUp;
                p.phys_state = "LinkUp";
            }
        }
}

std::set<std::pair<std::string, std::string>> never_cabled_ports(const Snapshot& inventory,
                                                                 const SeriesStore& store,
                                                                 const std::string& host) {
    std::set<std::pair<std::string, std::string>> out;
    for (const Device& d : inventory.devices)
        for (const Port& p : d.ports)
            if (judge_port_usage(d, p, {}).never_cabled &&
                !port_state_history(store, host, d.name, p.number).left_down) {
                out.insert({d.name, std::to_string(p.number)});
                const std::string nd = p.netdev ? p.netdev->name : p.netdev_name;
                if (!nd.empty()) out.insert({kNetdevKey, nd});
            }
    return out;
}

}  // namespace rh
