#include "collectors/collect.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "collectors/normalize.h"
#include "collectors/sources/counter_sources.h"
#include "collectors/sources/netdev.h"
#include "collectors/sources/rdma_sysfs.h"
#include "collectors/sources/table.h"
#include "core/hostname.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

/// What one device's sources say, by the rows of the source table in order (the counter
/// sources and normalization follow once every device is read: finish_device).
Device read_device(const std::string& name, DeviceReads& reads) {
    Device d;
    for (const SourceRow& row : source_table())
        if (row.discover) row.discover(reads, d, name);
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
    DeviceReads reads{opts.sysfs, opts.live_sources(), *netdevs, counters, clock};
    // One bad device never stops the others.
    std::vector<char> failed(names->size(), 0);
    for (std::size_t i = 0; i < names->size(); ++i) {
        try {
            s.devices.push_back(read_device((*names)[i], reads));
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
