#include "rules/mtu_math.h"

namespace rh {

std::optional<unsigned> ib_mtu_for_netdev_mtu(unsigned netdev_mtu_bytes) {
    if (netdev_mtu_bytes < kRoceHeaderBytes) return std::nullopt;
    const unsigned room = netdev_mtu_bytes - kRoceHeaderBytes;
    for (unsigned ib = kMaxIbMtuBytes; ib >= 256; ib /= 2)
        if (ib <= room) return ib;
    return std::nullopt;
}

}  // namespace rh
