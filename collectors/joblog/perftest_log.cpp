// The perftest reader (ib_write_bw, ib_send_bw, ib_read_bw, ...; linux-rdma/perftest).
//
// perftest prints each of its lines from the start of the line, after one space, so the cheap
// test is a look at the first word (after a "3: " srun -l or "[1,3]<stdout>:" mpirun prefix,
// found in the first bytes only): no scan of the whole line. Forms read:
//
//  " Completion with error at client|server"   -> completion_error (direction send|recv),
//  " Failed status 12: wr_id 0 syndrom 0x81"    its status and vendor_err, on the next line;
//  " Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81"  (perftest
//                                                 >= 25.x, src/perftest_resources.h)
//  "Couldn't connect to 10.0.0.2:18515"        -> connect_failed, peer_ip (an IPv4 literal only)
//  the BW result table: the header " #bytes #iterations BW peak[..] BW average[U] MsgRate[Mpps]"
//  and its rows                                -> one slow_result per table, for the row of the
//                                                 largest message size (the last such row), with
//                                                 `value` = BW average in Gb/s and
//                                                 settings["bytes"] = that size. U is Gb/sec
//                                                 (--report_gbits: 10^9 bit) or MB/sec, renamed
//                                                 MiB/sec in 2024: both are 2^20 byte (perftest
//                                                 divides by 0x100000), so Gb/s = U * 2^20 * 8
//                                                 / 10^9. The reader reports the figure; the
//                                                 rules judge it against the port's rate.
//
// The run's own header and address lines are read for context, not as events: "Device : mlx5_0"
// (from " Dual-port : OFF  Device : mlx5_0"), " GID index : 3", " local address: LID 0000 QPN
// 0x0108 PSN ..." / " remote address: ..." and the " GID: 00:00:...:255:255:10:00:00:02" line
// after each (perftest prints the 16 GID bytes in decimal; we give them in the usual text form,
// "::ffff:10.0.0.2"). When a run ends (the next header, or the end of the file) they fill its
// events: device, gid_index, local_gid/peer_gid, and qpn/peer_qpn when the run had one QP
// (with -q N there is no telling which QP failed, so they stay empty).
//
// perftest prints no time: events keep clock order, unless the line starts with mpirun
// --timestamp-output's ctime stamp (clock local).
#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "collectors/joblog/job_logs.h"
#include "collectors/joblog/line_scan.h"
#include "core/wc_status.h"

