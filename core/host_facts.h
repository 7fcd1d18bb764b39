// The facts of a RoCE host compared across the hosts of a fabric, listed once (issue 30 §4).
// Three comparisons read this table, each from its own input:
//   - diagnose's fabric_consistency rule (rules/fabric_consistency.cpp): each host's inventory;
//   - accept's inventory stage (agent/accept_run/consistency.cpp): each responder's inventory;
//   - `rocehealth fabric`'s configuration drift (agent/fabric/fabric_analysis.cpp): the series
//     the agents export (core/series_catalog.h rows named by HostFact::series).
// Each takes a fact's value through a switch over HostFactId without a default, so a new row
// that a comparison does not read fails to compile there (-Wswitch) rather than being skipped.
// It lives in core, the one layer all three may include (tests/tools/check_layers.sh).
#pragma once

#include <span>
#include <string_view>

namespace rh {

enum class HostFactId {
    netdev_mtu,      ///< the port's netdev MTU, bytes
    active_mtu,      ///< RoCE active_mtu of the port, bytes
    link_rate,       ///< port rate, Gb/s
    roce_version,    ///< RoCE v1 / v2 of the GID used
    pfc_priorities,  ///< priorities with PFC enabled
    ecn_priorities,  ///< priorities with ECN enabled (reaction or notification point)
    trust,           ///< QoS trust mode: dscp or pcp
    firmware,        ///< NIC firmware version
    kernel,          ///< kernel release
    numa_node,       ///< the NIC's NUMA node
};

struct HostFact {
    HostFactId id;
    /// Name in accept's consistency table: "netdev_mtu_bytes".
    std::string_view key;
    /// True: every host must agree (accept warns; diagnose and fabric compare it when they have
    /// it). False: shown side by side for information only.
    bool must_match;
    /// diagnose's fact as printed: "netdev MTU"; empty when diagnose does not compare it.
    std::string_view label;
    /// Unit of diagnose's value: "bytes", or "" for text values.
    std::string_view unit;
    /// diagnose's check outcome when the fact differs (rules/registry.cpp); "" the default one.
    std::string_view outcome;
    /// What a difference does, and the fix (diagnose's finding); "" when not compared there.
    std::string_view consequence;
    /// `rocehealth fabric`'s drift setting ("pfc_enabled"); empty when drift does not judge it.
    std::string_view setting;
    /// The series catalog row that exports it, read by drift ("port_active_mtu_bytes").
    std::string_view series;
};

/// Every fact, in the order the comparisons report them.
std::span<const HostFact> host_facts();

/// The row of `id` (every id has one).
const HostFact& host_fact(HostFactId id);

}  // namespace rh
