#include "collectors/poller/poll_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <set>

#include "collectors/sources/rdma_sysfs.h"

namespace rh::poll {

namespace {

/// Directory events that can make the discovered file set wrong.
constexpr std::uint32_t kPollerWatchMask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                           IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

}  // namespace

/// The kernel source a file belongs to.
Source source_of(Target t) {
    switch (t) {
        case Target::netdev:
            return Source::netdev_sysfs;
        case Target::aer_dev:
        case Target::aer_total:
            return Source::aer;
        default:
            return Source::rdma_sysfs;
    }
}

Files::Files(const SysfsRoot& root, DirWatch watch) : sysfs(root) {
    struct rlimit rl {};
    const rlim_t soft = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
    const rlim_t cap = std::min<rlim_t>(soft, 1u << 20);
    budget_ = static_cast<std::size_t>(cap > 512 ? cap - 256 : cap / 2);
    if (watch == DirWatch::inotify) events_.open();
}

std::uint32_t Files::dir_of(const std::string& rel, bool counter_dir) {
    const std::string path = sysfs.path(rel).string();
    for (std::uint32_t i = 0; i < dirs.size(); ++i)
        if (dirs[i].path == path) return i;
    Dir d;
    d.path = path;
    d.counter_dir = counter_dir;
    const auto index = static_cast<std::uint32_t>(dirs.size());
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        d.dev = st.st_dev;
        d.ino = st.st_ino;
    }
    if (events_.is_open()) {
        const int wd = events_.add(path, kPollerWatchMask);
        if (wd >= 0) {
            if (wd_dirs_.size() <= static_cast<std::size_t>(wd)) wd_dirs_.resize(wd + 1);
            wd_dirs_[wd].push_back(index);  // one inode reached by two paths: one wd
            d.watched = true;
        }
    }
    if (!d.watched) open_dir(d);
    dirs.push_back(std::move(d));
    return index;
}

