#include "collectors/bundle/parse_clock.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "collectors/bundle/bundle_model.h"

namespace rh::bundle {

namespace {

std::optional<int> clock_number(std::string_view s) {
    int v = 0;
    if (s.empty() || s.size() > 4) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

bool clock_same_letters(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

std::optional<int> clock_month_of(std::string_view w) {
    static constexpr std::array<std::string_view, 12> kMonths{
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (std::size_t i = 0; i < kMonths.size(); ++i)
        if (clock_same_letters(w, kMonths[i])) return static_cast<int>(i);
    return std::nullopt;
}

bool clock_is_weekday(std::string_view w) {
    for (std::string_view d : {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"})
        if (clock_same_letters(w, d)) return true;
    return false;
}

/// "7:42:39" / "07:42:39" -> seconds of the day.
std::optional<int> clock_time_of_day(std::string_view s) {
    const auto c1 = s.find(':');
    if (c1 == std::string_view::npos || c1 == 0 || c1 > 2 || s.size() != c1 + 6 || s[c1 + 3] != ':')
        return std::nullopt;
    const auto h = clock_number(s.substr(0, c1)), m = clock_number(s.substr(c1 + 1, 2)),
               sec = clock_number(s.substr(c1 + 4, 2));
    if (!h || !m || !sec || *h > 23 || *m > 59 || *sec > 60) return std::nullopt;
    return *h * 3600 + *m * 60 + *sec;
}

/// "UTC", "GMT", "Z", "+0100", "-05:00", "+03" -> seconds east of UTC.
std::optional<int> clock_fixed_offset_s(std::string_view z) {
    if (z == "UTC" || z == "GMT" || z == "Z" || z == "UT") return 0;
    if (z.size() < 3 || (z[0] != '+' && z[0] != '-')) return std::nullopt;
    std::string digits;
    for (char c : z.substr(1))
        if (c != ':') digits += c;
    if (digits.size() != 2 && digits.size() != 4) return std::nullopt;
    const auto h = clock_number(std::string_view(digits).substr(0, 2));
    const auto m = digits.size() == 4 ? clock_number(std::string_view(digits).substr(2, 2)) : 0;
    if (!h || !m || *h > 14 || *m > 59) return std::nullopt;
    return (z[0] == '-' ? -1 : 1) * (*h * 3600 + *m * 60);
}

/// A named zone abbreviation as `date` prints it: 2..5 capital letters ("CST", "CEST").
bool clock_is_zone_name(std::string_view w) {
    if (w.size() < 2 || w.size() > 5) return false;
    for (char c : w)
        if (!std::isupper(static_cast<unsigned char>(c))) return false;
    return true;
}

double clock_epoch_s(int year, int month0, int day, int day_s) {
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = month0;
    tm.tm_mday = day;
    return static_cast<double>(timegm(&tm)) + day_s;
}

/// Sets `r`'s zone and shifts t_s by a fixed offset; false for a word that is not a zone.
bool clock_apply_zone(std::string_view z, ClockReading& r) {
    if (const auto off = clock_fixed_offset_s(z)) {
        r.t_s -= *off;
        r.zone.clear();
        return true;
    }
    if (!clock_is_zone_name(z)) return false;
    r.zone = std::string(z);
    return true;
}

/// ISO 8601: "2026-12-04T22:15:16+00:00", "2026-12-04 22:15:16.123 Z", "2026-12-04 22:15:16".
std::optional<ClockReading> clock_from_iso(std::string_view line) {
    if (line.size() < 19 || line[4] != '-' || line[7] != '-' ||
        (line[10] != 'T' && line[10] != ' '))
        return std::nullopt;
    const auto year = clock_number(line.substr(0, 4)), mon = clock_number(line.substr(5, 2)),
               day = clock_number(line.substr(8, 2));
    const auto day_s = clock_time_of_day(line.substr(11, 8));
    if (!year || !mon || !day || !day_s || *mon < 1 || *mon > 12 || *day < 1 || *day > 31 ||
        *year < 1970)
        return std::nullopt;
    std::string_view rest = line.substr(19);
    if (!rest.empty() && (rest[0] == '.' || rest[0] == ',')) {
        std::size_t i = 1;
        while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
        rest = rest.substr(i);
    }
    rest = trim(rest);
    ClockReading r;
    r.kind = "date";
    r.t_s = clock_epoch_s(*year, *mon - 1, *day, *day_s);
    r.zone = "local";
    if (!rest.empty() && !clock_apply_zone(rest, r)) return std::nullopt;
    return r;
}

}  // namespace

std::optional<ClockReading> parse_date_line(std::string_view line) {
    line = trim(line);
    if (line.empty() || line.size() > 80) return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(line.front()))) return clock_from_iso(line);
    std::optional<int> mon, day, day_s, year;
    std::optional<std::string_view> zone;
    bool pm = false, am = false;
    for (std::string_view w : tokens(line)) {
        while (!w.empty() && w.back() == ',') w.remove_suffix(1);  // `date -R`: "Fri,"
        if (w.empty()) return std::nullopt;
        if (!mon && clock_month_of(w)) {
            mon = clock_month_of(w);
        } else if (clock_is_weekday(w)) {
            continue;
        } else if (!day_s && clock_time_of_day(w)) {
            day_s = clock_time_of_day(w);
        } else if (clock_same_letters(w, "AM") || clock_same_letters(w, "PM")) {
            (clock_same_letters(w, "PM") ? pm : am) = true;
        } else if (const auto n = clock_number(w); n && w.size() == 4 && !year) {
            year = n;
        } else if (n && w.size() <= 2 && !day) {
            day = n;
        } else if (!zone && (clock_fixed_offset_s(w) || clock_is_zone_name(w))) {
            zone = w;
        } else {
            return std::nullopt;
        }
    }
    if (!mon || !day || !day_s || !year || *day < 1 || *day > 31 || *year < 1970 || *year > 2199 ||
        (am && pm))
        return std::nullopt;
    int s = *day_s;
    if (am || pm) {  // en_US "10:15:16 PM": 12-hour clock
        if (s < 3600 || s >= 13 * 3600) return std::nullopt;
        if (s >= 12 * 3600) s -= 12 * 3600;
        if (pm) s += 12 * 3600;
    }
    ClockReading r;
    r.kind = "date";
    r.t_s = clock_epoch_s(*year, *mon, *day, s);
    r.zone = "local";
    if (zone && !clock_apply_zone(*zone, r)) return std::nullopt;
    return r;
}

namespace {

/// The `watch` header's time: "Every 5.0s: CMD   host: Wed Jan 14 16:20:05 2026" (the right
/// part, after the last ": " that leaves a date), older watch prints the date alone there.
std::optional<ClockReading> clock_from_watch_header(std::string_view line) {
    line = trim(line);
    if (!starts_with(line, "Every ")) return std::nullopt;
    const auto words = tokens(line);
    // The date is the last 4..7 words (ctime: 5; with a zone or AM/PM: 6..7).
    for (std::size_t n = 7; n >= 4; --n) {
        if (words.size() < n + 2) continue;
        const char* from = words[words.size() - n].data();
        const std::string_view tail(from, line.data() + line.size() - from);
        if (auto r = parse_date_line(tail)) {
            r->kind = "watch header";
            return r;
        }
    }
    return std::nullopt;
}

/// "[Wed Jan 14 16:20:05 2026] mlx5_core ...": the time in the brackets (dmesg -T).
std::optional<ClockReading> clock_from_dmesg_t(std::string_view line) {
    line = trim(line);
    if (line.size() < 26 || line.front() != '[') return std::nullopt;
    const auto close = line.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    auto r = parse_date_line(line.substr(1, close - 1));
    if (!r) return std::nullopt;
    r->kind = "dmesg -T";
    r->approximate = true;
    // Boot time + a monotonic clock that stops in suspend, and the capture came later.
    r->uncertainty_s = 60;
    return r;
}

/// journalctl -o short-iso ("2026-01-14T16:20:05+0000 host kernel: ...") or -o short-full
/// ("Wed 2026-01-14 16:20:05 UTC host kernel: ..."). The classic short form has no year and
/// is not read.
std::optional<ClockReading> clock_from_journal(std::string_view line) {
    const auto w = tokens(line);
    if (w.size() < 3) return std::nullopt;
    std::optional<ClockReading> r;
    std::size_t next = 1;
    if (w[0].size() >= 19 && w[0][4] == '-' && w[0][10] == 'T') {
        r = clock_from_iso(w[0]);
    } else if (w.size() >= 5 && clock_is_weekday(w[0])) {
        const char* from = w[1].data();
        r = clock_from_iso(std::string_view(from, w[2].data() + w[2].size() - from));
        if (r && clock_apply_zone(w[3], *r))
            next = 4;
        else
            r.reset();
    }
    if (!r || next + 1 >= w.size() || w[next + 1].back() != ':') return std::nullopt;
    r->kind = "journal";
    r->approximate = true;
    r->uncertainty_s = 60;
    return r;
}

/// sar's header date: "Linux 5.15.0-91-generic (gpu01) \t01/14/2026 \t_x86_64_\t(64 CPU)"
/// (MM/DD/YYYY as the C and en_US locales print it, or YYYY-MM-DD with S_TIME_FORMAT=ISO):
/// midnight of that day as if UTC; nullopt for any other line.
std::optional<double> sar_day(std::string_view line) {
    const auto w = tokens(line);
    if (w.size() < 4 || w[0] != "Linux" || w[2].front() != '(') return std::nullopt;
    for (std::string_view d : w) {
        if (d.size() != 10) continue;
        if (d[2] == '/' && d[5] == '/') {
            const auto m = clock_number(d.substr(0, 2)), day = clock_number(d.substr(3, 2)),
                       y = clock_number(d.substr(6, 4));
            if (m && day && y && *m >= 1 && *m <= 12 && *day >= 1 && *day <= 31 && *y >= 1970)
                return clock_epoch_s(*y, *m - 1, *day, 0);
        }
        if (d[4] == '-' && d[7] == '-')
            if (auto r = clock_from_iso(std::string(d) + " 00:00:00")) return r->t_s;
    }
    return std::nullopt;
}

/// A sar data line's time of day: "04:20:05 PM  all  3.1 ..." or "16:20:05  all ...".
std::optional<int> sar_time(std::string_view line) {
    const auto w = tokens(line);
    if (w.size() < 3) return std::nullopt;
    auto s = clock_time_of_day(w[0]);
    if (!s) return std::nullopt;
    if (w[1] == "AM" || w[1] == "PM") {
        if (*s < 3600 || *s >= 13 * 3600) return std::nullopt;
        if (*s >= 12 * 3600) *s -= 12 * 3600;
        if (w[1] == "PM") *s += 12 * 3600;
    }
    return s;
}

std::string clock_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f s", std::abs(s));
    return buf;
}

}  // namespace

std::vector<ClockReading> clocks_in(const TextFile& f, std::vector<std::size_t>& consumed) {
    std::vector<ClockReading> out;
    const auto at = [&](std::size_t i, ClockReading r) {
        r.source = source_of(f, i);
        out.push_back(std::move(r));
        consumed.push_back(i);
    };
    const bool date_command = starts_with(trim(f.command), "date");
    bool top = true;  // no content seen yet
    std::optional<ClockReading> last_approx;
    std::size_t last_approx_line = 0;
    std::optional<double> sar_date;  // a sar header's day: its data lines' times count
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view l = trim(f.lines[i]);
        if (l.empty()) continue;
        if (top || date_command) {
            if (auto r = parse_date_line(l)) {
                at(i, std::move(*r));
                continue;
            }
            // `date +%s` output under its command: seconds since the epoch, UTC.
            if (const auto v = to_double(l); date_command && v && *v > 0 && *v < 7258118400) {
                ClockReading r;
                r.t_s = *v;
                r.kind = "date";
                at(i, std::move(r));
                continue;
            }
            if (auto r = clock_from_watch_header(l)) {
                at(i, std::move(*r));
                continue;
            }
        }
        top = false;
        if (const auto day = sar_day(l)) {
            sar_date = day;
            continue;
        }
        auto r = clock_from_dmesg_t(l);
        if (!r) r = clock_from_journal(l);
        if (const auto s = sar_date && !r ? sar_time(l) : std::nullopt) {
            r = ClockReading{};
            r->t_s = *sar_date + *s;
            r->zone = "local";
            r->uncertainty_s = 60;  // the last interval's end; the capture came after
            r->approximate = true;
            r->kind = "sar";
        }
        if (r) {
            last_approx = std::move(r);
            last_approx_line = i;
        }
    }
    if (last_approx) {  // the last message: the nearest to when the capture was taken
        last_approx->source = source_of(f, last_approx_line);
        out.push_back(std::move(*last_approx));
    }
    return out;
}

bool take_clocks(TextFile& f, std::vector<ClockReading>& clocks) {
    std::vector<std::size_t> used;
    auto found = clocks_in(f, used);
    for (std::size_t i : used) f.lines[i].clear();
    clocks.insert(clocks.end(), found.begin(), found.end());
    if (used.empty()) return false;
    for (const std::string& l : f.lines)
        if (!trim(l).empty()) return false;
    return true;
}

std::optional<CaptureClock> decide_clock(const std::vector<ClockReading>& readings) {
    if (readings.empty()) return std::nullopt;
    CaptureClock c;
    const ClockReading* best = nullptr;
    for (const ClockReading& r : readings)
        if (!best || (best->approximate && !r.approximate)) best = &r;
    c.chosen = *best;
    // Exact readings of one capture should agree within the time it took to run the commands.
    constexpr double kCaptureSpreadS = 120;
    for (const ClockReading& r : readings) {
        if (&r == best || r.approximate) continue;
        if (r.zone != best->zone) {
            c.notes.push_back(r.source + ": its clock (zone " +
                              (r.zone.empty() ? std::string("UTC") : r.zone) + ") and " +
                              best->source + "'s (zone " +
                              (best->zone.empty() ? std::string("UTC") : best->zone) +
                              ") are in different zones; " + best->source + "'s is used");
        } else if (std::abs(r.t_s - best->t_s) > kCaptureSpreadS) {
            c.notes.push_back(r.source + ": its time is " + clock_seconds(r.t_s - best->t_s) +
                              (r.t_s > best->t_s ? " after " : " before ") + best->source +
                              "'s in the same capture (more than " +
                              clock_seconds(kCaptureSpreadS) +
                              "); the capture's time is taken from " + best->source);
        }
    }
    if (c.chosen.approximate)
        c.notes.push_back(c.chosen.source + ": the only clock is a " + c.chosen.kind +
                          " time stamp (the last message before the capture, ±" +
                          clock_seconds(c.chosen.uncertainty_s) +
                          " or more): used to order captures, not for rates");
    return c;
}

}  // namespace rh::bundle
