// Width-aware change of a cumulative hardware counter between two samples, and its rate.
// A counter can wrap (mlx5 Q counters are 32-bit), be reset (driver reload: a 64-bit value goes
// backwards), or saturate (IB PMA error counters stop at their maximum). Rates are computed from
// deltas only, never from totals (a large total may only mean a long uptime).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/inventory/inventory.h"

namespace rh {

enum class DeltaKind {
    normal,     ///< cur >= prev: value = cur - prev
    wrapped,    ///< a < 64-bit counter went down: it went past 2^width - 1, value =
                ///< 2^width - prev + cur
    reset,      ///< went backwards and not a plausible wrap (reload/clear): value = cur
    backwards,  ///< went back by less than half its value: a read glitch, not a reset (which
                ///< restarts near 0); or a 64-bit counter "advanced" by more than
                ///< kMaxPlausible64BitStep (a value below the last read as unsigned, or all
                ///< ones); change unknown, no value
    saturated,  ///< a saturating counter reads its maximum: change unknown (>= 0), no value
    missing,    ///< prev or cur absent, or the two samples are not of the same raw counter
};

std::string_view to_string(DeltaKind k);

/// The largest change of a 64-bit counter between two reads taken as a count: 2^63 - 1.
/// Counting bytes at 400 Gb/s takes over 5 years to get there; a larger step is a reading
/// below the last one taken as unsigned (e.g. 5 -> 2^64 - 1), not 2^64 new events.
inline constexpr std::uint64_t kMaxPlausible64BitStep = (std::uint64_t{1} << 63) - 1;

struct CounterDelta {
    std::optional<std::uint64_t> value;  ///< nullopt for saturated and missing
    DeltaKind kind = DeltaKind::missing;
};

/// Change from `prev` to `cur` of a counter `width_bits` wide (1..64).
/// A decrease of a non-saturating counter narrower than 64 bits (and `prev` within its width)
/// is a wrap, whatever the old value: value 2^width - prev + cur. A reset of such a counter is
/// known only from outside it (a reboot or 64-bit counters falling: the bundle reader then
/// splits the timeline, Sample::segment, and the two reads are never differenced); whether
/// more than one wrap fits in the interval, see wrap_ambiguous. Otherwise (always at 64 bits,
/// or for a saturating counter) a decrease is a reset with value `cur` (the count since the
/// reset) when `cur` is at most half of `prev`, and `backwards` (no value) when it fell by
/// less: a reset counts from 0, so 1560 -> 1559 is a glitch, and taking it as 1559 new events
/// would invent a burst.
/// A 64-bit counter that rises by more than kMaxPlausible64BitStep is `backwards` too (5 ->
/// 2^64 - 1 is not 2^64 - 6 events).
CounterDelta delta(std::optional<std::uint64_t> prev, std::optional<std::uint64_t> cur,
                   unsigned width_bits = 64, bool saturates = false);

/// The most events any counter can count per second: packets of the fastest RoCE port
/// (400 Gb/s) at the minimum frame (64 bytes + 20 of preamble and gap): ~595 M/s.
inline constexpr double kMaxPlausibleEventsPerS = 400e9 / 8 / 84;

/// delta() for two reads `interval_s` apart (<= 0: unknown): a wrap that would need more than
/// kMaxPlausibleEventsPerS is no wrap but a reset (value `cur`): a driver reload that restarted
/// a 32-bit counter read once a second (1,482,337 -> 12 would be 4.29 G events in 1 s).
CounterDelta delta_over(std::optional<std::uint64_t> prev, std::optional<std::uint64_t> cur,
                        unsigned width_bits, bool saturates, double interval_s);

/// Whether a counter `width_bits` wide could have wrapped more than once in `interval_s` at
/// `max_per_s` (its fastest possible rate, e.g. a 400 Gb/s port's packets at 64 bytes): then a
/// wrapped delta (or even a normal one) is ambiguous by multiples of 2^width. Never at 64 bits.
bool wrap_ambiguous(unsigned width_bits, double interval_s, double max_per_s);

/// Same for two samples of one normalized counter: uses its width and saturation metadata;
/// missing when either is absent or they come from different raw counters (alias switch).
CounterDelta delta(const NormalizedCounter* prev, const NormalizedCounter* cur);

/// delta.value / interval_s; nullopt when the delta has no value or interval_s <= 0.
/// For a reset the rate is a lower bound (the reset happened within the interval).
std::optional<double> rate_per_s(const CounterDelta& d, double interval_s);

}  // namespace rh
