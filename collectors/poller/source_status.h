// Per kernel source, how the last collection pass went: read or not, success, seconds spent. The
// agent exports it as rocehealth_collector_success{source} and
// rocehealth_collector_duration_seconds{source} (agent/daemon/metrics.h), as node_exporter does
// per collector (node_scrape_collector_success / _duration_seconds). A source with no data on
// this host (ENOENT, EOPNOTSUPP: a file or feature the driver does not have; a fixture without a
// recording) is not a failure, as node_exporter's ErrNoData.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rh {

/// The kernel sources a steady-state pass reads (collectors/poller/counter_poller.h).
enum class Source : std::uint8_t {
    rdma_sysfs,     ///< class/infiniband/<dev>/ports/<p>/{state,phys_state,counters/,hw_counters/}
    netdev_sysfs,   ///< class/net/<if>/{mtu,operstate,carrier_changes,statistics/}
    aer,            ///< PCIe AER counters of each link end
    ethtool_stats,  ///< ethtool -S (SIOCETHTOOL, or the fixture's recording)
    ethtool_pause,  ///< link pause statistics (ethtool netlink PAUSE_GET)
    dcb,            ///< DCB IEEE PFC (rtnetlink DCB_CMD_IEEE_GET)
    rdma_netlink,   ///< RDMA netlink hw counters (RDMA_NLDEV_CMD_STAT_GET)
};
inline constexpr std::size_t kSourceCount = 7;

/// The `source` label value: "rdma_sysfs", "ethtool_stats", ...
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

}  // namespace rh
