// The inventory a host's bundle captures give the inventory checks: the facts of its LAST capture
// (port state, GIDs, MTUs as they are at the end of the data: a port that came up late is judged
// up, one that went down is judged down), with what that capture does not show taken from the
// latest earlier capture that does (the PCIe chain of an lspci pasted once, a GID table of an
// ibv_devinfo -v pasted once). Pure.
#pragma once

#include "core/inventory/inventory.h"

namespace rh {

/// Fills in `later` what it lacks and `earlier` (an earlier capture of the same host) holds,
/// device by device (by name) and port by port (by number): a device's PCIe chain, node_guid and
/// fw_ver; a port's state, phys_state, rate, link_layer, GID table (when `later` has none), netdev
/// and verbs MTUs; with the sources of what was taken. Devices only `earlier` holds are added.
/// Counters are not touched (they are the store's).
void fill_from_earlier(const Snapshot& earlier, Snapshot& later);

}  // namespace rh
