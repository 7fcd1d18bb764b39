// Places the job and kernel log lines of bundle captures (BundleCapture::log_events) on the
// data's hosts and in its time, and keeps them in the store for the log rules (rules/joblog).
// A line is placed by what it names, strongest first: a host name the data knows, a GID or IP
// that one host's ports carry, the capture that held it; a line that names nothing known keeps
// the host it names (a host without captures) or none. Its time is its own where the data's
// clock can hold it (wall clock data: UCX epoch stamps, ISO stamps with a zone, local stamps
// taken as UTC, boot-relative stamps with the host's boot time), else the time of the capture
// that held it (order only). Nothing recognised is dropped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collectors/bundle/bundle.h"
#include "store/series_store.h"

namespace rh {

/// Where a capture stands in the data: the host it was taken to be ("" for a directory of logs
/// only, which is no host's capture) and its engine time (nullopt when unknown).
struct CapturePlace {
    std::string host;
    std::optional<double> t;
};

/// Adds every log event of `caps` to `store` (SeriesStore::add_log_event). `places` is parallel
/// to `caps`; `wall_clock`: engine times are UTC seconds (every capture had a clock). Returns
/// notes for the report: lines whose time had to be guessed or that name no known host.
std::vector<std::string> place_log_events(SeriesStore& store,
                                          const std::vector<BundleCapture>& caps,
                                          const std::vector<CapturePlace>& places, bool wall_clock);

/// True for a capture that holds log lines and nothing else rocehealth reads as a host's state
/// (no device, netdev, counter or PCI function): a `logs/` folder beside the host captures. Such
/// a capture is not grouped as a host; its lines are placed by what they name.
bool logs_only(const BundleCapture& c);

}  // namespace rh
