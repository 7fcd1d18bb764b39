#include "core/host_facts.h"

#include <array>

namespace rh {

namespace {

using F = HostFactId;

// clang-format off
constexpr auto kFacts = std::to_array<HostFact>({
    {F::netdev_mtu, "netdev_mtu_bytes", true, "netdev MTU", "bytes", "mtu_differs",
     "frames sized for the larger MTU are dropped where the smaller one is set, and RoCE QPs "
     "between these hosts run at the smaller path MTU: set the same MTU on every host (and the "
     "switch ports between them)",
     "netdev_mtu_bytes", "netdev_mtu_bytes"},
    {F::active_mtu, "active_mtu_bytes", true, "RoCE active_mtu", "bytes", "mtu_differs",
     "QPs between these hosts negotiate the smaller path MTU, and an application that sets "
     "path_mtu from its own active_mtu sends packets the other side drops: give every host the "
     "same netdev MTU so active_mtu agrees",
     "active_mtu_bytes", "port_active_mtu_bytes"},
    {F::link_rate, "link_gbps", true, "", "", "", "", "", ""},
    {F::roce_version, "roce_version", true, "", "", "", "", "", ""},
    {F::pfc_priorities, "pfc_priorities", true, "PFC priority set", "", "",
     "RoCE traffic on a priority without PFC at one end is dropped under congestion instead of "
     "paused (lossless only where both ends and the switch agree): enable PFC on the same "
     "priorities on every host",
     "pfc_enabled", "pfc_enabled"},
    {F::ecn_priorities, "ecn_priorities", true, "ECN priority set", "", "",
     "congestion control (DCQCN) only works where ECN is enabled at both ends: enable it on the "
     "same priorities on every host",
     "", ""},
    {F::trust, "trust", true, "trust mode", "", "",
     "hosts classify RoCE packets into priorities differently (DSCP vs PCP), so the PFC and ECN "
     "settings apply to other traffic on some of them: use the same trust mode everywhere",
     "trust", "port_trust_info"},
    {F::firmware, "firmware", false, "", "", "", "", "", ""},
    {F::kernel, "kernel", false, "", "", "", "", "", ""},
    {F::numa_node, "numa_node", false, "", "", "", "", "", ""},
});
// clang-format on

constexpr bool well_formed() {
    for (std::size_t i = 0; i < kFacts.size(); ++i) {
        const HostFact& f = kFacts[i];
        if (static_cast<std::size_t>(f.id) != i || f.key.empty()) return false;
        // Compared by diagnose: says why a difference matters. Only facts that must match are.
        if (f.label.empty() != f.consequence.empty()) return false;
        if (!f.label.empty() && !f.must_match) return false;
        // Judged by drift: read from an exported series.
        if (f.setting.empty() != f.series.empty()) return false;
    }
    return true;
}
static_assert(well_formed(),
              "host_facts: one row per HostFactId in enum order; a label with its consequence; "
              "a drift setting with its series");

}  // namespace

std::span<const HostFact> host_facts() {
    return kFacts;
}

const HostFact& host_fact(HostFactId id) {
    return kFacts.at(static_cast<std::size_t>(id));
}

}  // namespace rh
