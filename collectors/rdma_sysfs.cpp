#include "collectors/rdma_sysfs.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "collectors/parse.h"

namespace rh {

namespace {

const std::string kClass = "class/infiniband/";

/// Decimal directory entries ("1", "2", "10") in numeric order; others are ignored.
std::vector<unsigned> numeric_entries(const std::vector<std::string>& names) {
    std::vector<unsigned> out;
    for (const auto& n : names) {
        unsigned v = 0;
        auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
        if (ec == std::errc() && p == n.data() + n.size()) out.push_back(v);
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// Reads a text attribute; on failure records a problem and returns "".
std::string read_attr(const SysfsRoot& sysfs, const std::string& rel, const std::string& subject,
                      std::vector<Note>& problems) {
    auto t = sysfs.read_text(rel);
    if (t) return *t;
    problems.push_back(Note{subject, t.error().message()});
    return {};
}

Port read_port(const SysfsRoot& sysfs, const std::string& dev, unsigned number,
               std::vector<Note>& problems) {
    Port port;
    port.number = number;
    const std::string dir = kClass + dev + "/ports/" + std::to_string(number);
    const std::string subject = dev + " port " + std::to_string(number);

    if (auto t = sysfs.read_text(dir + "/state")) {
        auto st = parse_port_state(*t);
        port.state_code = st.code;
        port.state = st.name;
    } else {
        problems.push_back(Note{subject, t.error().message()});
    }
    if (auto t = sysfs.read_text(dir + "/phys_state")) {
        auto st = parse_port_state(*t);
        port.phys_state_code = st.code;
        port.phys_state = st.name;
    } else {
        problems.push_back(Note{subject, t.error().message()});
    }
    port.rate = read_attr(sysfs, dir + "/rate", subject, problems);
    port.link_layer = read_attr(sysfs, dir + "/link_layer", subject, problems);
    port.gids = read_gids(sysfs, dir);

    if (sysfs.exists(dir + "/counters")) {
        if (auto c = read_counter_dir(sysfs, dir + "/counters"))
            port.counters = std::move(*c);
        else
            problems.push_back(Note{subject, c.error().message()});
    }
    if (sysfs.exists(dir + "/hw_counters")) {
        // `lifespan` is the counter cache time in ms (a setting), not a counter.
        if (auto c = read_counter_dir(sysfs, dir + "/hw_counters", {"lifespan"}))
            port.hw_counters = std::move(*c);
        else
            problems.push_back(Note{subject, c.error().message()});
    }
    port.netdev_name = find_port_netdev(sysfs, dev, port.gids);
    return port;
}

}  // namespace

Result<std::vector<std::string>> list_rdma_devices(const SysfsRoot& sysfs) {
    return sysfs.list("class/infiniband");
}

Result<std::vector<Counter>> read_counter_dir(const SysfsRoot& sysfs, const std::string& dir,
                                              const std::vector<std::string>& skip) {
    auto names = sysfs.list(dir);
    if (!names) return names.error();
    std::vector<Counter> out;
    for (const auto& name : *names) {
        if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
        Counter c;
        c.name = name;
        const std::string rel = dir + "/" + name;
        c.source = sysfs.path(rel).string();
        auto text = sysfs.read_text(rel);
        if (!text) {
            c.error = text.error().message();
        } else if (auto v = parse_u64(*text)) {
            c.value = *v;
        } else {
            c.error = v.error().detail;
        }
        out.push_back(std::move(c));
    }
    return out;  // list() is sorted, so counters are sorted by name
}

std::vector<Gid> read_gids(const SysfsRoot& sysfs, const std::string& port_dir) {
    std::vector<Gid> out;
    auto names = sysfs.list(port_dir + "/gids");
    if (!names) return out;
    for (unsigned idx : numeric_entries(*names)) {
        const std::string i = std::to_string(idx);
        auto gid = sysfs.read_text(port_dir + "/gids/" + i);
        if (!gid || gid->empty() || is_zero_gid(*gid)) continue;
        Gid g;
        g.index = idx;
        g.gid = *gid;
        // An unused index's attrs fail to read (EINVAL): treat as empty.
        if (auto t = sysfs.read_text(port_dir + "/gid_attrs/types/" + i)) g.type = *t;
        if (auto n = sysfs.read_text(port_dir + "/gid_attrs/ndevs/" + i)) g.netdev = *n;
        out.push_back(std::move(g));
    }
    return out;
}

std::string find_port_netdev(const SysfsRoot& sysfs, const std::string& dev,
                             const std::vector<Gid>& gids) {
    for (const auto& g : gids)
        if (!g.netdev.empty()) return g.netdev;
    if (auto net = sysfs.list(kClass + dev + "/device/net"); net && !net->empty())
        return net->front();
    // rxe: `parent` is a file holding the netdev name on kernels that have it.
    const std::string parent = kClass + dev + "/parent";
    if (auto t = sysfs.read_text(parent); t && !t->empty()) return *t;
    if (auto r = sysfs.resolve(parent)) return std::filesystem::path(*r).filename().string();
    return {};
}

Device read_rdma_device(const SysfsRoot& sysfs, const std::string& dev) {
    Device d;
    d.name = dev;
    const std::string dir = kClass + dev;
    d.node_guid = read_attr(sysfs, dir + "/node_guid", dev, d.problems);
    d.fw_ver = read_attr(sysfs, dir + "/fw_ver", dev, d.problems);
    d.node_type = read_attr(sysfs, dir + "/node_type", dev, d.problems);
    auto ports = sysfs.list(dir + "/ports");
    if (!ports) {
        d.problems.push_back(Note{dev, ports.error().message()});
        return d;
    }
    for (unsigned p : numeric_entries(*ports)) d.ports.push_back(read_port(sysfs, dev, p, d.problems));
    return d;
}

}  // namespace rh
