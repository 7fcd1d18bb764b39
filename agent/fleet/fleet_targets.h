// The mesh's fleet from Prometheus' scrape targets (`mesh.peers_prometheus`): every active
// target that is up (and of the configured job) is one host, named by its target's host part,
// probed on this agent's responder.port, in the ToR its `tor` label names (the label the fabric
// rules and rocehealth_host_info use). A target without `tor` goes to group kUnknownTor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/fabric/prom_targets.h"
#include "core/result.h"
#include "probes/mesh/mesh_plan.h"

namespace rh::agent {

/// The target label that names a host's ToR.
inline constexpr const char* kTorLabel = "tor";

/// Hosts of the up targets of `job` (every job when empty), each once (the first target of a
/// host, by scrape URL, when several scrape it). Error (op "mesh.peers_prometheus", subject
/// `url`): a `tor` label that is not a topology label value (naming the target), or no up
/// target (naming the job).
Result<std::vector<FleetHost>> fleet_from_targets(const std::vector<fabric::PromTarget>& targets,
                                                  const std::string& job, std::uint16_t port,
                                                  const std::string& url);

}  // namespace rh::agent
