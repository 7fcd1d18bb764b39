// One host's collection passes as samples: the first pass discovers devices (collect_snapshot)
// and includes the inventory; later passes re-read the kept-open counter files
// (collectors/poller/counter_poller.h). A device or counter file that appears or disappears
// triggers a new discovery (and a new inventory sample); so does, when set, the inventory refresh
// interval: the inventory (PCIe link, port state, MTU, GIDs) is otherwise read once, so a
// long-running sampler would keep diagnosing the start-up state. Used by `record`, `diagnose
// --live` and the agent (which refreshes every `inventory_interval_s` of its config).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/collect.h"
#include "collectors/poller/counter_poller.h"
#include "core/sample.h"

namespace rh {

class HostSampler {
  public:
    /// Discovers at once. `host` overrides the host name (empty: the snapshot's).
    /// `inventory_refresh_s` > 0: a pass at least that long after the last discovery discovers
    /// again and carries a fresh inventory (0: only when devices or counter files change).
    HostSampler(CollectOptions opts, std::string host, double inventory_refresh_s = 0);

    /// Devices found by the last discovery (0: nothing to sample).
    std::size_t devices() const { return snap_.devices.size(); }
    const Snapshot& snapshot() const { return snap_; }

    /// One pass stamped with CLOCK_MONOTONIC seconds and UTC ms, valid until the next pass (the
    /// samples are rewritten in place each pass: a steady-state pass allocates none). A pass
    /// after a discovery starts with the inventory sample. Rediscovery reasons of this pass (one
    /// sentence each, naming the path) are appended to `rediscovered`.
    const std::vector<Sample>& pass(std::vector<std::string>& rediscovered);

    std::size_t rediscoveries() const { return rediscoveries_; }
    /// Discoveries so far (the first, rediscoveries and inventory refreshes): a change means
    /// snapshot() was read again whole.
    std::size_t discoveries() const { return discoveries_; }
    /// Per kernel source (collectors/sources/source_status.h), the last pass that read it: the
    /// steady-state poll for the sources it reads, the last discovery for the others
    /// (netdev_rtnl, pcie_sysfs, qos_sysfs, verbs, ...) and for all of them on a pass that
    /// discovered.
    const SourcePasses& sources() const { return sources_; }
    /// Changes the inventory refresh interval (a config reload); counted from the last discovery.
    void set_inventory_refresh_s(double s) { inventory_refresh_s_ = s; }
    /// Counter resets seen so far (Sample::segment of the last pass): a 64-bit counter that fell
    /// to half its last reading or less, as a driver reload or a counter clear leaves them.
    std::uint32_t segment() const { return segment_; }

  private:
    void discover();
    /// Compares this pass's counters with the last pass's (same layout only: a discovery may
    /// reorder them) and starts a new segment on a reset, so no rate, increase or flap is
    /// computed across a driver reload (the carrier count restarting is no link flap).
    void mark_segment();

    CollectOptions opts_;
    std::string host_;
    Snapshot snap_;
    std::unique_ptr<CounterPoller> poller_;
    bool fresh_ = true;  ///< the snapshot was just discovered: next pass carries the inventory
    double inventory_refresh_s_ = 0;
    double discovered_s_ = 0;  ///< CLOCK_MONOTONIC seconds of the last discovery
    std::size_t rediscoveries_ = 0;
    std::size_t discoveries_ = 0;
    SourcePasses sources_{};
    SourcePasses discovered_sources_{};   ///< of the last discovery
    std::vector<Sample> samples_;         ///< the last pass's, rewritten by the next
    std::vector<Sample> with_inventory_;  ///< a pass after a discovery: inventory + samples_
    std::vector<std::optional<std::uint64_t>> last_counts_;  ///< samples_' counts, last pass
    std::uint32_t segment_ = 0;
};

}  // namespace rh
