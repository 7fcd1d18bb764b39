// rocehealth fabric: the fleet view (issue 15 §4). Pulls the agents' series from Prometheus'
// HTTP API over a time range (agent/fabric/fabric_queries.h), finds where a PFC pause storm
// started and whom it reached, the ToR that failing mesh pairs share, and the hosts configured
// unlike the fabric (agent/fabric/fabric_analysis.h), and prints them as `diagnose` does: the
// same findings, timeline, text and JSON (agent/reports/fabric_report.h), plus a "fabric" object
// {prometheus, from, to, step_s, match, requests, sources, queries}. Options and their checks:
// agent/cli/fabric_options.h. A long range keeps its step within the rules' windows and costs
// more requests (fabric_queries.h plan_fabric_fetch); past --max-points the step grows and the
// rules it outgrows are "could not judge", never healthy.
// Exit: 0 healthy (every analysis had the input its rule needs), 1 findings, 2 could not run
// (bad option, unreachable Prometheus, a Prometheus error, no data in the range, an answer over
// the bounds) or could not judge (an analysis had no input, less than its rule's minimum, or
// the step was coarser than its rule's windows: verdict could_not_judge). With --json every
// exit 2 also prints {"schema": 1, "verdict": "error", "error": "..."} on stdout.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>

#include "agent/cli/commands.h"
#include "agent/cli/fabric_options.h"
#include "agent/fabric/fabric_coverage.h"
#include "agent/fabric/fabric_queries.h"
#include "agent/fabric/time_arg.h"
#include "agent/reports/fabric_report.h"

