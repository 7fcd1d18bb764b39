#include "collectors/bundle/restart_evidence.h"

#include <cmath>
#include <cstdio>

#include "core/counter_wrap.h"

namespace rh {

namespace {

/// "41 days 03:12" / "4 min" / "35197285.05 s": an uptime as a person reads it.
std::string uptime_text(double s, double resolution) {
    char buf[64];
    if (resolution < 1) {
        std::snprintf(buf, sizeof buf, "%.2f s", s);
        return buf;
    }
    const auto total_min = static_cast<long long>(std::llround(s / 60));
    const long long days = total_min / 1440, h = total_min % 1440 / 60, m = total_min % 60;
    if (days > 0)
        std::snprintf(buf, sizeof buf, "%lld days %02lld:%02lld", days, h, m);
    else if (h > 0)
        std::snprintf(buf, sizeof buf, "%lld:%02lld", h, m);
    else
        std::snprintf(buf, sizeof buf, "%lld min", m);
    return buf;
}

std::string with_source(const std::string& what, const std::string& source) {
    return source.empty() ? what : what + " (" + source + ")";
}

std::optional<std::string> reboot_evidence(const BundleCapture& a, const BundleCapture& b,
                                           std::optional<double> dt_s) {
    if (!a.boot_id.empty() && !b.boot_id.empty()) {
        if (a.boot_id == b.boot_id) return std::nullopt;  // one boot: decisive
        return "boot_id changed from " + with_source(a.boot_id, a.boot_id_source) + " to " +
               with_source(b.boot_id, b.boot_id_source);
    }
    if (a.btime_s && b.btime_s && std::fabs(*a.btime_s - *b.btime_s) > 2) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "/proc/stat btime changed from %.0f", *a.btime_s);
        return with_source(buf, a.btime_source) + " to " +
               with_source(std::to_string(static_cast<long long>(*b.btime_s)), b.btime_source);
    }
    if (a.uptime_s && b.uptime_s) {
        const double slack = a.uptime_resolution_s + b.uptime_resolution_s + kUptimeSlackS;
        const std::string from = with_source(uptime_text(*a.uptime_s, a.uptime_resolution_s),
                                             a.uptime_source),
                          to = with_source(uptime_text(*b.uptime_s, b.uptime_resolution_s),
                                           b.uptime_source);
        if (*b.uptime_s + slack < *a.uptime_s) return "uptime fell from " + from + " to " + to;
        if (dt_s && *dt_s > 0 && *b.uptime_s - *a.uptime_s + slack + 0.1 * *dt_s < *dt_s) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.0f s", *dt_s);
            return "uptime went from " + from + " to " + to + ", less than the " + buf +
                   " between the captures";
        }
    }
    return std::nullopt;
}

std::optional<std::string> reset_evidence(const CaptureIdentity& a, const CaptureIdentity& b) {
    for (const auto& [key, before_values] : a.counter_values) {
        const auto it = b.counter_values.find(key);
        if (it == b.counter_values.end()) continue;
        for (const auto& [name, before] : before_values) {
            if (name == "lifespan") continue;  // mlx5: the counters' cache time (ms), a setting
            const auto after = it->second.find(name);
            if (after != it->second.end() && counter_was_reset(before, after->second))
                return key + " " + name + " fell from " + std::to_string(before) + " to " +
                       std::to_string(after->second);
        }
    }
    return std::nullopt;
}

}  // namespace

Restart restart_between(const BundleCapture& prev, const BundleCapture& next,
                        std::optional<double> dt_s) {
    if (auto why = reboot_evidence(prev, next, dt_s)) return {Restart::Kind::reboot, *why};
    if (auto why = reset_evidence(prev.identity, next.identity))
        return {Restart::Kind::reset, *why};
    return {};
}

CaptureIdentity without_counter_values(CaptureIdentity id) {
    id.counter_values.clear();
    return id;
}

}  // namespace rh
