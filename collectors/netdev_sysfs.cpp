#include <filesystem>
#include <optional>
#include <system_error>

#include "collectors/netdev.h"
#include "collectors/rdma_sysfs.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

class SysfsNetdevSource final : public NetdevSource {
  public:
    explicit SysfsNetdevSource(const SysfsRoot& sysfs) : sysfs_(sysfs) {}

    Result<Netdev> read(const std::string& ifname) const override {
        const std::string dir = "class/net/" + ifname;
        std::error_code ec;
        if (!std::filesystem::exists(std::filesystem::symlink_status(sysfs_.path(dir), ec)))
            return Error{"find netdev", sysfs_.path(dir).string(), ENOENT, {}};
        if (std::string why = dir_problem(sysfs_, dir); !why.empty())
            return Error{"find netdev", sysfs_.path(dir).string(), 0, why};
        Netdev n;
        n.name = ifname;
        n.source = sysfs_.path(dir).string();
        const SysfsDir d(sysfs_, dir);  // 11 files: one lookup of the class/net link
        // Unreadable or unparsable values stay absent with a note naming the file (moved to
        // Device::problems by the collector).
        auto note = [&](const std::string& text) { n.unavailable.push_back(Note{ifname, text}); };
        auto u64 = [&](const char* file) -> std::optional<std::uint64_t> {
            auto t = read_attr_file(d, file);
            if (!t) {
                note(t.error().message());
                return std::nullopt;
            }
            auto v = parse_u64(*t);
            if (!v) {
                note(sysfs_.path(d.rel_of(file)).string() + ": " + v.error().detail);
                return std::nullopt;
            }
            return *v;
        };
        if (auto t = read_attr_file(d, "mtu")) {
            auto m = parse_mtu(*t);
            n.mtu_bytes = m.mtu;
            if (!m.mtu) note(sysfs_.path(dir + "/mtu").string() + ": " + m.error);
        } else {
            note(t.error().message());
        }
        if (auto op = read_attr_file(d, "operstate"))
            n.operstate = *op;
        else
            note(op.error().message());
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
