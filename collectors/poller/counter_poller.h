// Steady-state counter polling: after one full collect_snapshot (discovery), a CounterPoller keeps
// the cumulative counter files of that Snapshot open and each poll() re-reads them in place
// (pread at offset 0 into a stack buffer), then re-normalizes, through precomputed
// PortNormalizers, the ports whose raw values changed. A pass opens no file and, in steady state,
// allocates nothing for sysfs values. Cost: bench/README.md.
//
// Files kept open (O_RDONLY|O_CLOEXEC|O_NOATIME where allowed), per port of the discovered
// Snapshot:
//   class/infiniband/<dev>/ports/<p>/{state,phys_state}   -> Port::state*, phys_state* (flaps)
//   class/infiniband/<dev>/ports/<p>/counters/<each>      -> Port::counters
//   class/infiniband/<dev>/ports/<p>/hw_counters/<each>   -> Port::hw_counters
//   class/net/<if>/<each of netdev_files()>               -> Netdev fields (its sysfs dir
//     (collectors/sources/netdev.h)                          becomes Netdev::source)
//   <pci function or bridge>/aer_dev_{correctable,nonfatal,fatal}, aer_rootport_total_err_*
//                                                         -> PcieLink::aer (those discovered)
// Once per pass: ethtool -S (SIOCETHTOOL), link pause (ethtool netlink) and DCB (rtnetlink) per
// netdev, RDMA netlink hw counters per port, over one socket per kind kept for the poller's life
// (collectors/sources/counter_sources.h). Every file and request goes through discovery's own
// read or parse function: port_state_files()/port_counter_dirs() with store_port_state and
// store_counter_text (collectors/sources/rdma_sysfs.h), netdev_files() with store_netdev_file,
// next_aer_line, read_netdev_sources and read_port_nl_counters. On a fixture root the same sources
// replay the tree's recordings (ethtool/<if>.txt, dcb/, rdma_netlink/), read again every pass, so a
// test that grows a recording sees the counters grow as on a live host.
//
// The directories of those files are watched (DirWatch): a removed directory makes its files'
// values absent (with an error) and a counter directory that gains a file makes poll() ask for
// rediscovery, on every pass until the poller is rebuilt. A replaced or removed file is read by
// path again. On the live sysfs a removed device answers ENODEV to the reads instead.
//
// Not refreshed: GIDs, rate, link_layer, PCIe link speed/width, verbs MTUs, QoS/ECN state, and
// devices or counter files that appeared after discovery (run collect_snapshot for those).
//
// Inside: poll_plan.h (what the poller reads, fixed at construction), poll_files.h (the kept files
// and their directories' watches), poll_pass.h (one pass: it alone holds the Snapshot polled).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "collectors/sources/counter_sources.h"
#include "collectors/sources/source_status.h"
#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

/// What one poll() pass did.
struct PollResult {
    /// The snapshot no longer describes the host: a device answers ENODEV (removed, e.g.
    /// `rdma link delete`), a counter/port/netdev directory was removed, a counter directory
    /// gained files, or the Snapshot passed is not the one the poller was built from. Values
    /// that could not be read are absent (nullopt + error), never 0; run collect_snapshot again.
    bool rediscover = false;
    std::vector<std::string> rediscover_reasons;  ///< one sentence each, naming the path
    std::size_t files_read = 0;                   ///< sysfs files read (pread) this pass
    std::size_t files_failed = 0;  ///< of them (or of the kept files) unreadable this pass
    /// Per kernel source (collectors/sources/source_status.h): read this pass, success, and the
    /// wall time its reads took. A sysfs file discovery found that cannot be read now is a failure
    /// of its source; an ethtool, DCB or netlink request answered ENOENT/EOPNOTSUPP/ENODATA (or a
    /// fixture without the recording) is "no data", not a failure. A pass refused for its
    /// Snapshot's shape reads nothing.
    SourcePasses sources{};
};

/// How a poller notices that the directories of its files changed (files created, removed or
/// replaced; a directory removed or renamed).
enum class DirWatch {
    /// One inotify instance watching every directory: a pass reads its queue (one read()
    /// when nothing changed). Directories it cannot watch get the fstat checks.
    inotify,
    /// fstat of every directory on each pass (st_nlink 0 = removed; st_mtim changed, or less
    /// than two seconds old, = look at its entries again).
    fstat,
};

class CounterPoller {
  public:
    /// Opens the files of `discovered` (as collect_snapshot returned it for `sysfs`). Per pass it
    /// reads the live sources (ethtool, netlink) on the live /sys, their recordings on a fixture
    /// root (make_fixture_counter_sources). Never
    /// throws for sysfs content: a file that cannot be opened is retried by every poll() and
    /// reported there. Keeps at most (RLIMIT_NOFILE soft limit - 256) descriptors; files beyond
    /// that are opened and closed on each pass.
    CounterPoller(const SysfsRoot& sysfs, const Snapshot& discovered,
                  DirWatch watch = DirWatch::inotify);
    /// Same, with the per-pass sources given (tests replay recordings through this); they are
    /// read on every pass whatever the root.
    CounterPoller(const SysfsRoot& sysfs, const Snapshot& discovered, CounterSources per_pass,
                  DirWatch watch = DirWatch::inotify);
    ~CounterPoller();
    CounterPoller(const CounterPoller&) = delete;
    CounterPoller& operator=(const CounterPoller&) = delete;

    /// Re-reads every kept file into `snap` (the Snapshot given at construction, or a copy of
    /// it), sets Snapshot::collected_at, and re-normalizes the ports whose raw values changed
    /// (every port on the first pass; the others keep Port::normalized). Notes of this pass
    /// (unreadable files, unavailable sources) replace those of the previous pass: they follow
    /// the notes discovery left in Device::problems / Netdev::unavailable, which stay. Never
    /// throws for sysfs content.
    PollResult poll(Snapshot& snap);

    /// Descriptors kept open between passes: files, and directories checked by fstat (the
    /// inotify descriptor is not counted).
    std::size_t files_open() const;
    /// Files read per pass (kept open or not).
    std::size_t files_per_pass() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rh
