// PCIe and port-rate arithmetic used by the PCIe rule. Pure functions, unit-tested.
#pragma once

#include <optional>
#include <string_view>

#include "core/inventory/parse.h"  // parse_port_rate_gbps

namespace rh {

/// Usable data rate of a PCIe link in Gb/s (10^9 bit/s) per direction, after line encoding:
/// 8b/10b for 2.5 and 5 GT/s, 128b/130b for 8-32 GT/s, 242/256 (FLIT) for 64 GT/s. Protocol
/// overhead (TLP headers) is not subtracted, so real throughput is lower still.
double pcie_link_gbps(double speed_gts, unsigned width);

}  // namespace rh
