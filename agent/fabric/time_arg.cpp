#include "agent/fabric/time_arg.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <regex>

#include "core/clock.h"

namespace rh::fabric {

namespace {

bool parse_number(const std::string& s, double& out) {
    if (s.empty() || s.find_first_not_of("0123456789.") != std::string::npos) return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && std::isfinite(out);
}

/// parse_time_arg without the range check.
std::optional<std::string> parse_time_text(const std::string& option, const std::string& text,
                                           double now_s, double& out_s) {
    const std::string bad = option + ": '" + text +
                            "' is not a time (expected RFC 3339 such as 2026-12-03T10:00:00Z, "
                            "unix seconds, now, or relative such as -1h)";
    if (text == "now") {
        out_s = now_s;
        return std::nullopt;
    }
    std::string rel;
    if (text.rfind("now-", 0) == 0)
        rel = text.substr(4);
    else if (text.rfind('-', 0) == 0)
        rel = text.substr(1);
    if (!rel.empty()) {
        const char unit = rel.back();
        const double mul = unit == 's'   ? 1
                           : unit == 'm' ? 60
                           : unit == 'h' ? 3600
                           : unit == 'd' ? 86400
                                         : 0;
        double n = 0;
        if (mul == 0 || !parse_number(rel.substr(0, rel.size() - 1), n)) return bad;
        out_s = now_s - n * mul;
        return std::nullopt;
    }
    if (parse_number(text, out_s)) return std::nullopt;
    static const std::regex kRfc3339(
        R"((\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2})))");
    std::smatch m;
    if (!std::regex_match(text, m, kRfc3339)) return bad;
    std::tm tm{};
    tm.tm_year = std::stoi(m[1]) - 1900;
    tm.tm_mon = std::stoi(m[2]) - 1;
    tm.tm_mday = std::stoi(m[3]);
    tm.tm_hour = std::stoi(m[4]);
    tm.tm_min = std::stoi(m[5]);
    tm.tm_sec = std::stoi(m[6]);
    if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
        tm.tm_sec > 60)
        return bad;
    double t = static_cast<double>(timegm(&tm));
    if (m[7].matched) t += std::stod("0" + m[7].str());
    if (m[9].matched) {
        const int off = std::stoi(m[10]) * 3600 + std::stoi(m[11]) * 60;
        t -= m[9] == "+" ? off : -off;
    }
    out_s = t;
    return std::nullopt;
}

}  // namespace

std::optional<std::string> parse_time_arg(const std::string& option, const std::string& text,
                                          double now_s, double& out_s) {
    auto checked = parse_time_text(option, text, now_s, out_s);
    // 1970..2200, as the bundles' clocks (core/clock.h): past it a time overflows the calendar
    // ("-219246529-01-00") and Prometheus refuses the range with its own words, not the
    // option's (a new user's find).
    if (!checked && !wall_time_in_range(out_s))
        return option + ": '" + text + "' is out of range (1970-01-01 to 2200-01-01)";
    return checked;
}

std::string rfc3339(double t_s) {
    const auto whole = static_cast<std::time_t>(std::floor(t_s));
    std::tm tm{};
    gmtime_r(&whole, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::string out = buf;
    const auto ms = static_cast<int>(std::lround((t_s - static_cast<double>(whole)) * 1000));
    if (ms > 0 && ms < 1000) {
        std::snprintf(buf, sizeof buf, ".%03d", ms);
        out += buf;
    }
    return out + "Z";
}

}  // namespace rh::fabric
