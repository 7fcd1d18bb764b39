#include "agent/fabric/fabric_queries.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

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

std::vector<FabricQuery> fabric_queries(const std::string& match, double step_s, double span_s) {
    const auto only = [&](const std::string& expr) {
        return match.empty() ? expr
                             : "(" + expr + ") and on (instance) rocehealth_host_info" + match;
    };
    const std::string pause_window = seconds(std::max(kPauseWindowS, step_s));
    const std::string error_window = seconds(std::max(kErrorWindowS, step_s));
    return {
        {"host_info",
         "last_over_time(rocehealth_host_info" + match + "[" + seconds(span_s + kLookbackS) + "])",
         true},
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

namespace {

/// What to change for a finer step: --min-step when it set the step, else the range or
/// --max-points (a new user's find: a --min-step of 120 was told to shorten the range).
std::string finer_step_advice(double step_s, double min_step_s, std::size_t max_points) {
    if (std::ceil(min_step_s) >= step_s)
        return "Lower --min-step (now " + whole_seconds_text(std::ceil(min_step_s)) + ")";
    return "Shorten --from/--to, or raise --max-points (now " + std::to_string(max_points) + ")";
}

}  // namespace

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
    for (const FabricQuery& q : fabric_queries("", plan.step_s))
        plan.requests += q.at_end_only ? 1 : pages;  // at the end: one instant query
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
                       "as short as the rule's alert could pass between two points. " +
                       finer_step_advice(plan.step_s, min_step_s, max_points)});
    }
    return plan;
}

std::vector<Note> skipped_at_step(double step_s, double min_step_s, std::size_t max_points) {
    if (step_s <= kLookbackS) return {};
    std::vector<Note> out;
    for (const char* rule :
         {"fabric_pause_storm_origin", "fabric_tor_probes_failing", "fabric_config_drift"})
        out.push_back(
            {rule, "no input at a query step of " + whole_seconds_text(step_s) +
                       ": Prometheus shows a series at each step's instant only if it has a "
                       "sample in the " +
                       whole_seconds_text(kLookbackS) +
                       " before, so data between the instants was not seen (not: no data). " +
                       finer_step_advice(step_s, min_step_s, max_points)});
    return out;
}

std::optional<FabricSource> parse_fabric_source(const std::string& text) {
    if (text == "auto") return FabricSource::automatic;
    if (text == "raw") return FabricSource::raw;
    if (text == "recorded") return FabricSource::recorded;
    return std::nullopt;
}

std::vector<FabricQuery> recorded_queries() {
    return {
        {"pause_pairs_reporting",
         "count(rocehealth:pfc_pause_rx_fraction:max_rate1m and on (fabric, instance, priority) "
         "rocehealth:pfc_pause_tx_fraction:max_rate1m)"},
        {"pause_fraction",
         "label_replace(rocehealth:pfc_pause_rx_fraction:max_rate1m > 0, \"direction\", \"rx\", "
         "\"\", \"\") or label_replace(rocehealth:pfc_pause_tx_fraction:max_rate1m > 0, "
         "\"direction\", \"tx\", \"\", \"\")"},
        {"tor_into_count", "rocehealth:probe_pairs_into_tor:count"},
        {"tor_into_bad_ratio", "rocehealth:probe_pairs_into_tor:bad_ratio"},
        {"tor_rows_out_bad_ratio", "rocehealth:probe_tor_rows_out_of_tor:bad_ratio"},
        {"config_ports", "rocehealth:config_value:ports"},
        {"config_drifting",
         "rocehealth:config_value:port unless on (fabric, setting, priority, value) "
         "rocehealth:config_value:majority"},
    };
}

std::string promql_regex_literal(const std::string& value) {
    std::string out;
    for (const char c : value) {
        // RE2 metacharacters are escaped with a backslash, itself doubled in the PromQL string.
        if (c == '\\') {
            out += "\\\\\\\\";  // regex \\ in a PromQL string
            continue;
        }
        if (std::string_view(".+*?()|[]{}^$").find(c) != std::string_view::npos) out += "\\\\";
        if (c == '"') out += '\\';
        out += c;
    }
    return out;
}

