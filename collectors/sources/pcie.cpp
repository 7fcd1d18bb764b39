#include "collectors/sources/pcie.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>

#include "collectors/sources/rdma_sysfs.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

bool unknown_speed(const std::string& t) {
    return t == "Unknown" || t == "Unknown speed";
}

/// Text of the symlink at `path`, empty when it is not one (or cannot be read).
std::string link_text(const std::string& path) {
    char buf[4096];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    return n > 0 && static_cast<std::size_t>(n) < sizeof buf ? std::string(buf, n) : std::string{};
}

/// What a kept `device` resolution stands for: the two links it goes through and the
/// directory it reached. The class link spells the whole PCI path relative to class/
/// ("../../devices/pci0000:00/0000:00:01.0/0000:3b:00.0/infiniband/mlx5_0"), the device link
/// the function ("../../../0000:3b:00.0"); a device removed and added again (hot-plug, driver
/// rebind, a VF re-created) is another directory (st_dev, st_ino) even where the texts match.
struct ChainKey {
    std::string class_link, device_link;
    dev_t st_dev = 0;
    ino_t st_ino = 0;
    bool operator==(const ChainKey&) const = default;
};

/// Resolved `device` paths kept across discoveries, by (root, device): resolving canonically
/// reads every link and directory on the way (~25 system calls per device on a fixture tree,
/// ~12 on /sys); checking a kept one costs 3. Kept at most kMaxAgeS; bounded.
class ChainCache {
  public:
    static constexpr auto kMaxAge = std::chrono::seconds(300);
    static constexpr std::size_t kMaxEntries = 1024;

    static ChainCache& shared() {
        static ChainCache cache;
        return cache;
    }
    std::optional<std::string> find(const std::string& id, const ChainKey& key) {
        const std::lock_guard lock(mu_);
        auto it = kept_.find(id);
        if (it == kept_.end() || !(it->second.key == key) ||
            std::chrono::steady_clock::now() - it->second.at > kMaxAge)
            return std::nullopt;
        return it->second.resolved;
    }
    void keep(const std::string& id, ChainKey key, std::string resolved) {
        const std::lock_guard lock(mu_);
        if (kept_.size() >= kMaxEntries) kept_.clear();
        kept_[id] = Entry{std::move(key), std::move(resolved), std::chrono::steady_clock::now()};
    }

  private:
    struct Entry {
        ChainKey key;
        std::string resolved;
        std::chrono::steady_clock::time_point at;
    };
    std::mutex mu_;
    std::map<std::string, Entry> kept_;
};

}  // namespace

PcieLink read_pcie_link(const SysfsRoot& sysfs, const std::string& pci_dir, bool is_function,
                        std::vector<Note>& problems) {
    PcieLink l;
    l.sysfs_path = pci_dir;
    // The last component, as std::filesystem's filename() (without splitting the path).
    l.bdf = pci_dir.substr(pci_dir.rfind('/') + 1);
    l.is_function = is_function;
    bool unknown = false;
    const SysfsDir dir(sysfs, pci_dir);  // 5 files: one walk down the PCI path, not 5
    // The 5 files in one go (kept descriptors, collectors/sources/kept_files.h).
    static const std::vector<std::string> kFiles = {"current_link_speed", "max_link_speed",
                                                    "current_link_width", "max_link_width",
                                                    "numa_node"};
    auto read = read_attr_files(dir, kFiles);
    // The text of one file, or nullopt with a note (unreadable).
    auto text = [&](const char* file) -> std::optional<std::string> {
        const auto i = static_cast<std::size_t>(std::find(kFiles.begin(), kFiles.end(), file) -
                                                kFiles.begin());
        auto& t = read.at(i);
        if (!t) {
            problems.push_back(Note{l.bdf, t.error().message()});
            return std::nullopt;
        }
        return *t;
    };
    auto unparsable = [&](const char* file, const std::string& t) {
        problems.push_back(
            Note{l.bdf, sysfs.path_text(pci_dir + "/" + file) + ": unparsable " + quote_value(t)});
    };
    auto speed = [&](const char* file) -> std::optional<double> {
        auto t = text(file);
        if (!t) return std::nullopt;
        if (unknown_speed(*t)) {
            unknown = true;
            return std::nullopt;
        }
        auto v = parse_pcie_speed_gts(*t);
        if (!v) unparsable(file, *t);
        return v;
    };
    auto width = [&](const char* file) -> std::optional<unsigned> {
        auto t = text(file);
        if (!t) return std::nullopt;
        if (*t == "0") {
            unknown = true;
            return std::nullopt;
        }
        auto v = parse_pcie_width(*t);
        if (!v) unparsable(file, *t);
        return v;
    };
    l.current_speed_gts = speed("current_link_speed");
    l.max_speed_gts = speed("max_link_speed");
    l.current_width = width("current_link_width");
    l.max_width = width("max_link_width");
    if (unknown)
        problems.push_back(Note{l.bdf, l.bdf + ": PCIe link speed/width unknown (link down or "
                                               "device powered off?)"});
    if (auto t = text("numa_node")) {
        l.numa_node = parse_numa_node(*t);
        if (!l.numa_node) unparsable("numa_node", *t);
    }
    return l;
}

