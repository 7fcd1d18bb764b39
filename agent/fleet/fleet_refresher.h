// The mesh's dynamic fleet source in a thread of the agent: one fetch at once, then one every
// `period_s`, so a slow resolver or Prometheus (each bounded by its own timeout) never delays a
// collection pass. The run loop takes the newest answer each pass (take()) and applies it: a
// good one replaces the fleet when it differs, a failed one keeps the last good fleet and is
// counted (rocehealth_mesh_peer_source_errors_total).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "agent/fleet/fleet_self.h"
#include "core/result.h"

namespace rh::agent {

class FleetRefresher {
  public:
    /// A fetch; it ends early (with an error) once `stop` is set (the refresher's destruction).
    using Fetch = std::function<Result<FleetAnswer>(const std::atomic<bool>& stop)>;
    /// Starts the thread; `fetch` runs in it at once, then every `period_s` seconds after the
    /// previous fetch ended.
    FleetRefresher(Fetch fetch, double period_s);
    /// Sets the fetch's stop flag, wakes the thread and joins it: a fetch in progress ends
    /// within ~100 ms (SIGTERM does not wait for a slow Prometheus).
    ~FleetRefresher();
    FleetRefresher(const FleetRefresher&) = delete;
    FleetRefresher& operator=(const FleetRefresher&) = delete;

    /// The newest fetch's result since the last call; nullopt when none finished since.
    std::optional<Result<FleetAnswer>> take();

  private:
    std::mutex m_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::atomic<bool> cancel_{false};  ///< what a fetch in progress watches
    std::optional<Result<FleetAnswer>> latest_;
    std::thread thread_;
};

}  // namespace rh::agent
