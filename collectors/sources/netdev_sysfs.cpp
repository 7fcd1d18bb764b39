#include <filesystem>
#include <optional>
#include <system_error>

#include "collectors/sources/netdev.h"
#include "collectors/sources/rdma_sysfs.h"
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
            return Error{"find netdev", sysfs_.path_text(dir), ENOENT, {}};
        if (std::string why = dir_problem(sysfs_, dir); !why.empty())
            return Error{"find netdev", sysfs_.path_text(dir), 0, why};
        Netdev n;
        n.name = ifname;
        n.source = sysfs_.path_text(dir);
        const SysfsDir d(sysfs_, dir);  // 11 files: one lookup of the class/net link
        // Unreadable or unparsable values stay absent with a note naming the file (moved to
        // Device::problems by the collector).
        for (const NetdevFile& f : netdev_files()) {
            auto t = read_attr_file(d, f.rel);
            if (!t) {
                n.unavailable.push_back(Note{ifname, t.error().message()});
            } else if (std::string why = store_netdev_file(n, f, *t); !why.empty()) {
                n.unavailable.push_back(
                    Note{ifname, sysfs_.path_text(d.rel_of(f.rel)) + ": " + why});
            }
        }
        return n;
    }

  private:
    SysfsRoot sysfs_;
};

// clang-format off
constexpr NetdevFile kFiles[] = {
    {"mtu", NetdevFile::Kind::mtu},
    {"operstate", NetdevFile::Kind::operstate},
    {"carrier_changes", NetdevFile::Kind::counter, &Netdev::carrier_changes},
    {"statistics/rx_bytes", NetdevFile::Kind::counter, &Netdev::rx_bytes},
    {"statistics/tx_bytes", NetdevFile::Kind::counter, &Netdev::tx_bytes},
    {"statistics/rx_packets", NetdevFile::Kind::counter, &Netdev::rx_packets},
    {"statistics/tx_packets", NetdevFile::Kind::counter, &Netdev::tx_packets},
    {"statistics/rx_errors", NetdevFile::Kind::counter, &Netdev::rx_errors},
    {"statistics/tx_errors", NetdevFile::Kind::counter, &Netdev::tx_errors},
    {"statistics/rx_dropped", NetdevFile::Kind::counter, &Netdev::rx_dropped},
    {"statistics/tx_dropped", NetdevFile::Kind::counter, &Netdev::tx_dropped},
};
// clang-format on

}  // namespace

std::span<const NetdevFile> netdev_files() {
    return kFiles;
}

std::string store_netdev_file(Netdev& n, const NetdevFile& f, std::string_view text) {
    switch (f.kind) {
        case NetdevFile::Kind::mtu: {
            const auto m = parse_mtu(text);
            n.mtu_bytes = m.mtu;
            return m.mtu ? std::string{} : m.error;
        }
        case NetdevFile::Kind::operstate:
            n.operstate = text;
            return {};
        case NetdevFile::Kind::counter: {
            auto v = parse_u64(text);
            n.*f.counter = v ? std::optional<std::uint64_t>(*v) : std::nullopt;
            return v ? std::string{} : v.error().detail;
        }
    }
    return {};
}

void clear_netdev_file(Netdev& n, const NetdevFile& f) {
    switch (f.kind) {
        case NetdevFile::Kind::mtu:
            n.mtu_bytes.reset();
            return;
        case NetdevFile::Kind::operstate:
            n.operstate.clear();
            return;
        case NetdevFile::Kind::counter:
            (n.*f.counter).reset();
            return;
    }
}

void copy_netdev_files(Netdev& to, const Netdev& from) {
    to.mtu_bytes = from.mtu_bytes;
    to.operstate = from.operstate;
    for (const NetdevFile& f : kFiles)
        if (f.counter) to.*f.counter = from.*f.counter;
}

std::unique_ptr<NetdevSource> make_sysfs_netdev_source(const SysfsRoot& sysfs) {
    return std::make_unique<SysfsNetdevSource>(sysfs);
}

}  // namespace rh
