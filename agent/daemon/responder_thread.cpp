#include "agent/daemon/responder_thread.h"

#include <chrono>

#include "agent/daemon/log.h"

namespace rh::agent {

ResponderThread::ResponderThread(ResponderOptions opts) : opts_(std::move(opts)) {
    thread_ = std::thread([this] { run(); });
}

ResponderThread::~ResponderThread() {
    stop();
}

void ResponderThread::stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
}

void ResponderThread::run() {
    std::string last_error;
    while (!stop_.load()) {
        up_.store(true);
        log_event("info", "responder_starting",
                  {{"listen", opts_.listen_addr}, {"port", opts_.port}, {"device", opts_.device}});
        const Status s = run_responder(opts_, stop_);
        up_.store(false);
        if (s) break;  // stopped on request
        const std::string msg = s.error().message();
        if (msg != last_error)
            log_event("error", "responder_failed", {{"error", msg}, {"retry_in_s", 30}});
        last_error = msg;
        for (int i = 0; i < 300 && !stop_.load(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace rh::agent
