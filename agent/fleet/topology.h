// The agent config's `topology` object: where this host sits in the fabric, as Prometheus labels
// of `rocehealth_host_info` ({"pod": "p1", "tor": "r07", "rail": "2"}). The fleet rules
// (packaging/prometheus/rocehealth-fabric-rules.yml) join every series to these labels on
// `instance`, so they are exported once per host and never copied onto other series.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace rh::agent {

/// Label name -> value, sorted by name (the exposition's order).
using Topology = std::map<std::string, std::string>;

/// Labels a topology may have: enough for pod/row/rack/tor/rail/plane and a few more, few
/// enough that a typo cannot turn host_info into a high-cardinality series.
inline constexpr std::size_t kMaxTopologyLabels = 16;
/// Longest label name and value in bytes (a rack or switch name, not free text).
inline constexpr std::size_t kMaxTopologyNameBytes = 64;
inline constexpr std::size_t kMaxTopologyValueBytes = 128;

/// "" when `name` may be a topology label, else why not: it must match the Prometheus label
/// syntax [a-zA-Z_][a-zA-Z0-9_]*, not start with "__" (reserved by Prometheus), and not be a
/// label the agent or Prometheus already puts on series: `host` (host_info's own), `instance`
/// and `job` (target labels: a scraped one would be renamed `exported_*`), `fabric` (the target
/// label the fabric rules group by: set it in the scrape config), and every label of the
/// agent's series (device, port, netdev, priority, direction, peer, rule, severity, ...).
std::string check_topology_label_name(const std::string& name);

/// "" when `value` may be a topology label value: 1 to kMaxTopologyValueBytes bytes, no
/// control characters (it is shown in alerts and dashboards).
std::string check_topology_label_value(const std::string& value);

}  // namespace rh::agent
