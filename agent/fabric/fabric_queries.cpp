#include "agent/fabric/fabric_queries.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rh::fabric {

namespace {

constexpr double kPauseWindowS = 60;   ///< the rules' rate(...[1m]) of pause time
constexpr double kErrorWindowS = 120;  ///< the rules' increase(...[2m]) of probe errors

std::string seconds(double s) {
    return std::to_string(static_cast<long long>(std::ceil(s))) + "s";
}

std::string whole_seconds_text(double s) {
    return std::to_string(static_cast<long long>(std::ceil(s))) + " s";
}

}  // namespace

std::vector<FabricQuery> fabric_queries(const std::string& match, double step_s) {
    const auto only = [&](const std::string& expr) {
        return match.empty() ? expr
                             : "(" + expr + ") and on (instance) rocehealth_host_info" + match;
    };
    const std::string pause_window = seconds(std::max(kPauseWindowS, step_s));
    const std::string error_window = seconds(std::max(kErrorWindowS, step_s));
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

double coarsest_judged_step_s(const std::string& rule, const FabricThresholds& th) {
    if (rule == "fabric_pause_storm_origin") return std::min(kPauseWindowS, th.hold_s / 2);
    if (rule == "fabric_tor_probes_failing") return std::min(kErrorWindowS, th.hold_s / 2);
    return std::numeric_limits<double>::infinity();
}

FabricPlan plan_fabric_fetch(double from_s, double to_s, double min_step_s, std::size_t max_points,
                             std::size_t page_points) {
    FabricPlan plan;
    const double span_s = std::max(0.0, to_s - from_s);
    const double over = max_points > 1 ? span_s / static_cast<double>(max_points - 1) : span_s;
    plan.step_s = std::max(std::ceil(min_step_s), std::ceil(over));
    plan.points_per_series = static_cast<std::size_t>(std::floor(span_s / plan.step_s)) + 1;
    const std::size_t per_page = std::max<std::size_t>(1, page_points);
    const std::size_t pages = (plan.points_per_series + per_page - 1) / per_page;
    plan.requests = fabric_queries("", plan.step_s).size() * pages;
    const FabricThresholds th;
    for (const char* rule : {"fabric_pause_storm_origin", "fabric_tor_probes_failing"}) {
        // A range shorter than the hold cannot show a condition held that long.
        if (span_s < th.hold_s) {
            plan.not_judged.push_back(
                {rule, "the range is " + whole_seconds_text(span_s) + ", shorter than the " +
                           whole_seconds_text(th.hold_s) +
                           " a condition must hold for this rule: a fault running through it "
                           "cannot show. Give --from at least " +
                           whole_seconds_text(th.hold_s) + " before --to"});
            continue;
        }
        const double coarsest = coarsest_judged_step_s(rule, th);
        if (plan.step_s <= coarsest) continue;
        plan.not_judged.push_back(
            {rule, "the query step is " + whole_seconds_text(plan.step_s) + ", coarser than the " +
                       whole_seconds_text(coarsest) +
                       " this rule is judged at (its rate window, half its 2 m hold): a fault "
                       "as short as the rule's alert could pass between two points. Shorten "
                       "--from/--to, or raise --max-points (now " +
                       std::to_string(max_points) + ")"});
    }
    return plan;
}

std::vector<Note> skipped_at_step(double step_s, std::size_t max_points) {
    if (step_s <= kLookbackS) return {};
    std::vector<Note> out;
    for (const char* rule :
         {"fabric_pause_storm_origin", "fabric_tor_probes_failing", "fabric_config_drift"})
        out.push_back(
            {rule, "no input at a query step of " + whole_seconds_text(step_s) +
                       ": Prometheus shows a series at each step's instant only if it has a "
                       "sample in the " +
                       whole_seconds_text(kLookbackS) +
                       " before, so data between the instants was not seen (not: no data). "
                       "Shorten --from/--to, or raise --max-points (now " +
                       std::to_string(max_points) + ")"});
    return out;
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
        if (q.name == "host_info" && !match.empty() && out.host_info.empty()) break;
    }
    return ok_status();
}

}  // namespace rh::fabric
