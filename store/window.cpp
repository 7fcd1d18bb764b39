#include "store/window.h"

#include <algorithm>

#include "store/counter_delta.h"

namespace rh {

namespace {

/// First point with t >= `t` (points are in time order): windows are found by binary search,
/// so a query costs O(log n + points in the window), not O(series length).
std::deque<Point>::const_iterator first_at_or_after(const Series& s, double t) {
    return std::lower_bound(s.points.begin(), s.points.end(), t,
                            [](const Point& p, double v) { return p.t < v; });
}

/// First point with t > `t`.
std::deque<Point>::const_iterator first_after(const Series& s, double t) {
    return std::upper_bound(s.points.begin(), s.points.end(), t,
                            [](double v, const Point& p) { return v < p.t; });
}

}  // namespace

WindowIncrease increase_in(const Series& s, double t0, double t1) {
    WindowIncrease w;
    const Point* prev = nullptr;
    for (auto it = first_at_or_after(s, t0 - kWindowSlackS); it != s.points.end(); ++it) {
        const Point& p = *it;
        if (p.t > t1 + kWindowSlackS) break;
        if (prev) {
            const PointMeta& a = s.meta(*prev);
            const PointMeta& b = s.meta(p);
            CounterDelta d;
            // Same meta index: same raw counter (the common case, no string compare).
            if (prev->meta == p.meta || (a.raw == b.raw && a.width_bits == b.width_bits))
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
            // A glitch reading below the last one: keep measuring from the last good reading,
            // so the rebound to it is not counted as new events.
            if (d.kind == DeltaKind::backwards) continue;
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
    // Latest valued point in the window: walk back from its end.
    auto it = first_after(s, t1 + kWindowSlackS);
    while (it != s.points.begin()) {
        --it;
        if (it->t < t0 - kWindowSlackS) break;
        if (it->value) return it->value;
    }
    return std::nullopt;
}

std::optional<double> value_at(const Series& s, double t) {
    auto it = first_after(s, t + kWindowSlackS);
    while (it != s.points.begin()) {
        --it;
        if (it->value) return it->value;
    }
    return std::nullopt;
}

}  // namespace rh
