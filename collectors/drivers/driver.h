// One RDMA driver as rocehealth knows it: its raw -> vendor-neutral counter table and the rules
// that recognise it, in one file per driver (collectors/drivers/<name>.cpp), as rdma-core's
// providers each declare their own match table. collectors/drivers/registry.cpp lists them all;
// normalize (live sysfs), the bundle merge (pasted captures) and the store's series names read
// that list and nothing else, so a driver is added in its own file and one line of the list.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/sysfs.h"

namespace rh {

/// Where a table entry's raw value is read from.
enum class RawList {
    hw_counters,      ///< Port::hw_counters, then Port::nl_hw_counters (netlink adds optional ones)
    counters,         ///< Port::counters (IB PMA)
    ethtool,          ///< Netdev::ethtool_stats
    dcb_requests,     ///< DcbConfig::pfc_requests[p] (PFC frames sent)
    dcb_indications,  ///< DcbConfig::pfc_indications[p] (PFC frames received)
    link_pause_tx,    ///< LinkPauseStats::tx_frames
    link_pause_rx,    ///< LinkPauseStats::rx_frames
};

/// True for lists read from the netdev (ethtool, DCB, link pause): applied by netdev driver.
bool is_netdev_list(RawList l);

/// One mapping: normalized name + labels <- raw name in a raw list. `name` must be a counter of
/// the series catalog (core/series_catalog.h; tests/collectors/test_drivers.cpp checks it, and
/// that `unit` and the label names are the catalog's). `labels` is "key=value,key=value"; `{p}`
/// in `labels` and `raw` stands for priority 0..7 (the entry then expands to 8). Value = raw *
/// scale, in `unit`.
struct MapEntry {
    std::string_view name;
    std::string_view labels;
    std::string_view raw;
    RawList from;
    std::string_view unit;
    std::uint64_t scale = 1;
    unsigned width_bits = 64;
    bool saturates = false;
    bool fallback = false;  ///< tried only after every non-fallback entry of both tables
};

/// A driver family: an RDMA driver and the netdev driver(s) it comes with (mlx5_ib + mlx5e).
/// Every list is matched exactly, except the prefixes.
struct Driver {
    std::string_view name;  ///< "mlx5", "bnxt", "irdma_ice", "rxe" (to_string, test contexts)
    /// The entries, RDMA-list ones applied by the RDMA driver, netdev-list ones by the netdev
    /// driver (collectors/normalize.h).
    std::span<const MapEntry> table{};
    /// Kernel RDMA device names (`class/infiniband/<dev>`): "mlx5_" matches mlx5_0.
    std::span<const std::string_view> rdma_name_prefixes{};
    /// Driver of the PCI function behind a renamed RDMA device (udev "rocep59s0f0"):
    /// basename of `class/infiniband/<dev>/device/driver`, or `ethtool -i` in a capture.
    std::span<const std::string_view> pci_drivers{};
    /// Netdev drivers whose ethtool -S names the table's ethtool entries use
    /// (`class/net/<if>/device/driver`, `ethtool -i`). The first is the one a capture names
    /// when it is told by the statistics' names alone.
    std::span<const std::string_view> netdev_drivers{};
    /// False when the driver binds to any netdev (rxe): a netdev of unknown driver then gets
    /// no netdev table, instead of this one.
    bool own_netdev = true;
    /// A renamed device without a PCI driver is this one (rxe: has `parent` and rxe-only
    /// counter names); `dir` is `class/infiniband/<dev>`. Null: never.
    bool (*renamed_device)(const SysfsRoot& sysfs, const std::string& dir) = nullptr;
    /// Captures: an ethtool -S statistic name only this netdev driver gives (the capture has
    /// no `ethtool -i`). Null: never.
    bool (*ethtool_name_is_ours)(std::string_view stat) = nullptr;
    /// Captures: a statistic name only this driver's netdev statistics use, never a sysfs
    /// counter (mlx5 "_phy", bnxt ring "[0]: ..."): a headerless paste with one is `ethtool -S`
    /// output (collectors/bundle/parse_ethtool_s.cpp). Null: none.
    bool (*netdev_only_stat)(std::string_view stat) = nullptr;
    /// Captures: the lspci description names this driver's vendor (name or -nn id).
    bool (*pci_vendor)(std::string_view lspci_description) = nullptr;
    /// Captures: the lspci description is an RDMA-capable NIC physical function of this
    /// driver (models; the class and "Virtual Function" are checked by the caller).
    bool (*rdma_nic)(std::string_view lspci_description) = nullptr;
    /// hw_counters names (raw) read as 32-bit values that wrap at 2^32, besides the table's
    /// entries of width 32 (mlx5 Q counters the table does not normalize: rx_write_requests).
    std::span<const std::string_view> wrapping_32bit_hw_counters{};
};

}  // namespace rh
