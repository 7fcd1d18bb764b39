// The command table and the dispatch of `rocehealth <command> [options]` (agent/cli/commands.h).
#include "agent/cli/commands.h"

#include <cstdio>
#include <exception>

#include "probes/fault/link_guard.h"
#include "probes/verbs/qp_timeout.h"

namespace rh::cli {

// Each command's entry point, defined in its agent/cli/cmd_<name>.cpp.
int run_snapshot(const std::vector<std::string>& args);
int run_check(const std::vector<std::string>& args);
int run_probe(const std::vector<std::string>& args);
int run_responder(const std::vector<std::string>& args);
int run_record(const std::vector<std::string>& args);
int run_diagnose(const std::vector<std::string>& args);
int run_agent(const std::vector<std::string>& args);
int run_incast(const std::vector<std::string>& args);
int run_mesh(const std::vector<std::string>& args);
int run_accept(const std::vector<std::string>& args);
int run_keygen(const std::vector<std::string>& args);
int run_fabric(const std::vector<std::string>& args);
int run_rules_command(const std::vector<std::string>& args);  ///< rules check / rules test

namespace {

constexpr Command kCommands[] = {
    {"snapshot", run_snapshot, "print RDMA devices, ports, GIDs, counters, netdevs, PCIe"},
    {"check", run_check, "diagnose this host (and a peer) and print findings"},
    {"probe", run_probe, "measure RDMA WRITE/READ latency to a peer's responder"},
    {"responder", run_responder, "serve probes from peers"},
    {"record", run_record, "record counters and facts as JSON lines for diagnose --replay"},
    {"diagnose", run_diagnose, "run the rules over recordings or captured text bundles"},
    {"agent", run_agent, "per-host daemon: collection, rules, /metrics and JSON API"},
    {"incast", run_incast, "many-to-one RDMA traffic between responders, with findings"},
    {"mesh", run_mesh, "probe every peer on a schedule; samples for diagnose"},
    {"accept", run_accept,
     "acceptance of a fabric against a spec, with a report (or --render report.json)"},
    {"keygen", run_keygen, "write a new fabric key for the control channel"},
    {"fabric", run_fabric,
     "the fabric's timeline from Prometheus: pause-storm origin, failing ToR, config drift"},
    {"rules", run_rules_command,
     "check rules files; test them on scenarios (rules check FILE..., rules test DIR...)"},
};

void usage(std::FILE* out) {
    std::fprintf(out, "usage: rocehealth <command> [options]   (rocehealth <command> --help)\n\n");
    for (const auto& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.help);
}

}  // namespace

std::span<const Command> command_table() {
    return kCommands;
}

int dispatch(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return kExitCannotRun;
    }
    const std::string cmd = argv[1];
    // Not listed: the fault stage's guard process (probes/fault/link_guard.h) runs this binary
    // again.
    if (cmd == "_link-guard") return run_link_guard(argc, argv);
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        usage(stdout);
        return kExitOk;
    }
    for (const auto& c : kCommands) {
        if (cmd != c.name) continue;
        // A bad override fails every command at once, not each QP later (a responder would only
        // log it per session).
        if (auto t = configured_qp_timeout(); !t) {
            std::fprintf(stderr, "rocehealth %s: %s\n", c.name, t.error().message().c_str());
            return kExitCannotRun;
        }
        try {
            return c.run(std::vector<std::string>(argv + 2, argv + argc));
        } catch (const std::exception& e) {
            // Commands report their own errors; this is the last line of defence.
            std::fprintf(stderr, "rocehealth %s: %s\n", c.name, e.what());
            return kExitCannotRun;
        }
    }
    std::fprintf(stderr, "rocehealth: unknown command '%s'\n", cmd.c_str());
    usage(stderr);
    return kExitCannotRun;
}

}  // namespace rh::cli
