// import_bundle_dir: reads a capture directory, recognises each file by its content (the first
// format in kFormats whose detector accepts it), parses it into a Model and merges the Model
// into a Snapshot (bundle_merge.cpp).
#include "collectors/bundle/bundle.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "collectors/bundle/bundle_model.h"
#include "collectors/bundle/capture_identity.h"
#include "collectors/bundle/parse_clock.h"
#include "collectors/bundle/parse_timestamp.h"
#include "collectors/bundle/sections.h"
#include "collectors/joblog/job_logs.h"
#include "core/hostname.h"
#include "core/inventory/parse.h"
#include "core/sysfs.h"

namespace rh {

namespace {

namespace fs = std::filesystem;
using bundle::Model;
using bundle::TextFile;

/// Largest capture file read: `lspci -vv` of a large server is ~1 MiB, `ethtool -S` with
/// hundreds of channels a few MiB.
constexpr std::uintmax_t kMaxFileBytes = 32u << 20;

struct Format {
    bool (*detect)(const TextFile&);
    std::string (*parse)(const TextFile&, Model&);
};

/// Most specific first: the generic counter listings last.
constexpr Format kFormats[] = {
    {bundle::is_ethtool_link, bundle::parse_ethtool_link},
    {bundle::is_ethtool_s, bundle::parse_ethtool_s},
    {bundle::is_ethtool_i, bundle::parse_ethtool_i},
    {bundle::is_ibv_devinfo, bundle::parse_ibv_devinfo},
    {bundle::is_mlnx_qos, bundle::parse_mlnx_qos},
    {bundle::is_ip_link, bundle::parse_ip_link},
    {bundle::is_lspci, bundle::parse_lspci},
    {bundle::is_lspci_tree, bundle::parse_lspci_tree},
    {bundle::is_dmesg, bundle::parse_dmesg},
    {bundle::is_rdma_tool, bundle::parse_rdma_tool},
    {bundle::is_uptime, bundle::parse_uptime},
    {bundle::is_boot_facts, bundle::parse_boot_facts},
    {bundle::is_hw_counters_listing, bundle::parse_hw_counters_listing},
    {bundle::is_counter_list, bundle::parse_counter_list},
};

/// Text that people paste: no NUL bytes and at most 1 % other control bytes (tabs, CR, LF and
/// ESC of colour codes excepted). UTF-8 is fine.
bool looks_like_text(const std::string& s) {
    std::size_t control = 0;
    for (unsigned char c : s) {
        if (c == 0) return false;
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != 0x1b) ++control;
    }
    return control * 100 <= s.size();
}

/// UTF-16 text (as PowerShell `>` or Notepad "Unicode" saves it) with its byte order mark
/// (FF FE little endian, FE FF big endian) as UTF-8; nullopt when `s` has no UTF-16 BOM.
/// Surrogate pairs are joined; a lone surrogate becomes U+FFFD.
std::optional<std::string> utf16_to_utf8(const std::string& s) {
    if (s.size() < 2) return std::nullopt;
    const auto b0 = static_cast<unsigned char>(s[0]), b1 = static_cast<unsigned char>(s[1]);
    bool little;
    if (b0 == 0xFF && b1 == 0xFE)
        little = true;
    else if (b0 == 0xFE && b1 == 0xFF)
        little = false;
    else
        return std::nullopt;
    auto unit = [&](std::size_t i) -> unsigned {
        const auto lo = static_cast<unsigned char>(s[little ? i : i + 1]);
        const auto hi = static_cast<unsigned char>(s[little ? i + 1 : i]);
        return (static_cast<unsigned>(hi) << 8) | lo;
    };
    std::string out;
    out.reserve(s.size() / 2);
    auto put = [&](unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    };
    for (std::size_t i = 2; i + 1 < s.size(); i += 2) {
        const unsigned u = unit(i);
        if (u >= 0xD800 && u < 0xDC00 && i + 3 < s.size()) {
            const unsigned v = unit(i + 2);
            if (v >= 0xDC00 && v < 0xE000) {
                put(0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
                i += 2;
                continue;
            }
        }
        put(u >= 0xD800 && u < 0xE000 ? 0xFFFD : u);
    }
    return out;
}

/// Unicode spaces that pasted text carries where the tool printed ASCII spaces (U+00A0
/// no-break space from web pages and Windows clipboards, U+2000..U+200A, U+202F, U+205F,
/// U+3000), each replaced by one ASCII space; tabs stay (every parser reads them as spaces).
std::string normalize_spaces(std::string text) {
    if (text.find('\xC2') == std::string::npos && text.find('\xE2') == std::string::npos &&
        text.find('\xE3') == std::string::npos)
        return text;
    std::string out;
    out.reserve(text.size());
    const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (at(i) == 0xC2 && i + 1 < text.size() && at(i + 1) == 0xA0) {
            out += ' ';
            i += 1;
            continue;
        }
        if (i + 2 < text.size() &&
            ((at(i) == 0xE2 && at(i + 1) == 0x80 && (at(i + 2) <= 0x8A || at(i + 2) == 0xAF)) ||
             (at(i) == 0xE2 && at(i + 1) == 0x81 && at(i + 2) == 0x9F) ||
             (at(i) == 0xE3 && at(i + 1) == 0x80 && at(i + 2) == 0x80))) {
            out += ' ';
            i += 2;
            continue;
        }
        out += text[i];
    }
    return out;
}

/// Length of the terminal escape sequence at the start of `s` (which starts with ESC), 0 when
/// it is none: CSI "ESC [ params intermediates final" (colours of `grep --color` / `ip -c`, the
/// reverse video of `watch -d`, cursor moves and "ESC [ ? 1049 h" of a `script` log), a
/// character set choice "ESC ( B" (ncurses ends highlighting with it), OSC "ESC ] ... BEL" (a
/// terminal title), and two-byte ones ("ESC =", "ESC >", "ESC 7", "ESC 8", "ESC M").
std::size_t escape_length(std::string_view s) {
    if (s.size() < 2) return 0;
    const auto at = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    if (s[1] == '[') {
        std::size_t j = 2;
        while (j < s.size() && at(j) >= 0x30 && at(j) <= 0x3F) ++j;  // parameters
        while (j < s.size() && at(j) >= 0x20 && at(j) <= 0x2F) ++j;  // intermediates
        return j < s.size() && at(j) >= 0x40 && at(j) <= 0x7E ? j + 1 : 0;
    }
    if (s[1] == '(' || s[1] == ')') return s.size() >= 3 ? 3 : 0;
    if (s[1] == ']') {
        const auto bel = s.find('\a', 2);
        return bel == std::string_view::npos ? 0 : bel + 1;
    }
    if (s[1] == '=' || s[1] == '>' || s[1] == '7' || s[1] == '8' || s[1] == 'M') return 2;
    return 0;
}

/// Pasted text as lines: a UTF-8 byte order mark dropped, CRLF or lone-CR line ends, terminal
/// escape sequences (escape_length) removed, Unicode spaces
/// (normalize_spaces) made ASCII spaces.
TextFile split_lines(std::string name, std::string text, const std::string& dir) {
    TextFile f{std::move(name), {}, dir, {}};
    if (bundle::starts_with(text, "\xEF\xBB\xBF")) text.erase(0, 3);
    text = normalize_spaces(std::move(text));
    if (text.find('\n') == std::string::npos) std::replace(text.begin(), text.end(), '\r', '\n');
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line;
        for (std::size_t i = start; i < end; ++i) {
            if (text[i] == 0x1b) {
                if (const std::size_t n =
                        escape_length(std::string_view(text).substr(i, end - i))) {
                    i += n - 1;
                    continue;
                }
            }
            line += text[i];
        }
        while (!line.empty() && line.back() == '\r') line.pop_back();
        f.lines.push_back(std::move(line));
        start = end + 1;
    }
    return f;
}

