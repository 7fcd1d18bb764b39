#include "probes/stream/stream_receiver.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "core/clock.h"
#include "core/hostname.h"
#include "probes/stream/stream_backoff.h"
#include "probes/verbs/wc_status.h"

namespace rh::stream {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kControlCheck = std::chrono::milliseconds(5);

/// Receive WQE `n` of a QP targets ring slot n % slots.
Status post_receive(RcConnection& c, std::uint64_t n, unsigned slots, std::uint64_t size) {
    return c.post_recv((n % slots) * size, size, n);
}

}  // namespace

Receiver::Receiver(const Open& req, const PortChoice& where, std::string hostname)
    : req_(req),
      where_(where),
      hostname_(std::move(hostname)),
      patterns_(req.size_bytes, req.queue_depth, req.seed),
      slots_(ring_slots(req.queue_depth)),
      depth_(recv_depth(req.queue_depth)) {}

Result<std::unique_ptr<Receiver>> Receiver::open(const Open& req, const PortChoice& where,
                                                 const std::string& hostname) {
    std::unique_ptr<Receiver> r(new Receiver(req, where, hostname));
    int access = IBV_ACCESS_LOCAL_WRITE;
    if (req.op == Op::write) access |= IBV_ACCESS_REMOTE_WRITE;
    for (const auto& peer : req.qps) {
        auto c = RcConnection::open(
            {where, ring_bytes(req.size_bytes, req.queue_depth), access, 1, r->depth_});
        if (!c) return c.error();
        Qp q;
        q.conn = std::move(*c);
        // Seeded per QP and run so that the skipped messages differ between QPs and runs.
        q.sampler = slot::Sampler(static_cast<double>(req.verify_ppm) / kPpm,
                                  (std::uint64_t(req.seed) << 32) ^ r->qps_.size() ^
                                      static_cast<std::uint64_t>(wall_now_ms()));
        const unsigned mtu = std::min(q.conn->active_mtu_bytes(), req.active_mtu);
        if (auto s = q.conn->connect({peer.qpn, peer.psn, req.gid}, mtu, 1); !s) return s.error();
        // Receives posted before the sender learns our QPN: its first message finds one.
        for (std::uint64_t n = 0; n < r->depth_; ++n)
            if (auto s = post_receive(*q.conn, n, r->slots_, req.size_bytes); !s) return s.error();
        r->qps_.push_back(std::move(q));
    }
    return r;
}

Ready Receiver::ready() const {
    Ready m;
    m.slots = slots_;
    m.recv_depth = depth_;
    for (const auto& q : qps_)
        m.qps.push_back({q.conn->qpn(), q.conn->psn(), q.conn->rkey(), q.conn->addr()});
    m.gid = where_.gid;
    m.active_mtu = qps_.empty() ? 0 : qps_.front().conn->active_mtu_bytes();
    m.hostname = hostname_;
    m.device = where_.device;
    return m;
}

bool Receiver::reap(Qp& q) {
    bool any = false;
    const std::uint64_t size = req_.size_bytes;
    const auto want = req_.op == Op::write ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
    for (unsigned i = 0; i < kReapBatch; ++i) {
        ibv_wc wc{};
        auto n = q.conn->poll(std::span(&wc, 1));
        if (!n) {
            // The QP is in error now; the rest of its receives come back flushed.
            ++q.r.errors[cause_of(n.error())];
            if (q.r.error.empty()) q.r.error = n.error().message();
            q.dead = true;
            any = true;
            continue;
        }
        if (*n == 0) break;
        any = true;
        const std::uint64_t m = q.received++;
        const std::int64_t now = wall_now_ms();
        if (q.r.first_wall_ms == 0) q.r.first_wall_ms = now;
        q.r.last_wall_ms = now;
        ++q.r.messages;
        const auto slot = q.conn->buffer().subspan((m % slots_) * size, size);
        const bool full = q.sampler.next();
        Bad b = wc.opcode == want ? patterns_.check(slot, m, wc.byte_len, full) : Bad::wrong_length;
        if (full && b != Bad::wrong_length) {
            ++q.r.verified_messages;
            q.r.verified_bytes += size;
        }
        if (b == Bad::none) {
            q.r.bytes += size;
        } else {
            ++q.r.bad_slots;
            ++q.r.bad[to_string(b)];
        }
        // Checked: now its slot may be reused, recv_depth messages ahead.
        if (!q.dead)
            if (auto s = post_receive(*q.conn, m + depth_, slots_, size); !s) {
                q.dead = true;
                if (q.r.error.empty()) q.r.error = s.error().message();
            }
    }
    return any;
}

