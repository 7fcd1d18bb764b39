// How a latency probe waits for what gives no event — a peer's WRITE landing in memory, a CQE on
// a CQ without a completion channel: spin (yielding now and then) for a budget of kSpinBudget
// after the wait began, then sleep between polls, kSleepMin doubling up to kSleepMax.
//
// Why: on hardware an answer comes in microseconds, inside the budget, so the figure is exact, as
// with perftest's pure spinning. A wait beyond the budget (an emulated NIC, a congested fabric,
// the responder waiting for a client's next ping) then costs little CPU instead of a whole core:
// the probe mesh of the agent runs all day. The price: a latency above kSpinBudget is seen up to
// kSleepMax (+ timer slack, ~50 us) late. On a one-CPU Soft-RoCE guest both the yields and the
// sleeps let the kernel's rxe work, which carries our packets, run.
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace rh {

class WaitPacer {
  public:
    using Clock = std::chrono::steady_clock;
    static constexpr auto kSpinBudget = std::chrono::microseconds(1000);
    static constexpr auto kSleepMin = std::chrono::microseconds(20);
    static constexpr auto kSleepMax = std::chrono::microseconds(100);

    /// A new wait begins at `t` (a message was sent, a completion arrived).
    void begin(Clock::time_point t) {
        began_ = t;
        sleep_ = kSleepMin;
    }
    /// A poll found nothing at `now`: yields within the spin budget, else sleeps.
    void idle(Clock::time_point now) {
        if (now - began_ < kSpinBudget) {
            sched_yield();
            return;
        }
        std::this_thread::sleep_for(sleep_);
        sleep_ = std::min<std::chrono::microseconds>(sleep_ * 2, kSleepMax);
    }

  private:
    Clock::time_point began_{};
    std::chrono::microseconds sleep_ = kSleepMin;
};

}  // namespace rh
