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

    // What admin-down destroys (routes, IPv6 addresses) is saved first and put back after.
    auto setup = NetSetup::save(netdev);
    if (!setup)
        return reply_error(
            s, cx,
            "could not list " + netdev +
                "'s routes and addresses, so no fault was applied: " + setup.error().message());
    const auto gids_before = gid_texts(sys, port_dir);
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
    std::string interrupted;  // why the sequence did not run as asked
    std::optional<double> left_active;
    const double down_until = t_down + req->down_ms / 1000.0;
    while (monotonic_now_s() < down_until) {
        if (cx.stop.load()) {
            interrupted = "the responder is stopping";
            break;
        }
        if (!left_active && read_port_state_code(sys, cx.where.device, cx.where.port) !=
                                std::optional<unsigned>(kPortStateActive))
            left_active = monotonic_now_s() - t_down;
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    }
    const double t_up = monotonic_now_s();
    if (link_admin_up(sys, netdev))  // up already: this process was held up past the guard's
        interrupted = "the link guard had set the link up: the responder was held up " +
                      std::to_string(static_cast<int>(t_up - down_until)) +
                      " s past the planned up (stopped, overloaded)";
    // On every way out before this, the guard's destructor has it set the link up at once.
    if (auto u = set_link_admin_up(netdev, true); !u)
        return reply_error(
            s, cx, "could not set the link up again (the guard retries): " + u.error().message());
    guard->disarm();
    const auto restored = setup->restore();

    const double deadline = t_up + req->recovery_timeout_ms / 1000.0;
    std::optional<double> link_recovery;
    while (interrupted.empty() && monotonic_now_s() < deadline) {
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
    while (link_recovery && interrupted.empty() && monotonic_now_s() < deadline) {
        if (cx.stop.load()) {
            interrupted = "the responder is stopping";
            break;
        }
        ++attempts;
        recovered = passed_p50(write_probe(cx, req->peer, 10, kProbeWaitMs), why);
        if (recovered) {
            traffic_recovery = monotonic_now_s() - t_up;
            why.clear();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(kRetryMs));
    }
    if (!link_recovery && interrupted.empty())
        why = "the port did not become ACTIVE with the netdev up";
    // Left changed by the fault: what could not be put back, GIDs gone or moved.
    wire::FaultReply m;
    for (const auto& n : restored.not_restored) m.setup_changes.push_back("not restored: " + n);
    const auto gids_after = gid_texts(sys, port_dir);
    for (const auto& g : gids_before)
        if (std::find(gids_after.begin(), gids_after.end(), g) == gids_after.end())
            m.setup_changes.push_back("GID " + g + " no longer in the GID table as before");
    cx.log("fault: " + netdev + " back; link recovery " +
           (link_recovery ? std::to_string(*link_recovery) + " s" : "none") +
           ", traffic recovery " +
           (traffic_recovery ? std::to_string(*traffic_recovery) + " s" : "none") +
           (interrupted.empty() ? "" : "; interrupted: " + interrupted));
    m.device = cx.where.device;
    m.port = cx.where.port;
    m.netdev = netdev;
    m.down_ms = req->down_ms;
    m.down_at_s = t_down - t_req;
    m.up_at_s = t_up - t_req;
    m.port_left_active_s = left_active;
    m.link_recovery_s = link_recovery;
    m.traffic_recovery_s = traffic_recovery;
    m.traffic_attempts = attempts;
    m.baseline_p50_us = baseline;
    m.recovered_p50_us = recovered;
    m.last_error = why;
    m.interrupted = interrupted;
    m.saved_addresses = setup->addresses();
    m.saved_routes = setup->routes();
    m.restored = restored.restored;
    (void)tcp::send_json(s, wire::to_json(m), tcp::deadline_in(30000));
}

}  // namespace rh
