// RDMA WRITE latency as a ping-pong (as perftest's ib_write_lat): the client WRITEs message i
// into the responder's buffer; the responder polls memory for its seq, WRITEs message i back; the
// client polls memory for the reply. Reported latency = round trip / 2 ("half round trip").
// Queue depth is 1 by nature. Each receiver verifies seq + checksum of what it got after
// answering/timing, outside the timed path of the message itself.
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>

#include <array>
#include <chrono>
#include <cstring>

#include "probes/latency/latency_phases.h"
#include "probes/wire/slot.h"
#include "probes/wire/tcp.h"

namespace rh {

void PhaseResult::fail(const char* op, const PhaseSpec& p, std::uint32_t message, const Error& e) {
    cause = cause_of(e);
    if (is_control_closed(e))
        error = e.detail;
    else
        error = std::string(op) + " " + std::to_string(p.size) + " B message " +
                std::to_string(message) + ": " + e.message();
}

std::optional<Error> control_closed(const PhaseSpec& p, const char* op, std::uint32_t message) {
    if (p.control_fd < 0) return std::nullopt;
    const bool closed = tcp::peer_closed(p.control_fd);
    if (!closed) return std::nullopt;
    return Error{"", "", 0,
                 std::string(p.peer_role) +
                     " closed the control connection (process ended or "
                     "crashed) during " +
                     op + " " + std::to_string(p.size) + " B message " + std::to_string(message),
                 kCausePeerClosed};
}

namespace {

using Clock = std::chrono::steady_clock;

/// The two send and two receive slots of a WRITE phase and the send completions in flight.
class PingPong {
  public:
    PingPong(RcConnection& c, const RemoteBuffer& peer, const PhaseSpec& p)
        : c_(c), peer_(peer), p_(p) {
        // Receive slots are zeroed by the caller BEFORE the peer may write (phase/ready message).
        for (unsigned k = 0; k < 2; ++k) hash_[k] = slot::fill_payload(tx(k), p_.seq_base + k);
    }
    std::span<std::byte> rx(unsigned k) { return c_.buffer().subspan(k * p_.size, p_.size); }
    std::span<std::byte> tx(unsigned k) { return c_.buffer().subspan((2 + k) * p_.size, p_.size); }

    /// Reaps send completions (non-blocking).
    Status drain() {
        std::array<ibv_wc, 8> wc{};
        auto n = c_.poll(wc);
        if (!n) return n.error();
        for (int i = 0; i < *n; ++i) busy_[wc[i].wr_id & 1] = false;
        return ok_status();
    }
    bool stopped() const { return p_.stop && p_.stop->load(); }

    /// Waits (bounded) until the previous WRITE from send slot k completed, then stamps `seq`.
    Status prepare(unsigned k, std::uint32_t seq, Clock::time_point deadline) {
        while (busy_[k]) {
            if (auto d = drain(); !d) return d;
            if (auto c = check_control(seq)) return *c;
            if (Clock::now() > deadline)
                return Error{"wait", "send completion", ETIMEDOUT, "seq " + std::to_string(seq)};
        }
        slot::stamp(tx(k), hash_[k], seq);
        return ok_status();
    }
    Status send(unsigned k, std::uint64_t wr_id) {
        busy_[k] = true;
        return c_.post(IBV_WR_RDMA_WRITE, (2 + k) * p_.size, peer_.addr + k * p_.size, peer_.rkey,
                       p_.size, wr_id);
    }
    /// Polls receive slot k for `seq`, reaping completions (an error completion ends the wait).
    Status await(unsigned k, std::uint32_t seq, Clock::time_point deadline) {
        const auto s = rx(k);
        for (unsigned spins = 1; slot::load_seq(s) != seq; ++spins) {
            if (spins % 64 != 0) continue;
            // On an idle CPU this returns at once; on a single-CPU guest with Soft-RoCE it lets
            // the kernel's rxe work (which carries our packets) run instead of being starved.
            sched_yield();
            if (auto d = drain(); !d) return d;
            if (auto c = check_control(seq)) return *c;
            if (Clock::now() > deadline)
                return Error{"wait", "peer's WRITE", ETIMEDOUT,
                             "seq " + std::to_string(seq) + " not seen within " +
                                 std::to_string(p_.timeout_ms) + " ms"};
            if (stopped()) return Error{"wait", "peer's WRITE", EINTR, "shutting down"};
        }
        return ok_status();
    }
    Status finish(Clock::time_point deadline) {
        while (busy_[0] || busy_[1]) {
            if (auto d = drain(); !d) return d;
            if (auto c = check_control(p_.seq_base + p_.count - 1)) return *c;
            if (Clock::now() > deadline)
                return Error{"wait", "send completion", ETIMEDOUT, "last WRITE not completed"};
        }
        return ok_status();
    }

  private:
    /// Every kControlCheck: the error when the peer closed the control connection.
    std::optional<Error> check_control(std::uint32_t seq) {
        const auto now = Clock::now();
        if (now < next_check_) return std::nullopt;
        next_check_ = now + kControlCheck;
        return control_closed(p_, "WRITE", seq - p_.seq_base);
    }

    RcConnection& c_;
    Clock::time_point next_check_{};
    RemoteBuffer peer_;
    PhaseSpec p_;
    std::array<std::uint64_t, 2> hash_{};
    std::array<bool, 2> busy_{};
};

}  // namespace

PhaseResult write_pingpong_client(RcConnection& c, const RemoteBuffer& peer, const PhaseSpec& p) {
    PhaseResult r;
    r.samples_us.reserve(p.count);
    PingPong pp(c, peer, p);
    Clock::time_point start{}, end{};
    auto fail = [&](const Error& e, std::uint32_t i) { r.fail("WRITE", p, i, e); };
    for (std::uint32_t i = 0; i < p.count && r.error.empty(); ++i) {
        const unsigned k = i & 1;
        const std::uint32_t seq = p.seq_base + i;
        const auto dl = phase_deadline(p);
        if (auto s = pp.prepare(k, seq, dl); !s) {
            fail(s.error(), i);
            break;
        }
        const auto t0 = Clock::now();
        if (i == p.warmup) start = t0;
        if (auto s = pp.send(k, i); !s) {
            fail(s.error(), i);
            break;
        }
        if (auto s = pp.await(k, seq, dl); !s) {
            fail(s.error(), i);
            break;
        }
        end = Clock::now();
        if (i >= p.warmup)
            r.samples_us.push_back(std::chrono::duration<double, std::micro>(end - t0).count() / 2);
        if (slot::verify(pp.rx(k), seq) != slot::Check::ok) ++r.checksum_errors;
    }
    if (r.error.empty())
        if (auto s = pp.finish(phase_deadline(p)); !s) r.error = s.error().message();
    if (!r.samples_us.empty()) r.wall_seconds = std::chrono::duration<double>(end - start).count();
    return r;
}

Status write_pingpong_responder(RcConnection& c, const RemoteBuffer& peer, const PhaseSpec& p,
                                std::uint64_t& checksum_errors) {
    PingPong pp(c, peer, p);
    for (std::uint32_t i = 0; i < p.count; ++i) {
        const unsigned k = i & 1;
        const std::uint32_t seq = p.seq_base + i;
        const auto dl = phase_deadline(p);
        if (auto s = pp.prepare(k, seq, dl); !s) return s;
        if (auto s = pp.await(k, seq, dl); !s) return s;
        if (auto s = pp.send(k, i); !s) return s;
        if (slot::verify(pp.rx(k), seq) != slot::Check::ok) ++checksum_errors;
    }
    return pp.finish(phase_deadline(p));
}

}  // namespace rh
