#include "core/sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <charconv>
#include <system_error>

namespace rh {

namespace fs = std::filesystem;

SysfsRoot::SysfsRoot(fs::path root) : root_(std::move(root)) {}

bool SysfsRoot::is_live() const {
    std::error_code ec;
    return fs::equivalent(root_, "/sys", ec);
}

fs::path SysfsRoot::path(std::string_view rel) const {
    // Relative paths (nearly every call) by string concatenation: the same text as root_ / rel
    // without splitting both into components.
    if (!rel.empty() && rel.front() != '/' && !root_.empty()) {
        const std::string& r = root_.native();
        std::string s;
        s.reserve(r.size() + 1 + rel.size());
        s.append(r);
        if (r.back() != '/') s.push_back('/');
        s.append(rel);
        return fs::path(std::move(s));
    }
    fs::path p(rel);
    if (p.is_absolute()) {
        auto r = p.lexically_relative(root_);
        if (!r.empty() && *r.begin() != "..") return p;
        p = p.relative_path();
    }
    return root_ / p;
}

namespace {

constexpr int kOpenFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;

/// Reads the open regular file `fd` whole and closes it; `path` names it in errors. A sysfs
/// attribute is at most a page, so a read() shorter than the buffer is the whole file (as the
/// counter poller assumes): one read per file instead of a second one to see EOF.
template <class PathFn>
Result<std::string> read_whole(int fd, PathFn path) {
    std::string s;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            // sysfs answers EIO/EINVAL for some attributes (unused GID, no PMA): an error, not
            // an empty value.
            auto e = errno_error("read", path().string());
            ::close(fd);
            return e;
        }
        if (s.size() + static_cast<std::size_t>(n) > SysfsRoot::kMaxAttributeBytes) {
            ::close(fd);
            return Error{"read", path().string(), EFBIG,
                         "larger than " + std::to_string(SysfsRoot::kMaxAttributeBytes / 1024) +
                             " KiB: not a sysfs attribute"};
        }
        s.append(buf, static_cast<std::size_t>(n));
        if (static_cast<std::size_t>(n) < sizeof buf) break;
    }
    ::close(fd);
    while (!s.empty() &&
           (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\0'))
        s.pop_back();
    // Attributes are ASCII text; a control byte means a damaged file. Mask it so that it can
    // neither garble a terminal nor break JSON output.
    for (char& c : s)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) c = '?';
    return s;
}

/// `fd` when it is an open regular file; else closes it and returns -1.
int regular_or_close(int fd) {
    struct stat st {};
    if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

Result<std::string> SysfsRoot::read_text(std::string_view rel) const {
    // Plain open/read: this runs for every counter file of every pass, and a sysfs attribute
    // is at most a page, so one read() usually returns it whole (iostreams cost several times
    // more per file). O_NONBLOCK and the regular-file check keep a FIFO or a device node in a
    // copied tree from blocking or streaming forever.
    const fs::path p = path(rel);
    const int fd = ::open(p.c_str(), kOpenFlags);
    if (fd < 0) return errno_error("open", p.string());
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const bool dir = S_ISDIR(st.st_mode);
        ::close(fd);
        return Error{"read", p.string(), dir ? EISDIR : 0, dir ? "" : "not a regular file"};
    }
    return read_whole(fd, [&] { return p; });
}

std::optional<Result<std::string>> SysfsRoot::read_regular(std::string_view rel) const {
    const fs::path p = path(rel);
    const int fd = regular_or_close(::open(p.c_str(), kOpenFlags));
    if (fd < 0) return std::nullopt;
    return read_whole(fd, [&] { return p; });
}

std::optional<Result<std::string>> SysfsRoot::read_regular_at(int dirfd, const char* name,
                                                              std::string_view rel) const {
    const int fd = regular_or_close(::openat(dirfd, name, kOpenFlags));
    if (fd < 0) return std::nullopt;
    return read_whole(fd, [&] { return path(rel); });
}

std::string quote_value(std::string_view text) {
    std::string q = "'";
    for (std::size_t i = 0; i < text.size() && i < kQuoteMaxChars; ++i) {
        const auto u = static_cast<unsigned char>(text[i]);
        q += (u < 0x20 || u > 0x7e) ? '?' : text[i];
    }
    if (text.size() > kQuoteMaxChars) q += "...";
    return q + "'";
}

Result<std::uint64_t> parse_u64(std::string_view text) {
    auto b = text.find_first_not_of(" \t\n");
    auto e = text.find_last_not_of(" \t\n");
    if (b == std::string_view::npos) return Error{"parse", "", 0, "empty value"};
    std::string_view t = text.substr(b, e - b + 1);
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 10);
    if (ec == std::errc::result_out_of_range)
        return Error{"parse", "", 0, "out of 64-bit range: " + quote_value(t)};
    if (ec != std::errc() || ptr != t.data() + t.size())
        return Error{"parse", "", 0, "not an unsigned decimal: " + quote_value(t)};
    return v;
}

Result<std::uint64_t> SysfsRoot::read_u64(std::string_view rel) const {
    auto text = read_text(rel);
    if (!text) return text.error();
    auto v = parse_u64(*text);
    if (!v) return Error{"parse", path(rel).string(), 0, v.error().detail};
    return v;
}

Result<std::vector<std::string>> SysfsRoot::list(std::string_view rel) const {
    // opendir/readdir rather than std::filesystem::directory_iterator: no path object per entry.
    const fs::path p = path(rel);
    DIR* dir = ::opendir(p.c_str());
    if (!dir) return Error{"list", p.string(), errno, {}};
    std::vector<std::string> names;
    for (;;) {
        errno = 0;
        const dirent* e = ::readdir(dir);
        if (!e) break;
        const std::string_view n = e->d_name;
        if (n != "." && n != "..") names.emplace_back(n);
    }
    const int err = errno;
    ::closedir(dir);
    if (err) return Error{"list", p.string(), err, {}};
    std::sort(names.begin(), names.end());
    return names;
}

Result<std::string> SysfsRoot::resolve(std::string_view rel) const {
    std::error_code ec;
    const fs::path canon_root = fs::canonical(root_, ec);
    if (ec) return Error{"resolve", root_.string(), ec.value(), {}};
    const fs::path target = fs::canonical(path(rel), ec);
    if (ec) return Error{"resolve", path(rel).string(), ec.value(), {}};
    auto r = target.lexically_relative(canon_root);
    if (r.empty() || *r.begin() == "..")
        return Error{"resolve", path(rel).string(), 0, "link leads outside " + root_.string()};
    return r.string();
}

bool SysfsRoot::exists(std::string_view rel) const {
    std::error_code ec;
    return fs::exists(path(rel), ec);
}

}  // namespace rh