Received Receiver::run(const tcp::Socket& control, const std::atomic<bool>& stop) {
    Received out;
    const auto give_up = Clock::now() + std::chrono::milliseconds(req_.max_ms);
    std::optional<End> end;
    Clock::time_point drain_until{}, next_check{};
    Backoff backoff;
    auto total = [this] {
        std::uint64_t n = 0;
        for (const auto& q : qps_) n += q.received;
        return n;
    };
    for (;;) {
        bool any = false;
        for (auto& q : qps_) any |= reap(q);
        any ? backoff.progress() : backoff.idle();
        const auto now = Clock::now();
        if (end) {
            bool all = true;
            for (std::size_t i = 0; i < qps_.size(); ++i)
                all &= qps_[i].dead || qps_[i].received >= end->completed[i];
            if (all) break;
            if (now > drain_until) {
                out.note = "messages the sender saw completed had not all arrived " +
                           std::to_string(kDrainMs) + " ms after stream_end";
                break;
            }
            continue;
        }
        if (now >= next_check) {
            next_check = now + kControlCheck;
            auto r = tcp::wait_readable(control, 0);
            if (r && *r) {
                auto msg = tcp::recv_any(control, tcp::deadline_in(2000));
                if (msg && msg->json) {
                    auto e = parse_end(*msg->json, qps_.size());
                    if (!e) {
                        out.note = "bad stream_end: " + e.error().message();
                        break;
                    }
                    end = std::move(*e);
                    drain_until = now + std::chrono::milliseconds(kDrainMs);
                    continue;
                }
                out.note = msg ? std::string("unexpected fixed frame from the sender")
                               : "sender closed the control connection without stream_end "
                                 "(process ended or crashed) after " +
                                     std::to_string(total()) + " messages";
                break;
            }
        }
        if (stop.load()) {
            out.note = "responder stopping";
            break;
        }
        if (now > give_up) {
            out.note = "no stream_end within " + std::to_string(req_.max_ms) + " ms";
            break;
        }
    }
    for (const auto& q : qps_) out.qps.push_back(q.r);
    return out;
}

void serve_stream(const tcp::Socket& s, const nlohmann::json& open, const PortChoice& where,
                  const std::atomic<bool>& stop,
                  const std::function<void(const std::string&)>& log) {
    auto req = parse_open(open);
    if (!req) {
        log("bad stream_open: " + req.error().message());
        (void)tcp::send_json(s, error_message(req.error().message()), tcp::deadline_in(2000));
        return;
    }
    const std::string host = host_name();
    auto r = Receiver::open(*req, where, host);
    if (!r) {
        log("cannot set up the stream: " + r.error().message());
        (void)tcp::send_json(s, error_message("receiver " + host + ": " + r.error().message()),
                             tcp::deadline_in(2000));
        return;
    }
    const std::string what = std::string(to_string(req->op)) + " stream from " + req->hostname +
                             " " + req->device + ", " + std::to_string(req->qps.size()) + " QPs, " +
                             std::to_string(req->size_bytes) + " B, queue depth " +
                             std::to_string(req->queue_depth);
    if (auto st = tcp::send_json(s, to_json((*r)->ready()), tcp::deadline_in(5000)); !st) {
        log(what + ": stream_ready not sent: " + st.error().message());
        return;
    }
    log(what + ": ready");
    const Received got = (*r)->run(s, stop);
    std::uint64_t messages = 0, bad = 0;
    for (const auto& q : got.qps) messages += q.messages, bad += q.bad_slots;
    log(what + ": " + std::to_string(messages) + " messages, " + std::to_string(bad) +
        " bad slots" + (got.note.empty() ? "" : "; " + got.note));
    if (auto st = tcp::send_json(s, to_json(got), tcp::deadline_in(5000)); !st)
        log(what + ": stream_result not sent: " + st.error().message());
}

}  // namespace rh::stream
