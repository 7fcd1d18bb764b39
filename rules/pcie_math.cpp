#include "rules/pcie_math.h"

#include <cstdlib>
#include <string>

namespace rh {

double pcie_link_gbps(double speed_gts, unsigned width) {
    double efficiency = 128.0 / 130.0;
    if (speed_gts < 8.0) efficiency = 8.0 / 10.0;
    if (speed_gts >= 64.0) efficiency = 242.0 / 256.0;
    return speed_gts * efficiency * width;
}

std::optional<double> parse_port_rate_gbps(std::string_view rate) {
    const std::string s(rate);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || v <= 0) return std::nullopt;
    std::string_view rest(end);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.substr(0, 6) != "Gb/sec") return std::nullopt;
    return v;
}

}  // namespace rh
