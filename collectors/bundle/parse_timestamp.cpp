#include "collectors/bundle/parse_timestamp.h"

#include <array>
#include <cctype>
#include <charconv>
#include <ctime>
#include <optional>
#include <vector>

#include "collectors/bundle/bundle_model.h"
#include "collectors/bundle/parse_clock.h"
#include "core/clock.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

std::optional<int> whole(std::string_view s) {
    int v = 0;
    if (s.empty()) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<int> month_of(std::string_view m) {
    static constexpr std::array<std::string_view, 12> kMonths{
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (std::size_t i = 0; i < kMonths.size(); ++i)
        if (m == kMonths[i]) return static_cast<int>(i);
    return std::nullopt;
}

/// "07:42:39" -> seconds of the day.
std::optional<int> clock_of(std::string_view s) {
    if (s.size() != 8 || s[2] != ':' || s[5] != ':') return std::nullopt;
    const auto h = whole(s.substr(0, 2)), m = whole(s.substr(3, 2)), sec = whole(s.substr(6, 2));
    if (!h || !m || !sec || *h > 23 || *m > 59 || *sec > 60) return std::nullopt;
    return *h * 3600 + *m * 60 + *sec;
}

/// "UTC", "GMT", "Z", "+0100", "-05:00" -> seconds east of UTC; nullopt for anything else.
std::optional<int> zone_offset_s(std::string_view z) {
    if (z == "UTC" || z == "GMT" || z == "Z") return 0;
    if (z.size() != 5 && z.size() != 6) return std::nullopt;
    if (z[0] != '+' && z[0] != '-') return std::nullopt;
    const std::string_view hh = z.substr(1, 2);
    const std::string_view mm =
        z.size() == 6 ? (z[3] == ':' ? z.substr(4, 2) : "") : z.substr(3, 2);
    const auto h = whole(hh), m = whole(mm);
    if (!h || !m || *h > 14 || *m > 59) return std::nullopt;
    return (z[0] == '-' ? -1 : 1) * (*h * 3600 + *m * 60);
}

double utc_seconds(int year, int month0, int day, int day_s, int offset_s) {
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = month0;
    tm.tm_mday = day;
    return static_cast<double>(timegm(&tm)) + day_s - offset_s;
}

Error not_understood(std::string_view line, std::string why) {
    return Error{"", "", 0, why + ": " + quote_value(line)};
}

/// `date` in the C locale: "Thu Dec  3 07:42:39 UTC 2026" (weekday optional).
Result<double> from_date_words(std::string_view line, std::vector<std::string_view> w) {
    if (!w.empty() && w[0].size() == 3 && !month_of(w[0])) w.erase(w.begin());  // weekday
    if (w.size() != 5) return not_understood(line, "not a time `date` prints");
    const auto mon = month_of(w[0]);
    const auto day = whole(w[1]);
    const auto day_s = clock_of(w[2]);
    const auto year = whole(w[4]);
    if (!mon || !day || !day_s || !year || *day < 1 || *day > 31 || *year < 1970)
        return not_understood(line, "not a time `date` prints");
    const auto off = zone_offset_s(w[3]);
    if (!off)
        return not_understood(line, "time zone '" + std::string(w[3]) +
                                        "' is not UTC/GMT or a numeric offset (a named zone "
                                        "can mean several); capture with `date -u` or `date +%s`");
    return utc_seconds(*year, *mon, *day, *day_s, *off);
}

/// ISO 8601: "2026-12-03T07:42:39+00:00", "2026-12-03 07:42:39Z", fractions of a second
/// ignored. A time without a zone is refused (local to an unknown zone).
Result<double> from_iso(std::string_view line) {
    if (line.size() < 19 || line[4] != '-' || line[7] != '-' ||
        (line[10] != 'T' && line[10] != ' '))
        return not_understood(line, "not a time");
    const auto year = whole(line.substr(0, 4)), mon = whole(line.substr(5, 2)),
               day = whole(line.substr(8, 2));
    const auto day_s = clock_of(line.substr(11, 8));
    if (!year || !mon || !day || !day_s || *mon < 1 || *mon > 12 || *day < 1 || *day > 31)
        return not_understood(line, "not an ISO 8601 time");
    std::string_view rest = line.substr(19);
    if (!rest.empty() && (rest[0] == '.' || rest[0] == ',')) {  // fraction of a second
        std::size_t i = 1;
        while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
        rest = rest.substr(i);
    }
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    const auto off = zone_offset_s(rest);
    if (!off)
        return not_understood(line, rest.empty() ? "an ISO 8601 time without a zone (Z or "
                                                   "+hh:mm): local to an unknown zone"
                                                 : "an ISO 8601 time with an unknown zone");
    return utc_seconds(*year, *mon - 1, *day, *day_s, *off);
}

/// The time in `text`, any of the accepted forms (parse_timestamp_text), unbounded.
Result<double> parse_any(std::string_view text) {
    // The last line that is not empty, a prompt or the command itself ("$ date -u").
    std::string_view line;
    std::size_t at = 0;
    while (at <= text.size()) {
        std::size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos) nl = text.size();
        const std::string_view l = trim(text.substr(at, nl - at));
        const bool prompt = !l.empty() && (l.front() == '$' || l.front() == '#' ||
                                           l.find("]# ") != std::string_view::npos ||
                                           l.find("]$ ") != std::string_view::npos ||
                                           l.find("$ date") != std::string_view::npos ||
                                           l.find("# date") != std::string_view::npos);
        if (!l.empty() && !prompt) line = l;
        at = nl + 1;
    }
    if (line.empty()) return Error{"", "", 0, "empty: no time in it"};
    if (const auto v = to_double(line)) {
        if (*v < 0 || *v > 1e11)
            return not_understood(line, "not a number of seconds since the epoch");
        return *v;
    }
    // en_US / en_GB `date -u`, `date -R` and the other forms parse_date_line reads; a named
    // zone or none is refused below with its reason.
    if (const auto r = parse_date_line(line); r && r->zone.empty()) return r->t_s;
    if (std::isdigit(static_cast<unsigned char>(line.front()))) return from_iso(line);
    return from_date_words(line, tokens(line));
}

}  // namespace

Result<double> parse_timestamp_text(std::string_view text) {
    auto t = parse_any(text);
    if (t && !wall_time_in_range(*t))  // NaN too
        return Error{"", "", 0, "a time outside 1970..2200: " + quote_value(trim(text))};
    return t;
}

}  // namespace rh::bundle
