#include "agent/daemon/incast_action.h"

#include "agent/daemon/incast_request.h"
#include "agent/daemon/log.h"
#include "agent/reports/incast_analysis.h"
#include "agent/reports/incast_report.h"
#include "probes/incast/incast_coordinator.h"

namespace rh::agent {

namespace {

ActionReply error_reply(int status, const std::string& message) {
    return {status, {{"error", message}}};
}

/// Clears the busy flag when the request is done, however it ends.
struct BusyGuard {
    std::atomic<bool>& busy;
    ~BusyGuard() { busy.store(false); }
};

}  // namespace

void IncastAction::configure(Setup s) {
    std::lock_guard<std::mutex> l(m_);
    setup_ = std::move(s);
}

ActionReply IncastAction::handle(const std::string& body) {
    Setup s;
    {
        std::lock_guard<std::mutex> l(m_);
        s = setup_;
    }
    if (!s.rules) return error_reply(503, "the agent is starting");
    auto req = parse_incast_request(body, s.max_duration_s);
    if (!req) return error_reply(400, req.error().detail);
    // Before anything dials a sender: the key handshake goes only to hosts of the fleet.
    std::string refused;
    for (const std::string& sender : req->senders)
        if (std::string why = sender_refusal(sender, s.fleet); !why.empty())
            refused += (refused.empty() ? "" : "; ") + why;
    if (!refused.empty()) {
        log_event("warning", "incast_refused", {{"senders", req->senders}, {"error", refused}});
        return error_reply(403, refused);
    }
    if (!s.responder_enabled)
        return error_reply(503,
                           "this host's responder is not enabled (responder.enabled): it "
                           "must serve as the incast's receiver");
    if (busy_.exchange(true)) return error_reply(409, "an incast is already running");
    BusyGuard guard{busy_};

    incast::Options o;
    o.receiver = s.receiver;
    o.senders = req->senders;
    o.size_bytes = req->size_bytes;
    o.duration_ms = static_cast<std::uint32_t>(req->duration_s * 1000);
    o.qps = req->qps_per_sender;
    o.queue_depth = req->queue_depth;
    o.op = *stream::parse_op(req->op);
    o.victim = req->victim;
    o.device = s.device;
    o.gid_index = s.gid_index;
    o.sysfs_root = s.sysfs_root;
    if (auto c = incast::check_options(o); !c) return error_reply(400, c.error().detail);

    log_event("info", "incast_started",
              {{"receiver", o.receiver},
               {"senders", o.senders},
               {"size_bytes", o.size_bytes},
               {"duration_s", req->duration_s}});
    auto run = incast::run_incast(o, {});
    if (!run) {
        log_event("error", "incast_failed", {{"error", run.error().message()}});
        return error_reply(503, run.error().message());
    }
    const rh::IncastReport report =
        rh::incast_report(*run, rh::analyse_incast(*run, *s.rules, s.rules_path));
    const int exit = rh::incast_exit_code(report);
    nlohmann::json doc = report;
    doc["exit"] = exit;
    log_event("info", "incast_finished", {{"id", run->id}, {"exit", exit}});
    return {200, std::move(doc)};
}

}  // namespace rh::agent
