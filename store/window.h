// Window queries over one stored series: how much a cumulative counter grew between two engine
// times, its rate, a gauge's level. Width-aware (store/counter_delta.h): a 32-bit counter that
// went down wrapped (unless that needs more events than any port can count: a reset), a 64-bit
// counter that went backwards is a reset (the rate is then a lower bound, never negative), a
// missing point, a changed raw counter or a new timeline segment (a reboot) leaves a gap —
// never a zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "store/series_store.h"

namespace rh {

/// Points are taken as "in" a window with this slack (seconds), so a pass sampled a few ms late
/// still belongs to the window it was meant for.
inline constexpr double kWindowSlackS = 0.25;

struct WindowIncrease {
    /// Sum of the valid deltas between consecutive points inside [t0, t1]; nullopt when no pair
    /// of points in the window gave a value (missing, saturated, or fewer than two points).
    std::optional<std::uint64_t> increase;
    double covered_s = 0;       ///< monotonic seconds spanned by the valid deltas
    std::size_t intervals = 0;  ///< valid deltas summed
    std::size_t gaps = 0;       ///< pairs with no value (missing / saturated / alias switch)
    bool reset = false;         ///< a reset was seen (the increase is then a lower bound)
    bool wrapped = false;       ///< a wrap was seen and accounted for
    /// A < 64-bit counter's interval was long enough for more than one wrap at the fastest
    /// plausible rate (kMaxPlausibleEventsPerS): the increase may be short by multiples of 2^width.
    bool wrap_ambiguous = false;
};

/// Increase of counter series `s` over [t0, t1] (engine times).
WindowIncrease increase_in(const Series& s, double t0, double t1);

/// increase / covered_s in units per second; nullopt when there is no increase value or the
/// covered time is 0.
std::optional<double> rate_in(const Series& s, double t0, double t1);

/// Latest non-null gauge value with t in [t0, t1].
std::optional<double> last_value_in(const Series& s, double t0, double t1);

/// Latest non-null gauge value at or before t (configuration facts persist until changed).
std::optional<double> value_at(const Series& s, double t);

}  // namespace rh
