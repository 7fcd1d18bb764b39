#include "collectors/sources/source_status.h"

#include <cerrno>
#include <chrono>

namespace rh {

std::string_view to_string(Source s) {
    switch (s) {
        case Source::rdma_sysfs:
            return "rdma_sysfs";
        case Source::netdev_sysfs:
            return "netdev_sysfs";
        case Source::aer:
            return "aer";
        case Source::ethtool_stats:
            return "ethtool_stats";
        case Source::ethtool_pause:
            return "ethtool_pause";
        case Source::dcb:
            return "dcb";
        case Source::rdma_netlink:
            return "rdma_netlink";
        case Source::netdev_rtnl:
            return "netdev_rtnl";
        case Source::pcie_sysfs:
            return "pcie_sysfs";
        case Source::qos_sysfs:
            return "qos_sysfs";
        case Source::verbs:
            return "verbs";
    }
    return "unknown";
}

bool is_no_data(int err_no) {
    return err_no == ENOENT || err_no == EOPNOTSUPP || err_no == ENOTSUP || err_no == ENODATA;
}

double SourceClock::now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace rh
