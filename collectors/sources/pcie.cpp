#include "collectors/sources/pcie.h"

#include <filesystem>
#include <optional>
#include <system_error>

#include "collectors/rdma_sysfs.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

bool unknown_speed(const std::string& t) {
    return t == "Unknown" || t == "Unknown speed";
}

}  // namespace

PcieLink read_pcie_link(const SysfsRoot& sysfs, const std::string& pci_dir, bool is_function,
                        std::vector<Note>& problems) {
    PcieLink l;
    l.sysfs_path = pci_dir;
    l.bdf = std::filesystem::path(pci_dir).filename().string();
    l.is_function = is_function;
    bool unknown = false;
    const SysfsDir dir(sysfs, pci_dir);  // 5 files: one walk down the PCI path, not 5
    // The text of one file, or nullopt with a note (unreadable).
    auto text = [&](const char* file) -> std::optional<std::string> {
        auto t = read_attr_file(dir, file);
        if (!t) {
            problems.push_back(Note{l.bdf, t.error().message()});
            return std::nullopt;
        }
        return *t;
    };
    auto unparsable = [&](const char* file, const std::string& t) {
        problems.push_back(Note{
            l.bdf, sysfs.path(pci_dir + "/" + file).string() + ": unparsable " + quote_value(t)});
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

std::vector<PcieLink> read_pcie_chain(const SysfsRoot& sysfs, const std::string& dev,
                                      std::vector<Note>& problems) {
    std::vector<PcieLink> chain;
    const std::string link = "class/infiniband/" + dev + "/device";
    std::error_code ec;
    const auto lst = std::filesystem::symlink_status(sysfs.path(link), ec);
    if (ec || !std::filesystem::exists(lst)) return chain;  // rxe: no `device` at all
    if (std::string why = dir_problem(sysfs, link); !why.empty()) {
        problems.push_back(Note{dev, sysfs.path(link).string() + ": " + why});
        return chain;
    }
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
        chain.push_back(read_pcie_link(sysfs, p.string(), first, problems));
    return chain;
}

}  // namespace rh
