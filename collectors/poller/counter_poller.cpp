#include "collectors/poller/counter_poller.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "collectors/normalize.h"
#include "collectors/sources/aer.h"
#include "collectors/sources/netdev.h"
#include "collectors/sources/rdma_sysfs.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

/// An owned file descriptor.
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
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

  private:
    int fd_ = -1;
};

/// What a file's content goes to.
enum class Target : std::uint8_t {
    port_counter,  ///< (Port::*port_counter_dirs()[field].list)[index]
    port_state,    ///< port_state_files()[field] of the port
    netdev,        ///< netdev_files()[field] of netdev entry `index` (collectors/sources/netdev.h)
    aer_dev,       ///< PcieLink::aer lines "<file>/<name>" of link `index`
    aer_total,     ///< PcieLink::aer[counter] of link `index`
};

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

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

struct File {
    std::string rel;   ///< relative to the sysfs root
    std::string path;  ///< SysfsRoot::path(rel), as discovery names it
    Target target = Target::port_counter;
    std::uint32_t dev = 0, port = 0;  ///< indices in Snapshot::devices / Device::ports
    std::uint32_t index = 0;          ///< see Target
    std::uint32_t field = 0;          ///< port_counter_dirs(), port_state_files() or netdev_files()
                                      ///< entry, or aer counter index (aer_total)
    std::uint32_t dir = 0;            ///< Impl::dirs_ entry holding the file
    std::vector<std::uint32_t> aer;   ///< aer_dev: indices of the file's counters in link.aer
    Fd fd;
};

/// A directory holding kept files. Watched through inotify when possible (entries created,
/// deleted or renamed; the directory itself removed or renamed), else checked by fstat on
/// every pass (st_nlink 0 = removed; st_mtim changed, or too recent to tell = look again).
struct Dir {
    std::string path;
    Fd fd;  ///< only when not watched
    struct timespec mtime {};
    dev_t dev = 0;  ///< identity at construction: a directory re-created by path is another one
    ino_t ino = 0;
    bool counter_dir = false;  ///< `counters/` or `hw_counters/`: its file set defines counters
    bool watched = false;      ///< an inotify watch reports its changes
    bool changed = false;      ///< entries changed since the last look
    bool gone = false;         ///< removed: sticky while watched, re-checked by fstat otherwise
    std::string unknown;       ///< counter_dir: a file discovery did not see (path), if any
    std::vector<std::uint32_t> files;
};

/// A netdev shared by one or more ports; the first one's Netdev is filled, then copied.
struct NetdevEntry {
    std::string name;
    std::string dir;  ///< SysfsRoot::path("class/net/<if>"): Netdev::source once polled
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ports;  ///< (device, port)
};

/// What discovery found, to refuse a Snapshot of another shape.
struct PortShape {
    std::size_t counters = 0, hw_counters = 0;
    bool netdev = false;
};
struct DeviceShape {
    std::string name;
    std::vector<PortShape> ports;
    std::vector<std::size_t> aer_sizes;    ///< per PcieLink
    std::size_t problems = 0;              ///< Device::problems left by discovery
    std::vector<std::size_t> unavailable;  ///< per port: Netdev::unavailable left by discovery
};

/// Directory events that can make the discovered file set wrong.
constexpr std::uint32_t kPollerWatchMask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                           IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

/// read_text's cleaning of a raw attribute: trailing whitespace/NULs off, control bytes as '?'.
std::string_view clean(char* b, std::size_t n) {
    while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == ' ' || b[n - 1] == '\t' || b[n - 1] == '\0'))
        --n;
    for (std::size_t i = 0; i < n; ++i) {
        const auto u = static_cast<unsigned char>(b[i]);
        if ((u < 0x20 && b[i] != '\n' && b[i] != '\t') || u == 0x7f) b[i] = '?';
    }
    return {b, n};
}

bool same_names(const std::vector<Counter>& a, const std::vector<Counter>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Counter& x, const Counter& y) { return x.name == y.name; });
}

/// What take_counters changed.
enum class Took : std::uint8_t {
    nothing,  ///< same names and values
    values,   ///< same names, other values (or readability)
    names,    ///< other names or sources: the port's normalizer must be resolved again
};

