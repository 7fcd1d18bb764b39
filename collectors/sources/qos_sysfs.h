// Trust mode (pcp/dscp) and ECN enable state of a netdev. Sysfs parts go through SysfsRoot, so
// fixtures and hosts share them: `class/net/<if>/qos/trust` and
// `class/net/<if>/ecn/roce_{rp,np}/enable/<prio>` exist only on MLNX_OFED kernels.
#pragma once

#include <optional>
#include <string>

#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

/// Pure: trust from the DCB APP table: selector-5 (DSCP) entries => "dscp"; DCB answered
/// without them => "pcp"; no DCB => unknown (empty).
void trust_from_dcb(const std::optional<DcbConfig>& dcb, QosConfig& q);

/// Fills q.trust (the `qos/trust` file wins over the DCB APP table) and the ECN enable state.
void read_qos(const SysfsRoot& sysfs, const std::string& ifname,
              const std::optional<DcbConfig>& dcb, QosConfig& q);

}  // namespace rh
