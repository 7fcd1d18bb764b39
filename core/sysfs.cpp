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

/// Whether the open `fd` is a regular file.
bool is_regular(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/// Reads the open file `fd` whole and closes it; `path` names it in errors. A sysfs attribute is
/// at most a page, so a read() shorter than the buffer is the whole file (as the counter poller
/// assumes): one read per file instead of a second one to see EOF.
/// A file that is not a regular file gives nullopt (closed, unread past the first read): its
/// type is looked up (fstat) only when the first read is not what an attribute gives (1 to
/// 4095 bytes), i.e. for a directory (EISDIR), a FIFO or device node (0 bytes, EAGAIN, a full
/// buffer), an empty file or a read error: one system call less per attribute (a discovery
/// pass reads ~800). Only a device node that answers its first read short is read as text.
template <class PathFn>
std::optional<Result<std::string>> read_whole(int fd, PathFn path) {
    std::string s;
    char buf[4096];
    for (bool first = true;; first = false) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        while (n < 0 && errno == EINTR) n = ::read(fd, buf, sizeof buf);
        if (first && (n <= 0 || static_cast<std::size_t>(n) == sizeof buf)) {
            const int read_errno = errno;
            if (!is_regular(fd)) {
                ::close(fd);
                return std::nullopt;
            }
            errno = read_errno;
        }
        if (n == 0) break;
        if (n < 0) {
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
    return Result<std::string>(std::move(s));
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
    if (auto r = read_whole(fd, [&] { return p; })) return std::move(*r);
    struct stat st {};
    const bool dir = ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    return Error{"read", p.string(), dir ? EISDIR : 0, dir ? "" : "not a regular file"};
}

std::optional<Result<std::string>> SysfsRoot::read_regular(std::string_view rel) const {
    const fs::path p = path(rel);
    const int fd = ::open(p.c_str(), kOpenFlags);
    if (fd < 0) return std::nullopt;
    return read_whole(fd, [&] { return p; });
}

std::optional<Result<std::string>> SysfsRoot::read_regular_at(int dirfd, const char* name,
                                                              std::string_view rel) const {
    const int fd = ::openat(dirfd, name, kOpenFlags);
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

namespace {

/// Sorted entry names of the open directory `dir` (closed here); `p` names it in errors.
template <class PathFn>
Result<std::vector<std::string>> read_entries(DIR* dir, PathFn p) {
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
    if (err) return Error{"list", p().string(), err, {}};
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

Result<std::vector<std::string>> SysfsRoot::list(std::string_view rel) const {
    // opendir/readdir rather than std::filesystem::directory_iterator: no path object per entry.
    const fs::path p = path(rel);
    DIR* dir = ::opendir(p.c_str());
    if (!dir) return Error{"list", p.string(), errno, {}};
    return read_entries(dir, [&] { return p; });
}

SysfsDir::SysfsDir(const SysfsRoot& sysfs, std::string rel)
    : sysfs_(sysfs),
      rel_(std::move(rel)),
      fd_(::open(sysfs.path(rel_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}

SysfsDir::~SysfsDir() {
    if (fd_ >= 0) ::close(fd_);
}

std::string SysfsDir::rel_of(std::string_view name) const {
    std::string r;
    r.reserve(rel_.size() + 1 + name.size());
    r.append(rel_).push_back('/');
    r.append(name);
    return r;
}

std::optional<Result<std::string>> SysfsDir::read_regular(const char* name) const {
    if (fd_ < 0) return sysfs_.read_regular(rel_of(name));
    const int fd = ::openat(fd_, name, kOpenFlags);
    if (fd < 0) return std::nullopt;
    return read_whole(fd, [&] { return sysfs_.path(rel_of(name)); });  // path: errors only
}

Result<std::string> SysfsDir::read_text(const char* name) const {
    if (fd_ >= 0)
        if (auto r = read_regular(name)) return std::move(*r);
    return sysfs_.read_text(rel_of(name));  // says why, in read_text's words
}

bool SysfsDir::exists(const char* name) const {
    if (fd_ < 0) return sysfs_.exists(rel_of(name));
    struct stat st {};
    return ::fstatat(fd_, name, &st, 0) == 0;
}

Result<std::vector<std::string>> SysfsDir::list() const {
    // A second descriptor of the directory for readdir (fdopendir takes it over); rewound,
    // since it shares the file position with fd_.
    const int dup = fd_ >= 0 ? ::fcntl(fd_, F_DUPFD_CLOEXEC, 0) : -1;
    DIR* dir = dup >= 0 ? ::fdopendir(dup) : nullptr;
    if (!dir) {
        if (dup >= 0) ::close(dup);
        return sysfs_.list(rel_);
    }
    ::rewinddir(dir);
    return read_entries(dir, [&] { return sysfs_.path(rel_); });
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
