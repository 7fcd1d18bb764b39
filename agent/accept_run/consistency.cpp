#include "agent/accept_run/consistency.h"

#include <sstream>

#include "core/host_facts.h"
#include "rules/fabric_consistency.h"

namespace rh::accept {

namespace {

constexpr const char* kUnknown = "unknown";

template <typename T>
std::string text(const std::optional<T>& v) {
    if (!v) return kUnknown;
    std::ostringstream s;
    s << *v;
    return s.str();
}

std::string text(const std::optional<std::vector<unsigned>>& v) {
    return priorities_text(v);
}

std::string text(const std::string& v) {
    return v.empty() ? kUnknown : v;
}

}  // namespace

ConsistencyRow consistency_row(const FactValues& f) {
    ConsistencyRow row;
    row.fact = f.fact;
    row.must_match = f.must_match;
    const FactGroups g = group_fact_values(f.by_host);  // one grouping for accept and diagnose
    for (const auto& group : g.groups) row.values.push_back({group.value, group.members});
    row.differing_hosts = g.differing;
    row.consistent = g.consistent;
    return row;
}

namespace {

/// The host's value of a fact of the table (core/host_facts.h), as printed.
std::string fact_text(HostFactId id, const InventoryHost& h, const InventoryNic& n) {
    switch (id) {
        case HostFactId::netdev_mtu:
            return text(n.netdev_mtu_bytes);
        case HostFactId::active_mtu:
            return text(n.active_mtu_bytes);
        case HostFactId::link_rate:
            return text(n.link_gbps);
        case HostFactId::roce_version:
            return text(n.roce_version);
        case HostFactId::pfc_priorities:
            return text(n.pfc_priorities);
        case HostFactId::ecn_priorities:
            return text(n.ecn_priorities);
        case HostFactId::trust:
            return text(n.trust);
        case HostFactId::firmware:
            return text(n.firmware);
        case HostFactId::kernel:
            return text(h.kernel);
        case HostFactId::numa_node:
            return text(n.numa_node);
    }
    return kUnknown;
}

}  // namespace

std::vector<FactValues> inventory_facts(const std::vector<InventoryHost>& hosts) {
    std::vector<FactValues> facts;
    for (const HostFact& f : host_facts()) {
        FactValues fv{std::string(f.key), f.must_match, {}};
        for (const auto& h : hosts) {
            InventoryNic none;
            const InventoryNic& n = h.nics.empty() ? none : h.nics.front();
            fv.by_host.emplace_back(h.host, fact_text(f.id, h, n));
        }
        facts.push_back(std::move(fv));
    }
    return facts;
}

}  // namespace rh::accept
