// Per kernel source, how the last collection pass went: read or not, success, seconds spent. Both
// the discovery pass (collect_snapshot, collectors/collect.h) and the steady-state pass
// (collectors/poller/counter_poller.h) fill it, through the same read functions. The agent exports
// it as rocehealth_collector_success{source} and rocehealth_collector_duration_seconds{source}
// (agent/daemon/metrics.h), as node_exporter does per collector (node_scrape_collector_success /
// _duration_seconds). A source with no data on this host (ENOENT, EOPNOTSUPP: a file or feature the
// driver does not have; a fixture without a recording) is not a failure, as node_exporter's
// ErrNoData.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rh {

/// The kernel sources a collection pass reads. The first seven are read by both passes; the
/// others by discovery only.
enum class Source : std::uint8_t {
    rdma_sysfs,     ///< class/infiniband/<dev>/: node and port attributes, GIDs, counters/,
                    ///< hw_counters/ (the poller: port state and counter files)
    netdev_sysfs,   ///< class/net/<if>/ files of netdev_files() (collectors/sources/netdev.h)
    aer,            ///< PCIe AER counters of each link end
    ethtool_stats,  ///< ethtool -S (SIOCETHTOOL, or the fixture's recording)
    ethtool_pause,  ///< link pause statistics (ethtool netlink PAUSE_GET)
    dcb,            ///< DCB IEEE PFC (rtnetlink DCB_CMD_IEEE_GET)
    rdma_netlink,   ///< RDMA netlink hw counters (RDMA_NLDEV_CMD_STAT_GET)
    netdev_rtnl,    ///< discovery on a live host: netdev state and statistics (RTM_GETLINK)
    pcie_sysfs,     ///< discovery: the PCIe link chain (link speed/width, numa_node)
    qos_sysfs,      ///< discovery: class/net/<if>/{qos/trust,ecn/} (MLNX_OFED kernels)
    verbs,          ///< discovery on a live host: ibv_query_port (active/max MTU)
};
inline constexpr std::size_t kSourceCount = 11;

/// The `source` label value: "rdma_sysfs", "ethtool_stats", ... (its row in
/// collectors/sources/table.cpp).
std::string_view to_string(Source s);

/// One source in one pass.
struct SourcePass {
    bool read = false;        ///< the pass had something to read from it
    bool success = true;      ///< every read answered, or said "no data here"
    double duration_s = 0.0;  ///< wall time of its reads this pass (CLOCK_MONOTONIC)
};
using SourcePasses = std::array<SourcePass, kSourceCount>;

/// An errno that means "this host has no such data" (ENOENT, ENOTSUP/EOPNOTSUPP, ENODATA),
/// not a failed read.
bool is_no_data(int err_no);

/// Where a pass accounts its reads, per source; a null `passes` accounts nothing (a caller
/// that does not export the figures).
class SourceClock {
  public:
    explicit SourceClock(SourcePasses* passes) : passes_(passes) {}

    /// Runs `read()` as reads of source `s`: marks it read and adds its wall time
    /// (CLOCK_MONOTONIC). Returns what `read` returns.
    template <class F>
    auto timed(Source s, F&& read) {
        if (!passes_) return read();
        const double t0 = now_s();
        auto r = read();
        SourcePass& p = (*passes_)[static_cast<std::size_t>(s)];
        p.read = true;
        p.duration_s += now_s() - t0;
        return r;
    }
    /// A failed read of source `s` with `err_no`: a failure unless it says "no data here".
    void failed(Source s, int err_no) {
        if (passes_ && !is_no_data(err_no)) (*passes_)[static_cast<std::size_t>(s)].success = false;
    }
    /// A failed read whatever its errno (a file discovery found, read again).
    void failed(Source s) {
        if (passes_) (*passes_)[static_cast<std::size_t>(s)].success = false;
    }

  private:
    static double now_s();
    SourcePasses* passes_;
};

}  // namespace rh
