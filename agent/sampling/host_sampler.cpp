#include "agent/sampling/host_sampler.h"

#include <chrono>

#include "core/clock.h"
#include "core/counter_wrap.h"
#include "store/from_snapshot.h"

namespace rh {

namespace {

/// `base` with every source `newer` read taken from `newer`.
void overlay(SourcePasses& base, const SourcePasses& newer) {
    for (std::size_t i = 0; i < base.size(); ++i)
        if (newer[i].read) base[i] = newer[i];
}

}  // namespace

HostSampler::HostSampler(CollectOptions opts, std::string host, double inventory_refresh_s)
    : opts_(std::move(opts)), host_(std::move(host)), inventory_refresh_s_(inventory_refresh_s) {
    discover();
}

void HostSampler::discover() {
    poller_.reset();
    snap_ = collect_snapshot(opts_, &discovered_sources_);
    overlay(sources_, discovered_sources_);
    if (!host_.empty()) snap_.host = host_;
    poller_ = std::make_unique<CounterPoller>(opts_.sysfs, snap_);
    fresh_ = true;
    discovered_s_ = monotonic_now_s();
    ++discoveries_;
}

const std::vector<Sample>& HostSampler::pass(std::vector<std::string>& rediscovered) {
    if (!fresh_) {
        const PollResult r = poller_->poll(snap_);
        sources_ = discovered_sources_;
        overlay(sources_, r.sources);
        if (r.rediscover) {
            rediscovered.insert(rediscovered.end(), r.rediscover_reasons.begin(),
                                r.rediscover_reasons.end());
            discover();
            ++rediscoveries_;
        } else if (inventory_refresh_s_ > 0 &&
                   monotonic_now_s() - discovered_s_ >= inventory_refresh_s_) {
            discover();  // not a rediscovery: nothing changed that the poller could see
        }
    }
    const SampleTime now{monotonic_now_s(), wall_now_ms()};
    fill_samples_from_snapshot(snap_, now, samples_);
    mark_segment();
    if (!fresh_) {
        with_inventory_.clear();  // the last discovery's inventory is in the store now
        return samples_;
    }
    fresh_ = false;  // once per discovery: the copy's allocations do not recur every pass
    with_inventory_.clear();
    with_inventory_.push_back(inventory_sample(snap_, now));
    with_inventory_.back().segment = segment_;
    with_inventory_.insert(with_inventory_.end(), samples_.begin(), samples_.end());
    return with_inventory_;
}

void HostSampler::mark_segment() {
    bool reset = last_counts_.size() == samples_.size();
    if (reset) {
        reset = false;
        for (std::size_t i = 0; i < samples_.size() && !reset; ++i) {
            const Sample& s = samples_[i];
            const auto& before = last_counts_[i];
            // Same position, same counter: 64-bit and not saturating (a 32-bit Q counter that
            // falls has wrapped; a PMA counter stops at its maximum).
            reset = s.kind == SampleKind::counter && s.width_bits == 64 && !s.saturates && before &&
                    s.count && counter_was_reset(*before, *s.count);
        }
    }
    if (reset) ++segment_;
    last_counts_.resize(samples_.size());
    for (std::size_t i = 0; i < samples_.size(); ++i) {
        last_counts_[i] =
            samples_[i].kind == SampleKind::counter ? samples_[i].count : std::nullopt;
        samples_[i].segment = segment_;
    }
}

}  // namespace rh
