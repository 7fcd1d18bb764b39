// One fetch of the mesh's fleet from its dynamic source: `mesh.peers_dns` (agent/
// fleet/mesh_peers_dns.h) or `mesh.peers_prometheus` (agent/fabric/prom_client.h, then
// fleet_targets.h), with this host placed in it (fleet_self.h). Blocking (the resolver's or
// peers_prometheus.timeout_s): the agent calls it from its FleetRefresher thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "agent/fleet/fleet_config.h"
#include "agent/fleet/fleet_self.h"
#include "core/result.h"

namespace rh::agent {

/// Hosts a Prometheus fleet may have (the targets answer is refused beyond it).
inline constexpr std::size_t kMaxPrometheusFleetTargets = 100000;

/// The fleet of `mesh`'s dynamic source, each host on `responder_port`. Errors name the source
/// ("mesh.peers_dns gpus.example: no such name ...", "connect http://prom:9090/api/v1/targets:
/// no HTTP answer ...", "decode http://prom:9090/api/v1/targets: data.activeTargets[2].health:
/// expected a string", "mesh fleet http://prom:9090/api/v1/targets: this host (gpu07) is not
/// among its 960 hosts"); an Error with op "mesh fleet" when `mesh` has no dynamic source.
/// `stop` (nullptr: none), when set, ends a Prometheus request within ~100 ms.
Result<FleetAnswer> fetch_fleet(const MeshConfig& mesh, std::uint16_t responder_port,
                                const SelfIdentity& me, const std::atomic<bool>* stop = nullptr);

}  // namespace rh::agent
