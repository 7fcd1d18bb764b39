// Runs a host tool and takes its standard output (lldpd's `lldpcli`, collectors/
// lldp_neighbors.h): no shell, stdin /dev/null, a deadline after which the child is killed,
// and a bound on the bytes kept, so a hung or chatty tool cannot stall or bloat the agent.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/result.h"

namespace rh {

/// Runs argv (argv[0] looked up in PATH when it has no '/') and returns its stdout once it
/// exits 0. Errors (op "run", subject argv[0]): not found (err_no ENOENT: "not found (looked up
/// in PATH)") or not executable; killed after `timeout_s` seconds ("no answer within 5 s");
/// more than `max_bytes` of output; a non-zero exit status or a signal, with the first line of
/// its stderr ("exit status 1: unable to connect to lldpd daemon ...").
Result<std::string> command_output(const std::vector<std::string>& argv, double timeout_s,
                                   std::size_t max_bytes);

}  // namespace rh
