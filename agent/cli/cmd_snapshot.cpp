// rocehealth snapshot: collect the host inventory (collectors/collect.h) and print it as an
// aligned text summary (agent/reports/snapshot_text.h) or as JSON (the Snapshot's to_json form).
#include <iostream>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/reports/snapshot_text.h"
#include "collectors/collect.h"

namespace rh::cli {

int run_snapshot(const std::vector<std::string>& args) {
    po::options_description desc("options");
    std::string root = "/sys", device;
    desc.add_options()("help,h", "show this help")(
        "sysfs-root", po::value(&root)->value_name("DIR"),
        "sysfs tree to read (default /sys; a fixture tree disables rtnetlink and verbs)")(
        "device", po::value(&device)->value_name("NAME"), "only this RDMA device (e.g. mlx5_0)")(
        "json", "print the snapshot as JSON");
    po::variables_map vm;
    const po::positional_options_description no_positional;  // reject stray arguments
    if (auto exit = parse_options("snapshot",
                                  "rocehealth snapshot [--sysfs-root DIR] "
                                  "[--device NAME] [--json]",
                                  "Print RDMA devices, ports, GIDs, counters, netdevs, active "
                                  "MTU and PCIe links. Missing values are shown as missing, "
                                  "never as 0.",
                                  args, desc, vm, &no_positional))
        return *exit;
    if (!sysfs_root_usable("snapshot", root)) return kExitCannotRun;

    const CollectOptions opts{SysfsRoot(root), device};
    const Snapshot snap = collect_snapshot(opts);
    const std::string class_dir = opts.sysfs.path("class/infiniband").string();

    if (!device.empty() && snap.devices.empty()) {
        std::cerr << "rocehealth snapshot: no RDMA device named " << device << " found under "
                  << class_dir << "\n";
        return kExitCannotRun;
    }
    if (vm.count("json")) {
        std::cout << snapshot_json_text(snap, 2) << "\n";
        return kExitOk;
    }
    if (snap.devices.empty()) {
        std::cout << "no RDMA devices found under " << class_dir << "\n";
        return kExitOk;
    }
    std::cout << "host " << snap.host << ", sysfs " << snap.sysfs_root << ", collected "
              << snap.collected_at << "\n";
    for (const auto& n : snap.notes) std::cout << "note: " << n.text << "\n";
    std::cout << "\n";
    for (std::size_t i = 0; i < snap.devices.size(); ++i) {
        if (i) std::cout << "\n";
        print_device(std::cout, snap.devices[i]);
    }
    return kExitOk;
}

}  // namespace rh::cli