/// Replaces `list` by `fresh`; in place (no allocation) when the names and sources are the same
/// (a PortNormalizer copies both only when it is resolved).
Took take_counters(std::vector<Counter>& list, std::vector<Counter>&& fresh) {
    if (!same_names(list, fresh) ||
        !std::equal(list.begin(), list.end(), fresh.begin(), fresh.end(),
                    [](const Counter& x, const Counter& y) { return x.source == y.source; })) {
        list = std::move(fresh);
        return Took::names;
    }
    bool changed = false;
    for (std::size_t i = 0; i < list.size(); ++i) {
        changed = changed || list[i].value != fresh[i].value;
        list[i].value = fresh[i].value;
        list[i].error = fresh[i].error;
    }
    return changed ? Took::values : Took::nothing;
}

/// A sysfs counter's text "%llu\n" (newline already cleaned off): true with `v` for 1 to 19
/// decimal digits (always below 2^64); false for anything else, which parse_u64 then judges.
bool plain_u64(std::string_view text, std::uint64_t& v) {
    if (text.empty() || text.size() > 19) return false;
    std::uint64_t x = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        x = x * 10 + static_cast<std::uint64_t>(c - '0');
    }
    v = x;
    return true;
}

/// Returns true when a value was present (the list's values changed).
bool mark_unavailable(std::vector<Counter>& list, const std::string& why) {
    bool had = false;
    for (auto& c : list) {
        had = had || c.value.has_value();
        c.value.reset();
        c.error = why;
    }
    return had;
}

}  // namespace

struct CounterPoller::Impl {
    SysfsRoot sysfs;
    std::vector<File> files;
    std::vector<Dir> dirs;
    std::vector<NetdevEntry> netdevs;
    std::vector<DeviceShape> shape;
    std::vector<std::vector<PortNormalizer>> normalizers;  ///< [device][port]
    /// [device][port]: a raw value normalization reads changed this pass (all set at first:
    /// the first pass normalizes every port).
    std::vector<std::vector<char>> dirty;
    std::optional<CounterSources> sources;  ///< per-pass sources (live root or injected)
    std::size_t budget = 0, kept = 0;
    Fd inotify;                                       ///< watches dirs; invalid = fstat checks
    std::vector<std::vector<std::uint32_t>> wd_dirs;  ///< inotify watch descriptor -> dirs

    // Per-pass state.
    PollResult* result = nullptr;
    Snapshot* snap = nullptr;
    std::vector<char> device_gone;  ///< per device: answered ENODEV this pass
    std::vector<char> netdev_gone;  ///< per NetdevEntry: answered ENODEV this pass
    std::string slow;               ///< text of a file read through the slow path

    Impl(const SysfsRoot& root, const Snapshot& s, std::optional<CounterSources> src,
         DirWatch watch)
        : sysfs(root), sources(std::move(src)) {
        struct rlimit rl {};
        const rlim_t soft = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
        const rlim_t cap = std::min<rlim_t>(soft, 1u << 20);
        budget = static_cast<std::size_t>(cap > 512 ? cap - 256 : cap / 2);
        if (watch == DirWatch::inotify) inotify = Fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
        build(s);
        for (auto& f : files) open_kept(f);
    }

    std::uint32_t dir_of(const std::string& rel, bool counter_dir) {
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
        if (inotify) {
            const int wd = ::inotify_add_watch(inotify.get(), path.c_str(), kPollerWatchMask);
            if (wd >= 0) {
                if (wd_dirs.size() <= static_cast<std::size_t>(wd)) wd_dirs.resize(wd + 1);
                wd_dirs[wd].push_back(index);  // one inode reached by two paths: one wd
                d.watched = true;
            }
        }
        if (!d.watched) open_dir(d);
        dirs.push_back(std::move(d));
        return index;
    }

