#include "probes/responder/responder.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "core/clock.h"
#include "core/hostname.h"
#include "probes/auth/fabric_key.h"
#include "probes/auth/key_reload.h"
#include "probes/latency/latency_phases.h"
#include "probes/latency/send_latency.h"
#include "probes/responder/control_dispatch.h"
#include "probes/responder/front_door.h"
#include "probes/responder/probe_budget.h"
#include "probes/verbs/device_select.h"
#include "probes/verbs/rc_connection.h"
#include "probes/wire/tcp.h"

namespace rh {

namespace {

void log(const std::string& peer, const std::string& what) {
    std::fprintf(stderr, "rocehealth responder: %s: %s\n", peer.c_str(), what.c_str());
}

std::string ops_text(std::uint32_t ops) {
    std::string s;
    if (ops & oob::kOpWrite) s = "write";
    if (ops & oob::kOpRead) s += s.empty() ? "read" : ",read";
    if (ops & oob::kOpSend) s += s.empty() ? "send" : ",send";
    return s;
}

struct Shared {
    const ResponderOptions& opts;
    const PortChoice& where;
    const std::atomic<bool>& stop;
    ProbeBudget& unauth_buffers;  ///< what sessions without the fabric key may pin
};

/// Best-effort error reply to a client (it may already be gone).
void send_error(const tcp::Socket& s, const std::string& text) {
    oob::Message m;
    m.type = oob::Type::error;
    m.text = text;
    (void)tcp::send_msg(s, m, tcp::deadline_in(500));
}

/// Waits up to `ms` for the client's next frame (fixed or json), looking at the stop flag.
Result<tcp::Received> next_frame(const tcp::Socket& s, int ms, const std::atomic<bool>& stop) {
    auto r = tcp::recv_any(s, tcp::deadline_in(ms), stop);
    if (!r && r.error().err_no == ETIMEDOUT)
        return Error{"recv", "", ETIMEDOUT, "no message within " + std::to_string(ms) + " ms"};
    return r;
}

/// The same for a fixed message (a probe session has no json frames).
Result<oob::Message> next_message(const tcp::Socket& s, int ms, const std::atomic<bool>& stop) {
    auto r = next_frame(s, ms, stop);
    if (!r) return r.error();
    if (r->json) return Error{"recv", "", 0, "unexpected json frame in a probe session"};
    return std::move(*r->fixed);
}

/// query and hello are answered on the accept loop (front_door.h) by anyone: what they read from
/// the device (query_active_mtu opens it) is read at most once a second, so a stream of them
/// costs the loop little. Used only on that loop's thread.
struct FactsCache {
    using Clock = std::chrono::steady_clock;
    static constexpr auto kFresh = std::chrono::seconds(1);
    Clock::time_point mtu_at{}, hello_at{};
    std::optional<Result<unsigned>> mtu;
    nlohmann::json hello;

