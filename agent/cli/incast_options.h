// `rocehealth incast`'s options: their table (--help) and their checks into incast::Options,
// apart from the run (agent/cli/cmd_incast.cpp).
#pragma once

#include <optional>
#include <string>

#include "agent/cli/options.h"
#include "probes/incast/incast_coordinator.h"

namespace rh::cli {

extern const char* const kIncastUsage;
extern const char* const kIncastAbout;

/// The options as given (text, checked by check_incast_args into `o`).
struct IncastArgs {
    incast::Options o;
    std::string senders, size = "64k", qps = "1", qd = std::to_string(o.queue_depth),
                         duration = "10s", op = "write", interval = "1s", gid_index, rules_file,
                         key_file;
    bool json = false, no_victim = false;
};

/// The option table writing into `a` (with --key-file, agent/cli/key_option.h).
po::options_description incast_options(IncastArgs& a);

/// Fills `a.o` from the option texts (`vm` from incast_options): nullopt, or the first problem
/// (for usage_error), including incast::check_options' (a sender that is the receiver, a ring
/// too big).
std::optional<std::string> check_incast_args(IncastArgs& a, const po::variables_map& vm);

}  // namespace rh::cli
