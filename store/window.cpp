#include "store/window.h"

#include <algorithm>
#include <cstddef>

#include "store/counter_delta.h"

namespace rh {

namespace {

/// First index of `points` where `before` (of a point's time) turns false (it must be true up to
/// some index and false from there: points are in time order), like std::partition_point. Passes
/// are about evenly spaced, so it starts at the index t would have at even spacing and gallops from
/// there: a few time reads instead of a full binary search's ~17 at a day of passes (the
/// rule engine asks this per condition, series and pass).
template <typename Before>
std::size_t partition_index(const PointSeq& points, double t, Before before) {
    const std::size_t n = points.size();
    if (n == 0 || !before(points.t_at(0))) return 0;
    if (before(points.t_at(n - 1))) return n;
    // Invariant from here: before(points.t_at(lo)) and !before(points.t_at(hi)).
    const double span = points.t_at(n - 1) - points.t_at(0);
    const double guess = span > 0 ? (t - points.t_at(0)) / span * static_cast<double>(n - 1) : 0;
    const std::size_t g =
        guess >= 1 && guess < static_cast<double>(n - 1) ? static_cast<std::size_t>(guess) : 0;
    std::size_t lo = 0, hi = n - 1;
    if (g > 0 && before(points.t_at(g))) {
        lo = g;
        for (std::size_t step = 1; lo + step < hi; step *= 2) {
            if (!before(points.t_at(lo + step))) {
                hi = lo + step;
                break;
            }
            lo += step;
        }
    } else if (g > 0) {
        hi = g;
        for (std::size_t step = 1; step < hi - lo; step *= 2) {
            if (before(points.t_at(hi - step))) {
                lo = hi - step;
                break;
            }
            hi -= step;
        }
    }
    while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (before(points.t_at(mid)) ? lo : hi) = mid;
    }
    return hi;
}

/// First point with t >= `t`: windows cost O(log gap + points in the window), not O(series
/// length).
PointSeq::const_iterator first_at_or_after(const Series& s, double t) {
    return s.points.begin() + static_cast<std::ptrdiff_t>(
                                  partition_index(s.points, t, [t](double pt) { return pt < t; }));
}

/// First point with t > `t`.
PointSeq::const_iterator first_after(const Series& s, double t) {
    return s.points.begin() + static_cast<std::ptrdiff_t>(
                                  partition_index(s.points, t, [t](double pt) { return pt <= t; }));
}

}  // namespace

WindowIncrease increase_in(const Series& s, double t0, double t1) {
    WindowIncrease w;
    std::optional<Point> prev;  // a copy: the store's points are read by value
    for (auto it = first_at_or_after(s, t0 - kWindowSlackS); it != s.points.end(); ++it) {
        const Point p = *it;
        if (p.t > t1 + kWindowSlackS) break;
        if (prev) {
            const PointMeta& a = s.meta(*prev);
            const PointMeta& b = s.meta(p);
            CounterDelta d;
            // Same meta index: same raw counter (the common case, no string compare); a
            // non-saturating counter that did not go down is the plain difference (delta()'s
            // first case, without the call: this loop runs per window, series and pass).
            const auto before = prev->count(), now = p.count();
            if (prev->meta == p.meta && before && now && *now >= *before &&
                *now - *before <= kMaxPlausible64BitStep && !b.saturates)
                d = CounterDelta{*now - *before, DeltaKind::normal};
            else if (prev->meta == p.meta ||
                     (a.raw == b.raw && a.width_bits == b.width_bits && a.segment == b.segment))
                d = delta_over(before, now, b.width_bits, b.saturates, p.t_s - prev->t_s);
            if (d.value) {
                w.increase = w.increase.value_or(0) + *d.value;
                w.covered_s += p.t_s - prev->t_s;
                ++w.intervals;
                w.reset = w.reset || d.kind == DeltaKind::reset;
                w.wrapped = w.wrapped || d.kind == DeltaKind::wrapped;
                w.wrap_ambiguous =
                    w.wrap_ambiguous ||
                    wrap_ambiguous(b.width_bits, p.t_s - prev->t_s, kMaxPlausibleEventsPerS);
            } else {
                ++w.gaps;
            }
            // A glitch reading below the last one: keep measuring from the last good reading,
            // so the rebound to it is not counted as new events.
            if (d.kind == DeltaKind::backwards) continue;
        }
        prev = p;
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
        if (const auto v = it->value()) return v;
    }
    return std::nullopt;
}

std::optional<double> value_at(const Series& s, double t) {
    auto it = first_after(s, t + kWindowSlackS);
    while (it != s.points.begin()) {
        --it;
        if (const auto v = it->value()) return v;
    }
    return std::nullopt;
}

}  // namespace rh
