#include "agent/fleet/fleet_plan.h"

namespace rh::agent {

Result<std::shared_ptr<const MeshPlan>> plan_fleet(const MeshConfig& mesh, const Topology& topology,
                                                   const std::string& config_file,
                                                   std::vector<FleetHost> fleet,
                                                   const std::string& self,
                                                   const std::string& source) {
    auto plan = MeshPlan::make(std::move(fleet), self,
                               MeshPlanParams{mesh.inter_tor_peers, mesh.intra_tor_cap});
    if (!plan) return Error{"config", config_file, 0, source + ": " + plan.error().message()};
    if (auto t = topology.find("tor");
        t != topology.end() && plan->own_tor() != kUnknownTor && t->second != plan->own_tor())
        return Error{"config", config_file, 0,
                     "topology.tor: \"" + t->second + "\" but " + source + " puts host " + self +
                         " in tor \"" + plan->own_tor() + "\""};
    return std::make_shared<const MeshPlan>(std::move(*plan));
}

}  // namespace rh::agent
