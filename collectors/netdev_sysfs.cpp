#include <optional>

#include "collectors/netdev.h"

namespace rh {

namespace {

class SysfsNetdevSource final : public NetdevSource {
public:
    explicit SysfsNetdevSource(const SysfsRoot& sysfs) : sysfs_(sysfs) {}

    Result<Netdev> read(const std::string& ifname) const override {
        const std::string dir = "class/net/" + ifname;
        if (!sysfs_.exists(dir))
            return Error{"find netdev", sysfs_.path(dir).string(), ENOENT, {}};
        Netdev n;
        n.name = ifname;
        n.source = sysfs_.path(dir).string();
        auto u64 = [&](const std::string& file) -> std::optional<std::uint64_t> {
            auto v = sysfs_.read_u64(dir + "/" + file);
            return v ? std::optional<std::uint64_t>(*v) : std::nullopt;
        };
        if (auto mtu = u64("mtu")) n.mtu_bytes = static_cast<unsigned>(*mtu);
        if (auto op = sysfs_.read_text(dir + "/operstate")) n.operstate = *op;
        n.carrier_changes = u64("carrier_changes");
        n.rx_bytes = u64("statistics/rx_bytes");
        n.tx_bytes = u64("statistics/tx_bytes");
        n.rx_packets = u64("statistics/rx_packets");
        n.tx_packets = u64("statistics/tx_packets");
        n.rx_errors = u64("statistics/rx_errors");
        n.tx_errors = u64("statistics/tx_errors");
        n.rx_dropped = u64("statistics/rx_dropped");
        n.tx_dropped = u64("statistics/tx_dropped");
        return n;
    }

private:
    SysfsRoot sysfs_;
};

}  // namespace

std::unique_ptr<NetdevSource> make_sysfs_netdev_source(const SysfsRoot& sysfs) {
    return std::make_unique<SysfsNetdevSource>(sysfs);
}

}  // namespace rh
