#include "probes/wire/oob_protocol.h"

#include <algorithm>
#include <cstring>

#include "core/json_file.h"
#include "probes/wire/slot.h"

namespace rh::oob {

namespace {

struct Field {
    std::size_t off;
    std::size_t len;
};
constexpr Field kDevice{112, 32}, kHostname{144, 64}, kGidType{208, 16}, kText{224, 96};

class Writer {
  public:
    explicit Writer(Frame& f) : f_(f) {}
    void u16(std::size_t off, std::uint16_t v) { be(off, v, 2); }
    void u32(std::size_t off, std::uint32_t v) { be(off, v, 4); }
    void u64(std::size_t off, std::uint64_t v) { be(off, v, 8); }
    void str(Field fl, const std::string& s) {
        const std::size_t n = std::min(s.size(), fl.len - 1);
        for (std::size_t i = 0; i < n; ++i) {
            const unsigned char c = static_cast<unsigned char>(s[i]);
            f_[fl.off + i] = static_cast<std::byte>(c >= 0x20 && c < 0x7f ? c : '?');
        }
    }

  private:
    void be(std::size_t off, std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) f_[off + i] = static_cast<std::byte>(v >> (8 * (n - 1 - i)));
    }
    Frame& f_;
};

std::uint64_t be(std::span<const std::byte> f, std::size_t off, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | std::to_integer<std::uint8_t>(f[off + i]);
    return v;
}
std::uint32_t u32(std::span<const std::byte> f, std::size_t off) {
    return static_cast<std::uint32_t>(be(f, off, 4));
}

Error bad(std::string detail) {
    return Error{"decode", "handshake message", 0, std::move(detail)};
}

/// Names both versions and what to do: every version change so far changed what a peer must
/// understand (version 4: slot checksums), so there is no partial compatibility to offer.
Error version_mismatch(unsigned peer, unsigned ours, const char* what) {
    return bad(
        "unsupported version: peer speaks protocol version " + std::to_string(peer) + " in a " +
        what + ", this build speaks " + std::to_string(ours) +
        (peer < ours ? " (upgrade rocehealth on the peer: " : " (upgrade this rocehealth: ") +
        "both ends must speak the same version)");
}

Result<std::string> str(std::span<const std::byte> f, Field fl, const char* name) {
    std::string s;
    for (std::size_t i = 0; i < fl.len; ++i) {
        const auto c = std::to_integer<unsigned char>(f[fl.off + i]);
        if (c == 0) {
            // Everything after the terminator must be zero too (no smuggled bytes).
            for (std::size_t j = i + 1; j < fl.len; ++j)
                if (f[fl.off + j] != std::byte{0})
                    return bad(std::string(name) + ": bytes after the terminating NUL");
            return s;
        }
        if (c < 0x20 || c >= 0x7f) return bad(std::string(name) + ": non-printable byte");
        s.push_back(static_cast<char>(c));
    }
    return bad(std::string(name) + ": not NUL-terminated");
}

bool valid_mtu(std::uint32_t m) {
    return m == 0 || m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096;
}

}  // namespace

const char* to_string(Type t) {
    switch (t) {
        case Type::query:
            return "query";
        case Type::query_reply:
            return "query_reply";
        case Type::probe_request:
            return "probe_request";
        case Type::probe_reply:
            return "probe_reply";
        case Type::phase:
            return "phase";
        case Type::phase_ready:
            return "phase_ready";
        case Type::phase_done:
            return "phase_done";
        case Type::bye:
            return "bye";
        case Type::error:
            return "error";
        case Type::json:
            return "json";
    }
    return "?";
}

