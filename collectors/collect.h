// Entry point of the host-inventory collectors: walks `class/infiniband` under a sysfs root and
// fills a Snapshot (core/inventory/inventory.h). One bad device or file never stops the others:
// what cannot be read is recorded as a problem/absent value, never as zero.
#pragma once

#include <string>

#include "collectors/sources/source_status.h"
#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

struct CollectOptions {
    SysfsRoot sysfs{"/sys"};
    std::string only_device;  ///< collect just this RDMA device; empty = all
    /// Live sources (rtnetlink for netdevs, ibv_query_port for active_mtu) are used only when
    /// the sysfs root is the live /sys; with a fixture root they would describe another host.
    bool live_sources() const { return sysfs.is_live(); }
};

/// Collects everything `rocehealth snapshot` prints. Never throws for bad sysfs content.
/// With no `class/infiniband` directory (or no device in it), returns a Snapshot with no
/// devices and a note saying so. `sources` (optional, reset first): per kernel source, read or
/// not, the wall time of its reads and success (collectors/sources/source_status.h). A sysfs
/// reader (rdma_sysfs, pcie_sysfs) fails when it left a problem note (a value it could not read
/// or parse); netdev_rtnl/netdev_sysfs when a netdev could not be read (absent: no data) or a
/// value of it is unavailable; verbs when a port could not be queried; the others as the
/// poller judges them.
Snapshot collect_snapshot(const CollectOptions& opts, SourcePasses* sources = nullptr);

}  // namespace rh
