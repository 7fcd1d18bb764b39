// Small string_view helpers the UCX and perftest readers share (collectors/joblog): trimming,
// numbers read with std::from_chars, a field after a key, and the LogEvent every line starts
// from. Header-only and allocation-free except make_event, so the hot path stays cheap.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "collectors/joblog/job_logs.h"

namespace rh::joblog::scan {

inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
inline bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

inline std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

inline bool starts_with(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

/// The unsigned number at the start of `s` in `base` ("0x" skipped for base 16). nullopt when
/// there is no digit, on overflow, or — unless `at_end_ok` — when the digits run to the end of
/// `s`: a line cut inside a number must not give a wrong, shorter number.
inline std::optional<std::uint64_t> number(std::string_view s, int base, bool at_end_ok) {
    if (base == 16 && (starts_with(s, "0x") || starts_with(s, "0X"))) s.remove_prefix(2);
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || p == s.data()) return std::nullopt;
    if (p == s.data() + s.size() && !at_end_ok) return std::nullopt;
    return v;
}

/// The number right after the first `key` in `s` (see number()).
inline std::optional<std::uint64_t> number_after(std::string_view s, std::string_view key, int base,
                                                 bool at_end_ok) {
    const auto k = s.find(key);
    if (k == std::string_view::npos) return std::nullopt;
    return number(s.substr(k + key.size()), base, at_end_ok);
}

inline std::optional<std::uint32_t> u32(std::optional<std::uint64_t> v) {
    if (!v || *v > 0xffffffffULL) return std::nullopt;
    return static_cast<std::uint32_t>(*v);
}

/// The token after the first `key` in `s`, up to a space, ']', ',' or ')'; "" if the key is
/// missing or the token runs to the end of `s` (cut) unless `at_end_ok`.
inline std::string_view token_after(std::string_view s, std::string_view key, bool at_end_ok) {
    const auto k = s.find(key);
    if (k == std::string_view::npos) return {};
    s.remove_prefix(k + key.size());
    std::size_t n = 0;
    while (n < s.size() && !is_space(s[n]) && s[n] != ']' && s[n] != ',' && s[n] != ')') ++n;
    if (n == s.size() && !at_end_ok) return {};
    return s.substr(0, n);
}

/// "mlx5_0:1" -> device "mlx5_0", port 1 (port 0 when absent or unreadable).
inline void device_port(std::string_view spec, LogEvent& e) {
    const auto colon = spec.find(':');
    e.device = std::string(spec.substr(0, colon));
    if (colon != std::string_view::npos) {
        if (auto p = number(spec.substr(colon + 1), 10, true); p && *p < 0x10000)
            e.port = static_cast<unsigned>(*p);
    }
}

/// A dotted IPv4 address ("10.0.0.2"): four numbers 0-255.
inline bool is_ipv4(std::string_view s) {
    int parts = 0;
    while (true) {
        std::size_t n = 0;
        while (n < s.size() && is_digit(s[n])) ++n;
        if (n == 0 || n > 3 || *number(s.substr(0, n), 10, true) > 255) return false;
        ++parts;
        s.remove_prefix(n);
        if (s.empty()) return parts == 4;
        if (s.front() != '.' || parts == 4) return false;
        s.remove_prefix(1);
    }
}

/// "10.0.0.2:18515" -> "10.0.0.2"; "" when the host part is not an IPv4 literal (a host name
/// names no address we can join on, and "::1:18515" is ambiguous).
inline std::string ip_of_endpoint(std::string_view ep) {
    const auto colon = ep.rfind(':');
    const auto host = ep.substr(0, colon);
    return is_ipv4(host) ? std::string(host) : std::string();
}

/// Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil).
inline long long days_from_civil(long long y, unsigned m, unsigned d) {
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<long long>(doe) - 719468;
}

/// "Jan".."Dec" (any case: syslog, journalctl, ctime and kernel words) -> 1..12; nullopt for
/// anything else, including longer words ("January").
inline std::optional<unsigned> month_number(std::string_view w) {
    // Called on a word of every line: compared in place, no copy.
    static constexpr std::string_view kMonths = "janfebmaraprmayjunjulaugsepoctnovdec";
    if (w.size() != 3) return std::nullopt;
    const auto lower = [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    };
    for (std::size_t m = 0; m < 12; ++m)
        if (lower(w[0]) == kMonths[3 * m] && lower(w[1]) == kMonths[3 * m + 1] &&
            lower(w[2]) == kMonths[3 * m + 2])
            return static_cast<unsigned>(m + 1);
    return std::nullopt;
}

/// A ctime() stamp at the start of `s`, "Tue Feb 27 20:11:35 2018" (mpirun --timestamp-output
/// puts one before each line; "Sun Oct  1 ..." pads the day): seconds since the epoch as if
/// UTC (LogClock::local: the stamp has no zone). nullopt unless the whole stamp is there.
inline std::optional<double> ctime_stamp(std::string_view s) {
    if (s.size() < 24 || s[3] != ' ' || s[7] != ' ' || s[10] != ' ' || s[13] != ':' ||
        s[16] != ':' || s[19] != ' ')
        return std::nullopt;
    const auto mon = month_number(s.substr(4, 3));
    if (!mon) return std::nullopt;
    auto field = [&](std::size_t at, std::size_t n) -> std::optional<std::uint64_t> {
        auto f = s.substr(at, n);
        if (!f.empty() && f.front() == ' ') f.remove_prefix(1);
        return number(f, 10, true);
    };
    const auto d = field(8, 2), h = field(11, 2), mi = field(14, 2), se = field(17, 2);
    const auto y = field(20, 4);
    if (!d || !h || !mi || !se || !y || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *se > 60 ||
        *y < 1970 || *y > 9999)
        return std::nullopt;
    const auto days = days_from_civil(static_cast<long long>(*y), *mon, static_cast<unsigned>(*d));
    return static_cast<double>(days * 86400 + static_cast<long long>(*h * 3600 + *mi * 60 + *se));
}

/// The event every recognised line starts from: where it was read and its text (trimmed, at
/// most 400 bytes).
inline LogEvent make_event(const LogText& text, std::size_t index, const char* reader,
                           const char* kind) {
    LogEvent e;
    e.file = text.dir.empty() ? text.file : text.dir + "/" + text.file;
    e.line = static_cast<unsigned>(index + 1);
    e.source = e.file + ":" + std::to_string(e.line);
    e.reader = reader;
    e.kind = kind;
    e.text = std::string(trim(text.lines[index]).substr(0, 400));
    return e;
}

}  // namespace rh::joblog::scan
