// Stages `bandwidth` (ring of single-sender runs) and `incast` (N -> 1), both through
// run_traffic (traffic_run.h).
#include <algorithm>

#include "agent/accept_run/stages.h"
#include "agent/accept_run/traffic_run.h"

namespace rh::accept {

namespace {

std::optional<double> num(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
    return j[key].get<double>();
}

/// Adds a run's findings, timelines, marks and raw link to the stage.
void attach(Stage& st, TrafficOutcome& t, const std::string& what) {
    for (auto& f : t.findings) st.findings.push_back(std::move(f));
    for (auto& tl : t.timelines) st.counter_timelines.push_back(std::move(tl));
    if (t.traffic) st.marks.push_back(*t.traffic);
    if (!t.raw_href.empty()) st.evidence_links.push_back({what + " (incast --json)", t.raw_href});
    for (const auto& n : t.notes) st.reason += (st.reason.empty() ? "" : "; ") + n;
}

void findings_criterion(Stage& st, const RunContext& cx) {
    std::vector<std::string> ptr;
    for (std::size_t i = 0; i < st.findings.size(); ++i)
        if (st.findings[i].severity == Severity::error)
            ptr.push_back("/findings/" + std::to_string(i));
    st.criteria.push_back(make_criterion("findings of severity error", "<=",
                                         static_cast<double>(cx.spec.criteria.max_error_findings),
                                         "count", static_cast<double>(error_findings(st.findings)),
                                         ptr.empty() ? std::vector<std::string>{"/results"} : ptr));
}

}  // namespace

Stage run_bandwidth_stage(RunContext& cx) {
    Stage st;
    st.id = StageId::bandwidth;
    st.start_s = cx.now_s();
    const auto& hosts = cx.spec.hosts;
    BandwidthResults res;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        const SpecHost& src = hosts[i];
        const SpecHost& dst = hosts[(i + 1) % hosts.size()];
        auto t = run_traffic(cx, dst, {src}, cx.spec.bandwidth, false, "bandwidth",
                             "bandwidth-" + src.name + "-" + dst.name);
        FlowResult f;
        f.src = src.name;
        f.dst = dst.name;
        f.op = "write";
        f.duration_s = cx.spec.bandwidth.duration_s;
        if (!t.ran) {
            f.error = t.error;
        } else {
            const auto& s = t.doc["senders"].empty() ? nlohmann::json() : t.doc["senders"][0];
            if (s.value("status", "") == "completed")
                f.gbps = num(s, "goodput_gbps");
            else
                f.error = s.value("status", "") + ": " + s.value("error", "");
            std::optional<double> link = num(t.doc["aggregate"], "link_rate_gbps");
            if (auto it = cx.link_gbps.find(src.name); it != cx.link_gbps.end())
                link = link ? std::min(*link, it->second) : it->second;
            f.link_gbps = link;
            if (f.gbps && f.link_gbps && *f.link_gbps > 0) f.fraction = *f.gbps / *f.link_gbps;
            attach(st, t, src.name + " -> " + dst.name);
        }
        res.pairs.push_back(std::move(f));
    }
    st.reason = "pairs in a ring (host i -> host i+1), one at a time, RDMA WRITE with immediate" +
                (st.reason.empty() ? "" : "; " + st.reason);
    std::optional<double> worst;
    std::string ptr = "/results";
    bool missing = false;
    for (std::size_t i = 0; i < res.pairs.size(); ++i) {
        const auto& f = res.pairs[i];
        if (!f.fraction) {
            missing = true;
            ptr = "/results/pairs/" + std::to_string(i);
            continue;
        }
        if (!missing && (!worst || *f.fraction < *worst)) {
            worst = f.fraction;
            ptr = "/results/pairs/" + std::to_string(i);
        }
    }
    st.criteria.push_back(
        make_criterion(std::string("bandwidth as a fraction of link rate, worst pair") +
                           (missing ? " (not every pair measured)" : ""),
                       ">=", cx.spec.criteria.min_bandwidth_fraction, "fraction",
                       missing || !worst ? Scalar() : Scalar(*worst), {ptr}));
    findings_criterion(st, cx);
    st.results = std::move(res);
    st.end_s = cx.now_s();
    settle(st);
    return st;
}

