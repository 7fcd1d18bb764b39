// This host's name as the kernel has it (uname(2) nodename, the same as gethostname(2)): the
// name every sample, probe result, hello and report carries for "this host", read one way.
#pragma once

#include <string>

namespace rh {

/// The kernel's host name (e.g. "node07"; at most 64 bytes on Linux), or "" if it cannot be
/// read — callers that need a name then ask for it (a config `host`, `--host`).
std::string host_name();

}  // namespace rh
