#include "rules/fabric_consistency.h"
#include "rules/rule.h"

#include "rules/evidence_format.h"

namespace rh {

void rule_port_not_active(const RuleInput&, RuleOutput&);
void rule_no_roce_v2_gid(const RuleInput&, RuleOutput&);
void rule_pcie_downtrained(const RuleInput&, RuleOutput&);
void rule_roce_mtu(const RuleInput&, RuleOutput&);

namespace {
/// fabric_consistency on one host: nothing to compare (see hosts_rule).
void rule_fabric_consistency_one_host(const RuleInput&, RuleOutput&) {}
}  // namespace

namespace {
constexpr CheckOutcome kPcieOutcomes[] = {
    {"below_port_rate",
     "the PCIe path's bandwidth is below the port's rate: the NIC cannot reach line rate"}};
constexpr CheckOutcome kRoceMtuOutcomes[] = {
    {"netdev_mtu_too_small", "the netdev MTU is too small for any RoCE packet (below 352 bytes)"}};
constexpr CheckOutcome kFabricOutcomes[] = {
    {"mtu_differs", "the hosts' netdev MTU or RoCE active_mtu differ (frames are dropped)"}};

constexpr RuleDef kRules[] = {
    {"port_not_active",
     "RDMA port state is not ACTIVE or its physical state is not LinkUp",
     {},
     rule_port_not_active},
    {"no_roce_v2_gid",
     "Ethernet RDMA port has no RoCE v2 GID (routable RoCE impossible)",
     {},
     rule_no_roce_v2_gid},
    {"pcie_downtrained",
     "PCIe link of the NIC function or an upstream port runs below its maximum speed or width",
     kPcieOutcomes, rule_pcie_downtrained},
    {"roce_mtu", "RoCE active_mtu limited by the netdev MTU, or different from the peer's",
     kRoceMtuOutcomes, rule_roce_mtu},
    {"fabric_consistency",
     "netdev MTU, active_mtu, PFC priorities, trust or ECN differ between the hosts of a run",
     kFabricOutcomes, rule_fabric_consistency_one_host},
};
}  // namespace

std::span<const RuleDef> all_checks() {
    return kRules;
}

const RuleDef* find_check(std::string_view id) {
    for (const RuleDef& d : kRules)
        if (id == d.id) return &d;
    return nullptr;
}

Finding check_finding(std::string rule_id, std::string host, std::string device, unsigned port,
                      std::string outcome) {
    Finding f = make_finding(std::move(rule_id), Severity::warning, std::move(host),
                             std::move(device), port);
    f.outcome = std::move(outcome);
    return f;
}

void note_portless_devices(const Snapshot& s, RuleOutput& out) {
    for (const auto& d : s.devices)
        if (d.ports.empty())
            out.unevaluated.push_back(
                {d.name, "no readable port: nothing about it can be checked"});
}

HostsRule hosts_rule(const std::string& id) {
    return id == "fabric_consistency" ? evaluate_fabric_consistency : nullptr;
}

std::string port_subject(const Device& d, const Port& p) {
    return d.name + " port " + std::to_string(p.number);
}

std::string port_source(const Snapshot& s, const Device& d, const Port& p, const std::string& attr,
                        const std::string& file) {
    if (const auto it = p.sources.find(attr); it != p.sources.end() && !it->second.empty())
        return it->second;
    constexpr std::string_view kBundle = "bundle:";
    if (s.sysfs_root.rfind(kBundle, 0) == 0) {
        std::string dir = s.sysfs_root.substr(kBundle.size());
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
        const auto slash = dir.rfind('/');
        return "capture " + (slash == std::string::npos ? dir : dir.substr(slash + 1));
    }
    return cite_sysfs(s.sysfs_root, s.sysfs_root + "/class/infiniband/" + d.name + "/ports/" +
                                        std::to_string(p.number) + "/" + file);
}

}  // namespace rh
