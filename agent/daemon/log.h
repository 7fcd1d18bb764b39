// The agent's log: one JSON object per line on stderr, so journald (or any collector) keeps
// structured events. Shape: {"ts":"2026-12-01T07:00:00.123Z","level":"info","event":"NAME",
// ...fields}. Levels: "info", "warning", "error". Events are listed in agent/daemon/README.md.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rh::agent {

/// The log line for an event (without the newline). `fields` must be an object or null; its
/// keys follow ts, level and event.
std::string log_line(std::string_view level, std::string_view event, const nlohmann::json& fields,
                     double wall_s);

/// Writes log_line(now) and a newline to stderr with one write(2), so lines from different
/// threads never interleave. Never throws.
void log_event(std::string_view level, std::string_view event,
               const nlohmann::json& fields = nullptr);

/// "2026-12-01T07:00:00.123Z" for UTC seconds since the epoch.
std::string utc_iso8601(double wall_s);

}  // namespace rh::agent
