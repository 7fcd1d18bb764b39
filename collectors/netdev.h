// Netdev state for a port's network interface. One interface, two implementations:
// rtnetlink via libnl-route (live host, netdev_rtnl.cpp) and `class/net/<if>/` files under a
// SysfsRoot (fixtures, netdev_sysfs.cpp). Both fill the same Netdev (core/inventory/inventory.h).
#pragma once

#include <memory>
#include <string>

#include "core/inventory/inventory.h"
#include "core/result.h"
#include "core/sysfs.h"

namespace rh {

class NetdevSource {
  public:
    virtual ~NetdevSource() = default;
    /// State and statistics of interface `ifname`. Error when the interface does not exist or
    /// the source cannot be queried; single unreadable/implausible values (an MTU outside
    /// kMtuMin..kMtuMax) are left nullopt with a Note in Netdev::unavailable naming the file.
    virtual Result<Netdev> read(const std::string& ifname) const = 0;
};

/// `class/net/<if>/{mtu,operstate,carrier_changes,statistics/*}` under `sysfs`.
/// Netdev::source is the directory read.
std::unique_ptr<NetdevSource> make_sysfs_netdev_source(const SysfsRoot& sysfs);

/// rtnetlink (RTM_GETLINK via rtnl_link_get_kernel), opened per read. Netdev::source is
/// "rtnetlink".
std::unique_ptr<NetdevSource> make_rtnl_netdev_source();

}  // namespace rh
