// Clocks inside capture files: when a capture was taken, read from what the commands printed
// (`date` lines, a `watch` header, `dmesg -T` and journal time stamps) for captures without a
// `timestamp` file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rh::bundle {

struct TextFile;

/// One time read from a capture file.
struct ClockReading {
    /// Seconds since the epoch. With an empty `zone`: UTC. With a `zone`: the local time read
    /// as if it were UTC (only differences between readings of the same zone mean anything).
    double t_s = 0;
    /// "" when the line fixes the time (UTC, GMT, Z or a numeric offset); otherwise the named
    /// zone abbreviation ("CST": three zones) or "local" when the line names no zone (the
    /// `watch` header, ISO 8601 without an offset).
    std::string zone;
    /// How far the capture's time may be from t_s, seconds: 1 for a `date` line (whole
    /// seconds); larger for a clock that only bounds it (dmesg -T: boot time plus a
    /// monotonic clock that stops in suspend; a journal line: the last message before).
    double uncertainty_s = 1;
    /// Approximate clocks (dmesg -T, journal, sar) order captures; not used for rates.
    bool approximate = false;
    std::string kind;    ///< "date", "watch header", "dmesg -T", "journal", "sar"
    std::string source;  ///< "<dir>/<file>:<line>"
};

/// The time a `date` line prints, in any of the forms `date` has: the C locale ("Thu Dec  3
/// 07:42:39 UTC 2026"), en_US ("Fri Dec  4 10:15:16 PM UTC 2026"), en_GB ("Fri  4 Dec 22:15:16
/// UTC 2026"), `date -R` ("Fri, 04 Dec 2026 22:15:16 +0000"), ctime without a zone ("Wed Jan
/// 14 16:20:05 2026") and ISO 8601 (`date -Is`: "2026-12-04T22:15:16+00:00", "2026-12-04
/// 22:15:16Z", without an offset: zone "local"). Every word of the line must be a part of the
/// time (weekday, month, day, time, AM/PM, zone, year), so prose is not read as a date.
/// nullopt when `line` is not one; kind "date", source "" (the caller's).
std::optional<ClockReading> parse_date_line(std::string_view line);

/// The clocks of one capture part (a file, or one command's output of it): a `date` line at
/// its top (the first non-empty line, or the output of a `date` command, `date +%s` too), a
/// `watch` header
/// ("Every 5.0s: ethtool -S ens2f0np0   host: Wed Jan 14 16:20:05 2026"), and, as approximate
/// clocks, the last `dmesg -T` ("[Wed Jan 14 16:20:05 2026] ..."), journal
/// ("2026-01-14T16:20:05+0000 host kernel: ...") or sar (a "Linux ... (host) 01/14/2026 ..."
/// header, then "04:20:05 PM  all ..." lines; local time) time stamp. `consumed` gets the 0-based
/// line indexes of the `date` / `watch` lines (not part of any other format's output). Pure.
std::vector<ClockReading> clocks_in(const TextFile& f, std::vector<std::size_t>& consumed);

/// The bundle import's hook: appends clocks_in(f) to `clocks` and blanks the lines it
/// consumed in `f` (so `date` above `ethtool -S | grep` output does not hide the format);
/// true when nothing but clock lines was in `f` (the part is read: it is a clock).
bool take_clocks(TextFile& f, std::vector<ClockReading>& clocks);

/// A capture's time decided from its readings (the best kind first: `date` and `watch` lines,
/// then approximate ones), with notes for disagreement ("two `date` lines 300 s apart ...")
/// and ambiguity (a named zone). nullopt when there is no reading.
struct CaptureClock {
    ClockReading chosen;
    std::vector<std::string> notes;
};
std::optional<CaptureClock> decide_clock(const std::vector<ClockReading>& readings);

}  // namespace rh::bundle