    /// An unwatched directory: keeps its descriptor (within the budget) and its mtime.
    void open_dir(Dir& d) {
        if (kept >= budget) return;  // then stat by path on each pass
        d.fd = Fd(::open(d.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        struct stat st {};
        if (d.fd && ::fstat(d.fd.get(), &st) == 0) {
            d.mtime = st.st_mtim;
            ++kept;
        } else {
            d.fd.reset();
        }
    }

    File& add(std::string dir_rel, const std::string& name, Target t, std::uint32_t dev,
              std::uint32_t port, std::uint32_t index, bool counter_dir = false) {
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

    void build(const Snapshot& s) {
        std::map<std::string, std::uint32_t> netdev_index;
        for (std::uint32_t di = 0; di < s.devices.size(); ++di) {
            const Device& d = s.devices[di];
            DeviceShape ds;
            ds.name = d.name;
            ds.problems = d.problems.size();
            const DriverFamily rdma = detect_rdma_driver(sysfs, d.name);
            normalizers.emplace_back();
            dirty.emplace_back(d.ports.size(), 1);
            for (std::uint32_t pi = 0; pi < d.ports.size(); ++pi) {
                const Port& p = d.ports[pi];
                ds.ports.push_back({p.counters.size(), p.hw_counters.size(), p.netdev.has_value()});
                ds.unavailable.push_back(p.netdev ? p.netdev->unavailable.size() : 0);
                normalizers.back().emplace_back(p, rdma, netdev_family_of(sysfs, p, rdma));
                const std::string dir =
                    "class/infiniband/" + d.name + "/ports/" + std::to_string(p.number);
                const auto states = port_state_files();
                for (std::uint32_t k = 0; k < states.size(); ++k)
                    add(dir, states[k].name, Target::port_state, di, pi, 0).field = k;
                const auto cdirs = port_counter_dirs();
                for (std::uint32_t c = 0; c < cdirs.size(); ++c) {
                    const auto& list = p.*cdirs[c].list;
                    for (std::uint32_t k = 0; k < list.size(); ++k)
                        add(dir + "/" + cdirs[c].name, list[k].name, Target::port_counter, di, pi,
                            k, true)
                            .field = c;
                }
                if (!p.netdev) continue;
                auto [it, fresh] = netdev_index.emplace(p.netdev->name,
                                                        static_cast<std::uint32_t>(netdevs.size()));
                if (fresh)
                    netdevs.push_back(NetdevEntry{
                        p.netdev->name, sysfs.path("class/net/" + p.netdev->name).string(), {}});
                netdevs[it->second].ports.emplace_back(di, pi);
                if (!fresh) continue;
                const std::string nd = "class/net/" + p.netdev->name;
                const auto nfiles = netdev_files();
                for (std::uint32_t k = 0; k < nfiles.size(); ++k)
                    add(nd, nfiles[k].rel, Target::netdev, di, pi, it->second).field = k;
            }
            for (std::uint32_t li = 0; li < d.pcie.size(); ++li) {
                const PcieLink& l = d.pcie[li];
                ds.aer_sizes.push_back(l.aer.size());
                std::map<std::string, std::vector<std::uint32_t>> by_file;
                for (std::uint32_t k = 0; k < l.aer.size(); ++k) {
                    const auto& name = l.aer[k].name;
                    const auto slash = name.find('/');
                    if (slash == std::string::npos)
                        add(l.sysfs_path, name, Target::aer_total, di, 0, li).field = k;
                    else
                        by_file[name.substr(0, slash)].push_back(k);
                }
                for (auto& [file, idx] : by_file)
                    add(l.sysfs_path, file, Target::aer_dev, di, 0, li).aer = std::move(idx);
            }
            shape.push_back(std::move(ds));
        }
    }

    /// Opens `f` to keep it, when the budget allows; a failure is reported by the read.
    void open_kept(File& f) {
        if (f.fd || kept >= budget) return;
        // O_NOATIME: reading a counter is no access worth recording (on a copy of a sysfs
        // tree, relatime would write an inode after every change). Only the owner or
        // CAP_FOWNER may ask for it (EPERM): then without.
        constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
        Fd fd(::open(f.path.c_str(), kFlags | O_NOATIME));
        if (!fd && errno == EPERM) fd = Fd(::open(f.path.c_str(), kFlags));
        struct stat st {};
        if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return;
        f.fd = std::move(fd);
        ++kept;
    }

    void drop(File& f) {
        if (!f.fd) return;
        f.fd.reset();
        --kept;
    }

    /// The text of `f` as read (in `buf` or `slow`: writable, for clean()), or the error
    /// discovery would give.
    Result<std::string_view> read(File& f, char* buf, std::size_t cap) {
        ++result->files_read;
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

    SourcePass& pass_of(Source s) { return result->sources[static_cast<std::size_t>(s)]; }

    void note(std::uint32_t dev, std::string subject, std::string text) {
        snap->devices[dev].problems.push_back(Note{std::move(subject), std::move(text)});
    }

    void rediscover(std::string why) {
        result->rediscover = true;
        result->rediscover_reasons.push_back(std::move(why));
    }

    std::string port_subject(const File& f) const {
        const Device& d = snap->devices[f.dev];
        return d.name + " port " + std::to_string(d.ports[f.port].number);
    }

    Counter& counter_of(const File& f) {
        Port& p = snap->devices[f.dev].ports[f.port];
        return (p.*port_counter_dirs()[f.field].list)[f.index];
    }

    Netdev& netdev_of(const File& f) {
        const auto [dev, port] = netdevs[f.index].ports.front();
        return *snap->devices[dev].ports[port].netdev;
    }

    /// Notes for a netdev file go to every port using the netdev, as discovery puts them.
    void netdev_note(const File& f, const std::string& text) {
        for (const auto& [dev, port] : netdevs[f.index].ports) {
            const Device& d = snap->devices[dev];
            note(dev, d.name + " port " + std::to_string(d.ports[port].number), text);
        }
    }

    /// Applies a failure to the value(s) `f` feeds. `noted` false: no note (the directory or
    /// device already has one).
    void fail(File& f, const Error& e, bool noted) {
        ++result->files_failed;
        // Discovery found this file: any failure to read it now is one (not "no data").
        pass_of(source_of(f.target)).success = false;
        const std::string msg = e.message();
        const bool netdev_file = f.target == Target::netdev;
        if (e.err_no == ENODEV) {  // sysfs: the kernel object behind the open file is gone
            const std::string& name =
                netdev_file ? netdevs[f.index].name : snap->devices[f.dev].name;
            char& gone = netdev_file ? netdev_gone[f.index] : device_gone[f.dev];
            if (!gone) {
                gone = 1;
                rediscover(name + " is gone (" + msg + ")");
                const std::string text =
                    "removed (" + msg + "): its values are unavailable until rediscovery";
                if (netdev_file)
                    netdev_note(f, "netdev " + name + " " + text);
                else
                    note(f.dev, name, "device " + text);
            }
            noted = false;
        }
        Device& d = snap->devices[f.dev];
        switch (f.target) {
            case Target::port_counter: {
                Counter& c = counter_of(f);
                set_raw(f, c.value, std::nullopt);
                c.error = msg;
                if (noted) note(f.dev, port_subject(f), msg);
                return;
            }
            case Target::port_state:
                clear_port_state(d.ports[f.port], port_state_files()[f.field]);
                if (noted) note(f.dev, port_subject(f), msg);
                return;
            case Target::netdev: {
                clear_netdev_file(netdev_of(f), netdev_files()[f.field]);
                if (noted) netdev_note(f, msg);
                return;
            }
            case Target::aer_dev:
            case Target::aer_total: {
                auto& aer = d.pcie[f.index].aer;
                if (f.target == Target::aer_total)
                    mark_one(aer[f.field], msg);
                else
                    for (auto k : f.aer) mark_one(aer[k], msg);
                if (noted) note(f.dev, d.name, msg);
                return;
            }
        }
    }

    static void mark_one(Counter& c, const std::string& why) {
        c.value.reset();
        c.error = why;
    }

    /// Stores the text of `f` the way discovery parses it. `raw` is read()'s text: a plain
    /// "%llu\n" counter is taken as it is, anything else is cleaned (as read_text does) first.
    void store(File& f, std::string_view raw) {
        std::uint64_t x = 0;
        const std::string_view digits =
            !raw.empty() && raw.back() == '\n' ? raw.substr(0, raw.size() - 1) : raw;
        if (f.target == Target::port_counter && plain_u64(digits, x)) {
            Counter& c = counter_of(f);
            set_raw(f, c.value, x);
            c.error.clear();
            return;
        }
        if (f.target == Target::netdev && netdev_files()[f.field].counter && plain_u64(digits, x)) {
            netdev_of(f).*netdev_files()[f.field].counter = x;
            return;
        }
        store_text(f, clean(const_cast<char*>(raw.data()), raw.size()));
    }

    void store_text(File& f, std::string_view text) {
        Device& d = snap->devices[f.dev];
        switch (f.target) {
            case Target::port_counter: {  // "N/A (no PMA)": unavailable, as discovery says it
                Counter& c = counter_of(f);
                const auto before = c.value;
                store_counter_text(c, text);
                if (c.value != before) dirty[f.dev][f.port] = 1;
                return;
            }
            case Target::port_state:
                if (std::string why =
                        store_port_state(d.ports[f.port], port_state_files()[f.field], text);
                    !why.empty())
                    note(f.dev, port_subject(f), f.path + ": " + why);
                return;
            case Target::netdev:
                if (std::string why =
                        store_netdev_file(netdev_of(f), netdev_files()[f.field], text);
                    !why.empty())
                    netdev_note(f, f.path + ": " + why);
                return;
            case Target::aer_total:
                store_aer_total(d.pcie[f.index].aer[f.field], text, f.path);
                return;
            case Target::aer_dev:
                store_aer(f, d.pcie[f.index].aer, text);
                return;
        }
    }

    /// aer_dev_* lines "<name with spaces> <count>" onto the counters discovery found (as
    /// parse_aer names and parses them, without allocating).
    void store_aer(File& f, std::vector<Counter>& aer, std::string_view text) {
        const std::string_view file = std::string_view(f.rel).substr(f.rel.rfind('/') + 1);
        for (AerLine l; next_aer_line(text, l);) {
            Counter* c = nullptr;
            for (auto k : f.aer) {
                const std::string_view n = aer[k].name;
                if (n.size() == file.size() + 1 + l.name.size() &&
                    n.substr(file.size() + 1) == l.name)
                    c = &aer[k];
            }
            if (!c) {
                rediscover(f.path + ": new line '" + std::string(l.name) + "'");
                continue;
            }
            c->value = l.count;
            if (c->error != l.error) c->error = l.error;
        }
    }

    /// Directory checks, once per pass: removed directories (their files' values become
    /// unavailable), files replaced or removed (their kept descriptors are closed so the read
    /// goes by path), new files in counter directories. Both a removed directory and a new
    /// counter file ask for rediscovery on every pass until the poller is rebuilt. On the live
    /// sysfs inotify may report neither (kernfs adds and removes entries without the VFS); there
    /// a removed device answers ENODEV to the reads, and a driver's counter set is fixed while
    /// its device exists.
    void check_dirs() {
        read_events();
        for (auto& d : dirs) {
            if (!d.watched) stat_dir(d);
            if (d.changed && !d.gone) look_again(d);
            if (d.gone)
                rediscover("directory removed: " + d.path);
            else if (!d.unknown.empty())
                rediscover("new counter file " + d.unknown);
        }
    }

    /// Drains the inotify queue (non-blocking: one read() when nothing happened).
    void read_events() {
        if (!inotify) return;
        alignas(struct inotify_event) char buf[4096];
        for (;;) {
            const ssize_t n = ::read(inotify.get(), buf, sizeof buf);
            if (n <= 0) return;  // EAGAIN: nothing more
            for (ssize_t off = 0; off < n;) {
                const auto* e = reinterpret_cast<const struct inotify_event*>(buf + off);
                off += static_cast<ssize_t>(sizeof(struct inotify_event) + e->len);
                if (e->mask & IN_Q_OVERFLOW) {  // events lost: look at every directory
                    for (auto& d : dirs) d.changed = true;
                    continue;
                }
                if (e->wd < 0 || static_cast<std::size_t>(e->wd) >= wd_dirs.size()) continue;
                for (auto i : wd_dirs[e->wd]) {
                    Dir& d = dirs[i];
                    if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
                        d.gone = true;
                    } else if (e->mask & IN_IGNORED) {  // watch dropped (unmount): fstat checks
                        if (!d.gone && d.watched) {
                            d.watched = false;
                            open_dir(d);
                            d.changed = true;
                        }
                    } else {
                        d.changed = true;
                    }
                }
            }
        }
    }

    /// An unwatched directory's fstat (or stat by path without a descriptor): removed, or
    /// changed. An mtime less than two seconds old may hide a later change in the same clock
    /// tick (filesystems stamp with a coarse clock), so such a directory is looked at again.
    void stat_dir(Dir& d) {
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
    void look_again(Dir& d) {
        d.changed = false;
        // inotify reports a removed directory itself only once no open file pins it: its
        // entries' removal comes first. So: is the path still this directory?
        struct stat st {};
        if (::stat(d.path.c_str(), &st) != 0 || st.st_dev != d.dev || st.st_ino != d.ino)
            d.gone = true;
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

    void read_files() {
        char buf[4097];  // a sysfs attribute is at most one 4 KiB page
        // Files come grouped by source (a port's RDMA files, its netdev's, the device's AER):
        // the clock is read where the source changes, not per file.
        Source cur = Source::rdma_sysfs;
        auto t0 = Clock::now();
        for (auto& f : files) {
            if (const Source s = source_of(f.target); s != cur) {
                const auto now = Clock::now();
                pass_of(cur).duration_s += seconds(now - t0);
                cur = s;
                t0 = now;
            }
            pass_of(cur).read = true;
            const Dir& d = dirs[f.dir];
            if (d.gone) {
                fail(f, Error{"read", f.path, 0, "directory removed"}, false);
                continue;
            }
            const bool netdev_file = f.target == Target::netdev;
            if (netdev_file ? netdev_gone[f.index] : device_gone[f.dev]) {  // skip the reads
                fail(f, Error{"read", f.path, ENODEV, {}}, false);
                continue;
            }
            auto text = read(f, buf, sizeof buf);
            if (text)
                store(f, *text);
            else
                fail(f, text.error(), true);
        }
        pass_of(cur).duration_s += seconds(Clock::now() - t0);
        for (auto& d : dirs)
            if (d.gone) {
                const File& f = files[d.files.front()];
                note(f.dev, snap->devices[f.dev].name,
                     d.path + ": directory removed: its values are unavailable until rediscovery");
            }
        // A netdev shared by ports: the first port's Netdev was filled, the others copy it.
        for (const auto& e : netdevs) {
            const auto [d0, p0] = e.ports.front();
            Netdev& n0 = *snap->devices[d0].ports[p0].netdev;
            n0.source = e.dir;
            for (std::size_t k = 1; k < e.ports.size(); ++k) {
                Netdev& n = *snap->devices[e.ports[k].first].ports[e.ports[k].second].netdev;
                copy_netdev_files(n, n0);
                n.source = n0.source;
            }
        }
    }

    /// ethtool -S, link pause, DCB per netdev and RDMA netlink per port: one request per
    /// netdev/port on the kept sockets, through discovery's readers (counter_sources.h).
    void refresh_sources() {
        CounterSources& src = *sources;
        SourceClock clock(&result->sources);
        for (const auto& e : netdevs) {
            NetdevReadings r = read_netdev_sources(src, e.name, clock);
            for (std::size_t k = 0; k < e.ports.size(); ++k) {
                const auto [dev, port] = e.ports[k];
                Netdev& n = *snap->devices[dev].ports[port].netdev;
                if (auto& stats = r.ethtool_stats) {
                    if (*stats) {
                        auto copy = k + 1 < e.ports.size() ? **stats : std::move(**stats);
                        took(dev, port, take_counters(n.ethtool_stats, std::move(copy)));
                    } else if (mark_unavailable(n.ethtool_stats,
                                                source_error_text(src, stats->error()))) {
                        dirty[dev][port] = 1;
                    }
                }
                if (r.link_pause || r.dcb)
                    dirty[dev][port] = 1;  // DCB / link pause values: compared by apply
                if (r.link_pause) {
                    if (*r.link_pause) {
                        n.link_pause = **r.link_pause;
                    } else {
                        n.link_pause.tx_frames.reset();
                        n.link_pause.rx_frames.reset();
                    }
                }
                if (r.dcb) {
                    if (*r.dcb)
                        n.dcb = **r.dcb;
                    else
                        n.dcb.reset();
                }
                const std::size_t base = shape[dev].unavailable[port];
                n.unavailable.resize(std::min(n.unavailable.size(), base));
                n.unavailable.insert(n.unavailable.end(), r.unavailable.begin(),
                                     r.unavailable.end());
            }
        }
        if (!src.rdma) return;
        for (std::uint32_t di = 0; di < snap->devices.size(); ++di) {
            Device& d = snap->devices[di];
            if (device_gone[di]) continue;
            for (std::uint32_t pi = 0; pi < d.ports.size(); ++pi) {
                Port& port = d.ports[pi];
                auto cs = read_port_nl_counters(src, d.name, port.number, clock);
                if (cs) {
                    took(di, pi, take_counters(port.nl_hw_counters, std::move(*cs)));
                } else if (!missing_recording(src, cs.error())) {
                    if (mark_unavailable(port.nl_hw_counters, cs.error().message()))
                        dirty[di][pi] = 1;
                    d.problems.push_back(unavailable_note(
                        Source::rdma_netlink, src, d.name + " port " + std::to_string(port.number),
                        cs.error()));
                }
            }
        }
    }

    void took(std::uint32_t dev, std::uint32_t port, Took t) {
        if (t == Took::names) renormalize(dev, port);
        if (t != Took::nothing) dirty[dev][port] = 1;
    }

    /// Sets a raw value that normalization reads; a change makes the port's normalized
    /// counters due this pass.
    void set_raw(const File& f, std::optional<std::uint64_t>& slot,
                 std::optional<std::uint64_t> v) {
        if (slot == v) return;
        slot = v;
        dirty[f.dev][f.port] = 1;
    }

    /// A raw list changed its names: resolve the port's normalizer again.
    void renormalize(std::uint32_t dev, std::uint32_t port) {
        const Device& d = snap->devices[dev];
        const DriverFamily rdma = detect_rdma_driver(sysfs, d.name);
        const Port& p = d.ports[port];
        normalizers[dev][port] = PortNormalizer(p, rdma, netdev_family_of(sysfs, p, rdma));
    }

    bool same_shape(const Snapshot& s, PollResult& r) const {
        bool same = s.devices.size() == shape.size();
        for (std::size_t i = 0; same && i < shape.size(); ++i) {
            const Device& d = s.devices[i];
            const DeviceShape& ds = shape[i];
            same = d.name == ds.name && d.ports.size() == ds.ports.size() &&
                   d.pcie.size() == ds.aer_sizes.size();
            for (std::size_t p = 0; same && p < ds.ports.size(); ++p)
                same = d.ports[p].counters.size() == ds.ports[p].counters &&
                       d.ports[p].hw_counters.size() == ds.ports[p].hw_counters &&
                       d.ports[p].netdev.has_value() == ds.ports[p].netdev;
            for (std::size_t l = 0; same && l < ds.aer_sizes.size(); ++l)
                same = d.pcie[l].aer.size() == ds.aer_sizes[l];
        }
        if (!same) {
            r.rediscover = true;
            r.rediscover_reasons.push_back(
                "the snapshot polled is not the one this poller was built from");
        }
        return same;
    }

    PollResult poll(Snapshot& s) {
        PollResult r;
        if (!same_shape(s, r)) return r;
        result = &r;
        snap = &s;
        try {
            s.collected_at = utc_iso8601(std::chrono::system_clock::now());
            for (std::size_t i = 0; i < shape.size(); ++i) {
                auto& problems = s.devices[i].problems;
                problems.resize(std::min(problems.size(), shape[i].problems));
            }
            device_gone.assign(shape.size(), 0);
            netdev_gone.assign(netdevs.size(), 0);
            check_dirs();
            read_files();
            if (sources) refresh_sources();
            // Ports whose raw values are as they were keep their normalized counters.
            for (std::size_t di = 0; di < s.devices.size(); ++di)
                for (std::size_t pi = 0; pi < s.devices[di].ports.size(); ++pi) {
                    if (!dirty[di][pi]) continue;
                    Port& p = s.devices[di].ports[pi];
                    normalizers[di][pi].apply(p, p.normalized);
                    dirty[di][pi] = 0;
                }
        } catch (const std::exception& e) {
            rediscover(std::string("poll failed: ") + e.what());
            for (auto& ports : dirty) ports.assign(ports.size(), 1);  // normalize all next time
        }
        result = nullptr;
        snap = nullptr;
        return r;
    }
};

CounterPoller::CounterPoller(const SysfsRoot& sysfs, const Snapshot& discovered, DirWatch watch)
    : impl_(std::make_unique<Impl>(
          sysfs, discovered,
          std::optional<CounterSources>(sysfs.is_live()
                                            ? make_live_counter_sources()
                                            : make_fixture_counter_sources(sysfs.root())),
          watch)) {
    // Netdev values now come from class/net/<if>/ (rtnetlink on a live discovery pass).
}

CounterPoller::CounterPoller(const SysfsRoot& sysfs, const Snapshot& discovered,
                             CounterSources per_pass, DirWatch watch)
    : impl_(std::make_unique<Impl>(sysfs, discovered, std::move(per_pass), watch)) {}

CounterPoller::~CounterPoller() = default;

PollResult CounterPoller::poll(Snapshot& snap) {
    return impl_->poll(snap);
}

std::size_t CounterPoller::files_open() const {
    return impl_->kept;
}

std::size_t CounterPoller::files_per_pass() const {
    return impl_->files.size();
}

}  // namespace rh
