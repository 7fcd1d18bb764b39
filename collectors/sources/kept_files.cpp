#include "collectors/sources/kept_files.h"

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>
#include <mutex>

#include "collectors/sources/dir_events.h"

namespace rh {

namespace {

// Anything that can put another file under a kept name, or take the directory away.
constexpr std::uint32_t kKeptFilesWatchMask =
    IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;

/// Descriptors this cache may hold: a quarter of the soft RLIMIT_NOFILE, at most kMaxFiles (the
/// agent's poller keeps its own descriptors of the same files).
std::size_t file_budget() {
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return KeptFiles::kMaxFiles;
    return std::min<std::size_t>(KeptFiles::kMaxFiles, rl.rlim_cur / 4);
}

}  // namespace

struct KeptFiles::Impl {
    using Clock = std::chrono::steady_clock;
    struct Dir {
        dev_t st_dev = 0;
        ino_t st_ino = 0;
        std::vector<std::string> names;
        std::vector<int> fds;  ///< per name, -1 where the file did not open as a regular file
        Clock::time_point at;
        int wd = -1;  ///< fixture: the inotify watch
        bool dirty = false;
    };
    std::mutex mu;
    std::map<std::string, Dir> dirs;  ///< by the directory's path
    std::map<int, std::string> wd_dirs;
    std::size_t open_files = 0;
    const std::size_t budget = file_budget();
    DirEvents events;  ///< fixture directories' watches
    std::size_t kept_reads = 0;

    ~Impl() {
        for (auto& [key, d] : dirs)
            for (int fd : d.fds)
                if (fd >= 0) ::close(fd);
    }

    void drop(std::map<std::string, Dir>::iterator it) {
        for (int fd : it->second.fds)
            if (fd >= 0) {
                ::close(fd);
                --open_files;
            }
        if (it->second.wd >= 0) {
            events.remove(it->second.wd);
            wd_dirs.erase(it->second.wd);
        }
        dirs.erase(it);
    }

    /// Marks the directories that had an event since the last call.
    void drain_inotify() {
        events.drain([&](int wd, std::uint32_t mask) {
            if (mask & IN_Q_OVERFLOW) {
                for (auto& [key, d] : dirs) d.dirty = true;
            } else if (auto w = wd_dirs.find(wd); w != wd_dirs.end()) {
                auto it = dirs.find(w->second);
                if (it != dirs.end()) it->second.dirty = true;
                if (mask & IN_IGNORED) {  // the watch is gone (directory removed)
                    if (it != dirs.end()) it->second.wd = -1;
                    wd_dirs.erase(w);
                }
            }
        });
    }

    int watch(const std::string& path) { return events.add(path, kKeptFilesWatchMask); }
};

KeptFiles::KeptFiles() : impl_(std::make_unique<Impl>()) {}
KeptFiles::~KeptFiles() = default;

KeptFiles& KeptFiles::shared() {
    static KeptFiles files;
    return files;
}

std::size_t KeptFiles::kept_reads() const {
    const std::lock_guard lock(impl_->mu);
    return impl_->kept_reads;
}

void KeptFiles::read(const SysfsDir& dir, const std::vector<std::string>& names,
                     const std::function<void(std::size_t, Result<std::string>&&)>& take) {
    struct stat st {};
    if (!dir.is_open() || ::fstat(dir.fd(), &st) != 0) return;
    const std::string path = dir.sysfs().path_text(dir.rel());
    const bool live = dir.sysfs().is_live();

    Impl& m = *impl_;
    const std::lock_guard lock(m.mu);
    m.drain_inotify();
    const auto now = Impl::Clock::now();
    if (auto it = m.dirs.find(path); it != m.dirs.end()) {
        Impl::Dir& d = it->second;
        if (!d.dirty && d.st_dev == st.st_dev && d.st_ino == st.st_ino && d.names == names &&
            now - d.at < std::chrono::duration<double>(kMaxAgeS)) {
            bool gone = false;
            for (std::size_t i = 0; i < names.size(); ++i) {
                if (d.fds[i] < 0) continue;
                auto r = read_open_regular(d.fds[i], path, names[i]);
                // A removed attribute (ENODEV on sysfs): read by path, open the directory again.
                if (!r || (!*r && (r->error().err_no == ENODEV || r->error().err_no == ESTALE))) {
                    gone = true;
                    continue;
                }
                take(i, std::move(*r));
            }
            if (gone) m.drop(it);
            ++m.kept_reads;
            return;
        }
        m.drop(it);
    }

    if (m.open_files + names.size() > m.budget) return;
    Impl::Dir d;
    d.st_dev = st.st_dev;
    d.st_ino = st.st_ino;
    d.at = now;
    if (!live) {  // watched before the files are read
        d.wd = m.watch(path);
        // No watch, or one another path already holds (two names of one directory).
        if (d.wd < 0 || m.wd_dirs.count(d.wd) != 0) return;
    }
    d.fds.assign(names.size(), -1);
    for (std::size_t i = 0; i < names.size(); ++i) {
        const int fd = ::openat(dir.fd(), names[i].c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) continue;
        auto r = read_open_regular(fd, path, names[i]);
        if (!r) {  // not a regular file: the caller reads it by path and says why
            ::close(fd);
            continue;
        }
        d.fds[i] = fd;
        ++m.open_files;
        take(i, std::move(*r));
    }
    d.names = names;
    if (d.wd >= 0) m.wd_dirs[d.wd] = path;
    m.dirs[path] = std::move(d);
}

}  // namespace rh
