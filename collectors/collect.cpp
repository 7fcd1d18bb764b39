#include "collectors/collect.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "collectors/normalize.h"
#include "collectors/sources/counter_sources.h"
#include "collectors/sources/netdev.h"
#include "collectors/sources/pcie.h"
#include "collectors/sources/rdma_sysfs.h"
#include "collectors/sources/verbs_port.h"
#include "core/hostname.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

void add_netdevs(Device& d, const NetdevSource& source, Source kind, SourceClock& clock) {
    for (auto& port : d.ports) {
        const std::string subject = d.name + " port " + std::to_string(port.number);
        if (port.netdev_name.empty()) {
            d.problems.push_back(Note{subject, "no netdev found (GID ndevs, device/net, parent)"});
            continue;
        }
        if (auto n = clock.timed(kind, [&] { return source.read(port.netdev_name); })) {
            // Values the source could not read or make sense of are device problems, so a
            // rule sees "could not evaluate" rather than a silently absent value.
            if (!n->unavailable.empty()) clock.failed(kind);
            for (auto& note : n->unavailable) d.problems.push_back(Note{subject, note.text});
            n->unavailable.clear();
            port.netdev = std::move(*n);
        } else {
            clock.failed(kind, n.error().err_no);
            d.problems.push_back(Note{subject, n.error().message()});
        }
    }
}

void add_verbs(Device& d, const CollectOptions& opts, SourceClock& clock) {
    if (!opts.live_sources()) {
        for (auto& port : d.ports)
            port.verbs.unavailable =
                "no verbs device: sysfs root is a fixture (" + opts.sysfs.root().string() + ")";
        return;
    }
    std::vector<unsigned> numbers;
    for (const auto& port : d.ports) numbers.push_back(port.number);
    auto verbs = clock.timed(Source::verbs, [&] { return query_verbs_ports(d.name, numbers); });
    for (std::size_t i = 0; i < d.ports.size() && i < verbs.size(); ++i) {
        if (!verbs[i].unavailable.empty()) clock.failed(Source::verbs);
        d.ports[i].verbs = std::move(verbs[i]);
    }
}

/// Runs `read` as source `s`; the source fails when it added a note to `problems`.
template <class F>
void timed_reader(SourceClock& clock, Source s, const std::vector<Note>& problems, F&& read) {
    const std::size_t before = problems.size();
    clock.timed(s, [&] {
        read();
        return 0;
    });
    if (problems.size() != before) clock.failed(s);
}

/// What one device's sysfs, PCIe, AER, netdev and verbs sources say (the counter sources and
/// normalization follow once every device is read: finish_device).
Device read_device(const CollectOptions& opts, const std::string& name, const NetdevSource& netdevs,
                   CounterCollector& counters, SourceClock& clock) {
    Device d;
    timed_reader(clock, Source::rdma_sysfs, d.problems,
                 [&] { d = read_rdma_device(opts.sysfs, name); });
    timed_reader(clock, Source::pcie_sysfs, d.problems,
                 [&] { d.pcie = read_pcie_chain(opts.sysfs, name, d.problems); });
    counters.add_aer(d.pcie);
    add_netdevs(d, netdevs, opts.live_sources() ? Source::netdev_rtnl : Source::netdev_sysfs,
                clock);
    add_verbs(d, opts, clock);
    return d;
}

void finish_device(const CollectOptions& opts, Device& d, CounterCollector& counters) {
    counters.add_device(d);           // ethtool -S, link pause, DCB, QoS/ECN, RDMA netlink counters
    normalize_device(d, opts.sysfs);  // last: reads every raw counter the sources above filled
}

/// A device whose collection threw: kept, with a note saying so.
Device failed_device(const std::string& name, const std::exception& e) {
    Device d;
    d.name = name;
    d.problems.push_back(Note{name, std::string("collection failed: ") + e.what()});
    return d;
}

}  // namespace

Snapshot collect_snapshot(const CollectOptions& opts, SourcePasses* sources) {
    if (sources) *sources = SourcePasses{};
    SourceClock clock(sources);
    Snapshot s;
    s.host = host_name();
    s.sysfs_root = opts.sysfs.root().string();
    s.collected_at = utc_iso8601(std::chrono::system_clock::now());

    const std::string class_dir = opts.sysfs.path("class/infiniband").string();
    auto names = clock.timed(Source::rdma_sysfs, [&] { return list_rdma_devices(opts.sysfs); });
    if (!names) {
        clock.failed(Source::rdma_sysfs, names.error().err_no);
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
                              opts.sysfs, sources);
    if (!opts.live_sources())
        s.notes.push_back(Note{"host", "sysfs root " + s.sysfs_root +
                                           " is not this host's /sys: netdev facts come from " +
                                           opts.sysfs.path("class/net").string() +
                                           ", verbs facts are unavailable"});
    // One bad device never stops the others.
    std::vector<char> failed(names->size(), 0);
    for (std::size_t i = 0; i < names->size(); ++i) {
        try {
            s.devices.push_back(read_device(opts, (*names)[i], *netdevs, counters, clock));
        } catch (const std::exception& e) {
            s.devices.push_back(failed_device((*names)[i], e));
            failed[i] = 1;
        }
    }
    counters.expect_users(s.devices);  // the last port of a netdev takes its values, uncopied
    for (std::size_t i = 0; i < s.devices.size(); ++i) {
        if (failed[i]) continue;
        try {
            finish_device(opts, s.devices[i], counters);
        } catch (const std::exception& e) {
            s.devices[i] = failed_device((*names)[i], e);
        }
    }
    return s;
}

}  // namespace rh
