#include "probes/control_fault.h"

#include <chrono>
#include <optional>
#include <thread>

#include "collectors/rdma_sysfs.h"
#include "core/clock.h"
#include "probes/incast_fields.h"
#include "probes/link_admin.h"
#include "probes/link_guard.h"
#include "probes/probe.h"
#include "probes/stream_protocol.h"

namespace rh {

namespace {

constexpr int kGuardGraceMs = 10000;  // the guard acts this long after the planned up
constexpr int kPollMs = 10;           // link state polling while the link comes back
constexpr int kRetryMs = 100;         // between traffic attempts
constexpr int kProbeWaitMs = 1000;    // each wait of a traffic attempt (connect, each WRITE)

nlohmann::json opt(std::optional<double> v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// A 64 B WRITE probe to `peer` from the responder's own port; `iterations` timed messages.
Result<ProbeReport> write_probe(const ControlContext& cx, const std::string& peer,
                                unsigned iterations, int timeout_ms) {
    ProbeOptions o;
    o.peer = peer;
    o.ops = {ProbeOp::write};
    o.sizes = {64};
    o.iterations = iterations;
    o.warmup = 1;
    o.timeout_ms = timeout_ms;
    o.device = cx.where.device;
    o.gid_index = cx.where.gid_index;
    o.sysfs_root = cx.opts.sysfs_root;
    return run_probe(o);
}

/// The probe's p50 when it passed; nullopt with `why` set otherwise.
std::optional<double> passed_p50(const Result<ProbeReport>& r, std::string& why) {
    if (!r) {
        why = r.error().message();
        return std::nullopt;
    }
    if (!r->ok() || r->results.empty() || !r->results.front().measured()) {
        why = r->errors.empty() ? "checksum errors" : r->errors.front();
        return std::nullopt;
    }
    return r->results.front().p50_us;
}

void reply_error(const tcp::Socket& s, const ControlContext& cx, const std::string& text) {
    cx.log("fault: " + text);
    (void)tcp::send_json(s, stream::error_message(text), tcp::deadline_in(10000));
}

}  // namespace

Result<FaultRequest> parse_fault_request(const nlohmann::json& msg) {
    ctl::Fields f(msg);
    FaultRequest r;
    r.peer = f.str("peer");
    if (f.ok() && r.peer.empty()) f.invalid("peer", "empty");
    r.down_ms = f.u32("down_ms", 100, 600000);
    r.recovery_timeout_ms = f.u32("recovery_timeout_ms", 1000, 600000);
    if (!f.ok()) return f.error();
    return r;
}

void serve_fault(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx) {
    const double t_req = monotonic_now_s();
    auto req = parse_fault_request(msg);
    if (!req) return reply_error(s, cx, req.error().message());
    if (!cx.opts.allow_fault)
        return reply_error(s, cx,
                           "fault injection is off on this responder (start it with "
                           "--allow-fault, or set responder.allow_fault in the agent's config)");
    const SysfsRoot sys(cx.opts.sysfs_root);
    const std::string port_dir =
        "class/infiniband/" + cx.where.device + "/ports/" + std::to_string(cx.where.port);
    const std::string netdev = find_port_netdev(sys, cx.where.device, read_gids(sys, port_dir));
    if (netdev.empty())
        return reply_error(
            s, cx,
            "no netdev found for " + cx.where.device + " port " + std::to_string(cx.where.port));
    std::string why;
    const auto baseline = passed_p50(write_probe(cx, req->peer, 100, 2000), why);
    if (!baseline)
        return reply_error(s, cx,
                           "baseline 64 B WRITE probe to " + req->peer +
                               " failed, so no "
                               "fault was applied: " +
                               why);

    // The guard restores the link if this process dies or hangs while it is down.
    auto guard = LinkGuard::start(netdev, static_cast<int>(req->down_ms) + kGuardGraceMs);
    if (!guard)
        return reply_error(
            s, cx,
            "could not start the link guard, so no fault was applied: " + guard.error().message());
    cx.log("fault: " + netdev + " down for " + std::to_string(req->down_ms) + " ms");
    const double t_down = monotonic_now_s();
    if (auto d = set_link_admin_up(netdev, false); !d)
        return reply_error(s, cx, "could not take the link down: " + d.error().message());
    std::optional<double> left_active;
    const double down_until = t_down + req->down_ms / 1000.0;
    while (monotonic_now_s() < down_until && !cx.stop.load()) {
        if (!left_active && read_port_state_code(sys, cx.where.device, cx.where.port) !=
                                std::optional<unsigned>(kPortStateActive))
            left_active = monotonic_now_s() - t_down;
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    }
    const double t_up = monotonic_now_s();
    // On every way out before this, the guard's destructor has it set the link up at once.
    if (auto u = set_link_admin_up(netdev, true); !u)
        return reply_error(
            s, cx, "could not set the link up again (the guard retries): " + u.error().message());
    guard->disarm();

    const double deadline = t_up + req->recovery_timeout_ms / 1000.0;
    std::optional<double> link_recovery;
    while (monotonic_now_s() < deadline && !cx.stop.load()) {
        if (read_port_state_code(sys, cx.where.device, cx.where.port) ==
                std::optional<unsigned>(kPortStateActive) &&
            netdev_oper_up(sys, netdev)) {
            link_recovery = monotonic_now_s() - t_up;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    }
    std::optional<double> traffic_recovery, recovered;
    unsigned attempts = 0;
    why.clear();
    while (link_recovery && monotonic_now_s() < deadline && !cx.stop.load()) {
        ++attempts;
        recovered = passed_p50(write_probe(cx, req->peer, 10, kProbeWaitMs), why);
        if (recovered) {
            traffic_recovery = monotonic_now_s() - t_up;
            why.clear();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(kRetryMs));
    }
    if (!link_recovery) why = "the port did not become ACTIVE with the netdev up";
    cx.log("fault: " + netdev + " back; link recovery " +
           (link_recovery ? std::to_string(*link_recovery) + " s" : "none") +
           ", traffic recovery " +
           (traffic_recovery ? std::to_string(*traffic_recovery) + " s" : "none"));
    (void)tcp::send_json(s,
                         {{"cmd", "fault_reply"},
                          {"device", cx.where.device},
                          {"port", cx.where.port},
                          {"netdev", netdev},
                          {"down_ms", req->down_ms},
                          {"down_at_s", t_down - t_req},
                          {"up_at_s", t_up - t_req},
                          {"port_left_active_s", opt(left_active)},
                          {"link_recovery_s", opt(link_recovery)},
                          {"traffic_recovery_s", opt(traffic_recovery)},
                          {"traffic_attempts", attempts},
                          {"baseline_p50_us", opt(baseline)},
                          {"recovered_p50_us", opt(recovered)},
                          {"last_error", why}},
                         tcp::deadline_in(30000));
}

}  // namespace rh
