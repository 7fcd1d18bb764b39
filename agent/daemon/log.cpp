#include "agent/daemon/log.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace rh::agent {

std::string utc_iso8601(double wall_s) {
    const auto secs = static_cast<std::time_t>(std::floor(wall_s));
    const int ms = std::min(999, static_cast<int>((wall_s - std::floor(wall_s)) * 1000.0));
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(buf + n, sizeof buf - n, ".%03dZ", ms);
    return buf;
}

std::string log_line(std::string_view level, std::string_view event, const nlohmann::json& fields,
                     double wall_s) {
    nlohmann::ordered_json j;
    j["ts"] = utc_iso8601(wall_s);
    j["level"] = level;
    j["event"] = event;
    if (fields.is_object())
        for (const auto& [k, v] : fields.items()) j[k] = v;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void log_event(std::string_view level, std::string_view event, const nlohmann::json& fields) {
    try {
        const double now =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        const std::string line = log_line(level, event, fields, now) + "\n";
        std::size_t off = 0;
        while (off < line.size()) {
            const ssize_t n = ::write(STDERR_FILENO, line.data() + off, line.size() - off);
            if (n <= 0) break;  // stderr gone: nothing better to do
            off += static_cast<std::size_t>(n);
        }
    } catch (...) {
        // Logging must never take the agent down.
    }
}

}  // namespace rh::agent
