#include "probes/wire/stream_protocol.h"

#include "probes/wire/control_fields.h"
#include "probes/wire/oob_protocol.h"
#include "probes/wire/slot.h"
#include "probes/wire/stream_slots.h"

namespace rh::stream {

namespace {

constexpr std::uint32_t k24 = 0xFFFFFF;

Error semantic(const char* cmd, std::string detail) {
    return Error{"decode", std::string(cmd) + " message", 0, std::move(detail)};
}

nlohmann::json endpoints(const std::vector<QpEndpoint>& qps, bool remote) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& q : qps) {
        nlohmann::json e{{"qpn", q.qpn}, {"psn", q.psn}};
        if (remote) {
            e["rkey"] = q.rkey;
            e["addr"] = q.addr;
        }
        a.push_back(std::move(e));
    }
    return a;
}

std::vector<QpEndpoint> parse_endpoints(ctl::Fields& f, std::size_t lo, std::size_t hi,
                                        bool remote) {
    std::vector<QpEndpoint> out;
    for (const auto& e : f.array("qps", lo, hi)) {
        ctl::Fields q(e);
        QpEndpoint p;
        p.qpn = q.u32("qpn", 1, k24);
        p.psn = q.u32("psn", 0, k24);
        if (remote) {
            p.rkey = q.u32("rkey", 0, UINT32_MAX);
            p.addr = q.u64("addr", 0, UINT64_MAX);
        }
        if (!q.ok()) {
            f.invalid("qps", q.error().detail);
            return {};
        }
        out.push_back(p);
    }
    return out;
}

std::uint32_t mtu_field(ctl::Fields& f) {
    const auto m = f.u32("active_mtu", 256, 4096);
    if (f.ok() && m != 256 && m != 512 && m != 1024 && m != 2048 && m != 4096)
        f.invalid("active_mtu", std::to_string(m) + " is not an IB MTU (256..4096, powers of 2)");
    return m;
}

}  // namespace

const char* to_string(Op op) {
    return op == Op::write ? "write" : "send";
}

std::optional<Op> parse_op(const std::string& s) {
    if (s == "write") return Op::write;
    if (s == "send") return Op::send;
    return std::nullopt;
}

std::uint64_t ring_bytes(std::uint64_t size, unsigned queue_depth) {
    return size * ring_slots(queue_depth);
}

nlohmann::json to_json(const Open& m) {
    return {{"cmd", "stream_open"},
            {"op", to_string(m.op)},
            {"size_bytes", m.size_bytes},
            {"queue_depth", m.queue_depth},
            {"seed", m.seed},
            {"qps", endpoints(m.qps, false)},
            {"gid", ctl::gid_hex(m.gid)},
            {"active_mtu", m.active_mtu},
            {"hostname", m.hostname},
            {"device", m.device},
            {"max_ms", m.max_ms},
            {"verify_ppm", m.verify_ppm}};
}

std::uint32_t default_verify_ppm(std::uint64_t size_bytes) {
    return static_cast<std::uint32_t>(slot::default_verify_fraction(size_bytes) * kPpm + 0.5);
}

nlohmann::json to_json(const Ready& m) {
    return {{"cmd", "stream_ready"},      {"slots", m.slots},
            {"recv_depth", m.recv_depth}, {"qps", endpoints(m.qps, true)},
            {"gid", ctl::gid_hex(m.gid)}, {"active_mtu", m.active_mtu},
            {"hostname", m.hostname},     {"device", m.device}};
}

nlohmann::json to_json(const End& m) {
    return {{"cmd", "stream_end"}, {"completed", m.completed}};
}

nlohmann::json to_json(const QpReceived& q) {
    return {{"messages", q.messages},
            {"bytes", q.bytes},
            {"bad_slots", q.bad_slots},
            {"verified_messages", q.verified_messages},
            {"verified_bytes", q.verified_bytes},
            {"bad", ctl::counts_json(q.bad)},
            {"errors", ctl::counts_json(q.errors)},
            {"first_wall_ms", q.first_wall_ms},
            {"last_wall_ms", q.last_wall_ms},
            {"error", q.error}};
}

nlohmann::json to_json(const Received& m) {
    nlohmann::json qps = nlohmann::json::array();
    for (const auto& q : m.qps) qps.push_back(to_json(q));
    return {{"cmd", "stream_result"}, {"qps", qps}, {"note", m.note}};
}

