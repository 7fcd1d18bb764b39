// Whether a host restarted its counters between two of its captures: a reboot, told from the
// boot itself (boot_id, /proc/stat btime, the uptime), or, with no sign of a reboot, counters
// that fell (a driver reload, `ethtool` / `rdma` counter reset). Either splits the host's
// timeline (agent/replay/inputs.cpp gives the later captures a new Sample::segment): no rate
// and no increase is computed across it, so a carrier count that restarted is no link flap,
// and the host stays one host (its counters falling is no evidence of another host).
// Firmware-kept counters (mlx5 *_phy, IB PMA) may survive a warm reboot or a driver reload
// while the others restart: a mix is expected, and no counter is differenced across the split.
#pragma once

#include <optional>
#include <string>

#include "collectors/bundle/bundle.h"

namespace rh {

struct Restart {
    enum class Kind { none, reboot, reset };
    Kind kind = Kind::none;
    /// What shows it, with sources: "uptime fell from 41 days 3:12 (t0/uptime.txt:1) to 4 min
    /// (t1/uptime.txt:1)"; "" for none.
    std::string evidence;
};

/// How exact a reading of the time since boot must be before a shortfall counts: seconds of
/// slack added to both uptimes' resolutions (a capture's files are read a moment apart).
inline constexpr double kUptimeSlackS = 5;

/// Whether the host restarted between capture `prev` and the later capture `next` of it;
/// `dt_s` = seconds between them when known (timestamps or --interval). Reboot, strongest
/// first: boot_ids differ (the same boot_id = no reboot, whatever else says); btimes differ by
/// more than 2 s; the uptime fell, or grew by less than `dt_s` minus both resolutions (60 s for
/// `uptime`), kUptimeSlackS and 10 % of `dt_s` (an --interval is the operator's estimate).
/// Reset, without reboot evidence: a cumulative counter of a device or netdev both captures
/// hold (CaptureIdentity::counter_values: 64-bit ones only, a 32-bit counter that falls has
/// wrapped) fell to half its value or below (a smaller dip is a read glitch, store/
/// counter_delta.h). Pure.
Restart restart_between(const BundleCapture& prev, const BundleCapture& next,
                        std::optional<double> dt_s);

/// `id` without counter values: a capture after a restart, whose counters can neither tie it
/// to its host nor contradict it (compare_identity, implausible_successor).
CaptureIdentity without_counter_values(CaptureIdentity id);

}  // namespace rh
