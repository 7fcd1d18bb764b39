// rocehealth mesh --peers H1,H2,...: latency to every peer's responder on a schedule
// (probes/mesh.h), each round's results appended as samples to a recording (--out) for
// `rocehealth diagnose --replay`; at the end a summary per peer and the CPU the mesh used.
// Exit: 0 every round of every peer measured, 1 some failed, 2 could not run.
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "agent/cli/probe_args.h"
#include "core/duration_arg.h"
#include "core/hostname.h"
#include "core/sample_json.h"
#include "probes/device_select.h"
#include "probes/mesh.h"

namespace rh::cli {

namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_mesh_signal(int) {
    g_stop.store(true);
}

constexpr const char* kUsage =
    "rocehealth mesh --peers H1,H2,... [--op write] [--sizes 64] [--iterations 20] "
    "[--interval 1s] [--jitter 0.1] [--duration 60s] [--backoff-max 60s] [--out FILE] [--host "
    "NAME] [--json]";

int usage_error(const std::string& msg) {
    std::cerr << "rocehealth mesh: " << msg << "\nusage: " << kUsage
              << "\n(rocehealth mesh --help for details)\n";
    return kExitCannotRun;
}

double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

nlohmann::json summary_json(const Mesh& m, double wall_s, double cpu_s, std::size_t samples) {
    nlohmann::json peers = nlohmann::json::array();
    for (const auto& p : m.status()) {
        nlohmann::json errors = nlohmann::json::object();
        for (const auto& [k, n] : p.errors) errors[k.first + "/" + k.second] = n;
        peers.push_back({{"peer", p.peer},
                         {"rounds_ok", p.rounds_ok},
                         {"rounds_failed", p.rounds_failed},
                         {"rounds_skipped", p.rounds_skipped},
                         {"connects", p.connects},
                         {"errors", errors},
                         {"last_error", p.last_error}});
    }
    return {{"peers", peers},
            {"wall_s", wall_s},
            {"cpu_s", cpu_s},
            {"cpu_percent", wall_s > 0 ? 100 * cpu_s / wall_s : 0},
            {"samples", samples}};
}

}  // namespace

int run_mesh(const std::vector<std::string>& args) {
    MeshSchedule s;
    std::string peers, ops = "write", sizes = "64", iterations = std::to_string(s.iterations),
                       interval = "1s", duration = "60s", out_path, host, timeout = "2000",
                       backoff_max = "60s";
    double jitter = s.jitter;
    bool json = false;
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")(
        "peers", po::value(&peers), "comma-separated HOST[:PORT] of peers' `rocehealth responder`")(
        "op", po::value(&ops)->default_value(ops), "operations: write, read, send")(
        "sizes", po::value(&sizes)->default_value(sizes), "message sizes (k = KiB, m = MiB)")(
        "iterations", po::value(&iterations)->default_value(iterations),
        "timed messages per op and size per round, 1..100000")(
        "interval", po::value(&interval)->default_value(interval), "time between rounds")(
        "jitter", po::value(&jitter)->default_value(jitter),
        "each round starts up to +-jitter x interval off the grid, 0..0.5")(
        "duration", po::value(&duration)->default_value(duration), "how long to run")(
        "backoff-max", po::value(&backoff_max)->default_value(backoff_max),
        "after an error a peer is retried in 1 s, doubling up to this")(
        "timeout-ms", po::value(&timeout)->default_value(timeout), "deadline of each wait")(
        "out", po::value(&out_path), "append the samples to this recording (JSON lines)")(
        "host", po::value(&host), "host name in the samples (default: this host's name)")(
        "device", po::value(&s.device), "RDMA device (default: first with an ACTIVE port)")(
        "json", po::bool_switch(&json), "print the summary as JSON");
    po::variables_map vm;
    if (auto exit = parse_options(
            "mesh", kUsage,
            "Probe every peer every interval over a kept QP (re-established with backoff after\n"
            "an error); samples probe_latency_us and probe_errors to --out for diagnose.\n"
            "Exit: 0 every round measured, 1 some rounds failed, 2 could not run.",
            args, desc, vm))
        return *exit;
    std::stringstream in(peers);
    for (std::string p; std::getline(in, p, ',');)
        if (!p.empty()) s.peers.push_back(p);
    if (s.peers.empty()) return usage_error("missing --peers");
    if (auto e = parse_ops(ops, s.ops)) return usage_error(*e);
    if (auto e = parse_sizes(sizes, s.sizes)) return usage_error(*e);
    std::uint64_t v = 0;
    if (auto e = parse_number("iterations", iterations, 1, 100000, v)) return usage_error(*e);
    s.iterations = static_cast<unsigned>(v);
    if (auto e = parse_number("timeout-ms", timeout, 1, 3'600'000, v)) return usage_error(*e);
    s.timeout_ms = static_cast<int>(v);
    if (auto e = parse_duration_s("--interval", interval, 0.1, 3600, s.interval_s))
        return usage_error(*e);
    s.jitter = jitter;
    if (auto e = parse_duration_s("--backoff-max", backoff_max, 1, 3600, s.backoff_max_s))
        return usage_error(*e);
    double duration_s = 0;
    if (auto e = parse_duration_s("--duration", duration, 0.1, 7 * 86400, duration_s))
        return usage_error(*e);
    if (auto c = check_schedule(s); !c) return usage_error(c.error().detail);
    // A host without a usable RDMA port cannot probe anyone: say so now, not per round.
    if (auto where = choose_port(SysfsRoot(s.sysfs_root), s.device, s.gid_index); !where) {
        std::cerr << "rocehealth mesh: " << where.error().message() << "\n";
        return kExitCannotRun;
    }
    if (host.empty()) host = host_name();
    std::ofstream out;
    if (!out_path.empty()) {
        out.open(out_path, std::ios::app);
        if (!out) {
            std::cerr << "rocehealth mesh: cannot open " << out_path << " for appending\n";
            return kExitCannotRun;
        }
    }
    struct sigaction sa {};
    sa.sa_handler = on_mesh_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    std::size_t samples = 0;
    Mesh mesh(s, host, [&](std::vector<Sample> round) {
        samples += round.size();
        if (!out.is_open()) return;
        for (const auto& x : round) write_sample(out, x);
        out.flush();
    });
    const auto t0 = Mesh::Clock::now();
    const double cpu0 = cpu_seconds();
    mesh.run(g_stop, t0 + std::chrono::duration_cast<Mesh::Clock::duration>(
                              std::chrono::duration<double>(duration_s)));
    const double wall = std::chrono::duration<double>(Mesh::Clock::now() - t0).count();
    const auto doc = summary_json(mesh, wall, cpu_seconds() - cpu0, samples);
    if (json) {
        std::cout << doc.dump(2) << "\n";
    } else {
        for (const auto& p : doc["peers"]) {
            std::cout << p["peer"].get<std::string>() << ": " << p["rounds_ok"] << " rounds ok, "
                      << p["rounds_failed"] << " failed, " << p["rounds_skipped"]
                      << " skipped (backoff), " << p["connects"] << " connects";
            if (!p["last_error"].get<std::string>().empty())
                std::cout << "; last error: " << p["last_error"].get<std::string>();
            std::cout << "\n";
        }
        std::printf("%.1f s, CPU %.2f s (%.2f%% of one core), %zu samples\n", wall,
                    doc["cpu_s"].get<double>(), doc["cpu_percent"].get<double>(), samples);
    }
    bool failed = false;
    for (const auto& p : mesh.status()) failed |= p.rounds_failed > 0;
    return failed ? kExitFindings : kExitOk;
}

}  // namespace rh::cli
