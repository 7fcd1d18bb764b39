#include "store/series_names.h"

#include <algorithm>
#include <set>

#include "collectors/normalize.h"

namespace rh {

const std::vector<std::string>& known_series() {
    static const std::vector<std::string> names = [] {
        std::set<std::string> s;
        for (auto family :
             {DriverFamily::mlx5, DriverFamily::bnxt, DriverFamily::irdma_ice, DriverFamily::rxe})
            for (const MapEntry& e : table_for(family)) s.emplace(e.name);
        // Added by store/from_snapshot.cpp and the probes (store/README.md).
        for (const char* n : {"carrier_changes", "port_state_code", "port_rate_gbps",
                              "port_width_lanes", "pfc_enabled", "ecn_np_enabled", "ecn_rp_enabled",
                              "probe_latency_us", "probe_errors", "uptime_s"})
            s.emplace(n);
        return std::vector<std::string>(s.begin(), s.end());
    }();
    return names;
}

const std::vector<std::string>& known_labels() {
    static const std::vector<std::string> names = [] {
        std::set<std::string> s{"device", "port",       "netdev",   "peer",
                                "op",     "size_bytes", "quantile", "status"};
        for (auto family :
             {DriverFamily::mlx5, DriverFamily::bnxt, DriverFamily::irdma_ice, DriverFamily::rxe})
            for (const MapEntry& e : table_for(family)) {
                // "priority={p},direction=rx": the names before each '='.
                std::string_view l = e.labels;
                while (!l.empty()) {
                    const auto comma = l.find(',');
                    const auto item = l.substr(0, comma);
                    if (const auto eq = item.find('='); eq != std::string_view::npos)
                        s.emplace(item.substr(0, eq));
                    l = comma == std::string_view::npos ? std::string_view{} : l.substr(comma + 1);
                }
            }
        return std::vector<std::string>(s.begin(), s.end());
    }();
    return names;
}

bool is_known_label(const std::string& name) {
    const auto& n = known_labels();
    return std::binary_search(n.begin(), n.end(), name);
}

bool is_known_series(const std::string& name) {
    const auto& n = known_series();
    return std::binary_search(n.begin(), n.end(), name);
}

}  // namespace rh
