#include "probes/responder/control_inventory.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>

#include "core/clock.h"
#include "core/hostname.h"
#include "probes/wire/control_fields.h"
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

nlohmann::json inventory_reply(const ControlContext& cx, const std::string& host) {
    const SampleTime when{monotonic_s(), wall_now_ms()};
    InventoryFacts facts = cx.opts.inventory(cx.opts.sysfs_root, cx.where.device, host, when);
    rlimit rl{};
    nlohmann::json memlock = nullptr;
    bool unlimited = false;
    if (::getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
        unlimited = rl.rlim_cur == RLIM_INFINITY;
        if (!unlimited) memlock = static_cast<std::uint64_t>(rl.rlim_cur);
    }
    return {{"cmd", "inventory_reply"},
            {"hostname", host_name()},
            {"version", RH_VERSION},
            {"kernel", kernel_release()},
            {"memlock_limit_bytes", memlock},
            {"memlock_unlimited", unlimited},
            {"device", cx.where.device},
            {"port", cx.where.port},
            {"gid_index", cx.where.gid_index},
            {"gid", cx.where.gid_text},
            {"gid_type", cx.where.gid_type},
            {"snapshot", std::move(facts.snapshot)},
            {"samples", std::move(facts.samples)}};
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
    (void)tcp::send_json(s, inventory_reply(cx, host), tcp::deadline_in(10000));
}

}  // namespace rh
