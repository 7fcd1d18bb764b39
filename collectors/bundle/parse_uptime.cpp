// How long the host has been up, from `uptime` or `cat /proc/uptime`, as Model::uptime_s
// (seconds; the gauge series uptime_s). Lifetime rules weigh counts since the counters were last
// reset against it (lifetime_pause_share), which holds only when the counters were not reset
// since boot. Shapes read:
//   `uptime`:       " 10:01:02 up 400 days,  3:04,  2 users,  load average: 0.00, 0.01, 0.05"
//                   "up 3 days, 4:05", "up 17 min", "up 1 day, 17 min", "up 2:03"
//   `uptime -p`:    "up 1 year, 2 weeks, 3 days, 4 hours, 5 minutes"
//   /proc/uptime:   "35197285.05 12345.67" (seconds up, seconds idle summed over CPUs)
#include <cctype>
#include <cstdio>

#include "collectors/bundle/bundle_model.h"

namespace rh::bundle {

namespace {

/// "35197285.05 12345.67": two decimals with two fraction digits each, as the kernel prints
/// /proc/uptime ("%lu.%02lu %lu.%02lu").
bool proc_uptime_number(std::string_view s) {
    const auto dot = s.find('.');
    if (dot == std::string_view::npos || dot == 0 || s.size() - dot - 1 != 2) return false;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (i != dot && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    return true;
}

/// The index of the only non-empty line when it is /proc/uptime's, else npos.
std::size_t proc_uptime_line(const TextFile& f) {
    std::size_t found = std::string::npos;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        if (trim(f.lines[i]).empty()) continue;
        if (found != std::string::npos) return std::string::npos;
        const auto t = tokens(f.lines[i]);
        if (t.size() != 2 || !proc_uptime_number(t[0]) || !proc_uptime_number(t[1]))
            return std::string::npos;
        found = i;
    }
    return found;
}

/// Position just after "up " in an `uptime` line ("... up 3 days, ..."), else npos: "up"
/// as a word followed by a number.
std::size_t after_up(std::string_view l) {
    for (std::size_t p = l.find("up "); p != std::string_view::npos; p = l.find("up ", p + 1)) {
        if (p > 0 && !std::isspace(static_cast<unsigned char>(l[p - 1]))) continue;
        std::size_t q = p + 3;
        while (q < l.size() && l[q] == ' ') ++q;
        if (q < l.size() && std::isdigit(static_cast<unsigned char>(l[q]))) return p + 3;
    }
    return std::string_view::npos;
}

/// Seconds in one comma-separated part of the uptime: "400 days", "3:04", "17 min",
/// "4 hours", "1 week"; nullopt when the part is none of these (then the list has ended:
/// "2 users", "load average: ...").
std::optional<double> part_seconds(std::string_view part) {
    part = trim(part);
    if (const auto colon = part.find(':'); colon != std::string_view::npos) {
        const auto h = to_u64(part.substr(0, colon)), m = to_u64(part.substr(colon + 1));
        if (!h || !m || *m >= 60) return std::nullopt;
        return static_cast<double>(*h) * 3600 + static_cast<double>(*m) * 60;
    }
    const auto t = tokens(part);
    if (t.size() != 2) return std::nullopt;
    const auto n = to_u64(t[0]);
    if (!n) return std::nullopt;
    const std::string_view u = t[1];
    const auto is = [&](std::string_view a, std::string_view b = {}) {
        return u == a || (!b.empty() && u == b);
    };
    double unit = 0;
    if (is("year", "years"))
        unit = 365 * 86400.0;
    else if (is("week", "weeks"))
        unit = 7 * 86400.0;
    else if (is("day", "days"))
        unit = 86400;
    else if (is("hour", "hours") || is("hr", "hrs"))
        unit = 3600;
    else if (is("min", "mins") || is("minute", "minutes"))
        unit = 60;
    else if (is("sec", "secs") || is("second", "seconds"))
        unit = 1;
    else
        return std::nullopt;
    return static_cast<double>(*n) * unit;
}

/// The uptime in an `uptime` line, seconds, and nullopt when no part after "up" reads as a time.
std::optional<double> uptime_line_seconds(std::string_view l) {
    const auto at = after_up(l);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = l.substr(at);
    std::optional<double> total;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const auto part = rest.substr(0, comma);
        const auto s = part_seconds(part);
        if (!s) break;
        total = total.value_or(0) + *s;
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    return total;
}

/// The index of the first line that reads as `uptime` output, else npos. Besides "up N", the
/// line must look like uptime's: "load average", "user", or the line starts with "up " (-p).
std::size_t uptime_line(const TextFile& f) {
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view l = trim(f.lines[i]);
        const bool shape = l.find("load average") != std::string_view::npos ||
                           l.find(" user") != std::string_view::npos || starts_with(l, "up ");
        if (shape && uptime_line_seconds(l)) return i;
    }
    return std::string::npos;
}

}  // namespace

bool is_uptime(const TextFile& f) {
    return proc_uptime_line(f) != std::string::npos || uptime_line(f) != std::string::npos;
}

std::string parse_uptime(const TextFile& f, Model& m) {
    double seconds = 0;
    std::size_t line = proc_uptime_line(f);
    const char* kind = "/proc/uptime";
    double resolution = 0.01;
    if (line != std::string::npos) {
        seconds = to_double(tokens(f.lines[line])[0]).value_or(0);
    } else {
        resolution = 60;  // `uptime` and `uptime -p` print minutes at best
        line = uptime_line(f);
        if (line == std::string::npos) return "uptime";  // is_uptime said yes: cannot happen
        seconds = uptime_line_seconds(trim(f.lines[line])).value_or(0);
        kind = "uptime";
    }
    if (m.uptime_s && *m.uptime_s != seconds) {
        char buf[128];
        std::snprintf(buf, sizeof buf,
                      "a second uptime (%.0f s) differs from %s (%.0f s); the first kept", seconds,
                      m.uptime_source.c_str(), *m.uptime_s);
        m.note(f, line, buf);
        return kind;
    }
    m.uptime_s = seconds;
    m.uptime_resolution_s = resolution;
    m.uptime_source = source_of(f, line);
    return kind;
}

}  // namespace rh::bundle
