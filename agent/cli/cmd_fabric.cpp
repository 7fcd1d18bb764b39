// rocehealth fabric: the fleet view (issue 15 §4). Pulls the agents' series from Prometheus'
// HTTP API over a time range (agent/fabric/fabric_queries.h), finds where a PFC pause storm
// started and whom it reached, the ToR that failing mesh pairs share, and the hosts configured
// unlike the fabric (agent/fabric/fabric_analysis.h), and prints them as `diagnose` does: the
// same findings, timeline, text and JSON (agent/reports/diagnose_report.h), plus a "fabric" object
// {prometheus, from, to, step_s, match, queries}.
// Exit: 0 healthy, 1 findings, 2 could not run (bad option, unreachable Prometheus, a
// Prometheus error, no data in the range, an answer over the bounds). With --json every exit 2
// also prints {"schema": 1, "verdict": "error", "error": "..."} on stdout.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/fabric/fabric_queries.h"
#include "agent/fabric/time_arg.h"
#include "agent/reports/diagnose_report.h"

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

/// diagnose's text rendering of `doc`, its verdict line naming this command.
std::string fabric_text(const nlohmann::json& doc, bool verbose) {
    std::ostringstream out;
    render_diagnose_text(out, doc, verbose);
    std::string text = out.str();
    const std::string from = "rocehealth diagnose: ", to = "rocehealth fabric: ";
    if (text.rfind(from, 0) == 0) text.replace(0, from.size(), to);
    return text;
}

}  // namespace

