#include "agent/fleet/fleet_config.h"

namespace rh::agent {

std::string MeshConfig::source() const {
    if (!peers_dns.empty()) return "dns";
    if (!peers_prometheus.url.empty()) return "prometheus";
    if (!peers_file.empty()) return "file";
    return peers.empty() ? "" : "peers";
}

}  // namespace rh::agent
