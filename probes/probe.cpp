#include "probes/probe.h"

#include <unistd.h>

#include <algorithm>

#include "probes/device_select.h"
#include "probes/latency_phases.h"
#include "probes/oob_protocol.h"
#include "probes/rc_connection.h"
#include "probes/send_latency.h"
#include "probes/tcp.h"

namespace rh {

namespace {

Error bad_option(std::string detail) {
    return Error{"probe", "options", EINVAL, std::move(detail)};
}

Status validate(const ProbeOptions& o) {
    if (o.ops.empty()) return bad_option("no operation");
    if (o.sizes.empty()) return bad_option("no message size");
    for (auto s : o.sizes)
        if (s < 16 || s % 8 != 0 || s > oob::kMaxMessageBytes)
            return bad_option("message size " + std::to_string(s) +
                              " must be a multiple of 8 in [16, " +
                              std::to_string(oob::kMaxMessageBytes) + "]");
    if (o.iterations == 0) return bad_option("iterations must be >= 1");
    if (std::uint64_t(o.iterations) + o.warmup > oob::kMaxCount)
        return bad_option("too many iterations");
    if (o.queue_depth == 0 || o.queue_depth > oob::kMaxQueueDepth)
        return bad_option("queue depth must be in [1, " + std::to_string(oob::kMaxQueueDepth) +
                          "]");
    if (o.timeout_ms <= 0 || o.timeout_ms > int(oob::kMaxTimeoutMs))
        return bad_option("timeout must be in [1, " + std::to_string(oob::kMaxTimeoutMs) + "] ms");
    if (o.rnr_retry > kRnrRetryForever) return bad_option("rnr_retry must be in [0, 7]");
    return ok_status();
}

std::uint32_t op_bit(ProbeOp op) {
    switch (op) {
        case ProbeOp::write:
            return oob::kOpWrite;
        case ProbeOp::read:
            return oob::kOpRead;
        case ProbeOp::send:
            return oob::kOpSend;
    }
    return 0;
}

std::uint32_t ops_mask(const std::vector<ProbeOp>& ops) {
    std::uint32_t m = 0;
    for (auto op : ops) m |= op_bit(op);
    return m;
}

const char* latency_kind(ProbeOp op) {
    return op == ProbeOp::read ? "post to completion" : "half round trip";
}

std::string hostname() {
    char h[256] = "";
    ::gethostname(h, sizeof h - 1);
    return h;
}

/// One (op, size) phase: announce it, wait for the responder to be ready, measure, collect the
/// responder's verdict. A failure here is a measurement error, not a "cannot run".
LatencyStats run_phase(const tcp::Socket& sock, RcConnection& conn, const RemoteBuffer& rb,
                       SendSession* send, const ProbeOptions& o, ProbeOp op, std::uint64_t size,
                       std::uint32_t& seq) {
    LatencyStats st;
    st.op = to_string(op);
    st.latency_kind = latency_kind(op);
    st.size_bytes = size;
    st.queue_depth = op == ProbeOp::read ? o.queue_depth : 1;

    PhaseSpec p;
    p.size = size;
    p.count = o.iterations + o.warmup;
    p.warmup = o.warmup;
    p.seq_base = seq;
    p.queue_depth = st.queue_depth;
    p.timeout_ms = o.timeout_ms;
    p.control_fd = sock.fd();
    p.peer_role = "responder";
    seq += p.count + oob::kMaxQueueDepth;

    oob::Message m;
    m.type = oob::Type::phase;
    m.ops = op_bit(op);
    m.max_msg_size = size;
    m.count = p.count;
    m.seq_base = p.seq_base;
    m.queue_depth = p.queue_depth;
    m.timeout_ms = static_cast<std::uint32_t>(o.timeout_ms);
    // Our receive slots must hold no stale seq before the responder can write into them.
    if (op == ProbeOp::write) std::fill_n(conn.buffer().begin(), 4 * size, std::byte{0});
    auto dl = tcp::deadline_in(o.timeout_ms);
    if (auto s = tcp::send_msg(sock, m, dl); !s) return st.error = s.error().message(), st;
    auto ready = tcp::recv_msg(sock, dl);
    if (!ready) return st.error = "waiting for the responder: " + ready.error().message(), st;
    if (ready->type != oob::Type::phase_ready)
        return st.error = "responder: " +
                          (ready->text.empty() ? oob::to_string(ready->type) : ready->text),
               st;

    PhaseResult r = op == ProbeOp::write  ? write_pingpong_client(conn, rb, p)
                    : op == ProbeOp::read ? read_client(conn, rb, p)
                                          : send_pingpong_client(*send, p);
    summarize(r.samples_us, r.wall_seconds, st);
    st.checksum_errors = r.checksum_errors;
    st.error = r.error;
    if (!st.error.empty()) return st;  // the QP is in error now; the responder times out alone

    // The responder's verdict: its own checksum errors (WRITE/SEND pings) or its failure. Its
    // wait for our last ping is over once we saw its reply, so the normal deadline applies.
    auto done = tcp::recv_msg(sock, tcp::deadline_in(o.timeout_ms));
    if (!done)
        return st.error = "waiting for the responder's result: " + done.error().message(), st;
    if (done->type != oob::Type::phase_done)
        return st.error = "responder: unexpected " + std::string(oob::to_string(done->type)), st;
    st.checksum_errors += done->checksum_errors;
    if (!done->text.empty()) st.error = "responder: " + done->text;
    return st;
}

}  // namespace

const char* to_string(ProbeOp op) {
    switch (op) {
        case ProbeOp::write:
            return "write";
        case ProbeOp::read:
            return "read";
        case ProbeOp::send:
            return "send";
    }
    return "?";
}

std::uint64_t ProbeReport::checksum_errors() const {
    std::uint64_t n = 0;
    for (const auto& r : results) n += r.checksum_errors;
    return n;
}

Result<ProbeReport> run_probe(const ProbeOptions& o) {
    if (auto v = validate(o); !v) return v.error();
    auto hp = tcp::parse_host_port(o.peer, oob::kDefaultPort);
    if (!hp) return hp.error();
    auto where = choose_port(SysfsRoot(o.sysfs_root), o.device, o.gid_index);
    if (!where) return where.error();

    const std::uint32_t ops = ops_mask(o.ops);
    const std::uint64_t max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
    const unsigned qd = (ops & oob::kOpRead) ? o.queue_depth : 1;
    const std::uint64_t buf_len = oob::buffer_bytes(ops, max_size, qd);
    if (buf_len > oob::kMaxBufferBytes)
        return bad_option("queue depth x largest size needs " + std::to_string(buf_len) +
                          " bytes > " + std::to_string(oob::kMaxBufferBytes));

    // Our buffer: the responder WRITEs replies into it; READ responses and SENDs land in it
    // locally (SEND alone needs no remote access).
    // Registered BEFORE connecting: pinning a large buffer can take seconds on a busy host, and
    // the responder gives a new connection only handshake_timeout_ms for its first message.
    int access = IBV_ACCESS_LOCAL_WRITE;
    if (ops & oob::kOpWrite) access |= IBV_ACCESS_REMOTE_WRITE;
    const bool sends = (ops & oob::kOpSend) != 0;
    auto conn = RcConnection::open({*where, buf_len, access, std::max(4u, qd + 2),
                                    sends ? kClientRecvDepth : 1u, o.rnr_retry});
    if (!conn) return conn.error();
    RcConnection& c = **conn;

    auto sock = tcp::connect(*hp, tcp::deadline_in(o.timeout_ms));
    if (!sock) return sock.error();

    oob::Message req;
    req.type = oob::Type::probe_request;
    req.ops = ops;
    req.qpn = c.qpn();
    req.psn = c.psn();
    req.gid = where->gid;
    req.gid_index = where->gid_index;
    req.port = where->port;
    req.active_mtu = c.active_mtu_bytes();
    req.rkey = c.rkey();
    req.addr = c.addr();
    req.buf_len = buf_len;
    req.max_msg_size = max_size;
    req.queue_depth = qd;
    req.rd_atomic = c.rd_atomic();
    req.timeout_ms = static_cast<std::uint32_t>(o.timeout_ms);
    req.device = where->device;
    req.hostname = hostname();
    req.gid_type = where->gid_type;
    const std::string subject = "responder at " + hp->str();
    // The responder registers its own buffer before replying, which can take long under load:
    // wait for the reply at least kSetupTimeoutMs.
    auto dl = tcp::deadline_in(std::max(o.timeout_ms, kSetupTimeoutMs));
    if (auto s = tcp::send_msg(*sock, req, dl); !s)
        return Error{"handshake", subject, 0, s.error().message()};
    auto rep = tcp::recv_msg(*sock, dl);
    if (!rep) return Error{"handshake", subject, 0, rep.error().message()};
    if (auto s = oob::check_probe_reply(req, *rep); !s)
        return Error{"handshake", subject, 0, s.error().detail};

    ProbeReport out;
    out.peer = hp->str();
    out.device = where->device;
    out.port = where->port;
    out.gid_index = where->gid_index;
    out.gid = where->gid_text;
    out.gid_type = where->gid_type;
    out.remote_hostname = rep->hostname;
    out.remote_device = rep->device;
    out.remote_gid_index = rep->gid_index;
    out.remote_gid = gid_to_string(rep->gid);
    out.local_active_mtu_bytes = c.active_mtu_bytes();
    out.remote_active_mtu_bytes = rep->active_mtu;
    out.path_mtu_bytes = std::min(out.local_active_mtu_bytes, out.remote_active_mtu_bytes);
    out.queue_depth = qd;
    out.qp_timeout = kQpTimeout;
    out.qp_retry_cnt = kQpRetryCnt;
    out.qp_rnr_retry = o.rnr_retry;
    if (sends) out.remote_recv_depth = rep->recv_depth;

    const unsigned rd = std::min(c.rd_atomic(), rep->rd_atomic ? rep->rd_atomic : 1u);
    if (auto s = c.connect({rep->qpn, rep->psn, rep->gid}, out.path_mtu_bytes, rd); !s)
        return s.error();

    const RemoteBuffer rb{rep->addr, rep->rkey};
    std::optional<SendSession> send;
    if (sends) {
        send.emplace(c, max_size, kClientRecvDepth);
        if (auto s = send->fill(); !s) return s.error();
    }
    std::uint32_t seq = 1;
    std::string failed;  // "write 65536 B" once a phase failed
    for (auto op : o.ops) {
        for (auto size : o.sizes) {
            if (!failed.empty()) {
                // The QP (or the session) is broken; later phases cannot run. Say so per phase.
                LatencyStats st;
                st.op = to_string(op);
                st.latency_kind = latency_kind(op);
                st.size_bytes = size;
                st.queue_depth = op == ProbeOp::read ? o.queue_depth : 1;
                st.skipped = "not run: " + failed + " failed before it";
                out.results.push_back(std::move(st));
                continue;
            }
            out.results.push_back(
                run_phase(*sock, c, rb, send ? &*send : nullptr, o, op, size, seq));
            if (!out.results.back().error.empty()) {
                out.errors.push_back(out.results.back().error);
                failed = out.results.back().op + " " + std::to_string(size) + " B";
            }
        }
    }
    if (!failed.empty()) return out;
    oob::Message bye;
    bye.type = oob::Type::bye;
    (void)tcp::send_msg(*sock, bye, tcp::deadline_in(o.timeout_ms));
    return out;
}

nlohmann::json to_json(const LatencyStats& s) {
    nlohmann::json j{{"op", s.op},
                     {"latency_kind", s.latency_kind},
                     {"size_bytes", s.size_bytes},
                     {"queue_depth", s.queue_depth}};
    if (!s.skipped.empty()) {
        j["skipped"] = s.skipped;
        return j;
    }
    // A failed phase reports no latency figures (null), only how far it got and why.
    const bool m = s.measured();
    auto num = [m](double v) { return m ? nlohmann::json(v) : nlohmann::json(nullptr); };
    j["iterations"] = m ? nlohmann::json(s.iterations) : nlohmann::json(nullptr);
    if (!m) j["iterations_completed"] = s.iterations;
    j["min_us"] = num(s.min_us);
    j["p50_us"] = num(s.p50_us);
    j["p99_us"] = num(s.p99_us);
    j["p999_us"] = m && s.has_p999() ? nlohmann::json(s.p999_us) : nlohmann::json(nullptr);
    if (m && !s.has_p999())
        j["p999_note"] = "needs at least " + std::to_string(LatencyStats::kMinIterationsForP999) +
                         " iterations; with fewer, nearest rank makes p99.9 the maximum";
    j["max_us"] = num(s.max_us);
    j["mean_us"] = num(s.mean_us);
    j["msg_rate_per_s"] = num(s.msg_rate_per_s);
    j["checksum_errors"] = s.checksum_errors;
    if (!s.error.empty()) j["error"] = s.error;
    return j;
}

nlohmann::json to_json(const ProbeReport& r) {
    nlohmann::json res = nlohmann::json::array();
    for (const auto& s : r.results) res.push_back(to_json(s));
    return {{"peer", r.peer},
            {"local",
             {{"device", r.device},
              {"port", r.port},
              {"gid_index", r.gid_index},
              {"gid", r.gid},
              {"gid_type", r.gid_type},
              {"active_mtu_bytes", r.local_active_mtu_bytes}}},
            {"remote",
             {{"hostname", r.remote_hostname},
              {"device", r.remote_device},
              {"gid_index", r.remote_gid_index},
              {"gid", r.remote_gid},
              {"active_mtu_bytes", r.remote_active_mtu_bytes},
              {"recv_depth", r.remote_recv_depth ? nlohmann::json(*r.remote_recv_depth)
                                                 : nlohmann::json(nullptr)}}},
            {"path_mtu_bytes", r.path_mtu_bytes},
            {"qp",
             {{"timeout", r.qp_timeout},
              {"retry_cnt", r.qp_retry_cnt},
              {"rnr_retry", r.qp_rnr_retry}}},
            {"results", res},
            {"checksum_errors", r.checksum_errors()},
            {"errors", r.errors},
            {"ok", r.ok()}};
}

}  // namespace rh
