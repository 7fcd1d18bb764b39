#include "probes/latency/probe_session.h"
#include "probes/wire/slot.h"

#include <unistd.h>

#include <algorithm>

#include "core/hostname.h"
#include "probes/auth/handshake.h"
#include "probes/verbs/device_select.h"
#include "probes/verbs/wc_status.h"
#include "probes/wire/oob_protocol.h"

namespace rh {

namespace {

Error bad_option(std::string detail) {
    return Error{"probe", "options", EINVAL, std::move(detail)};
}

Status validate(const ProbeOptions& o) {
    if (o.ops.empty()) return bad_option("no operation");
    if (o.sizes.empty()) return bad_option("no message size");
    for (auto s : o.sizes)
        if (!limits::valid_message_size(s))
            return bad_option("message size " + std::to_string(s) + ": expected " +
                              limits::message_size_rule());
    if (o.iterations == 0) return bad_option("iterations must be >= 1");
    if (std::uint64_t(o.iterations) + o.warmup > limits::kMaxCount)
        return bad_option("too many iterations");
    if (o.queue_depth == 0 || o.queue_depth > limits::kMaxQueueDepth)
        return bad_option("queue depth must be in [1, " + std::to_string(limits::kMaxQueueDepth) +
                          "]");
    if (o.timeout_ms <= 0 || o.timeout_ms > int(oob::kMaxTimeoutMs))
        return bad_option("timeout must be in [1, " + std::to_string(oob::kMaxTimeoutMs) + "] ms");
    if (o.rnr_retry > limits::kMaxRnrRetry)
        return bad_option("rnr_retry must be in [0, " + std::to_string(limits::kMaxRnrRetry) + "]");
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

}  // namespace

bool needs_fabric_key(const ProbeOptions& o) {
    const std::uint32_t ops = ops_mask(o.ops);
    if (o.sizes.empty()) return false;
    const std::uint64_t max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
    const unsigned qd = (ops & oob::kOpRead) ? o.queue_depth : 1;
    const bool long_read =
        (ops & oob::kOpRead) &&
        std::uint64_t(o.iterations + o.warmup) * std::uint64_t(std::max(o.timeout_ms, 1000)) >
            limits::kUnauthReadPhaseMs;
    return oob::buffer_bytes(ops, max_size, qd) > limits::kUnauthSessionBytes || long_read;
}

const char* latency_kind(ProbeOp op) {
    return op == ProbeOp::read ? "post to completion" : "half round trip";
}

namespace {

/// The probe_request: our QP, buffer and port, the session's operations and largest size.
oob::Message probe_request_of(const ProbeOptions& o, std::uint32_t ops, const RcConnection& c,
                              const PortChoice& where, std::uint64_t buf_len,
                              std::uint64_t max_size, unsigned qd) {
    oob::Message req;
    req.type = oob::Type::probe_request;
    req.ops = ops;
    req.qpn = c.qpn();
    req.psn = c.psn();
    req.gid = where.gid;
    req.gid_index = where.gid_index;
    req.port = where.port;
    req.active_mtu = c.active_mtu_bytes();
    req.rkey = c.rkey();
    req.addr = c.addr();
    req.buf_len = buf_len;
    req.max_msg_size = max_size;
    req.queue_depth = qd;
    req.rd_atomic = c.rd_atomic();
    req.timeout_ms = static_cast<std::uint32_t>(o.timeout_ms);
    req.device = where.device;
    req.hostname = host_name();
    req.gid_type = where.gid_type;
    return req;
}

/// The control connection to the responder. A responder lends a peer that has not proven the
/// fabric key limits::kUnauthSessionBytes of buffers and kUnauthReadPhaseMs per READ phase
/// (probes/responder/probe_budget.h). A probe past them proves the key first when this host
/// holds one (the responder then serves it in its keyed pool); without a key the responder
/// refuses it by name. Within them the probe stays unauthenticated, so a host mid key rotation
/// keeps its mesh.
Result<tcp::Socket> connect_responder(const ProbeOptions& o, const tcp::HostPort& hp) {
    const bool keyed = needs_fabric_key(o) && auth::process_key() != nullptr;
    return keyed ? auth::connect_control(hp, tcp::deadline_in(o.timeout_ms))
                 : tcp::connect(hp, tcp::deadline_in(o.timeout_ms));
}

/// Sends `req` and takes the responder's checked probe_reply. The responder registers its own
/// buffer before replying, which can take long under load: the reply is waited for at least
/// kSetupTimeoutMs.
Result<oob::Message> handshake(const tcp::Socket& sock, const oob::Message& req,
                               const tcp::HostPort& hp, int timeout_ms) {
    const std::string subject = "responder at " + hp.str();
    auto dl = tcp::deadline_in(std::max(timeout_ms, kSetupTimeoutMs));
    if (auto s = tcp::send_msg(sock, req, dl); !s)
        return Error{"handshake", subject, 0, s.error().message()};
    auto rep = tcp::recv_msg(sock, dl);
    if (!rep) return Error{"handshake", subject, 0, rep.error().message()};
    if (auto s = oob::check_probe_reply(req, *rep); !s)
        return Error{"handshake", subject, 0, s.error().detail};
    return std::move(*rep);
}

/// The report's header: both ends, the path MTU and the QP's settings.
void fill_header(ProbeReport& out, const ProbeOptions& o, const tcp::HostPort& hp,
                 const PortChoice& where, const oob::Message& rep, const RcConnection& c,
                 unsigned qd, bool sends) {
    out.peer = hp.str();
    out.device = where.device;
    out.port = where.port;
    out.gid_index = where.gid_index;
    out.gid = where.gid_text;
    out.gid_type = where.gid_type;
    out.remote_hostname = rep.hostname;
    out.remote_device = rep.device;
    out.remote_gid_index = rep.gid_index;
    out.remote_gid = gid_to_string(rep.gid);
    out.local_active_mtu_bytes = c.active_mtu_bytes();
    out.remote_active_mtu_bytes = rep.active_mtu;
    out.path_mtu_bytes = std::min(out.local_active_mtu_bytes, out.remote_active_mtu_bytes);
    out.queue_depth = qd;
    out.qp_timeout = c.qp_timeout();
    out.qp_retry_cnt = kQpRetryCnt;
    out.qp_rnr_retry = o.rnr_retry;
    if (sends) out.remote_recv_depth = rep.recv_depth;
}

}  // namespace

Result<std::unique_ptr<ProbeSession>> ProbeSession::open(const ProbeOptions& o) {
    auto local = [](Error e) {  // this host's side could not be set up
        e.cause = kCauseLocalSetup;
        return e;
    };
    if (auto v = validate(o); !v) return local(v.error());
    auto hp = tcp::parse_host_port(o.peer, oob::kDefaultPort);
    if (!hp) return local(hp.error());
    auto where = choose_port(SysfsRoot(o.sysfs_root), o.device, o.gid_index);
    if (!where) return local(where.error());

    const std::uint32_t ops = ops_mask(o.ops);
    const std::uint64_t max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
    const unsigned qd = (ops & oob::kOpRead) ? o.queue_depth : 1;
    const std::uint64_t buf_len = oob::buffer_bytes(ops, max_size, qd);
    if (buf_len > oob::kMaxBufferBytes)
        return local(bad_option("queue depth x largest size needs " + std::to_string(buf_len) +
                                " bytes > " + std::to_string(oob::kMaxBufferBytes)));

    std::unique_ptr<ProbeSession> ps(new ProbeSession());
    ps->o_ = o;
    // Our buffer: the responder WRITEs replies into it; READ responses and SENDs land in it
    // locally (SEND alone needs no remote access).
    // Registered BEFORE connecting: pinning a large buffer can take seconds on a busy host, and
    // the responder gives a new connection only handshake_timeout_ms for its first message.
    int access = IBV_ACCESS_LOCAL_WRITE;
    if (ops & oob::kOpWrite) access |= IBV_ACCESS_REMOTE_WRITE;
    const bool sends = (ops & oob::kOpSend) != 0;
    auto conn = RcConnection::open({*where, buf_len, access, std::max(4u, qd + 2),
                                    sends ? kClientRecvDepth : 1u, o.rnr_retry});
    if (!conn) return local(conn.error());
    ps->conn_ = std::move(*conn);
    RcConnection& c = *ps->conn_;

    auto sock = connect_responder(o, *hp);
    if (!sock) return sock.error();
    ps->sock_ = std::move(*sock);
    const oob::Message req = probe_request_of(o, ops, c, *where, buf_len, max_size, qd);
    auto rep = handshake(ps->sock_, req, *hp, o.timeout_ms);
    if (!rep) return rep.error();
    fill_header(ps->header_, o, *hp, *where, *rep, c, qd, sends);

    const unsigned rd = std::min(c.rd_atomic(), rep->rd_atomic ? rep->rd_atomic : 1u);
    if (auto s = c.connect({rep->qpn, rep->psn, rep->gid}, ps->header_.path_mtu_bytes, rd); !s)
        return s.error();

    ps->rb_ = RemoteBuffer{rep->addr, rep->rkey};
    if (sends) {
        ps->send_.emplace(c, max_size, kClientRecvDepth);
        if (auto s = ps->send_->fill(); !s) return s.error();
    }
    return ps;
}

/// One (op, size) phase: announce it, wait for the responder to be ready, measure, collect the
/// responder's verdict. A failure here is a measurement error, not a "cannot run".
LatencyStats ProbeSession::run_phase(ProbeOp op, std::uint64_t size, unsigned iterations,
                                     unsigned warmup, std::vector<double>* raw) {
    LatencyStats st;
    st.op = to_string(op);
    st.latency_kind = latency_kind(op);
    st.size_bytes = size;
    st.queue_depth = op == ProbeOp::read ? o_.queue_depth : 1;
    if (broken_) return st.error = "session broken by an earlier failed phase", st;

    PhaseSpec p;
    p.size = size;
    p.count = iterations + warmup;
    p.warmup = warmup;
    p.seq_base = seq_;
    p.queue_depth = st.queue_depth;
    p.timeout_ms = o_.timeout_ms;
    p.control_fd = sock_.fd();
    p.peer_role = "responder";
    seq_ += p.count + limits::kMaxQueueDepth;

    oob::Message m;
    m.type = oob::Type::phase;
    m.ops = op_bit(op);
    m.max_msg_size = size;
    m.count = p.count;
    m.seq_base = p.seq_base;
    m.queue_depth = p.queue_depth;
    m.timeout_ms = static_cast<std::uint32_t>(o_.timeout_ms);
    RcConnection& conn = *conn_;
    // Our receive slots must hold no stale seq before the responder can write into them.
    if (op == ProbeOp::write) std::fill_n(conn.buffer().begin(), 4 * size, std::byte{0});
    broken_ = true;  // until the phase is done
    auto dl = tcp::deadline_in(o_.timeout_ms);
    if (auto s = tcp::send_msg(sock_, m, dl); !s) return st.error = s.error().message(), st;
    auto ready = tcp::recv_msg(sock_, dl);
    if (!ready) return st.error = "waiting for the responder: " + ready.error().message(), st;
    if (ready->type != oob::Type::phase_ready)
        return st.error = "responder: " +
                          (ready->text.empty() ? oob::to_string(ready->type) : ready->text),
               st;

    PhaseResult r = op == ProbeOp::write  ? write_pingpong_client(conn, rb_, p)
                    : op == ProbeOp::read ? read_client(conn, rb_, p)
                                          : send_pingpong_client(*send_, p);
    if (raw) raw->insert(raw->end(), r.samples_us.begin(), r.samples_us.end());
    summarize(r.samples_us, r.wall_seconds, st);
    st.checksum_errors = r.checksum_errors;
    st.error = r.error;
    st.error_cause = r.cause;
    if (!st.error.empty()) return st;  // the QP is in error now; the responder times out alone

    // The responder's verdict: its own checksum errors (WRITE/SEND pings) or its failure. Its
    // wait for our last ping is over once we saw its reply, so the normal deadline applies.
    auto done = tcp::recv_msg(sock_, tcp::deadline_in(o_.timeout_ms));
    if (!done)
        return st.error = "waiting for the responder's result: " + done.error().message(), st;
    if (done->type != oob::Type::phase_done)
        return st.error = "responder: unexpected " + std::string(oob::to_string(done->type)), st;
    st.checksum_errors += done->checksum_errors;
    if (!done->text.empty()) {
        st.error_cause = wc_status_in_text(done->text);
        return st.error = "responder: " + done->text, st;
    }
    broken_ = false;
    return st;
}

void ProbeSession::close() {
    if (broken_) return;
    oob::Message bye;
    bye.type = oob::Type::bye;
    (void)tcp::send_msg(sock_, bye, tcp::deadline_in(o_.timeout_ms));
    broken_ = true;
}

}  // namespace rh
