#include "collectors/poller/source_status.h"

#include <cerrno>

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
    }
    return "unknown";
}

bool is_no_data(int err_no) {
    return err_no == ENOENT || err_no == EOPNOTSUPP || err_no == ENOTSUP || err_no == ENODATA;
}

}  // namespace rh
