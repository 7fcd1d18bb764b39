// Netdev state for a port's network interface. One interface, two implementations:
// rtnetlink via libnl-route (live host, netdev_rtnl.cpp) and `class/net/<if>/` files under a
// SysfsRoot (fixtures, netdev_sysfs.cpp). Both fill the same Netdev (core/inventory/inventory.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

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

/// One file of `class/net/<if>/` and the Netdev value it fills. netdev_files() lists them once,
/// in reading order; the discovery reader (make_sysfs_netdev_source) and the steady-state poller
/// (collectors/poller/counter_poller.cpp) both read that list and store through store_netdev_file,
/// so a netdev value is added in one place.
struct NetdevFile {
    enum class Kind : std::uint8_t { mtu, operstate, counter };
    const char* rel;  ///< relative to class/net/<if>/
    Kind kind;
    std::optional<std::uint64_t> Netdev::*counter = nullptr;  ///< Kind::counter: the member
};

/// mtu, operstate, carrier_changes, statistics/{rx,tx}_{bytes,packets,errors,dropped}.
std::span<const NetdevFile> netdev_files();

/// Stores `text` (a file's content, cleaned as SysfsRoot::read_text does) into `n`. Returns ""
/// or why the value is absent (unparsable, an implausible MTU): the caller notes
/// "<path>: <reason>". Never throws.
std::string store_netdev_file(Netdev& n, const NetdevFile& f, std::string_view text);

/// Makes the value `f` fills absent (the file could not be read).
void clear_netdev_file(Netdev& n, const NetdevFile& f);

/// Copies every value netdev_files() fill from `from` into `to`.
void copy_netdev_files(Netdev& to, const Netdev& from);

/// `class/net/<if>/` files of netdev_files() under `sysfs`.
/// Netdev::source is the directory read.
std::unique_ptr<NetdevSource> make_sysfs_netdev_source(const SysfsRoot& sysfs);

/// rtnetlink (RTM_GETLINK via rtnl_link_get_kernel), opened per read. Netdev::source is
/// "rtnetlink".
std::unique_ptr<NetdevSource> make_rtnl_netdev_source();

}  // namespace rh
