// fabric_consistency (see fabric_consistency.h): compares the RoCE facts of several hosts.
// Source of each fact: the netdev MTU from `ip link` / rtnetlink / class/net/<if>/mtu, active_mtu
// from ibv_query_port / ibv_devinfo, PFC and trust from DCB netlink / mlnx_qos, ECN enable from
// class/net/<if>/ecn (MLNX_OFED kernels).
#include "rules/fabric_consistency.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "core/host_facts.h"

namespace rh {

namespace {

constexpr const char* kUnknown = "unknown";

std::optional<std::string> number(const std::optional<unsigned>& v) {
    if (!v) return std::nullopt;
    return std::to_string(*v);
}

std::optional<std::string> prios(const std::optional<std::vector<unsigned>>& v) {
    if (!v) return std::nullopt;
    return priorities_text(v);
}

/// The port's value of a fact of the table (core/host_facts.h); nullopt when unknown or not
/// one diagnose reads from the inventory.
std::optional<std::string> fact_value(HostFactId id, const PortFacts& f) {
    switch (id) {
        case HostFactId::netdev_mtu:
            return number(f.netdev_mtu_bytes);
        case HostFactId::active_mtu:
            return number(f.active_mtu_bytes);
        case HostFactId::pfc_priorities:
            return prios(f.pfc_priorities);
        case HostFactId::ecn_priorities:
            return prios(f.ecn_priorities);
        case HostFactId::trust:
            if (f.trust.empty()) return std::nullopt;
            return f.trust;
        case HostFactId::link_rate:
        case HostFactId::roce_version:
        case HostFactId::firmware:
        case HostFactId::kernel:
        case HostFactId::numa_node:
            return std::nullopt;  // not compared by diagnose (no label in the table)
    }
    return std::nullopt;
}

struct Member {
    std::string name;  ///< host, or "host dev port N"
    const Snapshot* host;
    const Device* device;
    const Port* port;
    PortFacts facts;
};

std::string with_unit(const std::string& v, std::string_view unit) {
    return !unit.empty() ? v + " " + std::string(unit) : (v == "none" ? "no priority" : v);
}

std::string value_source(HostFactId id, const Member& m) {
    if (id == HostFactId::active_mtu) return "ibv_query_port / ibv_devinfo active_mtu";
    if (!m.port->netdev) return "";
    const Netdev& n = *m.port->netdev;
    if (id == HostFactId::netdev_mtu) return n.source;
    if (id == HostFactId::pfc_priorities) return n.dcb ? n.dcb->source : "";
    if (id == HostFactId::trust) return n.qos.trust_source;
    return n.qos.ecn_source;
}

}  // namespace

FactGroups group_fact_values(const std::vector<std::pair<std::string, std::string>>& by_member) {
    FactGroups out;
    for (const auto& [member, value] : by_member) {
        // A named copy: clang 14 (the fuzz build) cannot capture a structured binding.
        const std::string& v = value;
        auto it = std::find_if(out.groups.begin(), out.groups.end(),
                               [&](const auto& g) { return g.value == v; });
        if (it == out.groups.end())
            out.groups.push_back({value, {member}});
        else
            it->members.push_back(member);
    }
    std::stable_sort(out.groups.begin(), out.groups.end(), [](const auto& a, const auto& b) {
        return a.members.size() > b.members.size();
    });
    for (std::size_t i = 1; i < out.groups.size(); ++i)
        for (const auto& m : out.groups[i].members) out.differing.push_back(m);
    out.consistent = out.groups.size() <= 1;
    out.tie = out.groups.size() > 1 && out.groups[0].members.size() == out.groups[1].members.size();
    return out;
}

std::optional<std::vector<unsigned>> pfc_priorities(const std::optional<DcbConfig>& dcb) {
    if (!dcb || !dcb->pfc_enabled) return std::nullopt;
    std::vector<unsigned> v;
    for (unsigned p = 0; p < 8; ++p)
        if (*dcb->pfc_enabled & (1u << p)) v.push_back(p);
    return v;
}

std::optional<std::vector<unsigned>> ecn_priorities(const QosConfig& q) {
    std::vector<unsigned> v;
    bool known = false;
    for (unsigned p = 0; p < 8; ++p) {
        known |= q.ecn_rp_enabled[p].has_value() || q.ecn_np_enabled[p].has_value();
        if (q.ecn_rp_enabled[p].value_or(false) || q.ecn_np_enabled[p].value_or(false))
            v.push_back(p);
    }
    if (!known) return std::nullopt;
    return v;
}

std::string priorities_text(const std::optional<std::vector<unsigned>>& v) {
    if (!v) return kUnknown;
    std::string s;
    for (unsigned p : *v) s += (s.empty() ? "" : ",") + std::to_string(p);
    return s.empty() ? "none" : s;
}

PortFacts port_facts(const Port& p) {
    PortFacts f;
    f.active_mtu_bytes = p.verbs.active_mtu_bytes;
    if (p.netdev) {
        f.netdev_mtu_bytes = p.netdev->mtu_bytes;
        f.pfc_priorities = pfc_priorities(p.netdev->dcb);
        f.ecn_priorities = ecn_priorities(p.netdev->qos);
        f.trust = p.netdev->qos.trust;
    }
    return f;
}

std::vector<std::pair<const Device*, const Port*>> compared_ports(const Snapshot& host) {
    std::vector<std::pair<const Device*, const Port*>> active, with_netdev;
    for (const Device& d : host.devices)
        for (const Port& p : d.ports) {
            if (p.link_layer != "Ethernet" && !(p.link_layer.empty() && p.netdev)) continue;
            if (p.state_code == 4u) active.emplace_back(&d, &p);
            if (!p.state_code && p.netdev) with_netdev.emplace_back(&d, &p);
        }
    return active.empty() ? with_netdev : active;
}

void evaluate_fabric_consistency(std::span<const Snapshot> hosts, RuleOutput& out) {
    std::set<std::string> names;
    for (const Snapshot& s : hosts) names.insert(s.host);
    if (names.size() < 2) return;
    std::vector<Member> members;
    for (const Snapshot& s : hosts) {
        const auto ports = compared_ports(s);
        for (const auto& [d, p] : ports)
            members.push_back({ports.size() == 1 ? s.host : s.host + " " + port_subject(*d, *p), &s,
                               d, p, port_facts(*p)});
    }
    for (const HostFact& def : host_facts()) {
        if (def.label.empty()) continue;  // not one diagnose compares
        std::vector<std::pair<std::string, std::string>> known;
        std::vector<const Member*> known_members;
        std::set<std::string> known_hosts;
        for (const Member& m : members)
            if (const auto v = fact_value(def.id, m.facts)) {
                known.emplace_back(m.name, *v);
                known_members.push_back(&m);
                known_hosts.insert(m.host->host);
            }
        if (known_hosts.size() < 2) {
            if (def.unit == "bytes")  // MTUs are always compared; say why not
                out.notes.push_back({"hosts", "fabric_consistency: " + std::string(def.label) +
                                                  " known on " +
                                                  std::to_string(known_hosts.size()) + " of " +
                                                  std::to_string(names.size()) +
                                                  " hosts: cannot compare it across hosts"});
            continue;
        }
        const FactGroups g = group_fact_values(known);
        if (g.consistent) continue;
        const Member* first_diff = nullptr;
        for (const auto* m : known_members)
            if (!first_diff && m->name == g.differing.front()) first_diff = m;
        std::string groups_text;
        for (std::size_t i = 0; i < g.groups.size(); ++i) {
            std::string who;
            for (const auto& n : g.groups[i].members) who += (who.empty() ? "" : ", ") + n;
            groups_text += (i ? "; " : "") + with_unit(g.groups[i].value, def.unit) + " on " + who;
        }
        Finding f =
            check_finding("fabric_consistency", first_diff->host->host, first_diff->device->name,
                          first_diff->port->number, std::string(def.outcome));
        std::string differing;
        for (const auto& n : g.differing) differing += (differing.empty() ? "" : ", ") + n;
        const std::string majority = with_unit(g.groups[0].value, def.unit);
        f.summary = std::string(def.label) + " differs between hosts: " + differing + " " +
                    (g.differing.size() == 1 ? "has " : "have ") +
                    with_unit(g.groups[1].value, def.unit) +
                    (g.groups.size() > 2 ? " (or other values)" : "") + ", " +
                    (g.tie ? "while " + g.groups[0].members.front() + " has " + majority +
                                 " (no majority: the first host's value is the reference" +
                                 (g.groups.size() > 2 ? "; " + groups_text : "") + ")"
                           : "the most common value is " + majority + " (" + groups_text + ")") +
                    ": " + std::string(def.consequence) + ".";
        for (const auto* m : known_members) {
            const std::string v = *fact_value(def.id, m->facts);
            std::string what = m->name;
            if (m->name == m->host->host) what += " " + port_subject(*m->device, *m->port);
            if (m->port->netdev && def.id != HostFactId::active_mtu)
                what += " " + m->port->netdev->name;
            f.evidence.push_back({what + " " + std::string(def.label),
                                  v == "none" ? "no priority" : v, std::string(def.unit),
                                  value_source(def.id, *m)});
        }
        out.findings.push_back(std::move(f));
    }
}

}  // namespace rh
