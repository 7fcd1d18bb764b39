#include "probes/verbs/device_select.h"

#include <arpa/inet.h>

#include <algorithm>

namespace rh {

namespace {

std::string port_dir(const std::string& dev, unsigned port) {
    return "class/infiniband/" + dev + "/ports/" + std::to_string(port);
}

bool active_ethernet(const SysfsRoot& sys, const std::string& dev, unsigned port) {
    const auto dir = port_dir(dev, port);
    auto state = sys.read_text(dir + "/state");
    auto ll = sys.read_text(dir + "/link_layer");
    return state && ll && state->find("ACTIVE") != std::string::npos && *ll == "Ethernet";
}

std::vector<unsigned> ports_of(const SysfsRoot& sys, const std::string& dev) {
    std::vector<unsigned> out;
    auto names = sys.list("class/infiniband/" + dev + "/ports");
    if (!names) return out;
    for (const auto& n : *names)
        if (auto v = parse_u64(n); v && *v > 0 && *v < 256)
            out.push_back(static_cast<unsigned>(*v));
    std::sort(out.begin(), out.end());
    return out;
}

bool is_zero(const std::array<std::uint8_t, 16>& g) {
    return std::all_of(g.begin(), g.end(), [](std::uint8_t b) { return b == 0; });
}
bool is_v4_mapped(const std::array<std::uint8_t, 16>& g) {
    return std::all_of(g.begin(), g.begin() + 10, [](std::uint8_t b) { return b == 0; }) &&
           g[10] == 0xff && g[11] == 0xff;
}

struct GidEntry {
    unsigned index;
    std::array<std::uint8_t, 16> gid;
    std::string type;
};

/// A GID table entry, or nullopt when the slot is empty/unreadable.
std::optional<GidEntry> read_gid(const SysfsRoot& sys, const std::string& dir, unsigned i) {
    auto text = sys.read_text(dir + "/gids/" + std::to_string(i));
    if (!text) return std::nullopt;
    auto raw = parse_sysfs_gid(*text);
    if (!raw || is_zero(*raw)) return std::nullopt;
    auto type = sys.read_text(dir + "/gid_attrs/types/" + std::to_string(i));
    return GidEntry{i, *raw, type ? *type : std::string()};
}

Result<GidEntry> choose_gid(const SysfsRoot& sys, const std::string& dev, unsigned port,
                            std::optional<unsigned> want) {
    const auto dir = port_dir(dev, port);
    const std::string subject = dev + " port " + std::to_string(port);
    if (want) {
        auto e = read_gid(sys, dir, *want);
        if (!e)
            return Error{"choose GID", subject, 0,
                         "GID index " + std::to_string(*want) + " is empty"};
        return *e;
    }
    auto names = sys.list(dir + "/gids");
    if (!names) return names.error();
    std::vector<unsigned> idx;
    for (const auto& n : *names)
        if (auto v = parse_u64(n); v && *v < 0x10000) idx.push_back(static_cast<unsigned>(*v));
    std::sort(idx.begin(), idx.end());
    std::optional<GidEntry> first_v2;
    for (unsigned i : idx) {
        auto e = read_gid(sys, dir, i);
        if (!e || e->type != "RoCE v2") continue;
        if (is_v4_mapped(e->gid)) return *e;
        if (!first_v2) first_v2 = e;
    }
    if (first_v2) return *first_v2;
    return Error{"choose GID", subject, 0, "no RoCE v2 GID (pass --gid-index)"};
}

}  // namespace

Result<std::array<std::uint8_t, 16>> parse_sysfs_gid(const std::string& text) {
    std::array<std::uint8_t, 16> g{};
    // Exactly 8 groups of 4 hex digits separated by ':'.
    if (text.size() != 39)
        return Error{"parse", "GID '" + text + "'", 0, "not 8 groups of 4 hex digits"};
    for (std::size_t grp = 0; grp < 8; ++grp) {
        if (grp > 0 && text[grp * 5 - 1] != ':')
            return Error{"parse", "GID '" + text + "'", 0, "expected ':'"};
        unsigned v = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const char c = text[grp * 5 + k];
            const int d = (c >= '0' && c <= '9')   ? c - '0'
                          : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                          : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                   : -1;
            if (d < 0) return Error{"parse", "GID '" + text + "'", 0, "not hex"};
            v = v * 16 + static_cast<unsigned>(d);
        }
        g[grp * 2] = static_cast<std::uint8_t>(v >> 8);
        g[grp * 2 + 1] = static_cast<std::uint8_t>(v);
    }
    return g;
}

std::string gid_to_string(const std::array<std::uint8_t, 16>& gid) {
    char buf[INET6_ADDRSTRLEN] = "";
    ::inet_ntop(AF_INET6, gid.data(), buf, sizeof buf);
    return buf;
}

Result<PortChoice> choose_port(const SysfsRoot& sys, const std::string& device,
                               std::optional<unsigned> gid_index) {
    std::vector<std::string> devices;
    if (!device.empty()) {
        if (!sys.exists("class/infiniband/" + device))
            return Error{"choose device", device, ENODEV, "no such RDMA device"};
        devices.push_back(device);
    } else {
        auto all = sys.list("class/infiniband");
        if (!all || all->empty())
            return Error{"choose device", sys.path("class/infiniband").string(), ENODEV,
                         "no RDMA device; load the NIC's RDMA driver (e.g. mlx5_ib) or create a "
                         "Soft-RoCE device (rdma link add rxe0 type rxe netdev eth0)"};
        devices = *all;
    }
    for (const auto& dev : devices) {
        for (unsigned port : ports_of(sys, dev)) {
            if (!active_ethernet(sys, dev, port)) continue;
            auto g = choose_gid(sys, dev, port, gid_index);
            if (!g) return g.error();
            PortChoice c;
            c.device = dev;
            c.port = port;
            c.gid_index = g->index;
            c.gid = g->gid;
            c.gid_text = gid_to_string(g->gid);
            c.gid_type = g->type;
            return c;
        }
    }
    return Error{"choose device", device.empty() ? "any RDMA device" : device, ENODEV,
                 "no ACTIVE Ethernet (RoCE) port"};
}

}  // namespace rh
