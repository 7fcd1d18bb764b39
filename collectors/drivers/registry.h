// The one list of drivers (as rdma-core's libibverbs/all_providers.c) and the look-ups every
// user of a driver goes through: live detection (collectors/normalize.cpp), captures
// (collectors/bundle/bundle_merge.cpp) and the store's label names (store/series_names.cpp via
// the series catalog). A driver is null when unknown: it then gets no normalized counters.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "collectors/drivers/driver.h"

namespace rh {

/// Every driver, in the order the look-ups below try them (first match wins).
std::span<const Driver* const> all_drivers();

/// "unknown" for null.
std::string_view to_string(const Driver* d);

/// The driver called `name` ("mlx5"); null when none is.
const Driver* driver_named(std::string_view name);
/// By kernel RDMA device name prefix (mlx5_0 -> mlx5); null for renamed devices.
const Driver* driver_of_rdma_name(std::string_view dev);
/// By the PCI driver behind an RDMA device (mlx5_core, bnxt_en, ice, i40e); null when none.
const Driver* driver_of_pci_driver(std::string_view driver);
/// By netdev driver (mlx5_core, bnxt_en, ice); null when none.
const Driver* driver_of_netdev_driver(std::string_view driver);
/// Whether hw_counters name `raw` is a counter below 64 bits that wraps (32-bit mlx5 Q
/// counters), for `driver` or, when null, for any driver: a table entry of the hw_counters
/// list with width < 64 that does not saturate, or Driver::wrapping_32bit_hw_counters.
bool wrapping_hw_counter(const Driver* driver, std::string_view raw);

/// Captures: the netdev driver name (Driver::netdev_drivers[0]) whose ethtool -S names `stat`
/// carries; empty when no driver claims it.
std::string_view netdev_driver_of_ethtool_name(std::string_view stat);

/// Captures: whether some driver's netdev statistics alone use the name `stat`
/// (Driver::netdev_only_stat), so that a headerless paste carrying it is `ethtool -S` output.
bool netdev_only_stat(std::string_view stat);

}  // namespace rh
