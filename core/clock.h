// The two clocks every sample carries, read one way everywhere: CLOCK_MONOTONIC seconds (`t_s`:
// interval lengths and rates, immune to clock steps) and UTC milliseconds since the epoch
// (`wall_ms`: lines hosts up in a timeline). std::chrono::steady_clock is CLOCK_MONOTONIC on
// Linux (libstdc++), so steady time points and monotonic_now_s() share one time base.
#pragma once

#include <chrono>
#include <cstdint>

namespace rh {

/// A steady_clock instant as CLOCK_MONOTONIC seconds.
inline double monotonic_s(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(t.time_since_epoch()).count();
}

/// CLOCK_MONOTONIC now, in seconds.
inline double monotonic_now_s() {
    return monotonic_s(std::chrono::steady_clock::now());
}

/// The latest wall time accepted from people and files, UTC seconds since the epoch
/// (2200-01-01T00:00:00Z; with 1970 the earliest): past it a nanosecond clock (std::chrono,
/// 2262) and the calendar overflow downstream. Read by the bundles' `timestamp` files and
/// `fabric --from/--to`.
inline constexpr double kLatestWallS = 7258118400;

/// Whether `t_s` (UTC seconds) lies in 1970..2200 (NaN does not).
inline bool wall_time_in_range(double t_s) {
    return t_s >= 0 && t_s < kLatestWallS;
}

/// UTC milliseconds since the epoch, now.
inline std::int64_t wall_now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// UTC milliseconds at steady instant `t` (now minus the steady time elapsed since).
inline std::int64_t wall_ms_at(std::chrono::steady_clock::time_point t) {
    const auto ago = std::chrono::steady_clock::now() - t;
    return wall_now_ms() - std::chrono::duration_cast<std::chrono::milliseconds>(ago).count();
}

}  // namespace rh
