// GID tables of RDMA ports kept between discovery passes (issue 13 §3). A table is what
// read_gids (collectors/sources/rdma_sysfs.h) returns; reading it costs up to 255 gid files plus
// two attribute files per used entry per port on mlx5, every discovery (the agent rediscovers every
// inventory_interval_s). The kernel rewrites a table when an address or a netdev changes, so a
// kept table is dropped when one may have:
//   - live /sys: any RTM_NEWADDR/DELADDR (IPv4, IPv6) or RTM_NEWLINK/DELLINK notification on a
//     NETLINK_ROUTE socket subscribed before the first read (or lost notifications: ENOBUFS).
//     The kernel updates the table from a work queue after it notifies, so for kSettleS after a
//     notification tables are read but not kept. A table is also re-read when its `gids`
//     directory is another inode (the device was re-created) and when it is kMaxAgeS old (for
//     changes made in another network namespace, which this socket does not hear).
//   - a fixture tree: inotify on `gids/`, `gid_attrs/types/`, `gid_attrs/ndevs/` (a file
//     written, created, removed or renamed; the directory removed), watched before the read.
// Without the socket or the watches (limits, no such directory) the table is read every time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

class GidCache {
  public:
    /// Seconds after an address or link notification during which tables are not kept.
    static constexpr double kSettleS = 2.0;
    /// Oldest a kept live table gets (seconds).
    static constexpr double kMaxAgeS = 300.0;
    /// Most ports kept; beyond it the cache starts again empty.
    static constexpr std::size_t kMaxPorts = 1024;  // 3 inotify watches each on a fixture

    GidCache();
    ~GidCache();
    GidCache(const GidCache&) = delete;
    GidCache& operator=(const GidCache&) = delete;

    /// The cache discovery (collect_snapshot) uses: one per process, thread-safe.
    static GidCache& shared();

    /// read_gids(sysfs, port_dir), or the table kept from an earlier call while nothing that
    /// could change it happened. Same values and errors as read_gids.
    std::vector<Gid> gids(const SysfsRoot& sysfs, const std::string& port_dir);

    /// Tables read from sysfs (not served from the cache) so far: for tests and benchmarks.
    std::size_t reads() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rh
