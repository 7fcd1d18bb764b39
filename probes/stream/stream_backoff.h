// Bounded polling for the stream loops: spin while completions arrive; after an idle stretch
// yield the CPU, then sleep 20 us doubling up to 200 us. An idle stream (before the agreed start,
// a sender waiting on receiver-not-ready) then costs little CPU, and on a one-CPU Soft-RoCE guest
// the kernel's rxe work, which carries the packets, gets to run. At full rate the completion
// queue is rarely empty and the loop never sleeps.
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace rh::stream {

/// Completions a stream loop (sender and receiver) reaps per QP per pass before it moves to the
/// next QP: fairness between QPs.
inline constexpr unsigned kReapBatch = 32;

class Backoff {
  public:
    /// Something was done: spin again.
    void progress() { idle_ = 0; }
    /// Nothing was done in this pass: spin, yield or sleep, depending on how long it has been.
    void idle() {
        ++idle_;
        if (idle_ < kSpin) return;
        if (idle_ < kYield) {
            sched_yield();
            return;
        }
        const unsigned doublings = std::min(3u, (idle_ - kYield) / 16);
        std::this_thread::sleep_for(
            std::chrono::microseconds(std::min<unsigned>(kSleepMaxUs, kSleepMinUs << doublings)));
    }

  private:
    static constexpr unsigned kSpin = 64, kYield = 256, kSleepMinUs = 20, kSleepMaxUs = 200;
    unsigned idle_ = 0;
};

}  // namespace rh::stream
