// Stage `fault`: the spec's fault host takes its own RDMA link down and up through its
// responder's "fault" command (probes/responder/control_fault.h), which measures link and traffic
// recovery on that host's clock; meanwhile every host's counters are sampled, so the rules must see
// the flap (link_flap on the fault host) and the counter timelines show it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <future>
#include <iostream>

#include "agent/accept_run/control_client.h"
#include "agent/accept_run/stage_sampler.h"
#include "agent/accept_run/stages.h"
#include "probes/wire/control_replies.h"

namespace rh::accept {

namespace {

const SpecHost* host_named(const Spec& spec, const std::string& name) {
    for (const auto& h : spec.hosts)
        if (h.name == name) return &h;
    return nullptr;
}

/// The fault's own findings: link findings on the fault host (the flap was the point).
bool caused_by_fault(const Finding& f, const std::string& host) {
    return f.host == host && (f.rule_id == "link_flap" || f.rule_id == "port_not_active");
}

/// Local time `s` seconds from now, "HH:MM:SS": when a fault the run stopped waiting for ends.
std::string clock_in(double s) {
    const auto t = std::chrono::system_clock::to_time_t(
        std::chrono::system_clock::now() +
        std::chrono::milliseconds(static_cast<long long>(s * 1000)));
    char when[16] = "?";
    std::tm tm{};
    if (::localtime_r(&t, &tm)) std::strftime(when, sizeof when, "%H:%M:%S", &tm);
    return when;
}

Scalar seconds(std::optional<double> v) {
    return v ? Scalar(*v) : Scalar();
}

/// Sends the "fault" command to `host` and waits for its reply within `budget_s`, updating the
/// progress line meanwhile. A stop (run_stop.h) ends the wait, not the fault: the host restores
/// its link on its own.
Result<wire::FaultReply> call_fault(RunContext& cx, const SpecHost& host, const SpecHost& peer,
                                    double budget_s, double t_req) {
    const FaultSpec& f = cx.spec.fault;
    auto pending = std::async(std::launch::async, [&] {
        return control_call(
            host.address,
            {{"cmd", "fault"},
             {"peer", peer.address},
             {"down_ms", static_cast<unsigned>(f.down_s * 1000)},
             {"recovery_timeout_ms", static_cast<unsigned>(f.recovery_timeout_s * 1000)}},
            "fault_reply", static_cast<int>(budget_s * 1000), wire::parse_fault_reply,
            &cx.stop.requested);
    });
    while (pending.wait_for(std::chrono::milliseconds(500)) != std::future_status::ready) {
        const double t = cx.now_s() - t_req;
        cx.progress.update("fault", host.name + (t < f.down_s + 1 ? " link down" : " recovering"),
                           std::min(99.0, 100.0 * t / (f.down_s + 2)),
                           ", " + std::to_string(static_cast<int>(t)) + " s");
    }
    return pending.get();
}

/// Ends the stage in error for a fault call that returned no reply: stopped by the user, refused,
/// or lost (then the link may still be down).
void end_without_reply(Stage& st, RunContext& cx, FaultResults res, const std::string& host,
                       const Error& err, const std::string& link_back_at) {
    if (cx.stopping()) {
        const std::string note = host + " runs the fault on its own: its RDMA netdev stays " +
                                 "down until about " + link_back_at + ", then comes back up";
        std::cerr << "rocehealth accept: stopped during the fault: " << note << "\n";
        end_stage_in_error(st, cx, std::move(res), "stopped waiting for the fault: " + note);
        return;
    }
    // A refusal changed nothing; a lost connection may have left the link down (the
    // responder and its guard process both gone): say where to look.
    const bool refused = err.detail.rfind("refused: ", 0) == 0;
    end_stage_in_error(st, cx, std::move(res),
                       "could not run: " + host + ": " + err.message() +
                           (refused ? ""
                                    : "; if the fault had begun, check that " + host +
                                          "'s RDMA netdev is up (ip link show)"));
}

/// The reply's measurements, its times moved from the request's start `t_req` to the run's clock.
void take_reply(FaultResults& res, const wire::FaultReply& j, double t_req) {
    res.device = j.device;
    res.netdev = j.netdev;
    res.link_down_s = t_req + j.down_at_s;
    res.link_up_s = t_req + j.up_at_s;
    res.link_recovery_s = j.link_recovery_s;
    res.traffic_recovery_s = j.traffic_recovery_s;
    res.traffic_attempts = static_cast<double>(j.traffic_attempts);
    res.baseline_p50_us = j.baseline_p50_us;
    res.recovered_p50_us = j.recovered_p50_us;
    res.restored = j.restored;
    res.setup_changes = j.setup_changes;
}

/// Chart marks: the link-down band, port ACTIVE and traffic back.
void add_fault_marks(Stage& st, const FaultResults& res, double down_s) {
    if (res.link_down_s && res.link_up_s)
        st.marks.push_back({*res.link_down_s, "link down", *res.link_up_s});
    if (!res.link_up_s || !res.link_recovery_s) return;
    // One mark when traffic came back within a tenth of the down time: two labels that
    // close overlap on the chart.
    const bool apart =
        res.traffic_recovery_s && *res.traffic_recovery_s - *res.link_recovery_s > 0.1 * down_s;
    st.marks.push_back(
        {*res.link_up_s + *res.link_recovery_s,
         res.traffic_recovery_s && !apart ? "port ACTIVE, traffic back" : "port ACTIVE",
         std::nullopt});
    if (apart)
        st.marks.push_back(
            {*res.link_up_s + *res.traffic_recovery_s, "traffic back", std::nullopt});
}

/// The spec's criteria: both recovery times, the rules saw the flap, the setup was restored.
void add_fault_criteria(Stage& st, const RunContext& cx, const FaultResults& res,
                        const std::string& host) {
    const auto& c = cx.spec.criteria;
    st.criteria.push_back(
        make_criterion("link recovery time (link up to port ACTIVE)", "<=", c.max_link_recovery_s,
                       "s", seconds(res.link_recovery_s), {"/results/link_recovery_s"}));
    st.criteria.push_back(make_criterion(
        "traffic recovery time (link up to RDMA WRITEs completing on a new connection)",
        "<=", c.max_traffic_recovery_s, "s", seconds(res.traffic_recovery_s),
        {"/results/traffic_recovery_s"}));
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < st.findings.size(); ++i)
        if (st.findings[i].rule_id == "link_flap" && st.findings[i].host == host)
            seen.push_back("/findings/" + std::to_string(i));
    st.criteria.push_back(
        make_criterion("link_flap findings on " + host + " (the rules must see the fault)",
                       ">=", 1.0, "count", static_cast<double>(seen.size()),
                       seen.empty() ? std::vector<std::string>{"/results"} : seen));
    st.criteria.push_back(make_criterion(
        "network setup left changed on " + host + " (routes, addresses, GIDs)", "==", 0.0, "count",
        static_cast<double>(res.setup_changes.size()), {"/results/setup_changes"}));
}

}  // namespace

