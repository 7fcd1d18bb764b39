// active_mtu / max_mtu of a device's ports from ibv_query_port (rdma-core). Used only when the
// sysfs root is the live /sys (CollectOptions::live_sources()).
#pragma once

#include <string>
#include <vector>

#include "core/inventory/inventory.h"

namespace rh {

/// Opens RDMA device `dev` (by name, from ibv_get_device_list) and queries each port number in
/// `ports`. Returns one VerbsPort per requested port, in the same order; when the device cannot
/// be found/opened or a query fails, that VerbsPort has no values and `unavailable` says why
/// (e.g. "ibv_query_port(rxe0, 1): Invalid argument").
std::vector<VerbsPort> query_verbs_ports(const std::string& dev,
                                         const std::vector<unsigned>& ports);

}  // namespace rh
