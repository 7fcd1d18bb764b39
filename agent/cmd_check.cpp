// rocehealth check: collect this host's inventory, optionally ask a peer's responder for its
// view, run the rules and print findings. Exit 0 healthy, 1 findings, 2 could not run.
#include <algorithm>
#include <iostream>

#include "agent/check_report.h"
#include "agent/commands.h"
#include "agent/options.h"
#include "collectors/collect.h"
#include "probes/peer_query.h"
#include "rules/engine/checks.h"
#include "rules/port_usage.h"
#include "rules/rule.h"

namespace rh::cli {

namespace {

PeerView to_view(const PeerInfo& p) {
    return PeerView{p.peer, p.hostname, p.device, p.port, p.active_mtu_bytes};
}

/// `--list-rules`: the inventory checks the rules file runs, "id<TAB>description" a line, or with
/// `json` an array of {"id", "description", "severity", "severities"} (the usual severity of its
/// findings, and every one the rules file lets it give).
void list_rules(const RuleSet& rules, bool json) {
    auto out = nlohmann::json::array();
    for (const RuleSpec& r : rules.rules) {
        const RuleDef* def = r.check.empty() ? nullptr : find_check(r.check);
        if (!def) continue;
        if (!json) {
            std::cout << r.id << "\t" << def->description << "\n";
            continue;
        }
        auto severities = nlohmann::json::array({to_string(r.severity)});
        for (const Escalation& e : r.escalate)
            if (std::find(severities.begin(), severities.end(), to_string(e.severity)) ==
                severities.end())
                severities.push_back(to_string(e.severity));
        out.push_back({{"id", r.id},
                       {"description", def->description},
                       {"severity", to_string(r.severity)},
                       {"severities", std::move(severities)}});
    }
    if (json) std::cout << out.dump(2) << "\n";
}

}  // namespace

int run_check(const std::vector<std::string>& args) {
    po::options_description desc("options");
    std::string root = "/sys", device, peer, rules_file;
    int peer_timeout_ms = 5000;
    std::vector<std::string> required_ports;
    desc.add_options()("help,h", "show this help")(
        "sysfs-root", po::value(&root),
        "sysfs tree to read (default /sys; a fixture tree disables rtnetlink and verbs)")(
        "device", po::value(&device), "only this RDMA device (e.g. mlx5_0)")(
        "peer", po::value(&peer),
        "HOST[:PORT] of a peer running `rocehealth responder`: compare its active_mtu with ours")(
        "peer-timeout-ms", po::value(&peer_timeout_ms),
        "deadline for the peer query (default 5000)")(
        "require-port", po::value(&required_ports),
        "a port that must be up, DEVICE/PORT (mlx5_1/1) or a netdev name; repeat for more. A "
        "down port that never carried traffic is otherwise a note (taken as not cabled)")(
        "json", "print the result as JSON")("list-rules",
                                            "list the rules and exit (with --json: a JSON array)")(
        "rules", po::value(&rules_file),
        "rules file whose inventory checks run, with their severities (default: "
        "$ROCEHEALTH_RULES, /etc/rocehealth/rules.json, then the packaged rules)");
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
    const auto rules = load_rules_file(rules_file.empty() ? default_rules_path() : rules_file);
    if (!rules) {
        std::cerr << "rocehealth check: " << rules.error().message() << "\n";
        return kExitCannotRun;
    }
    if (vm.count("list-rules")) {
        list_rules(*rules, vm.count("json") > 0);
        return kExitOk;
    }
    if (vm.count("peer") && peer.empty()) {
        std::cerr << "rocehealth check: --peer needs HOST[:PORT], got an empty value\n";
        return kExitCannotRun;
    }
    if (peer_timeout_ms <= 0) {
        std::cerr << "rocehealth check: --peer-timeout-ms must be positive, got " << peer_timeout_ms
                  << "\n";
        return kExitCannotRun;
    }
    for (const std::string& r : required_ports)
        if (const std::string why = check_required_port(r); !why.empty()) {
            std::cerr << "rocehealth check: --require-port " << why << "\n";
            return kExitCannotRun;
        }
    if (!sysfs_root_usable("check", root)) return kExitCannotRun;

    const Snapshot snap = collect_snapshot(CollectOptions{SysfsRoot(root), device});
    if (snap.devices.empty()) {
        const auto present = SysfsRoot(root).list("class/infiniband");
        if (!device.empty() && present && !present->empty()) {
            std::string names;
            for (const auto& n : *present) names += (names.empty() ? "" : ", ") + n;
            std::cerr << "rocehealth check: no RDMA device named " << device << " under " << root
                      << "/class/infiniband; present: " << names << "\n";
        } else {
            std::cerr << "rocehealth check: no RDMA device"
                      << (device.empty() ? "" : " named " + device) << " found under " << root
                      << "/class/infiniband; load the NIC's RDMA driver (e.g. mlx5_ib) or create "
                         "a Soft-RoCE device (rdma link add rxe0 type rxe netdev eth0)\n";
        }
        return kExitCannotRun;
    }

    std::optional<PeerView> peer_view;
    if (!peer.empty()) {
        auto info = query_peer(peer, peer_timeout_ms);
        if (!info) {
            std::cerr << "rocehealth check: cannot query peer: " << info.error().message() << "\n";
            return kExitCannotRun;
        }
        peer_view = to_view(*info);
    }

    const auto result = run_host_checks(*rules, RuleInput{snap, peer_view, required_ports});
    const auto report = check_report(snap, peer_view, result);
    if (vm.count("json"))
        std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        render_check_text(std::cout, report);
    // Exit 2 also when nothing was found but something could not be evaluated: "healthy" must
    // mean every rule saw what it needs.
    if (!result.findings.empty()) return kExitFindings;
    return result.unevaluated.empty() ? kExitOk : kExitCannotRun;
}

}  // namespace rh::cli
