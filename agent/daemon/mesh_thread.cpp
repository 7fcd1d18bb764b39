#include "agent/daemon/mesh_thread.h"

#include "agent/daemon/log.h"
#include "agent/sampling/host_sampler.h"
#include "core/clock.h"

namespace rh::agent {

MeshThread::MeshThread(MeshSchedule schedule, std::string host, ProbeSummaries& summaries,
                       std::map<std::string, std::string> tor_of, ProbeSummaries* tor_summaries) {
    // Where a peer's results go: its own row, or its ToR's row in tor_summaries.
    auto row = [&summaries, tor_of = std::move(tor_of),
                tor_summaries](const std::string& peer) -> std::pair<ProbeSummaries*, std::string> {
        if (tor_summaries)
            if (auto t = tor_of.find(peer); t != tor_of.end()) return {tor_summaries, t->second};
        return {&summaries, peer};
    };
    MeshHooks hooks;
    hooks.on_phase = [row](const std::string& peer, const LatencyStats& phase,
                           const std::vector<double>& raw_us) {
        const auto [to, key] = row(peer);
        to->add_phase(key, phase.op, phase.size_bytes, raw_us, monotonic_now_s());
    };
    hooks.on_error = [row](const std::string& peer, const std::string& op,
                           const std::string& status, const std::string& reason) {
        const auto [to, key] = row(peer);
        to->add_error(key, op, monotonic_now_s());
        log_event("warning", "probe_failed",
                  {{"peer", peer}, {"op", op}, {"status", status}, {"reason", reason}});
    };
    auto sink = [this](std::vector<Sample> round) {
        std::lock_guard<std::mutex> l(m_);
        for (auto& s : round) pending_.push_back(std::move(s));
        if (pending_.size() > kMaxPending)
            pending_.erase(pending_.begin(),
                           pending_.begin() + static_cast<long>(pending_.size() - kMaxPending));
    };
    mesh_ = std::make_unique<Mesh>(std::move(schedule), std::move(host), sink, std::move(hooks));
    thread_ = std::thread(
        [this] { mesh_->run([this](Mesh::Clock::time_point t) { return sleep_until(t); }); });
}

MeshThread::~MeshThread() {
    stop();
}

bool MeshThread::sleep_until(Mesh::Clock::time_point t) {
    std::unique_lock<std::mutex> l(m_);
    wake_.wait_until(l, t, [this] { return stop_; });
    return !stop_;
}

std::vector<Sample> MeshThread::drain() {
    std::lock_guard<std::mutex> l(m_);
    std::vector<Sample> out;
    out.swap(pending_);
    return out;
}

void MeshThread::stop() {
    {
        std::lock_guard<std::mutex> l(m_);
        stop_ = true;
    }
    if (mesh_) mesh_->request_stop();  // the round in progress ends after its current phase
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    mesh_.reset();  // closes the sessions: QPs and MRs released
}

}  // namespace rh::agent
