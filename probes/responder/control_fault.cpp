#include "probes/responder/control_fault.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "collectors/sources/rdma_sysfs.h"
#include "core/clock.h"
#include "probes/fault/link_admin.h"
#include "probes/fault/link_guard.h"
#include "probes/fault/net_setup.h"
#include "probes/latency/probe.h"
#include "probes/responder/control_probe.h"
#include "probes/wire/control_fields.h"
#include "probes/wire/control_replies.h"
#include "probes/wire/stream_protocol.h"

namespace rh {

namespace {

constexpr int kGuardGraceMs = 10000;  // the guard acts this long after the planned up
constexpr int kPollMs = 10;           // link state polling while the link comes back
constexpr int kRetryMs = 100;         // between traffic attempts
constexpr int kProbeWaitMs = 1000;    // each wait of a traffic attempt (connect, each WRITE)

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
    use_responder_port(o, cx);
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

/// "index gid" of every populated GID of the port, e.g. "1 ::ffff:10.99.0.13"-style sysfs text.
std::vector<std::string> gid_texts(const SysfsRoot& sys, const std::string& port_dir) {
    std::vector<std::string> out;
    for (const auto& g : read_gids(sys, port_dir))
        out.push_back(std::to_string(g.index) + " " + g.gid);
    return out;
}

/// One fault at a time per host: a second one would overlap the first's measurements.
std::mutex g_fault_mu;
bool g_fault_running = false;
std::string g_fault_by;

class FaultSlot {
  public:
    /// Takes the host's fault slot for `by`; ok() false (and `holder` set) when it is taken.
    explicit FaultSlot(const std::string& by) {
        std::lock_guard l(g_fault_mu);
        if (g_fault_running) {
            holder = g_fault_by;
            return;
        }
        g_fault_running = owned_ = true;
        g_fault_by = by;
    }
    ~FaultSlot() {
        if (!owned_) return;
        std::lock_guard l(g_fault_mu);
        g_fault_running = false;
    }
    FaultSlot(const FaultSlot&) = delete;
    FaultSlot& operator=(const FaultSlot&) = delete;
    bool ok() const { return owned_; }
    std::string holder;

