// rocehealth: entry point. Dispatches to one subcommand; see agent/commands.h.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "agent/commands.h"
#include "probes/link_guard.h"
#include "probes/qp_timeout.h"

namespace {

struct Subcommand {
    const char* name;
    int (*run)(const std::vector<std::string>&);
    const char* help;
};

constexpr Subcommand kSubcommands[] = {
    {"snapshot", rh::cli::run_snapshot, "print RDMA devices, ports, GIDs, counters, netdevs, PCIe"},
    {"check", rh::cli::run_check, "diagnose this host (and a peer) and print findings"},
    {"probe", rh::cli::run_probe, "measure RDMA WRITE/READ latency to a peer's responder"},
    {"responder", rh::cli::run_responder, "serve probes from peers"},
    {"record", rh::cli::run_record,
     "record counters and facts as JSON lines for diagnose --replay"},
    {"diagnose", rh::cli::run_diagnose, "run the rules over recordings or captured text bundles"},
    {"agent", rh::cli::run_agent, "per-host daemon: collection, rules, /metrics and JSON API"},
    {"incast", rh::cli::run_incast, "many-to-one RDMA traffic between responders, with findings"},
    {"mesh", rh::cli::run_mesh, "probe every peer on a schedule; samples for diagnose"},
    {"accept", rh::cli::run_accept,
     "acceptance of a fabric against a spec, with a report (or --render report.json)"},
    {"keygen", rh::cli::run_keygen, "write a new fabric key for the control channel"},
    {"fabric", rh::cli::run_fabric,
     "the fabric's timeline from Prometheus: pause-storm origin, failing ToR, config drift"},
    {"rules", rh::cli::run_rules_command,
     "check rules files; test them on scenarios (rules check FILE..., rules test DIR...)"},
};

void usage(std::FILE* out) {
    std::fprintf(out, "usage: rocehealth <command> [options]   (rocehealth <command> --help)\n\n");
    for (const auto& c : kSubcommands) std::fprintf(out, "  %-10s %s\n", c.name, c.help);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return rh::cli::kExitCannotRun;
    }
    const std::string cmd = argv[1];
    // Not listed: the fault stage's guard process (probes/link_guard.h) runs this binary again.
    if (cmd == "_link-guard") return rh::run_link_guard(argc, argv);
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        usage(stdout);
        return rh::cli::kExitOk;
    }
    for (const auto& c : kSubcommands) {
        if (cmd != c.name) continue;
        // A bad override fails every command at once, not each QP later (a responder would only
        // log it per session).
        if (auto t = rh::configured_qp_timeout(); !t) {
            std::fprintf(stderr, "rocehealth %s: %s\n", c.name, t.error().message().c_str());
            return rh::cli::kExitCannotRun;
        }
        try {
            return c.run(std::vector<std::string>(argv + 2, argv + argc));
        } catch (const std::exception& e) {
            // Subcommands report their own errors; this is the last line of defence.
            std::fprintf(stderr, "rocehealth %s: %s\n", c.name, e.what());
            return rh::cli::kExitCannotRun;
        }
    }
    std::fprintf(stderr, "rocehealth: unknown command '%s'\n", cmd.c_str());
    usage(stderr);
    return rh::cli::kExitCannotRun;
}
