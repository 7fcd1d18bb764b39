// The poller's kept files (collectors/poller/counter_poller.h): every sysfs file of the
// discovered Snapshot it re-reads, what each one's content goes to, and the directories holding
// them, watched through one inotify instance (collectors/sources/dir_events.h) or checked by
// fstat on every pass. Internal to collectors/poller/.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/poller/counter_poller.h"
#include "collectors/sources/dir_events.h"
#include "collectors/sources/source_status.h"
#include "core/result.h"
#include "core/sysfs.h"

namespace rh::poll {

/// What a file's content goes to.
enum class Target : std::uint8_t {
    port_counter,  ///< (Port::*port_counter_dirs()[field].list)[index]
    port_state,    ///< port_state_files()[field] of the port
    netdev,        ///< netdev_files()[field] of netdev entry `index` (collectors/sources/netdev.h)
    aer_dev,       ///< PcieLink::aer lines "<file>/<name>" of link `index`
    aer_total,     ///< PcieLink::aer[counter] of link `index`
};

/// The kernel source a file belongs to.
Source source_of(Target t);

struct File {
    std::string rel;   ///< relative to the sysfs root
    std::string path;  ///< SysfsRoot::path(rel), as discovery names it
    Target target = Target::port_counter;
    std::uint32_t dev = 0, port = 0;  ///< indices in Snapshot::devices / Device::ports
    std::uint32_t index = 0;          ///< see Target
    std::uint32_t field = 0;          ///< port_counter_dirs(), port_state_files() or netdev_files()
                                      ///< entry, or aer counter index (aer_total)
    std::uint32_t dir = 0;            ///< Files::dirs entry holding the file
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

/// The files one poller re-reads and their directories. Keeps at most (RLIMIT_NOFILE soft limit
/// - 256) descriptors; files beyond that are opened and closed on each read.
class Files {
  public:
    Files(const SysfsRoot& root, DirWatch watch);

    /// Adds `dir_rel/name`, read for target `t` of device `dev`, port `port` (`index`: see
    /// Target). `counter_dir`: the directory's file set defines counters (rediscovery when it
    /// gains a file).
    File& add(std::string dir_rel, const std::string& name, Target t, std::uint32_t dev,
              std::uint32_t port, std::uint32_t index, bool counter_dir = false);
    /// Opens every file to keep it, as the budget allows (after the last add()).
    void open_all();

    /// The text of `f` as read (in `buf` or `slow`: writable, for cleaning), or the error
    /// discovery would give. A file without a kept descriptor is opened again (or read by path).
    Result<std::string_view> read(File& f, char* buf, std::size_t cap, std::string& slow);

    /// Directory checks, once per pass: removed directories (their files' values become
    /// unavailable), files replaced or removed (their kept descriptors are closed so the read
    /// goes by path), new files in counter directories. Both a removed directory and a new
    /// counter file ask for rediscovery on every pass until the poller is rebuilt. On the live
    /// sysfs inotify may report neither (kernfs adds and removes entries without the VFS); there
    /// a removed device answers ENODEV to the reads, and a driver's counter set is fixed while
    /// its device exists.
    /// The reasons to rediscover are appended to `rediscover`, one sentence each.
    void check_dirs(std::vector<std::string>& rediscover);

    SysfsRoot sysfs;
    std::vector<File> files;
    std::vector<Dir> dirs;
    std::size_t kept = 0;  ///< descriptors kept open: files, and directories checked by fstat

  private:
    std::uint32_t dir_of(const std::string& rel, bool counter_dir);
    void open_dir(Dir& d);
    void open_kept(File& f);
    void drop(File& f);
    void read_events();
    void stat_dir(Dir& d);
    void look_again(Dir& d);

    std::size_t budget_ = 0;
    DirEvents events_;                                 ///< watches dirs; not open = fstat checks
    std::vector<std::vector<std::uint32_t>> wd_dirs_;  ///< inotify watch descriptor -> dirs
};

}  // namespace rh::poll
