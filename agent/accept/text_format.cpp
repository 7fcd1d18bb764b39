#include "agent/accept/text_format.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace rh::accept {

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
                    out += "\xEF\xBF\xBD";
                else
                    out += c;
        }
    }
    return out;
}

std::string md_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (char c : s) {
        if (c == '\n' || c == '\r' || c == '\t') {
            out += ' ';
        } else if (std::string_view("\\`*_[]<>|~&").find(c) != std::string_view::npos) {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            out += "\xEF\xBF\xBD";
        } else {
            out += c;
        }
    }
    return out;
}

std::string fixed(std::optional<double> v, int decimals) {
    if (!v) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
    return buf;
}

std::string sig3(double v) {
    if (v == 0 || !std::isfinite(v)) return v == 0 ? "0" : "-";
    const int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    const int decimals = std::max(0, 2 - mag);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string trim_zeros(std::string s) {
    if (s.find('.') == std::string::npos) return s;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

std::string size_text(std::uint64_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " B";
}

std::string utc_text(std::int64_t wall_ms) {
    if (wall_ms == 0) return "unknown";
    const std::time_t secs = static_cast<std::time_t>(wall_ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
    return buf;
}

std::string duration_text(double seconds) {
    char buf[64];
    if (seconds < 60) {
        std::snprintf(buf, sizeof buf, "%.0f s", seconds);
    } else if (seconds < 3600) {
        const long s = std::lround(seconds);
        std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
    } else {
        const long m = std::lround(seconds / 60);
        std::snprintf(buf, sizeof buf, "%ld h %02ld min", m / 60, m % 60);
    }
    return buf;
}

std::string unit_text(const std::string& unit) {
    if (unit == "us") return "µs";
    if (unit.rfind("us/", 0) == 0) return "µs" + unit.substr(2);
    if (unit == "gbps") return "Gb/s";
    if (unit == "mib_s") return "MiB/s";
    return unit;
}

std::string scalar_text(const Scalar& s, const std::string& unit) {
    if (const auto* str = std::get_if<std::string>(&s)) return *str;
    const auto* d = std::get_if<double>(&s);
    if (!d) return "not measured";
    const std::string u = unit_text(unit);
    // As reported, to 4 decimals below 10 and 3 above: 412.7, 0.9999, 2.4, 1810.25, 3.
    if (u == "fraction") return fixed(*d * 100, 1) + " %";
    const std::string num = trim_zeros(fixed(*d, std::fabs(*d) < 10 ? 4 : 3));
    if (u.empty() || u == "count") return num;
    return num + " " + u;
}

}  // namespace rh::accept