/// The host a part of `hostname`, `hostname -s|-f|--short|--fqdn`, `uname -n` or `cat
/// /etc/hostname` output names: its one non-blank line when that is a valid host name; "" for
/// any other part.
std::string hostname_output(const TextFile& f) {
    const auto t = bundle::tokens(f.command);
    const bool is_hostname =
        (!t.empty() && t[0] == "hostname" &&
         (t.size() == 1 || (t.size() == 2 && (t[1] == "-s" || t[1] == "-f" || t[1] == "--short" ||
                                              t[1] == "--fqdn")))) ||
        (t.size() == 2 && t[0] == "uname" && t[1] == "-n") ||
        (t.size() == 2 && t[0] == "cat" && t[1] == "/etc/hostname");
    if (!is_hostname) return {};
    std::string name;
    for (const auto& l : f.lines) {
        const auto v = bundle::trim(l);
        if (v.empty()) continue;
        if (!name.empty() || bundle::tokens(v).size() != 1) return {};
        name = std::string(v);
    }
    return !name.empty() && check_host_name(name).empty() ? name : std::string{};
}

/// Reads a file too large to hold (a long job log) in windows of lines of at most
/// kMaxFileBytes, each through the log readers, with line numbers and sources of the whole file.
/// Returns how many events it gave. Error: the file cannot be opened or read, or it holds no
/// log line at all (a capture file that large is not one rocehealth reads whole).
Result<std::size_t> read_large_log(const fs::path& p, const std::string& label,
                                   std::vector<LogEvent>& events) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return errno_error("open", p.string());
    const std::string name = p.filename().string();
    std::size_t offset = 0, found = 0;  // lines before the window; events so far
    std::vector<std::string> window;
    std::size_t bytes = 0;
    const auto flush = [&] {
        joblog::LogRead read;
        joblog::read_logs({label, name, window}, read);
        for (auto& e : read.events) {
            e.line += static_cast<unsigned>(offset);
            e.source = label + "/" + name + ":" + std::to_string(e.line);
            events.push_back(std::move(e));
            ++found;
        }
        offset += window.size();
        window.clear();
        bytes = 0;
    };
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        bytes += line.size() + 1;
        window.push_back(std::move(line));
        if (bytes >= kMaxFileBytes) flush();
    }
    if (in.bad()) return errno_error("read", p.string());
    flush();
    if (found == 0)
        return Error{"read", p.string(), EFBIG,
                     "larger than " + std::to_string(kMaxFileBytes >> 20) +
                         " MiB and no job or kernel log line in it"};
    return found;
}