int run_fabric(const std::vector<std::string>& args) {
    po::options_description desc("options");
    std::string url, from_text = "-1h", to_text = "now", match, out_dir;
    double min_step_s = 15, timeout_s = 30;
    fabric::PromLimits limits;
    desc.add_options()("help,h", "show this help")(
        "prometheus", po::value(&url), "Prometheus HTTP API base, e.g. http://prom:9090")(
        "from", po::value(&from_text),
        "start: RFC 3339, unix seconds, now, or relative such as -1h (default -1h)")(
        "to", po::value(&to_text), "end, the same forms (default now)")(
        "match", po::value(&match),
        "only hosts whose rocehealth_host_info matches this selector, e.g. '{tor=\"r07\"}' or "
        "'{fabric=\"a\"}'")("json", "print the result as JSON")(
        "out", po::value(&out_dir), "also write fabric.json and fabric.txt into this directory")(
        "min-step", po::value(&min_step_s),
        "smallest query step in seconds (default 15; wider ranges step so that a series has at "
        "most 11,000 points)")("timeout", po::value(&timeout_s),
                               "connect and read timeout per request, seconds (default 30)")(
        "max-answer-bytes", po::value(&limits.max_answer_bytes),
        "largest answer of one request, bytes (default 268435456)")(
        "max-series", po::value(&limits.max_series), "most series of one query (default 50000)")(
        "page-points", po::value(&limits.page_points),
        "points per series per request: longer ranges are fetched in pages (default 250)")(
        "verbose,v", "also list notes");
    po::variables_map vm;
    if (auto exit = parse_options(
            "fabric",
            "rocehealth fabric --prometheus URL [--from T] [--to T] [--match SELECTOR] [--json] "
            "[--out DIR]",
            "The fabric's timeline from Prometheus: the origin of a PFC pause storm and its "
            "victims,\nthe ToR failing mesh pairs share, hosts configured unlike the fabric.\n"
            "Exit: 0 healthy, 1 findings, 2 could not run.",
            args, desc, vm))
        return *exit;
    const bool json = vm.count("json") > 0;
    auto fail = [&](const std::string& error) {
        std::cerr << "rocehealth fabric: " << error << "\n";
        if (json)
            std::cout << nlohmann::json{{"schema", 1}, {"verdict", "error"}, {"error", error}}.dump(
                             2, ' ', false, nlohmann::json::error_handler_t::replace)
                      << "\n";
        return kExitCannotRun;
    };
    if (url.empty()) return fail("--prometheus URL is required (e.g. http://prom:9090)");
    const auto endpoint = fabric::parse_prometheus_url(url);
    if (!endpoint) return fail(endpoint.error().message());
    const double now_s =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    double from_s = 0, to_s = 0;
    if (auto e = fabric::parse_time_arg("--from", from_text, now_s, from_s)) return fail(*e);
    if (auto e = fabric::parse_time_arg("--to", to_text, now_s, to_s)) return fail(*e);
    if (from_s >= to_s)
        return fail("--from " + fabric::rfc3339(from_s) + " is not before --to " +
                    fabric::rfc3339(to_s));
    if (!match.empty() && (match.front() != '{' || match.back() != '}'))
        return fail("--match: expected a selector in braces, e.g. '{tor=\"r07\"}'");
    if (!(min_step_s >= 1 && min_step_s <= 86400))
        return fail("--min-step: expected 1 to 86400 seconds");
    if (!(timeout_s >= 1 && timeout_s <= 3600)) return fail("--timeout: expected 1 to 3600 s");
    if (limits.page_points < 2 || limits.page_points > 11000)
        return fail("--page-points: expected 2 to 11000");
    if (limits.max_answer_bytes == 0 || limits.max_series == 0)
        return fail("--max-answer-bytes and --max-series must be positive");
    limits.timeout_s = timeout_s;

    const double step_s = fabric::fabric_step_s(from_s, to_s, min_step_s);
    const fabric::PromClient client(*endpoint, limits);
    fabric::FabricSeries series;
    std::size_t points = 0;
    const std::string selector = match.empty() ? "{} (every host)" : match;
    if (auto st = fabric::fetch_fabric_series(client, match, from_s, to_s, step_s, series, points);
        !st) {
        const Error& e = st.error();
        if (e.cause == fabric::kCauseUnreachable)
            return fail("cannot reach Prometheus at " + url + ": " + e.detail);
        if (e.cause == fabric::kCauseTooManySeries || e.cause == fabric::kCauseTooManyBytes)
            return fail("the answer to query " + e.op + " is too large (" + e.detail +
                        (match.empty() ? "" : ", with --match '" + match + "'") +
                        "): narrow the hosts with a selector, e.g. " + narrow_hint(series) +
                        ", or a shorter --from/--to range");
        if (e.cause == fabric::kCausePrometheusError)
            return fail("query " + e.op + " failed at " + url + ": " + e.detail);
        return fail("query " + e.op + " at " + url + ": " + e.detail);
    }
    if (points == 0)
        return fail("no rocehealth series between " + fabric::rfc3339(from_s) + " and " +
                    fabric::rfc3339(to_s) + " for " + selector + " at " + url);

    const fabric::FabricResult fr = fabric::analyse_fabric(series);
    EngineResult er;
    er.findings = fr.findings;
    er.notes = fr.notes;
    er.hosts = fr.hosts;
    er.t_first = from_s;
    er.t_last = to_s;
    er.wall_clock = true;
    InputReport in;
    in.name = url;
    in.samples = points;
    in.hosts = fr.hosts;
    auto doc = diagnose_json(er, "built in: the logic of rocehealth-fabric-rules.yml", {in});
    nlohmann::json queries = nlohmann::json::array();
    for (const auto& q : fabric::fabric_queries(match, step_s))
        queries.push_back({{"name", q.name}, {"promql", q.promql}});
    doc["fabric"] = {{"prometheus", url},
                     {"from", fabric::rfc3339(from_s)},
                     {"to", fabric::rfc3339(to_s)},
                     {"step_s", step_s},
                     {"match", match},
                     {"queries", queries}};
    const std::string json_text =
        doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (!out_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(out_dir, ec);
        std::ofstream j(out_dir + "/fabric.json"), t(out_dir + "/fabric.txt");
        if (ec || !j || !t) return fail("cannot write into --out " + out_dir);
        j << json_text;
        t << fabric_text(doc, true);
        if (!j.flush() || !t.flush()) return fail("cannot write into --out " + out_dir);
    }
    if (json)
        std::cout << json_text;
    else
        std::cout << fabric_text(doc, vm.count("verbose") > 0);
    return fr.findings.empty() ? kExitOk : kExitFindings;
}

}  // namespace rh::cli
