#include "probes/responder/control_probe.h"

#include <chrono>

#include "core/clock.h"
#include "core/recording/sample_json.h"
#include "probes/latency/probe_samples.h"
#include "probes/wire/control_fields.h"
#include "probes/wire/control_replies.h"
#include "probes/wire/probe_limits.h"
#include "probes/wire/stream_protocol.h"

namespace rh {

void use_responder_port(ProbeOptions& o, const ControlContext& cx) {
    o.device = cx.where.device;
    o.gid_index = cx.where.gid_index;
    o.sysfs_root = cx.opts.sysfs_root;
}

Result<ProbeRequest> parse_probe_request(const nlohmann::json& msg) {
    ctl::Fields f(msg);
    ProbeRequest r;
    r.options.peer = f.str("peer");
    if (f.ok() && r.options.peer.empty()) f.invalid("peer", "empty");
    r.options.ops.clear();
    for (const auto& op : f.array("ops", 1, 3)) {
        const std::string name = op.is_string() ? op.get<std::string>() : "";
        bool known = false;
        for (ProbeOp o : {ProbeOp::write, ProbeOp::read, ProbeOp::send})
            if (name == to_string(o)) {
                r.options.ops.push_back(o);
                known = true;
            }
        if (!known) f.invalid("ops", "expected write, read or send, got " + op.dump());
    }
    r.options.sizes.clear();
    for (const auto& sz : f.array("sizes", 1, 16)) {
        if (!sz.is_number_unsigned() || !limits::valid_message_size(sz.get<std::uint64_t>()))
            f.invalid("sizes", "expected " + limits::message_size_rule() + ", got " + sz.dump());
        else
            r.options.sizes.push_back(sz.get<std::uint64_t>());
    }
    r.options.iterations = f.u32("iterations", 1, 100000);
    r.options.warmup = f.u32("warmup", 0, 10000);
    r.options.timeout_ms = static_cast<int>(f.u32("timeout_ms", 1, 60000));
    r.host = f.has("host") ? f.str("host") : "";
    r.peer_name = f.has("peer_name") ? f.str("peer_name") : "";
    if (!f.ok()) return f.error();
    return r;
}

void serve_probe(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx) {
    auto req = parse_probe_request(msg);
    if (!req) {
        cx.log("bad probe request: " + req.error().message());
        (void)tcp::send_json(s, stream::error_message(req.error().message()),
                             tcp::deadline_in(2000));
        return;
    }
    ProbeOptions o = req->options;
    use_responder_port(o, cx);
    cx.log("probe to " + o.peer);
    ProbeRunTimes when{monotonic_now_s(), 0, wall_now_ms(), 0};
    auto r = run_probe(o);
    when.end_t_s = monotonic_now_s();
    when.end_wall_ms = wall_now_ms();
    wire::ProbeReply reply;
    reply.start_wall_ms = when.start_wall_ms;
    reply.end_wall_ms = when.end_wall_ms;
    if (r) {
        const std::string peer = req->peer_name.empty() ? o.peer : req->peer_name;
        for (const Sample& smp : samples_from_probe(*r, req->host, peer, when))
            reply.samples.push_back(to_json_line(smp));
        reply.report = std::move(*r);
    } else {
        reply.error = r.error().message();
    }
    (void)tcp::send_json(s, wire::to_json(reply), tcp::deadline_in(10000));
}

}  // namespace rh
