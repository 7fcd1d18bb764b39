// PCIe and port-rate arithmetic used by the PCIe rule. Pure functions, unit-tested.
#pragma once

#include <optional>
#include <string_view>

namespace rh {

/// Usable data rate of a PCIe link in Gb/s (10^9 bit/s) per direction, after line encoding:
/// 8b/10b for 2.5 and 5 GT/s, 128b/130b for 8-32 GT/s, 242/256 (FLIT) for 64 GT/s. Protocol
/// overhead (TLP headers) is not subtracted, so real throughput is lower still.
double pcie_link_gbps(double speed_gts, unsigned width);

/// Port rate in Gb/s from `ports/<p>/rate` ("100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)");
/// nullopt when it does not start with a number followed by "Gb/sec".
std::optional<double> parse_port_rate_gbps(std::string_view rate);

}  // namespace rh
