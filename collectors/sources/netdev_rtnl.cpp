#include <cstdint>

#include <netlink/errno.h>
#include <netlink/netlink.h>

#include "collectors/netlink/nl_route.h"
#include "collectors/sources/netdev.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

class RtnlNetdevSource final : public NetdevSource {
  public:
    Result<Netdev> read(const std::string& ifname) const override {
        auto rl = nl::route_link(ifname, ifname);
        if (!rl) return rl.error();
        const nl::Link& link = rl->link;

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
