#include "probes/fault/link_admin.h"

#include <net/if.h>

#include <cstdlib>

#include <netlink/errno.h>
#include <netlink/netlink.h>

#include "collectors/netlink/nl_route.h"
#include "collectors/sources/rdma_sysfs.h"
#include "core/inventory/parse.h"

namespace rh {

Status set_link_admin_up(const std::string& netdev, bool up) {
    const std::string subject = netdev + (up ? " up" : " down");
    auto fail = [&](const char* op, int nl_err) {
        const int e = nl_err < 0 ? -nl_err : nl_err;
        std::string why = nl_geterror(e);
        if (e == NLE_PERM) why += " (needs CAP_NET_ADMIN)";
        return Error{op, "set link " + subject, 0, why};
    };
    auto rl = nl::route_link(netdev, "set link " + subject);
    if (!rl) return rl.error();
    nl::Link change(rtnl_link_alloc());
    if (!change) return Error{"rtnl_link_alloc", "set link " + subject, ENOMEM, {}};
    if (up)
        rtnl_link_set_flags(change.get(), IFF_UP);
    else
        rtnl_link_unset_flags(change.get(), IFF_UP);
    if (int e = rtnl_link_change(rl->sock.get(), rl->link.get(), change.get(), 0); e < 0)
        return fail("rtnl_link_change", e);
    return ok_status();
}

std::optional<unsigned> read_port_state_code(const SysfsRoot& sys, const std::string& device,
                                             unsigned port) {
    auto text = read_attr_file(
        sys, "class/infiniband/" + device + "/ports/" + std::to_string(port) + "/state");
    if (!text) return std::nullopt;
    const auto st = parse_port_state(*text);
    if (!st) return std::nullopt;
    return st->code;
}

bool link_admin_up(const SysfsRoot& sys, const std::string& netdev) {
    auto t = read_attr_file(sys, "class/net/" + netdev + "/flags");
    return t && (std::strtoul(t->c_str(), nullptr, 16) & IFF_UP) != 0;
}

bool netdev_oper_up(const SysfsRoot& sys, const std::string& netdev) {
    auto text = read_attr_file(sys, "class/net/" + netdev + "/operstate");
    if (!text) return false;
    std::string s = *text;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s == "up" || s == "unknown";
}

}  // namespace rh
