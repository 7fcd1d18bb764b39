// This host's mesh plan (probes/mesh/mesh_plan.h) over a fleet from any source — the peers file at
// start and reload, a DNS or Prometheus fleet whenever the FleetRefresher brings a new one —
// checked against the config's own idea of where the host is (`topology.tor`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/fleet/fleet_config.h"
#include "agent/fleet/topology.h"
#include "core/result.h"
#include "probes/mesh/mesh_plan.h"

namespace rh::agent {

/// Plans `fleet` for `self` with `mesh`'s inter_tor_peers and intra_tor_cap. `source` names the
/// fleet in errors ("mesh.peers_file fleet.jsonl", "http://prom:9090/api/v1/targets").
/// Errors (op "config", subject `config_file`, the config's path): MeshPlan::make's (this host
/// not in the fleet, ...), or a `topology.tor` other than the ToR the fleet gives `self` (unless
/// the fleet gives it none: kUnknownTor).
Result<std::shared_ptr<const MeshPlan>> plan_fleet(const MeshConfig& mesh, const Topology& topology,
                                                   const std::string& config_file,
                                                   std::vector<FleetHost> fleet,
                                                   const std::string& self,
                                                   const std::string& source);

}  // namespace rh::agent
