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

SysfsRoot::SysfsRoot(fs::path root) : root_(std::move(root)) {
    std::error_code ec;
    live_ = fs::equivalent(root_, "/sys", ec);
}

fs::path SysfsRoot::path(std::string_view rel) const {
    if (!rel.empty() && rel.front() != '/' && !root_.empty()) return fs::path(path_text(rel));
    fs::path p(rel);
    if (p.is_absolute()) {
        auto r = p.lexically_relative(root_);
        if (!r.empty() && *r.begin() != "..") return p;
        p = p.relative_path();
    }
    return root_ / p;
}

std::string SysfsRoot::path_text(std::string_view rel) const {
    // Relative paths (nearly every call) by string concatenation: the same text as root_ / rel
    // without splitting both into components.
    if (rel.empty() || rel.front() == '/' || root_.empty()) return path(rel).string();
    const std::string& r = root_.native();
    std::string s;
    s.reserve(r.size() + 1 + rel.size());
    s.append(r);
    if (r.back() != '/') s.push_back('/');
    s.append(rel);
    return s;
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
/// With `keep_open`, the file is read from offset 0 with pread (a sysfs attribute is generated
/// again for a read at offset 0) and `fd` is left open, for a caller that keeps it.
template <class PathFn>
std::optional<Result<std::string>> read_whole(int fd, PathFn path, bool keep_open = false) {
    const auto done = [&] {
        if (!keep_open) ::close(fd);
    };
    const auto read_at = [&](char* buf, std::size_t len, std::size_t off) {
        return keep_open ? ::pread(fd, buf, len, static_cast<off_t>(off)) : ::read(fd, buf, len);
    };
    std::string s;
    char buf[4096];
    for (bool first = true;; first = false) {
        ssize_t n = read_at(buf, sizeof buf, s.size());
        while (n < 0 && errno == EINTR) n = read_at(buf, sizeof buf, s.size());
        if (first && (n <= 0 || static_cast<std::size_t>(n) == sizeof buf)) {
            const int read_errno = errno;
            if (!is_regular(fd)) {
                done();
                return std::nullopt;
            }
            errno = read_errno;
        }
        if (n == 0) break;
        if (n < 0) {
            // sysfs answers EIO/EINVAL for some attributes (unused GID, no PMA): an error, not
            // an empty value.
            auto e = errno_error("read", path().string());
            done();
            return e;
        }
        if (s.size() + static_cast<std::size_t>(n) > SysfsRoot::kMaxAttributeBytes) {
            done();
            return Error{"read", path().string(), EFBIG,
                         "larger than " + std::to_string(SysfsRoot::kMaxAttributeBytes / 1024) +
                             " KiB: not a sysfs attribute"};
        }
        s.append(buf, static_cast<std::size_t>(n));
        if (static_cast<std::size_t>(n) < sizeof buf) break;
    }
    done();
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

std::optional<Result<std::string>> read_open_regular(int fd, std::string_view dir,
                                                     std::string_view name) {
    // The path is built only for an error message.
    return read_whole(
        fd, [&] { return fs::path(std::string(dir) + "/" + std::string(name)); }, true);
}

Result<std::string> SysfsRoot::read_text(std::string_view rel) const {
    // Plain open/read: this runs for every counter file of every pass, and a sysfs attribute
    // is at most a page, so one read() usually returns it whole (iostreams cost several times
    // more per file). O_NONBLOCK and the regular-file check keep a FIFO or a device node in a
    // copied tree from blocking or streaming forever.
    const std::string p = path_text(rel);
    const int fd = ::open(p.c_str(), kOpenFlags);
    if (fd < 0) return errno_error("open", p);
    if (auto r = read_whole(fd, [&] { return fs::path(p); })) return std::move(*r);
    struct stat st {};
    const bool dir = ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    return Error{"read", p, dir ? EISDIR : 0, dir ? "" : "not a regular file"};
}

std::optional<Result<std::string>> SysfsRoot::read_regular(std::string_view rel) const {
    const std::string p = path_text(rel);
    const int fd = ::open(p.c_str(), kOpenFlags);
    if (fd < 0) return std::nullopt;
    return read_whole(fd, [&] { return fs::path(p); });
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

/// Sorted entry names of the open directory `fd` (closed here); `p` names it in errors.
/// getdents64 into a stack buffer: opendir's DIR allocates 32 KiB per directory, a tenth of a
/// discovery pass's instructions.
template <class PathFn>
Result<std::vector<std::string>> read_entries(int fd, PathFn p) {
    std::vector<std::string> names;
    alignas(dirent64) char buf[8192];
    int err = 0;
    for (;;) {
        const ssize_t n = ::getdents64(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            err = n < 0 ? errno : 0;
            break;
        }
        for (ssize_t off = 0; off < n;) {
            const auto* e = reinterpret_cast<const dirent64*>(buf + off);
            off += e->d_reclen;
            const std::string_view name = e->d_name;
            if (name != "." && name != "..") names.emplace_back(name);
        }
    }
    ::close(fd);
    if (err) return Error{"list", p().string(), err, {}};
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

Result<std::vector<std::string>> SysfsRoot::list(std::string_view rel) const {
    // getdents64 rather than std::filesystem::directory_iterator: no path object per entry.
    const std::string p = path_text(rel);
    const int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Error{"list", p, errno, {}};
    return read_entries(fd, [&] { return fs::path(p); });
}

SysfsDir::SysfsDir(const SysfsRoot& sysfs, std::string rel)
    : sysfs_(sysfs),
      rel_(std::move(rel)),
      fd_(::open(sysfs.path_text(rel_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}

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
    // A descriptor of its own (fd_'s position stays where it is), opened relative to fd_.
    const int fd = fd_ >= 0 ? ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd < 0) return sysfs_.list(rel_);
    return read_entries(fd, [&] { return sysfs_.path(rel_); });
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
    struct stat st {};
    return ::stat(path_text(rel).c_str(), &st) == 0;  // as fs::exists: symlinks followed
}

}  // namespace rh
