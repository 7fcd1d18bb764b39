#include "probes/stream/stream_sender.h"
#include "probes/auth/handshake.h"

#include "probes/stream/stream_backoff.h"
#include "probes/verbs/wc_status.h"

namespace rh::stream {

namespace {

using Clock = std::chrono::steady_clock;

Error setup_error(const SenderConfig& cfg, const std::string& step, const std::string& what) {
    return Error{"stream", "receiver " + cfg.receiver.str(), 0, step + ": " + what};
}

}  // namespace

Sender::Sender(const SenderConfig& cfg)
    : cfg_(cfg), patterns_(cfg.size_bytes, cfg.queue_depth, cfg.seed) {}

Result<std::unique_ptr<Sender>> Sender::open(const SenderConfig& cfg) {
    std::unique_ptr<Sender> s(new Sender(cfg));
    Open req;
    req.op = cfg.op;
    req.size_bytes = cfg.size_bytes;
    req.queue_depth = cfg.queue_depth;
    req.seed = cfg.seed;
    req.gid = cfg.where.gid;
    req.hostname = cfg.hostname;
    req.device = cfg.where.device;
    req.max_ms = cfg.max_ms;
    // The receiver's policy (slot::default_verify_fraction), stated so its result is explicit.
    req.verify_ppm = default_verify_ppm(cfg.size_bytes);
    // Buffers registered before connecting (the responder wants the first message within 5 s).
    for (unsigned q = 0; q < cfg.qps; ++q) {
        auto c = RcConnection::open({cfg.where, cfg.size_bytes * cfg.queue_depth,
                                     IBV_ACCESS_LOCAL_WRITE, cfg.queue_depth, 1});
        if (!c) return c.error();
        for (unsigned k = 0; k < cfg.queue_depth; ++k)
            s->patterns_.fill((*c)->buffer().subspan(k * cfg.size_bytes, cfg.size_bytes), k);
        req.qps.push_back({(*c)->qpn(), (*c)->psn(), 0, 0});
        req.active_mtu = (*c)->active_mtu_bytes();
        s->conns_.push_back(std::move(*c));
    }
    auto sock = auth::connect_control(cfg.receiver,
                                      tcp::deadline_in(std::min(cfg.setup_timeout_ms, 10000)));
    if (!sock) return sock.error();
    s->control_ = std::move(*sock);
    const auto dl = tcp::deadline_in(cfg.setup_timeout_ms);
    if (auto st = tcp::send_json(s->control_, to_json(req), dl); !st)
        return setup_error(cfg, "stream_open", st.error().message());
    auto rep = tcp::recv_any(s->control_, dl);
    if (!rep) return setup_error(cfg, "waiting for stream_ready", rep.error().message());
    if (!rep->json) return setup_error(cfg, "stream_ready", "a fixed frame instead");
    if (auto e = error_text(*rep->json)) return setup_error(cfg, "receiver refused", *e);
    auto ready = parse_ready(*rep->json, cfg.qps);
    if (!ready) return setup_error(cfg, "stream_ready", ready.error().message());
    s->ready_ = std::move(*ready);
    if (s->ready_.slots != ring_slots(cfg.queue_depth))
        return setup_error(cfg, "stream_ready",
                           std::to_string(s->ready_.slots) + " ring slots, expected " +
                               std::to_string(ring_slots(cfg.queue_depth)));
    for (unsigned q = 0; q < cfg.qps; ++q) {
        auto& c = *s->conns_[q];
        const unsigned mtu = std::min(c.active_mtu_bytes(), s->ready_.active_mtu);
        const auto& r = s->ready_.qps[q];
        if (auto st = c.connect({r.qpn, r.psn, s->ready_.gid}, mtu, 1); !st) return st.error();
    }
    s->sent_.resize(cfg.qps);
    s->dead_.assign(cfg.qps, false);
    return s;
}

bool Sender::reap(std::size_t q) {
    auto& st = sent_[q];
    bool any = false;
    for (unsigned i = 0; i < kReapBatch && st.outstanding() > 0; ++i) {
        ibv_wc wc{};
        auto n = conns_[q]->poll(std::span(&wc, 1));
        if (!n) {
            ++st.failed;
            ++st.errors[cause_of(n.error())];
            if (st.error.empty()) st.error = n.error().message();
            dead_[q] = true;  // the QP is in error: no more posts, the rest come back flushed
            any = true;
            continue;
        }
        if (*n == 0) break;
        ++st.completed;
        st.last_completion = Clock::now();
        any = true;
    }
    return any;
}

bool Sender::fill(std::size_t q, Clock::time_point now) {
    auto& st = sent_[q];
    auto& c = *conns_[q];
    const auto& ring = ready_.qps[q];
    const std::uint64_t size = cfg_.size_bytes;
    const auto opcode = cfg_.op == Op::write ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_SEND;
    bool any = false;
    while (!dead_[q] && st.outstanding() < cfg_.queue_depth) {
        const std::uint64_t n = st.posted;
        const unsigned k = static_cast<unsigned>(n % cfg_.queue_depth);
        // Transmit slot k is free: message n - queue_depth, its last user, completed.
        patterns_.stamp(c.buffer().subspan(k * size, size), n);
        if (auto s =
                c.post(opcode, k * size, ring.addr + (n % ready_.slots) * size, ring.rkey, size, n);
            !s) {
            dead_[q] = true;
            if (st.error.empty()) st.error = s.error().message();
            break;
        }
        if (n == 0) st.first_post = now;
        ++st.posted;
        any = true;
    }
    return any;
}

SendProgress Sender::totals(Clock::time_point now) const {
    SendProgress p;
    p.elapsed_s = std::chrono::duration<double>(now - started_).count();
    for (const auto& s : sent_) {
        p.completed_messages += s.completed;
        p.errors += s.failed;
    }
    p.completed_bytes = p.completed_messages * cfg_.size_bytes;
    return p;
}

void Sender::run(Clock::time_point until, const std::function<bool(const SendProgress&)>& tick) {
    started_ = Clock::now();
    auto next_tick = started_ + std::chrono::seconds(1);
    Backoff backoff;
    bool posting = true;
    for (;;) {
        const auto now = Clock::now();
        if (posting && (now >= until)) posting = false;
        bool any = false, busy = false;
        for (std::size_t q = 0; q < conns_.size(); ++q) {
            any |= reap(q);
            if (posting) any |= fill(q, now);
            busy |= sent_[q].outstanding() > 0;
        }
        if (!posting && !busy) break;
        if (now >= next_tick) {
            next_tick += std::chrono::seconds(1);
            if (!tick(totals(now))) posting = false;
        }
        if (!posting && now > until + std::chrono::milliseconds(kDrainMs)) break;
        any ? backoff.progress() : backoff.idle();
    }
}

Result<Received> Sender::finish() {
    End e;
    for (const auto& s : sent_) e.completed.push_back(s.completed);
    const auto dl = tcp::deadline_in(kDrainMs + 5000);
    if (auto st = tcp::send_json(control_, to_json(e), dl); !st)
        return setup_error(cfg_, "stream_end", st.error().message());
    auto rep = tcp::recv_any(control_, dl);
    if (!rep) return setup_error(cfg_, "waiting for stream_result", rep.error().message());
    if (!rep->json) return setup_error(cfg_, "stream_result", "a fixed frame instead");
    if (auto err = error_text(*rep->json)) return setup_error(cfg_, "receiver", *err);
    return parse_received(*rep->json, conns_.size());
}

}  // namespace rh::stream
