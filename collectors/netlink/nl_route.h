// One rtnetlink lookup shared by the readers and the writers of a netdev (collectors/netdev_rtnl,
// probes/fault/link_admin, probes/fault/net_setup): a connected NETLINK_ROUTE socket and the link
// as the kernel reports it now.
#pragma once

#include <string>

#include "collectors/netlink/nl_handles.h"
#include "core/result.h"

namespace rh::nl {

struct RouteLink {
    Sock sock;  ///< connected to NETLINK_ROUTE, for further requests
    Link link;  ///< `ifname` from RTM_GETLINK
};

/// Opens the socket and reads `ifname`. Error: op "nl_socket_alloc", "nl_connect(NETLINK_ROUTE)"
/// or "rtnl_link_get_kernel", subject `subject`, detail libnl's text (e.g. "Object not found").
Result<RouteLink> route_link(const std::string& ifname, const std::string& subject);

/// Error{op, subject, 0, libnl's text of `nl_err`} (negative or positive code).
Error nl_error(const char* op, const std::string& subject, int nl_err);

}  // namespace rh::nl