Frame encode(const Message& m) {
    Frame f{};
    Writer w(f);
    w.u32(0, kMagic);
    w.u16(4, kVersion);
    w.u16(6, static_cast<std::uint16_t>(m.type));
    w.u32(8, kMessageSize);
    w.u32(12, m.ops);
    w.u32(16, m.qpn);
    w.u32(20, m.psn);
    for (std::size_t i = 0; i < 16; ++i) f[24 + i] = static_cast<std::byte>(m.gid[i]);
    w.u32(40, m.gid_index);
    w.u32(44, m.port);
    w.u32(48, m.active_mtu);
    w.u32(52, m.rkey);
    w.u64(56, m.addr);
    w.u64(64, m.buf_len);
    w.u64(72, m.max_msg_size);
    w.u32(80, m.queue_depth);
    w.u32(84, m.rd_atomic);
    w.u32(88, m.count);
    w.u32(92, m.seq_base);
    w.u32(96, m.timeout_ms);
    w.u32(100, m.recv_depth);
    w.u64(104, m.checksum_errors);
    w.str(kDevice, m.device);
    w.str(kHostname, m.hostname);
    w.str(kGidType, m.gid_type);
    w.str(kText, m.text);
    return f;
}

Status check_header(std::span<const std::byte> h) {
    if (h.size() < kHeaderSize)
        return bad("truncated: " + std::to_string(h.size()) + " of " + std::to_string(kHeaderSize) +
                   " header bytes");
    if (const auto magic = u32(h, 0); magic != kMagic) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "bad magic 0x%08x (expected 0x%08x)", magic, kMagic);
        return bad(buf);
    }
    const auto v = be(h, 4, 2);
    const auto len = u32(h, 8);
    if (be(h, 6, 2) == static_cast<std::uint16_t>(Type::json)) {
        if (v != kJsonVersion) return version_mismatch(v, kJsonVersion, "json frame");
        if (len < kHeaderSize + 2 || len > kHeaderSize + kMaxJsonBytes)
            return bad("json frame length " + std::to_string(len) + " (expected " +
                       std::to_string(kHeaderSize + 2) + ".." +
                       std::to_string(kHeaderSize + kMaxJsonBytes) + ")");
        return ok_status();
    }
    if (v != kVersion) return version_mismatch(v, kVersion, "frame");
    if (len != kMessageSize)
        return bad("length " + std::to_string(len) + " (expected " + std::to_string(kMessageSize) +
                   ")");
    return ok_status();
}

Result<std::size_t> frame_length(std::span<const std::byte> h) {
    if (auto c = check_header(h); !c) return c.error();
    return static_cast<std::size_t>(u32(h, 8));
}

bool is_json_header(std::span<const std::byte> h) {
    return check_header(h).ok() && be(h, 6, 2) == static_cast<std::uint16_t>(Type::json);
}

Result<std::vector<std::byte>> encode_json(const nlohmann::json& body) {
    if (!body.is_object() || !body.contains("cmd") || !body["cmd"].is_string())
        return Error{"encode", "json frame", EINVAL, "not an object with a string \"cmd\""};
    // ensure_ascii: every byte on the wire is ASCII; invalid UTF-8 in a string is replaced.
    const std::string text = body.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    if (text.size() > kMaxJsonBytes)
        return Error{
            "encode", "json frame", EMSGSIZE,
            std::to_string(text.size()) + " bytes > limit " + std::to_string(kMaxJsonBytes)};
    std::vector<std::byte> f(kHeaderSize + text.size());
    const auto put = [&f](std::size_t off, std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) f[off + i] = static_cast<std::byte>(v >> (8 * (n - 1 - i)));
    };
    put(0, kMagic, 4);
    put(4, kJsonVersion, 2);
    put(6, static_cast<std::uint16_t>(Type::json), 2);
    put(8, f.size(), 4);
    std::memcpy(f.data() + kHeaderSize, text.data(), text.size());
    return f;
}

Result<nlohmann::json> decode_json(std::span<const std::byte> f) {
    auto len = frame_length(f);
    if (!len) return len.error();
    if (!is_json_header(f))
        return bad("not a json frame (type " + std::to_string(be(f, 6, 2)) + ")");
    if (f.size() < *len)
        return bad("truncated: " + std::to_string(f.size()) + " of " + std::to_string(*len) +
                   " bytes");
    if (f.size() > *len) return bad("oversize: " + std::to_string(f.size()) + " bytes");
    const char* text = reinterpret_cast<const char*>(f.data() + kHeaderSize);
    // The one strict reader (core/json_file.h): a number no double holds (1e400) or a key given
    // twice is refused by name, never thrown out of the responder's connection thread.
    auto parsed = parse_json_text(std::string(text, *len - kHeaderSize), "json frame", "decode");
    if (!parsed) {
        std::string why = parsed.error().detail;
        if (why.rfind("not valid JSON", 0) == 0) why.erase(0, 14);
        return bad("json frame: not JSON" + why);
    }
    nlohmann::json j = std::move(*parsed);
    if (!j.is_object()) return bad("json frame: not a JSON object");
    if (!j.contains("cmd") || !j["cmd"].is_string()) return bad("json frame: no string \"cmd\"");
    return j;
}

