#include "probes/wire/incast_messages.h"

#include "probes/wire/control_fields.h"

namespace rh::incast {

namespace {

constexpr std::uint64_t kMax = UINT64_MAX;

Error wrong_cmd(const ctl::Fields& f, const char* want) {
    return Error{"decode", want + std::string(" message"), 0, "cmd is " + f.cmd()};
}

}  // namespace

nlohmann::json to_json(const Hello& m) {
    return {{"cmd", "hello_reply"},     {"hostname", m.hostname},
            {"wall_ms", m.wall_ms},     {"device", m.device},
            {"port", m.port},           {"gid", m.gid},
            {"gid_type", m.gid_type},   {"active_mtu", m.active_mtu},
            {"port_rate", m.port_rate}, {"port_rate_error", m.port_rate_error},
            {"sampler", m.sampler}};
}

nlohmann::json to_json(const Prepare& m) {
    return {{"cmd", "incast_prepare"},      {"id", m.id},
            {"receiver", m.receiver},       {"op", stream::to_string(m.op)},
            {"size_bytes", m.size_bytes},   {"qps", m.qps},
            {"queue_depth", m.queue_depth}, {"duration_ms", m.duration_ms}};
}

nlohmann::json to_json(const Ready& m) {
    return {{"cmd", "incast_ready"},
            {"receiver_hostname", m.receiver_hostname},
            {"slots", m.slots},
            {"path_mtu", m.path_mtu}};
}

nlohmann::json to_json(const Start& m) {
    return {{"cmd", "incast_start"},
            {"start_at_wall_ms", m.start_at_wall_ms},
            {"duration_ms", m.duration_ms}};
}

nlohmann::json to_json(const Progress& m) {
    return {{"cmd", "incast_progress"},
            {"elapsed_ms", static_cast<std::uint64_t>(m.elapsed_s * 1000)},
            {"completed_bytes", m.completed_bytes},
            {"completed_messages", m.completed_messages},
            {"errors", m.errors}};
}

nlohmann::json to_json(const Outcome& m) {
    nlohmann::json qps = nlohmann::json::array();
    for (const auto& q : m.qps)
        qps.push_back({{"posted", q.posted},
                       {"completed", q.completed},
                       {"failed", q.failed},
                       {"errors", ctl::counts_json(q.errors)},
                       {"error", q.error},
                       {"first_post_wall_ms", q.first_post_wall_ms},
                       {"last_completion_wall_ms", q.last_completion_wall_ms}});
    nlohmann::json j{{"cmd", "incast_result"},
                     {"scheduled_start_wall_ms", m.scheduled_start_wall_ms},
                     {"started_wall_ms", m.started_wall_ms},
                     {"ended_wall_ms", m.ended_wall_ms},
                     {"size_bytes", m.size_bytes},
                     {"qps", qps},
                     {"receiver_ok", m.receiver_ok},
                     {"receiver_error", m.receiver_error},
                     {"note", m.note}};
    if (m.receiver_ok) j["receiver"] = stream::to_json(m.receiver);
    return j;
}

rh::Result<Hello> parse_hello(const nlohmann::json& j) {
    ctl::Fields f(j);
    Hello m;
    m.hostname = f.str("hostname", 63);
    m.wall_ms = f.i64("wall_ms");
    m.device = f.str("device", 63);
    m.port = f.u32("port", 0, 255);
    m.gid = f.str("gid", 64);
    m.gid_type = f.str("gid_type", 31);
    m.active_mtu = f.u32("active_mtu", 0, 4096);
    m.port_rate = f.str("port_rate", 127);
    m.port_rate_error = f.str("port_rate_error", 1024);
    if (f.ok() && !(f.has("sampler") && j["sampler"].is_boolean()))
        f.invalid("sampler", "expected true or false");
    if (!f.ok()) return f.error();
    if (f.cmd() != "hello_reply") return wrong_cmd(f, "hello_reply");
    m.sampler = j["sampler"].get<bool>();
    return m;
}

rh::Result<Prepare> parse_prepare(const nlohmann::json& j) {
    ctl::Fields f(j);
    Prepare m;
    m.id = f.str("id", 64);
    m.receiver = f.str("receiver", 255);
    const std::string op = f.str("op", 16);
    m.size_bytes = f.u64("size_bytes", limits::kMinMessageBytes, limits::kMaxMessageBytes);
    if (f.ok() && !limits::valid_message_size(m.size_bytes))  // the one rule: a multiple of 8 too
        f.invalid("size_bytes", "expected " + limits::message_size_rule() + ", got " +
                                    std::to_string(m.size_bytes));
    m.qps = f.u32("qps", 1, stream::kMaxQps);
    m.queue_depth = f.u32("queue_depth", 1, limits::kMaxQueueDepth);
    m.duration_ms = f.u32("duration_ms", 1, kMaxDurationMs);
    if (f.ok() && !stream::parse_op(op)) f.invalid("op", "'" + op + "' (expected write or send)");
    if (!f.ok()) return f.error();
    if (f.cmd() != "incast_prepare") return wrong_cmd(f, "incast_prepare");
    m.op = *stream::parse_op(op);
    return m;
}

rh::Result<Ready> parse_ready(const nlohmann::json& j) {
    ctl::Fields f(j);
    Ready m;
    m.receiver_hostname = f.str("receiver_hostname", 63);
    m.slots = f.u32("slots", 1, 1024);
    m.path_mtu = f.u32("path_mtu", 0, 4096);
    if (!f.ok()) return f.error();
    if (f.cmd() != "incast_ready") return wrong_cmd(f, "incast_ready");
    return m;
}

rh::Result<Start> parse_start(const nlohmann::json& j) {
    ctl::Fields f(j);
    Start m;
    m.start_at_wall_ms = f.i64("start_at_wall_ms");
    m.duration_ms = f.u32("duration_ms", 1, kMaxDurationMs);
    if (!f.ok()) return f.error();
    if (f.cmd() != "incast_start") return wrong_cmd(f, "incast_start");
    return m;
}

rh::Result<Progress> parse_progress(const nlohmann::json& j) {
    ctl::Fields f(j);
    Progress m;
    m.elapsed_s = static_cast<double>(f.u64("elapsed_ms", 0, kMax)) / 1000;
    m.completed_bytes = f.u64("completed_bytes", 0, kMax);
    m.completed_messages = f.u64("completed_messages", 0, kMax);
    m.errors = f.u64("errors", 0, kMax);
    if (!f.ok()) return f.error();
    if (f.cmd() != "incast_progress") return wrong_cmd(f, "incast_progress");
    return m;
}

rh::Result<Outcome> parse_outcome(const nlohmann::json& j) {
    ctl::Fields f(j);
    Outcome m;
    m.scheduled_start_wall_ms = f.i64("scheduled_start_wall_ms");
    m.started_wall_ms = f.i64("started_wall_ms");
    m.ended_wall_ms = f.i64("ended_wall_ms");
    m.size_bytes = f.u64("size_bytes", 0, limits::kMaxMessageBytes);
    const auto& qps = f.array("qps", 0, stream::kMaxQps);
    m.receiver_error = f.str("receiver_error", 4096);
    m.note = f.str("note", 4096);
    if (f.ok() && !(f.has("receiver_ok") && j["receiver_ok"].is_boolean()))
        f.invalid("receiver_ok", "expected true or false");
    for (const auto& e : qps) {
        ctl::Fields q(e);
        QpResult r;
        r.posted = q.u64("posted", 0, kMax);
        r.completed = q.u64("completed", 0, kMax);
        r.failed = q.u64("failed", 0, kMax);
        r.error = q.str("error", 4096);
        r.first_post_wall_ms = q.i64("first_post_wall_ms");
        r.last_completion_wall_ms = q.i64("last_completion_wall_ms");
        r.errors = q.counts("errors");
        if (!q.ok()) {
            f.invalid("qps", q.error().detail);
            break;
        }
        m.qps.push_back(std::move(r));
    }
    if (!f.ok()) return f.error();
    if (f.cmd() != "incast_result") return wrong_cmd(f, "incast_result");
    m.receiver_ok = j["receiver_ok"].get<bool>();
    if (m.receiver_ok) {
        if (!j.contains("receiver"))
            return Error{"decode", "incast_result message", 0, "\"receiver\": missing"};
        auto r = stream::parse_received(j["receiver"], m.qps.size());
        if (!r) return r.error();
        m.receiver = std::move(*r);
    }
    return m;
}

}  // namespace rh::incast
