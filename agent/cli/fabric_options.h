// `rocehealth fabric`'s options: their table (--help) and their checks (URL, time range,
// selector, bounds), apart from the run (agent/cli/cmd_fabric.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "agent/cli/options.h"
#include "agent/fabric/fabric_queries.h"
#include "agent/fabric/prom_client.h"

namespace rh::cli {

extern const char* const kFabricUsage;
extern const char* const kFabricAbout;

/// The options as given, and what check_fabric_args derives from them.
struct FabricArgs {
    std::string url, from_text = "-1h", to_text = "now", match, out_dir, source_text = "auto";
    fabric::FabricSource source = fabric::FabricSource::automatic;  ///< parsed --source
    std::vector<std::string> headers;        ///< --header "NAME: VALUE", each as given
    double min_step_s = 15, timeout_s = 30;  ///< --min-step, --timeout: seconds
    /// --max-points: points per series over the whole range (memory); 50,000 keeps 30 days at
    /// a 52 s step, finer than the rules' windows (fabric_queries.h plan_fabric_fetch).
    std::size_t max_points = 50000;
    fabric::PromLimits limits;
    bool json = false, verbose = false;
    fabric::PromEndpoint endpoint;  ///< parsed --prometheus
    double from_s = 0, to_s = 0;    ///< the range, UTC seconds since the epoch
};

/// The option table writing into `a`.
po::options_description fabric_options(FabricArgs& a);

/// Checks the options (`vm` from fabric_options) and fills `a.endpoint` (with the --header
/// headers), the range (relative
/// times from `now_s`) and `a.limits.timeout_s`. nullopt, or the first problem as the message
/// of an exit 2 (e.g. "--from 2026-... is not before --to ...").
std::optional<std::string> check_fabric_args(FabricArgs& a, const po::variables_map& vm,
                                             double now_s);

}  // namespace rh::cli
