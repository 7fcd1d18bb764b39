#include "collectors/poller/counter_poller.h"

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "collectors/poller/poll_pass.h"
#include "collectors/poller/poll_plan.h"

namespace rh {

// The plan (what discovery found) lives as long as the poller; each poll() is a Pass over it.
struct CounterPoller::Impl : poll::Plan {
    using Plan::Plan;
};

CounterPoller::CounterPoller(const SysfsRoot& sysfs, const Snapshot& discovered, DirWatch watch)
    : impl_(std::make_unique<Impl>(
          sysfs, discovered,
          std::optional<CounterSources>(sysfs.is_live()
                                            ? make_live_counter_sources()
                                            : make_fixture_counter_sources(sysfs.root())),
          watch)) {
    // Netdev values now come from class/net/<if>/ (rtnetlink on a live discovery pass).
}

CounterPoller::CounterPoller(const SysfsRoot& sysfs, const Snapshot& discovered,
                             CounterSources per_pass, DirWatch watch)
    : impl_(std::make_unique<Impl>(sysfs, discovered, std::move(per_pass), watch)) {}

CounterPoller::~CounterPoller() = default;

PollResult CounterPoller::poll(Snapshot& snap) {
    PollResult r;
    if (!impl_->same_shape(snap, r)) return r;
    poll::Pass pass(*impl_, snap, r);
    try {
        pass.run();
    } catch (const std::exception& e) {
        pass.rediscover(std::string("poll failed: ") + e.what());
        for (auto& ports : impl_->dirty) ports.assign(ports.size(), 1);  // normalize all next time
    }
    return r;
}

std::size_t CounterPoller::files_open() const {
    return impl_->files.kept;
}

std::size_t CounterPoller::files_per_pass() const {
    return impl_->files.files.size();
}

}  // namespace rh
