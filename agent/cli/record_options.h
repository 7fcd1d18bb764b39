// `rocehealth record`'s options: their table (--help) and their checks, including whether the
// recording may be written, apart from the run (agent/cli/cmd_record.cpp).
#pragma once

#include <string>

#include "agent/cli/options.h"

namespace rh::cli {

/// The options as given, and the durations parsed from them.
struct RecordArgs {
    std::string out_path, interval_text = "1s", duration_text, root = "/sys", device, host;
    double interval_s = 1, duration_s = 0;  ///< seconds; duration 0 = until a stop signal
    bool append = false;
};

/// The option table writing into `a`.
po::options_description record_options(RecordArgs& a);

/// Prints "rocehealth record: WHY" and returns false on a bad option or a recording that must
/// not be written: one that exists (without --append), or one --append cannot extend.
bool check_record_args(RecordArgs& a, const po::variables_map& vm);

}  // namespace rh::cli
