// rocehealth incast --receiver HOST --senders H1,H2,...: many-to-one traffic between hosts that
// run `rocehealth responder`, coordinated from here (probes/incast/incast_coordinator.h); the
// result with per-sender goodput, fairness, integrity, the victim flow, and the rule engine over
// every participant's counters (agent/reports/incast_report.h). Options and their checks:
// agent/cli/incast_options.h.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/incast_options.h"
#include "agent/cli/key_option.h"
#include "agent/cli/options.h"
#include "agent/reports/incast_analysis.h"
#include "agent/reports/incast_report.h"
#include "probes/incast/incast_coordinator.h"

namespace rh::cli {

namespace {

/// "\r  3.5/8.0 s  aggregate 1.234 Gb/s  errors 0  senders reporting 3  victim p99 812 us" on
/// stderr.
void live_line(const incast::Live& l) {
    char b[256];
    std::snprintf(b, sizeof b,
                  "\r  %4.1f/%.1f s  aggregate %.3f Gb/s  errors %llu  senders reporting %u",
                  l.elapsed_s, l.duration_s, l.aggregate_gbps,
                  static_cast<unsigned long long>(l.errors), l.running);
    std::string s = b;
    if (l.victim_p99_us) {
        std::snprintf(b, sizeof b, "  victim p99 %.0f us", *l.victim_p99_us);
        s += b;
    }
    std::fprintf(stderr, "%s   ", s.c_str());
    std::fflush(stderr);
}

}  // namespace

int run_incast(const std::vector<std::string>& args) {
    IncastArgs a;
    const auto desc = incast_options(a);
    po::variables_map vm;
    if (auto exit = parse_options("incast", kIncastUsage, kIncastAbout, args, desc, vm))
        return *exit;
    if (auto e = check_incast_args(a, vm)) return usage_error("incast", kIncastUsage, *e);
    if (auto exit = install_fabric_key("incast", a.key_file)) return *exit;
    if (a.rules_file.empty()) a.rules_file = default_rules_path();
    const auto rules = load_rules_file(a.rules_file);
    if (!rules) {
        std::cerr << "rocehealth incast: " << rules.error().message() << "\n";
        return kExitCannotRun;
    }

    const bool tty = !a.json && ::isatty(STDERR_FILENO);
    auto run =
        incast::run_incast(a.o, tty ? live_line : std::function<void(const incast::Live&)>());
    if (tty) std::fprintf(stderr, "\n");
    if (!run) {
        std::cerr << "rocehealth incast: " << run.error().message() << "\n";
        if (a.json)
            std::cout << nlohmann::json{{"ok", false}, {"error", run.error().message()}}.dump(2)
                      << "\n";
        return kExitCannotRun;
    }
    const IncastReport report = incast_report(*run, analyse_incast(*run, *rules, a.rules_file));
    if (a.json)
        std::cout << nlohmann::json(report).dump(2, ' ', false,
                                                 nlohmann::json::error_handler_t::replace)
                  << "\n";
    else
        render_incast_text(std::cout, report);
    return incast_exit_code(report);
}

}  // namespace rh::cli