    Result<unsigned> active_mtu(const PortChoice& where) {
        const auto now = Clock::now();
        if (!mtu || now - mtu_at >= kFresh) {
            mtu = query_active_mtu(where.device, where.port);
            mtu_at = now;
        }
        return *mtu;
    }
    nlohmann::json hello_reply_now(const ControlContext& cx) {
        const auto now = Clock::now();
        if (hello.is_null() || now - hello_at >= kFresh) {
            hello = hello_reply(cx);
            hello_at = now;
        }
        nlohmann::json h = hello;
        h["wall_ms"] = wall_now_ms();  // always now: the coordinator's clock offset needs it
        return h;
    }
};

void answer_query(const tcp::Socket& s, const Shared& sh, FactsCache& facts,
                  const std::string& peer) {
    oob::Message m;
    m.type = oob::Type::query_reply;
    m.device = sh.where.device;
    m.port = sh.where.port;
    m.gid = sh.where.gid;
    m.gid_index = sh.where.gid_index;
    m.gid_type = sh.where.gid_type;
    m.hostname = host_name();
    auto mtu = facts.active_mtu(sh.where);  // now (within 1 s), not at startup
    if (mtu)
        m.active_mtu = *mtu;
    else
        m.text = "active_mtu unknown: " + mtu.error().message();
    // Answered inline by the accept loop (front_door.h): a new socket's buffer takes it at once.
    if (auto r = tcp::send_msg(s, m, tcp::deadline_in(500)); !r)
        log(peer, "query reply not sent: " + r.error().message());
}

const char* op_name(std::uint32_t op) {
    return op == oob::kOpWrite ? "WRITE" : op == oob::kOpRead ? "READ" : "SEND";
}

/// One phase announced by the client: prepare, say ready, serve (WRITE, SEND), report.
/// Returns false when the session cannot go on (QP in error, client gone).
bool serve_phase(const tcp::Socket& s, RcConnection& c, SendSession* send, const oob::Message& req,
                 const oob::Message& ph, const Shared& sh, const std::string& peer) {
    PhaseSpec p;
    p.size = ph.max_msg_size;
    p.count = ph.count;
    p.seq_base = ph.seq_base;
    p.queue_depth = ph.ops == oob::kOpRead ? ph.queue_depth : 1;
    p.timeout_ms = static_cast<int>(std::max<std::uint32_t>(ph.timeout_ms, 1000));
    p.stop = &sh.stop;
    p.control_fd = s.fd();
    p.peer_role = "client";
    if (ph.ops == oob::kOpRead) fill_read_slots(c.buffer(), p);
    const RemoteBuffer rb{req.addr, req.rkey};
    oob::Message ready;
    ready.type = oob::Type::phase_ready;
    std::uint64_t errors = 0;
    Status served = ok_status();
    if (ph.ops == oob::kOpWrite) {
        // Our receive slots must hold no stale seq before the client may write: zero, then ready.
        std::fill_n(c.buffer().begin(), 4 * p.size, std::byte{0});
        if (!tcp::send_msg(s, ready, tcp::deadline_in(p.timeout_ms))) return false;
        served = write_pingpong_responder(c, rb, p, errors);
    } else if (ph.ops == oob::kOpSend) {
        // Receives were posted before the probe_reply and stay posted (none with recv_depth 0).
        if (!tcp::send_msg(s, ready, tcp::deadline_in(p.timeout_ms))) return false;
        served = send_pingpong_responder(*send, p, errors);
    } else if (!tcp::send_msg(s, ready, tcp::deadline_in(p.timeout_ms))) {
        return false;
    }
    oob::Message done;
    done.type = oob::Type::phase_done;
    done.checksum_errors = errors;
    if (!served) done.text = served.error().message();
    if (errors)
        log(peer, std::to_string(errors) + " checksum errors in " + op_name(ph.ops) + " " +
                      std::to_string(p.size) + " B pings");
    if (!served)
        log(peer, std::string(op_name(ph.ops)) + " " + std::to_string(p.size) +
                      " B phase failed: " + served.error().message());
    if (!tcp::send_msg(s, done, tcp::deadline_in(p.timeout_ms))) return false;
    return served.ok();
}

/// The unauthenticated buffer bytes a session holds, given back when it ends.
struct BudgetHold {
    ProbeBudget* budget = nullptr;
    std::uint64_t bytes = 0;
    ~BudgetHold() {
        if (budget) budget->release(bytes);
    }
};

/// The memory access a session's operations need, no more. SEND only needs local write
/// (receives land in our buffer), no remote access at all.
int access_for(std::uint32_t ops) {
    int access = 0;
    if (ops & oob::kOpWrite) access |= IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    if (ops & oob::kOpRead) access |= IBV_ACCESS_REMOTE_READ;
    if (ops & oob::kOpSend) access |= IBV_ACCESS_LOCAL_WRITE;
    return access;
}

/// The probe_reply: our QP, buffer and port for the client's `req`.
oob::Message probe_reply_of(const oob::Message& req, const RcConnection& c, const Shared& sh,
                            std::uint64_t buf_len, unsigned rd, unsigned recv_depth) {
    oob::Message rep;
    rep.type = oob::Type::probe_reply;
    rep.ops = req.ops;
    rep.qpn = c.qpn();
    rep.psn = c.psn();
    rep.gid = sh.where.gid;
    rep.gid_index = sh.where.gid_index;
    rep.port = sh.where.port;
    rep.active_mtu = c.active_mtu_bytes();
    rep.rkey = c.rkey();
    rep.addr = c.addr();
    rep.buf_len = buf_len;
    rep.max_msg_size = req.max_msg_size;
    rep.queue_depth = req.queue_depth;
    rep.rd_atomic = rd;
    rep.recv_depth = recv_depth;
    rep.device = sh.where.device;
    rep.hostname = host_name();
    rep.gid_type = sh.where.gid_type;
    return rep;
}

/// The session's phases until the client's bye (or an error, the client gone, a refused or bad
/// phase); `proven` as for serve_probe.
void serve_phases(const tcp::Socket& s, RcConnection& c, SendSession* send, const oob::Message& req,
                  const Shared& sh, const std::string& peer, bool proven) {
    unsigned phases = 0;
    int wait_ms = sh.opts.idle_timeout_ms;
    for (;;) {
        auto m = next_message(s, wait_ms, sh.stop);
        if (!m) {
            if (tcp::closed_between_messages(m.error()))
                log(peer,
                    "session ended: client closed the control connection (process ended or "
                    "crashed) without bye, after " +
                        std::to_string(phases) + " phases");
            else
                log(peer, "session ended: " + m.error().message());
            return;
        }
        if (m->type == oob::Type::bye) break;
        if (auto v = oob::check_phase(*m, req); !v) {
            log(peer, "bad phase: " + v.error().detail);
            send_error(s, v.error().detail);
            return;
        }
        if (m->ops == oob::kOpRead && !proven)
            if (auto refused = ProbeBudget::check_read_phase(m->count, m->timeout_ms,
                                                             limits::kUnauthReadPhaseMs)) {
                log(peer, "phase refused: " + *refused);
                send_error(s, *refused);
                return;
            }
        ++phases;
        if (!serve_phase(s, c, send, req, *m, sh, peer)) return;
        // A READ phase runs on the client alone; each of its READs is bounded by timeout_ms, so
        // count x timeout_ms bounds the phase. Wait that long (at least the idle limit).
        wait_ms = sh.opts.idle_timeout_ms;
        if (m->ops == oob::kOpRead)
            wait_ms = static_cast<int>(std::clamp<std::uint64_t>(
                std::uint64_t(m->count) * std::max<std::uint32_t>(m->timeout_ms, 1000),
                std::uint64_t(sh.opts.idle_timeout_ms), 24ull * 3600 * 1000));
    }
    log(peer, "session done, " + std::to_string(phases) + " phases");
}

/// `proven`: the peer proved the fabric key (front_door.h); otherwise its buffers come from
/// sh.unauth_buffers and its READ phases are capped (probes/responder/probe_budget.h).
void serve_probe(const tcp::Socket& s, const oob::Message& req, const Shared& sh,
                 const std::string& peer, bool proven) {
    if (auto v = oob::check_probe_request(req); !v) {
        log(peer, "bad probe request: " + v.error().detail);
        send_error(s, v.error().detail);
        return;
    }
    BudgetHold hold;
    if (!proven) {
        const auto need = oob::buffer_bytes(req.ops, req.max_msg_size, req.queue_depth);
        if (auto refused = sh.unauth_buffers.reserve(need)) {
            log(peer, "probe refused: " + *refused);
            send_error(s, *refused);
            return;
        }
        hold = {&sh.unauth_buffers, need};
    }
    // Expose only what the session's operations need.
    const bool sends = (req.ops & oob::kOpSend) != 0;
    const int access = access_for(req.ops);
    const auto buf_len = oob::buffer_bytes(req.ops, req.max_msg_size, req.queue_depth);
    const unsigned recv_depth = sends ? sh.opts.recv_depth : 0;
    auto conn = RcConnection::open({sh.where, buf_len, access, 4, std::max(1u, recv_depth)});
    if (!conn) {
        log(peer, "cannot set up: " + conn.error().message());
        send_error(s, conn.error().message());
        return;
    }
    RcConnection& c = **conn;
    const unsigned path_mtu = std::min(c.active_mtu_bytes(), req.active_mtu);
    const unsigned rd = std::min(c.rd_atomic(), std::max(req.rd_atomic, 1u));
    // Ready to receive (RTR), with receives posted, before the client learns our QPN and can
    // start writing or sending.
    if (auto r = c.connect({req.qpn, req.psn, req.gid}, path_mtu, rd); !r) {
        log(peer, r.error().message());
        send_error(s, r.error().message());
        return;
    }
    std::optional<SendSession> send;
    if (sends) {
        send.emplace(c, req.max_msg_size, recv_depth);
        if (auto r = send->fill(); !r) {
            log(peer, r.error().message());
            send_error(s, r.error().message());
            return;
        }
    }
    const oob::Message rep = probe_reply_of(req, c, sh, buf_len, rd, recv_depth);
    if (auto r = tcp::send_msg(s, rep, tcp::deadline_in(sh.opts.handshake_timeout_ms)); !r) {
        log(peer, "probe reply not sent: " + r.error().message());
        return;
    }
    log(peer, "session " + ops_text(req.ops) + ", up to " + std::to_string(req.max_msg_size) +
                  " B, path_mtu " + std::to_string(path_mtu) + ", client " + req.hostname + " " +
                  req.device +
                  (!sends ? std::string()
                   : recv_depth == 0
                       ? ", recv_depth 0: no receives posted, every SEND meets receiver-not-ready"
                       : ", recv_depth " + std::to_string(recv_depth)));
    serve_phases(s, c, send ? &*send : nullptr, req, sh, peer, proven);
}

/// SIGHUP: the key files read again (auth/key_reload.h); a bad one keeps every key in use
/// (logged by name).
void reload_keys(const ResponderOptions& o) {
    auto said = auth::reload_process_keys({o.key_file, o.host_key_file, o.known_hosts_file});
    if (!said)
        std::fprintf(stderr,
                     "rocehealth responder: SIGHUP: keys not reloaded, still using the old ones: "
                     "%s\n",
                     said.error().message().c_str());
    else
        std::fprintf(stderr, "rocehealth responder: SIGHUP: reloaded %s\n", said->c_str());
}

}  // namespace

Status run_responder(const ResponderOptions& o, const std::atomic<bool>& stop) {
    if (o.recv_depth > oob::kMaxRecvDepth)
        return Error{"responder", "options", EINVAL,
                     "recv_depth " + std::to_string(o.recv_depth) + " > " +
                         std::to_string(oob::kMaxRecvDepth)};
    auto where = choose_port(SysfsRoot(o.sysfs_root), o.device, o.gid_index);
    if (!where) return where.error();
    auto mtu = query_active_mtu(where->device, where->port);
    if (!mtu) return mtu.error();
    auto listener = tcp::listen(o.listen_addr, o.port);
    if (!listener) return listener.error();
    std::fprintf(stderr,
                 "rocehealth responder: serving %s port %u, GID index %u %s (%s), active_mtu %u, "
                 "on %s:%u, up to %u keyed and %u unauthenticated probe sessions, %u receives "
                 "posted per SEND session\n",
                 where->device.c_str(), where->port, where->gid_index, where->gid_text.c_str(),
                 where->gid_type.c_str(), *mtu, o.listen_addr.c_str(), o.port, o.max_sessions,
                 o.max_sessions, o.recv_depth);
    const auto key = auth::process_key();
    if (key)
        std::fprintf(stderr,
                     "rocehealth responder: control commands need the fabric key (%s, "
                     "fingerprint %s); latency probes (4 MiB of buffers each without the key) and "
                     "hello are open to all\n",
                     key->path.c_str(), auth::key_fingerprint(key->bytes).c_str());
    else
        std::fprintf(stderr,
                     "rocehealth responder: no fabric key (--key-file, or %s): control commands "
                     "are off; serving latency probes and hello only\n",
                     auth::kDefaultKeyFile);
    ProbeBudget unauth_buffers(limits::kUnauthSessionBytes, limits::kUnauthTotalBytes);
    const Shared sh{o, *where, stop, unauth_buffers};
    FrontDoorOptions fo;
    fo.limits.keyed = o.max_sessions;
    fo.limits.probe = o.max_sessions;
    fo.first_frame_ms = o.handshake_timeout_ms;
    fo.handshake_ms = o.handshake_timeout_ms;
    FrontDoorHandlers h;
    FactsCache facts;
    h.query = [&sh, &facts](const tcp::Socket& s) { answer_query(s, sh, facts, s.peer()); };
    h.hello = [&] { return facts.hello_reply_now(ControlContext{o, *where, stop, "", false}); };
    h.probe = [&sh](const tcp::Socket& s, const oob::Message& req, bool proven) {
        serve_probe(s, req, sh, s.peer(), proven);
    };
    h.control = [&](const tcp::Socket& s, const nlohmann::json& first) {
        serve_control(s, first, ControlContext{o, *where, stop, s.peer(), true});
    };
    h.between = [&o] {
        if (o.reload_key && o.reload_key->exchange(false)) reload_keys(o);
    };
    FrontDoor(fo, std::move(h)).run(*listener, stop);
    std::fprintf(stderr, "rocehealth responder: stopped\n");
    return ok_status();
}

}  // namespace rh
