// The config's `mesh` section (agent/daemon/README.md): the fleet source the mesh probes (a
// static list, a file, DNS or Prometheus) and the rounds' parameters. Part of AgentConfig
// (agent/daemon/config.h), held here so the fleet's parts (agent/fleet/) read it without the
// daemon; parse_agent_config validates it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "agent/fabric/bounded_get.h"
#include "probes/mesh/mesh_plan.h"

namespace rh::agent {

/// `mesh.peers_prometheus`: the fleet is the up targets of Prometheus' /api/v1/targets
/// (agent/fleet/fleet_targets.h).
struct PeersPrometheusConfig {
    std::string url;  ///< "http[s]://HOST[:PORT][/PREFIX]"; empty: not this source
    std::string job;  ///< only targets whose `job` label is this; empty: every job
    std::size_t max_answer_bytes = 16u << 20;  ///< bound of the answer, 1 KiB .. 1 GiB
    double timeout_s = 10;                     ///< connect and read timeout, 0.1..300
    /// Sent with every request (Mimir's tenant: X-Scope-OrgID), at most 32; in the config an
    /// object {"NAME": "VALUE"} or a list ["NAME: VALUE"].
    std::vector<fabric::HttpHeader> headers;
    bool operator==(const PeersPrometheusConfig&) const = default;
};

/// The probe mesh (probes/mesh/mesh.h) the agent runs in a thread when one fleet source is set:
/// `peers`, `peers_file`, `peers_dns` or `peers_prometheus` (exactly one; none: no mesh).
struct MeshConfig {
    std::vector<std::string> peers;  ///< HOST[:PORT] of peers' responders; empty: off
    /// The fleet list (agent/fleet/mesh_peers_file.h), exclusive with `peers`: each round probes
    /// the peers probes/mesh/mesh_plan.h picks for this host. Empty: `peers` alone. A relative
    /// path, as every path field's, is the config file's folder's (config_relative).
    std::string peers_file;
    /// A DNS name whose A/AAAA records (getaddrinfo) are the fleet (agent/fleet/mesh_peers_dns.h),
    /// each reached on responder.port; one ToR group kUnknownTor. Empty: not this source.
    std::string peers_dns;
    PeersPrometheusConfig peers_prometheus;
    /// With peers_dns or peers_prometheus: seconds between fetches of the fleet, 10..86400.
    double peers_refresh_s = 60;
    unsigned inter_tor_peers = 4;  ///< with a fleet source: hosts of other ToRs per round, 1..64
    unsigned intra_tor_cap = 64;   ///< with a fleet source: own-ToR peers per round at most, 1..256
    /// peers_file's hosts, read by load_agent_config (empty from parse_agent_config alone, and
    /// with peers_dns / peers_prometheus: the agent fetches those while it runs).
    std::vector<FleetHost> fleet;
    std::vector<std::string> ops{"write"};       ///< "write" and/or "read"
    std::vector<std::uint64_t> sizes_bytes{64};  ///< message sizes (check_message_size)
    unsigned iterations = 20;                    ///< timed messages per (op, size) per round
    double interval_s = 1;                       ///< between round starts, 0.1..3600
    double jitter = 0.1;                         ///< round start +-jitter x interval_s, 0..0.5
    double timeout_s = 2;                        ///< per wait (connect, each message), 0.01..60
    double summary_window_s = 60;  ///< quantiles of /metrics over this much history, 10..3600
    bool operator==(const MeshConfig&) const = default;
    bool enabled() const { return !peers.empty() || !peers_file.empty() || dynamic(); }
    /// The fleet is fetched while the agent runs (peers_dns or peers_prometheus).
    bool dynamic() const { return !peers_dns.empty() || !peers_prometheus.url.empty(); }
    /// "dns", "prometheus", "file", "peers", or "" (no mesh): the source's name in metrics.
    std::string source() const;
};

}  // namespace rh::agent
