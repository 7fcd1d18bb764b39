// What /metrics says about the host itself rather than its counters: rocehealth_host_info (host
// name and configured topology) and the port configuration the fleet rules compare across the
// fabric (packaging/prometheus/rocehealth-fabric-rules.yml, "configuration drift"). Each is a row
// of the series catalog (core/series_catalog.cpp, origin agent: name, unit, HELP):
//   rocehealth_host_info{host,<topology labels>} 1
//   rocehealth_netdev_mtu_bytes{device,port,netdev}         netdev MTU (rtnetlink / class/net)
//   rocehealth_port_active_mtu_bytes{device,port,netdev}    RoCE active_mtu (ibv_query_port)
//   rocehealth_port_trust_info{device,port,netdev,trust} 1  "dscp" or "pcp" (DCB APP / qos/trust)
// PFC priorities need nothing here: rocehealth_pfc_enabled{priority} comes from the store.
// Values come from the agent's latest inventory (re-read every inventory_interval_s); what the
// inventory could not read is left out, never exported as 0.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/fleet/topology.h"
#include "core/inventory/inventory.h"

namespace rh::agent {

/// One RDMA port's configuration as exported.
struct PortConfigRow {
    std::string device;
    unsigned port = 0;
    std::string netdev;                        ///< empty when the port has no netdev
    std::optional<unsigned> netdev_mtu_bytes;  ///< the netdev's MTU
    std::optional<unsigned> active_mtu_bytes;  ///< RoCE path MTU the port uses (verbs)
    std::string trust;                         ///< "dscp", "pcp"; empty when unknown
};

/// The host's identity and configuration for /metrics.
struct HostInfo {
    std::string host;   ///< the agent's host name (config `host` or the kernel's)
    Topology topology;  ///< config `topology`
    std::vector<PortConfigRow> ports;
};

/// Every port of every device in `snap`, in inventory order.
std::vector<PortConfigRow> port_config_rows(const Snapshot& snap);

}  // namespace rh::agent
