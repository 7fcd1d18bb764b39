// PCIe AER statistics (`aer_dev_{correctable,nonfatal,fatal}`, kernel >= 4.19, AER-capable
// devices) of every link end of a device, through SysfsRoot. Absent files are not a problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

/// One line of an aer_dev_* file: "<name with spaces> <count>", split at the LAST space or tab.
struct AerLine {
    std::string_view name;  ///< trimmed; the whole line when it has no count
    std::optional<std::uint64_t> count;
    std::string error;  ///< why `count` is absent ("no count on the line", "not a u64: '...'")
};

/// Pure: takes the next non-empty line off the front of `text` into `line`; false when none is
/// left. The one AER line reader: parse_aer (discovery) and the poller's in-place refresh
/// (collectors/poller/counter_poller.cpp) both go through it. Allocates only for an error.
bool next_aer_line(std::string_view& text, AerLine& line);

/// Pure: one aer_dev_* file. Lines "<name with spaces> <count>" split at the LAST space; the
/// Counter is named "<file>/<name>" (e.g. "aer_dev_correctable/Receiver Error"); TOTAL_* lines
/// are kept. A count that is not a u64 gives a Counter with no value and an error.
std::vector<Counter> parse_aer(std::string_view text, const std::string& file,
                               const std::string& source);

/// Stores the text of an aer_rootport_total_err_* file (cleaned) into `c`: its value, or no
/// value and a "parse" error naming `path`. The one reader of these files: read_aer (discovery)
/// and the poller's refresh both store through it.
void store_aer_total(Counter& c, std::string_view text, const std::string& path);

/// Fills link.aer from `<link.sysfs_path>/aer_dev_*` (and the root-port totals
/// `aer_rootport_total_err_*` where present).
void read_aer(const SysfsRoot& sysfs, PcieLink& link);

}  // namespace rh
