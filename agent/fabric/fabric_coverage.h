// Where the fabric's data stops short of the range asked: `rocehealth fabric` must not call a
// stretch healthy that no host reported on (issue 29's "never healthy when not judged").
#pragma once

#include <vector>

#include "agent/fabric/fabric_analysis.h"

namespace rh::fabric {

/// What the analysis could not see, as not-judged reasons for add_not_judged (fabric_analysis.h):
/// - the data ends before `to_s`: every series' last point is more than `gap_s` before it. One
///   reason per rule not already in `r.not_judged` (subject: the rule id, text: "no series after
///   <RFC 3339> (N s before the range's end): ... not judged since").
/// - hosts that stopped reporting, told from the raw series, which every host has at every step
///   (the recorded ones hold only nonzero shares and per-ToR counts: no host's silence can be
///   told from them; `pause_raw` false: in.pause_fraction holds recorded shares, left out): a
///   host whose last point is more than `gap_s` before the data's end (r.data_last_s). One reason,
///   subject "hosts", naming up to 10 of them with their last point (host_info's name, else the
///   instance) and how many more.
/// gap_s: seconds; callers use max(300, 2 x step): Prometheus' lookback and a missed scrape
/// are no silence. Empty when every host reported to the end.
std::vector<Note> coverage_gaps(const FabricSeries& in, const FabricResult& r, double to_s,
                                double gap_s, bool pause_raw);

}  // namespace rh::fabric