namespace rh::cli {

namespace {

/// "--match '{tor="r07"}'" with the first ToR the fabric names, else a placeholder ToR.
std::string narrow_hint(const fabric::FabricSeries& got) {
    std::string tor = "r07";
    for (const auto& s : got.host_info)
        if (const auto it = s.labels.find("tor"); it != s.labels.end() && !it->second.empty()) {
            tor = it->second;
            break;
        }
    return "--match '{tor=\"" + tor + "\"}'";
}

/// The message of a failed fetch `e` (fabric::kCause*), with a hint when the answer was too big.
std::string fetch_error(const Error& e, const FabricArgs& a, const fabric::FabricSeries& got) {
    if (e.cause == fabric::kCauseUnreachable)
        return "cannot reach Prometheus at " + a.url + ": " + e.detail;
    if (e.cause == fabric::kCauseTooManySeries || e.cause == fabric::kCauseTooManyBytes)
        return "the answer to query " + e.op + " is too large (" + e.detail +
               (a.match.empty() ? "" : ", with --match '" + a.match + "'") +
               "): narrow the hosts with a selector, e.g. " + narrow_hint(got) +
               ", or a shorter --from/--to range";
    if (e.cause == fabric::kCausePrometheusError)
        return "query " + e.op + " failed at " + a.url + ": " + e.detail;
    // An HTTP error or an answer not in the API's shape: most often a base URL one step off.
    if (e.cause == fabric::kCauseHttpStatus || e.cause == fabric::kCauseMalformed)
        return "query " + e.op + " at " + a.url + ": " + e.detail + ". Is " + a.url +
               " the base of a Prometheus query API (" + a.url +
               "/api/v1/query_range and /api/v1/query are asked)? Forms: Prometheus or Thanos "
               "Query "
               "http://HOST:9090, Mimir http://HOST/prometheus, VictoriaMetrics "
               "http://HOST:8428, its cluster http://vmselect:8481/select/0/prometheus "
               "(rocehealth fabric --help)";
    return "query " + e.op + " at " + a.url + ": " + e.detail;
}

/// The message when the range held no points at all: which series, and what to check.
std::string no_series(const FabricArgs& a) {
    const std::string range = " between " + fabric::rfc3339(a.from_s) + " and " +
                              fabric::rfc3339(a.to_s) + " at " + a.url;
    if (!a.match.empty())
        return "no host exported rocehealth_host_info matching --match " + a.match + range +
               ": check the selector against rocehealth_host_info's labels (host, tor, and "
               "those of the agents' host_labels), or run without --match";
    return "no host exported rocehealth_host_info or the series the fabric rules read "
           "(rocehealth_pfc_pause_duration_seconds_total, rocehealth_probe_errors_total, "
           "rocehealth_probe_latency_seconds, rocehealth_netdev_mtu_bytes, ...)" +
           range +
           ": check that the URL is the base of the query API holding the agents' series "
           "(forms: rocehealth fabric --help) and that it scrapes them in that range";
}

/// --out DIR: fabric.json (`json_text`) and fabric.txt (verbose text). False on a write error.
bool write_out(const std::string& dir, const std::string& json_text, const FabricReport& report) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ofstream j(dir + "/fabric.json"), t(dir + "/fabric.txt");
    if (ec || !j || !t) return false;
    j << json_text;
    t << fabric_text(report, true);
    return j.flush() && t.flush();
}

/// The message when the answers outgrew this host's memory: the query being read, and how to
/// ask for less.
std::string out_of_memory(const FabricArgs& a, const fabric::FabricFetch& got) {
    return "out of memory while reading the answer to query " +
           (got.sent.empty() ? std::string("host_info") : got.sent.back().name) + " (" +
           std::to_string(got.points) + " points of earlier queries held" +
           (a.match.empty() ? "" : ", with --match '" + a.match + "'") +
           "): ask for less — the fabric rules' recorded series (load "
           "packaging/prometheus/rocehealth-fabric-rules.yml, then --source auto or recorded "
           "reads per ToR), a selector such as --match '{tor=\"r07\"}', or a shorter "
           "--from/--to range";
}

/// Fetches, analyses and prints for checked options `a` (exit code as run_fabric); `fail`
/// prints an exit-2 error. `got` is filled as the fetch goes, for out_of_memory.
template <typename Fail>
int fetch_analyse_print(const FabricArgs& a, const Fail& fail, fabric::FabricFetch& got) {
    const fabric::FabricPlan plan = fabric::plan_fabric_fetch(a.from_s, a.to_s, a.min_step_s,
                                                              a.max_points, a.limits.page_points);
    FabricAsked asked;
    asked.url = a.url;
    asked.from_s = a.from_s;
    asked.to_s = a.to_s;
    asked.step_s = plan.step_s;
    asked.match = a.match;
    const fabric::PromClient client(a.endpoint, a.limits);
    fabric::FabricSeries series;
    if (auto st = fabric::fetch_fabric_series(client, a.match, a.from_s, a.to_s, asked.step_s,
                                              a.source, a.limits.page_points, series, got);
        !st)
        return fail(fetch_error(st.error(), a, series));
    asked.points = got.points;
    // At a step wider than the lookback, the instants skip data: a rule without input is then
    // "could not judge" for the step, and no points at all is not "no series".
    std::vector<Note> skipped = fabric::skipped_at_step(plan.step_s, a.min_step_s, a.max_points);
    if (asked.points == 0 && skipped.empty()) return fail(no_series(a));

    fabric::FabricResult fr = fabric::analyse_fabric(series);
    // The recorded mesh counts per ToR; the rows of the ToRs it blames make their timeline.
    if (got.mesh_source == "recorded") {
        std::vector<std::string> blamed;
        for (const Finding& f : fr.findings)
            if (f.rule_id == "fabric_tor_probes_failing") blamed.push_back(f.labels.at("tor"));
        if (!blamed.empty()) {
            if (auto st = fabric::fetch_bad_rows(client, blamed, a.from_s, a.to_s, asked.step_s,
                                                 a.limits.page_points, series, got);
                !st)
                return fail(fetch_error(st.error(), a, series));
            fr = fabric::analyse_fabric(series);
        }
    }
    asked.points = got.points;
    asked.requests = got.requests;
    asked.queries = got.sent;
    asked.pause_source = got.pause_source;
    asked.mesh_source = got.mesh_source;
    asked.config_source = got.config_source;
    if (asked.points > 0)
        std::erase_if(skipped, [&](const Note& n) {
            return std::none_of(fr.not_judged.begin(), fr.not_judged.end(),
                                [&](const Note& m) { return m.subject == n.subject; });
        });
    fabric::add_not_judged(fr, skipped);
    fabric::add_not_judged(fr, got.not_judged);
    // Data that ends before --to, or hosts that stopped reporting: not judged since, never
    // healthy. Prometheus' 5 min lookback and a missed scrape are no silence.
    fabric::add_not_judged(
        fr, fabric::coverage_gaps(series, fr, a.to_s, std::max(300.0, 2 * asked.step_s),
                                  got.pause_source != "recorded"));
    // A rule the step outgrows could have missed its fault: not judged, or found with a note
    // (one state per rule); its reason is the more precise one, so it comes last.
    fabric::add_not_judged(fr, plan.not_judged);
    const FabricReport report = fabric_report(fr, asked);
    const std::string json_text =
        nlohmann::json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (!a.out_dir.empty() && !write_out(a.out_dir, json_text, report))
        return fail("cannot write into --out " + a.out_dir);
    std::cout << (a.json ? json_text : fabric_text(report, a.verbose));
    // Healthy only when every analysis saw input (the same rule as check, diagnose, the agent).
    if (fr.findings.empty()) return fr.not_judged.empty() ? kExitOk : kExitCannotRun;
    return kExitFindings;
}

}  // namespace

int run_fabric(const std::vector<std::string>& args) {
    FabricArgs a;
    const auto desc = fabric_options(a);
    po::variables_map vm;
    if (auto exit = parse_options("fabric", kFabricUsage, kFabricAbout, args, desc, vm))
        return *exit;
    auto fail = [&](const std::string& error) {
        std::cerr << "rocehealth fabric: " << error << "\n";
        if (a.json)
            std::cout << nlohmann::json{{"schema", 1}, {"verdict", "error"}, {"error", error}}.dump(
                             2, ' ', false, nlohmann::json::error_handler_t::replace)
                      << "\n";
        return kExitCannotRun;
    };
    const double now_s =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (auto e = check_fabric_args(a, vm, now_s)) return fail(*e);

    fabric::FabricFetch got;
    try {
        return fetch_analyse_print(a, fail, got);
    } catch (const std::bad_alloc&) {
        return fail(out_of_memory(a, got));
    }
}

}  // namespace rh::cli
