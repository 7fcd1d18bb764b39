#include "collectors/poller/counter_sources.h"

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

CounterCollector::CounterCollector(CounterSources sources, const SysfsRoot& sysfs)
    : src_(std::move(sources)), sysfs_(sysfs) {}

const CounterCollector::NetdevExtras& CounterCollector::extras(const std::string& ifname) {
    if (auto it = cache_.find(ifname); it != cache_.end()) return it->second;
    NetdevExtras x;
    if (src_.ethtool) {
        if (auto st = src_.ethtool->read(ifname))
            x.ethtool_stats = std::move(*st);
        else
            x.unavailable.push_back(
                unavailable_note(Source::ethtool_stats, src_, ifname, st.error()));
    }
    if (src_.pause) {
        if (auto p = src_.pause->read(ifname))
            x.link_pause = std::move(*p);
        else
            x.unavailable.push_back(
                unavailable_note(Source::ethtool_pause, src_, ifname, p.error()));
    } else if (!src_.pause_missing.empty()) {
        x.unavailable.push_back(Note{ifname, src_.pause_missing});
    }
    if (src_.dcb) {
        if (auto d = read_dcb(*src_.dcb, ifname))
            x.dcb = std::move(*d);
        else
            x.unavailable.push_back(unavailable_note(Source::dcb, src_, ifname, d.error()));
    }
    read_qos(sysfs_, ifname, x.dcb, x.qos);
    return cache_.emplace(ifname, std::move(x)).first->second;
}

void CounterCollector::add_device(Device& d) {
    for (auto& port : d.ports) {
        if (port.netdev) {
            const auto& x = extras(port.netdev->name);
            Netdev& n = *port.netdev;
            n.ethtool_stats = x.ethtool_stats;
            n.link_pause = x.link_pause;
            n.dcb = x.dcb;
            n.qos = x.qos;
            n.unavailable.insert(n.unavailable.end(), x.unavailable.begin(), x.unavailable.end());
        }
        if (!src_.rdma) continue;
        auto cs = read_rdma_port_counters(*src_.rdma, d.name, port.number);
        if (cs) {
            port.nl_hw_counters = std::move(*cs);
        } else if (!missing_recording(src_, cs.error())) {
            d.problems.push_back(unavailable_note(Source::rdma_netlink, src_,
                                                  d.name + " port " + std::to_string(port.number),
                                                  cs.error()));
        }
    }
}

void CounterCollector::add_aer(std::vector<PcieLink>& chain) const {
    for (auto& link : chain) read_aer(sysfs_, link);
}

}  // namespace rh
