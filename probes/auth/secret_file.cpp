#include "probes/auth/secret_file.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <filesystem>

namespace rh::auth {

namespace {}  // namespace

int open_no_symlinks_by_component(const std::string& path, int flags, unsigned mode) {
    int dir = path.starts_with('/') ? ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) : AT_FDCWD;
    if (path.starts_with('/') && dir < 0) return -1;
    const auto close_dir = [&dir] {
        if (dir >= 0) ::close(dir);
    };
    std::size_t pos = 0;
    for (;;) {
        while (pos < path.size() && path[pos] == '/') ++pos;
        const std::size_t end = path.find('/', pos);
        const std::string comp = path.substr(pos, end == std::string::npos ? end : end - pos);
        std::size_t next = end;
        while (next != std::string::npos && next < path.size() && path[next] == '/') ++next;
        const bool last = end == std::string::npos || next >= path.size();
        if (last) {
            const int fd = ::openat(dir, comp.empty() ? "." : comp.c_str(),
                                    flags | O_NOFOLLOW | O_CLOEXEC, mode);
            const int e = errno;
            close_dir();
            errno = e;
            return fd;
        }
        const int fd = ::openat(dir, comp.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            const int e = errno;
            close_dir();
            errno = e;
            return -1;
        }
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
            const int e = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
            ::close(fd);
            close_dir();
            errno = e;
            return -1;
        }
        close_dir();
        dir = fd;
        pos = next;
    }
}

namespace {

std::string mode_text(unsigned m) {
    char b[8];
    std::snprintf(b, sizeof b, "%04o", m & 07777);
    return b;
}

}  // namespace

SecretBytes& SecretBytes::operator=(const SecretBytes& o) {
    if (this != &o) {
        wipe();
        b_ = o.b_;
    }
    return *this;
}

SecretBytes& SecretBytes::operator=(SecretBytes&& o) noexcept {
    if (this != &o) {
        wipe();
        b_ = std::move(o.b_);
    }
    return *this;
}

SecretBytes::~SecretBytes() {
    wipe();
}

void SecretBytes::wipe() noexcept {
    if (!b_.empty()) OPENSSL_cleanse(b_.data(), b_.size());
}

int open_no_symlinks(const std::string& path, int flags, unsigned mode) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
    how.mode = (flags & O_CREAT) ? mode : 0;
    how.resolve = RESOLVE_NO_SYMLINKS;
    const long fd = ::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return static_cast<int>(fd);
    return open_no_symlinks_by_component(path, flags, mode);
}

Result<SecretBytes> read_secret_file(const std::string& op, const std::string& path,
                                     std::size_t max_bytes) {
    const int fd = open_no_symlinks(path, O_RDONLY | O_NOCTTY);
    if (fd < 0) {
        const int e = errno;
        return Error{op, path, e,
                     e == ELOOP ? "a component of the path is a symbolic link (refused: give "
                                  "the real path)"
                                : ""};
    }
    const auto fail = [fd, &op, &path](const std::string& detail) {
        ::close(fd);
        return Error{op, path, 0, detail};
    };
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        ::close(fd);
        return Error{op, path, e, ""};
    }
    if (!S_ISREG(st.st_mode))
        return fail(S_ISDIR(st.st_mode) ? "is a directory, not a file" : "not a regular file");
    const uid_t me = ::geteuid();
    if (st.st_uid != me && st.st_uid != 0)
        return fail("is owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                    std::to_string(me) + " (this user) or root: chown " + std::to_string(me) + " " +
                    path);
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        return fail("is readable or writable by group or others (mode " + mode_text(st.st_mode) +
                    "): chmod 600 " + path);
    std::vector<std::uint8_t> out(max_bytes + 1);
    std::size_t got = 0;
    while (got < out.size()) {
        const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            OPENSSL_cleanse(out.data(), out.size());
            ::close(fd);
            return Error{op, path, e, ""};
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    SecretBytes s(std::vector<std::uint8_t>(out.begin(), out.begin() + static_cast<long>(got)));
    OPENSSL_cleanse(out.data(), out.size());
    return s;
}

}  // namespace rh::auth

namespace rh::auth {

namespace {

/// Creates the missing folders above `path`, each 0700 (a secret's folder is nobody else's
/// business; existing folders are left as they are).
Status create_secret_folders(const std::string& op, const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) return ok_status();
    std::filesystem::path at;
    for (const auto& part : parent) {
        at /= part;
        if (::mkdir(at.c_str(), 0700) == 0) {
            (void)::chmod(at.c_str(), 0700);  // mkdir's mode is masked by the umask
            continue;
        }
        if (errno == EEXIST) continue;
        return Error{op, path, errno, "cannot create its folder " + at.string()};
    }
    return ok_status();
}

}  // namespace

Status write_new_secret_file(const std::string& op, const std::string& path,
                             std::span<const std::uint8_t> bytes) {
    const auto fail = [&op, &path](int e, const std::string& why) {
        return Error{op, path, e, why};
    };
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0)
        return fail(0, S_ISREG(st.st_mode)   ? "a key is there already"
                       : S_ISDIR(st.st_mode) ? "is a directory, not a key file"
                                             : "exists and is not a regular file");
    // The default /etc/rocehealth/ does not exist on a host that never had rocehealth's
    // configuration: create the key's folders.
    if (auto made = create_secret_folders(op, path); !made) return made;
    const int fd = open_no_symlinks(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return fail(errno, errno == EEXIST  ? "a key is there already"
                           : errno == ELOOP ? "a component of the path is a symbolic link "
                                              "(refused: give the real path)"
                                            : "");
    // O_CREAT's mode is masked by the umask; 0600 is what the file must be.
    (void)::fchmod(fd, 0600);
    std::size_t put = 0;
    while (put < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + put, bytes.size() - put);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            ::close(fd);
            ::unlink(path.c_str());
            return fail(e, "");
        }
        put += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) return fail(errno, "");
    return ok_status();
}

}  // namespace rh::auth
