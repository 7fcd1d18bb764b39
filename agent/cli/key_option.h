// --key-file, shared by the commands that speak on a responder's control channel (responder,
// incast, accept): which fabric key (probes/auth/fabric_key.h) this process proves or demands.
#pragma once

#include <optional>
#include <string>

#include "agent/cli/options.h"

namespace rh::cli {

/// Adds "--key-file FILE" (default: /etc/rocehealth/fabric.key when it exists) to `desc`.
void add_key_file_option(po::options_description& desc, std::string& path);

/// Loads the key `path` names (or the default file when there is one) and makes it the process
/// key. A bad key file is an error naming it ("rocehealth CMD: fabric key FILE: is readable ...
/// chmod 600 it"): returns kExitCannotRun after printing it; nullopt when the command may go on
/// (with a key, or without one when none is configured).
std::optional<int> install_fabric_key(const std::string& command, const std::string& path);

}  // namespace rh::cli
