#include "probes/latency/send_latency.h"

#include <sched.h>

#include <cerrno>
#include <string>

#include "probes/wire/slot.h"

namespace rh {

namespace {

using Clock = SendSession::Clock;

/// The waits of one phase: each reaps completions, yields the CPU now and then (on a one-CPU
/// Soft-RoCE guest the kernel's rxe work carries our packets), and fails at once when the peer
/// closed the control connection, the responder is stopping, or the deadline passed.
class Waits {
  public:
    Waits(SendSession& s, const PhaseSpec& p) : s_(s), p_(p) {}

    /// Until send slot k is free (its previous SEND completed).
    Status send_slot(unsigned k, std::uint32_t seq, Clock::time_point dl) {
        for (unsigned spins = 1; s_.send_busy(k); ++spins) {
            if (auto st = tick(spins, seq, dl, "send completion"); !st) return st;
        }
        return ok_status();
    }

    /// Until the next receive completed; returns its byte count and session index. `own_send`:
    /// the send slot of the message this receive answers (client side); when the deadline
    /// passes while that SEND itself is still unacknowledged, the error says so, because then
    /// the peer never accepted it (receiver not ready and retried, or its packets lost) rather
    /// than not answering it.
    Result<std::uint32_t> receive(std::uint32_t seq, Clock::time_point dl, std::uint64_t& index,
                                  std::optional<unsigned> own_send = std::nullopt) {
        for (unsigned spins = 1;; ++spins) {
            if (auto b = s_.take_received(index)) return *b;
            auto st = tick(spins, seq, dl, "peer's SEND");
            if (st) continue;
            if (st.error().err_no == ETIMEDOUT && own_send && s_.send_busy(*own_send))
                return Error{"wait", "SEND completion", ETIMEDOUT,
                             "seq " + std::to_string(seq) +
                                 " not acknowledged by the peer within " +
                                 std::to_string(p_.timeout_ms) +
                                 " ms: its receive queue did not take it (receiver not ready, "
                                 "retried while rnr_retry allows; 7 = without limit) or the "
                                 "packets were lost"};
            return st.error();
        }
    }

    /// Until both send slots are free (end of phase).
    Status finish(Clock::time_point dl) {
        const std::uint32_t last = p_.seq_base + p_.count - 1;
        for (unsigned spins = 1; s_.send_busy(0) || s_.send_busy(1); ++spins)
            if (auto st = tick(spins, last, dl, "send completion"); !st) return st;
        return ok_status();
    }

  private:
    Status tick(unsigned spins, std::uint32_t seq, Clock::time_point dl, const char* what) {
        if (auto r = s_.reap(); !r) return r;
        if (spins % 64 != 0) return ok_status();
        sched_yield();
        const auto now = Clock::now();
        if (now >= next_check_) {
            next_check_ = now + kControlCheck;
            if (auto c = control_closed(p_, "SEND", seq - p_.seq_base)) return *c;
        }
        if (now > dl)
            return Error{"wait", what, ETIMEDOUT,
                         "seq " + std::to_string(seq) + " not seen within " +
                             std::to_string(p_.timeout_ms) + " ms"};
        if (p_.stop && p_.stop->load()) return Error{"wait", what, EINTR, "shutting down"};
        return ok_status();
    }

