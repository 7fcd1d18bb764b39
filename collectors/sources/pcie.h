// PCIe link chain of an RDMA device: its PCI function (`class/infiniband/<dev>/device`, a
// symlink resolved inside the sysfs root) and every upstream bridge up to the root port,
// i.e. each parent directory whose name is a PCI BDF. Source: `{current,max}_link_{speed,width}`
// and `numa_node` in each directory.
#pragma once

#include <string>
#include <vector>

#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh {

/// One link end from `<pci_dir>/` (relative to the root, e.g.
/// "devices/pci0000:00/0000:00:01.0"). Unreadable/unknown values stay nullopt and add a Note
/// to `problems` naming the file: "Unknown"/"Unknown speed" speeds and a 0 width (link down,
/// device in D3) give one "<bdf>: PCIe link speed/width unknown (link down or device powered
/// off?)" note; unreadable files and unparsable text a note each.
PcieLink read_pcie_link(const SysfsRoot& sysfs, const std::string& pci_dir, bool is_function,
                        std::vector<Note>& problems);
/// Same, discarding the notes.
PcieLink read_pcie_link(const SysfsRoot& sysfs, const std::string& pci_dir, bool is_function);

/// Function first, then bridges toward the root port. Empty when the device has no `device`
/// entry at all (rxe, other software devices): not a problem. A `device` link that dangles,
/// loops, leads outside the tree or to a non-PCI device adds a Note to `problems` and yields
/// an empty vector. The link values are read every call; the resolved `device` path is kept
/// process-wide per (root, device) and used again while the texts of `class/infiniband/<dev>`
/// and `<dev>/device` and the (st_dev, st_ino) of the directory they reach are unchanged, for
/// at most 300 s (a device removed and added again is another directory): 3 system calls
/// instead of a canonical walk of every link and directory on the way.
std::vector<PcieLink> read_pcie_chain(const SysfsRoot& sysfs, const std::string& dev,
                                      std::vector<Note>& problems);

}  // namespace rh
