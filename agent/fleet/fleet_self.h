// Which host of a fetched fleet is this one. A DNS fleet names hosts by address and a Prometheus
// one by its targets' host part, neither by the agent's `host`, so this host is recognised by
// its name (equal, or one is the other's first DNS label: "gpu07" and "gpu07.example") or by
// one of its interface addresses (getifaddrs).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/mesh/mesh_plan.h"

namespace rh::agent {

/// How this host may appear in a fleet.
struct SelfIdentity {
    std::string host;                 ///< the agent's host name
    std::set<std::string> addresses;  ///< numeric text of every interface address
};

/// `host` and every address of this host's interfaces (getifaddrs; none when it fails).
SelfIdentity local_identity(const std::string& host);

/// Whether a fleet entry's host (a name or an address literal) is this host.
bool is_self(const std::string& fleet_host, const SelfIdentity& me);
/// Whether it is this host by name alone (equal, or one the other's first DNS label).
bool is_self_by_name(const std::string& fleet_host, const SelfIdentity& me);

/// A fetched fleet, this host placed in it.
struct FleetAnswer {
    std::vector<FleetHost> fleet;  ///< every host, this one included once
    std::string self;              ///< this host's `host` in `fleet` (MeshPlan::make's self)
    std::size_t without_tor = 0;   ///< hosts whose source gave no ToR (in group kUnknownTor)
    bool operator==(const FleetAnswer&) const = default;
};

/// Places this host in `fleet`: the first entry (by host) that is it by name; without one, the
/// first that holds one of its addresses, the other entries holding one dropped (a dual-stack
/// host listed by both addresses: never probe oneself). Error (op "mesh fleet", subject `source`):
/// no entry is this host, naming its name, up to 4 of its addresses and the fleet's size.
Result<FleetAnswer> place_self(std::vector<FleetHost> fleet, const SelfIdentity& me,
                               const std::string& source);

}  // namespace rh::agent
