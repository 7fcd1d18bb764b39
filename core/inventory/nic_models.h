// The fastest port rate of common RoCE NIC models, by PCI vendor and device ID (what
// `ibv_devinfo` prints as vendor_id / vendor_part_id, and sysfs as `device/{vendor,device}`).
// Used only to bound what the data does not say: a capture with pause frames but no port rate
// (`ethtool -S` and plain `ibv_devinfo`) is paused at least frames x 65535 quanta at the
// fastest rate the port can run, and the model makes that rate 25 Gb/s instead of 400.
// Sources: the vendors' product briefs and the PCI ID repository (pci.ids); a model not listed
// gives nullopt (the caller keeps its generic bound).
#pragma once

#include <optional>

namespace rh {

/// Fastest rate one port of the NIC model can run, Gb/s (10^9 bit/s); nullopt for a model not
/// in the table. `vendor_id` 0x15b3 Mellanox/NVIDIA, 0x14e4 Broadcom, 0x8086 Intel.
std::optional<double> nic_model_max_port_gbps(unsigned vendor_id, unsigned device_id);

}  // namespace rh
