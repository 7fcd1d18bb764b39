// UTC milliseconds for stream and incast reports: now, and at an earlier steady_clock instant
// (steady times measure intervals; wall times line hosts up, after the coordinator's clock-offset
// correction).
#pragma once

#include <chrono>
#include <cstdint>

namespace rh {

/// UTC milliseconds since the epoch, now.
inline std::int64_t wall_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// UTC milliseconds at steady instant `t` (now minus the steady time elapsed since).
inline std::int64_t wall_ms_at(std::chrono::steady_clock::time_point t) {
    const auto ago = std::chrono::steady_clock::now() - t;
    return wall_ms_now() - std::chrono::duration_cast<std::chrono::milliseconds>(ago).count();
}

}  // namespace rh
