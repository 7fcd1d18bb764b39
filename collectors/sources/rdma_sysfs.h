// RDMA devices, ports, GID tables and counters from `class/infiniband/<dev>/` under a SysfsRoot.
// Fills the sysfs-only parts of Device/Port (core/inventory/inventory.h); netdev, PCIe and verbs
// values are added by their own collectors. Never throws for bad sysfs content: unreadable
// attributes become empty/absent values plus a Note in Device::problems.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/result.h"
#include "core/sysfs.h"

namespace rh {

/// Reads one sysfs attribute file, checking its type first so that what cannot be an attribute
/// is reported as such (and a FIFO is never opened): errors name the file and say
/// "is a directory", "not a regular file", "dangling link" or "too many levels of symbolic
/// links"; other failures are read_text's.
Result<std::string> read_attr_file(const SysfsRoot& sysfs, const std::string& rel);

/// read_attr_file of `dir.rel()/name`, opened relative to the open directory.
Result<std::string> read_attr_file(const SysfsDir& dir, const char* name);

/// Why `rel` cannot be entered as a directory ("dangling link", "is not a directory", "too many
/// levels of symbolic links", strerror), or empty when it is a directory.
std::string dir_problem(const SysfsRoot& sysfs, const std::string& rel);

/// A port file holding "<decimal>: <NAME>" (`state`, `phys_state`) and the Port values it
/// fills. Discovery (read_rdma_device) and the steady-state poller
/// (collectors/poller/counter_poller.cpp) both read port_state_files() and store through
/// store_port_state, so a port state is parsed in one place.
struct PortStateFile {
    const char* name;                     ///< relative to class/infiniband/<dev>/ports/<p>/
    std::optional<unsigned> Port::*code;  ///< e.g. Port::state_code (4 = ACTIVE)
    std::string Port::*text;              ///< e.g. Port::state ("ACTIVE")
};

/// state, phys_state.
std::span<const PortStateFile> port_state_files();

/// Stores a state file's text (cleaned as SysfsRoot::read_text does) into `p`. Returns "" or,
/// when it is not "<decimal>: <NAME>", "unparsable '<text>'" with the value left absent: the
/// caller notes "<path>: <reason>".
std::string store_port_state(Port& p, const PortStateFile& f, std::string_view text);

/// Makes the value `f` fills absent (the file could not be read).
void clear_port_state(Port& p, const PortStateFile& f);

/// A port counter directory (`counters/`, `hw_counters/`) and the Port list it fills, by file
/// name: discovery lists and reads it (read_counter_dir), the poller keeps its files open.
struct PortCounterDir {
    const char* name;                  ///< relative to class/infiniband/<dev>/ports/<p>/
    std::vector<Counter> Port::*list;  ///< Port::counters or Port::hw_counters
    const char* skip;                  ///< a file that is a setting, not a counter (or null)
};

/// counters (PMA), hw_counters (driver; `lifespan` is the cache time in ms, skipped).
std::span<const PortCounterDir> port_counter_dirs();

/// Stores a counter file's text (cleaned) into `c`: the value, or no value and why
/// ("not an unsigned decimal: 'N/A (no PMA)'"). The one counter-file parser of discovery and
/// the poller.
void store_counter_text(Counter& c, std::string_view text);

/// Names of the RDMA devices in `class/infiniband`, sorted. Error when the directory cannot be
/// listed (ENOENT when the host has no RDMA stack loaded).
Result<std::vector<std::string>> list_rdma_devices(const SysfsRoot& sysfs);

/// One device: node_guid, fw_ver, node_type and every port under `ports/` (numeric order) with
/// state, phys_state, rate, link_layer, GIDs, counters/ and hw_counters/, and netdev_name.
/// Problems (unreadable attributes or directories) go to Device::problems: a state/phys_state
/// that is not "<decimal>: <NAME>" is left absent with an "unparsable" note; a device that is
/// not a directory (dangling link, a file) or has no numeric `ports/` entry gets a note.
Device read_rdma_device(const SysfsRoot& sysfs, const std::string& dev);

/// Every file of a counter directory (e.g. "class/infiniband/mlx5_0/ports/1/hw_counters") as
/// cumulative u64 under its file name, sorted by name. Names listed in `skip` (e.g. "lifespan")
/// are left out. A file that cannot be read or parsed is kept with value nullopt and `error`
/// (e.g. "not an unsigned decimal: 'N/A (no PMA)'"). Error only when the directory cannot be
/// listed.
Result<std::vector<Counter>> read_counter_dir(const SysfsRoot& sysfs, const std::string& dir,
                                              const std::vector<std::string>& skip = {});

/// The same, for a directory already open.
Result<std::vector<Counter>> read_counter_dir(const SysfsDir& dir,
                                              const std::vector<std::string>& skip = {});

/// read_attr_file(dir, name) for each of `names`, in order: through descriptors kept from the
/// last discovery where they still name these files (collectors/sources/kept_files.h), the
/// others by path.
std::vector<Result<std::string>> read_attr_files(const SysfsDir& dir,
                                                 const std::vector<std::string>& names);

/// The populated GID table entries of `class/infiniband/<dev>/ports/<p>`: all-zero or unreadable
/// GIDs are left out; an unreadable type/ndev (EINVAL on an unused index) is left empty.
std::vector<Gid> read_gids(const SysfsRoot& sysfs, const std::string& port_dir);

/// The netdev of a port: first non-empty GID ndev; else the first entry of
/// `class/infiniband/<dev>/device/net/`; else (rxe) the content of
/// `class/infiniband/<dev>/parent`. Empty when none is found.
std::string find_port_netdev(const SysfsRoot& sysfs, const std::string& dev,
                             const std::vector<Gid>& gids);

}  // namespace rh