PcieLink read_pcie_link(const SysfsRoot& sysfs, const std::string& pci_dir, bool is_function) {
    std::vector<Note> ignored;
    return read_pcie_link(sysfs, pci_dir, is_function, ignored);
}

namespace {

/// `class/infiniband/DEV/device` that is a directory, not the kernel's symlink: a tree copied
/// with `cp -rL` (or an archive that kept no links). It is the function's own directory, so its
/// link is read there; the ports above it were not copied. Never an empty chain, which would
/// read as "no PCI function" (rxe) and let a PCIe rule pass unjudged: unreadable files give a
/// link of unknown speed, which the rule reports as not evaluated.
std::vector<PcieLink> copied_function(const SysfsRoot& sysfs, const std::string& dev,
                                      const std::string& link, std::vector<Note>& problems) {
    PcieLink fn = read_pcie_link(sysfs, link, true, problems);
    fn.bdf = "(copied device folder)";
    if (auto ev = sysfs.read_text(link + "/uevent")) {
        const std::string key = "PCI_SLOT_NAME=";
        if (const auto at = ev->find(key); at != std::string::npos)
            fn.bdf = ev->substr(at + key.size(), ev->find('\n', at) - at - key.size());
    }
    fn.upstream_unread = sysfs.path_text(link) +
                         " is a folder, not the kernel's symlink to the PCI function (a tree "
                         "copied with cp -L?): the ports above the NIC were not read";
    problems.push_back(Note{dev, fn.upstream_unread});
    return {fn};
}

}  // namespace

std::vector<PcieLink> read_pcie_chain(const SysfsRoot& sysfs, const std::string& dev,
                                      std::vector<Note>& problems) {
    std::vector<PcieLink> chain;
    const std::string link = "class/infiniband/" + dev + "/device";
    std::error_code ec;
    const auto lst = std::filesystem::symlink_status(sysfs.path(link), ec);
    if (ec || !std::filesystem::exists(lst)) return chain;  // rxe: no `device` at all
    // A kept resolution while both links and the directory they reach are the same.
    const std::string link_path = sysfs.path_text(link);
    std::optional<ChainKey> key;
    if (struct stat st{}; ::stat(link_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        key = ChainKey{link_text(sysfs.path_text("class/infiniband/" + dev)), link_text(link_path),
                       st.st_dev, st.st_ino};
    const std::string id = sysfs.root().string() + '\0' + dev;
    std::optional<std::string> kept;
    if (key) kept = ChainCache::shared().find(id, *key);
    Result<std::string> resolved = kept ? std::move(*kept) : std::string{};
    if (!kept) {
        if (std::string why = dir_problem(sysfs, link); !why.empty()) {
            problems.push_back(Note{dev, sysfs.path_text(link) + ": " + why});
            return chain;
        }
        resolved = sysfs.resolve(link);
        if (!resolved) {
            problems.push_back(Note{dev, resolved.error().message()});
            return chain;
        }
        if (key) ChainCache::shared().keep(id, std::move(*key), *resolved);
    }
    std::filesystem::path p(*resolved);
    if (!is_pci_bdf(p.filename().string())) {
        if (std::filesystem::is_directory(lst)) return copied_function(sysfs, dev, link, problems);
        problems.push_back(Note{dev, "device is not a PCI function: " + *resolved});
        return chain;
    }
    for (bool first = true; is_pci_bdf(p.filename().string()); p = p.parent_path(), first = false)
        chain.push_back(read_pcie_link(sysfs, p.string(), first, problems));
    return chain;
}

}  // namespace rh
