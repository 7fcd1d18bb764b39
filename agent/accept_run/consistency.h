// Consistency of inventory facts across hosts (acceptance stage `inventory`): for each fact, the
// groups of hosts sharing a value (most common first) and the hosts outside the most common one.
// Pure; unit-tested. The grouping and how PFC/ECN priorities are read and printed are shared with
// diagnose's fabric_consistency rule (rules/fabric_consistency.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "agent/accept/report_model.h"

namespace rh::accept {

/// One fact of every host: (host, value as printed; "unknown" when not read).
struct FactValues {
    std::string fact;
    bool must_match = true;
    std::vector<std::pair<std::string, std::string>> by_host;
};

/// The row for one fact. Ties between equally common values keep the first host's value first
/// (so with two hosts that differ, the second host is the one named as differing).
ConsistencyRow consistency_row(const FactValues& f);

/// The facts compared between hosts (core/host_facts.h, in its order), from the first NIC of each
/// inventory host (the one its responder uses): must match — netdev_mtu_bytes, active_mtu_bytes,
/// link_gbps, roce_version, pfc_priorities, ecn_priorities, trust; for information — firmware,
/// kernel, numa_node.
std::vector<FactValues> inventory_facts(const std::vector<InventoryHost>& hosts);

}  // namespace rh::accept
