// Vendor-neutral counters: maps the raw counters of a port (hw_counters, PMA counters, ethtool -S,
// DCB ieee_pfc, link pause) to one name, unit and label set across drivers. The raw counters stay
// as they are; Port::normalized is an additional view (core/inventory/inventory.h
// NormalizedCounter).
//
// The mapping is data: one table per driver family (collectors/drivers/<family>.cpp, listed in
// collectors/drivers/registry.cpp), each entry commented with its kernel source.
// Entries reading RDMA lists (hw_counters, counters) apply by the RDMA driver; entries reading
// netdev lists (ethtool, DCB, link pause) apply by the netdev driver (rxe over an mlx5 netdev
// gets rxe RDMA names and mlx5e ethtool names). Several entries may give one (name, labels):
// the first one whose raw counter exists wins; `fallback` entries are tried after all others.
// A driver without an equivalent, or a raw counter that is missing, gives NO entry (never 0).
// An unknown driver gives no normalized counters at all.
//
// Normalized names, their units, labels and meaning: the series catalog (core/series_catalog.h,
// rendered in store/README.md "Series"); every table row's name, unit and labels are checked
// against it (tests/collectors/test_drivers.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/drivers/registry.h"
#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

/// A port's driver family: an entry of the driver registry (collectors/drivers/registry.h),
/// null when unknown (no normalized counters).
using DriverFamily = const Driver*;

/// RDMA driver family of `class/infiniband/<dev>`: by name prefix (Driver::rdma_name_prefixes),
/// else by the basename of `device/driver` (Driver::pci_drivers), else by
/// Driver::renamed_device, else unknown.
DriverFamily detect_rdma_driver(const SysfsRoot& sysfs, const std::string& dev);
/// Netdev driver family from the basename of `class/net/<if>/device/driver`
/// (Driver::netdev_drivers); unknown when absent.
DriverFamily detect_netdev_driver(const SysfsRoot& sysfs, const std::string& ifname);

/// Pure: the normalized counters of one port, RDMA-list entries from `rdma`'s table and
/// netdev-list entries from `netdev`'s table. Sorted by (name, labels).
std::vector<NormalizedCounter> normalize_port(const Port& port, DriverFamily rdma,
                                              DriverFamily netdev);

/// A port's normalization resolved once against the names in its raw lists: which raw entry (or
/// DCB / link-pause value) each (name, labels) may come from, in the order normalize_port tries
/// them. apply() then only reads values, so a poller re-normalizes a port without name lookups
/// and, once the output has its shape, without allocating. normalize_port is built on it.
/// Resolutions are kept process-wide (the last 64), keyed by both families and every raw name
/// in list order: a port whose lists hold the same names as one resolved before (the next
/// discovery, or another port of the same NIC model) copies that result instead of looking up
/// its names again; any other names are another key, so nothing is ever stale. Thread-safe.
class PortNormalizer {
  public:
    PortNormalizer(const Port& port, DriverFamily rdma, DriverFamily netdev);
    ~PortNormalizer();
    PortNormalizer(PortNormalizer&&) noexcept;
    PortNormalizer& operator=(PortNormalizer&&) noexcept;

    /// Sets `out` to exactly what normalize_port(port, rdma, netdev) gives, provided `port`'s
    /// raw lists hold the names and sources they held at construction (values, readability,
    /// DCB and link pause may change). Lists of another size are resolved again first. `out` is
    /// updated in place when it holds this normalizer's (or normalize_port's) previous result
    /// for the port: then only values, and the entries whose raw counter changed, are written.
    void apply(const Port& port, std::vector<NormalizedCounter>& out);

  private:
    struct Candidate;
    struct ListSizes {
        std::size_t hw = 0, nl_hw = 0, pma = 0, eth = 0;
        bool netdev = false;
        bool operator==(const ListSizes&) const = default;
    };
    static constexpr int kNever = -2;
    struct KeptCache;
    static ListSizes sizes_of(const Port& port);
    void resolve(const Port& port);
    // resolve()'s steps (normalize.cpp).
    static KeptCache& kept_cache();
    bool reuse_kept(const std::string& key);
    void keep(std::string key) const;
    void collect_candidates(const Port& port);
    void start_winners();
    // apply()'s steps.
    static bool raw_value(const Port& port, const Candidate& c, std::optional<std::uint64_t>& v);
    std::size_t choose_winners(const Port& port, bool& moved);
    void write_counter(const Port& port, const Candidate& c, bool changed,
                       NormalizedCounter& n) const;

    DriverFamily rdma_, netdev_;
    ListSizes sizes_;
    std::vector<Candidate> cands_;           ///< per (name, labels), in try order
    std::vector<std::size_t> group_begin_;   ///< group g = cands_[begin[g], begin[g+1])
    std::vector<int> winner_, last_winner_;  ///< chosen candidate per group, -1 = absent
};

/// The netdev family normalize_device uses for `port`: the driver of its netdev, else the one
/// that goes with the RDMA driver `rdma` (mlx5 -> mlx5e, ...; none when !Driver::own_netdev).
DriverFamily netdev_family_of(const SysfsRoot& sysfs, const Port& port, DriverFamily rdma);

/// Fills Port::normalized for every port of `d`. The netdev family falls back to the one that
/// goes with the RDMA driver (mlx5 -> mlx5e, bnxt_re -> bnxt_en, irdma -> ice) when the netdev
/// has no driver link. Call after every source has filled the device. Never throws.
void normalize_device(Device& d, const SysfsRoot& sysfs);

}  // namespace rh
