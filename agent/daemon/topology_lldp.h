// The config's `lldp` labels: where the host is cabled, from lldpd instead of a hand-written
// `topology`. Each label's value is the chassis name (LLDP SysName) of the switch on its
// interface — `{"tor": "ens1f0np0"}` makes `tor` the name of the ToR that NIC port is cabled to.
// A separate `lldp.labels` object rather than a magic value inside `topology`
// ({"tor": "lldp"}) so that no real switch name is reserved, the interface is explicit (a
// multi-rail host has one ToR per rail NIC), and `topology` stays plain data.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "agent/daemon/config.h"
#include "agent/fleet/topology.h"
#include "collectors/lldp_neighbors.h"
#include "core/result.h"

namespace rh::agent {

/// The labels from parsed neighbours: label -> chassis name of the neighbour on its interface.
/// Errors (op "config" detail "lldp.labels.LABEL: ..."): no neighbour on the interface (naming
/// the interfaces that have one), a neighbour without chassis name (naming its chassis id), two
/// neighbours with different names on it, a name that is not a label value.
Result<Topology> topology_from_neighbors(const std::map<std::string, std::string>& labels,
                                         const std::vector<LldpNeighbor>& neighbors,
                                         const std::string& source);

/// Runs `LLDPCLI -f json show neighbors` (collectors/command_output.h, lldp.timeout_s, at most
/// 16 MiB) and topology_from_neighbors. Errors name the field and what to do: lldpcli not found
/// ("install lldpd"), lldpd not running (lldpcli's own message), output that is not lldpd's
/// JSON (the parser's path). Empty labels: an empty Topology, nothing run.
Result<Topology> lldp_topology(const LldpConfig& lldp, const std::string& source);

}  // namespace rh::agent
