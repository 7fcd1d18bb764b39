#include "collectors/sources/rdma_netlink.h"

#include <netlink/attr.h>
#include <netlink/netlink.h>
#include <rdma/rdma_netlink.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "collectors/netlink/nl_exchange.h"
#include "collectors/netlink/nl_handles.h"

namespace rh {

namespace {

static_assert(nldev_type(RDMA_NLDEV_CMD_GET) ==
              RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));

class NetlinkRdmaSource final : public RdmaStatSource {
  public:
    Result<nl::Bytes> stat_get(const std::string& dev, unsigned port) override {
        const std::string subject = dev + " port " + std::to_string(port);
        if (!sock_) {
            nl::Sock s(nl_socket_alloc());
            if (!s) return Error{"nl_socket_alloc", subject, ENOMEM, {}};
            if (int e = nl_connect(s.get(), NETLINK_RDMA); e < 0)
                return nl::nl_lib_error("nl_connect(NETLINK_RDMA)", subject, e);
            sock_ = std::move(s);
        }
        auto index = dev_index(dev, false);
        if (!index) index = dev_index(dev, true);  // a device added since the last dump
        if (!index) return index.error();

        nl::Msg msg(nlmsg_alloc_simple(nldev_type(RDMA_NLDEV_CMD_STAT_GET), 0));
        if (!msg || nla_put_u32(msg.get(), RDMA_NLDEV_ATTR_DEV_INDEX, *index) < 0 ||
            nla_put_u32(msg.get(), RDMA_NLDEV_ATTR_PORT_INDEX, port) < 0)
            return Error{"nla_put", subject, ENOMEM, {}};
        auto replies = nl::exchange(sock_.get(), msg.get(), "rdma netlink STAT_GET", subject);
        if (!replies) return replies.error();
        if (replies->empty()) return Error{"rdma netlink STAT_GET", subject, 0, "no reply"};
        return std::move(replies->front());
    }
    std::string describe(const std::string&, unsigned) const override {
        return "rdma netlink STAT_GET";
    }

  private:
    Result<std::uint32_t> dev_index(const std::string& dev, bool refresh) {
        if (refresh || !dump_) {
            nl::Msg msg(nlmsg_alloc_simple(nldev_type(RDMA_NLDEV_CMD_GET), NLM_F_DUMP));
            if (!msg) return Error{"nlmsg_alloc", dev, ENOMEM, {}};
            auto replies = nl::exchange(sock_.get(), msg.get(), "rdma netlink GET dump", dev);
            if (!replies) return replies.error();
            dump_ = std::move(*replies);
        }
        if (auto i = find_rdma_dev_index(*dump_, dev)) return *i;
        return Error{"rdma netlink GET dump", dev, ENODEV, "no such RDMA device"};
    }

    nl::Sock sock_;
    std::optional<std::vector<nl::Bytes>> dump_;
};

class ReplayRdmaSource final : public RdmaStatSource {
  public:
    explicit ReplayRdmaSource(std::filesystem::path dir) : dir_(std::move(dir)) {}
    Result<nl::Bytes> stat_get(const std::string& dev, unsigned port) override {
        const auto file = path(dev, port);
        return nl::read_hex_file(file.string());
    }
    std::string describe(const std::string& dev, unsigned port) const override {
        return "rdma netlink STAT_GET (recording " + path(dev, port).string() + ")";
    }

  private:
    std::filesystem::path path(const std::string& dev, unsigned port) const {
        return dir_ / (dev + "_" + std::to_string(port) + ".hex");
    }
    std::filesystem::path dir_;
};

}  // namespace

Result<std::vector<Counter>> parse_rdma_stat_reply(nl::ByteView payload,
                                                   const std::string& source) {
    auto table = nl::find(payload, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
    if (!table)
        return Error{"parse rdma netlink STAT_GET reply", source, 0,
                     "no STAT_HWCOUNTERS attribute"};
    std::vector<Counter> out;
    for (const auto& entry : nl::attrs(table->data)) {
        if (entry.type != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY) continue;
        Counter c;
        c.source = source;
        bool has_value = false;
        for (const auto& a : nl::attrs(entry.data)) {
            if (a.type == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME) c.name = nl::str(a);
            if (a.type == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE) {
                has_value = true;
                c.value = nl::u64(a);
            }
        }
        if (c.name.empty()) continue;
        if (!c.value) c.error = has_value ? "VALUE is not a u64" : "no VALUE attribute";
        out.push_back(std::move(c));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Counter& a, const Counter& b) { return a.name < b.name; });
    return out;
}

std::optional<std::uint32_t> find_rdma_dev_index(const std::vector<nl::Bytes>& dump,
                                                 const std::string& name) {
    for (const auto& payload : dump) {
        auto n = nl::find(payload, RDMA_NLDEV_ATTR_DEV_NAME);
        auto i = nl::find(payload, RDMA_NLDEV_ATTR_DEV_INDEX);
        if (n && i && nl::str(*n) == name)
            if (auto v = nl::u32(*i)) return v;
    }
    return std::nullopt;
}

Result<std::vector<Counter>> read_rdma_port_counters(RdmaStatSource& source, const std::string& dev,
                                                     unsigned port) {
    auto payload = source.stat_get(dev, port);
    if (!payload) return payload.error();
    return parse_rdma_stat_reply(*payload, source.describe(dev, port));
}

std::unique_ptr<RdmaStatSource> make_rdma_netlink_source() {
    return std::make_unique<NetlinkRdmaSource>();
}

std::unique_ptr<RdmaStatSource> make_rdma_replay_source(std::filesystem::path dir) {
    return std::make_unique<ReplayRdmaSource>(std::move(dir));
}

}  // namespace rh
