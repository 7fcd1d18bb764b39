// The measuring loops (internal to rh_probes). Buffer layout of one phase with message size S:
//   WRITE: receive slots at [0, S) and [S, 2S) (what the peer writes into), send slots at
//          [2S, 3S) and [3S, 4S); message i uses slot i % 2 (so a receiver can verify message i
//          while message i+1 is in flight, and message i+2 cannot arrive before it answered i+1).
//   READ:  slot j at [jS, (j+1)S), j < queue depth, on both sides; the responder fills slot j
//          with seed/seq = seq_base + j, and the client's read i targets slot i % queue_depth.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/verbs/rc_connection.h"
#include "probes/verbs/wc_status.h"

namespace rh {

struct RemoteBuffer {
    std::uint64_t addr = 0;
    std::uint32_t rkey = 0;
};

struct PhaseSpec {
    std::size_t size = 0;
    std::uint32_t count = 0;   ///< messages including warm-up
    std::uint32_t warmup = 0;  ///< first `warmup` messages are not timed
    std::uint32_t seq_base = 1;
    unsigned queue_depth = 1;
    int timeout_ms = 5000;                    ///< longest wait for any one message/completion
    const std::atomic<bool>* stop = nullptr;  ///< responder shutdown flag (may be null)
    int control_fd = -1;  ///< the TCP control connection; a wait fails at once when it closes
    const char* peer_role = "peer";  ///< "responder" | "client", for that error
};

/// How often a phase's waits look at the control connection (control_closed): often enough that
/// a peer gone is seen within a few ms, rarely enough that the poll costs nothing per message.
inline constexpr auto kControlCheck = std::chrono::milliseconds(5);

/// When a wait of phase `p` that starts now gives up: now + p.timeout_ms (steady clock).
inline std::chrono::steady_clock::time_point phase_deadline(const PhaseSpec& p) {
    return std::chrono::steady_clock::now() + std::chrono::milliseconds(p.timeout_ms);
}

/// When `p.control_fd` is at EOF/reset (non-blocking check), the error saying so: only a
/// detail, so message() is e.g. "responder closed the control connection (process ended or
/// crashed) during WRITE 64 B message 7".
std::optional<Error> control_closed(const PhaseSpec& p, const char* op, std::uint32_t message);
inline bool is_control_closed(const Error& e) {
    return e.cause == kCausePeerClosed;
}

struct PhaseResult {
    std::vector<double> samples_us;  ///< write: round trip / 2; read: post to completion
    double wall_seconds = 0;         ///< timed part of the loop
    std::uint64_t checksum_errors = 0;
    std::string error;  ///< non-empty: the phase stopped early
    std::string cause;  ///< with `error`: how it is counted (cause_of: IBV_WC_*, timeout, ...)

    /// Records that the phase stopped at `message` of `op` (e.g. "WRITE"): error "WRITE 64 B
    /// message 7: <e>" (a closed control connection keeps its own sentence), cause cause_of(e).
    void fail(const char* op, const PhaseSpec& p, std::uint32_t message, const Error& e);
};

/// Client side of the WRITE ping-pong: times WRITE -> peer's WRITE seen in memory.
PhaseResult write_pingpong_client(RcConnection& c, const RemoteBuffer& peer, const PhaseSpec& p);
/// Responder side: waits for each ping, answers it, verifies it. Counts checksum errors.
Status write_pingpong_responder(RcConnection& c, const RemoteBuffer& peer, const PhaseSpec& p,
                                std::uint64_t& checksum_errors);

/// Client side of READ: keeps up to queue_depth READs outstanding, verifies each slot read.
PhaseResult read_client(RcConnection& c, const RemoteBuffer& peer, const PhaseSpec& p);
/// Responder side: fills the READ slots for a phase.
void fill_read_slots(std::span<std::byte> buffer, const PhaseSpec& p);

}  // namespace rh
