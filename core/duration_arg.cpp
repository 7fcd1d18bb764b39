#include "core/duration_arg.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rh {

namespace {

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

std::optional<std::string> parse_duration_s(const std::string& option, const std::string& text,
                                            double lo_s, double hi_s, double& out_s) {
    const std::string bad = option + ": '" + text +
                            "' is not a duration (expected e.g. 1s, 500ms, 2m, 1h or seconds)";
    // Digits with at most one '.', then an optional unit; no sign, spaces or exponent.
    std::size_t i = 0, dots = 0, digits = 0;
    for (; i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.');
         ++i)
        (text[i] == '.' ? dots : digits)++;
    if (digits == 0 || dots > 1) return bad;
    const double number = std::strtod(text.substr(0, i).c_str(), nullptr);
    const std::string unit = text.substr(i);
    double scale = 0;
    if (unit.empty() || unit == "s") {
        scale = 1;
    } else if (unit == "ms") {
        scale = 1e-3;
    } else if (unit == "m" || unit == "min") {
        scale = 60;
    } else if (unit == "h") {
        scale = 3600;
    } else {
        return bad;
    }
    const double v = number * scale;
    if (!std::isfinite(v) || v < lo_s || v > hi_s)
        return option + ": " + text + " is not allowed: expected " + fmt(lo_s) + " s to " +
               fmt(hi_s) + " s";
    out_s = v;
    return std::nullopt;
}

}  // namespace rh
