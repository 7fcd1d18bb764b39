#include "collectors/pcie.h"

#include <filesystem>

#include "collectors/parse.h"

namespace rh {

PcieLink read_pcie_link(const SysfsRoot& sysfs, const std::string& pci_dir, bool is_function) {
    PcieLink l;
    l.sysfs_path = pci_dir;
    l.bdf = std::filesystem::path(pci_dir).filename().string();
    l.is_function = is_function;
    auto text = [&](const char* file) {
        auto t = sysfs.read_text(pci_dir + "/" + file);
        return t ? *t : std::string();
    };
    l.current_speed_gts = parse_pcie_speed_gts(text("current_link_speed"));
    l.max_speed_gts = parse_pcie_speed_gts(text("max_link_speed"));
    l.current_width = parse_pcie_width(text("current_link_width"));
    l.max_width = parse_pcie_width(text("max_link_width"));
    l.numa_node = parse_numa_node(text("numa_node"));
    return l;
}

std::vector<PcieLink> read_pcie_chain(const SysfsRoot& sysfs, const std::string& dev,
                                      std::vector<Note>& problems) {
    std::vector<PcieLink> chain;
    const std::string link = "class/infiniband/" + dev + "/device";
    if (!sysfs.exists(link)) return chain;  // rxe: no PCI function
    auto resolved = sysfs.resolve(link);
    if (!resolved) {
        problems.push_back(Note{dev, resolved.error().message()});
        return chain;
    }
    std::filesystem::path p(*resolved);
    if (!is_pci_bdf(p.filename().string())) {
        problems.push_back(Note{dev, "device is not a PCI function: " + *resolved});
        return chain;
    }
    for (bool first = true; is_pci_bdf(p.filename().string()); p = p.parent_path(), first = false)
        chain.push_back(read_pcie_link(sysfs, p.string(), first));
    return chain;
}

}  // namespace rh
