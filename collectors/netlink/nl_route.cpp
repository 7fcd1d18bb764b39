#include "collectors/netlink/nl_route.h"

#include <cerrno>

#include <netlink/errno.h>
#include <netlink/netlink.h>

namespace rh::nl {

Error nl_error(const char* op, const std::string& subject, int nl_err) {
    return Error{op, subject, 0, nl_geterror(nl_err < 0 ? -nl_err : nl_err)};
}

Result<RouteLink> route_link(const std::string& ifname, const std::string& subject) {
    Sock sock(nl_socket_alloc());
    if (!sock) return Error{"nl_socket_alloc", subject, ENOMEM, {}};
    if (int e = nl_connect(sock.get(), NETLINK_ROUTE); e < 0)
        return nl_error("nl_connect(NETLINK_ROUTE)", subject, e);
    rtnl_link* raw = nullptr;
    if (int e = rtnl_link_get_kernel(sock.get(), 0, ifname.c_str(), &raw); e < 0)
        return nl_error("rtnl_link_get_kernel", subject, e);
    return RouteLink{std::move(sock), Link(raw)};
}

}  // namespace rh::nl
