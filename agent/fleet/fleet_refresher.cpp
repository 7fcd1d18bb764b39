#include "agent/fleet/fleet_refresher.h"

#include <chrono>

namespace rh::agent {

FleetRefresher::FleetRefresher(Fetch fetch, double period_s) {
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(period_s));
    thread_ = std::thread([this, fetch = std::move(fetch), period] {
        std::unique_lock<std::mutex> l(m_);
        while (!stop_) {
            l.unlock();
            Result<FleetAnswer> r = fetch(cancel_);
            l.lock();
            latest_.emplace(std::move(r));
            wake_.wait_for(l, period, [this] { return stop_; });
        }
    });
}

FleetRefresher::~FleetRefresher() {
    {
        std::lock_guard<std::mutex> l(m_);
        stop_ = true;
    }
    cancel_.store(true);
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::optional<Result<FleetAnswer>> FleetRefresher::take() {
    std::lock_guard<std::mutex> l(m_);
    std::optional<Result<FleetAnswer>> out;
    out.swap(latest_);
    return out;
}

}  // namespace rh::agent
