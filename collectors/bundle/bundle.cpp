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
#include <sstream>

#include "collectors/bundle/bundle_model.h"
#include "collectors/bundle/capture_identity.h"
#include "collectors/parse.h"
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
    {bundle::is_ethtool_s, bundle::parse_ethtool_s},
    {bundle::is_ethtool_i, bundle::parse_ethtool_i},
    {bundle::is_ibv_devinfo, bundle::parse_ibv_devinfo},
    {bundle::is_mlnx_qos, bundle::parse_mlnx_qos},
    {bundle::is_ip_link, bundle::parse_ip_link},
    {bundle::is_lspci, bundle::parse_lspci},
    {bundle::is_lspci_tree, bundle::parse_lspci_tree},
    {bundle::is_dmesg, bundle::parse_dmesg},
    {bundle::is_rdma_tool, bundle::parse_rdma_tool},
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

/// Pasted text as lines: a UTF-8 byte order mark dropped, CRLF or lone-CR line ends, ANSI
/// colour sequences (ESC [ ... letter, from `grep --color`, `ip -c`) removed.
TextFile split_lines(std::string name, std::string text, const std::string& dir) {
    TextFile f{std::move(name), {}, dir, {}};
    if (bundle::starts_with(text, "\xEF\xBB\xBF")) text.erase(0, 3);
    if (text.find('\n') == std::string::npos) std::replace(text.begin(), text.end(), '\r', '\n');
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line;
        for (std::size_t i = start; i < end; ++i) {
            if (text[i] == 0x1b && i + 1 < end && text[i + 1] == '[') {
                std::size_t j = i + 2;
                while (j < end &&
                       (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == ';'))
                    ++j;
                if (j < end && std::isalpha(static_cast<unsigned char>(text[j]))) {
                    i = j;
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

/// The command of a shell prompt line, nullopt when `line` is not one. Prompts start at column
/// 0: "[root@gpu01 ~]# ethtool -S ens1f0np0", "user@host:~$ cmd", "root@h:/tmp# cmd", "$ cmd",
/// "# cmd" (also a comment line: its text is then the "command"). A prompt with no command
/// gives "".
std::optional<std::string> prompt_command(std::string_view line) {
    line = bundle::trim(line);
    auto rest = [&](std::size_t at) { return std::string(bundle::trim(line.substr(at))); };
    if (line.empty()) return std::nullopt;
    if (line == "$" || line == "#") return std::string{};
    if (bundle::starts_with(line, "$ ") || bundle::starts_with(line, "# ")) return rest(2);
    if (line[0] == '[') {
        const auto close = line.find(']');
        if (close == std::string_view::npos || close + 1 >= line.size()) return std::nullopt;
        const std::string_view inside = line.substr(1, close - 1);
        const char mark = line[close + 1];
        if ((mark == '#' || mark == '$') && inside.find('@') != std::string_view::npos &&
            (close + 2 == line.size() || line[close + 2] == ' '))
            return rest(close + 2);
        return std::nullopt;
    }
    // user@host[:path]$ / #
    const auto ws = line.find(' ');
    const std::string_view tok = line.substr(0, ws);
    if (tok.size() < 4 || (tok.back() != '$' && tok.back() != '#')) return std::nullopt;
    const std::string_view who = tok.substr(0, std::min(tok.find(':'), tok.size() - 1));
    const auto at = who.find('@');
    if (at == 0 || at == std::string_view::npos || at + 1 == who.size()) return std::nullopt;
    for (std::size_t i = 0; i < who.size(); ++i) {
        const char c = who[i];
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' &&
            !(c == '@' && i == at))
            return std::nullopt;
    }
    return ws == std::string_view::npos ? std::string{} : rest(ws);
}

/// Splits a file at its shell prompt lines: each part holds the lines after one prompt (the
/// lines before the first prompt are a part of their own), with that prompt's command; the
/// prompt lines and the other parts' lines are blanked, so line numbers stay the file's. Parts
/// with no content are dropped.
std::vector<TextFile> split_commands(const TextFile& f) {
    std::vector<std::pair<std::size_t, std::string>> cuts;  // (prompt line index, command)
    for (std::size_t i = 0; i < f.lines.size(); ++i)
        if (auto c = prompt_command(f.lines[i])) cuts.emplace_back(i, std::move(*c));
    if (cuts.empty()) return {f};
    std::vector<TextFile> parts;
    auto part = [&](std::size_t from, std::size_t to, const std::string& command) {
        TextFile p{f.name, std::vector<std::string>(f.lines.size()), f.dir, command};
        bool content = false;
        for (std::size_t i = from; i < to; ++i) {
            p.lines[i] = f.lines[i];
            content = content || !bundle::trim(f.lines[i]).empty();
        }
        if (content) parts.push_back(std::move(p));
    };
    part(0, cuts[0].first, "");
    for (std::size_t k = 0; k < cuts.size(); ++k)
        part(cuts[k].first + 1, k + 1 < cuts.size() ? cuts[k + 1].first : f.lines.size(),
             cuts[k].second);
    return parts;
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

/// `timestamp`: seconds since the epoch ("1718900000", "1718900000.25", `date +%s` output).
Result<double> parse_timestamp(const fs::path& p, const std::string& text) {
    const auto v = bundle::to_double(text);
    if (!v || *v < 0 || *v > 1e11)
        return Error{"parse", p.string(), 0,
                     "not a number of seconds since the epoch: " + quote_value(bundle::trim(text))};
    return *v;
}

std::string basename_of(const std::string& dir) {
    fs::path p(dir);
    while (!p.empty() && p.filename().empty()) p = p.parent_path();  // "dir/" -> "dir"
    const std::string base = p.filename().string();
    return base.empty() || base == "." ? fs::absolute(p).filename().string() : base;
}

using Files = std::vector<std::pair<std::string, std::string>>;

/// The pure part of the import: recognises, parses and merges `files` (name, bytes) of the
/// capture `dir`; `m` may already hold notes (files that could not be read).
Result<BundleCapture> import_files(const std::string& dir, const Files& files, Model& m,
                                   std::vector<std::string> unreadable) {
    BundleCapture cap;
    cap.dir = dir;
    cap.unrecognized = std::move(unreadable);
    const std::string label = basename_of(dir);
    m.dir = label;
    std::string hostname;
    for (const auto& [name, text] : files) {
        if (is_named(name, "timestamp")) {
            std::string value = text;  // "$ date +%s" above the number: the number
            for (const auto& part : split_commands(split_lines(name, text, label)))
                for (const auto& l : part.lines)
                    if (!bundle::trim(l).empty() && value == text) value = l;
            auto t = parse_timestamp(fs::path(dir) / name, value);
            if (!t) return t.error();
            cap.timestamp_s = *t;
            continue;
        }
        if (is_named(name, "hostname")) {
            hostname.clear();
            for (const auto& part : split_commands(split_lines(name, text, label))) {
                for (const auto& l : part.lines)
                    if (!bundle::trim(l).empty()) {
                        hostname = std::string(bundle::trim(l));
                        break;
                    }
                if (!hostname.empty()) break;
            }
            if (!hostname.empty() && looks_like_text(hostname) &&
                bundle::tokens(hostname).size() == 1)
                continue;
            hostname.clear();
            m.note(name, "hostname file is empty or not one name; the directory name is used");
            continue;
        }
        if (!looks_like_text(text)) {
            cap.unrecognized.push_back(name);
            m.note(name, "binary content, not a text capture");
            continue;
        }
        const auto parts = split_commands(split_lines(name, text, label));
        std::vector<std::string> kinds;
        for (const TextFile& f : parts) {
            const Format* fmt = std::find_if(std::begin(kFormats), std::end(kFormats),
                                             [&](const Format& x) { return x.detect(f); });
            if (fmt == std::end(kFormats)) {
                if (parts.size() > 1 || !f.command.empty()) {
                    std::size_t first = 0;
                    while (first < f.lines.size() && bundle::trim(f.lines[first]).empty()) ++first;
                    m.note(
                        name + ":" + std::to_string(first + 1),
                        "output" +
                            (f.command.empty() ? std::string{} : " of " + quote_value(f.command)) +
                            " is not a format rocehealth reads; ignored");
                }
                continue;
            }
            kinds.push_back(fmt->parse(f, m));
        }
        if (kinds.empty()) {
            cap.unrecognized.push_back(name);
            if (bundle::trim(text).empty()) m.note(name, "empty file");
            continue;
        }
        std::string joined;
        for (const auto& k : kinds) joined += (joined.empty() ? "" : " + ") + k;
        cap.recognized.push_back(name + ": " + joined);
    }

    Snapshot& s = cap.snapshot;
    s.host = hostname.empty() ? label : hostname;
    s.sysfs_root = "bundle:" + dir;
    if (cap.timestamp_s)
        s.collected_at = utc_iso8601(std::chrono::system_clock::time_point(
            std::chrono::seconds(static_cast<std::int64_t>(std::floor(*cap.timestamp_s)))));
    cap.identity = identity_from_model(m, hostname);
    bundle::merge_into(m, s);
    add_snapshot_identity(cap.identity, s);
    return cap;
}

Result<BundleCapture> import(const std::string& dir) {
    const fs::path root(dir);
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        return Error{"open", dir, ec ? ec.value() : ENOTDIR,
                     "bundle directory does not exist or is not a directory"};
    std::vector<fs::path> paths;
    std::vector<std::string> subdirs;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code st;
        if (it->is_regular_file(st))
            paths.push_back(it->path());
        else if (it->is_directory(st))
            subdirs.push_back(it->path().filename().string());
    }
    if (ec) return Error{"list", dir, ec.value(), "cannot read the bundle directory"};
    std::sort(paths.begin(), paths.end());
    std::sort(subdirs.begin(), subdirs.end());

    Model m;
    Files files;
    std::vector<std::string> unreadable;
    for (const auto& p : paths) {
        const std::string name = p.filename().string();
        auto text = read_file(p);
        if (!text) {
            unreadable.push_back(name);
            m.note(name, "not read: " + text.error().message());
            continue;
        }
        files.emplace_back(name, std::move(*text));
    }
    if (!subdirs.empty() && paths.empty()) {
        std::string list;
        for (const auto& s : subdirs) list += (list.empty() ? "" : ", ") + s;
        m.note(basename_of(dir), "no capture files here, only subdirectories (" + list +
                                     "): each capture is its own bundle directory");
    }
    return import_files(dir, files, m, std::move(unreadable));
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
