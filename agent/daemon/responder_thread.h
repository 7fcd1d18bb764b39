// The probe responder (probes/responder/responder.h) in a thread of the agent, when
// responder.enabled. If it cannot start (no RDMA device with an ACTIVE port yet, port in use) it
// logs why and tries again every 30 s until stopped; up() says whether it is serving.
#pragma once

#include <atomic>
#include <thread>

#include "probes/responder/responder.h"

namespace rh::agent {

class ResponderThread {
  public:
    explicit ResponderThread(ResponderOptions opts);
    ~ResponderThread();  ///< stop()
    ResponderThread(const ResponderThread&) = delete;
    ResponderThread& operator=(const ResponderThread&) = delete;

    /// True while run_responder runs (it has not returned an error since its last start).
    bool up() const { return up_.load(); }
    /// Asks the responder to stop (its sessions wind down in ~0.2 s) and joins the thread.
    void stop();

  private:
    void run();

    ResponderOptions opts_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> up_{false};
    std::thread thread_;
};

}  // namespace rh::agent
