// When each bundle capture was taken, from what it holds: its `timestamp` file, else the clocks
// inside its files (collectors/bundle/parse_clock.h), and the hints a run without a clock
// gives (captures whose counters fall, as captures given out of time order do).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collectors/bundle/bundle.h"

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

}  // namespace rh
