#include "agent/fleet/fleet_fetch.h"

#include "agent/fabric/prom_client.h"
#include "agent/fleet/fleet_targets.h"
#include "agent/fleet/mesh_peers_dns.h"

namespace rh::agent {

namespace {

Result<FleetAnswer> from_prometheus(const PeersPrometheusConfig& p, std::uint16_t port,
                                    const SelfIdentity& me, const std::atomic<bool>* stop) {
    auto ep = fabric::parse_prometheus_url(p.url);
    if (!ep) return Error{"mesh.peers_prometheus", p.url, 0, ep.error().detail};
    ep->headers = p.headers;
    const std::string url = ep->scheme_host_port + ep->path_prefix + "/api/v1/targets";
    fabric::PromLimits lim;
    lim.max_answer_bytes = p.max_answer_bytes;
    lim.timeout_s = p.timeout_s;
    lim.stop = stop;
    lim.timeout_option = "mesh.peers_prometheus.timeout_s";
    lim.max_answer_option = "mesh.peers_prometheus.max_answer_bytes";
    const fabric::PromClient client(*ep, lim);
    auto targets = client.active_targets(kMaxPrometheusFleetTargets);
    if (!targets) return targets.error();
    auto fleet = fleet_from_targets(*targets, p.job, port, url);
    if (!fleet) return fleet.error();
    return place_self(std::move(*fleet), me, url);
}

}  // namespace

Result<FleetAnswer> fetch_fleet(const MeshConfig& mesh, std::uint16_t responder_port,
                                const SelfIdentity& me, const std::atomic<bool>* stop) {
    if (!mesh.peers_dns.empty()) {
        auto addresses = resolve_addresses(mesh.peers_dns);
        if (!addresses) return addresses.error();
        return place_self(fleet_from_addresses(*addresses, responder_port), me,
                          "mesh.peers_dns " + mesh.peers_dns);
    }
    if (!mesh.peers_prometheus.url.empty())
        return from_prometheus(mesh.peers_prometheus, responder_port, me, stop);
    return Error{"mesh fleet", "config", 0, "neither mesh.peers_dns nor mesh.peers_prometheus"};
}

}  // namespace rh::agent