/// An unwatched directory: keeps its descriptor (within the budget) and its mtime.
void Files::open_dir(Dir& d) {
    if (kept >= budget_) return;  // then stat by path on each pass
    d.fd = Fd(::open(d.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat st {};
    if (d.fd && ::fstat(d.fd.get(), &st) == 0) {
        d.mtime = st.st_mtim;
        ++kept;
    } else {
        d.fd.reset();
    }
}

File& Files::add(std::string dir_rel, const std::string& name, Target t, std::uint32_t dev,
                 std::uint32_t port, std::uint32_t index, bool counter_dir) {
    File f;
    f.rel = dir_rel + "/" + name;
    f.path = sysfs.path(f.rel).string();
    f.target = t;
    f.dev = dev;
    f.port = port;
    f.index = index;
    // statistics/<x> lives in its own directory.
    const auto slash = f.rel.rfind('/');
    f.dir = dir_of(f.rel.substr(0, slash), counter_dir);
    dirs[f.dir].files.push_back(static_cast<std::uint32_t>(files.size()));
    files.push_back(std::move(f));
    return files.back();
}

void Files::open_all() {
    for (auto& f : files) open_kept(f);
}

/// Opens `f` to keep it, when the budget allows; a failure is reported by the read.
void Files::open_kept(File& f) {
    if (f.fd || kept >= budget_) return;
    f.fd = open_kept_regular(f.path);
    if (f.fd) ++kept;
}

void Files::drop(File& f) {
    if (!f.fd) return;
    f.fd.reset();
    --kept;
}

Result<std::string_view> Files::read(File& f, char* buf, std::size_t cap, std::string& slow) {
    open_kept(f);
    if (!f.fd) {
        // Absent, not a regular file, or no descriptor budget left: one read by path,
        // with discovery's own checks and messages.
        auto t = read_attr_file(sysfs, f.rel);
        if (!t) return t.error();
        slow = std::move(*t);
        return std::string_view(slow);
    }
    ssize_t n;
    do n = ::pread(f.fd.get(), buf, cap, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) return errno_error("read", f.path);
    if (static_cast<std::size_t>(n) == cap) {  // more than a sysfs page: read it whole
        auto t = sysfs.read_text(f.rel);
        if (!t) return t.error();
        slow = std::move(*t);
        return std::string_view(slow);
    }
    return std::string_view(buf, static_cast<std::size_t>(n));
}

void Files::check_dirs(std::vector<std::string>& rediscover) {
    read_events();
    for (auto& d : dirs) {
        if (!d.watched) stat_dir(d);
        if (d.changed && !d.gone) look_again(d);
        if (d.gone)
            rediscover.push_back("directory removed: " + d.path);
        else if (!d.unknown.empty())
            rediscover.push_back("new counter file " + d.unknown);
    }
}

/// Drains the inotify queue (non-blocking: one read() when nothing happened).
void Files::read_events() {
    events_.drain([&](int wd, std::uint32_t mask) {
        if (mask & IN_Q_OVERFLOW) {  // events lost: look at every directory
            for (auto& d : dirs) d.changed = true;
            return;
        }
        if (wd < 0 || static_cast<std::size_t>(wd) >= wd_dirs_.size()) return;
        for (auto i : wd_dirs_[wd]) {
            Dir& d = dirs[i];
            if (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
                d.gone = true;
            } else if (mask & IN_IGNORED) {  // watch dropped (unmount): fstat checks
                if (!d.gone && d.watched) {
                    d.watched = false;
                    open_dir(d);
                    d.changed = true;
                }
            } else {
                d.changed = true;
            }
        }
    });
}

/// An unwatched directory's fstat (or stat by path without a descriptor): removed, or
/// changed. An mtime less than two seconds old may hide a later change in the same clock
/// tick (filesystems stamp with a coarse clock), so such a directory is looked at again.
void Files::stat_dir(Dir& d) {
    if (d.gone) return;  // stays removed until the poller is rebuilt
    struct stat st {};
    const int rc = d.fd ? ::fstat(d.fd.get(), &st) : ::stat(d.path.c_str(), &st);
    d.gone = rc != 0 ? (errno == ENOENT || errno == ENOTDIR) : st.st_nlink == 0;
    if (rc != 0 || d.gone) return;
    struct timespec now {};
    ::clock_gettime(CLOCK_REALTIME, &now);
    const bool racy = now.tv_sec - st.st_mtim.tv_sec <= 1;
    if (!racy && st.st_mtim.tv_sec == d.mtime.tv_sec && st.st_mtim.tv_nsec == d.mtime.tv_nsec)
        return;
    d.mtime = st.st_mtim;
    d.changed = true;
}

/// A changed directory: removed (or replaced by another), closes kept files that were
/// unlinked (replaced or removed), and for a counter directory looks for files discovery
/// did not see.
void Files::look_again(Dir& d) {
    d.changed = false;
    // inotify reports a removed directory itself only once no open file pins it: its
    // entries' removal comes first. So: is the path still this directory?
    struct stat st {};
    if (::stat(d.path.c_str(), &st) != 0 || st.st_dev != d.dev || st.st_ino != d.ino) d.gone = true;
    for (auto i : d.files) {
        File& f = files[i];
        struct stat fst {};
        if (f.fd && ::fstat(f.fd.get(), &fst) == 0 && fst.st_nlink == 0) drop(f);
    }
    if (!d.counter_dir) return;
    d.unknown.clear();
    std::set<std::string_view> known;
    for (auto i : d.files) {
        const std::string_view rel = files[i].rel;
        known.insert(rel.substr(rel.rfind('/') + 1));
    }
    DIR* dp = ::opendir(d.path.c_str());
    if (!dp) return;
    while (const dirent* e = ::readdir(dp)) {
        const std::string_view n = e->d_name;
        if (n == "." || n == ".." || n == "lifespan" || known.count(n)) continue;
        d.unknown = d.path + "/" + std::string(n);
        break;
    }
    ::closedir(dp);
}

}  // namespace rh::poll