namespace {

/// The member of `out` a query of either source fills.
std::vector<PromSeries>& member(FabricSeries& out, const std::string& name) {
    static const std::map<std::string, std::vector<PromSeries> FabricSeries::*> members = {
        {"host_info", &FabricSeries::host_info},
        {"pause_fraction", &FabricSeries::pause_fraction},
        {"probe_errors", &FabricSeries::probe_errors},
        {"probe_p50_s", &FabricSeries::probe_p50_s},
        {"port_config", &FabricSeries::port_config},
        {"pause_pairs_reporting", &FabricSeries::pause_pairs_reporting},
        {"tor_into_count", &FabricSeries::tor_into_count},
        {"tor_into_bad_ratio", &FabricSeries::tor_into_bad_ratio},
        {"tor_rows_out_bad_ratio", &FabricSeries::tor_rows_out_bad_ratio},
        {"bad_rows", &FabricSeries::bad_rows},
        {"config_ports", &FabricSeries::config_ports},
        {"config_drifting", &FabricSeries::config_drifting},
    };
    return out.*members.at(name);
}

/// Sends `q` into its member of `out`, counting what it cost.
Status run_query(const PromClient& client, const FabricQuery& q, double from_s, double to_s,
                 double step_s, std::size_t page_points, FabricSeries& out, FabricFetch& got) {
    got.sent.push_back(q);
    // At the end only: an instant query (a range of one point can come back empty: query_at).
    const auto points = static_cast<std::size_t>(std::floor((to_s - from_s) / step_s)) + 1;
    got.requests += q.at_end_only ? 1
                                  : (points + std::max<std::size_t>(page_points, 1) - 1) /
                                        std::max<std::size_t>(page_points, 1);
    auto r = q.at_end_only ? client.query_at(q.promql, to_s)
                           : client.query_range(q.promql, from_s, to_s, step_s);
    if (!r) {
        Error e = r.error();
        e.op = q.name;
        return e;
    }
    for (const PromSeries& s : *r) got.points += s.points.size();
    member(out, q.name) = std::move(*r);
    return ok_status();
}

/// One analysis: its raw queries, its recorded ones (the first checks presence), the rule it
/// feeds and where the source is written.
struct Analysis {
    std::vector<std::string> raw, recorded;
    const char* rule;
    std::string FabricFetch::*source;
};

const std::vector<Analysis>& analyses() {
    static const std::vector<Analysis> all = {
        {{"pause_fraction"},
         {"pause_pairs_reporting", "pause_fraction"},
         "fabric_pause_storm_origin",
         &FabricFetch::pause_source},
        {{"probe_errors", "probe_p50_s"},
         {"tor_into_count", "tor_into_bad_ratio", "tor_rows_out_bad_ratio"},
         "fabric_tor_probes_failing",
         &FabricFetch::mesh_source},
        {{"port_config"},
         {"config_ports", "config_drifting"},
         "fabric_config_drift",
         &FabricFetch::config_source},
    };
    return all;
}

const FabricQuery& named(const std::vector<FabricQuery>& qs, const std::string& name) {
    return *std::find_if(qs.begin(), qs.end(),
                         [&](const FabricQuery& q) { return q.name == name; });
}

}  // namespace

Status fetch_fabric_series(const PromClient& client, const std::string& match, double from_s,
                           double to_s, double step_s, FabricSource source, std::size_t page_points,
                           FabricSeries& out, FabricFetch& got) {
    const std::vector<FabricQuery> raw = fabric_queries(match, step_s, to_s - from_s),
                                   rec = recorded_queries();
    if (auto st =
            run_query(client, named(raw, "host_info"), from_s, to_s, step_s, page_points, out, got);
        !st)
        return st;
    if (!match.empty() && out.host_info.empty()) return ok_status();
    // The recorded per-ToR series are fleet-wide: a --match narrows raw series only.
    if (!match.empty()) source = FabricSource::raw;
    for (const Analysis& a : analyses()) {
        bool recorded = false;
        if (source != FabricSource::raw) {
            if (auto st = run_query(client, named(rec, a.recorded.front()), from_s, to_s, step_s,
                                    page_points, out, got);
                !st)
                return st;
            recorded = !member(out, a.recorded.front()).empty();
        }
        if (!recorded && source == FabricSource::recorded) {
            got.*a.source = "recorded";
            got.not_judged.push_back(
                {a.rule, "--source recorded: the range has no " +
                             named(rec, a.recorded.front()).promql +
                             " (packaging/prometheus/rocehealth-fabric-rules.yml is not loaded, "
                             "or was not evaluated over this range): load the rules, or use "
                             "--source raw"});
            continue;
        }
        got.*a.source = recorded ? "recorded" : "raw";
        const std::vector<std::string>& names = recorded ? a.recorded : a.raw;
        for (std::size_t i = recorded ? 1 : 0; i < names.size(); ++i)
            if (auto st = run_query(client, named(recorded ? rec : raw, names[i]), from_s, to_s,
                                    step_s, page_points, out, got);
                !st)
                return st;
    }
    return ok_status();
}

Status fetch_bad_rows(const PromClient& client, const std::vector<std::string>& tors, double from_s,
                      double to_s, double step_s, std::size_t page_points, FabricSeries& out,
                      FabricFetch& got) {
    if (tors.empty()) return ok_status();
    std::string alternatives;
    for (const std::string& t : tors)
        alternatives += (alternatives.empty() ? "" : "|") + promql_regex_literal(t);
    const FabricQuery q{"bad_rows", "rocehealth:probe_pair_bad_between_tors:2m{peer_tor=~\"" +
                                        alternatives + "\"} == 1"};
    return run_query(client, q, from_s, to_s, step_s, page_points, out, got);
}

}  // namespace rh::fabric
