#include "agent/daemon/mesh_budget.h"

#include <algorithm>
#include <map>
#include <set>

namespace rh::agent {

MeshRows mesh_rows(const MeshPlan& plan) {
    MeshRows out;
    std::set<std::string> tors;
    for (const FleetHost& h : plan.fleet()) {
        if (h.tor == plan.own_tor()) {
            if (h.host != plan.self().host) out.own_peers.push_back(h.address);
        } else {
            out.tor_of.emplace(h.address, h.tor);
            tors.insert(h.tor);
        }
    }
    out.other_tors.assign(tors.begin(), tors.end());
    return out;
}

std::vector<std::string> worst_destinations(const ProbeMetrics& m, std::size_t k) {
    struct Score {
        std::uint64_t failures = 0;
        double p50_s = -1;  ///< highest p50 of its rows; -1: no sample in the window
    };
    std::map<std::string, Score> score;
    for (const auto& [key, n] : m.window_errors)
        if (n > 0) score[key.first].failures += n;
    for (const ProbeLatencyRow& r : m.latency)
        if (r.window_samples > 0 && r.p50_s)
            score[r.peer].p50_s = std::max(score[r.peer].p50_s, *r.p50_s);
    std::vector<std::pair<std::string, Score>> v(score.begin(), score.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
        if (a.second.failures != b.second.failures) return a.second.failures > b.second.failures;
        if (a.second.p50_s != b.second.p50_s) return a.second.p50_s > b.second.p50_s;
        return a.first < b.first;
    });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size() && i < k; ++i) out.push_back(v[i].first);
    return out;
}

ProbeMetrics keep_worst(ProbeMetrics m, std::size_t k) {
    const auto worst = worst_destinations(m, k);
    const std::set<std::string> keep(worst.begin(), worst.end());
    std::erase_if(m.latency, [&](const ProbeLatencyRow& r) { return !keep.count(r.peer); });
    std::erase_if(m.window_errors, [&](const auto& e) { return !keep.count(e.first.first); });
    m.errors.clear();
    m.summarised = true;
    return m;
}

std::size_t mesh_series_in(const std::string& metrics_text) {
    std::size_t n = 0;
    for (std::size_t at = 0; at < metrics_text.size();) {
        const std::size_t end = std::min(metrics_text.find('\n', at), metrics_text.size());
        if (metrics_text.compare(at, 17, "rocehealth_probe_") == 0) ++n;
        at = end + 1;
    }
    return n;
}

}  // namespace rh::agent
