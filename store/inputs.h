// Loads what `rocehealth diagnose` analyses into a SeriesStore: recordings (JSON lines written by
// `rocehealth record`, store/README.md) and operators' bundle captures (collectors/bundle). Both
// end as the same samples in the same store, so the rule engine has one code path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "store/series_store.h"

namespace rh {

/// What loading said about its input, for the report (not errors: the evidence still counts).
struct InputReport {
    std::string name;                 ///< the file or directory
    std::size_t samples = 0;          ///< samples added
    std::vector<std::string> hosts;   ///< hosts seen in it
    std::vector<std::string> notes;   ///< e.g. truncated last line, unrecognised files
};

/// Adds every sample of recording `path` to `store`. Error: unreadable file or a bad line
/// ("FILE:LINE: field ...", store/sample_json.h); nothing is added then.
Result<InputReport> load_recording(SeriesStore& store, const std::string& path);

/// Adds bundle captures `dirs` (one host's captures in time order; several hosts may be mixed,
/// each capture names its host) to `store`, one collection pass per directory, the first with
/// the host's inventory. Capture times: the `timestamp` file of every DIR when all have one
/// (wall clock), else `interval_s` apart (captures of each host numbered in the given order).
/// Error: a directory that cannot be read; two or more captures of a host with neither all
/// timestamps nor `interval_s` (rates would be invented); timestamps not increasing per host.
Result<std::vector<InputReport>> load_bundles(SeriesStore& store,
                                              const std::vector<std::string>& dirs,
                                              std::optional<double> interval_s);

}  // namespace rh
