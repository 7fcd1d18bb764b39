// import_bundle_dir: reads a capture directory, recognises each file by its content (the first
// format in kFormats whose detector accepts it), parses it into a Model and merges the Model
// into a Snapshot (bundle_merge.cpp).
#include "collectors/bundle/bundle.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "collectors/bundle/bundle_model.h"
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

TextFile split_lines(std::string name, const std::string& text) {
    TextFile f{std::move(name), {}};
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        f.lines.push_back(std::move(line));
        start = end + 1;
    }
    return f;
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

Result<BundleCapture> import(const std::string& dir) {
    const fs::path root(dir);
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        return Error{"open", dir, ec ? ec.value() : ENOTDIR,
                     "bundle directory does not exist or is not a directory"};
    std::vector<fs::path> files;
    std::vector<std::string> subdirs;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code st;
        if (it->is_regular_file(st))
            files.push_back(it->path());
        else if (it->is_directory(st))
            subdirs.push_back(it->path().filename().string());
    }
    if (ec) return Error{"list", dir, ec.value(), "cannot read the bundle directory"};
    std::sort(files.begin(), files.end());
    std::sort(subdirs.begin(), subdirs.end());

    BundleCapture cap;
    cap.dir = dir;
    Model m;
    std::string hostname;
    for (const auto& p : files) {
        const std::string name = p.filename().string();
        auto text = read_file(p);
        if (!text) {
            cap.unrecognized.push_back(name);
            m.note(name, "not read: " + text.error().message());
            continue;
        }
        if (is_named(name, "timestamp")) {
            auto t = parse_timestamp(p, *text);
            if (!t) return t.error();
            cap.timestamp_s = *t;
            continue;
        }
        if (is_named(name, "hostname")) {
            const auto lines = split_lines(name, *text).lines;
            hostname = lines.empty() ? std::string{} : std::string(bundle::trim(lines[0]));
            if (!hostname.empty() && looks_like_text(hostname)) continue;
            hostname.clear();
            m.note(name, "hostname file is empty or not text; the directory name is used");
            continue;
        }
        if (!looks_like_text(*text)) {
            cap.unrecognized.push_back(name);
            m.note(name, "binary content, not a text capture");
            continue;
        }
        const TextFile f = split_lines(name, *text);
        const Format* fmt = std::find_if(std::begin(kFormats), std::end(kFormats),
                                         [&](const Format& x) { return x.detect(f); });
        if (fmt == std::end(kFormats)) {
            cap.unrecognized.push_back(name);
            if (bundle::trim(*text).empty()) m.note(name, "empty file");
            continue;
        }
        cap.recognized.push_back(name + ": " + fmt->parse(f, m));
    }
    if (!subdirs.empty() && files.empty()) {
        std::string list;
        for (const auto& s : subdirs) list += (list.empty() ? "" : ", ") + s;
        m.note(dir, "no capture files here, only subdirectories (" + list +
                        "): each capture is its own bundle directory");
    }

    Snapshot& s = cap.snapshot;
    s.host = hostname.empty() ? basename_of(dir) : hostname;
    s.sysfs_root = "bundle:" + dir;
    if (cap.timestamp_s)
        s.collected_at = utc_iso8601(std::chrono::system_clock::time_point(
            std::chrono::seconds(static_cast<std::int64_t>(std::floor(*cap.timestamp_s)))));
    bundle::merge_into(m, s);
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

}  // namespace rh