Result<std::string> read_file(const fs::path& p) {
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) return Error{"stat", p.string(), ec.value(), {}};
    if (size > kMaxFileBytes)
        return Error{"read", p.string(), EFBIG,
                     "larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB"};
    std::ifstream in(p, std::ios::binary);
    if (!in) return errno_error("open", p.string());
    std::ostringstream out;
    out << in.rdbuf();
    if (in.bad()) return errno_error("read", p.string());
    return out.str();
}

bool is_named(const std::string& file, const char* base) {
    return file == base || file == std::string(base) + ".txt";
}

/// `timestamp`: when the capture was taken (bundle::parse_timestamp_text: `date +%s`, `date -u`
/// or ISO 8601 output); errors name the file.
Result<double> parse_timestamp(const fs::path& p, const std::string& text) {
    auto v = bundle::parse_timestamp_text(text);
    if (!v) return Error{"parse", p.string(), 0, v.error().detail};
    return *v;
}

std::string basename_of(const std::string& dir) {
    fs::path p(dir);
    while (!p.empty() && p.filename().empty()) p = p.parent_path();  // "dir/" -> "dir"
    const std::string base = p.filename().string();
    return base.empty() || base == "." ? fs::absolute(p).filename().string() : base;
}

using Files = std::vector<std::pair<std::string, std::string>>;

/// The job and kernel log lines of part `f` (collectors/joblog) appended to `events`, the
/// readers' notes to `m`; returns how many events the part gave. Only a part with a line a
/// reader recognises is read (the cheap test first).
std::size_t read_log_lines(const TextFile& f, std::vector<LogEvent>& events, Model& m) {
    if (std::none_of(f.lines.begin(), f.lines.end(),
                     [](const std::string& l) { return joblog::is_log_line(l); }))
        return 0;
    joblog::LogRead read;
    joblog::read_logs({f.dir, f.name, f.lines}, read);
    for (auto& n : read.notes) m.note(f.name, std::move(n));
    const std::size_t n = read.events.size();
    for (auto& e : read.events) events.push_back(std::move(e));
    return n;
}

/// A `hostname` file larger than this is not `hostname` output, even with a shell prompt and
/// CRLF around the name (at most 253 bytes).
constexpr std::size_t kMaxHostnameFileBytes = 4096;

