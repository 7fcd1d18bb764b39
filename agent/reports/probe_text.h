// `rocehealth probe`'s text: the peer and local ends, the MTUs and QP settings, then one row
// per operation and message size (latency percentiles in microseconds, message rate, checksum
// errors), skipped and failed phases, and an OK/FAILED line.
#pragma once

#include "probes/latency/probe.h"

namespace rh {

/// Prints `r` to stdout as `rocehealth probe` does without --json.
void print_probe_text(const ProbeReport& r);

}  // namespace rh
