// `rocehealth snapshot`'s text: the host inventory (core/inventory/inventory.h) as an aligned
// summary per RDMA device — ports, netdev, verbs MTU, GIDs, counters, normalized counters, PCIe
// link ends with AER totals, problems. Missing values print as "?" or "missing", never 0.
#pragma once

#include <ostream>

#include "core/inventory/inventory.h"

namespace rh {

/// Prints device `d` and its ports, PCIe path and problems to `out` (several lines).
void print_device(std::ostream& out, const Device& d);

}  // namespace rh
