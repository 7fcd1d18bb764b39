// When each bundle capture was taken, from what it holds: its `timestamp` file, else the clocks
// inside its files (collectors/bundle/parse_clock.h), and the hints a run without a clock
// gives (captures whose counters fall, as captures given out of time order do).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/replay/host_groups.h"
#include "collectors/bundle/bundle.h"
#include "core/result.h"
#include "core/sample.h"

namespace rh {

/// For each capture without a `timestamp` file whose in-file clock fixes the time (a `date`
/// line in UTC or with a numeric offset): sets timestamp_s from it. Appends to notes[i] (one
/// list per capture, same order as `caps`) which file:line gave capture i its time, and a
/// note when the `timestamp` file and an in-file clock disagree by more than 120 s (the
/// `timestamp` file is used) and the clock notes (two `date` lines minutes apart).
void apply_in_file_clocks(std::vector<BundleCapture>& caps,
                          std::vector<std::vector<std::string>>& notes);

/// The zone all captures `idx` of one host share when none has a `timestamp` file and each
/// has an exact in-file clock in the same named zone ("CST") or none ("local"): their
/// spacing is exact although the wall clock is not; nullopt otherwise.
std::optional<std::string> shared_local_zone(const std::vector<BundleCapture>& caps,
                                             const std::vector<std::size_t>& idx);

/// The capture's time in seconds for ordering and spacing: timestamp_s, else its in-file
/// clock (local zones read as UTC, approximate ones too); nullopt without either.
std::optional<double> capture_time_s(const BundleCapture& c);

/// "captures a -> b: 41 of 52 counters go down ..." when most counters both captures hold
/// fall from `a` to `b` (at least 3) and no uptime says the host rebooted in between: the
/// captures are likely given out of time order (or the driver was reloaded). nullopt otherwise.
std::optional<std::string> counters_fall(const BundleCapture& a, const BundleCapture& b);

/// How one host's captures are placed in time, decided once per host (host_spacing):
///  - use_stamps: every capture has a `timestamp` file: they keep its spacing;
///  - use_zone: none has one, and their in-file clocks share a named zone, no --interval given:
///    exact spacing without a claimed wall clock;
///  - unspaced: no clock and no --interval: judged in order only, no rates (the engine's
///    EngineOptions::unspaced_hosts);
///  - otherwise the captures are --interval apart.
struct HostSpacing {
    bool use_stamps = false;
    std::optional<std::string> zone;
    bool use_zone = false;
    bool unspaced = false;
    std::string time_note;  ///< for the host's first capture's report; "" when nothing to say
};

/// Decides host `g`'s spacing and puts its captures in time order by their clocks when they
/// were given out of it (reordering g.captures and g.decisions, and saying so in time_note).
HostSpacing host_spacing(HostGroup& g, const std::vector<BundleCapture>& caps,
                         std::optional<double> interval_s);

/// The engine time of host `g`'s k-th capture under `sp`: wall clock when `all_stamped` (every
/// capture of the run has a timestamp), else seconds from the host's first capture. An error
/// naming the capture when its clock is not later than the previous one's.
Result<SampleTime> capture_sample_time(const HostGroup& g, std::size_t k,
                                       const std::vector<BundleCapture>& caps,
                                       const HostSpacing& sp, bool all_stamped,
                                       std::optional<double> interval_s);

}  // namespace rh
