// The kernel sources, one row each, in the order discovery reads them: the id
// (collectors/sources/source_status.h), its `source` label, whether the steady-state poller
// reads it again, and discovery's read of it for one device. Discovery (collectors/collect.cpp)
// runs the rows' reads in this order for every device; the poller (collectors/poller/) re-reads
// the per-pass sources through the same read and parse functions. A new kernel source: its
// reader and parser in sources/<source>.{h,cpp} (the build takes sources/*.cpp), its id in
// source_status.h, its row in table.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "collectors/sources/counter_sources.h"
#include "collectors/sources/netdev.h"
#include "collectors/sources/source_status.h"
#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

/// What one discovery pass shares between the devices it reads.
struct DeviceReads {
    const SysfsRoot& sysfs;
    bool live;                    ///< the live /sys: rtnetlink and verbs are read too
    const NetdevSource& netdevs;  ///< rtnetlink (live) or class/net/<if>/ (fixture)
    CounterCollector& counters;   ///< the per-pass sources' sockets or recordings
    SourceClock& clock;
};

struct SourceRow {
    Source id;
    std::string_view name;  ///< the `source` label: "rdma_sysfs", ...
    bool per_pass;          ///< the steady-state poller reads it on every pass
    /// Discovery's read of device `name` into `d` (the first row makes `d`). Null for a source
    /// another row reads (netdev_rtnl: the netdev row on a live host) or that is read once
    /// every device is (the netdev and RDMA netlink counters: CounterCollector::add_device).
    void (*discover)(DeviceReads& reads, Device& d, const std::string& name) = nullptr;
};

/// Every source, one row each, in discovery's order.
std::span<const SourceRow> source_table();

}  // namespace rh
