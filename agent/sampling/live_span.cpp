#include "agent/sampling/live_span.h"

#include <chrono>
#include <thread>

#include "agent/sampling/host_sampler.h"
#include "core/clock.h"
#include "core/pass_schedule.h"
#include "core/recording/sample_json.h"

namespace rh {

std::optional<InputReport> sample_live_span(SeriesStore& store, const std::string& root,
                                            const std::string& device, double interval_s,
                                            double duration_s, std::ostream* save) {
    HostSampler sampler(CollectOptions{SysfsRoot(root), device}, "");
    if (sampler.devices() == 0) return std::nullopt;
    InputReport in;
    in.name = "live:" + root;
    in.hosts = {sampler.snapshot().host};
    PassSchedule schedule(interval_s, duration_s, monotonic_now_s());
    for (;;) {
        std::vector<std::string> rediscovered;
        for (const Sample& s : sampler.pass(rediscovered)) {
            store.add(s);
            if (save) write_sample(*save, s);
            ++in.samples;
        }
        if (save) save->flush();
        for (auto& r : rediscovered) in.notes.push_back("rediscovered devices: " + r);
        const double now = monotonic_now_s();
        if (schedule.done(now)) break;
        const double wait = schedule.next_after(now) - monotonic_now_s();
        if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
    return in;
}

}  // namespace rh
