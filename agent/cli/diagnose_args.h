// `rocehealth diagnose`'s options: their table (--help) and their checks, apart from the run
// (agent/cli/cmd_diagnose.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/cli/options.h"

namespace rh::cli {

/// The options as given, and the durations parsed from them by check_diagnose_args.
struct DiagnoseArgs {
    std::vector<std::string> replays, bundles, required_ports;
    std::string rules_file, duration_text = "30s", live_interval_text = "1s", save_path,
                            root = "/sys", device, interval_text;
    bool live = false, json = false, verbose = false;
    std::optional<double> interval_s;  ///< --interval between bundle captures, seconds
    double duration_s = 0;             ///< --live: how long, seconds
    double live_interval_s = 1;        ///< --live: between passes, seconds
};

/// The usage line, the text above the options, and the option table writing into `a`.
extern const char* const kDiagnoseUsage;
extern const char* const kDiagnoseAbout;
po::options_description diagnose_options(DiagnoseArgs& a);

/// Checks the parsed options (`vm` from diagnose_options) and fills `a`'s durations and flags.
/// Prints "rocehealth diagnose: WHY" and returns false on the first problem: no input or two
/// kinds of input, a duration out of range, an option of --live without --live, --interval
/// without --bundle, a bad --require-port, an unusable --sysfs-root.
bool check_diagnose_args(DiagnoseArgs& a, const po::variables_map& vm);

}  // namespace rh::cli
