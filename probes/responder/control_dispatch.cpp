#include "probes/responder/control_dispatch.h"

#include <unistd.h>

#include <cstdio>

#include "core/clock.h"
#include "core/hostname.h"
#include "probes/auth/handshake.h"
#include "probes/incast/incast_sampling.h"
#include "probes/incast/incast_sender.h"
#include "probes/responder/control_fault.h"
#include "probes/responder/control_inventory.h"
#include "probes/responder/control_probe.h"
#include "probes/responder/rkey_revocation.h"
#include "probes/stream/stream_receiver.h"
#include "probes/verbs/rc_connection.h"
#include "probes/wire/incast_messages.h"

namespace rh {

void ControlContext::log(const std::string& what) const {
    std::fprintf(stderr, "rocehealth responder: %s: %s\n", peer.c_str(), what.c_str());
}

nlohmann::json hello_reply(const ControlContext& cx) {
    incast::Hello h;
    h.hostname = host_name();
    h.device = cx.where.device;
    h.port = cx.where.port;
    h.gid = cx.where.gid_text;
    h.gid_type = cx.where.gid_type;
    if (auto mtu = query_active_mtu(cx.where.device, cx.where.port)) h.active_mtu = *mtu;
    const std::string rel =
        "class/infiniband/" + cx.where.device + "/ports/" + std::to_string(cx.where.port) + "/rate";
    if (auto rate = SysfsRoot(cx.opts.sysfs_root).read_text(rel))
        h.port_rate = *rate;
    else
        h.port_rate_error = rate.error().message();
    h.sampler = static_cast<bool>(cx.opts.sampler);
    h.wall_ms = wall_now_ms();  // last: closest to the reply leaving
    return incast::to_json(h);
}

void serve_control(const tcp::Socket& s, const nlohmann::json& first, const ControlContext& cx) {
    const auto log = [&cx](const std::string& w) { cx.log(w); };
    nlohmann::json msg = first;
    for (;;) {
        const std::string cmd = msg["cmd"].get<std::string>();
        if (cmd != "hello" && !cx.key_proven) {
            const bool keyed = auth::process_key() != nullptr;
            const std::string why = keyed ? auth::kNotProven : auth::kNoKeyHere;
            log("'" + cmd + "' refused: " + why);
            (void)tcp::send_json(s, stream::error_message(why), tcp::deadline_in(2000));
            return;
        }
        if (cmd == "sample") return incast::serve_sample(s, msg, cx.opts.sampler, cx.stop, log);
        if (cmd == "stream_open") return stream::serve_stream(s, msg, cx.where, cx.stop, log);
        if (cmd == "incast_prepare") return incast::serve_sender(s, msg, cx);
        if (cmd == "inventory") return serve_inventory(s, msg, cx);
        if (cmd == "probe") return serve_probe(s, msg, cx);
        if (cmd == "rkey_open") return serve_rkey(s, msg, cx);
        if (cmd == "fault") return serve_fault(s, msg, cx);
        if (cmd != "hello") {
            log("unknown control command '" + cmd + "'");
            (void)tcp::send_json(
                s,
                stream::error_message("unknown command '" + cmd +
                                      "' (this responder serves hello, sample, stream_open, "
                                      "incast_prepare, inventory, probe, rkey_open, fault)"),
                tcp::deadline_in(2000));
            return;
        }
        if (!tcp::send_json(s, hello_reply(cx), tcp::deadline_in(2000))) return;
        // Another command may follow on the same connection; a close just ends it.
        auto next = tcp::recv_any(s, tcp::deadline_in(cx.opts.handshake_timeout_ms), cx.stop);
        if (!next || !next->json) return;
        msg = std::move(*next->json);
    }
}

}  // namespace rh
