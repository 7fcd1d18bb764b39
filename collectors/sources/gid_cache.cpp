#include "collectors/sources/gid_cache.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "collectors/sources/rdma_sysfs.h"
#include "core/clock.h"

namespace rh {

namespace {

/// A directory's entries or files changed, or the directory itself went away.
constexpr std::uint32_t kGidWatchMask = IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE |
                                        IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
                                        IN_MOVE_SELF | IN_ONLYDIR;

/// The directories of a table (relative to its port directory).
constexpr std::array<const char*, 3> kTableDirs = {"gids", "gid_attrs/types", "gid_attrs/ndevs"};

int open_rtnl_listener() {
    const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -1;
    sockaddr_nl sa{};
    sa.nl_family = AF_NETLINK;
    sa.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

struct GidCache::Impl {
    struct Entry {
        std::vector<Gid> gids;
        double read_s = 0;  ///< CLOCK_MONOTONIC seconds when the read began
        dev_t dev = 0;      ///< live: identity of the `gids` directory
        ino_t ino = 0;
        std::vector<int> wds;  ///< fixture: inotify watches of kTableDirs
    };

    std::mutex mu;
    std::unordered_map<std::string, Entry> entries;  ///< by absolute port directory
    std::unordered_multimap<int, std::string> wd_keys;
    int inotify = -1;
    bool inotify_tried = false;
    int rtnl = -1;
    bool rtnl_tried = false;
    double last_event_s = -std::numeric_limits<double>::infinity();
    std::size_t reads = 0;

    ~Impl() {
        if (inotify >= 0) ::close(inotify);
        if (rtnl >= 0) ::close(rtnl);
    }

    void erase(const std::string& key) {
        auto it = entries.find(key);
        if (it == entries.end()) return;
        for (const int wd : it->second.wds) {
            auto [b, e] = wd_keys.equal_range(wd);
            for (auto k = b; k != e;) k = k->second == key ? wd_keys.erase(k) : std::next(k);
            // One inode reached by two paths shares a watch: remove it with its last user.
            if (wd_keys.count(wd) == 0) ::inotify_rm_watch(inotify, wd);
        }
        entries.erase(it);
    }

    void clear() {
        while (!entries.empty()) {
            const std::string key = entries.begin()->first;  // erase() destroys the map's copy
            erase(key);
        }
    }

    /// Live: true when a listener hears the notifications; drops every table on one.
    bool drain_rtnl() {
        if (!rtnl_tried) {
            rtnl_tried = true;
            rtnl = open_rtnl_listener();
        }
        if (rtnl < 0) return false;
        alignas(nlmsghdr) char buf[8192];
        bool event = false;
        for (;;) {
            const ssize_t n = ::recv(rtnl, buf, sizeof buf, MSG_DONTWAIT);
            if (n > 0 || (n < 0 && errno == ENOBUFS)) {  // ENOBUFS: notifications lost
                event = true;
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            break;  // EAGAIN: nothing more
        }
        if (event) {
            last_event_s = monotonic_now_s();
            for (auto it = entries.begin(); it != entries.end();)
                it = it->second.wds.empty() ? entries.erase(it) : std::next(it);
        }
        return true;
    }

    /// Fixture: drops the tables whose directories changed.
    void drain_inotify() {
        if (inotify < 0) return;
        alignas(inotify_event) char buf[4096];
        for (;;) {
            const ssize_t n = ::read(inotify, buf, sizeof buf);
            if (n <= 0) return;  // EAGAIN: nothing more
            for (ssize_t off = 0; off < n;) {
                const auto* e = reinterpret_cast<const inotify_event*>(buf + off);
                off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
                if (e->mask & IN_Q_OVERFLOW) {  // events lost: nothing kept can be trusted
                    clear();
                    continue;
                }
                std::vector<std::string> keys;
                auto [b, end] = wd_keys.equal_range(e->wd);
                for (auto k = b; k != end; ++k) keys.push_back(k->second);
                for (const auto& k : keys) erase(k);
            }
        }
    }

    /// Fixture: watches a table's directories before it is read; false (nothing watched) when
    /// one cannot be.
    bool watch(const std::string& key, Entry& e) {
        if (!inotify_tried) {
            inotify_tried = true;
            inotify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        }
        if (inotify < 0) return false;
        for (const char* dir : kTableDirs) {
            const int wd = ::inotify_add_watch(inotify, (key + "/" + dir).c_str(), kGidWatchMask);
            if (wd < 0) {
                for (const int w : e.wds)
                    if (wd_keys.count(w) == 0) ::inotify_rm_watch(inotify, w);
                e.wds.clear();
                return false;
            }
            e.wds.push_back(wd);
        }
        return true;
    }

    /// The identity of the live `gids` directory, false when it cannot be stat'ed.
    static bool identify(const std::string& key, dev_t& dev, ino_t& ino) {
        struct stat st {};
        if (::stat((key + "/gids").c_str(), &st) != 0) return false;
        dev = st.st_dev;
        ino = st.st_ino;
        return true;
    }

    std::vector<Gid> gids(const SysfsRoot& sysfs, const std::string& port_dir) {
        const std::lock_guard lock(mu);
        const bool live = sysfs.is_live();
        // By absolute path: a relative root names another tree after a chdir.
        const std::filesystem::path at = sysfs.path(port_dir);
        const std::string key =
            at.is_absolute() ? at.string() : std::filesystem::absolute(at).string();
        const bool listening = live ? drain_rtnl() : (drain_inotify(), true);
        const double now = monotonic_now_s();
        if (auto it = entries.find(key); it != entries.end()) {
            const Entry& e = it->second;
            dev_t dev = 0;
            ino_t ino = 0;
            if (!live) return e.gids;  // still watched: unchanged
            if (now - e.read_s < kMaxAgeS && identify(key, dev, ino) && dev == e.dev &&
                ino == e.ino)
                return e.gids;
            erase(key);
        }
        Entry e;
        e.read_s = now;
        bool keep = false;
        if (live)
            keep = listening && now - last_event_s >= kSettleS && identify(key, e.dev, e.ino);
        else
            keep = watch(key, e);  // before the read: a write meanwhile is an event
        e.gids = read_gids(sysfs, port_dir);
        ++reads;
        if (!keep) return e.gids;
        if (entries.size() >= kMaxPorts) clear();
        for (const int wd : e.wds) wd_keys.emplace(wd, key);
        return entries.emplace(key, std::move(e)).first->second.gids;
    }
};

GidCache::GidCache() : impl_(std::make_unique<Impl>()) {}
GidCache::~GidCache() = default;

GidCache& GidCache::shared() {
    static GidCache cache;
    return cache;
}

std::vector<Gid> GidCache::gids(const SysfsRoot& sysfs, const std::string& port_dir) {
    return impl_->gids(sysfs, port_dir);
}

std::size_t GidCache::reads() const {
    const std::lock_guard lock(impl_->mu);
    return impl_->reads;
}

}  // namespace rh
