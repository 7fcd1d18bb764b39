#include "probes/responder/control_inventory.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>

#include "core/clock.h"
#include "core/hostname.h"
#include "probes/wire/control_fields.h"
#include "probes/wire/control_replies.h"
#include "probes/wire/stream_protocol.h"

#ifndef RH_VERSION
#define RH_VERSION "unknown"
#endif

namespace rh {

namespace {

std::string kernel_release() {
    utsname u{};
    return ::uname(&u) == 0 ? std::string(u.release) : std::string();
}

double monotonic_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

wire::InventoryReply inventory_reply(const ControlContext& cx, const std::string& host) {
    const SampleTime when{monotonic_s(), wall_now_ms()};
    InventoryFacts facts = cx.opts.inventory(cx.opts.sysfs_root, cx.where.device, host, when);
    wire::InventoryReply m;
    rlimit rl{};
    if (::getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
        m.memlock_unlimited = rl.rlim_cur == RLIM_INFINITY;
        if (!m.memlock_unlimited) m.memlock_limit_bytes = static_cast<std::uint64_t>(rl.rlim_cur);
    }
    m.hostname = host_name();
    m.version = RH_VERSION;
    m.kernel = kernel_release();
    m.device = cx.where.device;
    m.port = cx.where.port;
    m.gid_index = cx.where.gid_index;
    m.gid = cx.where.gid_text;
    m.gid_type = cx.where.gid_type;
    m.snapshot = std::move(facts.snapshot);
    m.samples = std::move(facts.samples);
    return m;
}

void serve_inventory(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx) {
    ctl::Fields f(msg);
    const std::string host = f.has("host") ? f.str("host") : std::string();
    if (!f.ok()) {
        (void)tcp::send_json(s, stream::error_message(f.error().message()), tcp::deadline_in(2000));
        return;
    }
    if (!cx.opts.inventory) {
        (void)tcp::send_json(s, stream::error_message("inventory is not offered by this responder"),
                             tcp::deadline_in(2000));
        return;
    }
    cx.log("inventory");
    (void)tcp::send_json(s, wire::to_json(inventory_reply(cx, host)), tcp::deadline_in(10000));
}

}  // namespace rh
