// rocehealth rules check FILE... / rocehealth rules test [--rules FILE] DIR...: the rules file
// checked and its findings tested on scenarios, as `promtool check rules` / `promtool test rules`
// do for Prometheus rules (agent/replay/rules_test.h).
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/replay/rules_test.h"
#include "core/json_file.h"
#include "rules/engine/rule_spec.h"

namespace rh::cli {

namespace {

int rules_check(const std::vector<std::string>& args) {
    std::vector<std::string> files;
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")("file", po::value(&files)->composing(),
                                                   "rules files (positional)");
    po::positional_options_description pos;
    pos.add("file", -1);
    po::variables_map vm;
    if (auto exit = parse_options(
            "rules check", "rocehealth rules check FILE...",
            "Check rules files as diagnose and the agent load them: every rule's first problem\n"
            "is printed as FILE: rules[N].FIELD: what is wrong.\n"
            "Exit: 0 every file is valid, 1 a file has problems, 2 no file given.",
            args, desc, vm, &pos))
        return *exit;
    if (files.empty()) {
        std::cerr << "rocehealth rules check: no rules file given\n";
        return kExitCannotRun;
    }
    int rc = kExitOk;
    for (const std::string& f : files) {
        auto j = read_json_file(f, "rules check");
        if (!j) {
            std::cerr << j.error().message() << "\n";
            rc = kExitFindings;
            continue;
        }
        const RuleCheck c = check_rules(*j, f);
        for (const auto& p : c.problems) std::cerr << p << "\n";
        if (!c.problems.empty()) {
            std::cout << f << ": " << c.problems.size() << " problem"
                      << (c.problems.size() == 1 ? "" : "s") << "\n";
            rc = kExitFindings;
            continue;
        }
        std::size_t checks = 0;
        for (const auto& r : c.set.rules) checks += !r.check.empty();
        std::cout << f << ": ok, " << c.set.rules.size() << " rules ("
                  << c.set.rules.size() - checks << " over time, " << checks
                  << " inventory checks)\n";
    }
    return rc;
}

/// "ok   NAME  exit N  FINDINGS" (or "FAIL ..." and a line per problem) on stdout.
void print_outcome(const ScenarioOutcome& o) {
    std::string got;
    for (const auto& x : o.got) got += (got.empty() ? "" : " ") + x;
    std::cout << (o.problems.empty() ? "ok   " : "FAIL ") << o.name << "  exit " << o.exit_code
              << "  " << (got.empty() ? std::string("-") : got) << "\n";
    for (const auto& p : o.problems) std::cout << "     " << p << "\n";
}

int rules_test(const std::vector<std::string>& args) {
    std::vector<std::string> paths;
    std::string rules_file;
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")("rules", po::value(&rules_file),
                                                   "rules file (default: as diagnose finds it)")(
        "dir", po::value(&paths)->composing(), "scenario directories (positional)");
    po::positional_options_description pos;
    pos.add("dir", -1);
    po::variables_map vm;
    if (auto exit = parse_options(
            "rules test", "rocehealth rules test [--rules FILE] DIR...",
            "Replay scenarios through the rules and compare the findings with what each expects.\n"
            "A scenario is a directory of recordings (*.jsonl) and expected.json:\n"
            "  {\"findings\": [{\"rule\": \"rnr\", \"host\": \"gpu01\", \"severity\": \"error\",\n"
            "                 \"labels\": {\"priority\": \"3\"}}], \"exit\": 1}\n"
            "(tests/scenarios/README.md); a DIR without expected.json stands for its\n"
            "sub-directories that have one. Every expected finding must be reported and every\n"
            "reported one expected; exit is what diagnose --replay would exit with.\n"
            "Exit: 0 every scenario as expected, 1 one is not, 2 a scenario or the rules\n"
            "cannot be read.",
            args, desc, vm, &pos))
        return *exit;
    if (paths.empty()) {
        std::cerr << "rocehealth rules test: no scenario directory given\n";
        return kExitCannotRun;
    }
    if (rules_file.empty()) rules_file = default_rules_path();
    const auto rules = load_rules_file(rules_file);
    if (!rules) {
        std::cerr << "rocehealth rules test: " << rules.error().message() << "\n";
        return kExitCannotRun;
    }
    std::vector<std::string> dirs;
    for (const auto& p : paths) {
        auto d = scenario_dirs(p);
        if (!d) {
            std::cerr << "rocehealth rules test: " << d.error().message() << "\n";
            return kExitCannotRun;
        }
        dirs.insert(dirs.end(), d->begin(), d->end());
    }
    std::size_t failed = 0;
    for (const auto& dir : dirs) {
        auto o = run_scenario(dir, *rules);
        if (!o) {
            std::cerr << "rocehealth rules test: " << o.error().message() << "\n";
            return kExitCannotRun;
        }
        print_outcome(*o);
        failed += !o->problems.empty();
    }
    std::cout << dirs.size() - failed << " of " << dirs.size() << " scenarios as expected ("
              << rules_file << ")\n";
    return failed ? kExitFindings : kExitOk;
}

}  // namespace

int run_rules_command(const std::vector<std::string>& args) {
    const std::string usage =
        "usage: rocehealth rules check FILE...\n"
        "       rocehealth rules test [--rules FILE] DIR...\n";
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        (args.empty() ? std::cerr : std::cout) << usage;
        return args.empty() ? kExitCannotRun : kExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "check") return rules_check(rest);
    if (args[0] == "test") return rules_test(rest);
    std::cerr << "rocehealth rules: unknown subcommand '" << args[0] << "'\n" << usage;
    return kExitCannotRun;
}

}  // namespace rh::cli
