#include "agent/accept_run/traffic_run.h"

#include <cctype>

#include "agent/incast_analysis.h"
#include "agent/incast_report.h"
#include "probes/incast_coordinator.h"

namespace rh::accept {

namespace {

std::string unit_of(const std::string& series) {
    return series.ends_with("_packets") ? "packets/s" : "events/s";
}

/// doc["activity"] {host: [{utc_ms, <series>_per_s...}]} as one timeline per host and series.
std::vector<CounterTimeline> timelines_of(const nlohmann::json& activity, const RunContext& cx) {
    std::vector<CounterTimeline> out;
    if (!activity.is_object()) return out;
    for (const auto& [host, rows] : activity.items()) {
        std::map<std::string, CounterTimeline> by_series;
        for (const auto& row : rows) {
            const double t = cx.t_of(row.value("utc_ms", std::int64_t{0}));
            for (const auto& [k, v] : row.items()) {
                if (!k.ends_with("_per_s") || !v.is_number()) continue;
                const std::string series = k.substr(0, k.size() - 6);
                auto& tl = by_series[series];
                tl.host = cx.name_of(host);
                tl.series = series;
                tl.unit = unit_of(series);
                tl.points.emplace_back(t, v.get<double>());
            }
        }
        for (auto& [s, tl] : by_series) out.push_back(std::move(tl));
    }
    return out;
}

}  // namespace

TrafficOutcome run_traffic(RunContext& cx, const SpecHost& receiver,
                           const std::vector<SpecHost>& senders, const TrafficSpec& t, bool victim,
                           const std::string& stage, const std::string& label) {
    TrafficOutcome out;
    incast::Options o;
    o.receiver = receiver.address;
    for (const auto& s : senders) o.senders.push_back(s.address);
    o.size_bytes = t.size_bytes;
    o.qps = t.qps;
    o.queue_depth = t.queue_depth;
    o.duration_ms = static_cast<std::uint32_t>(t.duration_s * 1000);
    o.victim = victim;
    o.device = cx.spec.device;
    o.gid_index = cx.spec.gid_index;
    o.pre_ms = o.post_ms = victim ? 2000 : 1000;
    if (auto c = incast::check_options(o); !c) {
        out.error = c.error().detail;
        return out;
    }
    auto run = incast::run_incast(o, [&](const incast::Live& l) {
        cx.progress.update(stage, label, 100.0 * l.elapsed_s / std::max(l.duration_s, 0.1));
    });
    if (!run) {
        out.error = run.error().message();
        return out;
    }
    out.ran = true;
    std::vector<const incast::HostRun*> hosts{&run->receiver};
    for (const auto& h : run->sender_hosts) hosts.push_back(&h);
    for (const auto* h : hosts)
        for (const auto& line : h->samples) cx.samples.push_back(line);
    const auto analysis = cli::analyse_incast(*run, cx.rules, cx.rules_file);
    out.doc = cli::incast_json(*run, analysis);
    std::string file = label;
    for (char& c : file)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
            c = '_';
    const std::string rel = "raw/" + file + ".json";
    if (cx.save(rel, out.doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)))
        out.raw_href = rel;
    if (out.doc["diagnosis"].is_object())
        out.findings = findings_from(out.doc["diagnosis"]["findings"], cx, out.notes);
    out.timelines = timelines_of(out.doc["activity"], cx);
    out.traffic = Mark{cx.t_of(run->start_wall_ms), label, cx.t_of(run->end_wall_ms)};
    return out;
}

}  // namespace rh::accept
