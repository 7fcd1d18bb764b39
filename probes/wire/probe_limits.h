// The limits of a probe or stream message and of one probe request, defined once. The wire
// decoders (probes/wire/oob_protocol, probes/wire/stream_protocol), the probe session's option
// checks and the CLI's parsers (agent/probe_args) all read these, so a value the CLI takes is one
// the peer takes too.
#pragma once

#include <cstdint>

#include "probes/wire/slot.h"

namespace rh::limits {

/// Smallest message in bytes: 8 payload bytes + the slot trailer (probes/wire/slot.h).
inline constexpr std::uint64_t kMinMessageBytes = slot::kMinSize;
/// Largest probe or stream message in bytes (16 MiB).
inline constexpr std::uint64_t kMaxMessageBytes = 16ull << 20;
/// Most WRs in flight per QP (probe --queue-depth, incast/stream queue_depth).
inline constexpr std::uint32_t kMaxQueueDepth = 64;
/// Most messages (iterations + warmup) of one probe request.
inline constexpr std::uint32_t kMaxCount = 10'000'000;
/// RNR retry count: the IB attribute is 3 bits, and 7 means retry without limit.
inline constexpr std::uint32_t kMaxRnrRetry = 7;

}  // namespace rh::limits
