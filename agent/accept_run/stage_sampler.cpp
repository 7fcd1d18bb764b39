#include "agent/accept_run/stage_sampler.h"

#include <chrono>
#include <thread>

#include "agent/accept_run/traffic_run.h"
#include "agent/reports/incast_analysis.h"
#include "core/clock.h"
#include "probes/incast/incast_links.h"
#include "probes/wire/oob_protocol.h"

namespace rh::accept {

StageSampler::StageSampler(RunContext& cx, double max_s) : cx_(cx) {
    opts_.sample_interval_ms = 1000;
    const auto& hosts = cx.spec.hosts;
    run_.receiver.name = hosts[0].address;
    run_.receiver.role = "receiver";
    run_.sender_hosts.resize(hosts.size() - 1);
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        incast::HostRun& h = i == 0 ? run_.receiver : run_.sender_hosts[i - 1];
        if (i > 0) {
            h.name = hosts[i].address;
            h.role = "sender";
        }
        auto hp = tcp::parse_host_port(hosts[i].address, oob::kDefaultPort);
        if (!hp) {
            h.sample_error = hp.error().message();
            continue;
        }
        links_.push_back(std::make_unique<incast::SampleLink>(
            h, *hp, opts_, static_cast<std::uint32_t>(max_s * 1000)));
    }
    // Let the first pass of every host land before the stage begins.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (const auto& l : links_)
        while (!l->hello_done() && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    run_.start_wall_ms = wall_now_ms();
}

StageSampler::~StageSampler() = default;  // each SampleLink stops and joins its thread

namespace {

/// Timelines of the `gauges` series among recording lines, one per labels set.
void add_gauges(const std::vector<nlohmann::json>& lines, const std::string& host,
                const std::vector<std::string>& gauges, const RunContext& cx,
                std::vector<CounterTimeline>& out) {
    for (const auto& g : gauges) {
        std::map<std::string, CounterTimeline> by_labels;
        for (const auto& l : lines) {
            if (l.value("series", "") != g || !l.contains("wall_ms")) continue;
            const auto labels = l.value("labels", nlohmann::json::object());
            auto& tl = by_labels[labels.dump()];
            tl.host = host;
            tl.series = g;
            tl.unit = l.value("unit", "");
            for (const auto& [k, v] : labels.items())
                if (v.is_string()) tl.labels[k] = v.get<std::string>();
            tl.points.emplace_back(cx.t_of(l["wall_ms"].get<std::int64_t>()),
                                   number_at(l, "value"));
        }
        for (auto& [k, tl] : by_labels) out.push_back(std::move(tl));
    }
}

}  // namespace

void StageSampler::finish(Stage& st, const std::vector<std::string>& gauges) {
    run_.end_wall_ms = wall_now_ms();
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // a pass after the end
    for (auto& l : links_) l->request_stop();
    for (auto& l : links_) l->join();
    std::vector<const incast::HostRun*> hosts{&run_.receiver};
    for (const auto& h : run_.sender_hosts) hosts.push_back(&h);
    for (const auto* h : hosts) {
        if (!h->sample_error.empty() || !h->sampled)
            st.reason += (st.reason.empty() ? "" : "; ") + cx_.name_of(h->name) +
                         ": counters not sampled" +
                         (h->sample_error.empty() ? "" : " (" + h->sample_error + ")");
        std::lock_guard lock(cx_.mu);
        for (const auto& line : h->samples) cx_.samples.push_back(line);
    }
    for (const auto* h : hosts)
        add_gauges(h->samples, cx_.name_of(h->name), gauges, cx_, st.counter_timelines);
    const auto a = rh::analyse_incast(run_, cx_.rules, cx_.rules_file);
    st.findings = findings_of(a.diagnosis, cx_);
    for (auto& tl : counter_timelines_of(a.activity, cx_))
        st.counter_timelines.push_back(std::move(tl));
}

}  // namespace rh::accept
