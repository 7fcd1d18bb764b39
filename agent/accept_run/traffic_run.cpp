#include "agent/accept_run/traffic_run.h"

#include <algorithm>
#include <cctype>
#include <mutex>

#include "probes/incast/incast_coordinator.h"

namespace rh::accept {

namespace {

std::string unit_of(const std::string& series) {
    return series.ends_with("_packets") ? "packets/s" : "events/s";
}

}  // namespace

std::vector<CounterTimeline> counter_timelines_of(const IncastActivity& activity,
                                                  const RunContext& cx) {
    std::vector<CounterTimeline> out;
    for (const auto& [host, rows] : activity) {
        std::map<std::string, CounterTimeline> by_series;
        for (const ActivityRow& row : rows) {
            const double t = cx.t_of(row.utc_ms);
            for (const auto& [series, v] : row.per_s) {
                auto& tl = by_series[series];
                tl.host = cx.name_of(host);
                tl.series = series;
                tl.unit = unit_of(series);
                tl.points.emplace_back(t, v);
            }
        }
        for (auto& [s, tl] : by_series) out.push_back(std::move(tl));
    }
    return out;
}

std::vector<Finding> findings_of(const std::optional<DiagnoseReport>& diagnosis,
                                 const RunContext& cx) {
    std::vector<Finding> out;
    if (!diagnosis) return out;
    for (const Finding& f : diagnosis->engine.findings) {
        Finding g = f;
        g.outcome.clear();      // not written (core/finding.h)
        if (g.episodes == 0) {  // an inventory or lifetime finding: no time dimension read back
            g = make_finding(f.rule_id, f.severity, f.host, f.device, f.port);
            g.summary = f.summary;
            g.evidence = f.evidence;
            g.labels = f.labels;
        }
        g.host = cx.name_of(g.host);
        out.push_back(std::move(g));
    }
    return out;
}

TrafficOutcome run_traffic(RunContext& cx, const SpecHost& receiver,
                           const std::vector<SpecHost>& senders, const TrafficSpec& t, bool victim,
                           const std::string& stage, const std::string& label, SamplesFrom from,
                           bool show_progress) {
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
    o.stop = &cx.stop.requested;
    if (auto c = incast::check_options(o); !c) {
        out.error = c.error().detail;
        return out;
    }
    auto run = incast::run_incast(o, [&](const incast::Live& l) {
        if (!show_progress) return;
        std::lock_guard lock(cx.mu);
        cx.progress.update(stage, label, 100.0 * l.elapsed_s / std::max(l.duration_s, 0.1));
    });
    if (!run) {
        out.error = run.error().message();
        return out;
    }
    out.ran = true;
    std::vector<const incast::HostRun*> hosts{&run->receiver};
    if (from == SamplesFrom::all)
        for (const auto& h : run->sender_hosts) hosts.push_back(&h);
    {
        std::lock_guard lock(cx.mu);
        for (const auto* h : hosts)
            for (const auto& line : h->samples) cx.samples.push_back(line);
    }
    const auto analysis = rh::analyse_incast(*run, cx.rules, cx.rules_file);
    out.report = rh::incast_report(*run, analysis);
    std::string file = label;
    for (char& c : file)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
            c = '_';
    const std::string rel = "raw/" + file + ".json";
    if (cx.save(rel, nlohmann::json(*out.report)
                         .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)))
        out.raw_href = rel;
    out.findings = findings_of(out.report->diagnosis, cx);
    out.timelines = counter_timelines_of(out.report->activity, cx);
    if (run->start_wall_ms != 0)  // 0: the traffic never started (no sender ready)
        out.traffic = Mark{cx.t_of(run->start_wall_ms), label, cx.t_of(run->end_wall_ms)};
    return out;
}

void attach_traffic(Stage& st, TrafficOutcome& t, const std::string& what) {
    for (auto& f : t.findings) {
        const bool seen =
            std::any_of(st.findings.begin(), st.findings.end(), [&](const Finding& x) {
                return x.rule_id == f.rule_id && x.host == f.host && x.device == f.device &&
                       x.port == f.port;
            });
        if (!seen) st.findings.push_back(std::move(f));
    }
    for (auto& tl : t.timelines) st.counter_timelines.push_back(std::move(tl));
    if (t.traffic) st.marks.push_back(*t.traffic);
    if (!t.raw_href.empty()) st.evidence_links.push_back({what + " (incast --json)", t.raw_href});
    for (const auto& n : t.notes) st.reason += (st.reason.empty() ? "" : "; ") + n;
}

FlowResult flow_of(const RunContext& cx, const TrafficOutcome& t, const SpecHost& src,
                   const SpecHost& dst, double duration_s) {
    FlowResult f;
    f.src = src.name;
    f.dst = dst.name;
    f.op = "write";
    f.duration_s = duration_s;
    if (!t.ran) {
        f.error = t.error;
        return f;
    }
    const IncastSenderRow s =
        t.report->senders.empty() ? IncastSenderRow{} : t.report->senders.front();
    if (s.status == "completed")
        f.gbps = s.goodput_gbps;
    else
        f.error = s.status + ": " + s.error;
    std::optional<double> link = t.report->receiver.link_rate_gbps;
    if (auto it = cx.link_gbps.find(src.name); it != cx.link_gbps.end())
        link = link ? std::min(*link, it->second) : it->second;
    f.link_gbps = link;
    if (f.gbps && f.link_gbps && *f.link_gbps > 0) f.fraction = *f.gbps / *f.link_gbps;
    return f;
}

Criterion worst_flow_criterion(const std::vector<FlowResult>& flows, const std::string& array_ptr,
                               double min, const std::string& name) {
    std::optional<double> worst;
    std::string ptr = array_ptr;
    for (std::size_t i = 0; i < flows.size(); ++i) {
        if (!flows[i].fraction) {
            return make_criterion(name + " (not every pair measured)", ">=", min, "fraction",
                                  Scalar(), {array_ptr + "/" + std::to_string(i)});
        }
        if (!worst || *flows[i].fraction < *worst) {
            worst = flows[i].fraction;
            ptr = array_ptr + "/" + std::to_string(i);
        }
    }
    return make_criterion(name, ">=", min, "fraction", worst ? Scalar(*worst) : Scalar(), {ptr});
}

}  // namespace rh::accept
