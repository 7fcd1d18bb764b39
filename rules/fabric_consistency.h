// fabric_consistency: the RoCE facts that must agree between hosts that talk to each other —
// netdev MTU, active_mtu, PFC-enabled priorities, trust mode and ECN-enabled priorities —
// compared across every host of a run (`diagnose` over bundles or recordings of several hosts)
// and, through the same functions, across the hosts of `accept` (agent/accept_run/consistency).
// Which facts, their labels, units and consequences: the one table of host-comparable facts
// (core/host_facts.h), shared with accept and `rocehealth fabric`'s drift. How a fact is read
// from the inventory (port_facts) and how values are grouped (group_fact_values) live here.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/inventory/inventory.h"
#include "rules/rule.h"

namespace rh {

/// Values of one fact grouped: most common first; ties keep the first member's value first (so
/// with two members that differ, the second is the one named as differing).
struct FactGroups {
    struct Group {
        std::string value;
        std::vector<std::string> members;  ///< hosts (or "host dev port N"), in input order
    };
    std::vector<Group> groups;
    std::vector<std::string> differing;  ///< members outside the most common group
    bool consistent = true;              ///< at most one value
    bool tie = false;                    ///< the first two groups are equally common
};

/// Groups (member, value) pairs by value (exact text). Pure.
FactGroups group_fact_values(const std::vector<std::pair<std::string, std::string>>& by_member);

/// PFC-enabled priorities (bits of DcbConfig::pfc_enabled, ascending); nullopt when unknown.
std::optional<std::vector<unsigned>> pfc_priorities(const std::optional<DcbConfig>& dcb);
/// Priorities with ECN enabled as reaction or notification point (QosConfig::ecn_*_enabled);
/// nullopt when no priority's state is known (upstream kernels do not expose it).
std::optional<std::vector<unsigned>> ecn_priorities(const QosConfig& q);
/// "3", "3,4", "none" (empty list), "unknown" (nullopt): the printed form compared.
std::string priorities_text(const std::optional<std::vector<unsigned>>& v);

/// The facts of one RoCE port compared between hosts. Absent = not read (never 0).
struct PortFacts {
    std::optional<unsigned> netdev_mtu_bytes;  ///< the port's netdev MTU, bytes
    std::optional<unsigned> active_mtu_bytes;  ///< RoCE active_mtu, bytes
    std::optional<std::vector<unsigned>> pfc_priorities;
    std::optional<std::vector<unsigned>> ecn_priorities;
    std::string trust;  ///< "dscp" | "pcp" | "" unknown
};
PortFacts port_facts(const Port& p);

/// The ports of a host that are compared: its ACTIVE Ethernet (RoCE) ports; when none is
/// ACTIVE, its Ethernet ports with a netdev (a capture without port state). Never an IB port.
std::vector<std::pair<const Device*, const Port*>> compared_ports(const Snapshot& host);

/// The fabric-wide check: one finding per fact whose known values differ between hosts
/// (members: a host, or "host dev port N" when a host has several compared ports; a member whose
/// value is unknown is left out, and a fact known on fewer than two hosts is not compared).
/// Findings name the differing members and the most common value with its unit; MTU facts are
/// errors (frames sized for the larger MTU are dropped), the others warnings. `out.notes` gets
/// the MTU facts no two hosts could be compared on. Fewer than two hosts: nothing.
void evaluate_fabric_consistency(std::span<const Snapshot> hosts, RuleOutput& out);

}  // namespace rh