/// `timestamp` (file `name`): "$ date +%s" above the number is the number. Two lines that are
/// both times must agree (`date +%s; date -u` is one instant; two runs of `date` in one file are
/// two captures, and which one the counters belong to cannot be told): else an error naming the
/// file and both times.
Result<double> timestamp_file(const std::string& dir, const std::string& name,
                              const std::string& text, const std::string& label) {
    std::string value = text;
    std::optional<std::pair<std::string, double>> first_time;
    for (const auto& part : bundle::split_sections(split_lines(name, text, label)))
        for (const auto& l : part.lines) {
            if (bundle::trim(l).empty()) continue;
            if (value == text) value = l;
            const auto t = bundle::parse_timestamp_text(l);
            if (!t) continue;  // a trailing prompt or a comment: not a second time
            if (!first_time) {
                first_time.emplace(std::string(bundle::trim(l)), *t);
            } else if (std::abs(*t - first_time->second) > 1) {
                return Error{"parse", (fs::path(dir) / name).string(), 0,
                             "two different times in it ('" + first_time->first + "' and '" +
                                 std::string(bundle::trim(l)) +
                                 "'): a capture has one time; give each capture its own folder"};
            }
        }
    return parse_timestamp(fs::path(dir) / name, value);
}

/// `hostname` (file `name`): the first non-blank line. It names the host every finding is
/// about: a file that cannot be `hostname` output (empty, not one name, huge or binary) is
/// refused, not guessed around.
Result<std::string> hostname_file(const std::string& dir, const std::string& name,
                                  const std::string& text, const std::string& label) {
    const std::string path = (fs::path(dir) / name).string();
    const auto refuse = [&](const std::string& why) {
        return Error{"parse", path, 0,
                     why +
                         ": a hostname file holds the host's name (`hostname` output); "
                         "fix it or leave it out (captures are then grouped by "
                         "hardware identity)"};
    };
    if (text.size() > kMaxHostnameFileBytes)
        return refuse(std::to_string(text.size()) + " bytes, more than " +
                      std::to_string(kMaxHostnameFileBytes));
    std::string hostname;
    for (const auto& part : bundle::split_sections(split_lines(name, text, label))) {
        for (const auto& l : part.lines)
            if (!bundle::trim(l).empty()) {
                hostname = std::string(bundle::trim(l));
                break;
            }
        if (!hostname.empty()) break;
    }
    if (hostname.empty()) return refuse("no host name in it");
    if (looks_like_text(hostname) && bundle::tokens(hostname).size() != 1)
        return refuse("\"" + hostname.substr(0, 80) + "\" is not one name");
    if (const std::string why = check_host_name(hostname); !why.empty())
        return refuse("host name " + why);
    return hostname;
}

/// The text of file `name` to read: UTF-16 converted; NUL bytes in text skipped (a log
/// truncated in place: logrotate's copytruncate leaves the writer's offset, so the file starts
/// with a block of NULs; or cut by a crash), with a note. The line numbers stay the file's (a
/// NUL is no line end). Else `text` itself; `storage` holds a converted text.
const std::string& text_to_read(const std::string& name, const std::string& text,
                                std::string& storage, Model& m) {
    if (auto utf8 = utf16_to_utf8(text)) return storage = std::move(*utf8);
    if (text.find('\0') == std::string::npos) return text;
    std::string without_nul;
    without_nul.reserve(text.size());
    for (const char ch : text)
        if (ch != '\0') without_nul += ch;
    if (bundle::trim(without_nul).empty() || !looks_like_text(without_nul)) return text;
    m.note(name, std::to_string(text.size() - without_nul.size()) +
                     " NUL bytes skipped (a log truncated in place, as logrotate's "
                     "copytruncate leaves it, or cut by a crash)");
    return storage = std::move(without_nul);
}

/// The host names the capture gives: its hostname file, a `hostname` section, the first host a
/// shell prompt names, and the other hosts prompts name.
struct CaptureHosts {
    std::string file, section, prompt;
    std::vector<std::string> others;
};

