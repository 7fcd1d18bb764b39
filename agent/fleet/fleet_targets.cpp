#include "agent/fleet/fleet_targets.h"

#include <algorithm>
#include <map>

#include "agent/fleet/topology.h"
#include "probes/wire/tcp.h"

namespace rh::agent {

Result<std::vector<FleetHost>> fleet_from_targets(const std::vector<fabric::PromTarget>& targets,
                                                  const std::string& job, std::uint16_t port,
                                                  const std::string& url) {
    std::vector<const fabric::PromTarget*> up;
    for (const fabric::PromTarget& t : targets) {
        if (t.health != "up") continue;
        if (!job.empty()) {
            const auto j = t.labels.find("job");
            if (j == t.labels.end() || j->second != job) continue;
        }
        up.push_back(&t);
    }
    // The same order whatever the answer's: which target of a host wins does not flap.
    std::sort(up.begin(), up.end(),
              [](const auto* a, const auto* b) { return a->scrape_url < b->scrape_url; });
    std::map<std::string, FleetHost> hosts;
    for (const fabric::PromTarget* t : up) {
        std::string tor = kUnknownTor;
        if (const auto l = t->labels.find(kTorLabel); l != t->labels.end()) {
            if (const std::string why = check_topology_label_value(l->second); !why.empty())
                return Error{"mesh.peers_prometheus", url, 0,
                             "target " + t->scrape_url + ": label " + kTorLabel + ": " + why};
            tor = l->second;
        }
        hosts.try_emplace(t->host, FleetHost{t->host, tcp::HostPort{t->host, port}.str(), tor});
    }
    if (hosts.empty())
        return Error{"mesh.peers_prometheus", url, 0,
                     "no target is up" + (job.empty() ? std::string() : " in job \"" + job + "\"") +
                         " (" + std::to_string(targets.size()) + " active targets)"};
    std::vector<FleetHost> out;
    out.reserve(hosts.size());
    for (auto& [name, h] : hosts) out.push_back(std::move(h));
    return out;
}

}  // namespace rh::agent