    SendSession& s_;
    const PhaseSpec& p_;
    Clock::time_point next_check_{};
};

/// Fills both send slots' payloads for this phase; returns their payload hashes.
std::array<std::uint64_t, 2> fill_send_slots(SendSession& s, const PhaseSpec& p) {
    std::array<std::uint64_t, 2> h{};
    for (unsigned k = 0; k < 2; ++k) h[k] = slot::fill_payload(s.tx(k, p.size), p.seq_base + k);
    return h;
}

bool intact(SendSession& s, std::uint64_t index, std::uint32_t bytes, const PhaseSpec& p,
            std::uint32_t seq) {
    return bytes == p.size && slot::verify(s.rx(index, p.size), seq) == slot::Check::ok;
}

}  // namespace

SendSession::SendSession(RcConnection& c, std::size_t stride, unsigned recv_depth)
    : c_(c), stride_(stride), depth_(recv_depth) {}

std::span<std::byte> SendSession::rx(std::uint64_t n, std::size_t size) {
    return c_.buffer().subspan((n % 2) * stride_, size);
}

std::span<std::byte> SendSession::tx(unsigned k, std::size_t size) {
    return c_.buffer().subspan((2 + k) * stride_, size);
}

Status SendSession::fill() {
    while (posted_ - completed_ < depth_) {
        if (auto s = c_.post_recv((posted_ % 2) * stride_, stride_, kRecvTag | posted_); !s)
            return s;
        ++posted_;
    }
    return ok_status();
}

Status SendSession::reap() {
    std::array<ibv_wc, 16> wc{};
    auto n = c_.poll(wc);
    if (!n) return n.error();
    for (int i = 0; i < *n; ++i) {
        if (wc[i].wr_id & kRecvTag) {
            // RC completes receives in posting order; anything else is a broken provider.
            if ((wc[i].wr_id & ~kRecvTag) != completed_)
                return Error{"completion", c_.where().device, 0,
                             "receive " + std::to_string(wc[i].wr_id & ~kRecvTag) +
                                 " completed, expected " + std::to_string(completed_)};
            received_bytes_.push_back(wc[i].byte_len);
            ++completed_;
        } else {
            busy_[wc[i].wr_id & 1] = false;
        }
    }
    return ok_status();
}

Status SendSession::send(std::uint32_t message, std::size_t size) {
    const unsigned k = message & 1;
    busy_[k] = true;
    return c_.post(IBV_WR_SEND, (2 + k) * stride_, 0, 0, size, message);
}

std::optional<std::uint32_t> SendSession::take_received(std::uint64_t& index) {
    if (received_bytes_.empty()) return std::nullopt;
    const std::uint32_t b = received_bytes_.front();
    received_bytes_.pop_front();
    index = taken_++;
    return b;
}

PhaseResult send_pingpong_client(SendSession& s, const PhaseSpec& p) {
    PhaseResult r;
    r.samples_us.reserve(p.count);
    Waits w(s, p);
    const auto hash = fill_send_slots(s, p);
    Clock::time_point start{}, end{};
    auto fail = [&](const Error& e, std::uint32_t i) { r.fail("SEND", p, i, e); };
    for (std::uint32_t i = 0; i < p.count; ++i) {
        const unsigned k = i & 1;
        const std::uint32_t seq = p.seq_base + i;
        const auto dl = phase_deadline(p);
        if (auto st = w.send_slot(k, seq, dl); !st) return fail(st.error(), i), r;
        slot::stamp(s.tx(k, p.size), hash[k], seq);
        const auto t0 = Clock::now();
        if (i == p.warmup) start = t0;
        if (auto st = s.send(i, p.size); !st) return fail(st.error(), i), r;
        std::uint64_t index = 0;
        auto bytes = w.receive(seq, dl, index, k);
        if (!bytes) return fail(bytes.error(), i), r;
        end = Clock::now();
        if (i >= p.warmup)
            r.samples_us.push_back(std::chrono::duration<double, std::micro>(end - t0).count() / 2);
        if (!intact(s, index, *bytes, p, seq)) ++r.checksum_errors;
        // Verified before re-posting: the new receive may target the slot just checked.
        if (auto st = s.fill(); !st) return fail(st.error(), i), r;
    }
    if (auto st = w.finish(phase_deadline(p)); !st) {
        r.error = st.error().message();
        r.cause = cause_of(st.error());
    }
    if (!r.samples_us.empty()) r.wall_seconds = std::chrono::duration<double>(end - start).count();
    return r;
}

Status send_pingpong_responder(SendSession& s, const PhaseSpec& p, std::uint64_t& checksum_errors) {
    Waits w(s, p);
    const auto hash = fill_send_slots(s, p);
    for (std::uint32_t i = 0; i < p.count; ++i) {
        const unsigned k = i & 1;
        const std::uint32_t seq = p.seq_base + i;
        const auto dl = phase_deadline(p);
        std::uint64_t index = 0;
        auto bytes = w.receive(seq, dl, index);
        if (!bytes) return bytes.error();
        // Re-post first: the client may SEND i+1 as soon as it sees our answer.
        if (auto st = s.fill(); !st) return st;
        if (auto st = w.send_slot(k, seq, dl); !st) return st;
        slot::stamp(s.tx(k, p.size), hash[k], seq);
        if (auto st = s.send(i, p.size); !st) return st;
        if (!intact(s, index, *bytes, p, seq)) ++checksum_errors;
    }
    return w.finish(phase_deadline(p));
}

}  // namespace rh
