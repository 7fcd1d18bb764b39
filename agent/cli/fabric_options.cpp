#include "agent/cli/fabric_options.h"

#include "agent/fabric/fabric_queries.h"
#include "agent/fabric/time_arg.h"

namespace rh::cli {

const char* const kFabricUsage =
    "rocehealth fabric --prometheus URL [--from T] [--to T] [--match SELECTOR] [--json] "
    "[--out DIR] [--header 'NAME: VALUE']... [--source auto|raw|recorded]";
const char* const kFabricAbout =
    "The fabric's timeline from Prometheus: the origin of a PFC pause storm and its "
    "victims,\nthe ToR failing mesh pairs share, hosts configured unlike the fabric.\n"
    "Exit: 0 healthy, 1 findings, 2 could not run or could not judge.\n"
    "--prometheus takes the base of any Prometheus query API:\n"
    "  Prometheus               http://prom:9090\n"
    "  Mimir                    http://mimir/prometheus  (tenant: --header 'X-Scope-OrgID: t1')\n"
    "  Thanos Query             http://thanos-query:10902\n"
    "  VictoriaMetrics          http://vm:8428\n"
    "  VictoriaMetrics cluster  http://vmselect:8481/select/0/prometheus  (0: the tenant)\n"
    "With packaging/prometheus/rocehealth-fabric-rules.yml loaded (Prometheus or vmalert),\n"
    "each analysis reads the rules' recorded per-ToR series: a fleet's hour in seconds.";

po::options_description fabric_options(FabricArgs& a) {
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "prometheus", po::value(&a.url),
        "Prometheus HTTP API base, e.g. http://prom:9090 (other engines: above)")(
        "header", po::value(&a.headers),
        "'NAME: VALUE' sent with every request, repeatable, e.g. 'X-Scope-OrgID: tenant1' "
        "(Mimir's tenant)")(
        "from", po::value(&a.from_text),
        "start: RFC 3339, unix seconds, now, or relative such as -1h (default -1h)")(
        "to", po::value(&a.to_text), "end, the same forms (default now)")(
        "match", po::value(&a.match),
        "only hosts whose rocehealth_host_info matches this selector, e.g. '{tor=\"r07\"}' or "
        "'{fabric=\"a\"}'")(
        "source", po::value(&a.source_text),
        "auto (default): each analysis reads the fabric rules' recorded series where the range "
        "has them, else the agents' raw series; raw: the agents' series only; recorded: the "
        "recorded series only (an analysis without them is not judged). --match reads raw")(
        "json", "print the result as JSON")(
        "out", po::value(&a.out_dir), "also write fabric.json and fabric.txt into this directory")(
        "min-step", po::value(&a.min_step_s), "smallest query step in seconds (default 15)")(
        "max-points", po::value(&a.max_points),
        "most points per series over the whole range (default 50000: 30 days at a 52 s step); "
        "a longer range steps wider, and rules whose windows the step outgrows are reported "
        "as not judged (exit 2 when nothing is found)")(
        "timeout", po::value(&a.timeout_s),
        "deadline of each request, whole (connect, headers, body), seconds (default 30)")(
        "max-answer-bytes", po::value(&a.limits.max_answer_bytes),
        "largest answer of one request, bytes (default 268435456)")(
        "max-series", po::value(&a.limits.max_series), "most series of one query (default 50000)")(
        "page-points", po::value(&a.limits.page_points),
        "points per series per request: longer ranges are fetched in pages (default 250)")(
        "verbose,v", "also list notes");
    return desc;
}

std::optional<std::string> check_fabric_args(FabricArgs& a, const po::variables_map& vm,
                                             double now_s) {
    a.json = vm.count("json") > 0;
    a.verbose = vm.count("verbose") > 0;
    if (a.url.empty()) return "--prometheus URL is required (e.g. http://prom:9090)";
    const auto endpoint = fabric::parse_prometheus_url(a.url);
    if (!endpoint) return endpoint.error().message();
    a.endpoint = *endpoint;
    if (a.headers.size() > fabric::kMaxExtraHeaders)
        return "--header: at most " + std::to_string(fabric::kMaxExtraHeaders) + " headers";
    for (const std::string& text : a.headers) {
        auto h = fabric::parse_http_header(text);
        if (!h) return "--header '" + text + "': " + h.error().detail;
        a.endpoint.headers.push_back(std::move(*h));
        if (const std::string why =
                fabric::check_http_header_at(a.endpoint.headers, a.endpoint.headers.size() - 1);
            !why.empty())
            return "--header '" + text + "': " + why;
    }
    if (auto e = fabric::parse_time_arg("--from", a.from_text, now_s, a.from_s)) return e;
    if (auto e = fabric::parse_time_arg("--to", a.to_text, now_s, a.to_s)) return e;
    if (a.from_s >= a.to_s)
        return "--from " + fabric::rfc3339(a.from_s) + " is not before --to " +
               fabric::rfc3339(a.to_s);
    if (!a.match.empty() && (a.match.front() != '{' || a.match.back() != '}'))
        return "--match: expected a selector in braces, e.g. '{tor=\"r07\"}'";
    const auto source = fabric::parse_fabric_source(a.source_text);
    if (!source) return "--source: expected auto, raw or recorded, not '" + a.source_text + "'";
    a.source = *source;
    if (a.source == fabric::FabricSource::recorded && !a.match.empty())
        return "--source recorded reads the fabric-wide per-ToR series the rules record, which "
               "--match cannot narrow: use --source raw (or auto) with --match";
    if (!(a.min_step_s >= 1 && a.min_step_s <= 86400))
        return "--min-step: expected 1 to 86400 seconds";
    if (a.max_points < 2 || a.max_points > 10000000) return "--max-points: expected 2 to 10000000";
    if (!(a.timeout_s >= 1 && a.timeout_s <= 3600)) return "--timeout: expected 1 to 3600 s";
    if (a.limits.page_points < 2 || a.limits.page_points > 11000)
        return "--page-points: expected 2 to 11000";
    if (a.limits.max_answer_bytes == 0 || a.limits.max_series == 0)
        return "--max-answer-bytes and --max-series must be positive";
    a.limits.timeout_s = a.timeout_s;
    return std::nullopt;
}

}  // namespace rh::cli