Stage run_fault_stage(RunContext& cx) {
    Stage st = begin_stage(StageId::fault, cx);
    const FaultSpec& f = cx.spec.fault;
    const SpecHost* host = host_named(cx.spec, cx.spec.fault_host());
    const SpecHost* peer = host_named(cx.spec, cx.spec.fault_peer());
    FaultResults res;
    res.host = host->name;
    res.traffic_src = host->name;
    res.traffic_dst = peer->name;
    char what[160];
    std::snprintf(what, sizeof what,
                  "%s takes its link down for %.1f s, then sends RDMA WRITEs to %s",
                  host->name.c_str(), f.down_s, peer->name.c_str());
    cx.progress.update("fault", what, 0);
    const double budget_s = 15 + f.down_s + f.recovery_timeout_s;  // baseline probe + fault + wait
    StageSampler sampler(cx, budget_s + 30);
    const double t_req = cx.now_s();
    // The fault host runs the whole sequence; meanwhile the progress line counts the time.
    const std::string link_back_at = clock_in(f.down_s + 2);
    auto r = call_fault(cx, *host, *peer, budget_s, t_req);
    sampler.finish(st, {"port_state_code"});
    const std::string sampled = st.reason;  // hosts not sampled, notes
    st.reason = std::string(what) + " (its responder measures both recoveries on its own clock)" +
                (sampled.empty() ? "" : "; " + sampled);
    if (!r) {
        end_without_reply(st, cx, std::move(res), host->name, r.error(), link_back_at);
        return st;
    }
    const wire::FaultReply& j = *r;
    take_reply(res, j, t_req);
    if (cx.save("raw/fault.json", wire::to_json(j).dump(2)))
        st.evidence_links.push_back({"the fault host's reply (JSON)", "raw/fault.json"});
    add_fault_marks(st, res, f.down_s);
    if (const std::string& e = j.last_error; !e.empty())
        st.reason += "; last traffic attempt: " + e;
    if (const std::string& why = j.interrupted; !why.empty()) {
        // Not the fault the spec asked for: nothing to judge the fabric by.
        char held[64] = "";
        if (res.link_down_s && res.link_up_s)
            std::snprintf(held, sizeof held, " after %.1f s of the %.1f s",
                          *res.link_up_s - *res.link_down_s, f.down_s);
        end_stage_in_error(st, cx, std::move(res),
                           "the fault on " + host->name + " was cut short" + held + ": " + why +
                               "; its link is up again");
        return st;
    }
    add_fault_criteria(st, cx, res, host->name);
    add_error_findings_criterion(st, cx,
                                 [&](const Finding& x) { return caused_by_fault(x, host->name); });
    finish_stage(st, cx, std::move(res));
    return st;
}

}  // namespace rh::accept
