// rocehealth agent: the per-host daemon (agent/daemon/README.md). Reads --config, then runs the
// collectors, the rule engine, the HTTP endpoint and (if enabled) the responder until
// SIGTERM/SIGINT; SIGHUP reloads the config. --check-config validates the file, the rules file
// and the token file it names, that this host can serve it (its listen addresses bind, its
// devices exist: agent/daemon/config_host_check.h), warns (stderr) about deprecated fields, and
// exits.
// Exit: 0 stopped on request (or the config is valid), 2 could not start (bad config, HTTP
// address cannot be bound).
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/daemon/agent_loop.h"
#include "agent/daemon/config_host_check.h"
#include "agent/daemon/log.h"

namespace rh::cli {

int run_agent(const std::vector<std::string>& args) {
    std::string config_path = "/etc/rocehealth/agent.json";
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "config", po::value(&config_path)->default_value(config_path),
        "configuration file (JSON; fields in agent/daemon/README.md)")(
        "check-config",
        "validate the configuration (and the rules and token files it names), "
        "print the result and exit");
    po::variables_map vm;
    if (auto exit = parse_options(
            "agent", "rocehealth agent [--config FILE] [--check-config]",
            "Run the per-host agent: counters into a time series every collect_interval_s, the\n"
            "rules over it, Prometheus /metrics and a JSON API over HTTP, and optionally the\n"
            "probe responder. Logs are JSON lines on stderr. SIGHUP reloads the config (a bad\n"
            "one is rejected and the running one kept); SIGTERM stops.\n"
            "Exit: 0 stopped (or --check-config: valid), 2 could not start or config invalid.",
            args, desc, vm))
        return *exit;

    auto cfg = agent::load_agent_config(config_path);
    if (!cfg) {
        std::cerr << "rocehealth agent: " << cfg.error().message() << "\n";
        return kExitCannotRun;
    }
    // --check-config: the host must fit the config too (its addresses bind, its devices exist),
    // checked even when a file the config names is bad, so that every problem shows at once.
    const bool check = vm.count("check-config") != 0;
    const Status fits = check ? agent::check_config_on_host(*cfg) : ok_status();
    auto rt = agent::prepare_runtime(std::move(*cfg));
    if (!rt) std::cerr << "rocehealth agent: " << rt.error().message() << "\n";
    if (!fits) std::cerr << "rocehealth agent: " << fits.error().message() << "\n";
    if (!rt || !fits) return kExitCannotRun;
    if (check) {
        // Valid, but worth a line: a field that no longer does anything.
        for (const agent::DeprecatedField& d : rt->cfg.deprecated)
            std::cerr << "rocehealth agent: " << config_path << ": warning: " << d.text << "\n";
        std::cout << "rocehealth agent: " << config_path << ": OK (" << rt->rules.rules.size()
                  << " rules from " << rt->rules_path << ", listen " << rt->cfg.http.listen_host
                  << ":" << rt->cfg.http.listen_port << (rt->tls ? " (HTTPS)" : "") << ", sysfs "
                  << rt->cfg.sysfs_root << ", every " << rt->cfg.collect_interval_s << " s)\n";
        return kExitOk;
    }
    agent::block_agent_signals();  // before any thread starts
    return agent::run_agent_loop(std::move(*rt), config_path);
}

}  // namespace rh::cli