  private:
    bool owned_ = false;
};

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

namespace {

/// What one fault sequence measured, on the responder's clock (monotonic seconds).
struct FaultTimes {
    double t_down = 0, t_up = 0;  ///< when the down / up request was made
    std::optional<double> left_active, link_recovery, traffic_recovery, recovered;
    unsigned attempts = 0;
    std::string why;          ///< why the last traffic attempt failed
    std::string interrupted;  ///< why the sequence did not run as asked
};

/// Keeps the link down until `down_until`, noting when the port left ACTIVE; cut short when
/// the responder stops.
void hold_down(const ControlContext& cx, const SysfsRoot& sys, double down_until, FaultTimes& r) {
    while (monotonic_now_s() < down_until) {
        if (cx.stop.load()) {
            r.interrupted = "the responder is stopping";
            break;
        }
        if (!r.left_active && read_port_state_code(sys, cx.where.device, cx.where.port) !=
                                  std::optional<unsigned>(kPortStateActive))
            r.left_active = monotonic_now_s() - r.t_down;
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    }
}

/// Link recovery: until the port is ACTIVE and the netdev's operstate up, or `deadline`.
void wait_link_recovery(const ControlContext& cx, const SysfsRoot& sys, const std::string& netdev,
                        double deadline, FaultTimes& r) {
    while (r.interrupted.empty() && monotonic_now_s() < deadline) {
        if (read_port_state_code(sys, cx.where.device, cx.where.port) ==
                std::optional<unsigned>(kPortStateActive) &&
            netdev_oper_up(sys, netdev)) {
            r.link_recovery = monotonic_now_s() - r.t_up;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    }
}

/// Traffic recovery: new 10-message WRITE probes to `peer` until one passes, or `deadline`.
void wait_traffic_recovery(const ControlContext& cx, const std::string& peer, double deadline,
                           FaultTimes& r) {
    r.why.clear();
    while (r.link_recovery && r.interrupted.empty() && monotonic_now_s() < deadline) {
        if (cx.stop.load()) {
            r.interrupted = "the responder is stopping";
            break;
        }
        ++r.attempts;
        r.recovered = passed_p50(write_probe(cx, peer, 10, kProbeWaitMs), r.why);
        if (r.recovered) {
            r.traffic_recovery = monotonic_now_s() - r.t_up;
            r.why.clear();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(kRetryMs));
    }
    if (!r.link_recovery && r.interrupted.empty())
        r.why = "the port did not become ACTIVE with the netdev up";
}

/// The reply: where, the times from the request's arrival `t_req`, what was saved, put back
/// and left changed (what could not be put back, GIDs gone or moved: `gids_before` against
/// the table now).
wire::FaultReply fault_reply(const ControlContext& cx, const SysfsRoot& sys,
                             const std::string& port_dir, const std::string& netdev,
                             const FaultRequest& req, double t_req, std::optional<double> baseline,
                             const NetSetup& setup, const NetSetup::Restored& restored,
                             const std::vector<std::string>& gids_before, const FaultTimes& r) {
    wire::FaultReply m;
    for (const auto& n : restored.not_restored) m.setup_changes.push_back("not restored: " + n);
    const auto gids_after = gid_texts(sys, port_dir);
    for (const auto& g : gids_before)
        if (std::find(gids_after.begin(), gids_after.end(), g) == gids_after.end())
            m.setup_changes.push_back("GID " + g + " no longer in the GID table as before");
    cx.log("fault: " + netdev + " back; link recovery " +
           (r.link_recovery ? std::to_string(*r.link_recovery) + " s" : "none") +
           ", traffic recovery " +
           (r.traffic_recovery ? std::to_string(*r.traffic_recovery) + " s" : "none") +
           (r.interrupted.empty() ? "" : "; interrupted: " + r.interrupted));
    m.device = cx.where.device;
    m.port = cx.where.port;
    m.netdev = netdev;
    m.down_ms = req.down_ms;
    m.down_at_s = r.t_down - t_req;
    m.up_at_s = r.t_up - t_req;
    m.port_left_active_s = r.left_active;
    m.link_recovery_s = r.link_recovery;
    m.traffic_recovery_s = r.traffic_recovery;
    m.traffic_attempts = r.attempts;
    m.baseline_p50_us = baseline;
    m.recovered_p50_us = r.recovered;
    m.last_error = r.why;
    m.interrupted = r.interrupted;
    m.saved_addresses = setup.addresses();
    m.saved_routes = setup.routes();
    m.restored = restored.restored;
    return m;
}

/// Steps 2-4 of the header's sequence, once the baseline passed: save the setup, start the
/// guard, down, hold, up, restore, then the link's and the traffic's recovery, and the reply.
void run_fault(const tcp::Socket& s, const ControlContext& cx, const FaultRequest& req,
               const SysfsRoot& sys, const std::string& port_dir, const std::string& netdev,
               std::optional<double> baseline, double t_req) {
    // What admin-down destroys (routes, IPv6 addresses) is saved first and put back after.
    auto setup = NetSetup::save(netdev);
    if (!setup)
        return reply_error(
            s, cx,
            "could not list " + netdev +
                "'s routes and addresses, so no fault was applied: " + setup.error().message());
    const auto gids_before = gid_texts(sys, port_dir);
    // The guard restores the link if this process dies or hangs while it is down.
    auto guard = LinkGuard::start(netdev, static_cast<int>(req.down_ms) + kGuardGraceMs);
    if (!guard)
        return reply_error(
            s, cx,
            "could not start the link guard, so no fault was applied: " + guard.error().message());
    cx.log("fault: " + netdev + " down for " + std::to_string(req.down_ms) + " ms");
    FaultTimes r;
    r.t_down = monotonic_now_s();
    if (auto d = set_link_admin_up(netdev, false); !d)
        return reply_error(s, cx, "could not take the link down: " + d.error().message());
    const double down_until = r.t_down + req.down_ms / 1000.0;
    hold_down(cx, sys, down_until, r);
    r.t_up = monotonic_now_s();
    if (link_admin_up(sys, netdev))  // up already: this process was held up past the guard's
        r.interrupted = "the link guard had set the link up: the responder was held up " +
                        std::to_string(static_cast<int>(r.t_up - down_until)) +
                        " s past the planned up (stopped, overloaded)";
    // On every way out before this, the guard's destructor has it set the link up at once.
    if (auto u = set_link_admin_up(netdev, true); !u)
        return reply_error(
            s, cx, "could not set the link up again (the guard retries): " + u.error().message());
    guard->disarm();
    const auto restored = setup->restore();
    const double deadline = r.t_up + req.recovery_timeout_ms / 1000.0;
    wait_link_recovery(cx, sys, netdev, deadline, r);
    wait_traffic_recovery(cx, req.peer, deadline, r);
    const wire::FaultReply m = fault_reply(cx, sys, port_dir, netdev, req, t_req, baseline, *setup,
                                           restored, gids_before, r);
    (void)tcp::send_json(s, wire::to_json(m), tcp::deadline_in(30000));
}

}  // namespace

void serve_fault(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx) {
    const double t_req = monotonic_now_s();
    auto req = parse_fault_request(msg);
    if (!req) return reply_error(s, cx, req.error().message());
    if (!cx.opts.allow_fault)
        return reply_error(s, cx,
                           "fault injection is off on this responder (start it with "
                           "--allow-fault, or set responder.allow_fault in the agent's config)");
    const FaultSlot slot(cx.peer);
    if (!slot.ok())
        return reply_error(
            s, cx,
            "busy: a fault is already in progress on this host (asked by " + slot.holder + ")");
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
    run_fault(s, cx, *req, sys, port_dir, netdev, baseline, t_req);
}

}  // namespace rh
