#include "agent/daemon/fleet_plan.h"

namespace rh::agent {

Result<std::shared_ptr<const MeshPlan>> plan_fleet(const AgentConfig& cfg,
                                                   std::vector<FleetHost> fleet,
                                                   const std::string& self,
                                                   const std::string& source) {
    auto plan = MeshPlan::make(std::move(fleet), self,
                               MeshPlanParams{cfg.mesh.inter_tor_peers, cfg.mesh.intra_tor_cap});
    if (!plan) return Error{"config", cfg.source, 0, source + ": " + plan.error().message()};
    if (auto t = cfg.topology.find("tor");
        t != cfg.topology.end() && plan->own_tor() != kUnknownTor && t->second != plan->own_tor())
        return Error{"config", cfg.source, 0,
                     "topology.tor: \"" + t->second + "\" but " + source + " puts host " + self +
                         " in tor \"" + plan->own_tor() + "\""};
    return std::make_shared<const MeshPlan>(std::move(*plan));
}

}  // namespace rh::agent
