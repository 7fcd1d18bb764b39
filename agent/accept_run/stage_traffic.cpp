// Stages `bandwidth` (ring of single-sender runs) and `incast` (N -> 1), both through
// run_traffic (traffic_run.h).
#include <algorithm>

#include "agent/accept_run/stages.h"
#include "agent/accept_run/traffic_run.h"

namespace rh::accept {

Stage run_bandwidth_stage(RunContext& cx) {
    Stage st = begin_stage(StageId::bandwidth, cx);
    const auto& hosts = cx.spec.hosts;
    BandwidthResults res;
    for (std::size_t i = 0; i < hosts.size() && !cx.stopping(); ++i) {
        const SpecHost& src = hosts[i];
        const SpecHost& dst = hosts[(i + 1) % hosts.size()];
        auto t = run_traffic(cx, dst, {src}, cx.spec.bandwidth, false, "bandwidth",
                             "bandwidth-" + src.name + "-" + dst.name);
        FlowResult f = flow_of(cx, t, src, dst, cx.spec.bandwidth.duration_s);
        if (t.ran) attach_traffic(st, t, src.name + " -> " + dst.name);
        res.pairs.push_back(std::move(f));
    }
    st.reason = "pairs in a ring (host i -> host i+1), one at a time, RDMA WRITE with immediate" +
                (st.reason.empty() ? "" : "; " + st.reason);
    st.criteria.push_back(worst_flow_criterion(res.pairs, "/results/pairs",
                                               cx.spec.criteria.min_bandwidth_fraction,
                                               "bandwidth as a fraction of link rate, worst pair"));
    add_error_findings_criterion(st, cx);
    finish_stage(st, cx, std::move(res));
    return st;
}

namespace {

/// Every host but the receiver `rname`, in the spec's order, at most the spec's `senders`.
std::vector<SpecHost> incast_senders(const RunContext& cx, const std::string& rname) {
    std::vector<SpecHost> senders;
    for (const auto& h : cx.spec.hosts)
        if (h.name != rname) senders.push_back(h);
    if (cx.spec.incast.senders != 0 && senders.size() > cx.spec.incast.senders)
        senders.resize(cx.spec.incast.senders);
    return senders;
}

/// The victim probe's 64 B WRITE latency from this host to the receiver, before and during.
IncastResults::Victim victim_of(const RunContext& cx, const IncastVictim& v,
                                const std::string& rname) {
    IncastResults::Victim vi;
    vi.src = cx.self_name();
    vi.dst = rname;
    vi.op = "write";
    vi.size_bytes = 64;
    const auto figures = [](const LatencyStats& s) {
        return Percentiles{latency_figure(s, &LatencyStats::p50_us),
                           latency_figure(s, &LatencyStats::p99_us),
                           latency_figure(s, &LatencyStats::p999_us)};
    };
    vi.before = figures(v.before);
    vi.during = figures(v.during);
    return vi;
}

/// The report's results from the incast's: senders, aggregate, fairness, victim, integrity.
IncastResults incast_results(const RunContext& cx, const IncastReport& d,
                             const std::string& rname) {
    IncastResults res;
    res.receiver = rname;
    res.message_size_bytes = cx.spec.incast.traffic.size_bytes;
    res.duration_s = cx.spec.incast.traffic.duration_s;
    for (const IncastSenderRow& s : d.senders) {
        IncastSender x;
        x.host = cx.name_of(s.name);
        x.goodput_gbps = s.goodput_gbps;
        x.goodput_mib_s = s.goodput_mib_per_s;
        x.errors_by_status = s.errors;
        res.senders.push_back(std::move(x));
    }
    res.aggregate_goodput_gbps = d.figures.aggregate_gbps;
    res.aggregate_goodput_mib_s = d.figures.aggregate_mib_per_s;
    res.link_gbps = d.receiver.link_rate_gbps;
    res.fraction = d.figures.share_of_link;
    res.jain_index = d.figures.jain;
    if (d.victim.ran) res.victim = victim_of(cx, d.victim, rname);
    res.bad_slots = d.integrity.bad_slots;
    res.verified_messages = d.integrity.verified_messages;
    res.verified_bytes = d.integrity.verified_bytes;
    res.verified_fraction = d.integrity.verified_fraction();
    return res;
}

/// Senders that did not complete, aggregate goodput, fairness and checksum failures.
void add_incast_criteria(Stage& st, const RunContext& cx, const IncastReport& d,
                         const IncastResults& res) {
    double not_completed = 0;
    std::vector<std::string> nc_ptr;
    for (std::size_t i = 0; i < d.senders.size(); ++i)
        if (d.senders[i].status != "completed") {
            ++not_completed;
            nc_ptr.push_back("/results/senders/" + std::to_string(i));
        }
    st.criteria.push_back(
        make_criterion("senders that did not complete", "==", 0.0, "hosts", not_completed,
                       nc_ptr.empty() ? std::vector<std::string>{"/results/senders"} : nc_ptr));
    st.criteria.push_back(
        make_criterion("aggregate goodput as a fraction of the receiver's link rate",
                       ">=", cx.spec.criteria.min_incast_fraction, "fraction",
                       res.fraction ? Scalar(*res.fraction) : Scalar(), {"/results/aggregate"}));
    st.criteria.push_back(make_criterion(
        "Jain's fairness index of the senders' goodput", ">=", cx.spec.criteria.min_jain_index, "",
        res.jain_index ? Scalar(*res.jain_index) : Scalar(), {"/results/jain_index"}));
    st.criteria.push_back(
        make_criterion("slots that failed the checksum at the receiver",
                       "<=", static_cast<double>(cx.spec.criteria.max_checksum_errors), "count",
                       static_cast<double>(d.integrity.bad_slots), {"/results"}));
}

}  // namespace

Stage run_incast_stage(RunContext& cx) {
    Stage st = begin_stage(StageId::incast, cx);
    const auto& hosts = cx.spec.hosts;
    const std::string rname =
        cx.spec.incast.receiver.empty() ? hosts[0].name : cx.spec.incast.receiver;
    const auto rit =
        std::find_if(hosts.begin(), hosts.end(), [&](const auto& h) { return h.name == rname; });
    const std::vector<SpecHost> senders = incast_senders(cx, rname);
    auto t = run_traffic(cx, *rit, senders, cx.spec.incast.traffic, true, "incast",
                         "incast-" + std::to_string(senders.size()) + "-to-" + rname);
    if (!t.ran) {
        st.verdict = StageVerdict::error;
        st.reason = "the incast could not run: " + t.error;
        st.end_s = cx.now_s();
        return st;
    }
    const IncastReport& d = *t.report;
    IncastResults res = incast_results(cx, d, rname);
    attach_traffic(st, t, "incast " + std::to_string(senders.size()) + " -> 1");
    if (const std::string& why = d.victim.verdict; !why.empty())
        st.reason = why + (st.reason.empty() ? "" : "; " + st.reason);
    add_incast_criteria(st, cx, d, res);
    add_error_findings_criterion(st, cx);
    finish_stage(st, cx, std::move(res));
    return st;
}

}  // namespace rh::accept
