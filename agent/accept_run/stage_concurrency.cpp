// Stage `concurrency`: every ring pair (host i -> host i+1) at once, each flow its own
// single-sender run of the incast machinery in its own thread (run_traffic), so every host sends
// one flow and receives one. The flows start together within the runs' set-up spread (~1 s in
// the lab, stated in the stage's reason).
#include <algorithm>
#include <cstdio>
#include <future>

#include "agent/accept_run/stages.h"
#include "agent/accept_run/traffic_run.h"

namespace rh::accept {

Stage run_concurrency_stage(RunContext& cx) {
    Stage st = begin_stage(StageId::concurrency, cx);
    const auto& hosts = cx.spec.hosts;
    const std::size_t n = hosts.size();
    std::vector<std::future<TrafficOutcome>> runs;
    for (std::size_t i = 0; i < n; ++i) {
        const SpecHost& src = hosts[i];
        const SpecHost& dst = hosts[(i + 1) % hosts.size()];
        runs.push_back(std::async(std::launch::async, [&cx, src, dst, i] {
            return run_traffic(cx, dst, {src}, cx.spec.bandwidth, false, "concurrency",
                               "concurrency-" + src.name + "-" + dst.name, SamplesFrom::receiver,
                               i == 0);
        }));
    }
    ConcurrencyResults res;
    res.concurrent_pairs = n;
    res.duration_s = cx.spec.bandwidth.duration_s;
    double sum = 0, sum_sq = 0;
    std::size_t measured = 0;
    std::optional<double> first_start, last_start;
    for (std::size_t i = 0; i < n; ++i) {
        TrafficOutcome t = runs[i].get();
        const SpecHost& src = hosts[i];
        const SpecHost& dst = hosts[(i + 1) % hosts.size()];
        res.flows.push_back(flow_of(cx, t, src, dst, cx.spec.bandwidth.duration_s));
        if (const auto& g = res.flows.back().gbps) {
            sum += *g;
            sum_sq += *g * *g;
            ++measured;
        }
        if (t.traffic) {
            first_start = std::min(first_start.value_or(t.traffic->t_s), t.traffic->t_s);
            last_start = std::max(last_start.value_or(t.traffic->t_s), t.traffic->t_s);
        }
        if (t.ran) attach_traffic(st, t, src.name + " -> " + dst.name);
    }
    if (measured > 0) res.aggregate_gbps = sum;
    if (measured == n && sum_sq > 0) res.jain_index = sum * sum / (static_cast<double>(n) * sum_sq);
    char spread[96] = "";
    if (first_start)
        std::snprintf(spread, sizeof spread, "; the flows started within %.2f s of each other",
                      *last_start - *first_start);
    st.reason = "every ring pair (host i -> host i+1) at once, RDMA WRITE with immediate" +
                std::string(spread) + (st.reason.empty() ? "" : "; " + st.reason);
    st.criteria.push_back(worst_flow_criterion(res.flows, "/results/flows",
                                               cx.spec.criteria.min_bandwidth_fraction,
                                               "goodput as a fraction of link rate, worst flow"));
    st.criteria.push_back(make_criterion(
        "Jain's fairness index of the flows", ">=", cx.spec.criteria.min_jain_index, "",
        res.jain_index ? Scalar(*res.jain_index) : Scalar(), {"/results/jain_index"}));
    add_error_findings_criterion(st, cx);
    finish_stage(st, cx, std::move(res));
    return st;
}

}  // namespace rh::accept
