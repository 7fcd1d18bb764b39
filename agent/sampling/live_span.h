// This host sampled live for a while into a store, as `diagnose --live` analyses it: one
// HostSampler pass every interval for a duration (core/pass_schedule.h), each sample added to the
// store and, when asked, written to a recording too.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "agent/replay/inputs.h"
#include "store/series_store.h"

namespace rh {

/// Samples sysfs tree `root` (only RDMA device `device` when not empty) every `interval_s`
/// seconds for `duration_s` seconds into `store`, and into `save` (recording lines, flushed per
/// pass) when not null. Returns what was added, named "live:ROOT", with a note per
/// rediscovery; nullopt when there is no RDMA device to sample (nothing added; the caller
/// names the device and root).
std::optional<InputReport> sample_live_span(SeriesStore& store, const std::string& root,
                                            const std::string& device, double interval_s,
                                            double duration_s, std::ostream* save);

}  // namespace rh
