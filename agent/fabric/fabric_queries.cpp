#include "agent/fabric/fabric_queries.h"

#include <algorithm>
#include <cmath>

namespace rh::fabric {

namespace {

std::string seconds(double s) {
    return std::to_string(static_cast<long long>(std::ceil(s))) + "s";
}

}  // namespace

std::vector<FabricQuery> fabric_queries(const std::string& match, double step_s) {
    const auto only = [&](const std::string& expr) {
        return match.empty() ? expr
                             : "(" + expr + ") and on (instance) rocehealth_host_info" + match;
    };
    const std::string pause_window = seconds(std::max(60.0, step_s));
    const std::string error_window = seconds(std::max(120.0, step_s));
    return {
        {"host_info", "rocehealth_host_info" + match},
        {"pause_fraction", only("max by (instance, priority, direction) "
                                "(rate(rocehealth_pfc_pause_duration_seconds_total[" +
                                pause_window + "]))")},
        // Counters of per-row agents, window failures of agents with a fleet (series budget).
        {"probe_errors",
         only("increase(rocehealth_probe_errors_total[" + error_window +
              "]) or increase(rocehealth_probe_tor_errors_total[" + error_window +
              "]) or max_over_time(rocehealth_probe_window_errors[" + error_window +
              "]) or max_over_time(rocehealth_probe_tor_window_errors[" + error_window + "])")},
        {"probe_p50_s", only("rocehealth_probe_latency_seconds{quantile=\"0.5\"} or "
                             "rocehealth_probe_tor_latency_seconds{quantile=\"0.5\"}")},
        {"port_config",
         only("{__name__=~\"rocehealth_netdev_mtu_bytes|rocehealth_port_active_mtu_bytes|"
              "rocehealth_pfc_enabled|rocehealth_port_trust_info\"}")},
    };
}

double fabric_step_s(double from_s, double to_s, double min_step_s) {
    return std::max(min_step_s, std::ceil((to_s - from_s) / 10999.0));
}

Status fetch_fabric_series(const PromClient& client, const std::string& match, double from_s,
                           double to_s, double step_s, FabricSeries& out, std::size_t& points) {
    for (const FabricQuery& q : fabric_queries(match, step_s)) {
        auto r = client.query_range(q.promql, from_s, to_s, step_s);
        if (!r) {
            Error e = r.error();
            e.op = q.name;
            return e;
        }
        for (const PromSeries& s : *r) points += s.points.size();
        std::vector<PromSeries>& into = q.name == "host_info"        ? out.host_info
                                        : q.name == "pause_fraction" ? out.pause_fraction
                                        : q.name == "probe_errors"   ? out.probe_errors
                                        : q.name == "probe_p50_s"    ? out.probe_p50_s
                                                                     : out.port_config;
        into = std::move(*r);
    }
    return ok_status();
}

}  // namespace rh::fabric
