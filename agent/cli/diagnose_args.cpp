#include "agent/cli/diagnose_args.h"

#include "core/duration_arg.h"
#include "rules/port_usage.h"

namespace rh::cli {

const char* const kDiagnoseUsage =
    "rocehealth diagnose (--replay FILE [--replay FILE ...] | --bundle DIR [--bundle DIR "
    "...] [--interval 10s] | --live [--duration 30s] [--save FILE]) [--rules FILE] "
    "[--json]";
const char* const kDiagnoseAbout =
    "Diagnose recorded data: findings with evidence, alternatives and a timeline.\n"
    "Exit: 0 no finding, 1 findings, 2 could not run.";

po::options_description diagnose_options(DiagnoseArgs& a) {
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "replay", po::value(&a.replays),
        "a recording (JSON lines from `rocehealth record`); repeat for more hosts")(
        "bundle", po::value(&a.bundles),
        "a directory of one host's text captures (ethtool -S, hw_counters, ibv_devinfo -v, "
        "lspci -vv, ip -d link, mlnx_qos); repeat, in time order")(
        "interval", po::value(&a.interval_text),
        "time between bundle captures, e.g. 10s or 10 (when they have no `timestamp` file)")(
        "live", "sample this host's counters for --duration, then diagnose")(
        "duration", po::value(&a.duration_text), "how long --live samples (default 30s)")(
        "live-interval", po::value(&a.live_interval_text),
        "time between --live passes (default 1s)")(
        "save", po::value(&a.save_path), "with --live: also write the samples as a recording")(
        "sysfs-root", po::value(&a.root), "with --live: sysfs tree to read (default /sys)")(
        "device", po::value(&a.device), "with --live: only this RDMA device")(
        "require-port", po::value(&a.required_ports),
        "a port that must be up, DEVICE/PORT (mlx5_1/1) or a netdev name; repeat for more (a "
        "down port that never carried traffic is otherwise a note: taken as not cabled)")(
        "rules", po::value(&a.rules_file),
        "rules file (default: $ROCEHEALTH_RULES, /etc/rocehealth/rules.json, the packaged one)")(
        "json", "print the result as JSON")("verbose,v",
                                            "also list input notes and rules not applicable");
    return desc;
}

namespace {

bool fail(const std::string& why) {
    std::cerr << "rocehealth diagnose: " << why << "\n";
    return false;
}

/// --duration, --live-interval and --sysfs-root with --live; none of --live's options without.
bool check_live_args(DiagnoseArgs& a, const po::variables_map& vm) {
    if (a.live) {
        if (auto e = parse_duration_s("--duration", a.duration_text, 0.1, 86400, a.duration_s))
            return fail(*e);
        if (auto e = parse_duration_s("--live-interval", a.live_interval_text, 0.1, 3600,
                                      a.live_interval_s))
            return fail(*e);
        return sysfs_root_usable("diagnose", a.root);
    }
    for (const char* o : {"duration", "live-interval", "save", "sysfs-root", "device"})
        if (vm.count(o)) return fail(std::string("--") + o + " applies to --live only");
    return true;
}

}  // namespace

bool check_diagnose_args(DiagnoseArgs& a, const po::variables_map& vm) {
    a.live = vm.count("live") > 0;
    a.json = vm.count("json") > 0;
    a.verbose = vm.count("verbose") > 0;
    if ((!a.replays.empty()) + (!a.bundles.empty()) + a.live > 1)
        return fail("--replay, --bundle and --live are alternatives: give one kind of input");
    if (a.replays.empty() && a.bundles.empty() && !a.live)
        return fail("nothing to diagnose: give --replay FILE, --bundle DIR or --live");
    if (!check_live_args(a, vm)) return false;
    if (vm.count("interval")) {
        double s = 0;
        if (auto e = parse_duration_s("--interval", a.interval_text, 0.001, 1e7, s))
            return fail(*e);
        a.interval_s = s;
        if (a.bundles.empty())
            return fail(
                "--interval applies to --bundle captures only (recordings carry their own "
                "times)");
    }
    for (const std::string& r : a.required_ports)
        if (const std::string why = check_required_port(r); !why.empty())
            return fail("--require-port " + why);
    return true;
}

}  // namespace rh::cli
