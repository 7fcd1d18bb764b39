// The inverse of inventory_json.cpp for the static facts: rebuilds a Snapshot (devices, ports,
// GIDs, netdev MTU/state/DCB/QoS, verbs MTUs, PCIe chain) from `rocehealth snapshot --json`
// output or a recording's inventory sample, so the inventory checks run on replays the same way
// they run live. Counter lists are not read (they arrive as samples).
#pragma once

#include <nlohmann/json.hpp>

#include "core/inventory/inventory.h"
#include "core/result.h"

namespace rh {

/// Error names every field with a wrong type by its JSON path, one per line, read by the core
/// reader (core/json/json_reader.h): "devices[0].ports[1].gids: expected an array, got a string
/// (\"x\")". Absent keys and nulls leave the field absent (optional) or empty.
Result<Snapshot> snapshot_from_json(const nlohmann::json& j);

}  // namespace rh
