// The pieces both caches of kept sysfs descriptors share (discovery's KeptFiles,
// collectors/sources/kept_files.h, and the steady-state poller's files,
// collectors/poller/poll_files.h): an owned descriptor, the one way to open a file to keep it,
// and one inotify instance whose queue is drained without blocking.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace rh {

/// An owned file descriptor (-1: none).
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = std::exchange(o.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset();

  private:
    int fd_ = -1;
};

/// Opens `path` read-only to keep it (O_CLOEXEC|O_NONBLOCK, and O_NOATIME where the caller may
/// ask for it: reading a counter is no access worth recording, and on a copy of a sysfs tree
/// relatime would write an inode after every change). Invalid unless it is a regular file.
Fd open_kept_regular(const std::string& path);

/// One inotify instance (IN_NONBLOCK|IN_CLOEXEC), opened on the first add() or by open().
class DirEvents {
  public:
    /// Opens the instance now; false when the kernel refuses (limits).
    bool open();
    bool is_open() const { return static_cast<bool>(fd_); }
    /// A watch of `path` for `mask`: its watch descriptor, or -1 (no instance, or refused).
    /// One inode reached by two paths gets one watch descriptor.
    int add(const std::string& path, std::uint32_t mask);
    void remove(int wd);
    /// Reads every queued event (one read() when there is none) and calls `on(wd, mask)` for
    /// each; an overflow (events lost) comes as wd -1 with IN_Q_OVERFLOW.
    void drain(const std::function<void(int wd, std::uint32_t mask)>& on);

  private:
    Fd fd_;
    bool tried_ = false;
};

}  // namespace rh
