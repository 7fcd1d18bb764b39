// `rocehealth incast`: N senders -> 1 receiver, coordinated through each host's
// `rocehealth responder` control channel (probes/responder/control_dispatch.h):
//   1. hello to every participant (clock offsets), counter sampling starts on each (1/s);
//   2. incast_prepare to every sender: each opens its stream to the receiver (a sender that is
//      unreachable or fails here is named and left out; the others go on);
//   3. the victim probe (64 B WRITE ping-pong to the receiver) measures a baseline, while the
//      counters cover the pre-window;
//   4. one start time, converted into each sender's clock, goes to all ready senders;
//   5. during the traffic the victim keeps probing and the senders report progress ~1/s;
//   6. results are collected until start + duration + kResultGraceMs (a sender that died is
//      named: no result), sampling continues for the post-window, then stops.
// Every wait has a deadline: nothing outlives start + duration + grace + post-window by more
// than the sample collection's 10 s.
#pragma once

#include <functional>

#include "core/result.h"
#include "probes/incast/incast_run.h"

namespace rh::incast {

/// Checks the options: at least one sender, no host twice, the receiver not a sender, size a
/// slot size (multiple of 8, 16 B .. 16 MiB), queue depth 1..64, QPs 1..16, the ring
/// (3 x queue depth x size) <= 64 MiB per QP, duration 0.1 s .. 1 h. Errors say which option.
Status check_options(const Options& o);

/// Runs the incast. Error: bad options, or the receiver cannot be reached (nothing to measure).
/// Everything else is in the Run, including senders that never started. `live` is called about
/// twice a second from the start to the end of the traffic (may be empty).
Result<Run> run_incast(const Options& o, const std::function<void(const Live&)>& live);

}  // namespace rh::incast
