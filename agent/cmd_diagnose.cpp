// rocehealth diagnose: runs the rule engine over recorded data — recordings written by
// `rocehealth record` (--replay) or operators' text captures (--bundle) — and prints the findings
// with their evidence and the timeline. The same engine runs live in the agent.
// Exit: 0 no finding, 1 findings, 2 could not run (bad input, bad rules file, no data).
#include <iostream>
#include <limits>

#include "agent/commands.h"
#include "agent/diagnose_report.h"
#include "agent/options.h"
#include "rules/engine/engine.h"
#include "store/inputs.h"

namespace rh::cli {

int run_diagnose(const std::vector<std::string>& args) {
    po::options_description desc("options");
    std::vector<std::string> replays, bundles;
    std::string rules_file;
    double interval_s = 0;
    desc.add_options()("help,h", "show this help")(
        "replay", po::value(&replays),
        "a recording (JSON lines from `rocehealth record`); repeat for more hosts")(
        "bundle", po::value(&bundles),
        "a directory of one host's text captures (ethtool -S, hw_counters, ibv_devinfo -v, "
        "lspci -vv, ip -d link, mlnx_qos); repeat, in time order")(
        "interval", po::value(&interval_s),
        "seconds between bundle captures (when they have no `timestamp` file)")(
        "rules", po::value(&rules_file),
        "rules file (default: $ROCEHEALTH_RULES, /etc/rocehealth/rules.json, the packaged one)")(
        "json", "print the result as JSON")("verbose,v",
                                             "also list input notes and rules not applicable");
    po::variables_map vm;
    if (auto exit = parse_options(
            "diagnose",
            "rocehealth diagnose (--replay FILE... | --bundle DIR... [--interval SECONDS]) "
            "[--rules FILE] [--json]",
            "Diagnose recorded data: findings with evidence, alternatives and a timeline.\n"
            "Exit: 0 no finding, 1 findings, 2 could not run.",
            args, desc, vm))
        return *exit;
    if (replays.empty() && bundles.empty()) {
        std::cerr << "rocehealth diagnose: nothing to diagnose: give --replay FILE or --bundle DIR\n";
        return kExitCannotRun;
    }
    if (vm.count("interval") && !(interval_s > 0 && interval_s < 1e7)) {
        std::cerr << "rocehealth diagnose: --interval: expected seconds > 0, got " << interval_s
                  << "\n";
        return kExitCannotRun;
    }
    if (vm.count("interval") && bundles.empty()) {
        std::cerr << "rocehealth diagnose: --interval applies to --bundle captures only "
                     "(recordings carry their own times)\n";
        return kExitCannotRun;
    }
    if (rules_file.empty()) rules_file = default_rules_path();
    const auto rules = load_rules_file(rules_file);
    if (!rules) {
        std::cerr << "rocehealth diagnose: " << rules.error().message() << "\n";
        return kExitCannotRun;
    }

    // A replay is analysed whole: no retention limit.
    SeriesStore store(StoreLimits{std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<std::size_t>::max()});
    std::vector<InputReport> inputs;
    for (const std::string& f : replays) {
        auto r = load_recording(store, f);
        if (!r) {
            std::cerr << "rocehealth diagnose: " << r.error().message() << "\n";
            return kExitCannotRun;
        }
        for (const auto& n : r->notes) std::cerr << "rocehealth diagnose: note: " << n << "\n";
        if (r->samples == 0) {
            std::cerr << "rocehealth diagnose: " << f << ": no samples in the recording\n";
            return kExitCannotRun;
        }
        inputs.push_back(std::move(*r));
    }
    if (!bundles.empty()) {
        auto r = load_bundles(store, bundles,
                              vm.count("interval") ? std::optional<double>(interval_s) : std::nullopt);
        if (!r) {
            std::cerr << "rocehealth diagnose: " << r.error().message() << "\n";
            return kExitCannotRun;
        }
        for (auto& in : *r) inputs.push_back(std::move(in));
    }
    if (store.dropped_out_of_order() > 0)
        std::cerr << "rocehealth diagnose: note: " << store.dropped_out_of_order()
                  << " samples older than their series' previous one were ignored (inputs out "
                     "of time order?)\n";

    const EngineResult result = run_rules(store, *rules);
    const auto doc = diagnose_json(result, rules_file, inputs);
    if (vm.count("json"))
        std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        render_diagnose_text(std::cout, doc, vm.count("verbose") > 0);
    return result.findings.empty() ? kExitOk : kExitFindings;
}

}  // namespace rh::cli
