#include "agent/cli/record_options.h"

#include <filesystem>
#include <iostream>

#include "core/duration_arg.h"
#include "core/recording/sample_json.h"

namespace rh::cli {

po::options_description record_options(RecordArgs& a) {
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "out", po::value(&a.out_path), "recording to write (JSON lines); must not exist")(
        "interval", po::value(&a.interval_text), "time between passes (default 1s; 100ms to 1h)")(
        "duration", po::value(&a.duration_text),
        "stop after this long (default: until SIGINT/SIGTERM)")(
        "append", "add to an existing recording instead of refusing to overwrite it")(
        "sysfs-root", po::value(&a.root), "sysfs tree to read (default /sys)")(
        "device", po::value(&a.device), "only this RDMA device")(
        "host", po::value(&a.host), "host name to record (default: this host's name)");
    return desc;
}

bool check_record_args(RecordArgs& a, const po::variables_map& vm) {
    auto fail = [](const std::string& why) {
        std::cerr << "rocehealth record: " << why << "\n";
        return false;
    };
    if (a.out_path.empty()) return fail("--out FILE is required");
    if (auto e = check_host_arg(vm, a.host)) return fail(*e);
    if (auto e = parse_duration_s("--interval", a.interval_text, 0.1, 3600, a.interval_s))
        return fail(*e);
    if (vm.count("duration"))
        if (auto e =
                parse_duration_s("--duration", a.duration_text, 0.1, 366 * 86400.0, a.duration_s))
            return fail(*e);
    if (!sysfs_root_usable("record", a.root)) return false;
    a.append = vm.count("append") > 0;
    std::error_code ec;
    if (!a.append && std::filesystem::exists(a.out_path, ec))
        return fail(a.out_path +
                    " exists; refusing to overwrite a recording (use --append or another name)");
    if (a.append)
        if (auto s = check_appendable_recording(a.out_path); !s)
            return fail(s.error().message() + "; refusing to append samples to it");
    return true;
}

}  // namespace rh::cli
