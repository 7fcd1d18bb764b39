// rocehealth check: collect this host's inventory, optionally ask a peer's responder for its
// view, run the rules and print findings. Exit 0 healthy, 1 findings, 2 could not run.
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/reports/check_report.h"
#include "collectors/collect.h"
#include "probes/latency/peer_query.h"
#include "rules/engine/checks.h"
#include "rules/port_usage.h"
#include "rules/rule.h"

namespace rh::cli {

namespace {

PeerView to_view(const PeerInfo& p) {
    return PeerView{p.peer, p.hostname, p.device, p.port, p.active_mtu_bytes};
}

/// The options as given.
struct CheckArgs {
    std::string root = "/sys", device, peer, rules_file;
    int peer_timeout_ms = 5000;
    std::vector<std::string> required_ports;
};

po::options_description check_options(CheckArgs& a) {
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "sysfs-root", po::value(&a.root),
        "sysfs tree to read (default /sys; a fixture tree disables rtnetlink and verbs)")(
        "device", po::value(&a.device), "only this RDMA device (e.g. mlx5_0)")(
        "peer", po::value(&a.peer),
        "HOST[:PORT] of a peer running `rocehealth responder`: compare its active_mtu with ours")(
        "peer-timeout-ms", po::value(&a.peer_timeout_ms),
        "deadline for the peer query (default 5000)")(
        "require-port", po::value(&a.required_ports),
        "a port that must be up, DEVICE/PORT (mlx5_1/1) or a netdev name; repeat for more. A "
        "down port that never carried traffic is otherwise a note (taken as not cabled)")(
        "json", "print the result as JSON")("list-rules",
                                            "list the rules and exit (with --json: a JSON array)")(
        "rules", po::value(&a.rules_file),
        "rules file whose inventory checks run, with their severities (default: "
        "$ROCEHEALTH_RULES, /etc/rocehealth/rules.json, then the packaged rules)");
    return desc;
}

/// Prints "rocehealth check: WHY" and returns false on the first bad option.
bool check_check_args(const CheckArgs& a, const po::variables_map& vm) {
    auto fail = [](const std::string& why) {
        std::cerr << "rocehealth check: " << why << "\n";
        return false;
    };
    if (vm.count("peer") && a.peer.empty())
        return fail("--peer needs HOST[:PORT], got an empty value");
    if (a.peer_timeout_ms <= 0)
        return fail("--peer-timeout-ms must be positive, got " + std::to_string(a.peer_timeout_ms));
    for (const std::string& r : a.required_ports)
        if (const std::string why = check_required_port(r); !why.empty())
            return fail("--require-port " + why);
    return sysfs_root_usable("check", a.root);
}

/// Why there is nothing to check: the devices present when --device named another, else how to
/// get an RDMA device.
void print_no_device(const CheckArgs& a) {
    const auto present = SysfsRoot(a.root).list("class/infiniband");
    if (!a.device.empty() && present && !present->empty()) {
        std::string names;
        for (const auto& n : *present) names += (names.empty() ? "" : ", ") + n;
        std::cerr << "rocehealth check: no RDMA device named " << a.device << " under " << a.root
                  << "/class/infiniband; present: " << names << "\n";
    } else {
        std::cerr << "rocehealth check: no RDMA device"
                  << (a.device.empty() ? "" : " named " + a.device) << " found under " << a.root
                  << "/class/infiniband; load the NIC's RDMA driver (e.g. mlx5_ib) or create "
                     "a Soft-RoCE device (rdma link add rxe0 type rxe netdev eth0)\n";
    }
}

}  // namespace

int run_check(const std::vector<std::string>& args) {
    CheckArgs a;
    const auto desc = check_options(a);
    po::variables_map vm;
    if (auto exit = parse_options("check",
                                  "rocehealth check [--peer HOST[:PORT]] [--device NAME] "
                                  "[--require-port DEV/PORT|NETDEV ...] [--sysfs-root DIR] "
                                  "[--rules FILE] [--json] [--list-rules]",
                                  "Diagnose this host's RDMA ports, PCIe links and MTU; with "
                                  "--peer, also the path to a peer.\nExit: 0 healthy, 1 "
                                  "findings, 2 could not run or could not evaluate everything.",
                                  args, desc, vm))
        return *exit;
    const auto rules = load_rules_file(a.rules_file.empty() ? default_rules_path() : a.rules_file);
    if (!rules) {
        std::cerr << "rocehealth check: " << rules.error().message() << "\n";
        return kExitCannotRun;
    }
    if (vm.count("list-rules")) {
        print_check_rules(std::cout, *rules, vm.count("json") > 0);
        return kExitOk;
    }
    if (!check_check_args(a, vm)) return kExitCannotRun;
    const Snapshot snap = collect_snapshot(CollectOptions{SysfsRoot(a.root), a.device});
    if (snap.devices.empty()) {
        print_no_device(a);
        return kExitCannotRun;
    }
    // A peer that cannot be queried leaves the path to it unevaluated; this host's findings are
    // still reported, first.
    std::optional<PeerView> peer_view;
    std::optional<Error> peer_error;
    if (!a.peer.empty()) {
        auto info = query_peer(a.peer, a.peer_timeout_ms);
        if (info) {
            peer_view = to_view(*info);
        } else {
            peer_error = info.error();
            std::cerr << "rocehealth check: cannot query peer: " << info.error().message() << "\n";
        }
    }
    auto result = run_host_checks(*rules, RuleInput{snap, peer_view, a.required_ports});
    if (peer_error)
        result.unevaluated.push_back({"peer " + a.peer, "cannot query its responder (" +
                                                            peer_error->message() +
                                                            "): the path to it is not checked"});
    const auto report = check_report(snap, peer_view, result);
    if (vm.count("json"))
        std::cout << nlohmann::json(report).dump(2, ' ', false,
                                                 nlohmann::json::error_handler_t::replace)
                  << "\n";
    else
        render_check_text(std::cout, report);
    // Exit 2 also when nothing was found but something could not be evaluated: "healthy" must
    // mean every rule saw what it needs.
    if (!result.findings.empty()) return kExitFindings;
    return result.unevaluated.empty() ? kExitOk : kExitCannotRun;
}

}  // namespace rh::cli