/// Output of several hosts in one capture (file `name`): the first host's parts are read, the
/// others' are not mixed into its snapshot (a warning names them).
void keep_first_host(const std::string& name, std::vector<TextFile>& parts, CaptureHosts& hosts,
                     Model& m) {
    for (const TextFile& f : parts)
        if (!f.prompt_host.empty()) {
            if (hosts.prompt.empty()) hosts.prompt = f.prompt_host;
            if (f.prompt_host != hosts.prompt && std::find(hosts.others.begin(), hosts.others.end(),
                                                           f.prompt_host) == hosts.others.end())
                hosts.others.push_back(f.prompt_host);
        }
    if (hosts.others.empty()) return;
    std::vector<TextFile> kept;
    std::size_t dropped = 0;
    for (auto& f : parts)
        if (f.prompt_host.empty() || f.prompt_host == hosts.prompt)
            kept.push_back(std::move(f));
        else
            ++dropped;
    if (dropped > 0) {
        std::string list = hosts.prompt;
        for (const auto& h : hosts.others) list += ", " + h;
        m.warn(name, "holds output of " + std::to_string(hosts.others.size() + 1) + " hosts (" +
                         list + "): only " + hosts.prompt + "'s is read; " +
                         std::to_string(dropped) +
                         " command output(s) of the other host(s) are not used (put each "
                         "host's output in its own capture directory)");
    }
    parts = std::move(kept);
}

/// Reads every part of one file: clocks, a `hostname` section, log lines, the capture formats.
/// Returns what each part was ("clock", "ethtool -S", "job log (3 events)", ...).
std::vector<std::string> read_parts(std::vector<TextFile>& parts, CaptureHosts& hosts,
                                    std::vector<bundle::ClockReading>& clocks, BundleCapture& cap,
                                    Model& m) {
    std::vector<std::string> kinds;
    for (TextFile& f : parts) {
        // In-file clocks (parse_clock.h): `date` / `watch` lines are read and blanked.
        if (bundle::take_clocks(f, clocks)) {
            kinds.push_back("clock");
            continue;
        }
        // A collection script's `hostname` section names the host as a hostname file does.
        if (const std::string h = hostname_output(f); !h.empty()) {
            if (hosts.section.empty()) hosts.section = h;
            kinds.push_back("hostname");
            continue;
        }
        const std::size_t log_count = read_log_lines(f, cap.log_events, m);
        const Format* fmt = std::find_if(std::begin(kFormats), std::end(kFormats),
                                         [&](const Format& x) { return x.detect(f); });
        if (fmt == std::end(kFormats) && log_count > 0) {
            kinds.push_back("job log (" + std::to_string(log_count) + " events)");
            continue;
        }
        if (log_count > 0) kinds.push_back("log lines (" + std::to_string(log_count) + ")");
        if (fmt == std::end(kFormats)) {
            if (parts.size() > 1 || !f.command.empty())
                m.note(bundle::part_lines(f), bundle::skipped_part_text(f));
            continue;
        }
        const std::size_t iface_files = m.iface_files.size();
        kinds.push_back(fmt->parse(f, m));
        for (std::size_t i = iface_files; i < m.iface_files.size(); ++i)
            m.iface_files[i].label = f.label;
    }
    return kinds;
}

/// One capture file other than `timestamp` and `hostname`: recognized (with what its parts
/// were) or unrecognized.
void read_capture_file(const std::string& name, const std::string& text, const std::string& label,
                       CaptureHosts& hosts, std::vector<bundle::ClockReading>& clocks,
                       BundleCapture& cap, Model& m) {
    std::string storage;
    const std::string& body = text_to_read(name, text, storage, m);
    if (!looks_like_text(body)) {
        cap.unrecognized.push_back(name);
        m.warn(name, "binary content, not a text capture; not read");
        return;
    }
    auto parts = bundle::split_sections(split_lines(name, body, label));
    keep_first_host(name, parts, hosts, m);
    const std::vector<std::string> kinds = read_parts(parts, hosts, clocks, cap, m);
    if (kinds.empty()) {
        cap.unrecognized.push_back(name);
        if (bundle::trim(text).empty()) m.note(name, "empty file");
        return;
    }
    std::string joined;
    for (const auto& k : kinds) joined += (joined.empty() ? "" : " + ") + k;
    cap.recognized.push_back(name + ": " + joined);
}

/// The host's name: the hostname file's; else a `hostname` section's; else the shell prompts'
/// (hostname evidence like a `hostname` file, weaker than hardware), noted; else "".
std::string host_name(const CaptureHosts& hosts, const std::string& label, Model& m) {
    if (!hosts.file.empty()) return hosts.file;
    if (!hosts.section.empty()) {
        m.note(label, "host name " + hosts.section +
                          " taken from a `hostname` section (no hostname file)");
        return hosts.section;
    }
    if (!hosts.prompt.empty()) {
        m.note(label,
               "host name " + hosts.prompt + " taken from the shell prompts (no hostname file)");
        return hosts.prompt;
    }
    return {};
}

