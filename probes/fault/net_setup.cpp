#include "probes/fault/net_setup.h"

#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/route.h>

#include "collectors/netlink/nl_route.h"

namespace rh {

namespace {

std::string addr_text(nl_addr* a) {
    char buf[128] = "";
    return a ? nl_addr2str(a, buf, sizeof buf) : "?";
}

/// True when the route leaves through `ifindex` (any of its next hops).
bool through(rtnl_route* r, int ifindex) {
    for (int i = 0; i < rtnl_route_get_nnexthops(r); ++i)
        if (rtnl_route_nh_get_ifindex(rtnl_route_nexthop_n(r, i)) == ifindex) return true;
    return false;
}

std::string route_text(rtnl_route* r) {
    std::string t = "route " + addr_text(rtnl_route_get_dst(r));
    if (rtnl_route_get_nnexthops(r) > 0)
        if (nl_addr* gw = rtnl_route_nh_get_gateway(rtnl_route_nexthop_n(r, 0)))
            t += " via " + addr_text(gw);
    return t + " table " + std::to_string(rtnl_route_get_table(r));
}

}  // namespace

Result<NetSetup> NetSetup::save(const std::string& netdev) {
    NetSetup s;
    s.netdev_ = netdev;
    auto rl = nl::route_link(netdev, "network setup of " + netdev);
    if (!rl) return rl.error();
    nl_sock* sock = rl->sock.get();
    const int ifindex = rtnl_link_get_ifindex(rl->link.get());
    nl_cache* c = nullptr;
    if (int e = rtnl_addr_alloc_cache(sock, &c); e < 0)
        return nl::nl_error("rtnl_addr_alloc_cache", "network setup of " + netdev, e);
    s.addr_cache_.reset(c);
    for (nl_object* o = nl_cache_get_first(c); o; o = nl_cache_get_next(o)) {
        auto* a = reinterpret_cast<rtnl_addr*>(o);
        if (rtnl_addr_get_ifindex(a) == ifindex && (rtnl_addr_get_flags(a) & IFA_F_PERMANENT) &&
            rtnl_addr_get_scope(a) != RT_SCOPE_LINK)  // fe80:: comes back by itself
            s.addrs_.push_back(o);
    }
    c = nullptr;
    if (int e = rtnl_route_alloc_cache(sock, AF_UNSPEC, 0, &c); e < 0)
        return nl::nl_error("rtnl_route_alloc_cache", "network setup of " + netdev, e);
    s.route_cache_.reset(c);
    for (nl_object* o = nl_cache_get_first(c); o; o = nl_cache_get_next(o)) {
        auto* r = reinterpret_cast<rtnl_route*>(o);
        const auto proto = rtnl_route_get_protocol(r);
        if (through(r, ifindex) && rtnl_route_get_table(r) != RT_TABLE_LOCAL &&
            proto != RTPROT_KERNEL && proto != RTPROT_RA && rtnl_route_get_type(r) == RTN_UNICAST)
            s.routes_.push_back(o);
    }
    return s;
}

NetSetup::Restored NetSetup::restore() const {
    Restored out;
    nl::Sock sock(nl_socket_alloc());
    if (!sock || nl_connect(sock.get(), NETLINK_ROUTE) < 0) {
        out.not_restored.push_back("everything saved: no rtnetlink socket");
        return out;
    }
    auto put_back = [&](std::string what, int e) {
        if (e == 0)
            out.restored.push_back(std::move(what));
        else if (e != -NLE_EXIST)  // still there: nothing to do
            out.not_restored.push_back(what + ": " + nl_geterror(-e));
    };
    for (nl_object* o : addrs_) {
        auto* a = reinterpret_cast<rtnl_addr*>(o);
        put_back("address " + addr_text(rtnl_addr_get_local(a)),
                 rtnl_addr_add(sock.get(), a, NLM_F_EXCL));
    }
    for (nl_object* o : routes_) {
        auto* r = reinterpret_cast<rtnl_route*>(o);
        put_back(route_text(r), rtnl_route_add(sock.get(), r, NLM_F_EXCL));
    }
    return out;
}

}  // namespace rh
