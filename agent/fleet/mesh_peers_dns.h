// The mesh's fleet from DNS (`mesh.peers_dns` in the agent config): every A and AAAA record of a
// name, as getaddrinfo returns them (so /etc/hosts and nsswitch apply as for any other name),
// is one host. DNS gives no topology: every host is in the group kUnknownTor
// (probes/mesh/mesh_plan.h), so the planner probes at most intra_tor_cap of them a round, rotating.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/mesh/mesh_plan.h"

namespace rh {

/// The distinct addresses of `name` (numeric text: "10.7.12.4", "fd00::7"), sorted, at most
/// kMaxDnsFleetHosts. Error: op "mesh.peers_dns", subject `name`, detail the resolver's reason
/// ("no such name (Name or service not known)", "temporary failure ...") or "more than N
/// addresses". Blocks for as long as the resolver does (resolv.conf's timeout and attempts).
Result<std::vector<std::string>> resolve_addresses(const std::string& name);

/// Addresses a DNS fleet may have (a bound on what one answer can make the mesh plan over).
inline constexpr std::size_t kMaxDnsFleetHosts = 100000;

/// One FleetHost per address: `host` the address text (the key every host of the fleet sorts
/// the same way), `address` "ADDR:PORT" ("[V6]:PORT"), `tor` kUnknownTor.
std::vector<FleetHost> fleet_from_addresses(const std::vector<std::string>& addresses,
                                            std::uint16_t port);

}  // namespace rh
