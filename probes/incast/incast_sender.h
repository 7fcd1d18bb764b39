// The sending role of an incast, served by `rocehealth responder` on the coordinator's request
// (one control connection for the whole test):
//
//   C -> S  incast_prepare  {id, receiver, op, size_bytes, qps, queue_depth, duration_ms}
//           S opens its stream to the receiver (probes/stream/stream_sender.h)
//   S -> C  incast_ready    {receiver_hostname, slots, path_mtu}   (or an error message naming
//                                                                   the step that failed)
//   C -> S  incast_start    {start_at_wall_ms (S's clock), duration_ms}
//           S waits for that instant, streams for duration_ms
//   S -> C  incast_progress {elapsed_ms, completed_bytes, completed_messages, errors}  ~1/s
//   S -> C  incast_result   (incast::Outcome: per-QP counts, errors by IBV_WC_* status, the
//                            receiver's stream_result with its bad slots)
// S gives up waiting for incast_start after kStartWaitMs, refuses a start more than
// kMaxStartAheadMs ahead, and stops posting at once when the coordinator's connection closes.
#pragma once

#include <nlohmann/json.hpp>

#include "probes/responder/control_dispatch.h"
#include "probes/wire/tcp.h"

namespace rh::incast {

inline constexpr int kStartWaitMs = 120000;
inline constexpr std::int64_t kMaxStartAheadMs = 60000;

/// Serves one incast sender session whose first message is `prepare`.
void serve_sender(const tcp::Socket& s, const nlohmann::json& prepare, const ControlContext& cx);

}  // namespace rh::incast
