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

}  // namespace rh
