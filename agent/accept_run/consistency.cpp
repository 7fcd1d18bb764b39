#include "agent/accept_run/consistency.h"

#include <sstream>

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

std::vector<FactValues> inventory_facts(const std::vector<InventoryHost>& hosts) {
    std::vector<FactValues> facts{{"netdev_mtu_bytes", true, {}},
                                  {"active_mtu_bytes", true, {}},
                                  {"link_gbps", true, {}},
                                  {"roce_version", true, {}},
                                  {"pfc_priorities", true, {}},
                                  {"ecn_priorities", true, {}},
                                  {"trust", true, {}},
                                  {"firmware", false, {}},
                                  {"kernel", false, {}},
                                  {"numa_node", false, {}}};
    for (const auto& h : hosts) {
        InventoryNic none;
        const InventoryNic& n = h.nics.empty() ? none : h.nics.front();
        const std::vector<std::string> v{text(n.netdev_mtu_bytes),
                                         text(n.active_mtu_bytes),
                                         text(n.link_gbps),
                                         text(n.roce_version),
                                         text(n.pfc_priorities),
                                         text(n.ecn_priorities),
                                         text(n.trust),
                                         text(n.firmware),
                                         text(h.kernel),
                                         text(n.numa_node)};
        for (std::size_t i = 0; i < facts.size(); ++i) facts[i].by_host.emplace_back(h.host, v[i]);
    }
    return facts;
}

}  // namespace rh::accept
