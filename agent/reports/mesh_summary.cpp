#include "agent/reports/mesh_summary.h"

#include <cstdio>
#include <string>

namespace rh {

nlohmann::json mesh_summary_json(const std::vector<MeshPeerStatus>& status, double wall_s,
                                 double cpu_s, std::size_t samples) {
    nlohmann::json peers = nlohmann::json::array();
    for (const auto& p : status) {
        nlohmann::json errors = nlohmann::json::object();
        for (const auto& [k, n] : p.errors) errors[k.first + "/" + k.second] = n;
        peers.push_back({{"peer", p.peer},
                         {"rounds_ok", p.rounds_ok},
                         {"rounds_failed", p.rounds_failed},
                         {"rounds_skipped", p.rounds_skipped},
                         {"connects", p.connects},
                         {"errors", errors},
                         {"last_error", p.last_error}});
    }
    return {{"peers", peers},
            {"wall_s", wall_s},
            {"cpu_s", cpu_s},
            {"cpu_percent", wall_s > 0 ? 100 * cpu_s / wall_s : 0},
            {"samples", samples}};
}

void print_mesh_summary(std::ostream& out, const nlohmann::json& doc) {
    for (const auto& p : doc["peers"]) {
        out << p["peer"].get<std::string>() << ": " << p["rounds_ok"] << " rounds ok, "
            << p["rounds_failed"] << " failed, " << p["rounds_skipped"] << " skipped (backoff), "
            << p["connects"] << " connects";
        if (!p["last_error"].get<std::string>().empty())
            out << "; last error: " << p["last_error"].get<std::string>();
        out << "\n";
    }
    char line[160];
    std::snprintf(line, sizeof line, "%.1f s, CPU %.2f s (%.2f%% of one core), %zu samples\n",
                  doc["wall_s"].get<double>(), doc["cpu_s"].get<double>(),
                  doc["cpu_percent"].get<double>(), doc["samples"].get<std::size_t>());
    out << line;
}

}  // namespace rh
