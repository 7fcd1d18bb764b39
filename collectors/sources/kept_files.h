// Attribute files of discovery kept open between passes (issue 13 §3): every `counters/` and
// `hw_counters/` file of every port (~50 per mlx5 port), the port's state/rate/link_layer and
// the PCIe link files of each link end. Open + read + close is three system calls per file, a
// read of a kept descriptor at offset 0 one (the kernel generates a sysfs attribute's text
// again for each read at offset 0; the counter poller reads this way).
// A directory's descriptors are used again only while nothing may have replaced its files:
//   - the directory is the same one (st_dev, st_ino of the open directory) and the same names
//     are asked for;
//   - live /sys: a removed attribute's descriptor reads ENODEV (kernfs), and then the directory
//     is read by path and opened again; a re-created device is another directory;
//   - a fixture tree: an inotify watch on the directory (a file created, removed or renamed
//     over, its mode changed, the directory removed or moved) drops it; a file rewritten in
//     place is read through the kept descriptor as it is;
//   - at most kMaxAgeS old; at most a quarter of RLIMIT_NOFILE (and kMaxFiles) descriptors.
// Without a watch (limits) a fixture directory is not kept.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/sysfs.h"

namespace rh {

class KeptFiles {
  public:
    static constexpr double kMaxAgeS = 300.0;
    static constexpr std::size_t kMaxFiles = 4096;

    KeptFiles();
    ~KeptFiles();
    KeptFiles(const KeptFiles&) = delete;
    KeptFiles& operator=(const KeptFiles&) = delete;

    /// The one discovery uses: one per process, thread-safe.
    static KeptFiles& shared();

    /// Calls `take(i, text)` for each name i of `names` (entries of the open directory `dir`)
    /// read through a kept descriptor, `text` being what SysfsDir::read_regular gives for it.
    /// Not called for a name without one (the file did not open as a regular file, or the
    /// directory is not kept): the caller reads it by path.
    void read(const SysfsDir& dir, const std::vector<std::string>& names,
              const std::function<void(std::size_t, Result<std::string>&&)>& take);

    /// Directories read through kept descriptors so far (for tests).
    std::size_t kept_reads() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rh