Stage run_incast_stage(RunContext& cx) {
    Stage st;
    st.id = StageId::incast;
    st.start_s = cx.now_s();
    const auto& hosts = cx.spec.hosts;
    const std::string rname =
        cx.spec.incast.receiver.empty() ? hosts[0].name : cx.spec.incast.receiver;
    const auto rit =
        std::find_if(hosts.begin(), hosts.end(), [&](const auto& h) { return h.name == rname; });
    std::vector<SpecHost> senders;
    for (const auto& h : hosts)
        if (h.name != rname) senders.push_back(h);
    if (cx.spec.incast.senders != 0 && senders.size() > cx.spec.incast.senders)
        senders.resize(cx.spec.incast.senders);
    auto t = run_traffic(cx, *rit, senders, cx.spec.incast.traffic, true, "incast",
                         "incast-" + std::to_string(senders.size()) + "-to-" + rname);
    if (!t.ran) {
        st.verdict = StageVerdict::error;
        st.reason = "the incast could not run: " + t.error;
        st.end_s = cx.now_s();
        return st;
    }
    const auto& d = t.doc;
    IncastResults res;
    res.receiver = rname;
    res.message_size_bytes = cx.spec.incast.traffic.size_bytes;
    res.duration_s = cx.spec.incast.traffic.duration_s;
    double not_completed = 0;
    std::vector<std::string> nc_ptr;
    for (const auto& s : d["senders"]) {
        IncastSender x;
        x.host = cx.name_of(s.value("name", ""));
        x.goodput_gbps = num(s, "goodput_gbps");
        x.goodput_mib_s = num(s, "goodput_mib_per_s");
        for (const auto& [k, v] : s["errors"].items())
            x.errors_by_status[k] = v.get<std::uint64_t>();
        if (s.value("status", "") != "completed") {
            ++not_completed;
            nc_ptr.push_back("/results/senders/" + std::to_string(res.senders.size()));
        }
        res.senders.push_back(std::move(x));
    }
    res.aggregate_goodput_gbps = num(d["aggregate"], "goodput_gbps");
    res.aggregate_goodput_mib_s = num(d["aggregate"], "goodput_mib_per_s");
    res.link_gbps = num(d["aggregate"], "link_rate_gbps");
    res.fraction = num(d["aggregate"], "share_of_link");
    res.jain_index = num(d["fairness"], "jain_index");
    const auto& v = d["victim"];
    if (v.value("ran", false)) {
        IncastResults::Victim vi;
        vi.src = cx.self_name();
        vi.dst = rname;
        vi.op = "write";
        vi.size_bytes = 64;
        vi.before = {num(v["before"], "p50_us"), num(v["before"], "p99_us"),
                     num(v["before"], "p999_us")};
        vi.during = {num(v["during"], "p50_us"), num(v["during"], "p99_us"),
                     num(v["during"], "p999_us")};
        res.victim = vi;
    }
    std::uint64_t bad = d["integrity"].value("bad_slots", std::uint64_t{0});
    attach(st, t, "incast " + std::to_string(senders.size()) + " -> 1");
    if (!v.value("verdict", std::string()).empty())
        st.reason = v["verdict"].get<std::string>() + (st.reason.empty() ? "" : "; " + st.reason);
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
    st.criteria.push_back(make_criterion("slots that failed the checksum at the receiver", "<=",
                                         static_cast<double>(cx.spec.criteria.max_checksum_errors),
                                         "count", static_cast<double>(bad), {"/results"}));
    findings_criterion(st, cx);
    st.results = std::move(res);
    st.end_s = cx.now_s();
    settle(st);
    return st;
}

}  // namespace rh::accept
