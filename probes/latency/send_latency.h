// SEND/RECV latency as a ping-pong (as perftest's ib_send_lat): the client SENDs message i; the
// responder's receive WQE completes, it re-posts a receive and SENDs message i back; the client's
// receive completes. Reported latency = round trip / 2 ("half round trip"), queue depth 1.
// Each receiver verifies the byte count, seq and checksum (probes/wire/slot.h) of what it got after
// answering/timing, outside the timed path of the message itself.
//
// Buffer layout of a SEND session (stride = the session's largest message, so receive WQEs posted
// in one phase fit any later one): receive slots at [0, stride) and [stride, 2*stride), send slots
// at [2*stride, 3*stride) and [3*stride, 4*stride) (oob::buffer_bytes). Receive n of the session
// (0-based, in arrival order: RC delivers in order) lands in receive slot n % 2; message i of a
// phase goes out of send slot i % 2. As in the WRITE ping-pong, message n+2 cannot arrive before
// the receiver answered n+1, so slot n % 2 is not overwritten while n is verified.
//
// Receive depth: the client keeps kClientRecvDepth receives posted; the responder keeps
// `responder --recv-depth` (default oob::kDefaultRecvDepth = 64) posted from before its
// probe_reply, and re-posts one before answering each message. A ping-pong consumes one receive per
// round trip, so any depth >= 1 never runs dry; the default leaves headroom for a responder thread
// that is descheduled between completion and re-post. Depth 0 posts none: every SEND meets an RNR
// NAK and, after the client's rnr_retry retries, completes with IBV_WC_RNR_RETRY_EXC_ERR.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>

#include "core/result.h"
#include "probes/latency/latency_phases.h"
#include "probes/verbs/rc_connection.h"

namespace rh {

inline constexpr unsigned kClientRecvDepth = 2;

/// One side's SEND/RECV state for a whole session (receive WQEs outlive phases): receives posted
/// and completed so far, send slots in flight. Not thread-safe; one per RcConnection.
class SendSession {
  public:
    /// `stride`: the session's largest message in bytes (slot size, multiple of 8 >= 16);
    /// `recv_depth`: receive WQEs to keep posted (0..oob::kMaxRecvDepth). The connection's buffer
    /// must hold 4 * stride bytes and its QP max_recv_wr >= recv_depth.
    SendSession(RcConnection& c, std::size_t stride, unsigned recv_depth);

    /// Posts receive WQEs until recv_depth are outstanding. Call before the peer may SEND
    /// (QP in INIT or later), and after each completed receive.
    Status fill();

    unsigned recv_depth() const { return depth_; }
    std::size_t stride() const { return stride_; }

    // --- used by the phase loops (send_latency.cpp) ---
    using Clock = std::chrono::steady_clock;
    /// Receive slot of receive n, first `size` bytes.
    std::span<std::byte> rx(std::uint64_t n, std::size_t size);
    /// Send slot k (0 or 1), first `size` bytes.
    std::span<std::byte> tx(unsigned k, std::size_t size);
    /// Non-blocking: reaps completions (send slots become free, receives queue up). An error
    /// completion (e.g. IBV_WC_RNR_RETRY_EXC_ERR) is returned as the Error.
    Status reap();
    bool send_busy(unsigned k) const { return busy_[k]; }
    /// Posts a signaled SEND of `size` bytes from send slot message % 2 (wr_id = message).
    Status send(std::uint32_t message, std::size_t size);
    /// Bytes of the oldest completed, not yet taken receive; nullopt when none.
    std::optional<std::uint32_t> take_received(std::uint64_t& index);

  private:
    static constexpr std::uint64_t kRecvTag = 1ull << 63;  ///< wr_id bit of receive WQEs

    RcConnection& c_;
    std::size_t stride_;
    unsigned depth_;
    std::uint64_t posted_ = 0;                  ///< receive WQEs posted in the session
    std::uint64_t completed_ = 0;               ///< receive completions reaped
    std::uint64_t taken_ = 0;                   ///< receives handed to a phase loop
    std::deque<std::uint32_t> received_bytes_;  ///< completed, not yet taken
    std::array<bool, 2> busy_{};
};

/// Client side: times SEND i -> the responder's SEND i received. Error completions and timeouts
/// end the phase (PhaseResult::error, e.g. "SEND 64 B message 0: completion rxe0:
/// IBV_WC_RNR_RETRY_EXC_ERR (...)"). A timeout while SEND i itself is still unacknowledged (RNR
/// retried forever with rnr_retry 7, or lost packets) is named as such: "SEND 64 B message 0:
/// wait SEND completion: ...: seq 1 not acknowledged by the peer within 3000 ms: ..."; otherwise
/// "... wait peer's SEND: ...: seq 1 not seen within 3000 ms".
PhaseResult send_pingpong_client(SendSession& s, const PhaseSpec& p);

/// Responder side: waits for each message, re-posts a receive, answers, verifies. Counts checksum
/// errors (wrong seq, bad checksum or byte count != message size).
Status send_pingpong_responder(SendSession& s, const PhaseSpec& p, std::uint64_t& checksum_errors);

}  // namespace rh
