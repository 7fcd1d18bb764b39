// The kernel's messages as `dmesg`, `dmesg -T`, `journalctl -k` (short, short-iso, short-precise)
// and syslog's kern.log print them, for what they say about an RDMA NIC, the PCIe link under it
// or a job's processes:
//   - NIC drivers (mlx5_core, bnxt_en, ice, ixgbe-style "NIC Link is Up/Down", irdma): link
//     down/up, cable module events, insufficient slot power, temperature, firmware command
//     timeouts, firmware health and PCI error recovery;
//   - PCIe AER in both wordings (before and since Linux 6.8);
//   - the OOM killer, segfaults and general protection faults (a peer's process gone);
//   - NVIDIA Xid lines (a GPU gone).
// Stamps: dmesg "[ 1234.567890]" (boot), dmesg -T "[Wed Jan 14 16:20:05 2026]" (local),
// journalctl short "Jan 14 16:20:05 gpu01 kernel: " (local, no year), ISO 8601 with a zone
// (journalctl -o short-iso, dmesg --time-format iso: wall) or without (local), none (order).
//
// Recognition is by the line's shape, not by searching it: after the stamp, a kernel message
// is "<driver> <pci function>[ <netdev|ibdev>]: <text>" (dev_printk/netdev_printk/ibdev_printk)
// or one of a few fixed openings ("NVRM:", "Out of memory:", "oom-kill:", "comm[pid]: ");
// a line of another shape (an NCCL INFO line: "gpu01:123:456 [3] NCCL INFO ...") is rejected
// after a few byte comparisons at its start, without scanning it.
//
// The bundle reader's parse_clock.cpp reads the same dmesg -T / journal stamps for a capture's
// clock (rh::bundle::parse_date_line); rh_bundle links rh_joblog, so this file cannot call it,
// and keeps its own fixed-shape stamp reader (a shared helper in core/ would serve both).
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

#include "collectors/joblog/job_logs.h"
#include "collectors/joblog/line_scan.h"

