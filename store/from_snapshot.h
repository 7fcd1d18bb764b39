// A collection pass (Snapshot) as samples: every normalized counter, the port/netdev facts the
// rules read as gauges, and optionally one inventory sample (the snapshot without counters,
// typed: inventory_static_facts) for the inventory checks. Series names, units and labels:
// store/README.md.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/inventory/inventory.h"
#include "core/sample.h"

namespace rh {

/// Samples of one pass, host = snap.host. A normalized counter whose raw value is missing
/// becomes a counter sample with value null and the reason, never 0.
std::vector<Sample> samples_from_snapshot(const Snapshot& snap, SampleTime when,
                                          bool with_inventory);

/// The same samples without the inventory, written over `out` (resized to them). The Samples
/// already in `out` are reused with their strings' and label maps' storage: a periodic sampler
/// that passes the same vector each pass allocates nothing while the layout stays the same.
void fill_samples_from_snapshot(const Snapshot& snap, SampleTime when, std::vector<Sample>& out);

/// The inventory sample of `snap` at `when` (series "inventory", source = the sysfs root), holding
/// inventory_static_facts(snap).
Sample inventory_sample(const Snapshot& snap, SampleTime when);

/// The snapshot's JSON without counter lists (counters, hw_counters, nl_hw_counters,
/// normalized, ethtool_stats, aer): the static facts for inventory samples
/// (InventoryJson::without_counters).
nlohmann::json inventory_json(const Snapshot& snap);

}  // namespace rh
