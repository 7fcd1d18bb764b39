// When collection passes run: on a fixed grid of `interval_s` from a start time, in
// CLOCK_MONOTONIC seconds (core/clock.h). One schedule for `record`, `diagnose --live` and the
// agent, so they sample alike: a pass that overran its interval is followed at once by the next
// grid slot after it ends (missed slots are skipped, not run back to back), and a bounded run
// ends when another pass would end later than a quarter interval past its duration.
#pragma once

#include <cmath>

namespace rh {

class PassSchedule {
  public:
    /// `interval_s` > 0; `duration_s` 0 = unbounded; `start_s` = the first pass's time.
    PassSchedule(double interval_s, double duration_s, double start_s)
        : interval_s_(interval_s), duration_s_(duration_s), start_s_(start_s), next_s_(start_s) {}

    double interval_s() const { return interval_s_; }
    /// Time of the pass due next (the start time until next_after() is called).
    double next_s() const { return next_s_; }

    /// After a pass that ended at `now_s`: moves to and returns the first grid slot after it
    /// (the following slot when the pass kept within its interval).
    double next_after(double now_s) {
        const double missed = std::floor((now_s - next_s_) / interval_s_);
        next_s_ += interval_s_ * (missed < 1 ? 1 : missed + 1);
        return next_s_;
    }

    /// A bounded run is over at `now_s` (just after a pass) when one more interval would end
    /// more than a quarter interval past the duration.
    bool done(double now_s) const {
        return duration_s_ > 0 && now_s - start_s_ + interval_s_ > duration_s_ + 0.25 * interval_s_;
    }

    /// A new interval (config reload) starting now: the next pass is due at `now_s`.
    void restart(double interval_s, double now_s) {
        interval_s_ = interval_s;
        next_s_ = now_s;
    }

  private:
    double interval_s_;
    double duration_s_;
    double start_s_;
    double next_s_;
};

}  // namespace rh
