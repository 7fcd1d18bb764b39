// The PromQL `rocehealth fabric` runs, on the agents' raw series (so it works where the fabric
// recording rules are not loaded) or on the rules' recorded series (a fleet), and fetching them
// into FabricSeries.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "agent/fabric/fabric_analysis.h"
#include "agent/fabric/prom_client.h"

namespace rh::fabric {

/// One query of the fetch: which FabricSeries member it fills and its PromQL.
struct FabricQuery {
    std::string
        name;  ///< "host_info", "pause_fraction", "probe_errors", "probe_p50_s", "port_config"
    std::string promql;
    /// Asked at the range's end only, as an instant query (PromClient::query_at; one point a
    /// series): labels that hold over the range (host_info's host and ToR), not values in time.
    /// At 10,000 hosts host_info at every step was 22 of the 35 MiB `fabric --source recorded`
    /// read (bench/README.md).
    bool at_end_only = false;
};

/// The queries for one run. `match`: "" or a selector in braces ({tor="r07"}, {fabric="a"}),
/// applied to rocehealth_host_info and to every other series through `and on (instance)` with
/// it (topology labels live on host_info only). `step_s`: the range step; the pause window is
/// max(60 s, step) (the rules' 1 m rate), the probe-failure window max(120 s, step) (the
/// rules' 2 m increase), so no sample between two steps is skipped. `span_s`: the range's length;
/// host_info is read once, as each series' last value over it and the lookback before it
/// (at_end_only).
std::vector<FabricQuery> fabric_queries(const std::string& match, double step_s,
                                        double span_s = 3600);

/// The coarsest step at which the analysis judges `rule` (a FabricResult rule id) as the rules
/// do, in seconds: the finer of its rate window (pause: the 1 m rate; probe failures: the 2 m
/// increase) and half the rules' `for:` hold (so a hold spans at least three points, and a fault
/// that makes the alert fire cannot fall between two). Config drift reads the last value:
/// any step (infinity).
double coarsest_judged_step_s(const std::string& rule, const FabricThresholds& th = {});

/// How one run fetches [from_s, to_s]: the step, and what it costs.
struct FabricPlan {
    double step_s = 0;                  ///< the query step, whole seconds
    std::size_t points_per_series = 0;  ///< points of one series over the range
    /// Requests: each range query once a page by time, host_info once (an instant query).
    std::size_t requests = 0;
    /// Rules the step is too coarse to judge (subject: rule id, text: why and what to do):
    /// no finding from them is not health (exit 2 when nothing else is found).
    std::vector<Note> not_judged;
};

/// The plan for [from_s, to_s]: step `min_step_s`, or wider (whole seconds) only as far as a
/// series keeps at most `max_points` points over the range; the client pages it by time in
/// requests of `page_points` points per series (Prometheus answers at most 11,000). A long range
/// therefore costs more requests, not a coarser step, up to `max_points`; past it the step
/// grows and the rules it outgrows (coarsest_judged_step_s) are in not_judged.
FabricPlan plan_fabric_fetch(double from_s, double to_s, double min_step_s, std::size_t max_points,
                             std::size_t page_points);

/// Prometheus' default lookback (query.lookback-delta, 5 m): at each step's instant a series
/// shows its last sample of the 5 minutes before, so a step wider than this skips data.
inline constexpr double kLookbackS = 300;

/// Why each rule (fabric_pause_storm_origin, fabric_tor_probes_failing, fabric_config_drift)
/// may have had no input at `step_s` (notes as FabricPlan::not_judged): the step's instants
/// skipped its data. Empty when the step is at most kLookbackS, for then no points means no
/// data. Each note says what to change: --min-step when `min_step_s` set the step, else the range
/// or `max_points`.
std::vector<Note> skipped_at_step(double step_s, double min_step_s, std::size_t max_points);

/// Where the analyses read from. `raw`: the agents' series (fabric_queries(); any server that
/// holds them). `recorded`: the series rocehealth-fabric-rules.yml records (recorded_queries();
/// the rules loaded into the server or vmalert), per ToR and only the nonzero or drifting rows,
/// so an hour of a 10,000-host fleet is a few thousand series instead of millions. `automatic`:
/// each analysis reads its recorded series when the range has them, else its raw ones; with a
/// --match every analysis reads raw (the recorded per-ToR series are fleet-wide).
enum class FabricSource { automatic, raw, recorded };

/// "auto", "raw", "recorded" -> the source; nullopt for anything else.
std::optional<FabricSource> parse_fabric_source(const std::string& text);

/// The recorded source's queries, by analysis: the first of each is its presence check
/// (pause_pairs_reporting, tor_into_count, config_ports; FabricSeries names them).
std::vector<FabricQuery> recorded_queries();

/// What one fetch did: each analysis' source ("raw" or "recorded"), the queries sent in order,
/// points received and requests made (queries x pages).
struct FabricFetch {
    std::string pause_source, mesh_source, config_source;
    std::vector<FabricQuery> sent;
    std::size_t points = 0, requests = 0;
    /// Analyses that read nothing because `recorded` was asked and the range has no recorded
    /// series of theirs (subject: the rule id; for add_not_judged).
    std::vector<Note> not_judged;
};

/// Runs the queries of `source` into the matching members of `out`, pages of `page_points`
/// points (FabricFetch::requests counts them). The first error stops (Error as
/// PromClient::query_range; its op is set to the query's name). With a `match` that no
/// rocehealth_host_info matches (the first query), the others are not sent: each is joined
/// with it, so they would be empty too.
Status fetch_fabric_series(const PromClient& client, const std::string& match, double from_s,
                           double to_s, double step_s, FabricSource source, std::size_t page_points,
                           FabricSeries& out, FabricFetch& got);

/// The recorded mesh's second pass: the bad rows into `tors` (rule fabric_tor_probes_failing's
/// blamed ToRs) into out.bad_rows, for their timeline. Errors as fetch_fabric_series.
Status fetch_bad_rows(const PromClient& client, const std::vector<std::string>& tors, double from_s,
                      double to_s, double step_s, std::size_t page_points, FabricSeries& out,
                      FabricFetch& got);

/// `value` as a PromQL regex matching itself only, inside a double-quoted string literal.
std::string promql_regex_literal(const std::string& value);

}  // namespace rh::fabric
