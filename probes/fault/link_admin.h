// The two link facts the acceptance `fault` stage acts on and watches: a netdev's administrative
// state (set through rtnetlink, as `ip link set dev X down|up` does) and the RDMA port's state
// (`class/infiniband/<dev>/ports/<p>/state`).
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "core/sysfs.h"

namespace rh {

/// Sets `netdev` administratively up or down (IFF_UP through RTM_NEWLINK/RTM_SETLINK). Needs
/// CAP_NET_ADMIN. Error: the netdev does not exist, not permitted, or another netlink failure;
/// the message names the netdev and says "up" or "down".
Status set_link_admin_up(const std::string& netdev, bool up);

/// The port state code of `class/infiniband/<device>/ports/<port>/state` ("4: ACTIVE" -> 4);
/// nullopt when it cannot be read or parsed (the device went away, a fixture without it).
std::optional<unsigned> read_port_state_code(const SysfsRoot& sys, const std::string& device,
                                             unsigned port);

/// IFF_UP in `class/net/<netdev>/flags` (administratively up); false when unreadable.
bool link_admin_up(const SysfsRoot& sys, const std::string& netdev);

/// True when `class/net/<netdev>/operstate` is "up" (or "unknown": drivers that do not report
/// operstate); false otherwise or when it cannot be read.
bool netdev_oper_up(const SysfsRoot& sys, const std::string& netdev);

/// The IB port state code of ACTIVE (IB spec, `ibv_port_state` IBV_PORT_ACTIVE).
inline constexpr unsigned kPortStateActive = 4;

}  // namespace rh
