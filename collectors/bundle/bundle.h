// Bundle import: a directory of plain-text captures of one host, as operators paste them
// (`ethtool -S`, hw_counters listings, `rdma statistic show`, `ibv_devinfo -v`, `lspci -vv`,
// `ip -d link`, `mlnx_qos -i`, `ethtool -i`), turned into the same rh::Snapshot the live
// collectors produce, so the same rules run on it. Files are recognised by their content, never
// by their names (the only names read are `timestamp` and `hostname`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collectors/inventory.h"
#include "core/result.h"

namespace rh {

/// One capture directory of one host, as an operator pasted it.
struct BundleCapture {
    std::string dir;
    std::optional<double> timestamp_s;  ///< from a `timestamp` file (seconds since epoch), if any
    Snapshot snapshot;                  ///< host from a `hostname` file, else the dir's basename
    std::vector<std::string> recognized;    ///< "<file>: <kind>" e.g. "eth0.txt: ethtool -S"
    std::vector<std::string> unrecognized;  ///< files whose content matched no known format
};

/// Reads every regular file in `dir` (not recursive, sorted by name), recognises each by CONTENT
/// (never by name), parses it and merges the results into one Snapshot:
/// - Snapshot::host from a `hostname` file (first line), else the directory's basename;
///   sysfs_root = "bundle:<dir>"; collected_at = the `timestamp` file as UTC ISO 8601, else "".
/// - `timestamp` (or `timestamp.txt`): seconds since the epoch, decimal, fraction allowed.
/// - Devices and ports come from ibv_devinfo, hw_counters listings and `rdma` output; netdevs
///   from `ip link`; `ethtool -S`, `ethtool -i` and `mlnx_qos` (which do not name their
///   interface) go to the netdev whose name (or altname) the file name contains, else the
///   netdev whose PCI address `ethtool -i` gives, else the only netdev, else the only RDMA port
///   (each fallback noted). The NIC's PCIe function comes from `lspci -vv` (by the netdev's PCI
///   address, else by order, see bundle_merge.cpp); bridges are not placed (no `lspci -t`).
/// - Port::normalized is filled (collectors/normalize.h) from the RDMA driver (device name
///   prefix) and the netdev driver (`ethtool -i`, else the one that goes with the RDMA driver).
/// Every value's source is "bundle:<file>". What could not be placed or parsed is a Note in
/// Snapshot::notes: subject "<file>:<line>" for a malformed line inside a recognised file.
/// Errors: `dir` missing, not a directory or unreadable; a `timestamp` file that is not a
/// number (the Error names the file). Unrecognised files (incl. empty or binary ones) are
/// listed in `unrecognized`, never fatal. Never throws.
Result<BundleCapture> import_bundle_dir(const std::string& dir);

}  // namespace rh
