#include "collectors/sources/dir_events.h"

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace rh {

void Fd::reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

Fd open_kept_regular(const std::string& path) {
    // Only the owner or CAP_FOWNER may ask for O_NOATIME (EPERM): then without.
    constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
    Fd fd(::open(path.c_str(), kFlags | O_NOATIME));
    if (!fd && errno == EPERM) fd = Fd(::open(path.c_str(), kFlags));
    struct stat st {};
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return Fd();
    return fd;
}

bool DirEvents::open() {
    if (!tried_) {
        tried_ = true;
        fd_ = Fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    }
    return is_open();
}

int DirEvents::add(const std::string& path, std::uint32_t mask) {
    return open() ? ::inotify_add_watch(fd_.get(), path.c_str(), mask) : -1;
}

void DirEvents::remove(int wd) {
    if (fd_) ::inotify_rm_watch(fd_.get(), wd);
}

void DirEvents::drain(const std::function<void(int wd, std::uint32_t mask)>& on) {
    if (!fd_) return;
    alignas(struct inotify_event) char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd_.get(), buf, sizeof buf);
        if (n <= 0) return;  // EAGAIN: nothing more
        for (ssize_t off = 0; off < n;) {
            const auto* e = reinterpret_cast<const struct inotify_event*>(buf + off);
            off += static_cast<ssize_t>(sizeof(struct inotify_event) + e->len);
            on(e->mask & IN_Q_OVERFLOW ? -1 : e->wd, e->mask);
        }
    }
}

}  // namespace rh
