// Entry point of the host-inventory collectors: walks `class/infiniband` under a sysfs root and
// fills a Snapshot (core/inventory/inventory.h). One bad device or file never stops the others: what
// cannot be read is recorded as a problem/absent value, never as zero.
#pragma once

#include <string>

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
/// devices and a note saying so.
Snapshot collect_snapshot(const CollectOptions& opts);

}  // namespace rh
