// --from/--to of `rocehealth fabric`: a time as RFC 3339, unix seconds, `now`, or relative to now
// (`-1h`, `now-30m`). Pure (the current time is a parameter); unit-tested in
// tests/agent/test_fabric_analysis.cpp.
#pragma once

#include <optional>
#include <string>

namespace rh::fabric {

/// Parses `text` into UTC seconds since the epoch. Accepted:
/// - "now"; "-1h", "-30m", "-90s", "-2d", "now-1.5h" (a number and one unit of s, m, h, d);
/// - "1764763200" or "1764763200.5" (unix seconds);
/// - "2026-12-03T10:00:00Z", "2026-12-03T10:00:00.250+01:00" (RFC 3339; "t"/"z" and a space
///   instead of "T" too).
/// Returns the error sentence naming `option` ("--from: '10h ago' is not a time (expected RFC
/// 3339, unix seconds, now or -1h)") or nullopt on success.
std::optional<std::string> parse_time_arg(const std::string& option, const std::string& text,
                                          double now_s, double& out_s);

/// "2026-12-03T10:00:00Z" (milliseconds shown when not whole).
std::string rfc3339(double t_s);

}  // namespace rh::fabric
