// The mesh's dynamic fleet source in a thread of the agent: one fetch at once, then one every
// `period_s`, so a slow resolver or Prometheus (each bounded by its own timeout) never delays a
// collection pass. The run loop takes the newest answer each pass (take()) and applies it: a
// good one replaces the fleet when it differs, a failed one keeps the last good fleet and is
// counted (rocehealth_mesh_peer_source_errors_total).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "agent/daemon/fleet_self.h"
#include "core/result.h"

namespace rh::agent {

class FleetRefresher {
  public:
    using Fetch = std::function<Result<FleetAnswer>()>;
    /// Starts the thread; `fetch` runs in it at once, then every `period_s` seconds after the
    /// previous fetch ended.
    FleetRefresher(Fetch fetch, double period_s);
    /// Wakes the thread and joins it: waits for a fetch in progress (its own timeout bounds it).
    ~FleetRefresher();
    FleetRefresher(const FleetRefresher&) = delete;
    FleetRefresher& operator=(const FleetRefresher&) = delete;

    /// The newest fetch's result since the last call; nullopt when none finished since.
    std::optional<Result<FleetAnswer>> take();

  private:
    std::mutex m_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::optional<Result<FleetAnswer>> latest_;
    std::thread thread_;
};

}  // namespace rh::agent
