#include "collectors/collect.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "collectors/normalize.h"
#include "collectors/poller/counter_sources.h"
#include "collectors/rdma_sysfs.h"
#include "collectors/sources/netdev.h"
#include "collectors/sources/pcie.h"
#include "collectors/sources/verbs_port.h"
#include "core/hostname.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

void add_netdevs(Device& d, const NetdevSource& source) {
    for (auto& port : d.ports) {
        const std::string subject = d.name + " port " + std::to_string(port.number);
        if (port.netdev_name.empty()) {
            d.problems.push_back(Note{subject, "no netdev found (GID ndevs, device/net, parent)"});
            continue;
        }
        if (auto n = source.read(port.netdev_name)) {
            // Values the source could not read or make sense of are device problems, so a
            // rule sees "could not evaluate" rather than a silently absent value.
            for (auto& note : n->unavailable) d.problems.push_back(Note{subject, note.text});
            n->unavailable.clear();
            port.netdev = std::move(*n);
        } else
            d.problems.push_back(Note{subject, n.error().message()});
    }
}

void add_verbs(Device& d, const CollectOptions& opts) {
    if (!opts.live_sources()) {
        for (auto& port : d.ports)
            port.verbs.unavailable =
                "no verbs device: sysfs root is a fixture (" + opts.sysfs.root().string() + ")";
        return;
    }
    std::vector<unsigned> numbers;
    for (const auto& port : d.ports) numbers.push_back(port.number);
    auto verbs = query_verbs_ports(d.name, numbers);
    for (std::size_t i = 0; i < d.ports.size() && i < verbs.size(); ++i)
        d.ports[i].verbs = std::move(verbs[i]);
}

Device collect_device(const CollectOptions& opts, const std::string& name,
                      const NetdevSource& netdevs, CounterCollector& counters) {
    Device d = read_rdma_device(opts.sysfs, name);
    d.pcie = read_pcie_chain(opts.sysfs, name, d.problems);
    counters.add_aer(d.pcie);
    add_netdevs(d, netdevs);
    add_verbs(d, opts);
    counters.add_device(d);           // ethtool -S, link pause, DCB, QoS/ECN, RDMA netlink counters
    normalize_device(d, opts.sysfs);  // last: reads every raw counter the sources above filled
    return d;
}

}  // namespace

Snapshot collect_snapshot(const CollectOptions& opts) {
    Snapshot s;
    s.host = host_name();
    s.sysfs_root = opts.sysfs.root().string();
    s.collected_at = utc_iso8601(std::chrono::system_clock::now());

    const std::string class_dir = opts.sysfs.path("class/infiniband").string();
    auto names = list_rdma_devices(opts.sysfs);
    if (!names) {
        s.notes.push_back(Note{
            "host", "no RDMA devices under " + class_dir + " (" + names.error().message() + ")"});
        return s;
    }
    if (!opts.only_device.empty()) {
        auto keep = std::find(names->begin(), names->end(), opts.only_device);
        std::vector<std::string> only;
        if (keep != names->end()) only.push_back(*keep);
        *names = std::move(only);
    }
    if (names->empty()) {
        s.notes.push_back(
            Note{"host", opts.only_device.empty()
                             ? "no RDMA devices under " + class_dir
                             : "no RDMA device named " + opts.only_device + " under " + class_dir});
        return s;
    }

    const auto netdevs =
        opts.live_sources() ? make_rtnl_netdev_source() : make_sysfs_netdev_source(opts.sysfs);
    // One pass, one socket per source kind, shared by every device and port.
    CounterCollector counters(opts.live_sources() ? make_live_counter_sources()
                                                  : make_fixture_counter_sources(opts.sysfs.root()),
                              opts.sysfs);
    if (!opts.live_sources())
        s.notes.push_back(Note{"host", "sysfs root " + s.sysfs_root +
                                           " is not this host's /sys: netdev facts come from " +
                                           opts.sysfs.path("class/net").string() +
                                           ", verbs facts are unavailable"});
    for (const auto& name : *names) {
        // One bad device never stops the others.
        try {
            s.devices.push_back(collect_device(opts, name, *netdevs, counters));
        } catch (const std::exception& e) {
            Device d;
            d.name = name;
            d.problems.push_back(Note{name, std::string("collection failed: ") + e.what()});
            s.devices.push_back(std::move(d));
        }
    }
    return s;
}

}  // namespace rh
