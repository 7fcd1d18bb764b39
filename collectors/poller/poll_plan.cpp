#include "collectors/poller/poll_plan.h"

#include <map>

#include "collectors/sources/netdev.h"
#include "collectors/sources/rdma_sysfs.h"

namespace rh::poll {

Plan::Plan(const SysfsRoot& root, const Snapshot& s, std::optional<CounterSources> src,
           DirWatch watch)
    : files(root, watch), sources(std::move(src)) {
    build(s);
    files.open_all();
}

void Plan::build(const Snapshot& s) {
    std::map<std::string, std::uint32_t> netdev_index;
    for (std::uint32_t di = 0; di < s.devices.size(); ++di) {
        const Device& d = s.devices[di];
        DeviceShape ds;
        ds.name = d.name;
        ds.problems = d.problems.size();
        const DriverFamily rdma = detect_rdma_driver(files.sysfs, d.name);
        normalizers.emplace_back();
        dirty.emplace_back(d.ports.size(), 1);
        for (std::uint32_t pi = 0; pi < d.ports.size(); ++pi) {
            const Port& p = d.ports[pi];
            ds.ports.push_back({p.counters.size(), p.hw_counters.size(), p.netdev.has_value()});
            ds.unavailable.push_back(p.netdev ? p.netdev->unavailable.size() : 0);
            normalizers.back().emplace_back(p, rdma, netdev_family_of(files.sysfs, p, rdma));
            const std::string dir =
                "class/infiniband/" + d.name + "/ports/" + std::to_string(p.number);
            const auto states = port_state_files();
            for (std::uint32_t k = 0; k < states.size(); ++k)
                files.add(dir, states[k].name, Target::port_state, di, pi, 0).field = k;
            const auto cdirs = port_counter_dirs();
            for (std::uint32_t c = 0; c < cdirs.size(); ++c) {
                const auto& list = p.*cdirs[c].list;
                for (std::uint32_t k = 0; k < list.size(); ++k)
                    files
                        .add(dir + "/" + cdirs[c].name, list[k].name, Target::port_counter, di, pi,
                             k, true)
                        .field = c;
            }
            if (!p.netdev) continue;
            auto [it, fresh] =
                netdev_index.emplace(p.netdev->name, static_cast<std::uint32_t>(netdevs.size()));
            if (fresh)
                netdevs.push_back(NetdevEntry{
                    p.netdev->name, files.sysfs.path("class/net/" + p.netdev->name).string(), {}});
            netdevs[it->second].ports.emplace_back(di, pi);
            if (!fresh) continue;
            const std::string nd = "class/net/" + p.netdev->name;
            const auto nfiles = netdev_files();
            for (std::uint32_t k = 0; k < nfiles.size(); ++k)
                files.add(nd, nfiles[k].rel, Target::netdev, di, pi, it->second).field = k;
        }
        for (std::uint32_t li = 0; li < d.pcie.size(); ++li) {
            const PcieLink& l = d.pcie[li];
            ds.aer_sizes.push_back(l.aer.size());
            std::map<std::string, std::vector<std::uint32_t>> by_file;
            for (std::uint32_t k = 0; k < l.aer.size(); ++k) {
                const auto& name = l.aer[k].name;
                const auto slash = name.find('/');
                if (slash == std::string::npos)
                    files.add(l.sysfs_path, name, Target::aer_total, di, 0, li).field = k;
                else
                    by_file[name.substr(0, slash)].push_back(k);
            }
            for (auto& [file, idx] : by_file)
                files.add(l.sysfs_path, file, Target::aer_dev, di, 0, li).aer = std::move(idx);
        }
        shape.push_back(std::move(ds));
    }
}

bool Plan::same_shape(const Snapshot& s, PollResult& r) const {
    bool same = s.devices.size() == shape.size();
    for (std::size_t i = 0; same && i < shape.size(); ++i) {
        const Device& d = s.devices[i];
        const DeviceShape& ds = shape[i];
        same = d.name == ds.name && d.ports.size() == ds.ports.size() &&
               d.pcie.size() == ds.aer_sizes.size();
        for (std::size_t p = 0; same && p < ds.ports.size(); ++p)
            same = d.ports[p].counters.size() == ds.ports[p].counters &&
                   d.ports[p].hw_counters.size() == ds.ports[p].hw_counters &&
                   d.ports[p].netdev.has_value() == ds.ports[p].netdev;
        for (std::size_t l = 0; same && l < ds.aer_sizes.size(); ++l)
            same = d.pcie[l].aer.size() == ds.aer_sizes[l];
    }
    if (!same) {
        r.rediscover = true;
        r.rediscover_reasons.push_back(
            "the snapshot polled is not the one this poller was built from");
    }
    return same;
}

void Plan::renormalize(const Snapshot& s, std::uint32_t dev, std::uint32_t port) {
    const Device& d = s.devices[dev];
    const DriverFamily rdma = detect_rdma_driver(files.sysfs, d.name);
    const Port& p = d.ports[port];
    normalizers[dev][port] = PortNormalizer(p, rdma, netdev_family_of(files.sysfs, p, rdma));
}

}  // namespace rh::poll
