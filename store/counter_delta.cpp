#include "store/counter_delta.h"

#include "core/counter_wrap.h"

#include <limits>

namespace rh {

namespace {

std::uint64_t max_of(unsigned width_bits) {
    if (width_bits == 0 || width_bits >= 64) return std::numeric_limits<std::uint64_t>::max();
    return (std::uint64_t{1} << width_bits) - 1;
}

}  // namespace

std::string_view to_string(DeltaKind k) {
    switch (k) {
        case DeltaKind::normal:
            return "normal";
        case DeltaKind::wrapped:
            return "wrapped";
        case DeltaKind::reset:
            return "reset";
        case DeltaKind::backwards:
            return "backwards";
        case DeltaKind::saturated:
            return "saturated";
        case DeltaKind::missing:
            return "missing";
    }
    return "missing";
}

CounterDelta delta(std::optional<std::uint64_t> prev, std::optional<std::uint64_t> cur,
                   unsigned width_bits, bool saturates) {
    if (!prev || !cur) return {std::nullopt, DeltaKind::missing};
    const std::uint64_t max = max_of(width_bits);
    if (saturates && *cur >= max) return {std::nullopt, DeltaKind::saturated};
    if (*cur >= *prev) {
        // No 64-bit counter advances by 2^63 or more between two reads (years of bytes at
        // 400 Gb/s): such a reading is one below the last taken as unsigned (a -1, an all-ones
        // "unavailable" value, a counter at its maximum), not a count. As a dip: no value, and
        // the next delta is measured from the last good reading.
        if (width_bits >= 64 && *cur - *prev > kMaxPlausible64BitStep)
            return {std::nullopt, DeltaKind::backwards};
        return {*cur - *prev, DeltaKind::normal};
    }
    // Went backwards.
    // A narrow counter wraps from any value: 4,292,577,000 -> 2,186,704 and 100,000 -> 50 are
    // both wraps (a reset is told by the caller from the boot, or from 64-bit counters, and
    // splits the timeline so the two reads are never differenced).
    if (!saturates && max != std::numeric_limits<std::uint64_t>::max() && *prev <= max)
        return {(max - *prev) + *cur + 1, DeltaKind::wrapped};
    // A 64-bit counter run (or seeded) up to near 2^64 that comes back small wrapped too.
    if (!saturates && width_bits >= 64 && wrapped_64bit(*prev, *cur))
        return {(max - *prev) + *cur + 1, DeltaKind::wrapped};
    if (!counter_was_reset(*prev, *cur)) return {std::nullopt, DeltaKind::backwards};
    return {*cur, DeltaKind::reset};
}

CounterDelta delta_over(std::optional<std::uint64_t> prev, std::optional<std::uint64_t> cur,
                        unsigned width_bits, bool saturates, double interval_s) {
    CounterDelta d = delta(prev, cur, width_bits, saturates);
    if (d.kind == DeltaKind::wrapped && interval_s > 0 &&
        static_cast<double>(*d.value) > interval_s * kMaxPlausibleEventsPerS)
        return {*cur, DeltaKind::reset};
    return d;
}

bool wrap_ambiguous(unsigned width_bits, double interval_s, double max_per_s) {
    if (width_bits == 0 || width_bits >= 64 || !(interval_s > 0) || !(max_per_s > 0)) return false;
    return interval_s * max_per_s > static_cast<double>(max_of(width_bits));
}

CounterDelta delta(const NormalizedCounter* prev, const NormalizedCounter* cur) {
    if (!prev || !cur || prev->raw_name != cur->raw_name) return {std::nullopt, DeltaKind::missing};
    return delta(prev->value, cur->value, cur->width_bits, cur->saturates);
}

std::optional<double> rate_per_s(const CounterDelta& d, double interval_s) {
    if (!d.value || !(interval_s > 0)) return std::nullopt;
    return static_cast<double>(*d.value) / interval_s;
}

}  // namespace rh