namespace rh::joblog {

namespace {

using sv = std::string_view;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

/// `s` begins with `p` (the first byte compared inline: most tests fail on it).
bool starts(sv s, sv p) {
    return s.size() >= p.size() && (p.empty() || s[0] == p[0]) && s.compare(0, p.size(), p) == 0;
}
bool starts_nocase(sv s, sv p) {
    if (s.size() < p.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (lower(s[i]) != lower(p[i])) return false;
    return true;
}
bool has(sv s, sv p) {
    return s.find(p) != sv::npos;
}

sv trim(sv s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

/// The first word of `s` (up to a space) and the rest after the spaces that follow it.
sv word(sv& s) {
    const auto sp = s.find(' ');
    const sv w = s.substr(0, sp);
    s = sp == sv::npos ? sv{} : s.substr(sp);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    return w;
}

/// An unsigned number filling `s` exactly.
template <typename T>
std::optional<T> number(sv s, int base = 10) {
    T v{};
    if (s.empty()) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

/// The decimal digits at the start of `s`, when `delims` holds the character after them (a
/// number cut off at the end of a line is not read: "pid=42" of "pid=4242" would be wrong).
std::optional<unsigned> number_before(sv s, sv delims) {
    std::size_t n = 0;
    while (n < s.size() && n < 10 && is_digit(s[n])) ++n;
    if (n == 0 || n >= s.size() || delims.find(s[n]) == sv::npos) return std::nullopt;
    return number<unsigned>(s.substr(0, n));
}

/// "0000:3b:00.0" (domain:bus:device.function, hex) at the start of `s`, lower case; "" if not.
std::string pci_at(sv s) {
    if (s.size() < 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return {};
    for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11})
        if (!is_hex(s[i])) return {};
    if (s.size() > 12 && is_hex(s[12])) return {};
    std::string out(s.substr(0, 12));
    for (char& c : out) c = lower(c);
    return out;
}

// ---- stamps ----

/// "16:20:05" -> seconds of the day.
std::optional<int> time_of_day(sv s) {
    if (s.size() != 8 || s[2] != ':' || s[5] != ':') return std::nullopt;
    const auto h = number<int>(s.substr(0, 2)), m = number<int>(s.substr(3, 2)),
               sec = number<int>(s.substr(6, 2));
    if (!h || !m || !sec || *h > 23 || *m > 59 || *sec > 60) return std::nullopt;
    return *h * 3600 + *m * 60 + *sec;
}

struct Stamp {
    LogClock clock = LogClock::order;
    double t = 0;
    bool year_unknown = false;
    sv host;
};

/// "Jan 14 16:20:05" / "Wed Jan 14 16:20:05 2026" words (weekday and year optional) -> local
/// seconds; year 1970 when the words name none (the caller marks year_unknown).
/// ".123456" at the start of `s` (or ",123456", dmesg --time-format iso) -> 0.123456, and `s`
/// moved past it; 0 when there is none.
double fraction(sv& s) {
    if (s.empty() || (s[0] != '.' && s[0] != ',')) return 0;
    std::size_t i = 1;
    double frac = 0, scale = 0.1;
    for (; i < s.size() && is_digit(s[i]); ++i, scale /= 10) frac += (s[i] - '0') * scale;
    s.remove_prefix(i);
    return frac;
}

/// "16:20:05" or "16:20:05.123456" (journalctl -o short-precise) -> seconds of the day.
std::optional<double> time_of_day_frac(sv s) {
    if (s.size() < 8) return std::nullopt;
    const auto whole = time_of_day(s.substr(0, 8));
    sv rest = s.substr(8);
    const double frac = fraction(rest);
    if (!whole || !rest.empty()) return std::nullopt;
    return *whole + frac;
}

std::optional<double> month_day_time(sv mon, sv day, sv tod, std::optional<int> year) {
    const auto m = scan::month_number(mon);
    const auto d = number<unsigned>(day);
    const auto s = time_of_day_frac(tod);
    if (!m || !d || !s || *d < 1 || *d > 31) return std::nullopt;
    return static_cast<double>(scan::days_from_civil(year.value_or(1970), *m, *d)) * 86400.0 + *s;
}

/// ISO 8601 as journalctl -o short-iso / short-iso-precise and dmesg --time-format iso print
/// it: "2026-01-14T16:20:05+0100", "2026-01-14T16:20:05.123456+01:00",
/// "2026-01-14T16:20:05,123456+0100", "...Z", or without a zone (local).
std::optional<Stamp> iso_stamp(sv w) {
    if (w.size() < 19 || w[4] != '-' || w[7] != '-' || (w[10] != 'T' && w[10] != ' '))
        return std::nullopt;
    const auto y = number<int>(w.substr(0, 4));
    const auto m = number<unsigned>(w.substr(5, 2)), d = number<unsigned>(w.substr(8, 2));
    const auto s = time_of_day(w.substr(11, 8));
    if (!y || !m || !d || !s || *m < 1 || *m > 12 || *d < 1 || *d > 31 || *y < 1970)
        return std::nullopt;
    Stamp st;
    st.t = static_cast<double>(scan::days_from_civil(*y, *m, *d)) * 86400.0 + *s;
    sv rest = w.substr(19);
    st.t += fraction(rest);
    if (rest.empty()) {
        st.clock = LogClock::local;
        return st;
    }
    if (rest == "Z") {
        st.clock = LogClock::wall;
        return st;
    }
    if (rest[0] != '+' && rest[0] != '-') return std::nullopt;
    const sv z = rest.substr(1);
    std::optional<int> hh, mm;
    if (z.size() == 4) {
        hh = number<int>(z.substr(0, 2));
        mm = number<int>(z.substr(2, 2));
    } else if (z.size() == 5 && z[2] == ':') {
        hh = number<int>(z.substr(0, 2));
        mm = number<int>(z.substr(3, 2));
    } else if (z.size() == 2) {
        hh = number<int>(z);
        mm = 0;
    }
    if (!hh || !mm || *hh > 14 || *mm > 59) return std::nullopt;
    st.t -= (rest[0] == '-' ? -1 : 1) * (*hh * 3600 + *mm * 60);
    st.clock = LogClock::wall;
    return st;
}

/// The bracket at the start of `s`: "[ 1234.567890]" (boot) or "[Wed Jan 14 16:20:05 2026]"
/// (dmesg -T, local). Moves `s` past it; nullopt (s unchanged) for any other bracket.
std::optional<Stamp> bracket_stamp(sv& s) {
    if (s.empty() || s[0] != '[') return std::nullopt;
    const auto close = s.find(']');
    if (close == sv::npos || close > 40) return std::nullopt;
    const sv in = trim(s.substr(1, close - 1));
    Stamp st;
    if (!in.empty() && is_digit(in[0])) {
        const auto dot = in.find('.');
        if (dot == sv::npos || dot == 0) return std::nullopt;
        for (std::size_t i = 0; i < in.size(); ++i)
            if (i != dot && !is_digit(in[i])) return std::nullopt;
        double v = 0;
        const auto [end, ec] = std::from_chars(in.data(), in.data() + in.size(), v);
        if (ec != std::errc{} || end != in.data() + in.size()) return std::nullopt;
        st.clock = LogClock::boot;
        st.t = v;
    } else {
        sv words = in;
        const sv wd = word(words), mon = word(words), day = word(words), tod = word(words),
                 yr = word(words);
        if (!words.empty() || wd.size() != 3) return std::nullopt;
        const auto y = number<int>(yr);
        if (!y || *y < 1970 || yr.size() != 4) return std::nullopt;
        const auto t = month_day_time(mon, day, tod, y);
        if (!t) return std::nullopt;
        st.clock = LogClock::local;
        st.t = *t;
    }
    s = s.substr(close + 1);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    // CONFIG_PRINTK_CALLER adds "[  T291]" / "[    C3]" after the stamp.
    if (s.size() > 3 && s[0] == '[') {
        const auto c2 = s.find(']');
        const sv id = c2 == sv::npos ? sv{} : trim(s.substr(1, c2 - 1));
        if (id.size() >= 2 && (id[0] == 'T' || id[0] == 'C') && number<unsigned>(id.substr(1))) {
            s = s.substr(c2 + 1);
            while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        }
    }
    return st;
}

/// Strips what comes before a pasted kernel line: srun -l / kubectl "3: ", mpirun --tag-output
/// "[1,3]<stdout>:", dmesg -x "kern  :warn  : ", dmesg -r "<4>".
sv strip_launcher(sv s) {
    // dmesg -r: "<4>[ 1234.567890] ..." (the raw level, facility * 8 + level: "<12>" too)
    if (s.size() > 4 && s[0] == '<') {
        const auto close = s.find('>');
        if (close != sv::npos && close <= 4 && number<unsigned>(s.substr(1, close - 1)))
            return trim(s.substr(close + 1));
    }
    // dmesg -x: "kern  :warn  : [ 1234.567890] ..." (facility and level before the stamp)
    if (starts(s, "kern ") || starts(s, "kern:")) {
        const auto c1 = s.find(':');
        const auto c2 = s.find(": ", c1 + 1);
        if (c2 != sv::npos && c2 < 16) return trim(s.substr(c2 + 2));
    }
    std::size_t i = 0;
    while (i < s.size() && i < 6 && is_digit(s[i])) ++i;
    if (i > 0 && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') return trim(s.substr(i + 2));
    if (starts(s, "[") && s.size() > 4 && is_digit(s[1])) {
        const auto tag = s.find(">:");
        const auto close = s.find("]<");
        if (tag != sv::npos && close != sv::npos && close < tag && tag < 24)
            return trim(s.substr(tag + 2));
    }
    return s;
}

/// Reads the stamp (and a journal's host) off the start of `s`, leaving the message in `s`.
Stamp read_stamp(sv& s) {
    Stamp st;
    if (s.empty()) return st;
    if (auto b = bracket_stamp(s)) {  // dmesg, or journalctl -o short-monotonic ("host kernel:")
        sv after = s;
        const sv host = word(after);
        if (word(after) == "kernel:") {
            b->host = host;
            s = after;
        }
        return *b;
    }
    sv rest = s;
    const sv w0 = word(rest);
    bool journal = false;
    static constexpr std::array<sv, 7> kDays{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    const bool weekday = w0.size() == 3 && std::find(kDays.begin(), kDays.end(), w0) != kDays.end();
    if (is_digit(s[0])) {  // ISO: journalctl -o short-iso or dmesg --time-format iso
        auto iso = iso_stamp(w0);
        if (!iso) return st;
        st = *iso;
        s = rest;
        sv after = rest;
        const sv host = word(after);
        if (word(after) == "kernel:") {
            st.host = host;
            s = after;
            journal = true;
        }
    } else if (weekday) {  // journalctl -o short-full "Wed 2026-01-14 16:20:05 UTC gpu01 kernel: "
        const sv date = word(rest), tod = word(rest), zone = word(rest), host = word(rest),
                 tag = word(rest);
        if (tag != "kernel:") return st;
        const bool utc = zone == "UTC" || zone == "GMT";
        const bool numeric = !zone.empty() && (zone[0] == '+' || zone[0] == '-');
        auto iso = iso_stamp(std::string(date) + "T" + std::string(tod) +
                             (numeric ? std::string(zone) : std::string(utc ? "Z" : "")));
        if (!iso) return st;
        st = *iso;  // a named zone other than UTC: local time
        st.host = host;
        s = rest;
        journal = true;
    } else if (scan::month_number(
                   w0)) {  // journalctl short / syslog "Jan 14 16:20:05 gpu01 kernel: "
        const sv day = word(rest), tod = word(rest), host = word(rest), tag = word(rest);
        const auto t = month_day_time(w0, day, tod, std::nullopt);
        if (!t || tag != "kernel:") return st;
        st.clock = LogClock::local;
        st.t = *t;
        st.year_unknown = true;
        st.host = host;
        s = rest;
        journal = true;
    }
    // kern.log keeps the printk time after the syslog prefix: "kernel: [11314.654843] ixgbe ...";
    // the outer (wall-clock) stamp is the one kept.
    if (journal) bracket_stamp(s);
    return st;
}

// ---- messages ----

/// RDMA device names by their drivers' prefixes (mlx5_0, irdma0, bnxt_re0, rocep59s0f0, ...):
/// a dev_printk line's third word is one of these (ibdev_printk) or a netdev (netdev_printk).
bool is_rdma_name(sv w) {
    for (sv p : {"mlx5_", "mlx4_", "irdma", "bnxt_re", "rocep", "roceo", "efa_", "erdma_", "qedr",
                 "hns_", "rxe", "siw"})
        if (starts(w, p) && w.size() > p.size()) return true;
    return false;
}

void set_dev_name(LogEvent& e, sv name) {
    if (name.empty()) return;
    if (is_rdma_name(name)) {
        e.device = std::string(name);
    } else {
        e.netdev = std::string(name);
        if (e.device.empty()) e.device = e.netdev;  // log_event.h: netdev for kernel lines
    }
}

/// The severity word of an AER line: "Corrected"/"Correctable" (corrected),
/// "Uncorrected (Non-Fatal)"/"Uncorrectable (Fatal)" etc. (uncorrected); "" otherwise.
const char* aer_kind(sv severity) {
    if (starts(severity, "Corrected") || starts(severity, "Correctable")) return "aer_corrected";
    if (starts(severity, "Uncorrect")) return "aer_uncorrected";
    return "";
}

/// "AER: [Multiple ]Corrected error received: 0000:3b:00.0" (before 6.8: also "id=3b00"),
/// "AER: [Multiple ]Correctable error message received from 0000:3b:00.0" (6.8+), the same
/// with "Uncorrected (Non-Fatal)"/"Uncorrectable (Fatal)": pci = the function named.
bool aer_received(sv text, LogEvent& e) {
    if (starts(text, "Multiple ")) text.remove_prefix(9);
    const char* kind = aer_kind(text);
    const auto rec = text.find(" error ");
    if (!*kind || rec == sv::npos) return false;
    sv tail = text.substr(rec + 7);
    if (starts(tail, "message received from "))
        tail.remove_prefix(22);
    else if (starts(tail, "received: "))
        tail.remove_prefix(10);
    else if (tail != "received" && tail != "message received")
        return false;
    e.kind = kind;
    e.status_text = std::string(text.substr(0, rec));
    e.pci = pci_at(tail);  // "id=00e8" (older kernels) names no function: left empty
    return true;
}

/// "PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" printed by the
/// function itself: pci = the printing function.
bool aer_bus_error(sv text, LogEvent& e) {
    if (!starts(text, "PCIe Bus Error: severity=")) return false;
    sv sev = text.substr(25);
    const char* kind = aer_kind(sev);
    if (!*kind) return false;
    e.kind = kind;
    const auto comma = sev.find(", type=");
    if (comma != sv::npos) {
        sv type = sev.substr(comma + 7);
        type = type.substr(0, type.find(','));
        e.status_text =
            "severity=" + std::string(sev.substr(0, comma)) + ", type=" + std::string(type);
    } else {
        e.status_text = "severity=" + std::string(sev.substr(0, sev.find(',')));
    }
    return true;
}

/// "NIC Link is Down" / "NIC Link is Up, 100000 Mbps full duplex, ..." (bnxt_en) / "NIC Link is
/// up 100 Gbps Full Duplex, ..." (ice) / "NIC Link is Up 10 Gbps, ..." (ixgbe): value = Gb/s
/// when the speed and its unit are both there.
bool nic_link(sv text, LogEvent& e) {
    if (!starts(text, "NIC Link is ")) return false;
    sv state = text.substr(12);
    if (starts_nocase(state, "down")) {
        e.kind = "link_down";
        return true;
    }
    if (!starts_nocase(state, "up")) return false;
    e.kind = "link_up";
    sv rest = state.substr(2);
    if (starts(rest, ",")) rest.remove_prefix(1);
    rest = trim(rest);
    std::size_t n = 0;
    while (n < rest.size() && is_digit(rest[n])) ++n;
    if (n > 0 && n < rest.size() && rest[n] == ' ') {
        const auto v = number<unsigned>(rest.substr(0, n));
        const sv unit = rest.substr(n + 1, 5);
        if (v && (starts(unit, "Mbps ") || starts(unit, "Mbps,") || unit == "Mbps"))
            e.value = *v / 1000.0;
        else if (v && (starts(unit, "Gbps ") || starts(unit, "Gbps,") || unit == "Gbps"))
            e.value = static_cast<double>(*v);
    }
    return true;
}

/// mlx5 firmware command timeouts (cmd.c wait_func): "wait_func:1136:(pid 1234):
/// ACCESS_REG(0x805) timeout. Will cause a leak of a command resource" and "... No done
/// completion"; status_text = the command and what happened, pid = the caller.
bool command_timeout(sv text, LogEvent& e) {
    auto at = text.find(" timeout. Will cause a leak of a command resource");
    sv what = "timeout";
    if (at == sv::npos) {
        at = text.find(" No done completion");
        what = "No done completion";
    }
    if (at == sv::npos) return false;
    e.kind = "command_timeout";
    sv head = text.substr(0, at);
    if (const auto p = head.find("(pid "); p != sv::npos)
        if (const auto pid = number_before(head.substr(p + 5), ")")) e.pid = *pid;
    if (const auto c = head.rfind(": "); c != sv::npos) head = head.substr(c + 2);
    if (const auto sp = head.rfind(' '); sp != sv::npos) head = head.substr(sp + 1);
    e.status_text = std::string(head) + (head.empty() ? "" : " ") + std::string(what);
    return true;
}

/// mlx5_core_warn/err/info's "func:line:(pid N): " before the text (mlx5_core.h), or "".
sv mlx5_func_prefix(sv text) {
    const auto c1 = text.find(':');
    if (c1 == sv::npos || c1 == 0 || c1 > 64) return {};
    const auto end = text.find("): ", c1);
    if (end == sv::npos || end > c1 + 24) return {};
    const sv mid = text.substr(c1 + 1, end - c1 - 1);  // "165:(pid 0"
    const auto c2 = mid.find(":(pid ");
    if (c2 == sv::npos || !number<unsigned>(mid.substr(0, c2)) ||
        !number<unsigned>(mid.substr(c2 + 6)))
        return {};
    return text.substr(0, end + 3);
}

/// mlx5_core's own messages (events.c, health.c, main.c, en_main.c).
bool mlx5_message(sv text, LogEvent& e) {
    if (command_timeout(text, e)) return true;
    text.remove_prefix(mlx5_func_prefix(text).size());
    if (text == "Link up" || text == "Link down") {  // mlx5e_update_carrier (netdev_info)
        e.kind = text == "Link up" ? "link_up" : "link_down";
        return true;
    }
    if (starts(text, "Port module event")) {  // events.c port_module
        sv rest = text.substr(17);
        const bool error = starts(rest, "[error]");
        const auto mod = rest.find("module ");
        if (mod == sv::npos) return false;
        sv after = rest.substr(mod + 7);
        if (!number_before(after, ",")) return false;
        after = after.substr(after.find(',') + 1);
        after = trim(after);
        if (!error && after == "Cable plugged") {
            e.kind = "module_plugged";
        } else if (!error && after == "Cable unplugged") {
            e.kind = "module_unplugged";
        } else if (error) {
            // "Cable error, High Temperature" is the module's temperature alarm.
            e.kind = has(after, "High Temperature") ? "temperature" : "driver_message";
            e.status_text = std::string(after);
        } else {
            return false;
        }
        return true;
    }
    if (starts(text, "Detected insufficient power on the PCIe slot")) {
        e.kind = "insufficient_power";
        if (const auto open = text.find('('); open != sv::npos)
            if (const auto w = number_before(text.substr(open + 1), "W")) e.value = *w;
        return true;
    }
    if (starts(text, "High temperature on sensors")) {  // events.c temp_warn: a bit mask
        e.kind = "temperature";
        e.status_text = std::string(text);
        return true;
    }
    return false;
}

/// Firmware health, fatal errors and PCI error recovery of any RDMA NIC driver:
/// driver_message with status_text naming which ("health compromised", "firmware fatal",
/// "PCI error recovery").
bool health_message(sv text, LogEvent& e) {
    static constexpr std::array<std::pair<sv, sv>, 9> kPhrases{{
        {"health compromised", "health compromised"},     // mlx5 health.c poll_health
        {"Health issue observed", "health compromised"},  // mlx5 health.c print_health_info
        {"firmware fatal", "firmware fatal"},
        {"fw fatal", "firmware fatal"},
        {"Fatal error", "firmware fatal"},
        {"fatal error", "firmware fatal"},
        {"PCI error recovery", "PCI error recovery"},
        {"pci_err_detected", "PCI error recovery"},  // mlx5 main.c mlx5_pci_err_detected
        {"health recovery", "health recovery"},
    }};
    for (const auto& [needle, what] : kPhrases)
        if (has(text, needle)) {
            e.kind = "driver_message";
            e.status_text = std::string(what);
            return true;
        }
    return false;
}

/// irdma's and RDMA core's complaints about an irdma device: the words of an error.
bool irdma_message(sv text, LogEvent& e) {
    for (sv w : {"error", "Error", "fail", "Fail", "reset", "Reset", "timeout", "fatal"})
        if (has(text, w)) {
            e.kind = "driver_message";
            e.status_text = std::string(text.substr(0, 120));
            return true;
        }
    return false;
}

/// The RDMA port's state as the RDMA core prints it on a change (ibdev_info): "Port: 1 Link
/// ACTIVE" -> link_up, "Port: 1 Link DOWN" -> link_down, with the port (INIT/ARMED: none).
bool port_link(sv text, LogEvent& e) {
    if (!starts(text, "Port: ")) return false;
    sv rest = text.substr(6);
    const auto port = number_before(rest, " ");
    if (!port) return false;
    rest = rest.substr(rest.find(' ') + 1);
    if (rest != "Link ACTIVE" && rest != "Link DOWN") return false;
    e.port = *port;
    e.kind = rest == "Link ACTIVE" ? "link_up" : "link_down";
    return true;
}

/// "<driver> <pci function>[ <netdev|ibdev>]: <text>" (dev_printk, netdev_printk, ibdev_printk).
bool device_message(sv driver, sv rest, LogEvent& e) {
    sv w1 = word(rest);
    if (w1.size() < 12) return false;
    const std::string pci = pci_at(w1);
    if (pci.empty()) return false;
    sv name;
    if (w1.back() != ':') {                 // "mlx5_core 0000:3b:00.0 ens1f0np0: Link down"
        if (w1.size() != 12) return false;  // "aer 0000:00:03.0:pcie02:" ends with ':'
        name = word(rest);
        if (name.size() < 2 || name.back() != ':') return false;
        name.remove_suffix(1);
    }
    const sv text = rest;
    if (text.empty()) return false;
    e.pci = pci;
    set_dev_name(e, name);
    if (starts(text, "AER: ")) {
        const sv t = text.substr(5);
        if (aer_received(t, e) || aer_bus_error(t, e)) return true;
        e.pci.clear();
        return false;
    }
    if (aer_bus_error(text, e)) return true;
    if (nic_link(text, e)) return true;
    if (port_link(text, e)) return true;
    const bool mlx5 = driver == "mlx5_core";
    if (mlx5 && mlx5_message(text, e)) return true;
    const bool rdma_nic = mlx5 || driver == "bnxt_en" || driver == "ice" || driver == "irdma" ||
                          driver == "bnxt_re" || is_rdma_name(name);
    if (rdma_nic && health_message(text, e)) return true;
    if ((driver == "irdma" || starts(name, "irdma")) && irdma_message(text, e)) return true;
    return false;
}

/// "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus."
/// (value = the Xid), and "NVRM: GPU at PCI:0000:3b:00: ... fallen off the bus".
bool nvrm(sv text, LogEvent& e) {
    if (starts(text, "Xid (PCI:")) {
        sv rest = text.substr(9);
        const auto close = rest.find("): ");
        if (close == sv::npos) return false;
        const sv bus = rest.substr(0, close);  // "0000:3b:00": the GPU is function 0
        if (bus.size() == 10) e.pci = pci_at(std::string(bus) + ".0");
        rest = rest.substr(close + 3);
        e.kind = "gpu_error";
        if (const auto xid = number_before(rest, ",")) {
            e.value = *xid;
            rest = trim(rest.substr(rest.find(',') + 1));
            if (starts(rest, "pid=")) {
                if (const auto pid = number_before(rest.substr(4), ",")) e.pid = *pid;
                rest = trim(rest.substr(rest.find(',') + 1));  // number_before saw the ','
            }
            if (starts(rest, "name=")) {
                const auto c = rest.find(", ");
                rest = c == sv::npos ? sv{} : rest.substr(c + 2);
            }
            e.status_text =
                "Xid " + std::to_string(*xid) + (rest.empty() ? "" : ": ") + std::string(rest);
        }
        return true;
    }
    if (has(text, "fallen off the bus")) {
        e.kind = "gpu_error";
        e.status_text = "GPU has fallen off the bus";
        if (const auto at = text.find("0000:"); at != sv::npos) {
            e.pci = pci_at(text.substr(at));
            if (e.pci.empty() && text.size() >= at + 10)
                e.pci = pci_at(std::string(text.substr(at, 10)) + ".0");
        }
        return true;
    }
    return false;
}

/// "Killed process 4242 (python) total-vm:..." after "Out of memory: " or "Memory cgroup out of
/// memory: " (or alone, older kernels).
bool killed_process(sv text, LogEvent& e) {
    if (!starts(text, "Killed process ")) return false;
    sv rest = text.substr(15);
    const auto pid = number_before(rest, " ");
    if (!pid) return false;
    e.kind = "process_killed";
    e.pid = *pid;
    rest = rest.substr(rest.find(' ') + 1);
    std::string comm;
    if (starts(rest, "(")) {
        const auto close = rest.find(')');
        if (close != sv::npos) comm = std::string(rest.substr(1, close - 1));
    }
    e.status_text = comm.empty() ? "out of memory" : "out of memory: " + comm;
    return true;
}

/// "oom-kill:constraint=CONSTRAINT_NONE,...,task=python,pid=4242,uid=0" (Linux >= 4.19).
bool oom_kill(sv text, LogEvent& e) {
    if (!starts(text, "oom-kill:")) return false;
    e.kind = "process_killed";
    const auto p = text.find(",pid=");
    if (p != sv::npos)
        if (const auto pid = number_before(text.substr(p + 5), ",")) e.pid = *pid;
    std::string comm;
    if (const auto t = text.find(",task="); t != sv::npos) {
        sv c = text.substr(t + 6);
        const auto end = c.find(',');
        if (end != sv::npos) comm = std::string(c.substr(0, end));
    }
    e.status_text = comm.empty() ? "out of memory" : "out of memory: " + comm;
    return true;
}

/// "python[4242]: segfault at 0 ip ..." and "traps: python[4242] general protection fault ...".
bool crash(sv w0, sv rest, LogEvent& e) {
    sv who;
    sv what;
    if (w0 == "traps:") {
        sv r = rest;
        who = word(r);
        if (!starts(r, "general protection fault") && !starts(r, "trap ")) return false;
        what = "general protection fault";
    } else {
        if (w0.size() < 5 || w0.substr(w0.size() - 2) != "]:" || !starts(rest, "segfault at"))
            return false;
        who = w0.substr(0, w0.size() - 1);
        what = "segfault";
    }
    const auto open = who.rfind('[');
    if (open == sv::npos || open == 0 || who.back() != ']') return false;
    const auto pid = number_before(who.substr(open + 1), "]");
    if (!pid) return false;
    e.kind = "process_killed";
    e.pid = *pid;
    e.status_text = std::string(what) + ": " + std::string(who.substr(0, open));
    return true;
}

/// The message after the stamp -> `e` (kind and what the line names); false if not ours.
bool read_message(sv msg, LogEvent& e) {
    sv rest = msg;
    const sv w0 = word(rest);
    if (w0.empty()) return false;
    if (starts(w0, "oom-kill:")) return oom_kill(msg, e);  // one word, no spaces
    if (rest.empty()) return false;
    switch (w0[0]) {  // a first byte decides which few forms can apply
        case 'N':
            if (w0 == "NVRM:") return nvrm(rest, e);
            break;
        case 'O':
            if (w0 == "Out" && starts(rest, "of memory: "))
                return killed_process(rest.substr(11), e);
            break;
        case 'M':
            if (w0 == "Memory" && starts(rest, "cgroup out of memory: "))
                return killed_process(rest.substr(22), e);
            break;
        case 'K':
            if (w0 == "Killed") return killed_process(msg, e);
            break;
        case 'i':
            if (w0 == "infiniband") {  // ibdev_printk without a parent: "infiniband mlx5_0: ..."
                sv r = rest;
                sv name = word(r);
                if (name.size() < 2 || name.back() != ':' || r.empty()) return false;
                name.remove_suffix(1);
                e.device = std::string(name);
                if (port_link(r, e)) return true;
                if (health_message(r, e)) return true;
                if (starts(name, "irdma") && irdma_message(r, e)) return true;
                e.device.clear();
                return false;
            }
            break;
        default:
            break;
    }
    if (w0.back() == ':') return crash(w0, rest, e);
    return device_message(w0, rest, e);
}

/// The shape test before any LogEvent is made: the message opens with one of the fixed words, or
/// its second word is a PCI function ("<driver> 0000:3b:00.0[:] ..."). Most lines of a job's log
/// (an NCCL INFO line) fail it on their first two words.
bool plausible(sv msg) {
    sv rest = msg;
    const sv w0 = word(rest);
    if (w0.empty()) return false;
    if (w0.back() == ':' || starts(w0, "oom-kill:") || w0 == "Out" || w0 == "Memory" ||
        w0 == "Killed" || w0 == "infiniband")
        return true;
    const sv w1 = word(rest);
    return w1.size() >= 12 && w1[4] == ':' && w1[7] == ':' && w1[10] == '.';
}

/// pdsh / clush / ansible put the host before each line: "gpu12: [ 1234.5] ..." or
/// "gpu12 | [Wed Jan 14 ...] ...". The host name, and `s` past it, when `s` starts so.
sv strip_host_prefix(sv& s) {
    std::size_t i = 0;
    if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return {};
    while (i < s.size() && i < 64 &&
           (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '-' ||
            s[i] == '_'))
        ++i;
    const sv host = s.substr(0, i);
    sv rest = s.substr(i);
    if (starts(rest, ": "))
        rest.remove_prefix(2);
    else if (starts(rest, " | "))
        rest.remove_prefix(3);
    else
        return {};
    rest = trim(rest);
    if (!starts(rest, "[")) return {};  // only before a dmesg stamp: "kernel:" is syslog's
    s = rest;
    return host;
}

/// The stamp and message of a line, without allocating; false when the line cannot be one.
bool locate(sv line, Stamp& st, sv& msg) {
    msg = strip_launcher(trim(line));
    const sv prefixed_host = strip_host_prefix(msg);
    if (msg.size() < 8) return false;
    st = read_stamp(msg);
    if (st.host.empty()) st.host = prefixed_host;
    return plausible(msg);
}

bool parse_line(sv line, LogEvent& e) {
    Stamp st;
    sv s;
    if (!locate(line, st, s) || !read_message(s, e)) return false;
    e.clock = st.clock;
    e.time_s = st.t;
    e.year_unknown = st.year_unknown;
    e.host = std::string(st.host);
    return true;
}

}  // namespace

bool is_kernel_line(std::string_view line) {
    Stamp st;
    sv msg;
    if (!locate(line, st, msg)) return false;
    LogEvent e;
    return read_message(msg, e);
}

void read_kernel(const LogText& text, LogRead& out) {
    for (std::size_t i = 0; i < text.lines.size(); ++i) {
        Stamp st;
        sv msg;
        if (!locate(text.lines[i], st, msg)) continue;  // most lines end here, nothing allocated
        LogEvent e;
        if (!parse_line(text.lines[i], e)) continue;
        e.reader = "kernel";
        e.file = text.dir + "/" + text.file;
        e.line = static_cast<unsigned>(i + 1);
        e.source = e.file + ":" + std::to_string(e.line);
        const sv t = trim(text.lines[i]);
        e.text = std::string(t.substr(0, 400));
        out.events.push_back(std::move(e));
    }
}

}  // namespace rh::joblog
