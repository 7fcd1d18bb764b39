// The NCCL/RCCL log reader (NCCL_DEBUG=WARN or INFO): completion errors, async events, verbs
// call failures (misc/ibvwrap.cc), the devices NET/IB uses and the settings NCCL prints.
//
// Line shape: "[prefix] host:pid:tid [cudaDev] file:line NCCL WARN <message>" (INFO lines have no
// file:line before "NCCL"). The bracket is the local GPU index, never a rank or an identity.
// NCCL >= 2.26 starts WARN lines with a local "[YYYY-MM-DD HH:MM:SS]" (no zone). A launcher may
// add its own prefix before the host: srun -l "3: ", mpirun "[1,3]<stdout>:" (glued to the
// host), mpirun --timestamp-output or kubectl --timestamps "2024-05-01T10:00:00.123Z " (a wall
// clock with zone, preferred over NCCL's local one), journalctl "Jan 14 16:20:05 gpu01 python[7]: "
// (local, year unknown).
//
// Cost: one find of "NCCL " per line, then a look at the first characters of the message; only
// WARN lines and the few INFO lines read here ("NET/IB : Using", "NCCL_X set by environment",
// "HINT:") are parsed further. No regex, no allocation for a line that gives no event.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/joblog/job_logs.h"
#include "collectors/joblog/line_scan.h"
#include "core/wc_status.h"

