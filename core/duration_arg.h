// Strict parsing of time options (--interval, --duration): "1s", "500ms", "2m", "1h", or a bare
// number of seconds ("0.5"). Pure; unit-tested in tests/cli/test_duration_arg.cpp.
#pragma once

#include <optional>
#include <string>

namespace rh {

/// Parses `text` into seconds in [lo_s, hi_s]. On error returns e.g.
/// "--interval: '5x' is not a duration (expected e.g. 1s, 500ms, 2m, 1h or seconds)" or
/// "--interval: 0s is not allowed: expected 0.1 s to 3600 s".
std::optional<std::string> parse_duration_s(const std::string& option, const std::string& text,
                                            double lo_s, double hi_s, double& out_s);

}  // namespace rh