namespace rh::joblog {

// A named namespace, not an anonymous one: the joblog readers build as one unity file, and the
// using-directive must not reach the other readers' code.
namespace perftest_detail {

using namespace scan;

/// The line without a launcher's prefix and leading spaces: "3: " (srun -l), "[pod/p/c] "
/// (kubectl logs --prefix), "[1,3]<stdout>:" and "Mon Apr  6 14:58:07 2020[1,3]<stdout>:"
/// (mpirun --tag-output/--timestamp-output).
std::string_view body(std::string_view s) {
    if (!s.empty() && is_digit(s.front())) {
        std::size_t n = 0;
        while (n < s.size() && is_digit(s[n])) ++n;
        if (n < s.size() && s[n] == ':') s.remove_prefix(n + 1);
    }
    if (starts_with(s, "[pod/")) {  // kubectl logs --prefix: "[pod/<name>/<container>] "
        const auto close = s.find("] ");
        if (close != std::string_view::npos) s.remove_prefix(close + 2);
    }
    if (const auto tag = s.substr(0, 64).find("]<std"); tag != std::string_view::npos) {
        const auto colon = s.find(">:", tag);
        if (colon != std::string_view::npos) s.remove_prefix(colon + 2);
    }
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

/// " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:00:00:02" -> "::ffff:10.0.0.2"; "" unless
/// all 16 bytes are there.
std::string gid_text(std::string_view s) {
    std::array<unsigned char, 16> raw{};
    for (std::size_t i = 0; i < raw.size(); ++i) {
        std::size_t n = 0;
        while (n < s.size() && is_digit(s[n])) ++n;
        const auto v = number(s.substr(0, n), 10, true);
        if (n == 0 || !v || *v > 255) return {};
        raw[i] = static_cast<unsigned char>(*v);
        s.remove_prefix(n);
        if (i + 1 < raw.size()) {
            if (s.empty() || s.front() != ':') return {};
            s.remove_prefix(1);
        }
    }
    if (!trim(s).empty()) return {};
    char buf[INET6_ADDRSTRLEN] = {};
    if (!inet_ntop(AF_INET6, raw.data(), buf, sizeof buf)) return {};
    return buf;
}

std::optional<double> real(std::string_view s) {
    double v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

/// " Failed status 12: wr_id 0 syndrom 0x81" or " Failed status-<words> (12): ..." into `e`.
void read_failed_status(std::string_view s, LogEvent& e) {
    s = s.substr(s.find("Failed status") + 13);
    std::optional<std::uint64_t> st;
    if (starts_with(s, " ")) {
        st = number(s.substr(1), 10, false);
        if (st && s.find(':') == std::string_view::npos) st.reset();  // "12" must end in ':'
    } else if (starts_with(s, "-")) {
        const auto open = s.find(" (");
        if (open != std::string_view::npos) {
            st = number(s.substr(open + 2), 10, false);
            if (st && s.find(')', open) == std::string_view::npos) st.reset();
        }
    }
    if (st && *st < 1000) {
        e.wc_status = static_cast<int>(*st);
        e.status_text = wc_status_words(*e.wc_status);
    }
    // The vendor syndrome ends the line (the format ends there), so a number at the end counts.
    e.vendor_err = u32(number_after(s, "syndrom 0x", 16, true));
}

/// What a run (one header to the next) said about itself.
struct Run {
    explicit Run(std::size_t first) : first_event(first) {}
    std::size_t first_event;
    std::string device;
    std::optional<unsigned> gid_index;
    std::vector<std::uint32_t> qpn[2];  // [0] local, [1] remote
    std::string gid[2];
    bool gid_mixed[2] = {false, false};
    int side = -1;  // which "address:" line the next "GID:" line belongs to
};

void finish_run(const Run& run, LogRead& out) {
    for (std::size_t k = run.first_event; k < out.events.size(); ++k) {
        LogEvent& e = out.events[k];
        if (e.reader != "perftest") continue;
        if (e.device.empty()) e.device = run.device;
        if (!e.gid_index) e.gid_index = run.gid_index;
        if (e.kind == "completion_error" && !e.wc_status)
            out.notes.push_back(e.source + ": perftest completion error; status not read");
        if (e.kind == "connect_failed") continue;  // no QP was connected
        if (!run.gid_mixed[0] && e.local_gid.empty()) e.local_gid = run.gid[0];
        if (!run.gid_mixed[1] && e.peer_gid.empty()) e.peer_gid = run.gid[1];
        if (run.qpn[0].size() == 1 && !e.qpn) e.qpn = run.qpn[0][0];
        if (run.qpn[1].size() == 1 && !e.peer_qpn) e.peer_qpn = run.qpn[1][0];
    }
}

/// A BW table being read: the column of "BW average", its unit, and the best row so far.
struct Table {
    bool open = false;
    std::size_t avg_col = 0;
    double to_gbps = 1;
    std::uint64_t best_bytes = 0;
    std::optional<double> best_gbps;
    std::size_t best_line = 0;
};

bool open_table(std::string_view s, Table& t) {
    const auto avg = s.find("average[");
    if (avg == std::string_view::npos) return false;
    const auto unit = token_after(s.substr(avg), "average[", false);
    if (starts_with(unit, "Gb/sec"))
        t.to_gbps = 1;
    else if (starts_with(unit, "MB/sec") || starts_with(unit, "MiB/sec"))
        t.to_gbps = 1048576.0 * 8 / 1e9;
    else
        return false;
    // Columns before "BW average": every "#name" column, and "BW peak" if printed.
    std::size_t cols = static_cast<std::size_t>(
        std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(avg), '#'));
    if (s.substr(0, avg).find("peak[") != std::string_view::npos) ++cols;
    t = Table{true, cols, t.to_gbps, 0, std::nullopt, 0};
    return true;
}

/// One result row: "65536      5000   11534.02   11530.70   0.184491". A row must hold a column
/// after "BW average", so a row cut inside the average is not read.
void table_row(std::string_view s, std::size_t index, Table& t) {
    std::size_t col = 0;
    std::optional<std::uint64_t> bytes;
    std::optional<double> avg;
    bool more = false;
    while (!s.empty()) {
        std::size_t n = 0;
        while (n < s.size() && !is_space(s[n])) ++n;
        const auto tok = s.substr(0, n);
        if (col == 0) bytes = number(tok, 10, true);
        if (col == t.avg_col) avg = real(tok);
        if (col > t.avg_col) more = true;
        ++col;
        s.remove_prefix(n);
        while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    }
    if (!bytes || !avg || !more || *bytes < t.best_bytes) return;
    t.best_bytes = *bytes;
    t.best_gbps = *avg * t.to_gbps;
    t.best_line = index;
}

/// The mpirun --timestamp-output stamp of line `i`, if any, on `e` (perftest prints no time).
void stamp(const LogText& text, std::size_t i, LogEvent& e) {
    if (auto t = ctime_stamp(trim(text.lines[i]))) {
        e.clock = LogClock::local;
        e.time_s = *t;
    }
}

void close_table(const LogText& text, Table& t, LogRead& out) {
    if (t.open && t.best_gbps) {
        LogEvent e = make_event(text, t.best_line, "perftest", "slow_result");
        stamp(text, t.best_line, e);
        e.value = t.best_gbps;
        e.settings["bytes"] = std::to_string(t.best_bytes);
        out.events.push_back(std::move(e));
    }
    t.open = false;
}

bool is_line(std::string_view line) {
    const auto s = body(line);
    if (s.empty()) return false;
    switch (s.front()) {
        case 'C':
            return starts_with(s, "Completion with error at ") ||
                   starts_with(s, "Couldn't connect to ");
        case 'F':
            return starts_with(s, "Failed status");
        case '#':
            return starts_with(s, "#bytes") && s.find("BW average[") != std::string_view::npos;
        default:
            return false;
    }
}

/// Where a read stands: the run and table being read, the completion error awaiting its status.
struct Reader {
    static constexpr std::size_t kNone = ~std::size_t{0};
    /// Lines from "Completion with error" to its status.
    static constexpr std::size_t kStatusWindow = 3;
    const LogText& text;
    LogRead& out;
    Run run;
    Table table;
    std::size_t pending = kNone;  ///< the completion_error awaiting its "Failed status"
    std::size_t pending_line = 0;
};

/// "Completion with error at client/server ..." (status on a later line, or pasted on this one)
/// and "Couldn't connect to <endpoint>".
void c_line(Reader& r, std::size_t i, std::string_view s) {
    if (starts_with(s, "Completion with error at ")) {
        LogEvent e = make_event(r.text, i, "perftest", "completion_error");
        stamp(r.text, i, e);
        const auto side = s.substr(25);
        if (starts_with(side, "client")) e.direction = "send";
        if (starts_with(side, "server")) e.direction = "recv";
        if (s.find("Failed status") != std::string_view::npos)
            read_failed_status(s, e);  // pasted as one line
        else {
            r.pending = r.out.events.size();
            r.pending_line = i;
        }
        r.out.events.push_back(std::move(e));
    } else if (starts_with(s, "Couldn't connect to ")) {
        LogEvent e = make_event(r.text, i, "perftest", "connect_failed");
        stamp(r.text, i, e);
        e.peer_ip = ip_of_endpoint(token_after(s, "connect to ", true));
        r.out.events.push_back(std::move(e));
    }
}

/// "Failed status ...": the status of the pending error completion, or one of its own.
void f_line(Reader& r, std::size_t i, std::string_view s) {
    if (!starts_with(s, "Failed status")) return;
    if (r.pending != Reader::kNone && i - r.pending_line <= Reader::kStatusWindow) {
        read_failed_status(s, r.out.events[r.pending]);
    } else {
        LogEvent e = make_event(r.text, i, "perftest", "completion_error");
        stamp(r.text, i, e);
        read_failed_status(s, e);
        r.out.events.push_back(std::move(e));
    }
    r.pending = Reader::kNone;
}

/// "Dual-port ... Device : mlx5_0": a run's header, so a new run starts.
void d_line(Reader& r, std::string_view s) {
    if (!starts_with(s, "Dual-port")) return;
    close_table(r.text, r.table, r.out);
    finish_run(r.run, r.out);
    r.run = Run(r.out.events.size());
    Run& run = r.run;
    run.device = std::string(token_after(s, "Device         : ", true));
    if (run.device.empty()) {
        const auto d = s.find("Device");
        if (d != std::string_view::npos)
            run.device = std::string(trim(token_after(s.substr(d), ": ", true)));
    }
}

/// "GID index : 3", and the "GID: ..." line of the address line before it.
void g_line(Run& run, std::string_view s) {
    if (starts_with(s, "GID index ") || starts_with(s, "GID index:")) {
        if (auto v = number_after(s, ": ", 10, true); v && *v < 0x10000)
            run.gid_index = static_cast<unsigned>(*v);
    } else if (starts_with(s, "GID: ") && run.side >= 0) {
        auto g = gid_text(s.substr(5));
        auto& have = run.gid[run.side];
        if (!g.empty() && !have.empty() && have != g) run.gid_mixed[run.side] = true;
        if (!g.empty()) have = std::move(g);
        run.side = -1;
    }
}

/// "local address: ... QPN 0x0123 ..." / "remote address: ...": the side and its QPN.
void address_line(Run& run, std::string_view s) {
    if (!starts_with(s, "local address:") && !starts_with(s, "remote address:")) return;
    run.side = s.front() == 'l' ? 0 : 1;
    if (auto q = u32(number_after(s, "QPN 0x", 16, false))) run.qpn[run.side].push_back(*q);
}

void read(const LogText& text, LogRead& out) {
    Reader r{text, out, Run(out.events.size()), Table{}};
    for (std::size_t i = 0; i < text.lines.size(); ++i) {
        const auto s = body(text.lines[i]);
        if (s.empty()) continue;
        const char c = s.front();
        if (r.table.open && (is_digit(c) || c == '-')) {
            if (is_digit(c))
                table_row(s, i, r.table);
            else
                close_table(text, r.table, out);
            continue;
        }
        switch (c) {
            case 'C':
                c_line(r, i, s);
                break;
            case 'F':
                f_line(r, i, s);
                break;
            case 'D':
                d_line(r, s);
                break;
            case 'G':
                g_line(r.run, s);
                break;
            case 'l':
            case 'r':
                address_line(r.run, s);
                break;
            case '#':
                if (starts_with(s, "#bytes")) {
                    close_table(text, r.table, out);
                    open_table(s, r.table);
                }
                break;
            default:
                break;
        }
    }
    close_table(text, r.table, out);
    finish_run(r.run, out);
}

}  // namespace perftest_detail

bool is_perftest_line(std::string_view line) {
    return perftest_detail::is_line(line);
}
void read_perftest(const LogText& text, LogRead& out) {
    perftest_detail::read(text, out);
}

}  // namespace rh::joblog
