#include "agent/daemon/host_info.h"

namespace rh::agent {

std::vector<PortConfigRow> port_config_rows(const Snapshot& snap) {
    std::vector<PortConfigRow> rows;
    for (const Device& d : snap.devices)
        for (const Port& p : d.ports) {
            PortConfigRow r;
            r.device = d.name;
            r.port = p.number;
            r.netdev = p.netdev_name;
            if (p.netdev) {
                r.netdev_mtu_bytes = p.netdev->mtu_bytes;
                r.trust = p.netdev->qos.trust;
            }
            r.active_mtu_bytes = p.verbs.active_mtu_bytes;
            rows.push_back(std::move(r));
        }
    return rows;
}

}  // namespace rh::agent
