#include "collectors/sources/dcb_netlink.h"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/netlink.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "collectors/netlink/nl_exchange.h"
#include "collectors/netlink/nl_handles.h"

namespace rh {

namespace {

constexpr std::uint16_t kAttrDcbApp = 2;  // DCB_ATTR_DCB_APP (non-IEEE selectors), kernel >= 6.3

template <typename T>
std::optional<T> as_struct(const nl::Attr& a) {
    if (a.data.size() < sizeof(T)) return std::nullopt;  // newer kernels may append fields
    T v;
    std::memcpy(&v, a.data.data(), sizeof v);
    return v;
}

std::array<std::uint8_t, 8> first8(const __u8 (&src)[IEEE_8021QAZ_MAX_TCS]) {
    std::array<std::uint8_t, 8> out{};
    std::memcpy(out.data(), src, out.size());
    return out;
}

void parse_ieee(nl::ByteView ieee, DcbConfig& d) {
    for (const auto& a : nl::attrs(ieee)) {
        if (a.type == DCB_ATTR_IEEE_ETS) {
            if (auto ets = as_struct<ieee_ets>(a)) {
                d.prio_tc = first8(ets->prio_tc);
                d.tc_tsa = first8(ets->tc_tsa);
                d.tc_tx_bw_percent = first8(ets->tc_tx_bw);
            }
        } else if (a.type == DCB_ATTR_IEEE_PFC) {
            if (auto pfc = as_struct<ieee_pfc>(a)) {
                d.pfc_cap = pfc->pfc_cap;
                d.pfc_enabled = pfc->pfc_en;
                for (std::size_t p = 0; p < 8; ++p) {
                    d.pfc_requests[p] = pfc->requests[p];
                    d.pfc_indications[p] = pfc->indications[p];
                }
            }
        } else if (a.type == DCB_ATTR_IEEE_APP_TABLE) {
            for (const auto& e : nl::attrs(a.data)) {
                if (e.type != DCB_ATTR_IEEE_APP && e.type != kAttrDcbApp) continue;
                if (auto app = as_struct<dcb_app>(e))
                    d.apps.push_back(DcbApp{app->selector, app->priority, app->protocol});
            }
        }
    }
}

class NetlinkDcbSource final : public DcbSource {
  public:
    Result<nl::Bytes> ieee_get(const std::string& ifname) override {
        const std::string op = "rtnetlink RTM_GETDCB(DCB_CMD_IEEE_GET)";
        if (!sock_) {
            nl::Sock s(nl_socket_alloc());
            if (!s) return Error{"nl_socket_alloc", ifname, ENOMEM, {}};
            if (int e = nl_connect(s.get(), NETLINK_ROUTE); e < 0)
                return nl::nl_lib_error("nl_connect(NETLINK_ROUTE)", ifname, e);
            sock_ = std::move(s);
        }
        nl::Msg msg(nlmsg_alloc_simple(RTM_GETDCB, 0));
        if (!msg) return Error{"nlmsg_alloc", ifname, ENOMEM, {}};
        dcbmsg hdr{};
        hdr.dcb_family = AF_UNSPEC;
        hdr.cmd = DCB_CMD_IEEE_GET;
        if (nlmsg_append(msg.get(), &hdr, sizeof hdr, NLMSG_ALIGNTO) < 0 ||
            nla_put_string(msg.get(), DCB_ATTR_IFNAME, ifname.c_str()) < 0)
            return Error{"nla_put", ifname, ENOMEM, {}};
        auto replies = nl::exchange(sock_.get(), msg.get(), op, ifname);
        if (!replies) return replies.error();
        if (replies->empty()) return Error{op, ifname, 0, "no reply"};
        return std::move(replies->front());
    }
    std::string describe(const std::string&) const override {
        return "rtnetlink RTM_GETDCB DCB_CMD_IEEE_GET";
    }

  private:
    nl::Sock sock_;
};

class ReplayDcbSource final : public DcbSource {
  public:
    explicit ReplayDcbSource(std::filesystem::path dir) : dir_(std::move(dir)) {}
    Result<nl::Bytes> ieee_get(const std::string& ifname) override {
        const auto file = dir_ / (ifname + ".hex");
        return nl::read_hex_file(file.string());
    }
    std::string describe(const std::string& ifname) const override {
        return "recorded DCB_CMD_IEEE_GET reply " + (dir_ / (ifname + ".hex")).string();
    }

  private:
    std::filesystem::path dir_;
};

}  // namespace

Result<DcbConfig> parse_dcb_ieee_reply(nl::ByteView payload, const std::string& source) {
    const std::string op = "parse DCB_CMD_IEEE_GET reply";
    if (payload.size() < sizeof(dcbmsg)) return Error{op, source, 0, "shorter than struct dcbmsg"};
    dcbmsg hdr;
    std::memcpy(&hdr, payload.data(), sizeof hdr);
    if (hdr.cmd != DCB_CMD_IEEE_GET)
        return Error{op, source, 0, "reply to DCB command " + std::to_string(hdr.cmd)};
    const auto attrs = payload.subspan(NLMSG_ALIGN(sizeof(dcbmsg)));
    auto ieee = nl::find(attrs, DCB_ATTR_IEEE);
    if (!ieee) return Error{op, source, 0, "no DCB_ATTR_IEEE attribute"};
    DcbConfig d;
    d.source = source;
    parse_ieee(ieee->data, d);
    if (auto dcbx = nl::find(attrs, DCB_ATTR_DCBX)) d.dcbx_mode = nl::u8(*dcbx);
    return d;
}

Result<DcbConfig> read_dcb(DcbSource& source, const std::string& ifname) {
    auto payload = source.ieee_get(ifname);
    if (!payload) return payload.error();
    return parse_dcb_ieee_reply(*payload, source.describe(ifname));
}

std::unique_ptr<DcbSource> make_dcb_netlink_source() {
    return std::make_unique<NetlinkDcbSource>();
}

std::unique_ptr<DcbSource> make_dcb_replay_source(std::filesystem::path dir) {
    return std::make_unique<ReplayDcbSource>(std::move(dir));
}

}  // namespace rh
