#include "collectors/sources/counter_sources.h"

#include "collectors/sources/aer.h"
#include "collectors/sources/qos_sysfs.h"

namespace rh {

namespace {

constexpr const char* kNoRecording = "sysfs root is a fixture and has no recording";

std::filesystem::path tree_of(const std::filesystem::path& sysfs_root) {
    auto p = sysfs_root.lexically_normal();
    if (p.filename().empty()) p = p.parent_path();  // "tree/sys/"
    return p.parent_path();
}

}  // namespace

bool missing_recording(const CounterSources& src, const Error& e) {
    return src.replay && e.err_no == ENOENT;
}

std::string source_error_text(const CounterSources& src, const Error& e) {
    if (!missing_recording(src, e)) return e.message();
    std::string s = kNoRecording;
    s.append(" (").append(e.subject).append(")");
    return s;
}

Note unavailable_note(Source s, const CounterSources& src, const std::string& subject,
                      const Error& e) {
    switch (s) {
        case Source::ethtool_stats:
            return {subject, "ethtool statistics unavailable: " + source_error_text(src, e)};
        case Source::ethtool_pause:
            return {subject,
                    "link pause statistics unavailable on " + subject + ": " + e.message()};
        case Source::dcb:
            return {subject, "PFC configuration unavailable on " + subject + ": " +
                                 source_error_text(src, e)};
        case Source::rdma_netlink:
            return {subject, "RDMA netlink counters unavailable: " + e.message()};
        default:
            return {subject, e.message()};
    }
}

CounterSources make_live_counter_sources() {
    CounterSources s;
    s.ethtool = make_ethtool_ioctl_source();
    s.pause = make_ethtool_pause_source();
    s.dcb = make_dcb_netlink_source();
    s.rdma = make_rdma_netlink_source();
    return s;
}

CounterSources make_fixture_counter_sources(const std::filesystem::path& sysfs_root) {
    const auto tree = tree_of(sysfs_root);
    CounterSources s;
    s.replay = true;
    s.ethtool = make_ethtool_replay_source(tree / "ethtool");
    s.dcb = make_dcb_replay_source(tree / "dcb");
    s.rdma = make_rdma_replay_source(tree / "rdma_netlink");
    s.pause_missing = "link pause statistics unavailable: sysfs root is a fixture";
    return s;
}

NetdevReadings read_netdev_sources(CounterSources& src, const std::string& ifname,
                                   SourceClock& clock) {
    NetdevReadings r;
    // One timed request of source `s` into `slot`; a failure leaves its note. A replayed source
    // without its recording has no data, as ENOENT says.
    auto request = [&](Source s, auto& slot, auto&& read) {
        slot.emplace(clock.timed(s, read));
        if (const auto& got = *slot; !got) {
            clock.failed(s, got.error().err_no);
            r.unavailable.push_back(unavailable_note(s, src, ifname, got.error()));
        }
    };
    if (src.ethtool)
        request(Source::ethtool_stats, r.ethtool_stats, [&] { return src.ethtool->read(ifname); });
    if (src.pause)
        request(Source::ethtool_pause, r.link_pause, [&] { return src.pause->read(ifname); });
    else if (!src.pause_missing.empty())
        r.unavailable.push_back(Note{ifname, src.pause_missing});
    if (src.dcb) request(Source::dcb, r.dcb, [&] { return read_dcb(*src.dcb, ifname); });
    return r;
}

Result<std::vector<Counter>> read_port_nl_counters(CounterSources& src, const std::string& dev,
                                                   unsigned port, SourceClock& clock) {
    auto cs = clock.timed(Source::rdma_netlink,
                          [&] { return read_rdma_port_counters(*src.rdma, dev, port); });
    if (!cs) clock.failed(Source::rdma_netlink, cs.error().err_no);
    return cs;
}

CounterCollector::CounterCollector(CounterSources sources, const SysfsRoot& sysfs,
                                   SourcePasses* passes)
    : src_(std::move(sources)), sysfs_(sysfs), clock_(passes) {}

CounterCollector::NetdevExtras& CounterCollector::extras(const std::string& ifname) {
    if (auto it = cache_.find(ifname); it != cache_.end()) return it->second;
    NetdevExtras x;
    NetdevReadings r = read_netdev_sources(src_, ifname, clock_);
    if (r.ethtool_stats && *r.ethtool_stats) x.ethtool_stats = std::move(**r.ethtool_stats);
    if (r.link_pause && *r.link_pause) x.link_pause = std::move(**r.link_pause);
    if (r.dcb && *r.dcb) x.dcb = std::move(**r.dcb);
    x.unavailable = std::move(r.unavailable);
    clock_.timed(Source::qos_sysfs, [&] {
        read_qos(sysfs_, ifname, x.dcb, x.qos);
        return 0;
    });
    return cache_.emplace(ifname, std::move(x)).first->second;
}

void CounterCollector::expect_users(const std::vector<Device>& devices) {
    for (const auto& d : devices)
        for (const auto& port : d.ports)
            if (port.netdev) ++users_[port.netdev->name];
}

void CounterCollector::add_device(Device& d) {
    for (auto& port : d.ports) {
        if (port.netdev) {
            auto& x = extras(port.netdev->name);
            Netdev& n = *port.netdev;
            n.unavailable.insert(n.unavailable.end(), x.unavailable.begin(), x.unavailable.end());
            if (auto users = users_.find(n.name); users != users_.end() && --users->second == 0) {
                n.ethtool_stats = std::move(x.ethtool_stats);  // the netdev's last port
                n.link_pause = std::move(x.link_pause);
                n.dcb = std::move(x.dcb);
                n.qos = std::move(x.qos);
                cache_.erase(n.name);  // an unexpected later user queries again
                users_.erase(users);
            } else {
                n.ethtool_stats = x.ethtool_stats;
                n.link_pause = x.link_pause;
                n.dcb = x.dcb;
                n.qos = x.qos;
            }
        }
        if (!src_.rdma) continue;
        auto cs = read_port_nl_counters(src_, d.name, port.number, clock_);
        if (cs) {
            port.nl_hw_counters = std::move(*cs);
        } else if (!missing_recording(src_, cs.error())) {
            d.problems.push_back(unavailable_note(Source::rdma_netlink, src_,
                                                  d.name + " port " + std::to_string(port.number),
                                                  cs.error()));
        }
    }
}

void CounterCollector::add_aer(std::vector<PcieLink>& chain) {
    clock_.timed(Source::aer, [&] {
        for (auto& link : chain) read_aer(sysfs_, link);
        return 0;
    });
}

}  // namespace rh
