#include "collectors/sources/ethtool_pause.h"

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "collectors/netlink/nl_exchange.h"
#include "collectors/netlink/nl_handles.h"

namespace rh {

namespace {

class GenlPauseSource final : public LinkPauseSource {
  public:
    Result<LinkPauseStats> read(const std::string& ifname) override {
        const std::string op = "ethtool netlink PAUSE_GET";
        if (!sock_) {
            nl::Sock s(nl_socket_alloc());
            if (!s) return Error{"nl_socket_alloc", ifname, ENOMEM, {}};
            if (int e = genl_connect(s.get()); e < 0)
                return nl::nl_lib_error("genl_connect", ifname, e);
            const int family = genl_ctrl_resolve(s.get(), "ethtool");
            if (family < 0) return nl::nl_lib_error("genl_ctrl_resolve(ethtool)", ifname, family);
            sock_ = std::move(s);
            family_ = family;
        }
        nl::Msg msg(nlmsg_alloc());
        if (!msg) return Error{"nlmsg_alloc", ifname, ENOMEM, {}};
        if (!genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_, 0, 0, ETHTOOL_MSG_PAUSE_GET,
                         ETHTOOL_GENL_VERSION))
            return Error{"genlmsg_put", ifname, ENOMEM, {}};
        nlattr* hdr = nla_nest_start(msg.get(), ETHTOOL_A_PAUSE_HEADER);
        if (!hdr || nla_put_string(msg.get(), ETHTOOL_A_HEADER_DEV_NAME, ifname.c_str()) < 0 ||
            nla_put_u32(msg.get(), ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS) < 0)
            return Error{"nla_put", ifname, ENOMEM, {}};
        hdr->nla_type |= NLA_F_NESTED;  // ethtool netlink validates strictly
        nla_nest_end(msg.get(), hdr);

        auto replies = nl::exchange(sock_.get(), msg.get(), op, ifname);
        if (!replies) return replies.error();
        for (const auto& r : *replies) {
            if (r.size() < GENL_HDRLEN) continue;
            return parse_pause_reply(nl::ByteView(r).subspan(GENL_HDRLEN), op);
        }
        return Error{op, ifname, 0, "no reply"};
    }

  private:
    nl::Sock sock_;
    int family_ = 0;
};

}  // namespace

LinkPauseStats parse_pause_reply(nl::ByteView attrs, const std::string& source) {
    LinkPauseStats p;
    p.source = source;
    if (auto stats = nl::find(attrs, ETHTOOL_A_PAUSE_STATS)) {
        for (const auto& a : nl::attrs(stats->data)) {
            if (a.type == ETHTOOL_A_PAUSE_STAT_TX_FRAMES) p.tx_frames = nl::u64(a);
            if (a.type == ETHTOOL_A_PAUSE_STAT_RX_FRAMES) p.rx_frames = nl::u64(a);
        }
    }
    return p;
}

std::unique_ptr<LinkPauseSource> make_ethtool_pause_source() {
    return std::make_unique<GenlPauseSource>();
}

}  // namespace rh
