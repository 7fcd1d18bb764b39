// When a 64-bit counter that went backwards has wrapped rather than been reset. Shared by the
// store's deltas (store/counter_delta.h), the bundle's reset evidence and the live sampler's
// segments, so all three call the same fall a wrap.
#pragma once

#include <cstdint>

namespace rh {

/// Margin below 2^64 (and above 0) within which a fall is a wrap: 2^56 bytes is 16 days of a
/// 400 Gb/s port. A reset restarts near 0 from wherever the counter was, and a counter only
/// comes within 2^56 of 2^64 by running there (or starting there: some firmware seeds them).
inline constexpr std::uint64_t kWrap64MarginCount = std::uint64_t{1} << 56;

/// True when a 64-bit counter read `prev` then `cur` < prev has wrapped past 2^64 - 1: prev
/// within kWrap64MarginCount of the top (but not all ones, an "unavailable" reading) and cur
/// within it of 0. The change is then 2^64 - prev + cur.
inline bool wrapped_64bit(std::uint64_t prev, std::uint64_t cur) {
    constexpr std::uint64_t kAllOnes = ~std::uint64_t{0};
    return cur < prev && prev != kAllOnes && prev > kAllOnes - kWrap64MarginCount &&
           cur < kWrap64MarginCount;
}

/// True when a 64-bit, non-saturating counter read `prev` then `cur` has been reset (driver
/// reload, device reset, reboot): it fell to half or less of a reading of at least 2, and not by
/// a wrap. Halving, not any fall, because a reset restarts near 0 and a counter read while it is
/// being updated never falls that far. The one reset criterion of the store, the bundle's
/// restart evidence and the live sampler's segments.
inline bool counter_was_reset(std::uint64_t prev, std::uint64_t cur) {
    return prev >= 2 && cur <= prev / 2 && !wrapped_64bit(prev, cur);
}

}  // namespace rh
