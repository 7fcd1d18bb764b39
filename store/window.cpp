#include "store/window.h"

#include "collectors/counter_delta.h"

namespace rh {

WindowIncrease increase_in(const Series& s, double t0, double t1) {
    WindowIncrease w;
    const Point* prev = nullptr;
    for (const Point& p : s.points) {
        if (p.t < t0 - kWindowSlackS) continue;
        if (p.t > t1 + kWindowSlackS) break;
        if (prev) {
            const PointMeta& a = s.meta(*prev);
            const PointMeta& b = s.meta(p);
            CounterDelta d;
            if (a.raw == b.raw && a.width_bits == b.width_bits)
                d = delta(prev->count, p.count, b.width_bits, b.saturates);
            if (d.value) {
                w.increase = w.increase.value_or(0) + *d.value;
                w.covered_s += p.t_s - prev->t_s;
                ++w.intervals;
                w.reset = w.reset || d.kind == DeltaKind::reset;
                w.wrapped = w.wrapped || d.kind == DeltaKind::wrapped;
            } else {
                ++w.gaps;
            }
        }
        prev = &p;
    }
    return w;
}

std::optional<double> rate_in(const Series& s, double t0, double t1) {
    const WindowIncrease w = increase_in(s, t0, t1);
    if (!w.increase || w.covered_s <= 0) return std::nullopt;
    return static_cast<double>(*w.increase) / w.covered_s;
}

std::optional<double> last_value_in(const Series& s, double t0, double t1) {
    std::optional<double> v;
    for (const Point& p : s.points) {
        if (p.t < t0 - kWindowSlackS) continue;
        if (p.t > t1 + kWindowSlackS) break;
        if (p.value) v = p.value;
    }
    return v;
}

std::optional<double> value_at(const Series& s, double t) {
    std::optional<double> v;
    for (const Point& p : s.points) {
        if (p.t > t + kWindowSlackS) break;
        if (p.value) v = p.value;
    }
    return v;
}

}  // namespace rh
