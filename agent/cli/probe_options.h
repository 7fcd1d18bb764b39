// `rocehealth probe`'s options: their table (--help) and their checks into ProbeOptions, apart
// from the run (agent/cli/cmd_probe.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/cli/options.h"
#include "probes/latency/probe.h"

namespace rh::cli {

extern const char* const kProbeUsage;

/// The options as given (text, checked by check_probe_args into `o`).
struct ProbeArgs {
    ProbeOptions o;
    std::string ops = "write,read", sizes = "64,4096,65536,1048576";
    std::string iterations = std::to_string(o.iterations), warmup = std::to_string(o.warmup),
                queue_depth = std::to_string(o.queue_depth), timeout = std::to_string(o.timeout_ms),
                rnr_retry = std::to_string(o.rnr_retry), gid_index, sysfs_root, record_path, host,
                key_file;
    std::vector<std::string> peers;  ///< --peer or the positional PEER[:PORT]
    bool json = false;
};

/// The option table writing into `a`.
po::options_description probe_options(ProbeArgs& a);

/// Fills `a.o` from the option texts (`vm` from probe_options): nullopt, or the first problem
/// as "--OPTION: why" / "missing PEER[:PORT]" for usage_error.
std::optional<std::string> check_probe_args(ProbeArgs& a, const po::variables_map& vm);

}  // namespace rh::cli