Result<Message> decode(std::span<const std::byte> f) {
    if (auto h = check_header(f); !h) return h.error();
    if (f.size() < kMessageSize)
        return bad("truncated: " + std::to_string(f.size()) + " of " +
                   std::to_string(kMessageSize) + " bytes");
    if (f.size() > kMessageSize) return bad("oversize: " + std::to_string(f.size()) + " bytes");
    Message m;
    const auto type = be(f, 6, 2);
    // (json frames are decoded by decode_json)
    if (type < 1 || type > 9) return bad("unknown message type " + std::to_string(type));
    m.type = static_cast<Type>(type);
    m.ops = u32(f, 12);
    m.qpn = u32(f, 16);
    m.psn = u32(f, 20);
    for (std::size_t i = 0; i < 16; ++i) m.gid[i] = std::to_integer<std::uint8_t>(f[24 + i]);
    m.gid_index = u32(f, 40);
    m.port = u32(f, 44);
    m.active_mtu = u32(f, 48);
    m.rkey = u32(f, 52);
    m.addr = be(f, 56, 8);
    m.buf_len = be(f, 64, 8);
    m.max_msg_size = be(f, 72, 8);
    m.queue_depth = u32(f, 80);
    m.rd_atomic = u32(f, 84);
    m.count = u32(f, 88);
    m.seq_base = u32(f, 92);
    m.timeout_ms = u32(f, 96);
    m.recv_depth = u32(f, 100);
    m.checksum_errors = be(f, 104, 8);
    if (m.ops & ~kAllOps) return bad("unknown operation bits " + std::to_string(m.ops));
    if (m.qpn > 0xFFFFFF) return bad("qpn " + std::to_string(m.qpn) + " exceeds 24 bits");
    if (m.psn > 0xFFFFFF) return bad("psn " + std::to_string(m.psn) + " exceeds 24 bits");
    if (!valid_mtu(m.active_mtu)) return bad("active_mtu " + std::to_string(m.active_mtu));
    if (m.gid_index > 0xFFFF) return bad("gid_index " + std::to_string(m.gid_index));
    if (m.port > 0xFF) return bad("port " + std::to_string(m.port));
    if (m.max_msg_size > limits::kMaxMessageBytes)
        return bad("message size " + std::to_string(m.max_msg_size) + " exceeds limit " +
                   std::to_string(limits::kMaxMessageBytes));
    if (m.buf_len > kMaxBufferBytes)
        return bad("buffer length " + std::to_string(m.buf_len) + " exceeds limit " +
                   std::to_string(kMaxBufferBytes));
    if (m.addr > UINT64_MAX - m.buf_len) return bad("buffer address + length overflows");
    if (m.queue_depth > limits::kMaxQueueDepth)
        return bad("queue depth " + std::to_string(m.queue_depth));
    if (m.rd_atomic > 255) return bad("rd_atomic " + std::to_string(m.rd_atomic));
    if (m.count > limits::kMaxCount) return bad("count " + std::to_string(m.count));
    if (m.timeout_ms > kMaxTimeoutMs) return bad("timeout_ms " + std::to_string(m.timeout_ms));
    if (m.recv_depth > kMaxRecvDepth)
        return bad("recv_depth " + std::to_string(m.recv_depth) + " exceeds limit " +
                   std::to_string(kMaxRecvDepth));
    auto dev = str(f, kDevice, "device");
    if (!dev) return dev.error();
    auto host = str(f, kHostname, "hostname");
    if (!host) return host.error();
    auto gt = str(f, kGidType, "gid_type");
    if (!gt) return gt.error();
    auto text = str(f, kText, "text");
    if (!text) return text.error();
    m.device = *dev;
    m.hostname = *host;
    m.gid_type = *gt;
    m.text = *text;
    return m;
}

