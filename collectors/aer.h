// PCIe AER statistics (`aer_dev_{correctable,nonfatal,fatal}`, kernel >= 4.19, AER-capable
// devices) of every link end of a device, through SysfsRoot. Absent files are not a problem.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

/// Pure: one aer_dev_* file. Lines "<name with spaces> <count>" split at the LAST space; the
/// Counter is named "<file>/<name>" (e.g. "aer_dev_correctable/Receiver Error"); TOTAL_* lines
/// are kept. A count that is not a u64 gives a Counter with no value and an error.
std::vector<Counter> parse_aer(std::string_view text, const std::string& file,
                               const std::string& source);

/// Fills link.aer from `<link.sysfs_path>/aer_dev_*` (and the root-port totals
/// `aer_rootport_total_err_*` where present).
void read_aer(const SysfsRoot& sysfs, PcieLink& link);

}  // namespace rh
