// The limits of a probe or stream message and of one probe request, defined once. The wire
// decoders (probes/wire/oob_protocol, probes/wire/stream_protocol), the probe session's option
// checks and the CLI's parsers (agent/probe_args) all read these, so a value the CLI takes is one
// the peer takes too.
#pragma once

#include <cstdint>
#include <string>

#include "probes/wire/slot.h"

namespace rh::limits {

/// Smallest message in bytes: 8 payload bytes + the slot trailer (probes/wire/slot.h).
inline constexpr std::uint64_t kMinMessageBytes = slot::kMinSize;
/// Largest probe or stream message in bytes (16 MiB).
inline constexpr std::uint64_t kMaxMessageBytes = 16ull << 20;
/// True when `bytes` is a usable probe or stream message size: a multiple of 8 from
/// kMinMessageBytes to kMaxMessageBytes. Every size check (the wire decoders, the responder's probe
/// request, the acceptance spec, the CLI) calls this, so a size one end takes the other takes too.
constexpr bool valid_message_size(std::uint64_t bytes) {
    return bytes >= kMinMessageBytes && bytes <= kMaxMessageBytes && bytes % 8 == 0;
}
/// The rule valid_message_size checks, for messages: "a multiple of 8 from 24 to 16777216 bytes".
inline std::string message_size_rule() {
    return "a multiple of 8 from " + std::to_string(kMinMessageBytes) + " to " +
           std::to_string(kMaxMessageBytes) + " bytes";
}
/// Most WRs in flight per QP (probe --queue-depth, incast/stream queue_depth).
inline constexpr std::uint32_t kMaxQueueDepth = 64;
/// Most messages (iterations + warmup) of one probe request.
inline constexpr std::uint32_t kMaxCount = 10'000'000;
/// RNR retry count: the IB attribute is 3 bits, and 7 means retry without limit.
inline constexpr std::uint32_t kMaxRnrRetry = 7;

/// What a responder lends a peer that has not proven the fabric key (issue 27): buffer bytes per
/// probe session (queue_depth x max_msg_size, oob::buffer_bytes) ...
inline constexpr std::uint64_t kUnauthSessionBytes = 4ull << 20;
/// ... across all such sessions at once ...
inline constexpr std::uint64_t kUnauthTotalBytes = 16ull << 20;
/// ... and the longest a READ phase may keep the session waiting (count x timeout_ms).
inline constexpr std::uint64_t kUnauthReadPhaseMs = 30ull * 60 * 1000;
/// `rocehealth probe`'s defaults (sizes up to 1 MiB, WRITE + READ, queue depth 1: 4 MiB; 210
/// messages x 5 s = 1,050 s) and the mesh's (64 B WRITE) fit; a client past these proves the key
/// first when it holds one (probes/latency/probe_session.cpp).

}  // namespace rh::limits
