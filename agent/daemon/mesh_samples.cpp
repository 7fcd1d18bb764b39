#include "agent/daemon/mesh_samples.h"

#include <map>

namespace rh::agent {

std::vector<Sample> stamp_at_pass(const std::vector<Sample>& drained, PassStamp now,
                                  std::optional<PassStamp> prev, const SeriesStore& store) {
    std::map<SeriesKey, const Sample*> last;  // the newest sample of each series
    for (const Sample& s : drained) last[SeriesKey{s.host, s.series, s.labels}] = &s;
    std::vector<Sample> out;
    for (const auto& [key, s] : last) {
        if (s->kind == SampleKind::counter && prev && !store.get(key)) {
            Sample zero = *s;
            zero.t_s = prev->t_s;
            zero.wall_ms = prev->wall_ms;
            zero.count = 0;
            out.push_back(std::move(zero));
        }
        Sample x = *s;
        x.t_s = now.t_s;
        x.wall_ms = now.wall_ms;
        out.push_back(std::move(x));
    }
    return out;
}

}  // namespace rh::agent