std::uint64_t buffer_bytes(std::uint32_t ops, std::uint64_t max_msg_size,
                           std::uint32_t queue_depth) {
    std::uint64_t slots = 0;
    if (ops & (kOpWrite | kOpSend)) slots = 4;
    if (ops & kOpRead) slots = std::max<std::uint64_t>(slots, queue_depth);
    return slots * max_msg_size;
}

namespace {
Error semantic(std::string detail) {
    return Error{"handshake", "", 0, std::move(detail)};
}
}  // namespace

Status check_probe_request(const Message& m) {
    if (m.type != Type::probe_request) return semantic("expected probe_request");
    if (m.ops == 0) return semantic("no operation requested");
    if (!slot::valid_size(m.max_msg_size))
        return semantic("message size " + std::to_string(m.max_msg_size) +
                        " is not a multiple of 8 >= " + std::to_string(slot::kMinSize));
    if ((m.ops & kOpRead) && m.queue_depth == 0) return semantic("READ needs queue depth >= 1");
    if ((m.ops & kOpRead) && m.rd_atomic == 0) return semantic("READ needs rd_atomic >= 1");
    const auto need = buffer_bytes(m.ops, m.max_msg_size, m.queue_depth);
    if (need > kMaxBufferBytes)
        return semantic("buffer of " + std::to_string(need) + " bytes needed");
    if ((m.ops & kOpWrite) && m.buf_len < need)
        return semantic("client buffer of " + std::to_string(m.buf_len) + " bytes < " +
                        std::to_string(need) + " needed");
    if (m.active_mtu == 0) return semantic("client active_mtu unknown");
    if (m.recv_depth != 0) return semantic("recv_depth is the responder's; a request carries 0");
    return ok_status();
}

Status check_probe_reply(const Message& req, const Message& r) {
    if (r.type == Type::error) return semantic("responder refused: " + r.text);
    if (r.type != Type::probe_reply)
        return semantic(std::string("expected probe_reply, got ") + to_string(r.type));
    if (r.ops != req.ops) return semantic("responder granted different operations");
    const auto need = buffer_bytes(req.ops, req.max_msg_size, req.queue_depth);
    if (r.buf_len < need)
        return semantic("responder buffer of " + std::to_string(r.buf_len) + " bytes < " +
                        std::to_string(need) + " needed");
    if (r.active_mtu == 0) return semantic("responder active_mtu unknown");
    if ((req.ops & kOpRead) && r.rd_atomic == 0) return semantic("responder rd_atomic is 0");
    if (!(req.ops & kOpSend) && r.recv_depth != 0)
        return semantic("responder sent recv_depth for a session without SEND");
    return ok_status();
}

Status check_phase(const Message& p, const Message& req) {
    if (p.type != Type::phase)
        return semantic(std::string("expected phase, got ") + to_string(p.type));
    if (p.ops != kOpWrite && p.ops != kOpRead && p.ops != kOpSend)
        return semantic("phase must name exactly one op");
    if (!(p.ops & req.ops)) return semantic("phase op was not negotiated for this session");
    if (!slot::valid_size(p.max_msg_size) || p.max_msg_size > req.max_msg_size)
        return semantic("phase message size " + std::to_string(p.max_msg_size) + " invalid");
    if (p.count == 0) return semantic("phase count is 0");
    if (p.ops == kOpRead && (p.queue_depth == 0 || p.queue_depth > req.queue_depth))
        return semantic("phase queue depth " + std::to_string(p.queue_depth) + " invalid");
    if (p.seq_base == 0 || p.seq_base > UINT32_MAX - p.count - limits::kMaxQueueDepth)
        return semantic("phase seq_base invalid");
    if (p.recv_depth != 0) return semantic("phase carries a recv_depth");
    return ok_status();
}

}  // namespace rh::oob
