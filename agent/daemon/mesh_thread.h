// The probe mesh (probes/mesh/mesh.h) in a thread of the agent, when mesh.peers is not empty. The
// thread sleeps on a condition variable between rounds (no polling); stop() wakes it, ends the
// round in progress after its current phase or connect (bounded by mesh.timeout_s; that peer's
// round is not counted) and closes the sessions (QPs and MRs released). Each round's samples wait
// in a queue the run loop drains every pass (drain()); phases and failures also go to the
// ProbeSummaries for /metrics, and each failure is logged as a probe_failed event.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/daemon/probe_summary.h"
#include "core/sample.h"
#include "probes/mesh/mesh.h"

namespace rh::agent {

class MeshThread {
  public:
    /// Starts the mesh at once. `summaries` (and `tor_summaries`) must outlive this object.
    /// Peers in `tor_of` (address -> ToR: the inter-ToR peers of a peers file) go to
    /// `tor_summaries` under their ToR's name instead of `summaries` under their own.
    MeshThread(MeshSchedule schedule, std::string host, ProbeSummaries& summaries,
               std::map<std::string, std::string> tor_of = {},
               ProbeSummaries* tor_summaries = nullptr);
    ~MeshThread();  ///< stop()
    MeshThread(const MeshThread&) = delete;
    MeshThread& operator=(const MeshThread&) = delete;

    /// The samples of the rounds since the last call, in the order they were produced. At most
    /// kMaxPending are kept (the oldest are dropped if nobody drains).
    std::vector<Sample> drain();
    /// Wakes the thread, ends the round in progress after its current phase and joins.
    void stop();

    static constexpr std::size_t kMaxPending = 100000;

  private:
    bool sleep_until(Mesh::Clock::time_point t);

    std::mutex m_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::vector<Sample> pending_;
    std::unique_ptr<Mesh> mesh_;
    std::thread thread_;
};

}  // namespace rh::agent