/// Merges the model into the capture's Snapshot and copies what the model holds besides.
void finish_capture(BundleCapture& cap, Model& m, const std::string& dir, const std::string& label,
                    const std::string& hostname, const std::vector<bundle::ClockReading>& clocks) {
    Snapshot& s = cap.snapshot;
    s.host = hostname.empty() ? label : hostname;
    s.sysfs_root = "bundle:" + dir;
    if (cap.timestamp_s)
        s.collected_at = utc_iso8601(std::chrono::system_clock::time_point(
            std::chrono::seconds(static_cast<std::int64_t>(std::floor(*cap.timestamp_s)))));
    cap.identity = identity_from_model(m, hostname);
    bundle::merge_into(m, s);
    add_snapshot_identity(cap.identity, s);
    m.warn_bad_values();
    cap.warnings = m.warnings;
    cap.unused_counters = m.unused_counters;
    cap.clock = bundle::decide_clock(clocks);
    cap.ip_addresses = m.ip_addresses;
    cap.uptime_s = m.uptime_s;
    cap.uptime_source = m.uptime_source;
    cap.uptime_resolution_s = m.uptime_resolution_s;
    cap.boot_id = m.boot_id;
    cap.boot_id_source = m.boot_id_source;
    cap.btime_s = m.btime_s;
    cap.btime_source = m.btime_source;
}

/// The pure part of the import: recognises, parses and merges `files` (name, bytes) of the
/// capture `dir`; `m` may already hold notes (files that could not be read).
Result<BundleCapture> import_files(const std::string& dir, const Files& files, Model& m,
                                   std::vector<std::string> unreadable) {
    BundleCapture cap;
    cap.dir = dir;
    cap.unrecognized = std::move(unreadable);
    const std::string label = basename_of(dir);
    m.dir = label;
    CaptureHosts hosts;
    std::vector<bundle::ClockReading> clocks;  // in-file clocks (parse_clock.h)
    for (const auto& [name, text] : files) {
        if (is_named(name, "timestamp")) {
            auto t = timestamp_file(dir, name, text, label);
            if (!t) return t.error();
            cap.timestamp_s = *t;
        } else if (is_named(name, "hostname")) {
            auto h = hostname_file(dir, name, text, label);
            if (!h) return h.error();
            hosts.file = std::move(*h);
        } else {
            read_capture_file(name, text, label, hosts, clocks, cap, m);
        }
    }
    finish_capture(cap, m, dir, label, host_name(hosts, label, m), clocks);
    return cap;
}

