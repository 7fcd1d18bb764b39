// The counter sources beyond sysfs, wired for one collection pass: ethtool -S (SIOCETHTOOL),
// link pause (ethtool netlink), DCB (rtnetlink), RDMA netlink STAT_GET, plus the sysfs-only
// QoS/ECN and AER readers. Live sources open one socket per kind on first use and reuse it for
// the whole pass; fixture roots use recordings beside the tree (`<tree>/ethtool/<if>.txt`,
// `<tree>/dcb/<if>.hex`, `<tree>/rdma_netlink/<dev>_<port>.hex`) when they exist.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectors/sources/dcb_netlink.h"
#include "collectors/sources/ethtool_pause.h"
#include "collectors/sources/ethtool_stats.h"
#include "collectors/sources/rdma_netlink.h"
#include "collectors/sources/source_status.h"
#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

/// Any source may be null: then `*_missing` says why, as a Netdev::unavailable note.
struct CounterSources {
    std::unique_ptr<EthtoolStatsSource> ethtool;
    std::unique_ptr<LinkPauseSource> pause;
    std::unique_ptr<DcbSource> dcb;
    std::unique_ptr<RdmaStatSource> rdma;
    std::string pause_missing;
    /// Replay sources: a missing recording (ENOENT) is "fixture without recording", not a fault.
    bool replay = false;
};

/// A replay source's missing recording (ENOENT on a fixture root): no data, not a fault.
bool missing_recording(const CounterSources& src, const Error& e);

/// Why a request of `src` failed, as values and notes say it: the error, or "sysfs root is a
/// fixture and has no recording (<file>)" for a missing recording.
std::string source_error_text(const CounterSources& src, const Error& e);

/// The note a failed request of source `s` leaves, one text for discovery (CounterCollector)
/// and the steady-state poller: for the netdev sources (ethtool_stats, ethtool_pause, dcb)
/// `subject` is the netdev and the note goes to Netdev::unavailable; for rdma_netlink it is
/// "<dev> port <p>" and the note goes to Device::problems.
Note unavailable_note(Source s, const CounterSources& src, const std::string& subject,
                      const Error& e);

/// What the netdev-level sources answered for one netdev in one pass: one request to each
/// source `src` has (nullopt: no such source).
struct NetdevReadings {
    std::optional<Result<std::vector<Counter>>> ethtool_stats;
    std::optional<Result<LinkPauseStats>> link_pause;
    std::optional<Result<DcbConfig>> dcb;
    /// A note per source that failed or is missing (CounterSources::pause_missing), in the order
    /// ethtool -S, link pause, DCB: for Netdev::unavailable of every port using the netdev.
    std::vector<Note> unavailable;
};

/// ethtool -S, link pause and DCB of `ifname`: the one reader of these sources, for discovery
/// (CounterCollector) and the steady-state poller. Each request is timed on `clock` as its
/// Source; a failure other than "no data" fails it. Never throws for what a source answers.
NetdevReadings read_netdev_sources(CounterSources& src, const std::string& ifname,
                                   SourceClock& clock);

/// RDMA netlink hw counters of `dev` port `port` (`src.rdma` must be set), timed on `clock` as
/// Source::rdma_netlink: the one reader for discovery and the poller. On error the caller notes
/// unavailable_note(Source::rdma_netlink, ...) unless missing_recording().
Result<std::vector<Counter>> read_port_nl_counters(CounterSources& src, const std::string& dev,
                                                   unsigned port, SourceClock& clock);

CounterSources make_live_counter_sources();
/// `sysfs_root` is `<tree>/sys`; recordings are looked up under `<tree>/`.
CounterSources make_fixture_counter_sources(const std::filesystem::path& sysfs_root);

class CounterCollector {
  public:
    /// `passes`: where each source's reads are accounted (null: nowhere).
    CounterCollector(CounterSources sources, const SysfsRoot& sysfs,
                     SourcePasses* passes = nullptr);

    /// The ports (of `devices`) that add_device will be given, by netdev: the last port of a
    /// netdev takes its values instead of a copy. Optional (without it every port gets a copy).
    void expect_users(const std::vector<Device>& devices);
    /// Netdev-level sources for every port's netdev, and RDMA netlink counters per port.
    /// Each netdev is queried once per pass (ports sharing it get the same answer and notes);
    /// RDMA netlink failures become device problems.
    void add_device(Device& d);
    /// AER counters of each link end.
    void add_aer(std::vector<PcieLink>& chain);

  private:
    struct NetdevExtras {
        std::vector<Counter> ethtool_stats;
        LinkPauseStats link_pause;
        std::optional<DcbConfig> dcb;
        QosConfig qos;
        std::vector<Note> unavailable;
    };
    NetdevExtras& extras(const std::string& ifname);

    CounterSources src_;
    const SysfsRoot& sysfs_;
    SourceClock clock_;
    std::map<std::string, NetdevExtras> cache_;
    std::map<std::string, std::size_t> users_;  ///< ports still to be given each netdev
};

}  // namespace rh
