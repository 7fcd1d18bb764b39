// Strict parsing of `rocehealth probe` / `responder` option values (pure; unit-tested in
// tests/probes/test_probe_args.cpp). Numbers are decimal digits only: no sign, no spaces, no
// suffix (Boost's lexical_cast would take "-1" for an unsigned and wrap it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/latency/probe.h"
#include "probes/wire/probe_limits.h"

namespace rh::cli {

/// The rule for --sizes (probes/wire/probe_limits.h), as printed in --help and in its errors:
/// "sizes must be multiples of 8 between 24 B and 16 MiB, because each message slot ends with a
/// 16-byte trailer (checksums and sequence number)".
const std::string& sizes_rule();

/// Parses `text` as a whole number in [lo, hi]. On error returns e.g.
/// "--iterations: -1 is not allowed: expected a whole number from 1 to 1000000".
std::optional<std::string> parse_number(const std::string& option, const std::string& text,
                                        std::uint64_t lo, std::uint64_t hi, std::uint64_t& out);

/// "64,4k,64KiB,1m" -> bytes (k/KiB = 1024, m/MiB = 1048576). Each must follow sizes_rule(). On
/// error returns e.g. "--sizes: 3 bytes: sizes must be multiples of 8 ...", naming `option` and
/// echoing the item as given.
std::optional<std::string> parse_sizes(const std::string& text, std::vector<std::uint64_t>& out,
                                       const std::string& option = "--sizes");

/// "write,read,send" -> ops in the order given (no duplicates). On error returns e.g.
/// "--op: unknown operation 'atomic' (expected write, read, send or a comma-separated list)".
std::optional<std::string> parse_ops(const std::string& text, std::vector<ProbeOp>& out);

/// probe and responder use verbs, which see this host's devices whatever --sysfs-root says: nullopt
/// when `root` is the live /sys, else e.g. "probe needs the live /sys: verbs see this host's
/// devices, not a fixture tree (--sysfs-root tests/fixtures/x/sys)".
std::optional<std::string> live_sysfs_error(const std::string& command, const std::string& root);

}  // namespace rh::cli
