#include <cstdint>

#include <netlink/errno.h>
#include <netlink/netlink.h>

#include "collectors/netdev.h"
#include "collectors/nl_handles.h"
#include "collectors/parse.h"

namespace rh {

namespace {

Error nl_error(const char* op, const std::string& subject, int nl_err) {
    return Error{op, subject, 0, nl_geterror(nl_err < 0 ? -nl_err : nl_err)};
}

class RtnlNetdevSource final : public NetdevSource {
  public:
    Result<Netdev> read(const std::string& ifname) const override {
        nl::Sock sock(nl_socket_alloc());
        if (!sock) return Error{"nl_socket_alloc", ifname, ENOMEM, {}};
        if (int e = nl_connect(sock.get(), NETLINK_ROUTE); e < 0)
            return nl_error("nl_connect(NETLINK_ROUTE)", ifname, e);
        rtnl_link* raw = nullptr;
        if (int e = rtnl_link_get_kernel(sock.get(), 0, ifname.c_str(), &raw); e < 0)
            return nl_error("rtnl_link_get_kernel", ifname, e);
        nl::Link link(raw);

        Netdev n;
        n.name = ifname;
        n.source = "rtnetlink";
        const auto mtu = check_mtu(rtnl_link_get_mtu(link.get()));
        n.mtu_bytes = mtu.mtu;
        if (!mtu.mtu)
            n.unavailable.push_back(
                Note{ifname, "rtnetlink IFLA_MTU of " + ifname + ": " + mtu.error});
        char buf[32];
        n.operstate = rtnl_link_operstate2str(rtnl_link_get_operstate(link.get()), buf, sizeof buf);
        if (std::uint32_t cc = 0; rtnl_link_get_carrier_changes(link.get(), &cc) == 0)
            n.carrier_changes = cc;
        auto stat = [&](rtnl_link_stat_id_t id) -> std::optional<std::uint64_t> {
            return rtnl_link_get_stat(link.get(), id);
        };
        n.rx_bytes = stat(RTNL_LINK_RX_BYTES);
        n.tx_bytes = stat(RTNL_LINK_TX_BYTES);
        n.rx_packets = stat(RTNL_LINK_RX_PACKETS);
        n.tx_packets = stat(RTNL_LINK_TX_PACKETS);
        n.rx_errors = stat(RTNL_LINK_RX_ERRORS);
        n.tx_errors = stat(RTNL_LINK_TX_ERRORS);
        n.rx_dropped = stat(RTNL_LINK_RX_DROPPED);
        n.tx_dropped = stat(RTNL_LINK_TX_DROPPED);
        return n;
    }
};

}  // namespace

std::unique_ptr<NetdevSource> make_rtnl_netdev_source() {
    return std::make_unique<RtnlNetdevSource>();
}

}  // namespace rh
