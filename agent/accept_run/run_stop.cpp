#include "agent/accept_run/run_stop.h"

#include <signal.h>

#include <chrono>

namespace rh::accept {

namespace {

RunStop g_stop;

void on_stop_signal(int sig) {
    if (g_stop.signal.load() != 0) {  // the second one: no waiting for the report
        ::signal(sig, SIG_DFL);
        ::raise(sig);
        return;
    }
    g_stop.signal.store(sig);
    g_stop.requested.store(true);
}

}  // namespace

RunStop& process_run_stop() {
    return g_stop;
}

struct StopSignals::Saved {
    struct sigaction old_int {
    }, old_term{};
};

StopSignals::StopSignals() : saved_(std::make_unique<Saved>()) {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &saved_->old_int);
    sigaction(SIGTERM, &sa, &saved_->old_term);
}

StopSignals::~StopSignals() {
    sigaction(SIGINT, &saved_->old_int, nullptr);
    sigaction(SIGTERM, &saved_->old_term, nullptr);
}

std::string signal_name(int sig) {
    if (sig == SIGINT) return "SIGINT";
    if (sig == SIGTERM) return "SIGTERM";
    return "signal " + std::to_string(sig);
}

StageTimer::StageTimer(RunStop& stop, double limit_s)
    : thread_([this, &stop, limit_s] {
          std::unique_lock lock(mu_);
          const auto until = std::chrono::steady_clock::now() +
                             std::chrono::milliseconds(static_cast<long long>(limit_s * 1000));
          if (!cv_.wait_until(lock, until, [this] { return done_; })) {
              expired_.store(true);
              stop.requested.store(true);
          }
      }) {}

StageTimer::~StageTimer() {
    {
        std::lock_guard lock(mu_);
        done_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

}  // namespace rh::accept
