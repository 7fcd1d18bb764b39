// Stopping `rocehealth accept --spec` early and keeping what it measured (issue 16 §3): SIGINT or
// SIGTERM (a CI job timeout, a lost ssh session) or a stage that runs past its time limit
// (Spec::time_limit_s). Either sets one flag; the runner and the stages look at it between pairs
// and in their long waits (every <= 500 ms), end the stage with what it measured, and the runner
// writes an `incomplete` report naming the stage.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace rh::accept {

/// Why the run stops early. `requested` is what stages poll; `signal` says a signal asked.
struct RunStop {
    std::atomic<bool> requested{false};
    std::atomic<int> signal{0};  ///< SIGINT or SIGTERM when one asked; 0 otherwise
};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler may only touch lock-free atomics");

/// The process's RunStop, the one the signal handlers set.
RunStop& process_run_stop();

/// While alive, SIGINT and SIGTERM only set process_run_stop() (the handler stores two lock-free
/// atomics: async-signal-safe). A second signal ends the process at once (its default action),
/// for someone who will not wait for the report. The previous handlers come back on destruction.
class StopSignals {
  public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

  private:
    struct Saved;
    std::unique_ptr<Saved> saved_;
};

/// "SIGINT", "SIGTERM", else "signal N".
std::string signal_name(int sig);

/// A stage's time limit: sets `stop.requested` once `limit_s` seconds have passed, unless
/// destroyed (the stage ended) first. expired() tells which of the two happened.
class StageTimer {
  public:
    StageTimer(RunStop& stop, double limit_s);
    ~StageTimer();
    StageTimer(const StageTimer&) = delete;
    StageTimer& operator=(const StageTimer&) = delete;
    bool expired() const { return expired_.load(); }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
    std::atomic<bool> expired_{false};
    std::thread thread_;
};

}  // namespace rh::accept
