// `rocehealth mesh`'s options: their table (--help) and their checks into a MeshSchedule, apart
// from the run (agent/cli/cmd_mesh.cpp).
#pragma once

#include <optional>
#include <string>

#include "agent/cli/options.h"
#include "probes/mesh/mesh.h"

namespace rh::cli {

extern const char* const kMeshUsage;

/// The options as given (text, checked by check_mesh_args into `s`).
struct MeshArgs {
    MeshSchedule s;
    std::string peers, ops = "write", sizes = "64", iterations = std::to_string(s.iterations),
                       interval = "1s", duration = "60s", out_path, host, timeout = "2000",
                       backoff_max = "60s";
    double jitter = s.jitter;
    double duration_s = 0;  ///< --duration, seconds
    bool json = false;
};

/// The option table writing into `a`.
po::options_description mesh_options(MeshArgs& a);

/// Fills `a.s` and `a.duration_s` from the option texts: nullopt, or the first problem (for
/// usage_error).
std::optional<std::string> check_mesh_args(MeshArgs& a);

}  // namespace rh::cli