Result<Open> parse_open(const nlohmann::json& j) {
    ctl::Fields f(j);
    Open m;
    const std::string op = f.str("op", 16);
    m.size_bytes = f.u64("size_bytes", limits::kMinMessageBytes, limits::kMaxMessageBytes);
    m.queue_depth = f.u32("queue_depth", 1, limits::kMaxQueueDepth);
    m.seed = f.u32("seed", 0, UINT32_MAX);
    m.qps = parse_endpoints(f, 1, kMaxQps, false);
    m.gid = f.gid("gid");
    m.active_mtu = mtu_field(f);
    m.hostname = f.str("hostname", 63);
    m.device = f.str("device", 63);
    m.max_ms = f.u32("max_ms", 1, kMaxStreamMs);
    const bool ppm_given = f.has("verify_ppm");
    if (ppm_given) m.verify_ppm = f.u32("verify_ppm", 0, kPpm);
    if (!f.ok()) return f.error();
    if (f.cmd() != "stream_open") return semantic("stream_open", "cmd is " + f.cmd());
    const auto o = parse_op(op);
    if (!o) return semantic("stream_open", "\"op\": '" + op + "' (expected write or send)");
    m.op = *o;
    if (!ppm_given) m.verify_ppm = default_verify_ppm(m.size_bytes);
    if (!limits::valid_message_size(m.size_bytes))
        return semantic("stream_open", "\"size_bytes\": " + std::to_string(m.size_bytes) +
                                           " is not a multiple of 8 >= " +
                                           std::to_string(limits::kMinMessageBytes));
    if (const auto ring = ring_bytes(m.size_bytes, m.queue_depth); ring > oob::kMaxBufferBytes)
        return semantic("stream_open", "ring of " + std::to_string(ring_slots(m.queue_depth)) +
                                           " slots x " + std::to_string(m.size_bytes) +
                                           " B exceeds " + std::to_string(oob::kMaxBufferBytes) +
                                           " B per QP: lower the queue depth or the size");
    if (const auto all = ring_bytes(m.size_bytes, m.queue_depth) * m.qps.size();
        all > kMaxSessionBytes)
        return semantic("stream_open", std::to_string(m.qps.size()) + " QPs x ring of " +
                                           std::to_string(ring_bytes(m.size_bytes, m.queue_depth)) +
                                           " B exceed " + std::to_string(kMaxSessionBytes) +
                                           " B per sender: fewer QPs, a lower queue depth or size");
    return m;
}

Result<Ready> parse_ready(const nlohmann::json& j, std::size_t qps) {
    ctl::Fields f(j);
    Ready m;
    m.slots = f.u32("slots", 1, 3 * limits::kMaxQueueDepth);
    m.recv_depth = f.u32("recv_depth", 1, 3 * limits::kMaxQueueDepth);
    m.qps = parse_endpoints(f, qps, qps, true);
    m.gid = f.gid("gid");
    m.active_mtu = mtu_field(f);
    m.hostname = f.str("hostname", 63);
    m.device = f.str("device", 63);
    if (!f.ok()) return f.error();
    if (f.cmd() != "stream_ready") return semantic("stream_ready", "cmd is " + f.cmd());
    return m;
}

Result<End> parse_end(const nlohmann::json& j, std::size_t qps) {
    ctl::Fields f(j);
    End m;
    for (const auto& v : f.array("completed", qps, qps)) {
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
            return semantic("stream_end", "\"completed\": expected whole numbers");
        m.completed.push_back(v.get<std::uint64_t>());
    }
    if (!f.ok()) return f.error();
    if (f.cmd() != "stream_end") return semantic("stream_end", "cmd is " + f.cmd());
    return m;
}

Result<Received> parse_received(const nlohmann::json& j, std::size_t qps) {
    ctl::Fields f(j);
    Received m;
    const auto& arr = f.array("qps", qps, qps);
    m.note = f.str("note", 4096);
    if (!f.ok()) return f.error();
    if (f.cmd() != "stream_result") return semantic("stream_result", "cmd is " + f.cmd());
    for (const auto& e : arr) {
        ctl::Fields q(e);
        QpReceived r;
        r.messages = q.u64("messages", 0, UINT64_MAX);
        r.bytes = q.u64("bytes", 0, UINT64_MAX);
        r.bad_slots = q.u64("bad_slots", 0, UINT64_MAX);
        r.verified_messages = q.u64("verified_messages", 0, r.messages);
        r.verified_bytes = q.u64("verified_bytes", 0, UINT64_MAX);
        r.first_wall_ms = q.i64("first_wall_ms");
        r.last_wall_ms = q.i64("last_wall_ms");
        r.error = q.str("error", 4096);
        r.bad = q.counts("bad");
        r.errors = q.counts("errors");
        if (!q.ok()) return semantic("stream_result", "qps[]: " + q.error().detail);
        m.qps.push_back(std::move(r));
    }
    return m;
}

nlohmann::json error_message(const std::string& text) {
    return {{"cmd", "error"}, {"error", text}};
}

std::optional<std::string> error_text(const nlohmann::json& j) {
    if (!j.is_object() || j.value("cmd", "") != "error") return std::nullopt;
    const auto& e = j.contains("error") ? j["error"] : nlohmann::json();
    return e.is_string() ? e.get<std::string>() : std::string("(no error text)");
}

}  // namespace rh::stream
