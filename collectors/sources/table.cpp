#include "collectors/sources/table.h"

#include <array>
#include <vector>

#include "collectors/sources/pcie.h"
#include "collectors/sources/rdma_sysfs.h"
#include "collectors/sources/verbs_port.h"

namespace rh {

namespace {

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

void discover_rdma(DeviceReads& r, Device& d, const std::string& name) {
    timed_reader(r.clock, Source::rdma_sysfs, d.problems,
                 [&] { d = read_rdma_device(r.sysfs, name); });
}

void discover_pcie(DeviceReads& r, Device& d, const std::string& name) {
    timed_reader(r.clock, Source::pcie_sysfs, d.problems,
                 [&] { d.pcie = read_pcie_chain(r.sysfs, name, d.problems); });
}

void discover_aer(DeviceReads& r, Device& d, const std::string&) {
    r.counters.add_aer(d.pcie);
}

void discover_netdevs(DeviceReads& r, Device& d, const std::string&) {
    const Source kind = r.live ? Source::netdev_rtnl : Source::netdev_sysfs;
    for (auto& port : d.ports) {
        const std::string subject = d.name + " port " + std::to_string(port.number);
        if (port.netdev_name.empty()) {
            d.problems.push_back(Note{subject, "no netdev found (GID ndevs, device/net, parent)"});
            continue;
        }
        if (auto n = r.clock.timed(kind, [&] { return r.netdevs.read(port.netdev_name); })) {
            // Values the source could not read or make sense of are device problems, so a
            // rule sees "could not evaluate" rather than a silently absent value.
            if (!n->unavailable.empty()) r.clock.failed(kind);
            for (auto& note : n->unavailable) d.problems.push_back(Note{subject, note.text});
            n->unavailable.clear();
            port.netdev = std::move(*n);
        } else {
            r.clock.failed(kind, n.error().err_no);
            d.problems.push_back(Note{subject, n.error().message()});
        }
    }
}

void discover_verbs(DeviceReads& r, Device& d, const std::string&) {
    if (!r.live) {
        for (auto& port : d.ports)
            port.verbs.unavailable =
                "no verbs device: sysfs root is a fixture (" + r.sysfs.root().string() + ")";
        return;
    }
    std::vector<unsigned> numbers;
    for (const auto& port : d.ports) numbers.push_back(port.number);
    auto verbs = r.clock.timed(Source::verbs, [&] { return query_verbs_ports(d.name, numbers); });
    for (std::size_t i = 0; i < d.ports.size() && i < verbs.size(); ++i) {
        if (!verbs[i].unavailable.empty()) r.clock.failed(Source::verbs);
        d.ports[i].verbs = std::move(verbs[i]);
    }
}

constexpr std::array<SourceRow, kSourceCount> kSources = {{
    {Source::rdma_sysfs, "rdma_sysfs", true, discover_rdma},
    {Source::pcie_sysfs, "pcie_sysfs", false, discover_pcie},
    {Source::aer, "aer", true, discover_aer},
    {Source::netdev_sysfs, "netdev_sysfs", true, discover_netdevs},
    {Source::verbs, "verbs", false, discover_verbs},
    {Source::netdev_rtnl, "netdev_rtnl", false, nullptr},
    {Source::ethtool_stats, "ethtool_stats", true, nullptr},
    {Source::ethtool_pause, "ethtool_pause", true, nullptr},
    {Source::dcb, "dcb", true, nullptr},
    {Source::qos_sysfs, "qos_sysfs", false, nullptr},
    {Source::rdma_netlink, "rdma_netlink", true, nullptr},
}};

}  // namespace

std::span<const SourceRow> source_table() {
    return kSources;
}

std::string_view to_string(Source s) {
    for (const SourceRow& row : kSources)
        if (row.id == s) return row.name;
    return "unknown";
}

}  // namespace rh