namespace rh::joblog {

// Named, not anonymous: the readers compile as one unity file.
namespace nccl_detail {

using sv = std::string_view;
constexpr std::size_t npos = sv::npos;
constexpr std::size_t kTextMax = 400;  // LogEvent::text, LogEvent::hint

enum class Form { none, warn, using_device, setting, hint };

// What classify() found: the form and where the message (after "WARN "/"INFO ") and the
// "NCCL" marker start.
struct Found {
    Form form = Form::none;
    std::size_t marker = 0;
    sv msg;
};

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

sv trim(sv s) {
    while (!s.empty() && (is_space(s.front()) || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (is_space(s.back()) || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool contains(sv s, sv what) {
    return s.find(what) != npos;
}

// The settings NCCL prints that matter for the fabric (names it reads as NCCL_IB_*, the socket
// interface and the GPUDirect/cross-NIC switches that decide which NIC a rank uses).
bool is_fabric_setting(sv name) {
    if (name.starts_with("NCCL_IB_")) return name.size() > 8;
    return name == "NCCL_SOCKET_IFNAME" || name == "NCCL_SOCKET_FAMILY" ||
           name == "NCCL_CROSS_NIC" || name == "NCCL_NET_GDR_LEVEL";
}

// The name of a setting line ("NCCL_IB_TC set by environment to 106", "NCCL_IB_TC=106"), or "".
sv setting_name(sv msg) {
    std::size_t end = 0;
    while (end < msg.size() && !is_space(msg[end]) && msg[end] != '=') ++end;
    return msg.substr(0, end);
}

// WARN messages this reader turns into events.
bool is_read_warn(sv msg) {
    return contains(msg, "Got completion") || contains(msg, "async event") ||
           contains(msg, "async fatal event") || contains(msg, "async error event") ||
           contains(msg, "GID table changed") ||
           (contains(msg, "NET/IB") && contains(msg, "unknown event type")) ||
           (contains(msg, "ibv_") && contains(msg, " failed"));
}

Found classify(sv line) {
    Found f;
    std::size_t at = 0;
    for (int tries = 0; tries < 4; ++tries) {
        const std::size_t p = line.find("NCCL ", at);
        if (p == npos && tries == 0) {
            // A message pasted without its head ("NET/IB : Got completion from peer ..."):
            // read with no host, as a WARN.
            if (const std::size_t n = line.find("NET/IB");
                n != npos && is_read_warn(line.substr(n))) {
                f.marker = n;
                f.msg = line.substr(n);
                f.form = Form::warn;
            }
            return f;
        }
        if (p == npos) return f;
        at = p + 5;
        std::size_t q = at;
        while (q < line.size() && is_space(line[q])) ++q;
        const sv rest = line.substr(q);
        const bool warn = rest.starts_with("WARN");
        if (!warn && !rest.starts_with("INFO")) continue;
        if (rest.size() > 4 && !is_space(rest[4])) continue;
        sv msg = rest.substr(rest.size() > 4 ? 5 : 4);
        while (!msg.empty() && is_space(msg.front())) msg.remove_prefix(1);
        f.marker = p;
        f.msg = msg;
        if (warn) {
            if (is_read_warn(msg)) f.form = Form::warn;
            return f;
        }
        // INFO: the bulk of a log. Only three message starts are read.
        if (msg.empty()) return f;
        if (msg.front() == 'N') {
            if (msg.starts_with("NET/IB") && contains(msg.substr(0, 24), "Using [")) {
                f.form = Form::using_device;
            } else if (msg.starts_with("NCCL_") && is_fabric_setting(setting_name(msg))) {
                const sv after = msg.substr(setting_name(msg).size());
                if (after.starts_with("=") || after.starts_with(" set by environment to ") ||
                    after.starts_with(" set to ")) {
                    f.form = Form::setting;
                }
            }
        } else if (msg.front() == 'H' && msg.starts_with("HINT:")) {
            f.form = Form::hint;
        }
        return f;
    }
    return f;
}

// A whole unsigned number at the start of `s`, and the rest after it; nullopt when `s` does not
// start with a digit or the number overflows.
template <typename T>
std::optional<T> number_at(sv s, sv* rest = nullptr) {
    T v{};
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr == s.data()) return std::nullopt;
    if (rest) *rest = s.substr(static_cast<std::size_t>(r.ptr - s.data()));
    return v;
}

// A number after `key` that is followed by one of `ends` (a number at the line's end counts as
// whole only when `eol_ok`: a cut line must not give "status=1" for "status=12").
template <typename T>
std::optional<T> number_after(sv m, sv key, sv ends, bool eol_ok) {
    const std::size_t p = m.find(key);
    if (p == npos) return std::nullopt;
    sv rest;
    const auto v = number_at<T>(m.substr(p + key.size()), &rest);
    if (!v) return std::nullopt;
    if (rest.empty() ? !eol_ok : ends.find(rest.front()) == npos) return std::nullopt;
    return v;
}

// The token after `key` (up to a space, or one of `stops`); "" when absent, or when it runs to
// the line's end and !eol_ok.
sv token_after(sv m, sv key, bool eol_ok, sv stops = " ") {
    const std::size_t p = m.find(key);
    if (p == npos) return {};
    sv t = m.substr(p + key.size());
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    const std::size_t e = t.find_first_of(stops);
    if (e == npos) return eol_ok ? t : sv{};
    return t.substr(0, e);
}

// An IP as NCCL prints a socket address, without an IPv6 scope ("fe80::1%ib0" -> "fe80::1"):
// digits and dots, or hex digits and colons. A host name ("node48") is not an IP: "".
sv ip_of(sv s) {
    if (const std::size_t pc = s.find('%'); pc != npos) s = s.substr(0, pc);
    if (s.empty()) return {};
    bool v4 = true, v6 = true, colon = false;
    for (char c : s) {
        const bool dig = c >= '0' && c <= '9';
        const bool hex = dig || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        v4 = v4 && (dig || c == '.');
        v6 = v6 && (hex || c == ':' || c == '.');
        colon = colon || c == ':';
    }
    if (v4 && std::count(s.begin(), s.end(), '.') == 3) return s;
    if (v6 && colon) return s;
    return {};
}

// "mlx5_0:1" -> device "mlx5_0", port 1; false unless the port is all digits.
bool device_port(sv tok, std::string& device, unsigned& port) {
    const std::size_t c = tok.rfind(':');
    if (c == npos || c == 0 || c + 1 >= tok.size()) return false;
    sv rest;
    const auto p = number_at<unsigned>(tok.substr(c + 1), &rest);
    if (!p || !rest.empty()) return false;
    device = std::string(tok.substr(0, c));
    port = *p;
    return true;
}

// --- time stamps in the prefix -----------------------------------------------------------

struct Stamp {
    double time_s = 0;
    LogClock clock = LogClock::order;
    bool year_unknown = false;
};

bool digits(sv s, std::size_t at, std::size_t n, int& v) {
    if (at + n > s.size()) return false;
    v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    return true;
}

// "YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|+hh:mm]" at `i`: wall with a zone, local without.
std::optional<Stamp> stamp_at(sv s, std::size_t i) {
    int y, mo, d, h, mi, se;
    if (!digits(s, i, 4, y) || s.size() < i + 19 || s[i + 4] != '-' || !digits(s, i + 5, 2, mo) ||
        s[i + 7] != '-' || !digits(s, i + 8, 2, d) || (s[i + 10] != 'T' && s[i + 10] != ' ') ||
        !digits(s, i + 11, 2, h) || s[i + 13] != ':' || !digits(s, i + 14, 2, mi) ||
        s[i + 16] != ':' || !digits(s, i + 17, 2, se))
        return std::nullopt;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
    Stamp st;
    st.time_s = static_cast<double>(
        scan::days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
        h * 3600 + mi * 60 + se);
    std::size_t k = i + 19;
    if (k < s.size() && (s[k] == '.' || s[k] == ',')) {
        double scale = 0.1;
        for (++k; k < s.size() && s[k] >= '0' && s[k] <= '9'; ++k, scale /= 10)
            st.time_s += (s[k] - '0') * scale;
    }
    st.clock = LogClock::local;
    if (k < s.size() && s[k] == 'Z') {
        st.clock = LogClock::wall;
    } else {
        // "+08:00", "+0800", also after one space ("15:39:31.043 +08:00", log shippers).
        if (k + 1 < s.size() && s[k] == ' ' && (s[k + 1] == '+' || s[k + 1] == '-')) ++k;
        if (k >= s.size() || (s[k] != '+' && s[k] != '-')) return st;
        int oh, om;
        const bool colon = k + 3 < s.size() && s[k + 3] == ':';
        if (digits(s, k + 1, 2, oh) && digits(s, k + (colon ? 4 : 3), 2, om)) {
            const double off = oh * 3600.0 + om * 60.0;
            st.time_s += s[k] == '+' ? -off : off;
            st.clock = LogClock::wall;
        }
    }
    return st;
}

// journalctl/syslog "Jan 14 16:20:05" at the start of the prefix: local, year unknown (counted
// from 1970, LogEvent::year_unknown).
std::optional<Stamp> syslog_stamp(sv s) {
    if (s.size() < 15 || s[3] != ' ') return std::nullopt;
    const auto m = scan::month_number(s.substr(0, 3));
    if (!m) return std::nullopt;
    std::size_t k = 4;
    if (s[k] == ' ') ++k;  // "Jan  4"
    int d = 0, h, mi, se;
    while (k < s.size() && s[k] >= '0' && s[k] <= '9' && d < 100) d = d * 10 + (s[k++] - '0');
    if (d < 1 || d > 31 || k >= s.size() || s[k] != ' ' || !digits(s, k + 1, 2, h) ||
        k + 9 > s.size() || s[k + 3] != ':' || !digits(s, k + 4, 2, mi) || s[k + 6] != ':' ||
        !digits(s, k + 7, 2, se) || h > 23 || mi > 59 || se > 60)
        return std::nullopt;
    Stamp st;
    st.time_s =
        static_cast<double>(scan::days_from_civil(1970, *m, static_cast<unsigned>(d)) * 86400 +
                            h * 3600 + mi * 60 + se);
    st.clock = LogClock::local;
    st.year_unknown = true;
    return st;
}

// The stamp in a line's prefix: the first with a zone, else the first local one, else a
// journalctl one.
std::optional<Stamp> prefix_stamp(sv prefix) {
    std::optional<Stamp> local;
    for (std::size_t i = 0; i + 19 <= prefix.size(); ++i) {
        if (prefix[i] < '0' || prefix[i] > '9' || prefix[i + 4] != '-') continue;
        if (i > 0 && prefix[i - 1] >= '0' && prefix[i - 1] <= '9') continue;
        const auto st = stamp_at(prefix, i);
        if (!st) continue;
        if (st->clock == LogClock::wall) return st;
        if (!local) local = st;
        i += 18;
    }
    if (!local) local = syslog_stamp(trim(prefix));
    return local;
}

// --- the line head ------------------------------------------------------------------------

struct Head {
    sv proc;  // "host:pid:tid" as printed (the HINT lines' key), "" if not found
    sv host;
    std::optional<unsigned> pid;
    std::optional<Stamp> stamp;
};

// Reads "host:pid:tid [cudaDev]" before the NCCL marker, and a stamp before the host.
Head read_head(sv head) {
    Head h;
    std::size_t b = head.size();
    std::size_t br = npos;
    while (b > 0) {
        const std::size_t p = head.rfind('[', b - 1);
        if (p == npos) break;
        const std::size_t q = head.find(']', p);
        if (q != npos && q > p + 1) {
            sv inner = head.substr(p + 1, q - p - 1);
            if (inner.find_first_not_of("0123456789") == npos) {
                br = p;
                break;
            }
        }
        if (p == 0) break;
        b = p;
    }
    std::size_t tok_start = 0;
    if (br != npos) {
        std::size_t e = br;
        while (e > 0 && is_space(head[e - 1])) --e;
        const std::size_t s = head.substr(0, e).find_last_of(" \t");
        tok_start = s == npos ? 0 : s + 1;
        sv tok = head.substr(tok_start, e - tok_start);
        std::size_t c3 = tok.rfind(':');
        std::size_t c2 = c3 == npos || c3 == 0 ? npos : tok.rfind(':', c3 - 1);
        // A paste with the ids redacted ("host-01:XXXXXX"): host and one more field.
        if (c2 == npos && c3 != npos && c3 > 0 && tok.find_first_of("<>[]") == npos) {
            c2 = c3;
            c3 = tok.size();
        }
        if (c2 != npos && c2 > 0) {
            const std::size_t c1 = tok.rfind(':', c2 - 1);
            const std::size_t hs = c1 == npos ? 0 : c1 + 1;
            // mpirun's "[1,3]<stdout>:" is glued to the host; the host starts after it.
            h.host = tok.substr(hs, c2 - hs);
            h.proc = tok.substr(hs);
            sv rest;
            const auto pid = number_at<unsigned>(tok.substr(c2 + 1, c3 - c2 - 1), &rest);
            if (pid && rest.empty()) h.pid = pid;
            tok_start += hs;
        }
    }
    h.stamp = prefix_stamp(head.substr(0, tok_start));
    return h;
}

// The message with runs of blanks made one space (lines pasted with extra spaces).
std::string squeeze(sv s) {
    std::string out;
    out.reserve(s.size());
    for (char c : trim(s)) {
        if (is_space(c)) {
            if (!out.empty() && out.back() == ' ') continue;
            c = ' ';
        }
        out.push_back(c);
    }
    return out;
}

// --- the forms ----------------------------------------------------------------------------

// A status or opcode in any of its forms: "<old_key>N," (<= 2.19), "<eq_key>N " (2.20-2.28) or
// "<eq_key>NAME(N)" (2.29+: the number in brackets is taken, the name is rdma-core's).
std::optional<int> numbered(sv c, sv old_key, sv eq_key) {
    if (auto n = number_after<int>(c, old_key, ",", false)) return n;
    const std::size_t p = c.find(eq_key);
    if (p == npos) return std::nullopt;
    const sv v = c.substr(p + eq_key.size());
    sv rest;
    if (auto n = number_at<int>(v, &rest)) {
        return !rest.empty() && rest.front() == ' ' ? n : std::nullopt;
    }
    const std::size_t lp = v.find('(');
    if (lp == npos || v.substr(0, lp).find(' ') != npos) return std::nullopt;
    auto n = number_at<int>(v.substr(lp + 1), &rest);
    return n && rest.starts_with(")") ? n : std::nullopt;
}

// Completion errors, all versions; see the tests for one line per form and its thread.
//   <=2.10   "Got completion with error 12, opcode 0, len 0, vendor err 129"
//   2.11-19  "Got completion from peer IP<port> with error 12, opcode 0, len 0, vendor err 129"
//   2.20-21  "Got completion from peer IP<port> with status=12 opcode=0 len=0 vendor err 129
//             (Send) localGid G remoteGids G"          (2.22-2.28 add " hca mlx5_0")
//   2.29+    "... with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129
//             localGid G remoteGids G hca mlx5_0"
// peer_gid and local_gid are kept as NCCL prints them (inet_ntop: "::ffff:10.0.0.2" for a RoCE v2
// IPv4 GID, not stripped, so they compare with show_gids/sysfs GIDs in the same form).
void read_completion(sv m, LogEvent& e, bool& status_read) {
    const sv c = m.substr(m.find("Got completion"));
    if (const sv peer = token_after(c, "from peer ", false); !peer.empty()) {
        if (const std::size_t lt = peer.find('<'); lt != npos) {
            e.peer_ip = ip_of(peer.substr(0, lt));
            // A peer printed by name ("node48<51234>", NCCL_SOCKET_FAMILY with names).
            if (e.peer_ip.empty() && lt > 0) e.peer_name = std::string(peer.substr(0, lt));
        }
    }
    e.wc_status = numbered(c, "with error ", "status=");
    status_read = e.wc_status.has_value();
    if (e.wc_status) e.status_text = wc_status_words(*e.wc_status);
    e.opcode = numbered(c, "opcode ", "opcode=");
    // The vendor syndrome ends the line up to 2.19, so a number at the end is taken there.
    e.vendor_err = number_after<std::uint32_t>(c, "vendor err ", " ", true);
    if (!e.vendor_err) e.vendor_err = number_after<std::uint32_t>(c, "vendor_err=", " ", true);
    if (contains(c, "(Send)") || contains(c, "req_type=Send")) e.direction = "send";
    if (contains(c, "(Recv)") || contains(c, "req_type=Recv")) e.direction = "recv";
    e.local_gid = std::string(token_after(c, "localGid ", false));
    // "remoteGids" is printed without a space before the GID; it ends the 2.20-2.21 line.
    e.peer_gid = std::string(token_after(c, "remoteGids", true));
    e.device = std::string(token_after(c, " hca ", true));
}

// The async-event phrases, newest first; the words follow the phrase (after ": ").
constexpr std::array<sv, 7> kAsyncPhrases{
    "Got non-fatal async event", "Got async error event", "async fatal event", "Got async event",
    "GID table changed",         "unknown event type",    "async event"};

bool read_async(sv m, LogEvent& e) {
    std::size_t p = npos;
    sv phrase;
    for (sv ph : kAsyncPhrases) {
        if ((p = m.find(ph)) != npos) {
            phrase = ph;
            break;
        }
    }
    if (p == npos) return false;
    // "mlx5_0:1 Got async event : ..." (2.20+): the device and port just before the phrase.
    sv before = trim(m.substr(0, p));
    const std::size_t sp = before.rfind(' ');
    device_port(before.substr(sp == npos ? 0 : sp + 1), e.device, e.port);
    sv words;
    if (phrase == "GID table changed") {
        words = phrase;
    } else if (phrase == "unknown event type") {
        words = trim(m.substr(p));
    } else {
        sv after = m.substr(p + phrase.size());
        // "on QP (0x...): local work queue catastrophic error": the words after the colon.
        const std::size_t colon = after.find(':');
        if (colon == npos) return true;  // cut before the words: device only
        words = trim(after.substr(colon + 1));
        // 2.28+ "port error(10)": the event number in brackets is not part of the words.
        if (words.ends_with(')')) {
            const std::size_t lp = words.rfind('(');
            if (lp != npos && lp > 0 &&
                words.substr(lp + 1, words.size() - lp - 2).find_first_not_of("0123456789") == npos)
                words = trim(words.substr(0, lp));
        }
    }
    e.status_text = std::string(words);
    return true;
}

// misc/ibvwrap.cc: "Call to ibv_modify_qp failed with error Connection timed out" (<= 2.26),
// "Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT,
// next state RTR, local GID index 3, local GID ::ffff:a.b.c.d, remote GID ::ffff:e.f.g.h"
// (2.27+), "Call to ibv_get_async_event failed", "ibv_create_qp failed".
bool read_call_failed(sv m, LogEvent& e) {
    std::size_t p = m.find("ibv_");
    while (p != npos) {
        std::size_t q = p;
        while (q < m.size() && (std::isalnum(static_cast<unsigned char>(m[q])) || m[q] == '_')) ++q;
        if (m.substr(q).starts_with(" failed")) break;
        p = m.find("ibv_", q);
    }
    if (p == npos) return false;
    std::size_t q = p;
    while (q < m.size() && (std::isalnum(static_cast<unsigned char>(m[q])) || m[q] == '_')) ++q;
    const sv call = m.substr(p, q - p);
    sv after = m.substr(q + 7);  // after " failed"
    std::string status = std::string(call) + " failed";
    std::optional<int> err_no;
    sv words;
    if (after.starts_with(" with error ")) {
        words = after.substr(12);
    } else if (after.starts_with(" with ")) {
        sv rest;
        err_no = number_at<int>(after.substr(6), &rest);
        words = err_no ? rest : after.substr(6);
    }
    if (const std::size_t comma = words.find(", "); comma != npos) words = words.substr(0, comma);
    words = trim(words);
    if (!words.empty()) status += ": " + std::string(words);
    if (err_no) status += " (errno " + std::to_string(*err_no) + ")";
    e.status_text = std::move(status);
    device_port(token_after(m, "on dev ", false, ","), e.device, e.port);
    e.gid_index = number_after<unsigned>(m, "local GID index ", ",", false);
    // The GIDs: "local GID <gid>," and "remote GID <gid>" (the last field).
    for (std::size_t at = m.find("local GID "); at != npos; at = m.find("local GID ", at + 1)) {
        sv t = m.substr(at + 10);
        if (t.starts_with("index")) continue;
        const std::size_t c = t.find(',');
        if (c != npos) e.local_gid = std::string(trim(t.substr(0, c)));
        break;
    }
    e.peer_gid = std::string(token_after(m, "remote GID ", true, ", "));
    return true;
}

// "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>": one event per
// device whose name and port are whole (a '/' follows the port).
void read_using(sv m, const LogEvent& base, std::vector<LogEvent>& out) {
    std::string local_ip;
    if (const sv oob = token_after(m, "OOB ", false, "<"); !oob.empty()) {
        if (const std::size_t c = oob.find(':'); c != npos) local_ip = ip_of(oob.substr(c + 1));
    }
    const std::size_t oob_at = m.find("OOB ");
    sv list = m.substr(0, oob_at);
    for (std::size_t p = list.find('['); p != npos; p = list.find('[', p + 1)) {
        const std::size_t q = list.find(']', p);
        if (q == npos) break;
        if (list.substr(p + 1, q - p - 1).find_first_not_of("0123456789") != npos || q == p + 1)
            continue;
        const std::size_t slash = list.find_first_of("/ [", q + 1);
        if (slash == npos || list[slash] != '/') continue;
        LogEvent e = base;
        e.kind = "using_device";
        if (!device_port(list.substr(q + 1, slash - q - 1), e.device, e.port)) continue;
        e.local_ip = local_ip;
        out.push_back(std::move(e));
    }
}

// "NCCL_IB_TC set by environment to 106" (and "... to 106." in newer releases), "NCCL_IB_HCA set
// to mlx5_0,mlx5_1" (2.30), "NCCL_IB_TC=106".
bool read_setting(sv m, LogEvent& e) {
    const sv name = setting_name(m);
    sv rest = m.substr(name.size());
    if (rest.starts_with(" set by environment to ")) {
        rest.remove_prefix(23);
    } else if (rest.starts_with(" set to ")) {
        rest.remove_prefix(8);
    } else if (rest.starts_with("=")) {
        rest.remove_prefix(1);
    } else {
        return false;
    }
    sv value = rest.substr(0, rest.find(' '));
    if (value.ends_with('.')) value.remove_suffix(1);
    if (value.empty()) return false;
    e.settings.emplace(std::string(name), std::string(value));
    sv tail;
    auto whole = [&]() -> std::optional<unsigned> {
        auto v = number_at<unsigned>(value, &tail);
        return v && tail.empty() ? v : std::nullopt;
    };
    if (name == "NCCL_IB_TC") e.traffic_class = whole();
    if (name == "NCCL_IB_SL") e.sl = whole();
    if (name == "NCCL_IB_GID_INDEX") e.gid_index = whole();
    return true;
}

std::string cut(sv s) {
    return std::string(s.substr(0, kTextMax));
}

}  // namespace nccl_detail

bool is_nccl_line(std::string_view line) {
    using namespace nccl_detail;
    const Form f = classify(line).form;
    return f == Form::warn || f == Form::using_device || f == Form::setting;
}

void read_nccl(const LogText& text, LogRead& out) {
    using namespace nccl_detail;
    // Completion errors and call failures that a following HINT line may explain, by process
    // ("host:pid:tid"): the event's index in out.events.
    struct Open {
        std::string proc;
        std::size_t index;
    };
    std::vector<Open> open;
    const std::string file = text.dir + "/" + text.file;
    for (std::size_t i = 0; i < text.lines.size(); ++i) {
        const sv line = text.lines[i];
        const Found f = classify(line);
        if (f.form == Form::none) continue;
        const Head h = read_head(line.substr(0, f.marker));
        const std::string m = squeeze(f.msg);
        if (f.form == Form::hint) {
            for (auto it = open.rbegin(); it != open.rend(); ++it) {
                if (it->proc != h.proc) continue;
                std::string& hint = out.events[it->index].hint;
                sv words = trim(sv(m).substr(5));
                if (!hint.empty()) hint += ' ';
                hint += words;
                if (hint.size() > kTextMax) hint.resize(kTextMax);
                break;
            }
            continue;
        }
        LogEvent e;
        e.line = static_cast<unsigned>(i + 1);
        e.file = file;
        e.source = file + ":" + std::to_string(e.line);
        e.reader = "nccl";
        if (h.stamp) {
            e.clock = h.stamp->clock;
            e.time_s = h.stamp->time_s;
            e.year_unknown = h.stamp->year_unknown;
        }
        e.host = std::string(h.host);
        e.pid = h.pid;
        e.text = cut(trim(line));
        if (f.form == Form::using_device) {
            read_using(m, e, out.events);
            continue;
        }
        if (f.form == Form::setting) {
            e.kind = "setting";
            if (read_setting(m, e)) out.events.push_back(std::move(e));
            continue;
        }
        if (contains(m, "Got completion")) {
            e.kind = "completion_error";
            bool status_read = false;
            read_completion(m, e, status_read);
            if (!status_read)
                out.notes.push_back(e.source +
                                    ": NCCL completion error line cut short; status not read");
        } else if (read_call_failed(m, e)) {
            e.kind = "call_failed";
        } else if (read_async(m, e)) {
            e.kind = "async_event";
        } else {
            continue;
        }
        if (e.kind != "async_event" && !h.proc.empty()) {
            std::erase_if(open, [&](const Open& o) { return o.proc == h.proc; });
            open.push_back({std::string(h.proc), out.events.size()});
            if (open.size() > 64) open.erase(open.begin());
        }
        out.events.push_back(std::move(e));
    }
}

}  // namespace rh::joblog