/// A capture directory's entries, in name order: regular files (symlinks followed) and
/// subdirectories; `bad` gets what cannot be read (a directory named like a capture file, a
/// FIFO, socket or device, a failed stat). Error: the directory cannot be listed.
Status list_capture_dir(const std::string& dir, const std::string& label,
                        std::vector<fs::path>& paths, std::vector<std::string>& subdirs,
                        std::vector<std::pair<std::string, Error>>& bad) {
    std::error_code ec;
    for (fs::directory_iterator it(fs::path(dir), ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code st;
        const std::string name = it->path().filename().string();
        const auto status = it->status(st);  // follows symlinks
        if (st) {
            bad.emplace_back(name, Error{"", label + "/" + name, st.value(), {}});
        } else if (fs::is_regular_file(status)) {
            paths.push_back(it->path());
        } else if (fs::is_directory(status)) {
            // A directory named like a capture file ("hw_counters.txt") stands where a file
            // should be; others are subdirectories, not read (captures are not recursive).
            std::error_code ls;
            if (name.find('.') != std::string::npos && name.front() != '.' && !it->is_symlink(ls))
                bad.emplace_back(name, Error{"", label + "/" + name, EISDIR, {}});
            else
                subdirs.push_back(name);
        } else {
            bad.emplace_back(name, Error{"", label + "/" + name, 0,
                                         "not a regular file (FIFO, socket or device); not read"});
        }
    }
    if (ec) return Error{"list", dir, ec.value(), "cannot read the bundle directory"};
    std::sort(paths.begin(), paths.end());
    std::sort(subdirs.begin(), subdirs.end());
    return ok_status();
}

/// Reads every file of `paths` into `files`; a file past kMaxFileBytes is read line by line
/// for log lines only (into `big_log_events`, with a note). What cannot be read goes to `bad`.
void read_capture_files(const std::vector<fs::path>& paths, const std::string& label, Model& m,
                        Files& files, std::vector<LogEvent>& big_log_events,
                        std::vector<std::pair<std::string, Error>>& bad) {
    for (const auto& p : paths) {
        const std::string name = p.filename().string();
        std::error_code size_ec;
        if (const auto size = fs::file_size(p, size_ec); !size_ec && size > kMaxFileBytes) {
            // A job's log grows past any capture: read it line by line for log lines only.
            auto n = read_large_log(p, label, big_log_events);
            if (!n) {
                bad.emplace_back(name,
                                 Error{"", label + "/" + name, n.error().err_no, n.error().detail});
            } else {
                m.note(name, "larger than " + std::to_string(kMaxFileBytes >> 20) +
                                 " MiB: read as a job or kernel log only (" + std::to_string(*n) +
                                 " log lines); other formats are not "
                                 "read from a file this large");
            }
            continue;
        }
        auto text = read_file(p);
        if (!text) {
            Error e = text.error();
            bad.emplace_back(name, Error{"", label + "/" + name, e.err_no, e.detail});
            continue;
        }
        files.emplace_back(name, std::move(*text));
    }
}

/// The first unreadable file in name order (so the message does not depend on listing), with
/// how many more there are and the next one.
Error first_unreadable(std::vector<std::pair<std::string, Error>> bad) {
    std::sort(bad.begin(), bad.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    Error e = bad.front().second;
    if (bad.size() > 1)
        e.detail += (e.detail.empty() ? "" : "; ") + std::string("and ") +
                    std::to_string(bad.size() - 1) + " more file(s) not read (" +
                    bad[1].second.message() + (bad.size() > 2 ? ", ..." : "") + ")";
    return e;
}

/// Subdirectories are not read (captures are not recursive): a note when they are all there
/// is, else a warning.
void note_subdirs(const std::vector<std::string>& subdirs, bool no_files, const std::string& label,
                  Model& m) {
    if (subdirs.empty()) return;
    std::string list;
    for (const auto& s : subdirs) list += (list.empty() ? "" : ", ") + s;
    if (no_files)
        m.note(label, "no capture files here, only subdirectories (" + list +
                          "): each capture is its own bundle directory");
    else
        m.warn(label, "subdirectories not read (" + list +
                          "): captures are not read recursively; give each capture "
                          "directory as its own --bundle");
}

Result<BundleCapture> import(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(fs::path(dir), ec))
        return Error{"open", dir, ec ? ec.value() : ENOTDIR,
                     "bundle directory does not exist or is not a directory"};
    const std::string label = basename_of(dir);
    std::vector<fs::path> paths;
    std::vector<std::string> subdirs;
    // A capture file that cannot be read is an error naming it: a diagnosis without it could
    // read as healthy.
    std::vector<std::pair<std::string, Error>> bad;
    if (auto listed = list_capture_dir(dir, label, paths, subdirs, bad); !listed)
        return listed.error();
    Model m;
    Files files;
    std::vector<LogEvent> big_log_events;  // files past kMaxFileBytes read as logs
    read_capture_files(paths, label, m, files, big_log_events, bad);
    if (!bad.empty()) return first_unreadable(std::move(bad));
    note_subdirs(subdirs, paths.empty(), label, m);
    auto cap = import_files(dir, files, m, {});
    if (cap && !big_log_events.empty()) {
        for (auto& e : big_log_events) cap->log_events.push_back(std::move(e));
        cap->recognized.push_back("(files over " + std::to_string(kMaxFileBytes >> 20) +
                                  " MiB): job log");
    }
    return cap;
}

}  // namespace

Result<BundleCapture> import_bundle_dir(const std::string& dir) {
    try {
        return import(dir);
    } catch (const std::exception& e) {  // bad_alloc, filesystem_error: never escapes the API
        return Error{"import", dir, 0, e.what()};
    }
}

Result<BundleCapture> import_bundle_files(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
    try {
        Model m;
        return import_files(dir, files, m, {});
    } catch (const std::exception& e) {  // bad_alloc: never escapes the API
        return Error{"import", dir, 0, e.what()};
    }
}

}  // namespace rh
